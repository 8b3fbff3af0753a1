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

from iopscope import compaction, parsers, tables
from iopscope.lake import Chunk, ConformError, Lake, collection_of
from iopscope.locks import DEFAULT_WAIT_S
from iopscope.manifest import MANIFEST_NAMES, Manifest, ManifestError, read_manifest
from iopscope.parsers import fio_log
from iopscope.redact import mask, mask_table
from iopscope.run_facts import manifest_rows

# Bump when the ingest layer itself changes what it writes (forces a full re-ingest).
INGEST_VERSION = "1"
IGNORED_SUFFIXES = (".md", ".sha256", ".txt~", ".swp")


@dataclass
class RunFolder:
    key: str                 # stable id of the folder: hash of its path under the raw root
    rel_dir: str             # folder path under the raw root ("." for the root itself)
    collection: str          # first path component under the raw root
    # The manifest and the run's files as absolute path text: a Path per entry was half of a
    # no-op ingest's walk of 54,000 files, and a run that is not parsed needs only its files'
    # sizes and times. The properties give Paths to the code that parses.
    manifest_text: str | None
    file_texts: list[str]
    # entries of the run's folders that were not read (see _classify), each reported as a FileError
    problems: list["FileError"] = field(default_factory=list)

    @property
    def manifest_path(self) -> Path | None:
        return Path(self.manifest_text) if self.manifest_text is not None else None

    @property
    def files(self) -> list[Path]:
        return [Path(text) for text in self.file_texts]


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
            raise OSError(errno.EINVAL, f"not a regular file ({_kind_name(mode)})", str(path))
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


def _key(rel_dir: str) -> str:
    return hashlib.sha256(rel_dir.encode()).hexdigest()[:16]


def _ignored(path: Path) -> bool:
    return _ignored_name(path.name)


def _ignored_name(name: str) -> bool:
    return name.startswith(".") or name.endswith(IGNORED_SUFFIXES) or name in MANIFEST_NAMES


