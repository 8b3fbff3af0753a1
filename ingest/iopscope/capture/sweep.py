"""The sweep engine: one complete run folder per step, crash-safe state, resume and progress.

What a sweep runs is planned elsewhere (``fio_plan.py``: fio profiles x block sizes x read
mixes x outstanding IOs; ``tpcc.py``: TPC-C connection counts); the plan hands this engine a
list of :class:`Step` and reads back an :class:`Outcome` per step. ``summary.py`` shows the
result to people. Layout of a sweep (``<out>`` defaults to ``data/raw/measured/<sweep_id>``)::

    <out>/
      .sweep.json                     plan, options and the status of every step (resume reads it)
      sweep.md                        summary table (ingest ignores *.md)
      precondition/                   fio only, optional: preconditioning pass (not ingested)
      001-database-8k-r67-oio001/     one run folder per step
        run.toml                      manifest: machine facts, exact commands and options, status
        fio.json                      the benchmark's output (tpcc_start.out, go-tpc.out ...)
        iostat.json                   iostat -o JSON -t -x -y 1 <runtime>
        mpstat.json                   mpstat -o JSON -P ALL 1 <runtime>
      .superseded/                    steps replaced on --resume (hidden: ingest skips it)

A step's manifest is written *before* the step starts, with ``status = "interrupted"`` and
every output declared ``role = "ignore"``; it is rewritten when the step ends. So a crash or a
kill leaves every finished step complete and the running one marked interrupted, and ingest
reads the folder without errors. Ctrl-C (SIGINT) or SIGTERM stops the benchmark and sysstat
cleanly, marks the step interrupted and exits with status 130; ``--resume <out>`` moves
unfinished steps to ``.superseded/`` and runs them again.

>>> slug("Database 8K / r67")
'database-8k-r67'
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import os
import shlex
import shutil
import signal
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from rich.console import Console
from rich.markup import escape
from rich.progress import (BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)

from iopscope import __version__
from iopscope.signal_safety import catching_dropped, inside_an_import
from iopscope.capture import tomlw

STATE_FILE = ".sweep.json"
SUPERSEDED = ".superseded"
MANIFEST = "run.toml"
CAPTURED_BY = f"iopscope capture {__version__}"


class SweepError(RuntimeError):
    pass


class Interrupted(BaseException):
    """Raised in the main thread by SIGINT/SIGTERM while a sweep runs (once; later ones are ignored)."""


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


@contextlib.contextmanager
def interrupt_guard() -> Iterator[dict]:
    """SIGINT / SIGTERM raise :class:`Interrupted` once; while the cleanup runs, repeats are ignored.
    Where raising could be lost (during an import, inside a ``__del__``: see signal_safety) the
    signal is kept as pending instead, and :func:`raise_pending` raises it at the next tick."""
    info: dict[str, Any] = {"signal": None, "pending": False}

    def handler(signum, frame):
        if info["signal"] is None:
            info["signal"] = signal.Signals(signum).name
            if inside_an_import(frame):
                info["pending"] = True
                return
            raise Interrupted(info["signal"])

    def dropped(exc: BaseException) -> None:
        info["pending"] = True

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        with catching_dropped(Interrupted, dropped):
            yield info
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def raise_pending(info: dict) -> None:
    """Raise the interrupt a signal handler could not (see :func:`interrupt_guard`)."""
    if info["pending"]:
        info["pending"] = False
        raise Interrupted(info["signal"])


# --------------------------------------------------------------------------- files & manifests


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_manifest(folder: Path, data: dict[str, Any], header: str) -> None:
    from iopscope.manifest import parse_manifest

    text = tomlw.dumps(data, header=header)
    parse_manifest(text, folder / MANIFEST)  # never write a manifest ingest would reject
    write_atomic(folder / MANIFEST, text)


def declare_file(folder: Path, name: str, role: str, device: str | None = None,
                 description: str | None = None) -> dict[str, Any] | None:
    """A ``[[files]]`` entry that ingest will read without error.

    The file is parsed here exactly as ingest would; when no parser reads it, or it holds an
    error, it is declared ``role = "ignore"`` with the reason, so ingest skips it instead of
    failing. Absent files give None.
    """
    from iopscope import parsers
    from iopscope.ingest import parse_file

    path = folder / name
    if not path.is_file():
        return None
    entry: dict[str, Any] = {"path": name}
    if path.stat().st_size == 0:
        return {**entry, "role": "ignore", "description": "empty: the tool wrote nothing"}
    try:
        module, result, _ = parse_file(path)
    except parsers.ParseError as exc:
        return {**entry, "role": "ignore",
                "description": f"kept for the record, not ingested: {exc.reason}"[:300]}
    errors = [i for i in result.issues if i.severity == "error"]
    if errors:
        return {**entry, "role": "ignore",
                "description": f"kept for the record, not ingested: line {errors[0].line}: {errors[0].reason}"[:300]}
    entry.update(format=module.NAME, role=role)
    if device:
        entry["device"] = device
    if description:
        entry["description"] = description
    return entry


def ignored(names: list[str], why: str) -> list[dict[str, Any]]:
    return [{"path": n, "role": "ignore", "description": why} for n in names]


def drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None and v != {} and v != []}


# --------------------------------------------------------------------------- state


@dataclass
class SweepState:
    folder: Path
    data: dict[str, Any]

    @classmethod
    def load(cls, folder: Path) -> "SweepState":
        path = folder / STATE_FILE
        try:
            return cls(folder, json.loads(path.read_text()))
        except FileNotFoundError:
            raise SweepError(f"{folder}: not a sweep folder (no {STATE_FILE})") from None
        except ValueError as exc:
            raise SweepError(f"{path}: unreadable ({exc})") from None

    @classmethod
    def resume(cls, folder: Path, kind: str, config_class: type) -> tuple["SweepState", Any]:
        """Load a sweep of ``kind`` for --resume, with its config rebuilt as ``config_class``
        (keys a newer or older iopscope does not know are dropped)."""
        state = cls.load(folder)
        if state.data.get("kind") != kind:
            found = state.data.get("kind")
            raise SweepError(f"{folder} is a {found} sweep: use `capture {found}`")
        known = {f.name for f in dataclasses.fields(config_class)}
        return state, config_class(**{k: v for k, v in state.data["config"].items() if k in known})

    def save(self) -> None:
        self.data["updated_at"] = now().isoformat()
        write_atomic(self.folder / STATE_FILE, json.dumps(self.data, indent=2, default=str) + "\n")

    def step(self, folder_name: str) -> dict[str, Any]:
        for s in self.data["steps"]:
            if s["folder"] == folder_name:
                return s
        raise KeyError(folder_name)


@dataclass
class Outcome:
    status: str                      # complete | failed | interrupted
    reason: str | None = None
    numbers: dict[str, Any] = field(default_factory=dict)
    manifest: dict[str, Any] | None = None
    header: str = ""


class Step:
    """One step of a sweep. Subclasses implement :meth:`run`."""

    index: int
    folder: str
    label: str
    expected_s: float
    counts: bool = True   # shown in the summary / subject to stop conditions

    def commands(self) -> list[str]:
        raise NotImplementedError

    def run(self, sweep_dir: Path, tick: Callable[[float], None]) -> Outcome:
        raise NotImplementedError


def _supersede(sweep_dir: Path, name: str) -> None:
    src = sweep_dir / name
    if src.exists():
        dest = sweep_dir / SUPERSEDED / f"{name}-{now().strftime('%Y%m%dT%H%M%SZ')}"
        dest.parent.mkdir(exist_ok=True)
        os.replace(src, dest)


StopCheck = Callable[[Step, Outcome, list[tuple[Step, Outcome]]], str | None]
LineFormat = Callable[[Step, Outcome], str]


def run_steps(sweep_dir: Path, state: SweepState, steps: list[Step], console: Console,
              line: LineFormat, stop_check: StopCheck | None = None,
              before: Callable[[], None] | None = None, after: Callable[[], None] | None = None) -> int:
    """Run the steps not yet complete. ``line`` tells how a complete step went, in one line of
    console markup. Returns 0 (done or stopped by a condition), 1 (a step failed) or 130
    (interrupted)."""
    todo = [s for s in steps if state.step(s.folder).get("status") != "complete"]
    history: list[tuple[Step, Outcome]] = [
        (s, Outcome(**{k: v for k, v in state.step(s.folder).items() if k in ("status", "reason", "numbers")}))
        for s in steps if state.step(s.folder).get("status") == "complete" and s.counts]
    if state.data.get("ended_by") and state.data.get("status") == "stopped":
        console.print(f"sweep already ended: {escape(str(state.data['ended_by']))}")
        return 0
    if not todo:
        console.print("every step is already complete")
        return 0
    for s in todo:
        _supersede(sweep_dir, s.folder)
    state.data["status"] = "running"
    state.save()
    total = sum(s.expected_s for s in todo)
    code = 0
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), TaskProgressColumn(),
                        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=console,
                        transient=True)
    with interrupt_guard() as sig:
        try:
            if before:
                before()
            with progress:
                task = progress.add_task("sweep", total=total)
                done_s = 0.0
                for number, s in enumerate(todo, 1):
                    raise_pending(sig)
                    progress.update(task, description=f"{number}/{len(todo)} {s.label}")
                    entry = state.step(s.folder)
                    entry.update(status="running", started_at=now().isoformat())
                    state.save()

                    def tick(elapsed: float, _base=done_s, _cap=s.expected_s) -> None:
                        raise_pending(sig)
                        progress.update(task, completed=_base + min(elapsed, _cap))

                    outcome = s.run(sweep_dir, tick)
                    done_s += s.expected_s
                    progress.update(task, completed=done_s)
                    ended_by = None
                    if outcome.status == "complete" and s.counts and stop_check:
                        ended_by = stop_check(s, outcome, history)
                    if outcome.manifest is not None:
                        extra = outcome.manifest.setdefault("extra", {})
                        if ended_by:
                            extra["sweep_ended_by"] = ended_by
                        write_manifest(sweep_dir / s.folder, outcome.manifest, outcome.header)
                    entry.update(status=outcome.status, reason=outcome.reason, numbers=outcome.numbers,
                                 ended_at=now().isoformat())
                    if s.counts:
                        history.append((s, outcome))
                    progress.console.print(line(s, outcome) if outcome.status == "complete" else
                                           f"[red]{outcome.status}[/] {s.folder}: {escape(str(outcome.reason))}")
                    if outcome.status != "complete":
                        state.data.update(status="failed", ended_by=f"step {s.folder} failed: {outcome.reason}")
                        code = 1
                        break
                    if ended_by:
                        state.data.update(status="stopped", ended_by=ended_by)
                        progress.console.print(f"[yellow]sweep stopped:[/] {escape(ended_by)}")
                        break
                    state.save()
                else:
                    state.data.update(status="complete", ended_by="all steps done")
        except Interrupted:
            for s in todo:
                entry = state.step(s.folder)
                if entry.get("status") == "running":
                    entry.update(status="interrupted", reason=f"interrupted by {sig['signal']}",
                                 ended_at=now().isoformat())
            state.data.update(status="interrupted", ended_by=f"interrupted by {sig['signal']}")
            code = 130
        except Exception as exc:
            # A crash: the running step keeps its provisional manifest (status interrupted).
            for s in todo:
                entry = state.step(s.folder)
                if entry.get("status") == "running":
                    entry.update(status="interrupted", reason=f"iopscope crashed: {type(exc).__name__}: {exc}",
                                 ended_at=now().isoformat())
            state.data.update(status="interrupted", ended_by=f"iopscope crashed: {type(exc).__name__}: {exc}")
            raise
        finally:
            state.save()
            if after:
                after()
    if code == 130:
        console.print(f"[yellow]interrupted[/]: finished steps are complete; continue with "
                      f"[bold]iopscope capture {state.data['kind']} --resume {escape(shlex.quote(str(sweep_dir)))}[/]")
    return code


# --------------------------------------------------------------------------- naming & checks


def slug(text: str) -> str:
    out = "".join(c if c.isalnum() else "-" for c in text.lower())
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-")


def default_sweep_id(kind: str, names: list[str], device: str | None, when: dt.datetime | None = None) -> str:
    when = when or now()
    host = slug(socket.gethostname())[:24] or "host"
    what = "-".join(slug(n) for n in names)[:60] or kind
    dev = f"-{slug(device)}" if device else ""
    return f"{when.strftime('%Y-%m-%d-%H%M')}-{host}{dev}-{kind}-{what}"


def sweep_folder(out: str | None, raw: str | None, sweep_id: str) -> Path:
    """``--out`` as given, else ``<raw root>/measured/<sweep_id>`` (raw root: ``--raw`` or the default)."""
    from iopscope.paths import Paths

    if out:
        return Path(out).resolve()
    root = Path(raw).resolve() if raw else Paths.default().raw
    return (root / "measured" / sweep_id).resolve()


def check_tools(*names: str) -> None:
    missing = [n for n in names if shutil.which(n) is None and not Path(n).is_file()]
    if missing:
        raise SweepError(f"not found: {', '.join(missing)} (Debian: apt-get install fio sysstat)")
