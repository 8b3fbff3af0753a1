-- Published studies (sources of reference data), with how many figures each contributes.
with studies as (

    select * from {{ ref('stg_lake__published_studies') }}

),

tpcc as (

    select study_id, count(*) as tpcc_figure_count
    from {{ ref('stg_lake__published_tpcc_results') }}
    group by study_id

),

io as (

    select study_id, count(*) as io_figure_count
    from {{ ref('stg_lake__published_io_results') }}
    group by study_id

),

sqlserver as (

    select study_id, count(*) as sqlserver_figure_count
    from {{ ref('stg_lake__published_sqlserver_results') }}
    group by study_id

),

series as (

    select study_id, count(*) as timeseries_point_count
    from {{ ref('stg_lake__published_tpcc_timeseries') }}
    group by study_id

),

final as (

    select
        studies.study_id,
        'published' as source_kind,
        studies.study_title,
        studies.publisher,
        studies.published_as_printed,
        studies.benchmark_tool,
        studies.doc_files,
        studies.study_notes,
        coalesce(tpcc.tpcc_figure_count, 0) as tpcc_figure_count,
        coalesce(io.io_figure_count, 0) as io_figure_count,
        coalesce(sqlserver.sqlserver_figure_count, 0) as sqlserver_figure_count,
        coalesce(series.timeseries_point_count, 0) as timeseries_point_count,
        studies.run_id,
        {{ dbt.concat(["'run '", "studies.run_id", "': '", "studies.source_path", "' line '",
                       "cast(studies.csv_line as " ~ dbt.type_string() ~ ")"]) }} as provenance
    from studies
    left join tpcc on studies.study_id = tpcc.study_id
    left join io on studies.study_id = io.study_id
    left join sqlserver on studies.study_id = sqlserver.study_id
    left join series on studies.study_id = series.study_id

)

select * from final
