"""Ingest a raw tree into the lake: find runs, parse their files, write Parquet, record errors.

A *run* is a folder holding a manifest (``run.toml``) and everything below it (up to the next
folder with a manifest of its own). Files outside any manifest still ingest: each folder of
such files is one run whose ``run_id`` is the folder's path under the raw root, and whose
facts stay null. Raw files are only ever opened for reading.

Incremental: a run whose files (content hashes), manifest and parser versions are unchanged
since the last ingest is skipped without parsing, and the lake stays byte-identical. A file whose
size and mtime are those recorded with its hash is not read again (``--force`` re-reads all).
"""

from __future__ import annotations

import contextlib
import errno
import gc
import hashlib
import json
import os
import stat
import traceback
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from iopscope import compaction, parsers, raw_tree, tables
from iopscope.lake import Chunk, ConformError, Lake
from iopscope.locks import DEFAULT_WAIT_S
from iopscope.manifest import Manifest, ManifestError, read_manifest
from iopscope.parsers import fio_log
from iopscope.raw_tree import RunFolder, WalkAhead, kind_name
from iopscope.redact import mask, mask_table
from iopscope.run_facts import manifest_rows

# Bump when the ingest layer itself changes what it writes (forces a full re-ingest).
INGEST_VERSION = "1"


@dataclass
class FileError:
    path: str
    line: int | None
    reason: str
    severity: str = "error"

    def __post_init__(self) -> None:
        self.reason = mask(self.reason)  # reasons quote file text, which may hold a password

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.reason}"


@dataclass
class IngestReport:
    runs_seen: int = 0
    runs_ingested: int = 0
    runs_unchanged: int = 0
    runs_removed: int = 0
    files_parsed: int = 0
    rows_written: int = 0
    bytes_parsed: int = 0
    errors: list[FileError] = field(default_factory=list)
    warnings: list[FileError] = field(default_factory=list)
    compaction: "compaction.CompactReport | None" = None

    @property
    def failed(self) -> bool:
        return bool(self.errors)


def open_regular(path: Path):
    """``open(path, "rb")`` that refuses anything but a regular file without blocking: opening
    a FIFO for reading waits for a writer forever, so it is opened non-blocking and its type
    checked on the open descriptor (no window between the check and the open)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, f"not a regular file ({kind_name(mode)})", str(path))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open_regular(path) as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def discover_runs(raw_root: Path, only: Iterable[str] | None = None) -> list[RunFolder]:
    """Every run folder under raw_root (iopscope.raw_tree.walk: sorted by path, each file's
    size and modification time with it), the entries not read as FileErrors of their run.

    ``only`` (paths under the raw root, relative, '/'-separated; '.' is the root): just the runs
    whose folder holds one of them or lies inside one (:func:`selects`), listing only the folders
    on the way to them (a full walk stats every file: 0.2 s at 10,000 runs)."""
    return with_file_errors(raw_tree.walk(raw_root, only))


def with_file_errors(runs: list[RunFolder]) -> list[RunFolder]:
    """The walk's Problems of each run as the FileErrors the ingest reports (masked text)."""
    for run in runs:
        run.problems = [p if isinstance(p, FileError) else FileError(p.path, None, p.reason, p.severity)
                        for p in run.problems]
    return runs


