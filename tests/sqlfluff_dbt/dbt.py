"""dbt's cross-database macros (``dbt.concat``, ``dbt.type_string`` ...) as sqlfluff's jinja
templater sees them (``.sqlfluff``: ``library_path``): each returns the SQL dbt-duckdb writes,
so the models lint as DuckDB SQL without compiling the dbt project (minutes per run)."""


def concat(fields):
    return "concat(" + ", ".join(fields) + ")"


def hash(field):  # noqa: A001 - dbt's name
    return f"md5(cast({field} as varchar))"


def position(substring_text, string_text):
    return f"position({substring_text} in {string_text})"


def listagg(measure, delimiter_text="','", order_by_clause=None, limit_num=None):
    order = f" {order_by_clause}" if order_by_clause else ""
    return f"string_agg({measure}, {delimiter_text}{order})"


def safe_cast(field, type):  # noqa: A002 - dbt's name
    return f"try_cast({field} as {type})"


def dateadd(datepart, interval, from_date_or_timestamp):
    return f"({from_date_or_timestamp} + to_{datepart}s({interval}))"


def type_boolean():
    return "boolean"


def type_float():
    return "double"


def type_int():
    return "bigint"


def type_bigint():
    return "bigint"


def type_string():
    return "varchar"
