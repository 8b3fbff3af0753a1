"""The raw tree as the ingest sees it: its run folders, their files, and each file's size and
modification time (``walk``); and the same walk done ahead, in a process of its own
(``start``), while the command that will ingest is still importing what it needs.

A *run* is a folder holding a manifest (``run.toml``) and everything below it (up to the next
folder with a manifest of its own); a folder of files outside any manifest is a run of its own
(iopscope/ingest.py). This module only lists: it never reads a file, and it imports nothing but
the standard library and the manifest's name, so a process that only walks starts in ~30 ms.

Why ahead: a walking ``iopscope build`` or ``iopscope ingest`` lists and stats every raw file
(54,000 at 10,000 runs: 0.2 s at the least, 0.4 s as the ingest did it) before it can tell the
one new run from the rest, and that walk was most of what one more run cost more in a large
archive than in a small one. The command's own start (importing DuckDB, Arrow and the parsers:
~0.3 s) does not need the walk, so the walk runs beside it on another core
(docs/performance.md, run 28).
"""

from __future__ import annotations

import errno
import hashlib
import os
import pickle
import stat
import subprocess
import sys
import time
from sys import intern
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, NamedTuple

from iopscope.manifest import MANIFEST_NAMES

IGNORED_SUFFIXES = (".md", ".sha256", ".txt~", ".swp")
ROOT_COLLECTION = "_root"      # the collection of runs right under the raw root


def collection_of(rel_dir: str) -> str:
    """The collection (partition) of a run folder: its first folder under the raw root."""
    return ROOT_COLLECTION if rel_dir == "." else rel_dir.split("/", 1)[0]


class Problem(NamedTuple):
    """An entry of a run's folders that is not read (see ``_classify``): the ingest reports
    each as one FileError of the run (iopscope/ingest.py, which masks its text)."""

    path: str        # under the raw root
    reason: str
    severity: str    # "error" | "warning"


@dataclass
class RunFolder:
    key: str                 # stable id of the folder: hash of its path under the raw root
    rel_dir: str             # folder path under the raw root ("." for the root itself)
    collection: str          # first path component under the raw root
    root_text: str           # the raw root (resolved) the walk found the run under
    # The manifest's name and the run's files as text, each a path under the run's folder, the
    # way the lake's state records them: a Path per entry was half of a no-op ingest's walk of
    # 54,000 files, and a run that is not parsed needs only its files' sizes and times. The
    # properties give absolute paths (text, or Paths for the code that parses).
    manifest_name: str | None
    names: list[str]
    # entries of the run's folders that were not read (see _classify): Problems from the walk,
    # FileErrors once the ingest has them (iopscope.ingest.discover_runs)
    problems: list = field(default_factory=list)
    # name -> (size, mtime_ns) of the manifest and every file, as the walk found them: what
    # tells an unchanged run without a second stat per file (Ingestor._unchanged)
    stats: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def prefix(self) -> str:
        """The run folder's absolute path text, with a trailing slash."""
        return self.root_text + "/" + ("" if self.rel_dir == "." else self.rel_dir + "/")

    def rel(self, name: str) -> str:
        """The path under the raw root of ``name`` (a path under the run's folder)."""
        return name if self.rel_dir == "." else f"{self.rel_dir}/{name}"

    @property
    def manifest_text(self) -> str | None:
        return None if self.manifest_name is None else self.prefix + self.manifest_name

    @property
    def file_texts(self) -> list[str]:
        prefix = self.prefix
        return [prefix + name for name in self.names]

    @property
    def manifest_path(self) -> Path | None:
        return Path(self.manifest_text) if self.manifest_name is not None else None

    @property
    def files(self) -> list[Path]:
        return [Path(text) for text in self.file_texts]


def run_key(rel_dir: str) -> str:
    return hashlib.sha256(rel_dir.encode()).hexdigest()[:16]


