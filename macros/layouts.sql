{#- Storage layouts as the sources spell them: 'single', 'raid0_x4', 'raid1_x2', 'independent_x4'
    (four drives loaded separately, total), 'partitions_x4' (four processes on four partitions of
    ONE drive), 'single/raid1_x2/raid0_x2' (one figure stated for three layouts: ambiguous). -#}

{#- Drives behind a layout: 1 for single and partitions_xN, N for <kind>_xN, null when ambiguous. -#}
{% macro layout_device_count(layout) -%}
    (case
        when {{ layout }} is null or {{ dbt.position("'/'", layout) }} > 0 then null
        when lower({{ layout }}) = 'single' then 1
        when lower({{ layout }}) like 'partitions%' then 1
        when {{ dbt.position("'_x'", layout) }} > 0
            then {{ dbt.safe_cast("substring(" ~ layout ~ ", " ~ dbt.position("'_x'", layout) ~ " + 2, 4)", dbt.type_int()) }}
    end)
{%- endmacro %}


{#- Processes (load generators) per drive: N for partitions_xN, else 1 (null when ambiguous). -#}
{% macro layout_processes_per_device(layout) -%}
    (case
        when {{ layout }} is null or {{ dbt.position("'/'", layout) }} > 0 then null
        when lower({{ layout }}) like 'partitions%' and {{ dbt.position("'_x'", layout) }} > 0
            then {{ dbt.safe_cast("substring(" ~ layout ~ ", " ~ dbt.position("'_x'", layout) ~ " + 2, 4)", dbt.type_int()) }}
        else 1
    end)
{%- endmacro %}


{#- single | raid0 | raid1 | raid10 | independent | partitions | the layout text itself; null when ambiguous. -#}
{% macro layout_kind(layout) -%}
    (case
        when {{ layout }} is null or {{ dbt.position("'/'", layout) }} > 0 then null
        when {{ dbt.position("'_x'", layout) }} > 0 then lower(substring({{ layout }}, 1, {{ dbt.position("'_x'", layout) }} - 1))
        else lower({{ layout }})
    end)
{%- endmacro %}


{#- The section of a citation: the text before its first ' (' (which opens '(doc line N)' or
    '(cf. ...)'): '001 text "Two PCIe-SSDs" (doc line 230)' -> '001 text "Two PCIe-SSDs"'. A section
    of a paper states one set of test conditions, so figures of one section may be compared. -#}
{% macro citation_section(citation) -%}
    (case when {{ dbt.position("' ('", citation) }} > 0
          then substring({{ citation }}, 1, {{ dbt.position("' ('", citation) }} - 1)
          else {{ citation }} end)
{%- endmacro %}