def _parser_fingerprint() -> str:
    versions = {name: m.VERSION for name, m in sorted(parsers.PARSERS.items())}
    schema = {name: [(c.name, c.type) for c in t.all_columns()] for name, t in sorted(tables.ALL.items())}
    blob = json.dumps([INGEST_VERSION, versions, schema], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def read_text(path: Path) -> tuple[str, str | None]:
    """File text and, if it was not UTF-8, a warning. Never modifies the file."""
    with open_regular(path) as fh:
        raw = fh.read()
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return raw.decode("latin-1"), f"line {line}: not UTF-8, read as Latin-1"


def parse_file(path: Path, fmt: str | None = None, tool: str | None = None):
    """Detect (unless ``fmt`` is given) and parse one file: (module, ParseResult, text)."""
    text, _ = read_text(path)
    module = choose_parser(text, path.name, fmt, tool)
    if module is None:
        raise parsers.ParseError(_unrecognized_reason(text, tool))
    return module, module.parse(text, filename=path.name), text


def choose_parser(text: str, filename: str, fmt: str | None = None, tool: str | None = None):
    """The parser for a file: the one named by ``fmt`` (a manifest's ``format``, ``--format``;
    KeyError when no parser has that name), else the one detection picks among those of
    ``tool``; None when no parser recognizes the text. Ingest and ``iopscope parse`` both ask here."""
    if fmt:
        return parsers.get(fmt)
    return parsers.detect(text[: parsers.HEAD_BYTES], filename, tool)[0]


def _unrecognized_reason(text: str, tool: str | None) -> str:
    hint = f" as {tool}" if tool else ""
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return f"no parser recognizes this file{hint} (first line: {first[:80]!r})"


class RunRows:
    """A run's rows per table, as chunks (each a parser's records or Columns block with the
    provenance its rows share), in the order they were read."""

    def __init__(self) -> None:
        self.chunks: dict[str, list[Chunk]] = defaultdict(list)

    def add(self, table: str, rows, provenance: dict[str, Any]) -> None:
        if len(rows):
            self.chunks[table].append(Chunk(rows, provenance))

    def add_record(self, table: str, record: dict[str, Any]) -> None:
        """A record that carries every column itself (ingest_files, ingest_errors)."""
        self.chunks[table].append(Chunk([record]))

    def extend(self, other: "RunRows") -> None:
        for table, chunks in other.chunks.items():
            self.chunks[table].extend(chunks)

    def count(self, table: str) -> int:
        return sum(len(c.rows) for c in self.chunks.get(table, ()))

    def tables(self) -> list[str]:
        return sorted(t for t, chunks in self.chunks.items() if chunks)


class Ingestor:
    def __init__(self, raw_root: Path, lake_root: Path, force: bool = False,
                 on_progress: Callable[[int, int, str], None] | None = None,
                 wait_s: float | None = DEFAULT_WAIT_S) -> None:
        self.raw_root = Path(raw_root).resolve()
        self.wait_s = wait_s  # how long to wait for the lake's lock (None: forever)
        self.lake = Lake(Path(lake_root))
        self.force = force
        self.on_progress = on_progress or (lambda i, n, name: None)

    def run(self, only: Iterable[Path] | None = None, ahead: WalkAhead | None = None) -> IngestReport:
        """Ingest every run under the raw root, or with ``only`` the runs those paths select.
        ``ahead``: the walk of the raw root already under way (raw_tree.start), used for a
        walk of the whole tree when it began shortly before the lake's lock was taken."""
        report = IngestReport()
        with self.lake.locked(self.wait_s), contextlib.ExitStack() as frozen:
            self.lake.ensure_schemas()
            state = self.lake.load_state()
            # The state (~2 million objects at 10,000 runs) lives as long as this ingest and holds
            # no cycle: kept out of the cyclic collector, whose full passes over it cost ~0.1 s
            # each while the walk allocates; refcounting still frees it. Back in after.
            gc.freeze()
            frozen.callback(gc.unfreeze)
            if self.lake.needs_sweep:   # parts a killed ingest never recorded, older temp files, stale packs
                compaction.repair(self.lake, state)
            if self.force or state.get("fingerprint") != _parser_fingerprint():
                previous = state.get("runs", {})
                state = {"fingerprint": _parser_fingerprint(), "runs": previous}
                for entry in previous.values():
                    entry["files"] = None  # force re-parse of everything
                self.lake.save_state(state)
            wanted = self._wanted(only) if only else None
            walked = ahead.result(self.raw_root) if ahead is not None and wanted is None else None
            runs = with_file_errors(walked) if walked is not None else discover_runs(self.raw_root, wanted)
            if not only:
                present = {r.key for r in runs}
                for key in [k for k in state["runs"] if k not in present]:
                    self.lake.remove_parts(self._parts(key, state["runs"][key]["dir"],
                                                       state["runs"][key]["tables"]))
                    del state["runs"][key]
                    self.lake.record_run(state, key)
                    report.runs_removed += 1
            report.runs_seen = len(runs)
            # Every run whose entry changes is recorded as soon as its parts are written (one
            # journal line, see Lake.record_run): a crash loses nothing already written, and
            # recording one run does not cost more in a large lake than in a small one. Runs of
            # a collection this ingest parses by the hundred go straight into packs instead,
            # recorded when their pack is written (compaction.IngestPacks).
            bulk = compaction.bulk_collections(runs, state, self.force)
            last_of = {run.collection: i for i, run in enumerate(runs) if run.collection in bulk}
            batches: dict[str, compaction.IngestPacks] = {}
            packed = compaction.CompactReport()
            try:
                for i, run in enumerate(runs):
                    self.on_progress(i, len(runs), run.rel_dir)
                    batch = None
                    if run.collection in bulk:
                        batch = batches.setdefault(run.collection, compaction.IngestPacks(self.lake, run.collection))
                    if self._ingest_run(run, state, report, batch):
                        self.lake.record_run(state, run.key)
                    # a pack ends when full, and as soon as its collection has no run left
                    # (runs come in path order): a kill later loses none of its runs' work
                    if batch is not None and (batch.full or last_of[run.collection] == i):
                        batch.commit(state, packed)
            except BaseException:
                for batch in batches.values():   # its runs were not recorded: parsed again next time
                    batch.abort()
                raise
            self.on_progress(len(runs), len(runs), "")
            # runs that changed or vanished leave their packs; many loose runs are packed
            report.compaction = compaction.finish(self.lake, state, report=packed)
            report.compaction.collections = sorted(set(packed.collections) | set(batches))
            return report

    def _parts(self, key: str, rel_dir: str, table_names: Iterable[str]) -> list[Path]:
        return [self.lake.part_path(t, raw_tree.collection_of(rel_dir), key) for t in table_names]

    def _ingest_run(self, run: RunFolder, state: dict, report: IngestReport,
                    batch: "compaction.IngestPacks | None" = None) -> bool:
        """Parse and write one run unless unchanged; True when its state entry changed and is
        to be recorded now (False too for a run handed to ``batch``: recorded at its commit)."""
        previous = state["runs"].get(run.key)
        if previous is not None and self._unchanged(run, previous.get("files")):
            _count_unchanged(previous, report)
            return False
        hashes, files = self._hashes(run, previous)
        old_files = (previous or {}).get("files")
        if old_files is not None and not self.force and \
                {n: v[0] for n, v in old_files.items()} == {n: v[0] for n, v in files.items()}:
            _count_unchanged(previous, report)
            if old_files != files:   # touched but identical: remember the new size and mtime
                previous["files"] = files
                return True
            return False
        rows, errors = self._parse_run(run, hashes, report)
        names = sorted(set(rows.tables()) | set((previous or {}).get("tables", [])))
        try:
            # every table is typed before any part is written: a run is replaced whole or not at all
            # every string column masked (redact.py): no password reaches the lake
            parts = {name: mask_table(self.lake.build_part(name, rows.chunks.get(name, []))) for name in names}
        except ConformError as exc:
            # a parser produced a value its table cannot hold (a parser bug): the run keeps its
            # previous parts and state entry (so the next ingest tries again), the batch goes on
            where = run.rel(run.manifest_name) if run.manifest_name is not None else (run.rel_dir or ".")
            report.errors.append(FileError(where, None, f"run not written (ingest bug, please report): {exc}"))
            return False
        written: list[str] = []
        if batch is not None and any(part is not None for part in parts.values()):
            written = [name for name in names if parts[name] is not None]
        else:
            batch = None   # a run without rows has no place in a pack: its old parts go now
            for table_name in names:
                if self.lake.write_part(table_name, run.collection, run.key, parts[table_name]) is not None:
                    written.append(table_name)
        report.rows_written += sum(rows.count(name) for name in written)
        entry = {
            "dir": run.rel_dir,
            "files": files,
            "tables": written,
            "errors": [e.__dict__ for e in errors if e.severity == "error"],
        }
        report.runs_ingested += 1
        for e in errors:
            (report.errors if e.severity == "error" else report.warnings).append(e)
        if batch is not None:
            batch.add(run.key, entry, previous, parts)
            return False
        state["runs"][run.key] = entry
        return True

    def _unchanged(self, run: RunFolder, old_files: dict | None) -> bool:
        """True when the run's files are those of its state entry, each at the size and
        modification time recorded with its hash: the common case of a no-op ingest, checked
        with the sizes and times the walk found (a stat per file where it has none) and
        nothing built. Anything else (a file added, gone, touched or unreadable, a problem in
        the folder, ``--force``) is False, and :meth:`_hashes` decides."""
        if old_files is None or self.force or run.problems:
            return False
        names = run.names
        if len(old_files) != len(names) + (run.manifest_name is not None):
            return False
        walked = run.stats
        try:
            for name in names if run.manifest_name is None else [*names, run.manifest_name]:
                was = old_files.get(name)
                if was is None:
                    return False
                found = walked.get(name)
                if found is None:
                    st = os.stat(run.prefix + name)
                    found = (st.st_size, st.st_mtime_ns)
                if was[1] != found[0] or was[2] != found[1]:
                    return False
        except OSError:
            return False
        return True

    def _hashes(self, run: RunFolder, previous: dict | None) -> tuple[dict[str, str], dict[str, list]]:
        """Content hash of every file of the run by its path under the raw root, and the run's
        state entry ``files``: path under the run folder -> [sha256, size, mtime_ns].

        A file whose size and modification time (nanoseconds) equal those recorded with its
        hash at the last ingest keeps that hash without being read again: a no-op ingest of a
        large tree only stats its files. ``--force`` hashes everything."""
        old = {} if self.force else ((previous or {}).get("files") or {})
        prefix = "" if run.rel_dir == "." else run.rel_dir + "/"
        hashes: dict[str, str] = {}
        files: dict[str, list] = {}
        for name in run.names + ([run.manifest_name] if run.manifest_name is not None else []):
            rel, path = run.rel(name), run.prefix + name
            try:
                st = os.stat(path)
                was = old.get(name)
                if was is not None and was[1] == st.st_size and was[2] == st.st_mtime_ns:
                    sha = was[0]
                else:
                    sha = sha256_file(Path(path))   # only files that changed: a Path is cheap here
            except OSError as exc:
                # unreadable or gone since discovery: one problem of the run (reported by
                # _parse_run, and in `files` so that the run is parsed again once it can be read)
                run.problems.append(FileError(rel, None, _unreadable_reason(exc)))
                continue
            hashes[rel] = sha
            files[name] = [sha, st.st_size, st.st_mtime_ns]
        for problem in run.problems:
            files[problem.path.removeprefix(prefix)] = [f"!{problem.reason}", -1, -1]
        return hashes, files

    def _wanted(self, only: Iterable[Path]) -> list[str]:
        """The paths of ``only`` under the raw root ('.' for the root or a folder holding it); a
        path elsewhere selects nothing (no run folder holds it or lies inside it)."""
        wanted = []
        for p in only:
            path = Path(p).resolve()
            if self.raw_root.is_relative_to(path):
                wanted.append(".")
            elif path.is_relative_to(self.raw_root):
                wanted.append(path.relative_to(self.raw_root).as_posix())
        return wanted

    def _parse_run(self, run: RunFolder, hashes: dict[str, str], report: IngestReport):
        rows = RunRows()
        errors: list[FileError] = []
        manifest: Manifest | None = None
        run_id = run.rel_dir if run.rel_dir != "." else "_root"
        errors.extend(run.problems)
        manifest_rel = run.rel(run.manifest_name) if run.manifest_name is not None else None
        if manifest_rel is not None and manifest_rel in hashes:
            rel = manifest_rel
            try:
                manifest = read_manifest(run.manifest_path)
                run_id = manifest.run_id
            except ManifestError as exc:
                errors.extend(FileError(rel, p.line, p.describe()) for p in exc.problems)
            except OSError as exc:
                errors.append(FileError(rel, None, _unreadable_reason(exc)))
        provenance = {"run_id": run_id, "parser": None, "parser_version": None, "tool_version": None,
                      "source_path": manifest_rel,
                      "source_sha256": hashes.get(manifest_rel) if manifest_rel else None}
        for table, records in manifest_rows(run, manifest, run_id).items():
            rows.add(table, records, provenance)
        for name in run.names:
            rel, path = run.rel(name), Path(run.prefix + name)
            declared = manifest.files.get(name, {}) if manifest else {}
            if declared.get("role") == "ignore":
                continue
            if rel not in hashes:
                continue  # not readable: already one of run.problems
            file_rows, file_errors = self._parse_one(path, rel, hashes[rel], declared, run_id, report)
            rows.extend(file_rows)
            errors.extend(file_errors)
        _decide_log_units(rows, errors)
        for e in errors:
            rows.add_record("ingest_errors", {
                "run_id": run_id, "source_path": e.path, "source_sha256": hashes.get(e.path),
                "line": e.line, "severity": e.severity, "reason": e.reason,
            })
        return rows, errors

    def _parse_one(self, path: Path, rel: str, sha: str, declared: dict, run_id: str,
                   report: IngestReport):
        rows = RunRows()
        errors: list[FileError] = []
        size = path.stat().st_size
        file_row = {"run_id": run_id, "source_path": rel, "source_sha256": sha, "size_bytes": size,
                    "format": None, "detected_by": None, "status": None, "status_reason": None,
                    "records": 0}
        text, decode_warning = read_text(path)
        if decode_warning:
            errors.append(FileError(rel, None, decode_warning, "warning"))
        fmt = declared.get("format")
        try:
            module = choose_parser(text, path.name, fmt)
        except KeyError as exc:
            module = None
            errors.append(FileError(rel, None, f"manifest names an unknown format: {exc.args[0]}"))
        if module is None:
            if not fmt:
                errors.append(FileError(rel, None, _unrecognized_reason(text, None)))
            file_row.update(status="unrecognized", status_reason=errors[-1].reason)
            rows.add_record("ingest_files", file_row)
            return rows, errors
        file_row.update(format=module.NAME, detected_by="manifest" if fmt else "content",
                        parser=module.NAME, parser_version=module.VERSION)
        report.files_parsed += 1
        report.bytes_parsed += size
        try:
            result = module.parse(text, filename=path.name)
        except parsers.ParseError as exc:
            errors.append(FileError(rel, exc.line, exc.reason))
            file_row.update(status="rejected", status_reason=exc.reason)
            rows.add_record("ingest_files", file_row)
            return rows, errors
        except Exception as exc:  # a parser bug must not stop the batch
            where = traceback.extract_tb(exc.__traceback__)[-1]
            reason = f"parser {module.NAME} crashed: {type(exc).__name__}: {exc} ({Path(where.filename).name}:{where.lineno})"
            errors.append(FileError(rel, None, reason))
            file_row.update(status="rejected", status_reason=reason)
            rows.add_record("ingest_files", file_row)
            return rows, errors
        provenance = {"run_id": run_id, "source_path": rel, "source_sha256": sha,
                      "parser": module.NAME, "parser_version": module.VERSION,
                      "tool_version": result.tool_version}
        for table, records in result.tables.items():
            rows.add(table, records, provenance)
        for issue in result.issues:
            errors.append(FileError(rel, issue.line, issue.reason, issue.severity))
        file_row.update(provenance, status=result.status, status_reason=result.status_reason,
                        records=result.record_count)
        rows.add_record("ingest_files", file_row)
        return rows, errors


def _count_unchanged(previous: dict, report: IngestReport) -> None:
    """A run not parsed again: counted, and its recorded errors reported again (the exit status
    stays honest)."""
    report.runs_unchanged += 1
    for err in previous.get("errors", []):
        report.errors.append(FileError(**err))


def _unreadable_reason(exc: OSError) -> str:
    return f"not read: {exc.strerror or exc}"


def _decide_log_units(rows: RunRows, errors: list[FileError]) -> None:
    """fio latency logs whose unit the file alone could not tell, decided from the run's other
    fio outputs (fio_log.decide_run_units); the decision's note replaces the file's own."""
    for path, note in fio_log.decide_run_units(rows.chunks).items():
        errors[:] = [e for e in errors if not (e.path == path and e.reason.startswith(fio_log.UNIT_NOTE))]
        errors.append(FileError(path, None, note, "warning"))
