"""Page aggregates for the list pages (members of pages.zip.py, served as data/pages/<name>.json):

  runs_list.json     one row per run for /runs/: the list columns of dim_runs plus each run's
                     headline results (best fio job: IOPS, MiB/s, worst-direction p99; best
                     TPC-C result: New-Order tpm, connections, p95), so the list shows results
                     without loading any fact mart
  config_usage.json  per DB configuration, how many TPC-C results, runs and devices use it
                     (/configs opens on the configurations that have results)
  studies.json       the published studies' titles, publishers and printed dates (home page)

Each ``*_payload`` function takes the warehouse connection and ``_sitedata.marts()``'s catalog
and returns a column-oriented payload (``{"exists": false}`` when a mart it needs is not built);
its ``*_query`` is the query (None: not built), which pages.zip.py encodes only when its rows
changed since the last build (_page_members.py). Columns a mart lacks (an older warehouse) come
out null rather than failing the build.
"""

from __future__ import annotations

import _page_members as pm
import _sitedata as sd

RUN_LIST_COLUMNS = (
    "run_id", "source_kind", "is_synthetic", "study_id", "host_id", "tools", "started_at", "run_status",
    "description", "tags", "data_device_id", "data_device", "data_device_count", "data_array_layout",
    "db_server", "db_config_id", "tpcc_warehouses", "tpcc_connections",
)
_M = sd.MARTS_SCHEMA


def _col(catalog: dict, mart: str, column: str, alias: str | None = None, cast: str | None = None) -> str:
    """``column`` of ``mart`` (as ``alias``), or a typed null when the mart lacks it."""
    alias = alias or column
    if sd.has_column(catalog, mart, column):
        return f"{sd.quote_ident(column)} as {sd.quote_ident(alias)}"
    return f"cast(null as {cast or 'varchar'}) as {sd.quote_ident(alias)}"


def _fio_headlines(catalog: dict) -> str | None:
    """Per run: its fio job with the most IOPS (read + write of one job), that job's MiB/s,
    worst-direction p99 completion latency and load; and how many jobs the run has."""
    mart = "fct_fio_results"
    need = ("run_id", "iops", "direction")
    if mart not in catalog or not all(sd.has_column(catalog, mart, c) for c in need):
        return None
    job = "fio_job_id" if sd.has_column(catalog, mart, "fio_job_id") else "fio_result_id"
    not_aggregate = "not coalesce(is_aggregate, false)" if sd.has_column(catalog, mart, "is_aggregate") else "true"
    profile = "coalesce(standard_profile_id, profile_id)" if all(
        sd.has_column(catalog, mart, c) for c in ("standard_profile_id", "profile_id")) else "null"

    def one(col: str, cast: str) -> str:
        return f"any_value({col})" if sd.has_column(catalog, mart, col) else f"cast(null as {cast})"

    return f"""
      fio_jobs as (
        select run_id, {job} as job,
               sum(iops) as iops,
               {"sum(bw_mib_per_s)" if sd.has_column(catalog, mart, "bw_mib_per_s") else "cast(null as double)"} as mib_per_s,
               {"max(clat_p99_us)" if sd.has_column(catalog, mart, "clat_p99_us") else "cast(null as double)"} as p99_us,
               {one("outstanding_ios", "bigint")} as outstanding_ios,
               {one("block_size", "varchar")} as block_size,
               {one("read_pct", "double")} as read_pct,
               {one("rw", "varchar")} as rw,
               any_value({profile}) as profile,
               count(distinct device_id) as devices
        from {_M}.{mart}
        where {not_aggregate} and direction in ('read', 'write', 'trim') and run_id is not null
        group by all
      ),
      fio as (
        select run_id,
               count(*) as fio_job_count,
               max(devices) as fio_devices,
               arg_max(iops, iops) as fio_iops,
               arg_max(mib_per_s, iops) as fio_mib_per_s,
               arg_max(p99_us, iops) as fio_p99_us,
               arg_max(outstanding_ios, iops) as fio_outstanding_ios,
               arg_max(block_size, iops) as fio_block_size,
               arg_max(read_pct, iops) as fio_read_pct,
               arg_max(rw, iops) as fio_rw,
               arg_max(profile, iops) as fio_profile
        from fio_jobs group by run_id
      )"""


def _tpcc_headlines(catalog: dict) -> str | None:
    """Per run: its best New-Order throughput, the connections and p95 at that result, and how
    many results and devices the run has."""
    mart = "fct_tpcc_results"
    if mart not in catalog or not all(sd.has_column(catalog, mart, c) for c in ("run_id", "new_order_tpm")):
        return None

    def at_best(col: str, alias: str, cast: str) -> str:
        if sd.has_column(catalog, mart, col):
            return f"arg_max({col}, new_order_tpm) as {alias}"
        return f"cast(null as {cast}) as {alias}"

    devices = "count(distinct device_id)" if sd.has_column(catalog, mart, "device_id") else "1"
    return f"""
      tpcc as (
        select run_id,
               count(*) as tpcc_result_count,
               {devices} as tpcc_devices,
               max(new_order_tpm) as tpcc_new_order_tpm,
               {at_best("connections", "tpcc_best_connections", "bigint")},
               {at_best("warehouses", "tpcc_best_warehouses", "bigint")},
               {at_best("p95_new_order_ms", "tpcc_p95_ms", "double")}
        from {_M}.{mart} where run_id is not null group by run_id
      )"""


