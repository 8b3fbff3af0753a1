"""The raw tree's walk (iopscope/raw_tree.py): what it records of each file, and the walk done
ahead in a process of its own, which an ingest uses only when it is fresh and whole."""

from __future__ import annotations

import os
import shutil

import pytest

from iopscope import raw_tree
from iopscope.ingest import Ingestor
from test_ingest_lake import MANIFEST, _nested_tree, lake_digest


def _stat(path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def test_the_walk_names_each_file_under_its_run_with_its_size_and_time(tmp_path):
    raw = _nested_tree(tmp_path)
    runs = {r.rel_dir: r for r in raw_tree.walk(raw)}
    good = runs["measured/good"]
    assert good.manifest_name == "run.toml"
    assert good.names == ["fio.json", "logs/deep/fio.json"]   # the run inside it is its own run
    assert good.file_texts == [str(raw.resolve() / "measured/good" / n) for n in good.names]
    assert good.stats == {n: _stat(raw / "measured/good" / n) for n in ["run.toml", *good.names]}
    # outside any manifest each folder of files is a run of its own
    assert (runs["old-logs/2019"].manifest_name, runs["old-logs/2019"].names) == (None, ["result.json"])
    assert runs["old-logs/2019/sub"].names == ["b.json"]
    assert runs["."].names == ["notes.txt"] and runs["."].file_texts == [str(raw.resolve() / "notes.txt")]
    assert runs["measured/good/retry"].stats.keys() == {"run.toml", "fio.json"}


def _with_problems(raw):
    """A symlink out of the raw tree and a FIFO: entries the walk reports instead of reading."""
    outside = raw.parent / "outside.json"
    outside.write_text("{}")
    (raw / "measured" / "good" / "elsewhere.json").symlink_to(outside)
    os.mkfifo(raw / "measured" / "broken" / "pipe")
    (raw / "measured" / "broken" / "same.json").symlink_to(raw / "measured" / "broken" / "cut.json")
    return raw


def test_a_walk_ahead_finds_what_a_walk_finds(tmp_path):
    raw = _with_problems(_nested_tree(tmp_path))
    ahead = raw_tree.start(raw)
    found = ahead.result(raw)
    assert found == raw_tree.walk(raw)
    broken = {r.rel_dir: r for r in found}["measured/broken"]
    assert [p.path for p in broken.problems] == ["measured/broken/pipe"]
    # a symlink to a file inside the tree is read, with the size and time of what it leads to
    assert broken.stats["same.json"] == _stat(raw / "measured" / "broken" / "cut.json")
    assert [p.path for p in {r.rel_dir: r for r in found}["measured/good"].problems] == ["measured/good/elsewhere.json"]


def test_an_ingest_with_a_walk_ahead_writes_what_one_without_writes(tmp_path):
    raw = _with_problems(_nested_tree(tmp_path))
    first = Ingestor(raw, tmp_path / "lake-a").run(ahead=raw_tree.start(raw))
    second = Ingestor(raw, tmp_path / "lake-b").run()
    assert (first.runs_seen, first.runs_ingested, len(first.errors)) == \
        (second.runs_seen, second.runs_ingested, len(second.errors)) == (6, 6, len(second.errors))
    assert [str(e) for e in first.errors] == [str(e) for e in second.errors]
    assert lake_digest(tmp_path / "lake-a") == lake_digest(tmp_path / "lake-b")
    # a file changed since: the next walk ahead sees it, and only its run is read again
    fio = raw / "old-logs" / "2019" / "result.json"
    fio.write_text(fio.read_text() + "\n")
    again = Ingestor(raw, tmp_path / "lake-a").run(ahead=raw_tree.start(raw))
    assert (again.runs_ingested, again.runs_unchanged) == (1, 5)


def test_a_walk_ahead_that_is_old_failed_or_of_another_tree_is_walked_again(tmp_path, monkeypatch):
    raw = _nested_tree(tmp_path)
    Ingestor(raw, tmp_path / "lake").run()
    # begun before a run was added, then the lock was slow to come: the ingest walks again
    old = raw_tree.start(raw)
    new_run = raw / "measured" / "late"
    new_run.mkdir()
    (new_run / "run.toml").write_text(MANIFEST.format(run_id="late-run"))
    monkeypatch.setattr(raw_tree, "AHEAD_MAX_AGE_S", 0.0)
    report = Ingestor(raw, tmp_path / "lake").run(ahead=old)
    assert (report.runs_seen, report.runs_ingested) == (7, 1)
    monkeypatch.undo()
    # a child that died: no result, never half a walk
    killed = raw_tree.start(raw)
    killed._proc.kill()
    assert killed.result(raw) is None
    # the walk of another tree
    other = tmp_path / "other"
    shutil.copytree(raw, other)
    assert raw_tree.start(other).result(raw) is None
    # a result is taken once; cancel after it is harmless
    once = raw_tree.start(raw)
    assert once.result(raw) is not None and once.result(raw) is None
    once.cancel()


@pytest.mark.parametrize("argv, walks_ahead, status", [
    # 1: the loose notes.txt at the root is an error (a run named includes the root's files)
    (["ingest", "--quiet"], True, 1),
    (["ingest", "--quiet", "NAMED"], False, 1),
    (["build", "--skip", "dbt", "--skip", "site"], True, 1),
    (["build", "--skip", "dbt", "--skip", "site", "NAMED"], False, 1),
    (["build", "--skip", "ingest", "--skip", "dbt", "--skip", "site"], False, 0),
])
def test_a_command_walks_ahead_only_when_it_ingests_the_whole_tree(tmp_path, monkeypatch, argv, walks_ahead, status):
    from iopscope import cli

    raw = _nested_tree(tmp_path)
    started = []
    real_start = raw_tree.start

    def recording(root):
        started.append(root)
        return real_start(root)

    monkeypatch.setattr(raw_tree, "start", recording)
    argv = [str(raw / "measured" / "good") if a == "NAMED" else a for a in argv]
    assert cli.main([*argv, "--raw", str(raw), "--lake", str(tmp_path / "lake")]) == status
    assert started == ([raw.resolve()] if walks_ahead else [])
