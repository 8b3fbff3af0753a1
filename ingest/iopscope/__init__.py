"""iopscope: results database and capacity planner for storage and OLTP benchmarks."""

__version__ = "0.1.0"