def ignored_name(name: str) -> bool:
    return name.startswith(".") or name.endswith(IGNORED_SUFFIXES) or name in MANIFEST_NAMES


def walk(raw_root: Path, only: Iterable[str] | None = None) -> list[RunFolder]:
    """Every run folder under raw_root, sorted by path so output order never depends on the OS,
    with the size and modification time of each of its files (``RunFolder.stats``).

    Entries that cannot be read as a regular file under the raw root (a folder without read
    permission, a symlink loop or one leading outside the raw root, a FIFO, a socket, a device)
    are not read: each becomes one Problem of the run it would belong to, and the walk goes on.

    ``only`` (paths under the raw root, relative, '/'-separated; '.' is the root): just the runs
    whose folder holds one of them or lies inside one, the same runs a full walk would find
    (:func:`selects`). The walk lists only the folders on the way to those paths and the folders
    of the runs it keeps, so naming the run a capture just wrote costs the same in a tree of
    10,000 runs as in one of ten."""
    raw_root = Path(raw_root).resolve()
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

    def visit(folder: str, owner: RunFolder | None, entries: Iterable[os.DirEntry]) -> None:
        # One pass sorts the entries into files, folders and the rest, so that the run's owner
        # (a manifest here) is known before anything is handed to it. No listing is sorted
        # here: the run list and each run's files are sorted once at the end (sorting every
        # listing by a key function was a fifth of a no-op walk of 12,500 folders), and the
        # common entries are decided inline (a call per entry was another tenth).
        rel = folder[cut:] or "."
        kept: list[str] = []   # names in this folder
        stats: dict[str, tuple[int, int]] = {}
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
                kind, reason, followed = _classify(entry, root_text)
                if kind == "dir":
                    folders.append(entry.path)
                    continue
                if kind != "file":
                    if not ignored_name(name):
                        others.append((entry.path, kind, reason))
                    continue
            else:
                followed = None
            at = manifest_rank.get(name)
            if at is None and name.endswith(IGNORED_SUFFIXES):
                continue
            # one string per name however many runs hold a file of that name: a walk handed to
            # another process (WalkAhead) is pickled with each string once
            name = intern(name)
            try:
                st = followed or entry.stat(follow_symlinks=False)
                stats[name] = (st.st_size, st.st_mtime_ns)
            except OSError:
                pass   # gone since the listing: the ingest's own stat reports it
            if at is not None:
                if at < rank:
                    manifest, rank = name, at
            else:
                kept.append(name)
        if manifest is not None:
            owner = RunFolder(run_key(rel), rel, collection_of(rel), root_text, manifest, [])
            runs.append(owner)
        target = owner   # what this folder's files belong to: its run, or a loose folder made on demand

        def holder() -> RunFolder:
            nonlocal target
            if target is None:
                target = RunFolder(run_key(rel), rel, collection_of(rel), root_text, None, [])
                runs.append(target)
            return target

        if kept or stats:   # only kept files and manifests are stat'ed
            run = holder()
            # this folder under the run's folder ("" for the run's own folder)
            sub = "" if run.rel_dir == rel else (rel if run.rel_dir == "." else rel[len(run.rel_dir) + 1:]) + "/"
            if sub:   # a folder below the run's own, so no manifest here (it would be a run of its own)
                run.names.extend(sub + name for name in kept)
                run.stats.update((sub + name, st) for name, st in stats.items())
            else:
                run.names.extend(kept)
                run.stats.update(stats)
        for path, kind, reason in others:
            holder().problems.append(Problem(path[cut:], reason, "warning" if kind == "skipped" else "error"))
        for path in folders:
            if wanted is not None and not needed(path[cut:], owner):
                continue
            try:
                below = list(os.scandir(path))
            except OSError as exc:
                holder().problems.append(Problem(path[cut:], f"folder not read ({exc.strerror}): the files in it "
                                                             "are not ingested", "error"))
                continue
            visit(path, owner, below)

    if raw_root.is_dir():
        visit(root_text, None, list(os.scandir(root_text)))
    if wanted is not None:
        runs = [r for r in runs if selects(wanted, r.rel_dir)]
    for run in runs:   # the same order on every OS and file system
        run.names.sort()
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


