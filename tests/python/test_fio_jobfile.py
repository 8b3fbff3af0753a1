"""fio job files: [global] inheritance, groups, comments, ${VAR} and keyword expansion, detection."""

from __future__ import annotations

import pytest

from iopscope import parsers
from iopscope.parsers import ParseError, fio_jobfile


def _jobs(text, **kw):
    return fio_jobfile.read_jobfile(text, **kw).tables["fio_jobfile_jobs"]


def test_global_sections_affect_only_the_jobs_below_them():
    jobs = _jobs("[global]\nbs=8k\nrw=randread\n[a]\n[global]\nbs=64k\n[b]\nbs=1m\n[c]\n")
    assert [(j["job_name"], j["block_size_bytes"], j["rw"]) for j in jobs] == \
        [("a", 8192, "randread"), ("b", 1048576, "randread"), ("c", 65536, "randread")]


def test_repeated_option_last_one_wins_and_every_line_is_kept():
    r = fio_jobfile.parse("[j]\nrw=randrw\nrw=rw\nrwmixwrite=30\n")
    assert [o["value"] for o in r.tables["fio_job_options"]] == ["randrw", "rw", "30"]
    job = r.tables["fio_jobfile_jobs"][0]
    assert job["rw"] == "rw" and job["read_pct"] == 70.0


def test_groups_follow_stonewall_and_new_group():
    # A stonewall on the first job does not open a second group (fio's rule).
    jobs = _jobs("[a]\nstonewall\n[b]\n[c]\nnew_group\n[d]\nstonewall=1\n[e]\nstonewall=0\n")
    assert [j["group_index"] for j in jobs] == [0, 0, 1, 2, 2]
    # stonewall in [global]: every job its own group.
    assert [j["group_index"] for j in _jobs("[global]\nstonewall\n[a]\n[b]\n[c]\n")] == [0, 1, 2]


def test_comments_whole_line_and_inline_with_non_ascii():
    r = fio_jobfile.parse("; Größe\n# 日本語\n[j]   ; the job — ü\nbs=4k ; vier KiB\n"
                          "filename=/data/a#b.dat\ndirect=1# é\n")
    opts = r.tables["fio_job_options"]
    assert [(o["option"], o["value"], o["comment"]) for o in opts] == [
        ("bs", "4k", "vier KiB"), ("filename", "/data/a", "b.dat"), ("direct", "1", "é")]
    assert r.tables["fio_jobfile_jobs"][0]["job_name"] == "j"


def test_environment_is_never_read(monkeypatch):
    monkeypatch.setenv("RW", "randwrite")
    r = fio_jobfile.parse("[j]\nrw=${RW}\nbs=${BS}\n")
    job = r.tables["fio_jobfile_jobs"][0]
    assert job["rw"] == "${RW}" and job["read_pct"] is None and job["block_size_bytes"] is None
    assert job["unresolved"] == "${BS},${RW}" and r.facts["unresolved"] == ["${BS}", "${RW}"]
    known = fio_jobfile.read_jobfile("[j]\nrw=${RW}\nbs=${BS}\n", env={"RW": "read", "BS": "16k"})
    option = known.tables["fio_job_options"][0]
    assert (option["value_raw"], option["value"], option["unresolved"]) == ("${RW}", "read", None)
    assert known.tables["fio_jobfile_jobs"][0]["block_size_bytes"] == 16384


def test_keywords_and_expressions():
    text = "[j]\nnumjobs=$ncpus*2\nsize=$mb_memory\niodepth=(4*8)+1\nrate_iops=(2^10)\ncpus_allowed=0-3\n"
    r = fio_jobfile.parse(text)
    values = {o["option"]: o["value"] for o in r.tables["fio_job_options"]}
    assert values["numjobs"] == "$ncpus*2" and values["size"] == "$mb_memory"
    assert values["iodepth"] == "33"  # fio evaluates a value that opens with '('
    assert values["rate_iops"] == "1024" and values["cpus_allowed"] == "0-3"
    assert r.tables["fio_jobfile_jobs"][0]["numjobs"] is None
    known = fio_jobfile.read_jobfile(text, facts={"ncpus": 4, "mb_memory": 16000})
    values = {o["option"]: o["value"] for o in known.tables["fio_job_options"]}
    assert values["numjobs"] == "8" and values["size"] == "16000"
    job = known.tables["fio_jobfile_jobs"][0]
    assert job["numjobs"] == 8 and job["iodepth"] == 33 and job["outstanding_ios"] == 264


def test_evaluator_is_safe():
    assert fio_jobfile._evaluate("(1+2)*3") == 9
    assert fio_jobfile._evaluate("7%4") == 3
    assert fio_jobfile._evaluate("2^3^2") == 512
    assert fio_jobfile._evaluate("-4+10/4") == -1.5
    for bad in ("2^1000", "1/0", "(1+2", "1+", "__import__('os')", "1 2", ""):
        assert fio_jobfile._evaluate(bad) is None, bad


def test_flags_bare_and_valued():
    job = _jobs("[j]\ntime_based\ngroup_reporting=0\ndirect=0\n")[0]
    assert job["time_based"] is True and job["group_reporting"] is False and job["direct"] is False


def test_lines_fio_would_reject_are_reported():
    r = fio_jobfile.parse("rw=read\n[j]\ninclude other.fio\n==oops\n")
    assert [(i.line, i.severity) for i in r.issues] == [(1, "warning"), (3, "warning"), (4, "warning")]
    assert r.tables["fio_job_options"][0]["option"] == "include"


def test_no_section_is_not_a_job_file():
    with pytest.raises(ParseError):
        fio_jobfile.parse("rw=read\nbs=4k\n")


@pytest.mark.parametrize("text,name", [
    ("[mysqld]\ninnodb_buffer_pool_size=8G\ninnodb_io_capacity=2000\nport=3306\n", "my.cnf"),
    ('[run]\nrw = "randread"\nbs = "4k"\n', "run.toml"),
    ("[section]\nsize=1\n", "settings.ini"),
    ("j: (g=0): rw=read, bs=4K-4K/4K-4K/4K-4K, ioengine=sync, iodepth=1\n[x]\nrw=read\nbs=4k\n", "out.txt"),
])
def test_detect_leaves_other_ini_files_alone(text, name):
    assert fio_jobfile.detect(text, name) == 0.0


def test_detect_recognises_job_files_by_their_options():
    assert fio_jobfile.detect("[global]\nioengine=libaio\niodepth=8\n[j]\n", "x.conf") >= 0.8
    assert fio_jobfile.detect("; c\n[j]\nrw=read\nfilename=/dev/sdb\n", "bench.job") >= 0.8
    module, _ = parsers.detect("[j]\nrw=randread\nbs=4k\n", "job.ini")
    assert module is fio_jobfile
