# Data loader: what the overview pages draw, sized by what they draw (data/pages/<name>.json,
# members of this archive). The marts themselves (data/marts/) are for downloads and the run
# pages; an overview page must open fast at 10,000 runs, so it gets:
#   home.json          counts and date range for the holdings cards (a few hundred bytes, instead
#                      of the whole dim_runs mart)
#   tpcc_results.json  fct_tpcc_results, only the columns /, /tpcc, /compare and /sizing read
#                      (one row per result: ~10,000 rows at 10,000 runs)
#   tpcc_series.json   one row per TPC-C interval series (fct_tpcc_intervals grouped): the
#                      /tpcc page lists series from it and loads a series' intervals on demand
#                      from its run's bundle, instead of every interval of every run (52 MB at
#                      1,000 runs)
#   fio_results.json   fct_fio_results, only the columns /fio and /compare read
#   compare_runs.json  dim_runs, only the columns /compare reads
#   device_colors.json a palette slot per device (one colour per device on every page)
#   condition_quotients.json  fct_condition_quotients without the load-level kinds (/compare),
#                      an index of devices: each device's rows are one line of
#                      condition_quotients.jsonl, which the page reads by range
#   sweep_summaries.json      fct_sweep_quotient_summaries, the columns /compare shows, the same
#                      way: sweep_summaries.jsonl, a line per device A (src/data/_device_pages.py)
#   tpcc_quotients.json the TPC-C pairs of fct_device_quotients (the two result ids, metric,
#                      quotient): /tpcc's quotient matrix reads the mart's quotients instead of
#                      dividing results itself
#   runs_list.json     one row per run with its headline results, for /runs/ (_page_lists.py)
#   config_usage.json  per DB configuration, the results, runs and devices using it (/configs)
#   studies.json       the published studies' titles and printed dates (home page)
#   sizing_fio_points.json  fct_fio_results, only what /sizing needs to find the highest load
#                      within any latency target: the final, error-free per-direction results of
#                      jobs on known devices, without synthetic runs (never purchase evidence)
#   <mart>.json        the small marts pages read whole (WHOLE_MARTS: devices, hosts, configs,
#                      profiles, published IO figures, sweep knees), so the
#                      pages never depend on the download archive (data/marts.zip), whose size
#                      follows the per-sample marts
# Column-oriented JSON, as src/components/data.js reads it; {"exists": false} while a mart is
# not built, so the pages explain the gap.
# Each member that is the rows of one query comes from the last build's bytes when its rows did
# not change (src/data/_page_members.py: a fingerprint of the query and a digest of its rows,
# computed by DuckDB), so one more run encodes again only the members whose rows it changed;
# home.json, device_colors.json and the /compare indexes are built from several queries in
# Python and are written every time (home.json 0.17 s, device_colors.json 0.01 s at 10,000 runs).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _device_pages as device_pages  # noqa: E402
import _page_lists as lists  # noqa: E402
import _page_members as pm  # noqa: E402
import _sitedata as sd  # noqa: E402

TPCC_COLUMNS = (
    "tpcc_result_id", "tpcc_series_id", "source_kind", "is_approx", "provenance", "run_id", "study_id", "host_id",
    "device_id", "data_device_count", "array_layout", "db_config_id", "db_server", "kit", "warehouses", "connections",
    "buffer_pool_gib", "page_size_kib", "result_status", "new_order_tpm", "p95_new_order_ms", "max_new_order_ms",
    "cpu_user_sys_pct", "cpu_iowait_pct", "nominal_thread_cycles_per_new_order",
    "thread_cycles_per_new_order", "clock_basis", "data_read_iops", "data_write_iops",
    "log_write_iops", "io_per_new_order", "device_cost_usd_per_tpmc",
)
FIO_COLUMNS = (
    "fio_result_id", "run_id", "source_kind", "run_kind", "is_synthetic", "is_approx", "provenance", "host_id",
    "device_id", "device", "array_layout", "source_path", "fio_version", "started_at", "job_name", "group_id",
    "hostname", "is_aggregate", "rw", "read_pct", "direction", "block_size", "profile_id", "standard_profile_id",
    "ioengine", "iodepth", "numjobs", "outstanding_ios", "measurement_area", "iops", "bw_mib_per_s", "lat_mean_us",
    "clat_mean_us", "clat_max_us", "clat_p50_us", "clat_p99_us", "clat_p99_9_us", "tool",
)
COMPARE_RUN_COLUMNS = (
    "run_id", "source_kind", "is_synthetic", "study_id", "host_id", "tools", "host_logical_cpus", "db_server",
    "db_version", "db_config_id", "tpcc_warehouses", "tpcc_buffer_pool_gib", "tpcc_page_size_kib",
    "fio_measurement_area", "data_device_id", "data_device", "data_device_media", "data_device_count",
    "data_array_layout", "log_device_id", "log_device",
)
# (fct_device_capabilities was one until the sizing page read sizing_fio_points.json instead: no
# page read it, and its 6.3 MB were encoded again after every fio run at 10,000 runs, 0.17 s)
WHOLE_MARTS = (
    "dim_devices", "dim_hosts", "dim_db_configs", "dim_load_profiles", "fct_published_io_results",
    "fct_tpcc_sweep_knees",
)
SERIES_KEYS = ("tpcc_series_id", "run_id", "device_id", "connections", "source_kind", "study_id", "series_label")