def _classify(entry: os.DirEntry, root_text: str) -> tuple[str, str | None, os.stat_result | None]:
    """("dir" | "file", None, stat of a followed link) for what the walk reads, else
    ("error" | "skipped", reason, None).

    A symlink is followed only to a regular file inside the raw root: a loop, a dangling link
    or one leading outside the root is an error (raw data must not depend on what else the
    machine holds); a link to a folder is skipped with a warning (its files would be read
    twice). Only symlinks and unusual entries cost a system call (the rest is the d_type the
    directory listing already carries)."""
    if not entry.is_symlink():
        if entry.is_dir(follow_symlinks=False):
            return "dir", None, None
        if entry.is_file(follow_symlinks=False):
            return "file", None, None
        return "error", f"not read: {_kind_of(entry.path)}, not a regular file", None
    try:
        st = os.stat(entry.path)
    except OSError as exc:
        what = "a symlink loop" if exc.errno == errno.ELOOP else f"a dangling symlink ({exc.strerror})"
        return "error", f"not read: {what}", None
    target = os.path.realpath(entry.path)
    if not (target + "/").startswith(root_text + "/"):
        return "error", f"not followed: symlink leads outside the raw root (to {target})", None
    if stat.S_ISDIR(st.st_mode):
        return "skipped", f"not followed: symlink to a folder ({target[len(root_text) + 1:] or '.'})", None
    if not stat.S_ISREG(st.st_mode):
        return "error", f"not read: symlink to {_kind_of(entry.path)}, not a regular file", None
    return "file", None, st


def _kind_of(path: str) -> str:
    try:
        return kind_name(os.stat(path).st_mode)
    except OSError:
        return "an unreadable entry"


def kind_name(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    return next((name for test, name in _NOT_REGULAR if test(mode)), "an entry of another kind")


# A walk done ahead is used only if it began at most this long before the ingest took the
# lake's lock: a build that waited for another one walks again, so it sees the tree as it is
# when it ingests, not as it was when the command started.
AHEAD_MAX_AGE_S = 5.0


class WalkAhead:
    """``walk(raw_root)`` running in a child process (``start``); ``result`` waits for it."""

    def __init__(self, raw_root: Path) -> None:
        self.raw_root = Path(raw_root).resolve()
        self.started = time.monotonic()
        package_parent = str(Path(__file__).resolve().parents[1])
        code = f"import sys; sys.path.insert(0, {package_parent!r}); from iopscope.raw_tree import _child; _child()"
        self._proc = subprocess.Popen([sys.executable, "-c", code, str(self.raw_root)],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def result(self, raw_root: Path) -> list[RunFolder] | None:
        """The runs the child found under ``raw_root`` (None when it walked another root, began
        more than AHEAD_MAX_AGE_S ago, or failed: the caller walks itself)."""
        if self._proc is None or Path(raw_root).resolve() != self.raw_root or \
                time.monotonic() - self.started > AHEAD_MAX_AGE_S:
            self.cancel()
            return None
        proc, self._proc = self._proc, None
        out, _ = proc.communicate()
        if proc.returncode != 0:
            return None
        try:
            runs = pickle.loads(out)
        except Exception:   # a child that died mid-write: never half a walk
            return None
        return runs if isinstance(runs, list) else None

    def cancel(self) -> None:
        """Stop the child if it still runs (a build that failed first, a walk not wanted)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def start(raw_root: Path) -> WalkAhead | None:
    """The walk of ``raw_root`` started in a child process, or None when it cannot start."""
    try:
        return WalkAhead(raw_root)
    except OSError:
        return None


def _child() -> None:
    sys.stdout.buffer.write(pickle.dumps(walk(Path(sys.argv[1])), protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.flush()
