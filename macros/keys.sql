{#- Surrogate key: hash of the columns' text, nulls spelled '~', parts separated by '|'.
    Built from dbt's cross-database macros so it compiles on DuckDB and Spark alike. -#}
{% macro surrogate_key(columns) -%}
    {%- set parts = [] -%}
    {%- for column in columns -%}
        {%- do parts.append("coalesce(cast(" ~ column ~ " as " ~ dbt.type_string() ~ "), '~')") -%}
        {%- if not loop.last %}{% do parts.append("'|'") %}{% endif -%}
    {%- endfor -%}
    {{ dbt.hash(concat_texts(parts)) }}
{%- endmacro %}


{#- One hash of a group's texts whatever order its rows come in (the texts sorted, joined by
    '|'): the fingerprint of a run, a configuration or a device from its rows' fingerprints. -#}
{% macro group_digest(column) -%}
    {{ dbt.hash(dbt.listagg(column, "'|'", 'order by ' ~ column)) }}
{%- endmacro %}


{#- Readable, explicit comparison key: 'name=value; name=value', unknown values spelled 'n/a'.
    `pairs` is a list of [label, sql expression]. Two rows compare only when this text is equal. -#}
{% macro condition_key(pairs) -%}
    {%- set parts = [] -%}
    {%- for label, expression in pairs -%}
        {%- do parts.append("'" ~ label ~ "='") -%}
        {%- do parts.append("coalesce(cast(" ~ expression ~ " as " ~ dbt.type_string() ~ "), 'n/a')") -%}
        {%- if not loop.last %}{% do parts.append("'; '") %}{% endif -%}
    {%- endfor -%}
    {{ concat_texts(parts) }}
{%- endmacro %}


{#- Catalog id of a device seen in a run manifest: its device_id, else '<run_id>/<kernel name or model>'. -#}
{% macro measured_device_key(run_id, device_id, kernel_name, model) -%}
    coalesce({{ device_id }}, {{ dbt.concat([run_id, "'/'", "coalesce(" ~ kernel_name ~ ", " ~ model ~ ", 'device')"]) }})
{%- endmacro %}


{#- Host id of a measured run: the manifest's host_id, else 'run:<run_id>' (null without a manifest). -#}
{% macro measured_host_key(run_id, host_id, has_manifest) -%}
    (case when {{ has_manifest }} then coalesce({{ host_id }}, {{ dbt.concat(["'run:'", run_id]) }}) end)
{%- endmacro %}


{#- Fingerprints that only detect change (int_*_fingerprints compare them with the previous
    build's), never ids: ids are surrogate_key's md5 of the texts, the same on every engine and
    release. change_fingerprint hashes one row's columns, change_group_fingerprint a group's row
    fingerprints whatever order the rows come in (sorted). On DuckDB both are its own 64-bit hash
    of the typed values (a null differs from every value, the columns' order counts): casting ~80
    columns to text and md5 over the joined text was 90% of the time of the device fingerprints,
    0.30 s of an update's 2.4 s at 10,000 runs (docs/performance.md, run 24). A collision would
    only leave one changed key unrebuilt until its next change; at 64 bits per key and one
    comparison per key and build it is not expected in the life of a warehouse. Other engines
    keep the md5 texts (Spark's hash() skips nulls, so (null, 'a') and ('a', null) would agree). -#}
{% macro change_fingerprint(columns) -%}
    {{ return(adapter.dispatch('change_fingerprint', 'iopscope')(columns)) }}
{%- endmacro %}

{% macro duckdb__change_fingerprint(columns) -%}
    hash({{ columns | join(', ') }})
{%- endmacro %}

{% macro default__change_fingerprint(columns) -%}
    {{ surrogate_key(columns) }}
{%- endmacro %}

{% macro change_group_fingerprint(column) -%}
    {{ return(adapter.dispatch('change_group_fingerprint', 'iopscope')(column)) }}
{%- endmacro %}

{% macro duckdb__change_group_fingerprint(column) -%}
    cast(hash(list({{ column }} order by {{ column }})) as {{ dbt.type_string() }})
{%- endmacro %}

{% macro default__change_group_fingerprint(column) -%}
    {{ group_digest(column) }}
{%- endmacro %}


{#- Text expressions that are never null, joined into one text in a single call. dbt.concat is a
    chain of `||` on DuckDB, which copies the text built so far at every step: the comparison keys
    of int_device_metrics_keyed (eleven keys of ~19 conditions per row) took 5x longer that way
    than with DuckDB's n-ary concat(). concat() skips a null where `||` gives null, so only parts
    that cannot be null belong here (surrogate_key and condition_key coalesce every part). Spark's
    dbt.concat is already concat(). -#}
{% macro concat_texts(parts) -%}
    {{ return(adapter.dispatch('concat_texts', 'iopscope')(parts)) }}
{%- endmacro %}

{% macro duckdb__concat_texts(parts) -%}
    concat({{ parts | join(', ') }})
{%- endmacro %}

{% macro default__concat_texts(parts) -%}
    {{ dbt.concat(parts) }}
{%- endmacro %}


{#- The column names qualified with `prefix` ('a.', 'steps.'): for surrogate_key over a join. -#}
{% macro prefixed(columns, prefix) -%}
    {%- set out = [] -%}
    {%- for column in columns -%}
        {%- do out.append(prefix ~ column) -%}
    {%- endfor -%}
    {{ return(out) }}
{%- endmacro %}