def discover_runs(raw_root: Path, only: Iterable[str] | None = None) -> list[RunFolder]:
    """Every run folder under raw_root, sorted by path so output order never depends on the OS.

    Entries that cannot be read as a regular file under the raw root (a folder without read
    permission, a symlink loop or one leading outside the raw root, a FIFO, a socket, a device)
    are not read: each becomes one problem of the run it would belong to, and the walk goes on.

    ``only`` (paths under the raw root, relative, '/'-separated; '.' is the root): just the runs
    whose folder holds one of them or lies inside one, the same runs a full walk would find
    (:func:`selects`). The walk lists only the folders on the way to those paths and the folders
    of the runs it keeps, so naming the run a capture just wrote costs the same in a tree of
    10,000 runs as in one of ten (a full walk stats every file: 0.4 s at 10,000 runs)."""
    raw_root = raw_root.resolve()
    runs: list[RunFolder] = []
    wanted = None if only is None else [w.strip("/") or "." for w in only]

    # Strings, not Paths, while walking: a Path per directory entry was most of the CPU of a
    # no-op ingest of 54,000 files. The runs keep text too (RunFolder.file_texts).
    root_text = str(raw_root).rstrip("/")
    cut = len(root_text) + 1

    def needed(rel: str, owner: RunFolder | None) -> bool:
        # a folder is listed when it leads to a wanted path, lies inside one, or belongs to a
        # run that is kept (its files are that run's)
        return wanted is None or (owner is not None and selects(wanted, owner.rel_dir)) or \
            any(_related(rel, w) for w in wanted)

    manifest_rank = {name: i for i, name in enumerate(MANIFEST_NAMES)}   # the first present wins

    def walk(folder: str, owner: RunFolder | None, entries: Iterable[os.DirEntry]) -> None:
        # One pass sorts the entries into files, folders and the rest, so that the run's owner
        # (a manifest here) is known before anything is handed to it. No listing is sorted
        # here: the run list and each run's files are sorted once at the end (sorting every
        # listing by a key function was a fifth of a no-op walk of 12,500 folders), and the
        # common entries are decided inline (a call per entry was another tenth).
        rel = folder[cut:] or "."
        kept: list[str] = []
        folders: list[str] = []
        others: list[tuple[str, str, str | None]] = []
        manifest, rank = None, len(MANIFEST_NAMES)
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            # the common cases straight from the listing's d_type; symlinks and the rest classified
            if not entry.is_file(follow_symlinks=False):
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
                    continue
                kind, reason = _classify(entry, root_text)
                if kind == "dir":
                    folders.append(entry.path)
                    continue
                if kind != "file":
                    if not _ignored_name(name):
                        others.append((entry.path, kind, reason))
                    continue
            at = manifest_rank.get(name)
            if at is not None:
                if at < rank:
                    manifest, rank = entry.path, at
            elif not name.endswith(IGNORED_SUFFIXES):
                kept.append(entry.path)
        if manifest is not None:
            owner = RunFolder(_key(rel), rel, _collection(rel), manifest, [])
            runs.append(owner)
        target = owner   # what this folder's files belong to: its run, or a loose folder made on demand

        def holder() -> RunFolder:
            nonlocal target
            if target is None:
                target = RunFolder(_key(rel), rel, _collection(rel), None, [])
                runs.append(target)
            return target

        if kept:
            holder().file_texts.extend(kept)
        for path, kind, reason in others:
            holder().problems.append(FileError(path[cut:], None, reason, "warning" if kind == "skipped" else "error"))
        for path in folders:
            if wanted is not None and not needed(path[cut:], owner):
                continue
            try:
                below = list(os.scandir(path))
            except OSError as exc:
                holder().problems.append(FileError(path[cut:], None,
                                         f"folder not read ({exc.strerror}): the files in it are not ingested"))
                continue
            walk(path, owner, below)

    if raw_root.is_dir():
        walk(root_text, None, list(os.scandir(root_text)))
    if wanted is not None:
        runs = [r for r in runs if selects(wanted, r.rel_dir)]
    for run in runs:   # the same order on every OS and file system
        run.file_texts.sort()
        if len(run.problems) > 1:
            run.problems.sort(key=lambda p: p.path)
    return sorted(runs, key=lambda r: r.rel_dir)


def _related(rel: str, wanted: str) -> bool:
    """rel and wanted (paths under the raw root, '.' the root) are one inside the other."""
    if rel == "." or wanted == ".":
        return True
    return rel == wanted or wanted.startswith(rel + "/") or rel.startswith(wanted + "/")


def selects(wanted: list[str], run_dir: str) -> bool:
    """A run (its folder under the raw root) is ingested for the paths `wanted` when its folder
    holds one of them or lies inside one: naming a file of a run ingests the whole run."""
    return any(_related(run_dir, w) for w in wanted)


_NOT_REGULAR = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def _classify(entry: os.DirEntry, root_text: str) -> tuple[str, str | None]:
    """("dir" | "file", None) for what the walk reads, else ("error" | "skipped", reason).

    A symlink is followed only to a regular file inside the raw root: a loop, a dangling link
    or one leading outside the root is an error (raw data must not depend on what else the
    machine holds); a link to a folder is skipped with a warning (its files would be read
    twice). Only symlinks and unusual entries cost a system call (the rest is the d_type the
    directory listing already carries)."""
    if not entry.is_symlink():
        if entry.is_dir(follow_symlinks=False):
            return "dir", None
        if entry.is_file(follow_symlinks=False):
            return "file", None
        return "error", f"not read: {_kind_of(entry.path)}, not a regular file"
    try:
        st = os.stat(entry.path)
    except OSError as exc:
        what = "a symlink loop" if exc.errno == errno.ELOOP else f"a dangling symlink ({exc.strerror})"
        return "error", f"not read: {what}"
    target = os.path.realpath(entry.path)
    if not (target + "/").startswith(root_text + "/"):
        return "error", f"not followed: symlink leads outside the raw root (to {target})"
    if stat.S_ISDIR(st.st_mode):
        return "skipped", f"not followed: symlink to a folder ({target[len(root_text) + 1:] or '.'})"
    if not stat.S_ISREG(st.st_mode):
        return "error", f"not read: symlink to {_kind_of(entry.path)}, not a regular file"
    return "file", None


