"""macros/union_by_name.sql: the columns come out in the declared order, a branch's own values
stay in their own columns, the pads are nulls of the declared type, and each mistake the macro
promises to catch fails instead of leaving a silent null column.

On DuckDB: one small dbt project (the repository's macros and profile, three models over inline
CTEs), one `dbt run`, each model's outcome read from run_results.json. The checks of the lists
themselves fail at compilation, which stops a dbt parse at the first one: they run through plain
Jinja instead, with the shim sqlfluff renders the models with (milliseconds each).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import duckdb
import jinja2
import pytest

from conftest import ROOT

DBT = Path(sys.executable).parent / "dbt"
pytestmark = pytest.mark.skipif(not DBT.exists(), reason="dbt is not installed in this environment")

COLUMNS = """{%- set columns = [['id', 'string'], ['n', 'bigint'], ['x', 'double'], ['label', 'string'],
                           ['flag', 'boolean'], ['k', 'int']] %}"""

# branch a lacks label and k; branch b lacks n and x and lists its columns in another order
BRANCHES = """
with a as (
    select 'a1' as id, cast(7 as integer) as n, 1.5 as x, true as flag
),
b as (
    select cast(3 as integer) as k, false as flag, 'from b' as label, 'b1' as id
)
"""

MODELS = {
    "shaped": COLUMNS + BRANCHES + """
{{ union_by_name(columns, [['a', ['id', 'n', 'x', 'flag']], ['b', ['id', 'label', 'flag', 'k']]]) }}
""",
    # b has flag but does not name it: it would become a null; the build must fail instead
    "forgotten_column": COLUMNS + BRANCHES + """
{{ union_by_name(columns, [['a', ['id', 'n', 'x', 'flag']], ['b', ['id', 'label', 'k']]]) }}
""",
    # a names label, which it lacks
    "missing_column": COLUMNS + BRANCHES + """
{{ union_by_name(columns, [['a', ['id', 'n', 'x', 'label', 'flag']], ['b', ['id', 'label', 'flag', 'k']]]) }}
""",
}


def _project(root: Path, models: dict[str, str]) -> tuple[Path, dict[str, str]]:
    project = root / "project"
    shutil.copytree(ROOT / "macros", project / "macros")
    shutil.copyfile(ROOT / "profiles.yml", project / "profiles.yml")
    (project / "dbt_project.yml").write_text(
        'name: unionproj\nversion: "1.0.0"\nconfig-version: 2\nprofile: iopscope\n'
        'model-paths: ["models"]\nmacro-paths: ["macros"]\ntarget-path: "target"\n'
        "models:\n  unionproj:\n    +materialized: table\n")
    (project / "models").mkdir()
    for name, text in models.items():
        (project / "models" / f"{name}.sql").write_text(text)
    env = {**os.environ, "IOPSCOPE_WAREHOUSE": str(root / "union.duckdb"), "DBT_SEND_ANONYMOUS_USAGE_STATS": "False",
           "DBT_LOG_PATH": str(root / "logs"), "DBT_TARGET_PATH": str(project / "target"), "IOPSCOPE_DUCKDB_THREADS": "1"}
    return project, env


def _dbt(command: str, project: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([str(DBT), command, "--project-dir", str(project), "--profiles-dir", str(project)],
                          env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def outcome(tmp_path_factory):
    """MODELS run once; each model's status and message."""
    root = tmp_path_factory.mktemp("union_by_name")
    project, env = _project(root, MODELS)
    run = _dbt("run", project, env)
    results = json.loads((project / "target" / "run_results.json").read_text())["results"]
    by_model = {r["unique_id"].split(".")[-1]: (r["status"], r["message"] or "") for r in results}
    assert set(by_model) == set(MODELS), run.stdout[-3000:]
    return by_model, root / "union.duckdb"


def test_columns_in_declared_order_with_typed_pads(outcome):
    by_model, warehouse = outcome
    assert by_model["shaped"][0] == "success", by_model["shaped"]
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        column_types = con.execute("select column_name, data_type from information_schema.columns "
                            "where table_name = 'shaped' order by ordinal_position").fetchall()
        rows = con.execute("select * from shaped order by id").fetchall()
    finally:
        con.close()
    # x is padded as DOUBLE in b (a's 1.5 is a DECIMAL, the union's type is DOUBLE); n's BIGINT
    # pad widens a's INTEGER; label is VARCHAR, k INTEGER as b has them
    assert column_types == [("id", "VARCHAR"), ("n", "BIGINT"), ("x", "DOUBLE"), ("label", "VARCHAR"),
                            ("flag", "BOOLEAN"), ("k", "INTEGER")]
    # b's columns, written in another order, land by name
    assert rows == [("a1", 7, 1.5, None, True, None), ("b1", None, None, "from b", False, 3)]


@pytest.mark.parametrize("model, message", [
    ("forgotten_column", 'Ambiguous reference to column name "flag"'),
    ("missing_column", '"label" not found'),
])
def test_branch_that_disagrees_with_its_list_fails_the_build(outcome, model, message):
    status, text = outcome[0][model]
    assert status == "error", (model, status, text)
    assert message in text, text


class CompilerError(Exception):
    pass


def _raise(message):
    raise CompilerError(message)


@pytest.fixture(scope="module")
def macro():
    """The macro file rendered by plain Jinja, as sqlfluff renders it (tests/sqlfluff_dbt stands
    in for dbt's cross-database macros): the list checks run before any SQL exists."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from sqlfluff_dbt import dbt as dbt_macros
    finally:
        sys.path.remove(str(ROOT / "tests"))
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    template = env.from_string((ROOT / "macros" / "union_by_name.sql").read_text())
    return template.make_module({"dbt": dbt_macros, "type_double": lambda: "double",
                                 "exceptions": types.SimpleNamespace(raise_compiler_error=_raise)})


DECLARED = [["id", "string"], ["n", "bigint"], ["label", "string"]]


def test_jinja_rendering_matches_the_declared_shape(macro):
    sql = " ".join(str(macro.union_by_name(DECLARED, [["a", ["id", "n"]], ["b", ["label", "id"]]])).split())
    assert sql == ("select id, n, label from a cross join ( select cast(null as varchar) as label ) as a_pads "
                   "union all select id, n, label from b cross join ( select cast(null as bigint) as n ) as b_pads")


@pytest.mark.parametrize("columns, branches, message", [
    (DECLARED, [["a", ["id", "n", "lable"]], ["b", ["id", "label"]]], "branch a has column 'lable', which is not declared"),
    (DECLARED, [["a", ["id", "n", "n"]], ["b", ["id", "label"]]], "branch a names column 'n' twice"),
    (DECLARED + [["extra", "string"]], [["a", ["id", "n"]], ["b", ["id", "label"]]],
     "column 'extra' is declared but no branch has it"),
    (DECLARED + [["id", "string"]], [["a", ["id", "n"]], ["b", ["id", "label"]]], "column 'id' is declared twice"),
    # checked even where no branch needs the pad
    ([["id", "text"], ["n", "bigint"]], [["a", ["id", "n"]], ["b", ["id"]]], "unknown column type 'text'"),
])
def test_mistakes_in_the_lists_fail_compilation(macro, columns, branches, message):
    with pytest.raises(CompilerError, match=re.escape(message)):
        str(macro.union_by_name(columns, branches))
