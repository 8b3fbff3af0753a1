{#- The device pairs the data tests of fct_device_quotients read. The mart is a view, so a test
    computes every pair it reads, and the tests that pair the pairs again (reciprocal quotients,
    equal conditions) grow with the square of the pairs: at 100,000 synthetic runs two of them
    spilled DuckDB's temporary files until the disk was full (docs/performance.md, run 14).
    The environment variable IOPSCOPE_PAIR_TEST_SAMPLE_BUCKETS: unset or 1 (every build of the
    bundled data, CI) keeps every pair; N keeps the comparison keys whose hash falls in the lowest
    Nth of its range, so a pair, its mirror and both its facts stay in the sample together. An
    environment variable, not a dbt var: the generic tests in fct_device_quotients.yml write the
    same filter inline, and dbt renders a test's `where` config without the project's macros
    and without the vars of dbt_project.yml. fct_sweep_quotient_summaries.yml samples its device
    pairs the same way, by side A's device (a summary's duplicates share it), and keeps every
    stored condition pair. -#}
{% macro in_pair_test_sample(key_column) -%}
    {%- set buckets = env_var('IOPSCOPE_PAIR_TEST_SAMPLE_BUCKETS', '1') | int -%}
    {%- if buckets <= 1 -%}
        true
    {%- elif target.type == 'spark' -%}
        {#- Spark's hash() is a signed 32-bit int -#}
        hash({{ key_column }}) < {{ -2147483648 + 4294967296 // buckets }}
    {%- else -%}
        {#- DuckDB's hash() is a UBIGINT. A range, not `% N = 0`: DuckDB pushes a range on the
            key into both sides of the view's pairing, and leaves a modulo above the join (at
            100,000 runs the sampled tests then computed every pair: 18-85 s each). -#}
        hash({{ key_column }}) < {{ 18446744073709551616 // buckets }}
    {%- endif -%}
{%- endmacro %}