def _kind_of(path: str) -> str:
    try:
        return _kind_name(os.stat(path).st_mode)
    except OSError:
        return "an unreadable entry"


def _kind_name(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    return next((name for test, name in _NOT_REGULAR if test(mode)), "an entry of another kind")


_collection = collection_of


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
        self._root_prefix = str(self.raw_root).rstrip("/") + "/"
        self.lake = Lake(Path(lake_root))
        self.force = force
        self.on_progress = on_progress or (lambda i, n, name: None)

    def run(self, only: Iterable[Path] | None = None) -> IngestReport:
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
            runs = discover_runs(self.raw_root, wanted)
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
        return [self.lake.part_path(t, _collection(rel_dir), key) for t in table_names]

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
            where = self._rel(run.manifest_path) if run.manifest_path else (run.rel_dir or ".")
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
        with one stat per file and nothing built. Anything else (a file added, gone, touched
        or unreadable, a problem in the folder, ``--force``) is False, and :meth:`_hashes`
        decides."""
        if old_files is None or self.force or run.problems:
            return False
        paths = run.file_texts
        if len(old_files) != len(paths) + (run.manifest_text is not None):
            return False
        base = self._root_prefix + ("" if run.rel_dir == "." else run.rel_dir + "/")
        cut = len(base)
        try:
            for path in paths if run.manifest_text is None else [*paths, run.manifest_text]:
                was = old_files.get(path[cut:])
                if was is None or not path.startswith(base):
                    return False
                st = os.stat(path)
                if was[2] != st.st_mtime_ns or was[1] != st.st_size:
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
        paths = run.file_texts + ([run.manifest_text] if run.manifest_text is not None else [])
        for path in paths:
            rel = self._rel(path)
            name = rel.removeprefix(prefix)
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

    def _rel(self, path: Path | str) -> str:
        # Discovery builds every path under the resolved raw root: no need to resolve again
        # (one lstat per path component), and a string prefix is cut 10x faster than
        # Path.relative_to (which matters for 50,000 files); other paths are resolved.
        text = str(path)
        if text.startswith(self._root_prefix) and os.sep == "/":
            return text[len(self._root_prefix):]
        return Path(path).resolve().relative_to(self.raw_root).as_posix()

    def _parse_run(self, run: RunFolder, hashes: dict[str, str], report: IngestReport):
        rows = RunRows()
        errors: list[FileError] = []
        manifest: Manifest | None = None
        run_id = run.rel_dir if run.rel_dir != "." else "_root"
        errors.extend(run.problems)
        if run.manifest_path and self._rel(run.manifest_path) in hashes:
            rel = self._rel(run.manifest_path)
            try:
                manifest = read_manifest(run.manifest_path)
                run_id = manifest.run_id
            except ManifestError as exc:
                errors.extend(FileError(rel, p.line, p.describe()) for p in exc.problems)
            except OSError as exc:
                errors.append(FileError(rel, None, _unreadable_reason(exc)))
        manifest_rel = self._rel(run.manifest_path) if run.manifest_path else None
        provenance = {"run_id": run_id, "parser": None, "parser_version": None, "tool_version": None,
                      "source_path": manifest_rel,
                      "source_sha256": hashes.get(manifest_rel) if manifest_rel else None}
        for table, records in manifest_rows(run, manifest, run_id).items():
            rows.add(table, records, provenance)
        for path in run.files:
            rel = self._rel(path)
            rel_to_run = path.relative_to(self.raw_root / run.rel_dir).as_posix()
            declared = manifest.files.get(rel_to_run, {}) if manifest else {}
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
