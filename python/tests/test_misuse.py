"""Misuse of the hybridkit CLI from a table (issue 16): bad records, run.json, study.json and
run sets give one `hybridkit: error:` line naming the file (and the field), the exit code of
a failure, no traceback, within 10 s.

Each case runs `python -m hybridkit ARGS` in a subprocess (a hang is caught by the time
limit, a traceback by its text); SETUPS make the inputs in a fresh directory {tmp} from the
quick study fixture {fx}."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from conftest import PYTHON, python_env

Q = "{fx}/study/quick"
JACOBI_RUN = "runs/jacobi/2x1-mode_pure-size_96-iters_30"


def _deep(n: int) -> str:
    return "[" * n + "]" * n


def _study_copy(fx, tmp, name, edit_record=None, edit_file=None):
    dst = tmp / name
    shutil.copytree(fx / "study" / "quick", dst)
    for path in (dst / "runs" / "jacobi").glob("*/records.jsonl"):
        records = [json.loads(line) for line in path.read_text().splitlines()]
        for r in records:
            edit_record(r)
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return dst


def _nan(r):
    r["results"]["mlups"]["value"] = float("nan")  # json.dumps writes NaN


def _null(r):
    r["results"]["mlups"]["value"] = None


def _drop(r):
    del r["results"]["mlups"]


def _one_run(fx, tmp, name, run_json):
    run = tmp / name / "run1"
    shutil.copytree(fx / "study" / "quick" / JACOBI_RUN, run)
    (run / "run.json").write_text(run_json)


def setup(fx, tmp):
    (tmp / "deep.jsonl").write_text(_deep(100000) + "\n")
    (tmp / "nan.jsonl").write_text('{"schema_version": NaN}\n')
    os.mkfifo(tmp / "fifo.jsonl")
    deep = tmp / "deep" / "run1"
    deep.mkdir(parents=True)
    (deep / "run.json").write_text('{"exit_code": 0}')
    (deep / "records.jsonl").write_text(_deep(100000) + "\n")
    info = json.loads((fx / "study" / "quick" / JACOBI_RUN / "run.json").read_text())
    _one_run(fx, tmp, "npabc", json.dumps(dict(info, np="abc")))
    _one_run(fx, tmp, "deeprunjson", '{"np": ' + _deep(100000) + "}")
    _one_run(fx, tmp, "runjsonlist", "[1]")
    study = tmp / "studylist"
    shutil.copytree(fx / "study" / "quick", study)
    (study / "study.json").write_text("[1]")
    study = tmp / "studydeep"
    shutil.copytree(fx / "study" / "quick", study)
    (study / "study.json").write_text(_deep(100000))
    study = tmp / "studyplan"
    shutil.copytree(fx / "study" / "quick", study)
    (study / "study.json").write_text('{"plan": 5}')
    _study_copy(fx, tmp, "nan", _nan)
    _study_copy(fx, tmp, "null", _null)
    _study_copy(fx, tmp, "dropped", _drop)


# args, exit code, text the one error line must hold
CASES = [
    (["records", "validate", "{tmp}/deep.jsonl"], 1,
     "{tmp}/deep.jsonl:1: not JSON: nested more than 64 levels deep"),
    (["records", "validate", "{tmp}/nan.jsonl"], 1, "{tmp}/nan.jsonl:1: not JSON: NaN is not JSON"),
    (["records", "validate", "{tmp}/fifo.jsonl"], 1, "{tmp}/fifo.jsonl: not a regular file"),
    (["records", "validate", "{tmp}"], 1, "{tmp}: not a regular file"),
    (["report", "{tmp}/deep", "-o", "{tmp}/r.md", "--format", "md"], 1,
     "line 1: not JSON (nested more than 64 levels deep)"),
    (["advise", "{tmp}/deep"], 1, "line 1: not JSON (nested more than 64 levels deep)"),
    (["report", "{tmp}/npabc", "-o", "{tmp}/r.md", "--format", "md"], 1,
     "run.json invalid: {tmp}/npabc/run1/run.json: field np: 'abc' is not of type"),
    (["advise", "{tmp}/npabc"], 1,
     "run.json invalid: {tmp}/npabc/run1/run.json: field np: 'abc' is not of type"),
    (["compare", "{tmp}/npabc", "{tmp}/npabc"], 1, "{tmp}/npabc/run1/run.json: field np"),
    (["report", "{tmp}/deeprunjson", "-o", "{tmp}/r.md", "--format", "md"], 1,
     "run.json unreadable: nested more than 64 levels deep"),
    (["advise", "{tmp}/runjsonlist"], 1,
     "run.json invalid: {tmp}/runjsonlist/run1/run.json: [1] is not of type 'object'"),
    (["report", "{tmp}/studylist", "-o", "{tmp}/r.md", "--format", "md"], 1,
     "{tmp}/studylist/study.json: [1] is not of type 'object'"),
    (["report", "{tmp}/studydeep", "-o", "{tmp}/r.md", "--format", "md"], 1,
     "{tmp}/studydeep/study.json: not JSON: nested more than 64 levels deep"),
    (["report", "{tmp}/studyplan", "-o", "{tmp}/r.md", "--format", "md"], 1,
     "{tmp}/studyplan/study.json: field plan: 5 is not of type 'array'"),
    (["compare", Q, "{tmp}/nan"], 1, "run set B ({tmp}/nan) has 5 run(s) without a usable metric"),
    (["compare", "{tmp}/nan", Q], 1, "run set A ({tmp}/nan) has 5 run(s) without a usable metric"),
    (["compare", Q, "{tmp}/null"], 1, "run set B ({tmp}/null) has 5 run(s) without a usable metric"),
    (["compare", Q, "{tmp}/dropped"], 1, "set B lacks metric mlups of jacobi"),
]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    from conftest import FIXTURES

    tmp = tmp_path_factory.mktemp("misuse")
    setup(FIXTURES, tmp)
    return tmp


@pytest.mark.parametrize("args,code,text", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_misuse(inputs, fixtures, args, code, text):
    subst = {"fx": str(fixtures), "tmp": str(inputs)}
    argv = [a.format(**subst) for a in args]
    env = python_env(HK_APPS_PATH="")
    env.pop("HK_APPS_PATH")
    try:
        proc = subprocess.run([PYTHON, "-m", "hybridkit", *argv], capture_output=True, text=True,
                              timeout=10, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hybridkit {' '.join(argv)}: still running after 10 s")
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("hybridkit: error:")]
    assert len(errors) == 1, proc.stderr
    assert text.format(**subst) in errors[0], proc.stderr


# broken app descriptions in HK_APPS_PATH: only that app is left out, with one warning naming
# the file and the field; the other apps still sweep
APP_TOP = 'name = "broken"\nbinary = "hk-jacobi"\nkind = "jacobi"\n'
APP_ARGS = 'args = ["--size", "{size}"]\n'
APP_METRIC = '[metric]\nvalue = "mlups"\nunit = "MLUP/s"\n'
APP_SETS = '[quick]\ncores = ["max"]\nsize = [8]\n[full]\ncores = ["max"]\nsize = [8]\n'
APP_CASES = {
    "metric5": (APP_TOP + APP_ARGS + "metric = 5\n" + APP_SETS,
                "field metric: 5 is not of type 'object'"),
    "quick3": (APP_TOP + APP_ARGS + "quick = 3\n" + APP_METRIC
               + '[full]\ncores = ["max"]\nsize = [8]\n', "field quick: 3 is not of type 'object'"),
    "constraints5": (APP_TOP + APP_ARGS + "constraints = 5\n" + APP_METRIC + APP_SETS,
                     "field constraints: 5 is not of type 'object'"),
    "args5": (APP_TOP + "args = 5\n" + APP_METRIC + APP_SETS,
              "field args: 5 is not of type 'array'"),
    "brace": (APP_TOP + 'args = ["--size", "{size"]\n' + APP_METRIC + APP_SETS,
              "field args.1: '{size': expected '}'"),
    "better": (APP_TOP + APP_ARGS + APP_METRIC + 'better = "faster"\n' + APP_SETS,
               "field metric.better: 'faster' is not one of"),
    "timeout": (APP_TOP + APP_ARGS + "timeout = -1\n" + APP_METRIC + APP_SETS,
                "field timeout: -1 is less than or equal to the minimum of 0"),
    "toml": (APP_TOP + "args = [\n", "cannot read app description"),
}


@pytest.mark.parametrize("case", sorted(APP_CASES))
@pytest.mark.parametrize("app,code", [("broken", 2), ("jacobi", 0)])
def test_broken_app_description(tmp_path, case, app, code):
    text, why = APP_CASES[case]
    (tmp_path / "broken.toml").write_text(text)
    proc = subprocess.run([PYTHON, "-m", "hybridkit", "sweep", app, "--cores", "2", "--dry-run",
                           "-o", str(tmp_path / "out")], capture_output=True, text=True,
                          timeout=10, env=python_env(HK_APPS_PATH=str(tmp_path)),
                          stdin=subprocess.DEVNULL)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    warnings = [line for line in proc.stderr.splitlines() if "left out" in line]
    assert len(warnings) == 1 and str(tmp_path / "broken.toml") in warnings[0], proc.stderr
    assert why in warnings[0], proc.stderr
    if code:
        assert "unknown app 'broken'" in proc.stderr
