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
