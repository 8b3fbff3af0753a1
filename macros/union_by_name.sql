{#- union_by_name(columns, branches): a `union all` of branches that each have some of the
    columns, matched by name, so no branch pads the columns it lacks by hand.

    columns    the output's columns, in output order, declared once per model: a list of
               [name, type] with type one of 'string', 'int', 'bigint', 'double', 'boolean'
               (dbt.type_string(), dbt.type_int(), dbt.type_bigint(), type_double(),
               dbt.type_boolean(): the same SQL on DuckDB and Spark).
    branches   a list of [relation, names]: a CTE's name and the names of the declared
               columns it has. Each branch becomes
                   select a, b, c ... from relation
                   cross join (select cast(null as <type of b>) as b ...) as relation_pads
               with every declared column in the declared order; the one-row pads relation
               holds a null of the declared type for each column the branch does not name.

    Standard positional `union all` underneath (DuckDB's `union all by name` is not on Spark).
    The declared type is the type of the padding nulls only: a column a branch has keeps its own
    type, and the engine's union rules combine them as in a hand-written union.
    The columns are named unqualified on purpose: a branch that has a column but forgot to name
    it fails the build ("ambiguous reference", on DuckDB and Spark alike) instead of becoming a
    silent null; one that names a column it lacks fails too ("not found"). (A column that is not
    declared at all is left out, as by any select that does not name it.) A name that is not
    declared, a name given twice, or a declared column no branch has is a compile error.
    Adding a source to a union is one more branch; adding a column touches only the branches
    that have it. -#}
{% macro union_by_name(columns, branches) -%}
    {%- set declared = [] -%}
    {%- for name, type in columns -%}
        {%- if name in declared -%}
            {{ exceptions.raise_compiler_error("union_by_name: column '" ~ name ~ "' is declared twice") }}
        {%- endif -%}
        {%- do declared.append(name) -%}
        {%- set checked_type = union_pad_type(type) -%}{#- an unknown type fails even where no branch needs the pad -#}
    {%- endfor -%}
    {%- set provided = [] -%}
    {%- for relation, names in branches -%}
        {%- for name in names -%}
            {%- if name not in declared -%}
                {{ exceptions.raise_compiler_error("union_by_name: branch " ~ relation ~ " has column '" ~ name ~ "', which is not declared") }}
            {%- endif -%}
            {%- if (names | select('equalto', name) | list | length) > 1 -%}
                {{ exceptions.raise_compiler_error("union_by_name: branch " ~ relation ~ " names column '" ~ name ~ "' twice") }}
            {%- endif -%}
            {%- do provided.append(name) -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- for name in declared if name not in provided -%}
        {{ exceptions.raise_compiler_error("union_by_name: column '" ~ name ~ "' is declared but no branch has it") }}
    {%- endfor -%}
    {%- for relation, names in branches %}
    select
        {%- for name, type in columns %}
        {{ name }}{% if not loop.last %},{% endif %}
        {%- endfor %}
    from {{ with_pads(relation, columns, names) }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}


{#- with_pads(relation, columns, names): ``relation`` cross joined to one row holding a typed
    null for each declared column (``columns``, as in union_by_name) that ``names`` lacks, so a
    select of the declared columns, unqualified, reads each from the branch or from its pad
    (unpivot_metrics branches use it the same way). Just ``relation`` when nothing is missing. -#}
{% macro with_pads(relation, columns, names) -%}
    {%- set declared = columns | map('first') | list -%}
    {%- for name in names if name not in declared -%}
        {{ exceptions.raise_compiler_error("with_pads: " ~ relation ~ " names column '" ~ name ~ "', which is not declared") }}
    {%- endfor -%}
    {%- set pads = [] -%}
    {%- for name, type in columns if name not in names -%}
        {%- do pads.append('cast(null as ' ~ union_pad_type(type) ~ ') as ' ~ name) -%}
    {%- endfor -%}
    {{ relation }}
    {%- if pads %}
    cross join (
        select
            {{ pads | join(',\n            ') }}
    ) as {{ relation }}_pads
    {%- endif %}
{%- endmacro %}


{#- The SQL type of a padding null, from union_by_name's portable type names. -#}
{% macro union_pad_type(type) -%}
    {%- if type == 'string' -%}{{ dbt.type_string() }}
    {%- elif type == 'int' -%}{{ dbt.type_int() }}
    {%- elif type == 'bigint' -%}{{ dbt.type_bigint() }}
    {%- elif type == 'double' -%}{{ type_double() }}
    {%- elif type == 'boolean' -%}{{ dbt.type_boolean() }}
    {%- else -%}{{ exceptions.raise_compiler_error("union_by_name: unknown column type '" ~ type ~ "' (string, int, bigint, double or boolean)") }}
    {%- endif -%}
{%- endmacro %}
