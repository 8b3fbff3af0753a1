"""Mask passwords in text before it leaves ingest: the one masking step for every string a parser
returns and every error message (lake, warehouse, site, console).

Raw files hold passwords in a few shapes: the echo of tpcc-mysql (``option p with value 'x'``,
``[pass]: x``), command lines of tpcc-mysql, go-tpc, sysbench and the mysql / mariadb clients
(``-p x``, ``-px``, ``--password=x``, ``--password x``, ``--pass x``), environment assignments
(``MYSQL_PWD=x``), option files (``password = x``), SQL (``IDENTIFIED BY 'x'``) and DSNs
(``user:x@tcp(host:3306)/db``, ``mysql://user:x@host``). Each keeps its key and loses its value,
which becomes ``***``. Masking errs on the side of secrecy: any ``-p`` option value is masked,
even where ``-p`` means something else (``iostat -p ALL`` reads ``iostat -p ***``).

>>> mask("tpcc_start -h db -P 3306 -d tpcc -u root -p s3cret -w 10")
'tpcc_start -h db -P 3306 -d tpcc -u root -p *** -w 10'
>>> mask("go-tpc tpcc run --password=s3cret -H db"), mask("mysql -uroot -ps3cret")
('go-tpc tpcc run --password=*** -H db', 'mysql -uroot -p***')
>>> mask("root:s3cret@tcp(127.0.0.1:3306)/tpcc"), mask("mysql://root:s3cret@db/tpcc")
('root:***@tcp(127.0.0.1:3306)/tpcc', 'mysql://root:***@db/tpcc')
>>> mask("option p with value 's3cret'")
"option p with value '***'"
"""

from __future__ import annotations

import functools
import re

import pyarrow as pa
import pyarrow.compute as pc

MASK = "***"

# A value: a quoted string (either quote) or a run of characters up to white space or a quote.
_VALUE = r"""(?P<value>'[^'\n]*'?|"[^"\n]*"?|[^\s'"]+)"""

# Each rule: group "key" is kept, group "value" (the password) is masked. Ordered so that the
# most specific shapes come first.
_RULES: list[re.Pattern] = [re.compile(rule) for rule in (
    # tpcc_start's echo of its options and parameters
    r"(?P<key>option p(?: \([^)]*\))?(?: with value)? ')(?P<value>[^'\n]*)",
    r"(?P<key>\[pass\]:[ \t]*)(?P<value>\S[^\n]*)",
    # --password=x, --password x, --pass x, --passwd x (and with one dash, as Go's flag package
    # allows); sysbench's --mysql-password=x is caught by the next rule
    r"(?i)(?P<key>(?<![\w-])--?pass(?:word|wd)?(?:=|[ \t]+(?!-)))" + _VALUE,
    # "password = x", "password: x", "pass=x" in option files, logs, YAML and JSON
    r"""(?i)(?P<key>\b(?:password|passwd|pwd|pass)["']?[ \t]*[=:][ \t]*)(?![ \t]*$)""" + _VALUE,
    # environment: MYSQL_PWD=x, PGPASSWORD=x, DB_PASSWORD=x
    r"(?i)(?P<key>\b\w*(?:PWD|PASSWORD|PASSWD)=)" + _VALUE,
    # -p x (a separate argument) and -px (attached), as tpcc_start, mysql and mariadb read them
    r"(?P<key>(?<![\w-])-p[ \t]+)(?!-)" + _VALUE,
    r"(?P<key>(?<![\w-])-p)(?![ \t]|$)" + _VALUE,
    # SQL: IDENTIFIED BY 'x'
    r"(?i)(?P<key>IDENTIFIED\s+(?:WITH\s+\S+\s+)?BY\s+)" + _VALUE,
    # DSNs: scheme://user:x@host, and Go's user:x@tcp(host)/db and user:x@unix(/path)/db
    r"(?P<key>://[^\s:/@]*:)(?P<value>[^\s@/]*)(?=@)",
    r"(?P<key>\b[\w.-]+:)(?P<value>[^\s@]+)(?=@(?:tcp|tcp6|unix)\()",
)]

# Every rule needs one of these substrings: strings without any are not looked at further (one
# vectorised test over a whole Arrow column, then the rules only on the few that match).
_TRIGGER = r"(?i)(-p|pass|pwd|@|identified|option p)"
_TRIGGER_RE = re.compile(_TRIGGER)


def _masked(match: re.Match) -> str:
    value = match.group("value")
    quote = value[0] if value[:1] in ("'", '"') and len(value) > 1 and value[-1] == value[0] else ""
    return match.group("key") + quote + MASK + quote


@functools.lru_cache(maxsize=65536)
def mask(text: str) -> str:
    """``text`` with every password it holds replaced by ``***`` (cached: the same device names,
    job names and reasons come back row after row)."""
    if not _TRIGGER_RE.search(text):
        return text
    for pattern in _RULES:
        text = pattern.sub(_masked, text)
    return text


def mask_value(value):
    """``mask`` for strings; any other value unchanged."""
    return mask(value) if isinstance(value, str) else value


def mask_array(array: pa.Array) -> pa.Array:
    """A string (or dictionary-of-string) array with every value masked; the same object when
    nothing needed masking. A dictionary array masks its dictionary only."""
    if pa.types.is_dictionary(array.type):
        dictionary = mask_array(array.dictionary)
        if dictionary is array.dictionary:
            return array
        return pa.DictionaryArray.from_arrays(array.indices, dictionary)
    if len(array) <= PYTHON_MASK_MAX_VALUES:
        values = array.to_pylist()
        masked = [v if v is None else mask(v) for v in values]
        return array if masked == values else pa.array(masked, array.type)
    # Non-ASCII values go to Python's `re` as well: its case folding is Unicode's (İDENTIFIED
    # matches "identified"), RE2's in Arrow is not, and a value must be masked alike whatever
    # the length of its column (PYTHON_MASK_MAX_VALUES).
    hits = pc.or_(pc.match_substring_regex(array, _TRIGGER), pc.invert(pc.string_is_ascii(array)))
    if not pc.any(hits).as_py():
        return array
    values = array.to_pylist()
    masked = [mask(v) if hit else v for v, hit in zip(values, hits.to_pylist())]
    return array if masked == values else pa.array(masked, array.type)


# Up to this many values an array is masked value by value in Python (``mask`` is cached, and
# most values repeat: device names, job names, provenance); two Arrow calls (compiling the
# trigger's regex each time) cost more for a run's few rows, which is what most parts hold.
PYTHON_MASK_MAX_VALUES = 512


def _is_text(kind: pa.DataType) -> bool:
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def mask_table(table: pa.Table | None) -> pa.Table | None:
    """``table`` with every string column masked (None stays None)."""
    if table is None:
        return None
    for index, field in enumerate(table.schema):
        if not _is_text(field.type):
            continue
        column = table.column(index)
        chunks = [mask_array(chunk) for chunk in column.chunks]
        if any(new is not old for new, old in zip(chunks, column.chunks)):
            table = table.set_column(index, field, pa.chunked_array(chunks, field.type))
    return table
