"""Device pairs computed when asked, against the materialized mart: the measurement behind the
next design for fct_device_quotients (docs/performance.md, "What is not met").

The mart pairs every two devices measured under equal conditions (int_device_metrics_keyed
joined with itself on comparison_key and metric), so it grows with the square of the devices in
a comparison group. This script defines the same join as a view (the pair columns only: the
model adds keys, bounds and provenance per row) over a built warehouse, read-only, and times the
questions readers ask of the mart, both ways, in one run:

    .venv/bin/python bench/pairs_on_demand.py --warehouse /tmp/iopscope-bench/wh-10000/iopscope.duckdb

Prints JSON: per question the seconds (best of --repeat) and the row counts, which must agree.
"""

from __future__ import annotations

import argparse
import json
import time

import duckdb

PAIRS = """
create temp view pairs as
select a.result_domain, a.comparison_key, a.metric,
       a.device_id as device_a_id, b.device_id as device_b_id,
       a.metric_value as value_a, b.metric_value as value_b,
       a.metric_value / nullif(b.metric_value, 0) as quotient
from wh.intermediate.int_device_metrics_keyed as a
inner join wh.intermediate.int_device_metrics_keyed as b
    on  a.comparison_key = b.comparison_key
    and a.metric = b.metric
    and a.device_id <> b.device_id
    and a.printed_figure_id <> b.printed_figure_id
where not a.is_range_end and not b.is_range_end
"""


def best_of(con, sql: str, repeat: int) -> tuple[float, list]:
    times, rows = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        rows = con.execute(sql).fetchall()
        times.append(time.perf_counter() - started)
    return min(times), rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    con = duckdb.connect()
    con.execute(f"set threads = {int(args.threads)}")
    con.execute("attach ? as wh (read_only)", [args.warehouse])
    con.execute(PAIRS)
    a, b = con.execute("select device_a_id, device_b_id from wh.marts.fct_device_quotients "
                       "where result_domain = 'io' order by device_quotient_id limit 1").fetchone()
    questions = {
        "every pair (count)": "select count(*) from {src}",
        "one pair of devices": f"select count(*), avg(quotient) from {{src}} where device_a_id = '{a}' and device_b_id = '{b}'",
        "one device against all": f"select count(*) from {{src}} where device_a_id = '{a}'",
        "the TPC-C pairs (the site's tpcc_quotients.json)": "select count(*) from {src} where result_domain = 'tpcc'",
    }
    report = {"warehouse": args.warehouse, "keyed_metrics_rows": con.execute(
        "select count(*) from wh.intermediate.int_device_metrics_keyed").fetchone()[0], "questions": {}}
    for name, sql in questions.items():
        view_s, view_rows = best_of(con, sql.format(src="pairs"), args.repeat)
        mart_s, mart_rows = best_of(con, sql.format(src="wh.marts.fct_device_quotients"), args.repeat)
        report["questions"][name] = {"view_s": round(view_s, 4), "mart_s": round(mart_s, 4),
                                     "rows_view": view_rows[0][0], "rows_mart": mart_rows[0][0]}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