def columns_query(catalog: dict, mart: str, wanted: tuple[str, ...], name: str) -> pm.RowsQuery | None:
    """The wanted columns of a mart (those it has), every row, ordered by all of them (the
    first, the mart's unique id, decides: the same rows give the same bytes however the mart
    stores them), by run first and in segments by run where it has a run id (a row or more
    per run: _page_members.SEGMENT_ROWS); None while the mart is not built."""
    if mart not in catalog:
        return None
    present = [c for c in wanted if sd.has_column(catalog, mart, c)]
    cols = ", ".join(sd.quote_ident(c) for c in present)
    return pm.RowsQuery(name, f"select {cols} from {sd.MARTS_SCHEMA}.{sd.quote_ident(mart)}",
                        computed=sd.listed_as_view(catalog, mart), segment_by="run_id" if "run_id" in present else None)


def series_query(catalog: dict) -> pm.RowsQuery | None:
    """One row per TPC-C interval series with its number of intervals and time span."""
    mart = "fct_tpcc_intervals"
    if mart not in catalog:
        return None
    keys = [c for c in SERIES_KEYS if sd.has_column(catalog, mart, c)]
    cols = ", ".join(sd.quote_ident(c) for c in keys)
    return pm.RowsQuery("tpcc_series", f"select {cols}, count(*) as interval_count, max(elapsed_s) as last_elapsed_s "
                                       f"from {sd.MARTS_SCHEMA}.{mart} group by all", computed=True,
                        segment_by="run_id" if "run_id" in keys else None)


QUOTIENT_COLUMNS = ("fact_a_id", "fact_b_id", "metric", "quotient")


def quotients_query(catalog: dict) -> pm.RowsQuery | None:
    """The TPC-C rows of fct_device_quotients, only the columns the quotient matrix reads (the
    page finds each fact among its results, which carry the devices and conditions)."""
    mart = "fct_device_quotients"
    if mart not in catalog or not all(sd.has_column(catalog, mart, c) for c in (*QUOTIENT_COLUMNS, "result_domain")):
        return None
    cols = ", ".join(sd.quote_ident(c) for c in QUOTIENT_COLUMNS)
    # a view (the device pairs): computed once, for the digest and the bytes alike
    return pm.RowsQuery("tpcc_quotients",
                        f"select {cols} from {sd.MARTS_SCHEMA}.{mart} where result_domain = 'tpcc' and quotient is not null",
                        order="metric, fact_a_id, fact_b_id, quotient", computed=True)


SIZING_FIO_COLUMNS = (
    "fio_job_id", "run_id", "source_kind", "device_id", "device_count", "array_layout", "job_name", "job_read_pct",
    "direction", "block_size_kib", "outstanding_ios", "measurement_area", "iops", "lat_mean_us", "clat_p99_us",
    "clat_p99_9_us",
)


def sizing_fio_query(catalog: dict) -> pm.RowsQuery | None:
    """The fio points the sizing calculator searches for the highest load within a latency target:
    one row per job and direction, final reports of error-free jobs on a known device; synthetic
    runs are left out here and again on the page (src/components/sizing-evidence.js)."""
    mart = "fct_fio_results"
    if mart not in catalog:
        return None
    present = [c for c in SIZING_FIO_COLUMNS if sd.has_column(catalog, mart, c)]
    cols = ", ".join(sd.quote_ident(c) for c in present)
    filters = ["device_id is not null", "direction in ('read', 'write')"]
    for column, condition in (("is_interim", "not coalesce(is_interim, false)"),
                              ("is_aggregate", "not coalesce(is_aggregate, false)"),
                              ("error_code", "coalesce(error_code, 0) = 0"),
                              ("is_synthetic", "not coalesce(is_synthetic, false)"),
                              ("source_kind", "coalesce(source_kind, '') <> 'synthetic'")):
        if sd.has_column(catalog, mart, column):
            filters.append(condition)
    # by device, job and direction, then by every other column (a total order: the same rows give
    # the same bytes)
    first = ("device_id", "fio_job_id", "direction")
    order = [c for c in first if c in present] + [c for c in present if c not in first]
    return pm.RowsQuery("sizing_fio_points",
                        f"select {cols} from {sd.MARTS_SCHEMA}.{mart} where {' and '.join(filters)}",
                        order=", ".join(sd.quote_ident(c) for c in order), computed=sd.listed_as_view(catalog, mart))


