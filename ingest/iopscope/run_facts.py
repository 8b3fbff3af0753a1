"""Rows for the ``runs``, ``run_devices`` and ``run_db_parameters`` tables from a manifest.

Kept apart from manifest.py (which only validates) so that reading a manifest and deciding
what the lake records about a run are separate jobs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from iopscope.manifest import Manifest

if TYPE_CHECKING:
    from iopscope.ingest import RunFolder


def manifest_rows(run: "RunFolder", manifest: Manifest | None, run_id: str) -> dict[str, list[dict[str, Any]]]:
    """One ``runs`` row always (null facts without a manifest), plus devices and DB parameters."""
    m = manifest.get if manifest else (lambda *keys: None)
    kind = m("kind") or ("synthetic" if m("synthetic") else None)
    if kind is None and manifest is not None:
        kind = "measured"
    tools = m("tools")
    tags = m("tags")
    run_row = {
        "run_kind": kind,
        "has_manifest": manifest is not None,
        "tools": ",".join(tools) if tools else None,
        "started_at": m("started_at"),
        "status": m("status"),
        "description": m("description"),
        "tags": ",".join(tags) if tags else None,
        "study_id": m("study_id"),
        "host_id": m("host", "host_id"),
        "host_vendor_model": m("host", "vendor_model"),
        "host_cpu_model": m("host", "cpu_model"),
        "host_sockets": m("host", "sockets"),
        "host_physical_cores": m("host", "physical_cores"),
        "host_logical_cpus": m("host", "logical_cpus"),
        "host_nominal_ghz": m("host", "nominal_ghz"),
        "host_measured_ghz": m("host", "current_ghz"),
        "host_ram_gib": m("host", "ram_gib"),
        "host_os": m("host", "os"),
        "host_kernel": m("host", "kernel"),
        "db_server": m("db", "server"),
        "db_version": m("db", "version"),
        "db_config_id": m("db", "config_id"),
        "tpcc_warehouses": m("tpcc", "warehouses"),
        "tpcc_connections": m("tpcc", "connections"),
        "tpcc_buffer_pool_gib": m("tpcc", "buffer_pool_gib"),
        "tpcc_page_size_kib": m("tpcc", "page_size_kib"),
        "fio_measurement_area": m("fio", "measurement_area"),
        "synthetic": (bool(m("synthetic")) or kind == "synthetic") if manifest else None,
    }
    rows: dict[str, list[dict[str, Any]]] = {"runs": [run_row]}
    if manifest is None:
        return rows
    for device in manifest.get("devices") or []:
        rows.setdefault("run_devices", []).append({
            "device_id": device.get("device_id"),
            "kernel_name": device.get("kernel_name"),
            "role": device.get("role"),
            "vendor": device.get("vendor"),
            "model": device.get("model"),
            "media": device.get("media"),
            "interface": device.get("interface"),
            "capacity_gb": device.get("capacity_gb"),
            "rotational": device.get("rotational"),
            "count": device.get("count"),
            "layout": device.get("layout"),
        })
    for parameter, value in sorted((manifest.get("db", "parameters") or {}).items()):
        rows.setdefault("run_db_parameters", []).append({"parameter": parameter, "value": str(value)})
    return rows
