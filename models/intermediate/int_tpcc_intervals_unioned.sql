-- TPC-C interval time series from every source in one shape: one row per series and interval.
-- A series is one tpcc_start output (measured) or one chart series (published: study, host,
-- device, config, connections). Published chart points are all inside the measurement (the
-- Samsung series average exactly to their Table 1 values). Measured ramp-up lines (forks that
-- print them) are outside the window; the first measured line, whose latencies include ramp-up
-- samples, is in the window but not a steady-state sample.
--   new_order_per_min = New-Order count x 60 / interval_s
--   total_txn_per_min = count of all five types x 60 / interval_s
-- Incremental by run (dbt_project.yml, macros/incremental_runs.sql): several models and tests
-- read it, and an update rebuilds only new and changed runs. A published series is one study's
-- chart in one run folder, so its rows, like a measured run's, depend on that run alone.
-- depends_on: {{ ref('int_run_fingerprints') }}

{#- the unioned shape, in output order; each branch below has some of these (macros/union_by_name.sql) -#}
{%- set tpcc_interval_columns = [
    ['source_kind', 'string'], ['run_id', 'string'], ['source_path', 'string'], ['tpcc_series_id', 'string'],
    ['study_id', 'string'], ['host_id', 'string'], ['device_id', 'string'], ['db_config_id', 'string'],
    ['connections', 'bigint'], ['elapsed_s', 'double'], ['interval_s', 'double'],
    ['is_in_measured_window', 'boolean'], ['is_steady_state_sample', 'boolean'], ['new_order_per_min', 'double'],
    ['p95_new_order_ms', 'double'], ['p90_new_order_ms', 'double'], ['p99_new_order_ms', 'double'],
    ['max_new_order_ms', 'double'], ['total_txn_per_min', 'double'], ['series_label', 'string'],
    ['is_approx', 'boolean'], ['provenance', 'string']] %}

with published as (

    select * from {{ ref('stg_lake__published_tpcc_timeseries') }}
    where {{ runs_to_build('run_id') }}

),

measured as (

    select * from {{ ref('stg_lake__tpcc_intervals') }}
    where {{ runs_to_build('run_id') }}

),

tpcc_runs as (

    select tpcc_file_id, warehouses, connections from {{ ref('stg_lake__tpcc_runs') }}

),

runs as (

    select * from {{ ref('int_runs_identified') }}

),

published_pivoted as (

    select
        study_id,
        host_id,
        device_id,
        db_config_id,
        connections,
        elapsed_s,
        min(run_id) as run_id,
        min(source_path) as source_path,
        max(case when metric = 'new_order_per_min' then metric_value end) as new_order_per_min,
        max(case when metric = 'p95_new_order_ms' then metric_value end) as p95_new_order_ms,
        max(case when metric = 'new_order_per_min' then series_label end) as throughput_series_label,
        max(case when metric = 'p95_new_order_ms' then series_label end) as latency_series_label,
        min(citation) as first_citation,
        max(citation) as last_citation
    from published
    group by study_id, host_id, device_id, db_config_id, connections, elapsed_s

),

published_shaped as (

    select
        'published' as source_kind,
        run_id,
        source_path,
        {{ surrogate_key(["'published'", 'study_id', 'host_id', 'device_id', 'db_config_id', 'connections']) }}
            as tpcc_series_id,
        study_id,
        host_id,
        device_id,
        db_config_id,
        connections,
        cast(elapsed_s as {{ type_double() }}) as elapsed_s,
        true as is_in_measured_window,
        true as is_steady_state_sample,
        new_order_per_min,
        p95_new_order_ms,
        coalesce(throughput_series_label, latency_series_label) as series_label,
        false as is_approx,
        case when first_citation = last_citation
             then {{ dbt.concat(["study_id", "': '", "first_citation"]) }}
             else {{ dbt.concat(["study_id", "': '", "first_citation", "'; '", "last_citation"]) }}
        end as provenance
    from published_pivoted

),

measured_shaped as (

    select
        runs.source_kind,
        measured.run_id,
        measured.source_path,
        {{ surrogate_key(["'measured'", 'measured.tpcc_file_id']) }} as tpcc_series_id,
        runs.study_id,
        runs.host_key as host_id,
        runs.data_device_id as device_id,
        runs.db_config_id,
        coalesce(tpcc_runs.connections, runs.tpcc_connections) as connections,
        measured.elapsed_s,
        measured.interval_s,
        not measured.is_rampup as is_in_measured_window,
        not measured.is_rampup and not measured.is_rampup_mixed as is_steady_state_sample,
        {{ safe_divide('measured.new_order_count * 60.0', 'measured.interval_s') }} as new_order_per_min,
        measured.new_order_p95_ms as p95_new_order_ms,
        measured.new_order_rt90_ms as p90_new_order_ms,
        measured.new_order_p99_ms as p99_new_order_ms,
        measured.new_order_max_ms as max_new_order_ms,
        {{ safe_divide('(measured.new_order_count + measured.payment_count + measured.order_status_count'
                       ' + measured.delivery_count + measured.stock_level_count) * 60.0', 'measured.interval_s') }}
            as total_txn_per_min,
        false as is_approx,
        {{ dbt.concat(["'run '", "measured.run_id", "': '", "measured.source_path", "' interval '",
                       "cast(measured.interval_index as " ~ dbt.type_string() ~ ")"]) }} as provenance
    from measured
    left join tpcc_runs on measured.tpcc_file_id = tpcc_runs.tpcc_file_id
    left join runs on measured.run_id = runs.run_id

),

unioned as (
    {{ union_by_name(tpcc_interval_columns, [
        ['published_shaped', ['source_kind', 'run_id', 'source_path', 'tpcc_series_id', 'study_id', 'host_id', 'device_id',
                              'db_config_id', 'connections', 'elapsed_s', 'is_in_measured_window', 'is_steady_state_sample',
                              'new_order_per_min', 'p95_new_order_ms', 'series_label', 'is_approx', 'provenance']],
        ['measured_shaped', ['source_kind', 'run_id', 'source_path', 'tpcc_series_id', 'study_id', 'host_id', 'device_id',
                             'db_config_id', 'connections', 'elapsed_s', 'interval_s', 'is_in_measured_window',
                             'is_steady_state_sample', 'new_order_per_min', 'p95_new_order_ms', 'p90_new_order_ms',
                             'p99_new_order_ms', 'max_new_order_ms', 'total_txn_per_min', 'is_approx', 'provenance']]]) }}

),

fingerprints as (

    select run_id, run_fingerprint from {{ ref('int_run_fingerprints') }}

),

final as (

    select
        {{ surrogate_key(['tpcc_series_id', 'elapsed_s', 'provenance']) }} as tpcc_interval_id,
        unioned.*,
        fingerprints.run_fingerprint
    from unioned
    left join fingerprints on unioned.run_id = fingerprints.run_id

)

select * from final
