-- Hosts: the published studies' servers and the hosts of measured runs, one row per host.
with hosts as (

    select * from {{ ref('int_hosts_unioned') }}

),

final as (

    select
        host_id,
        source_kind,
        study_id,
        host_role,
        host_vendor_model,
        host_cpu_model,
        host_nominal_ghz,
        host_sockets,
        host_physical_cores,
        host_logical_cpus,
        -- nominal cycles the whole machine offers per second (all logical CPUs), in GHz
        host_nominal_ghz * host_logical_cpus as host_total_nominal_ghz,
        host_ram_gib,
        host_os,
        host_kernel,
        host_notes,
        run_count,
        has_conflicting_facts,
        provenance
    from hosts

)

select * from final