def whole_mart_query(catalog: dict, name: str) -> pm.RowsQuery | None:
    """Every row and column of a mart, as _sitedata.table_payload states them (the catalog's
    columns and types), ordered by all its columns."""
    if name not in catalog:
        return None
    return pm.RowsQuery(name, f"select * from {sd.MARTS_SCHEMA}.{sd.quote_ident(name)}", computed=sd.listed_as_view(catalog, name),
                        columns=tuple((c["name"], c["type"]) for c in catalog[name]["columns"]))


def counts_by_kind(con, catalog: dict, mart: str) -> dict | None:
    if mart not in catalog:
        return None
    table = f"{sd.MARTS_SCHEMA}.{sd.quote_ident(mart)}"
    if not sd.has_column(catalog, mart, "source_kind"):
        (n,) = con.execute(f"select count(*) from {table}").fetchone()
        return {"total": n, "by_kind": {}}
    rows = con.execute(f"select coalesce(source_kind, 'measured'), count(*) from {table} group by 1 order by 1").fetchall()
    return {"total": sum(n for _, n in rows), "by_kind": dict(rows)}


def home_payload(con, catalog: dict) -> dict:
    """The home page's holdings: rows per source kind of studies, devices, hosts and runs, the
    measured runs' date range, and how many marts hold how many rows (a view of device pairs
    too big to count, _sitedata.counted_rows None, is named in ``marts_on_demand`` instead:
    counting fct_sweep_quotient_summaries summarised every device pair, 7.4 s of this loader at
    10,000 runs and the square at 100,000)."""
    out: dict = {"exists": True}
    for key, mart in (("studies", "dim_studies"), ("devices", "dim_devices"), ("hosts", "dim_hosts"), ("runs", "dim_runs")):
        out[key] = counts_by_kind(con, catalog, mart)
    if out["runs"] is None:
        out["runs"] = {"total": len(sd.run_ids(con, catalog)), "by_kind": {}}
    out["studies_published"] = []
    if sd.has_column(catalog, "dim_studies", "published_as_printed"):
        out["studies_published"] = [v for (v,) in con.execute(
            "select published_as_printed from marts.dim_studies where published_as_printed is not null").fetchall()]
    out["started_first"] = out["started_last"] = None
    if sd.has_column(catalog, "dim_runs", "started_at"):
        first, last = con.execute("select min(started_at), max(started_at) from marts.dim_runs").fetchone()
        out["started_first"], out["started_last"] = sd.clean(first), sd.clean(last)
    out["mart_count"] = len(catalog)
    counts = {n: sd.counted_rows(con, n) for n in catalog}
    out["mart_rows"] = sum(n for n in counts.values() if n is not None)
    out["marts_on_demand"] = sorted(n for n, rows in counts.items() if rows is None)
    return out


def members(con, cache):
    catalog = sd.marts(con)

    def rows(file, query, name):  # the member's file from the cache, or encoded and written there
        return pm.query_member(con, cache, file, query, name)

    yield "home.json", sd.json_bytes(home_payload(con, catalog) if con is not None else {"exists": False})
    yield rows("tpcc_results.json", columns_query(catalog, "fct_tpcc_results", TPCC_COLUMNS, "tpcc_results"), "tpcc_results")
    yield rows("tpcc_series.json", series_query(catalog), "tpcc_series")
    yield rows("fio_results.json", columns_query(catalog, "fct_fio_results", FIO_COLUMNS, "fio_results"), "fio_results")
    yield rows("compare_runs.json", columns_query(catalog, "dim_runs", COMPARE_RUN_COLUMNS, "compare_runs"), "compare_runs")
    yield "device_colors.json", sd.json_bytes(sd.device_colors_payload(con, catalog))
    # /compare's "what the studies compared": an index and a pack of a line per device (_device_pages.py)
    yield from device_pages.members(con, catalog, cache)
    yield rows("tpcc_quotients.json", quotients_query(catalog), "tpcc_quotients")
    yield rows("runs_list.json", lists.runs_list_query(catalog), "runs_list")
    yield rows("config_usage.json", lists.config_usage_query(catalog), "config_usage")
    yield rows("studies.json", lists.studies_query(catalog), "studies")
    yield rows("sizing_fio_points.json", sizing_fio_query(catalog), "sizing_fio_points")
    for name in WHOLE_MARTS:
        yield rows(f"{name}.json", whole_mart_query(catalog, name), name)


connection = sd.connect()
try:
    device_files = device_pages.file_cache()
    sd.write_zip_stream_cached(members(connection, device_files), __file__)  # as every archive loader
    device_files.keep_only_used()
    print("pages: {} device lines from the cache, {} written; {} packs from the cache, {} written ({})".format(
        *device_files.count("device page"), *device_files.count("device pack"), device_files.folder), file=sys.stderr)
    print("pages: {} JSON members from the cache, {} written".format(*device_files.count(pm.KIND)), file=sys.stderr)
finally:
    if connection is not None:
        connection.close()
