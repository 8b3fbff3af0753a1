{#- Surrogate key: hash of the columns' text, nulls spelled '~', parts separated by '|'.
    Built from dbt's cross-database macros so it compiles on DuckDB and Spark alike. -#}
{% macro surrogate_key(columns) -%}
    {%- set parts = [] -%}
    {%- for column in columns -%}
        {%- do parts.append("coalesce(cast(" ~ column ~ " as " ~ dbt.type_string() ~ "), '~')") -%}
        {%- if not loop.last %}{% do parts.append("'|'") %}{% endif -%}
    {%- endfor -%}
    {{ dbt.hash(dbt.concat(parts)) }}
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
    {{ dbt.concat(parts) }}
{%- endmacro %}


{#- Catalog id of a device seen in a run manifest: its device_id, else '<run_id>/<kernel name or model>'. -#}
{% macro measured_device_key(run_id, device_id, kernel_name, model) -%}
    coalesce({{ device_id }}, {{ dbt.concat([run_id, "'/'", "coalesce(" ~ kernel_name ~ ", " ~ model ~ ", 'device')"]) }})
{%- endmacro %}


{#- Host id of a measured run: the manifest's host_id, else 'run:<run_id>' (null without a manifest). -#}
{% macro measured_host_key(run_id, host_id, has_manifest) -%}
    (case when {{ has_manifest }} then coalesce({{ host_id }}, {{ dbt.concat(["'run:'", run_id]) }}) end)
{%- endmacro %}
