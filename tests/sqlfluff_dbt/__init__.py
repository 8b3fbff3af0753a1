"""What sqlfluff's jinja templater needs to render the dbt models without dbt (``.sqlfluff``:
``library_path``): ``dbt.py`` and ``adapter.py`` beside this file, and here dbt's
``builtins``, through which macros/lake_source.sql calls the ``source`` it overrides, and
the ``model`` and ``flags`` a model may ask about. (A
module named ``builtins`` would shadow Python's own.)"""

from types import SimpleNamespace

builtins = SimpleNamespace(source=lambda source_name, table_name: f"{source_name}.{table_name}")
# int_run_fingerprints reads its previous build unless it is a unit test or a full refresh:
# linted as a full build
model = SimpleNamespace(resource_type="model")
flags = SimpleNamespace(FULL_REFRESH=True)