def _published_counts(catalog: dict) -> str | None:
    mart = "fct_published_io_results"
    if mart not in catalog or not sd.has_column(catalog, mart, "run_id"):
        return None
    return f"""
      pub as (select run_id, count(*) as published_io_count from {_M}.{mart} where run_id is not null group by run_id)"""


def _payload(con, query: pm.RowsQuery | None, name: str) -> dict:
    return pm.payload(con, query) if con is not None and query is not None else sd.missing_payload(name)


def runs_list_payload(con, catalog: dict) -> dict:
    return _payload(con, runs_list_query(catalog), "runs_list")


def runs_list_query(catalog: dict) -> pm.RowsQuery | None:
    """One row per run of dim_runs: its list columns and headline results (null where the run
    has none of that kind), by run id (then every other column: a total order)."""
    if "dim_runs" not in catalog:
        return None
    mart = "dim_runs"
    casts = {"is_synthetic": "boolean", "data_device_count": "bigint", "tpcc_warehouses": "bigint",
             "tpcc_connections": "bigint", "started_at": "timestamptz"}
    columns = ", ".join(f"r.{sd.quote_ident(c)}" if sd.has_column(catalog, mart, c)
                        else f"cast(null as {casts.get(c, 'varchar')}) as {sd.quote_ident(c)}" for c in RUN_LIST_COLUMNS)
    fio, tpcc, pub = _fio_headlines(catalog), _tpcc_headlines(catalog), _published_counts(catalog)
    ctes = [c for c in (fio, tpcc, pub) if c]
    joins, extra = [], []
    if fio:
        joins.append("left join fio using (run_id)")
        extra += ["fio_job_count", "fio_devices", "fio_iops", "fio_mib_per_s", "fio_p99_us",
                  "fio_outstanding_ios", "fio_block_size", "fio_read_pct", "fio_rw", "fio_profile"]
    if tpcc:
        joins.append("left join tpcc using (run_id)")
        extra += ["tpcc_result_count", "tpcc_devices", "tpcc_new_order_tpm", "tpcc_best_connections",
                  "tpcc_best_warehouses", "tpcc_p95_ms"]
    if pub:
        joins.append("left join pub using (run_id)")
        extra.append("published_io_count")
    sql = (("with " + ",".join(ctes) + "\n") if ctes else "") + \
        f"select {columns}{''.join(', ' + e for e in extra)} from {_M}.{mart} r {' '.join(joins)}"
    # computed once for the digest and the bytes alike: a run's headline job is an arg_max (ties
    # go either way) of sums of doubles
    return pm.RowsQuery("runs_list", sql, computed=True, segment_by="run_id")


def config_usage_payload(con, catalog: dict) -> dict:
    return _payload(con, config_usage_query(catalog), "config_usage")


def config_usage_query(catalog: dict) -> pm.RowsQuery | None:
    """Per DB configuration of dim_db_configs: the TPC-C results, runs and devices that use it,
    the most used first."""
    if "dim_db_configs" not in catalog:
        return None
    usage = []
    if all(sd.has_column(catalog, "fct_tpcc_results", c) for c in ("db_config_id", "run_id")):
        devices = "count(distinct device_id)" if sd.has_column(catalog, "fct_tpcc_results", "device_id") else "0"
        usage.append(f"select db_config_id as config_id, count(*) as results, {devices} as devices, "
                     f"list(distinct run_id) as runs from {_M}.fct_tpcc_results where db_config_id is not null group by 1")
    if all(sd.has_column(catalog, "dim_runs", c) for c in ("db_config_id", "run_id")):
        usage.append(f"select db_config_id as config_id, 0 as results, 0 as devices, list(distinct run_id) as runs "
                     f"from {_M}.dim_runs where db_config_id is not null group by 1")
    used = " union all ".join(usage) if usage else \
        "select cast(null as varchar) as config_id, 0 as results, 0 as devices, cast([] as varchar[]) as runs where false"
    sql = f"""
      with used as ({used}),
      per_config as (
        select config_id, sum(results) as results, max(devices) as devices, list_distinct(flatten(list(runs))) as runs
        from used group by config_id
      ),
      configs as (select distinct config_id from {_M}.dim_db_configs where config_id is not null)
      select c.config_id,
             coalesce(p.results, 0) as tpcc_result_count,
             coalesce(len(p.runs), 0) as run_count,
             coalesce(p.devices, 0) as device_count
      from configs c left join per_config p using (config_id)"""
    return pm.RowsQuery("config_usage", sql, order="tpcc_result_count desc, run_count desc, config_id", computed=True)


STUDY_COLUMNS = ("study_id", "source_kind", "study_title", "publisher", "published_as_printed",
                 "tpcc_figure_count", "io_figure_count", "sqlserver_figure_count", "run_id")


def studies_payload(con, catalog: dict) -> dict:
    return _payload(con, studies_query(catalog), "studies")


def studies_query(catalog: dict) -> pm.RowsQuery | None:
    """The studies' titles, publishers and printed dates (not their long notes), by study id."""
    if "dim_studies" not in catalog:
        return None
    columns = ", ".join(_col(catalog, "dim_studies", c, cast="bigint" if c.endswith("_count") else None)
                        for c in STUDY_COLUMNS)
    return pm.RowsQuery("studies", f"select {columns} from {_M}.dim_studies",
                        computed=sd.listed_as_view(catalog, "dim_studies"))
