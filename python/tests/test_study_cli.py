"""The study commands from a table: args -> exit code, text on stdout / stderr.

{fx} is the fixture directory, {tmp} a fresh directory; the machine has 2 cores and the
fake binaries hk-jacobi and hk-bench (no hk-mz, no hk-mc)."""

from __future__ import annotations

import json
import shutil

import pytest

Q = "{fx}/study/quick"
CASES = [
    (["sweep", "--help"], 0, "--repeat", ""),
    (["study", "--help"], 0, "--quick", ""),
    (["report", "--help"], 0, "--format", ""),
    (["advise", "--help"], 0, "1-m/n <= eps", ""),
    (["compare", "--help"], 0, "--tolerance", ""),
    (["sweep"], 2, "", "the following arguments are required: APP"),
    (["sweep", "nosuchapp", "--cores", "2"], 2, "", "unknown app 'nosuchapp' (known: barrier"),
    (["sweep", "jacobi", "--cores", "4", "--dry-run"], 2, "",
     "hybridkit: error: --cores 4: this machine has 2 cores (use --hosts, --hostfile or "
     "--vcluster for more nodes)"),
    (["sweep", "jacobi", "--cores", "0"], 2, "", "argument --cores: 0 is out of range (allowed: 1 to 8192)"),
    (["sweep", "jacobi", "--cores", "2", "--param", "colour=red", "--dry-run"], 2, "",
     "app 'jacobi' has no parameter 'colour'"),
    (["sweep", "jacobi", "--cores", "2", "--param", "iters", "--dry-run"], 2, "",
     "expected NAME=V1,V2"),
    (["sweep", "jacobi", "--cores", "2", "--modes", "task", "--sizes", "32", "--dry-run",
      "-o", "{tmp}/s"], 0, "todo  jacobi 1x2 mode=task size=32 iters=50", ""),
    (["sweep", "jacobi", "--cores", "2", "--modes", "pure,bogus", "--dry-run"], 2, "",
     "unknown mode 'bogus' for jacobi (choose from pure, pure-nb, masteronly"),
    (["sweep", "jacobi", "--cores", "1", "--modes", "task", "--dry-run"], 2, "",
     "the plan of jacobi is empty"),
    (["sweep", "jacobi", "--cores", "4", "--hosts", "a,b", "--modes", "pure", "--sizes", "8",
      "--dry-run"], 0, "jacobi 8x1 mode=pure size=8", ""),
    (["sweep", "jacobi", "--cores", "2", "--hostfile", "{tmp}/none", "--dry-run"], 2, "",
     "hostfile {tmp}/none does not exist"),
    (["sweep", "jacobi", "--cores", "2", "--launcher", "srun", "--modes", "pure", "--dry-run"],
     0, "todo  jacobi 2x1 mode=pure", ""),
    (["sweep", "beff", "--cores", "2", "--dry-run"], 0, "beff 2x1", ""),
    (["sweep", "beff", "--dry-run"], 0, "beff 4x1 node_size=2", "oversubscribed"),
    (["sweep", "mz", "--cores", "2", "--dry-run"], 1, "", "unknown binary 'hk-mz'"),
    (["study", "--quick", "--dry-run", "-o", "{tmp}/st"], 0, "todo  jacobi 2x1 mode=pure",
     "hybridkit: note: skipping mz: binary hk-mz not found"),
    (["study", "--apps", "jacobi,nope", "--dry-run"], 2, "", "unknown app(s) nope"),
    (["study", "--apps", "mz", "--dry-run"], 1, "", "nothing to run: no app has a binary"),
    (["report", "{tmp}/nothing"], 2, "", "{tmp}/nothing does not exist"),
    (["report", "{tmp}/empty"], 1, "", "no runs under {tmp}/empty"),
    (["report", "{tmp}/corrupt", "-o", "{tmp}/c.md", "--format", "md"], 1,
     "c.md: 1 runs, 1 incomplete", "no complete run under {tmp}/corrupt (1 incomplete: run1: "
     "run.json unreadable: Expecting property name"),
    (["report", "{fx}/study/partial", "-o", "{tmp}/p.md", "--format", "md"], 0,
     "p.md: 6 runs, 4 incomplete (listed in the report)", ""),
    (["report", Q, "-o", "{tmp}/r.md", "--format", "md", "--csv"], 0, "{tmp}/r.csv", ""),
    (["report", Q, "--format", "pdf"], 2, "", "argument --format: invalid choice: 'pdf'"),
    (["advise", Q], 0, "recommendation: 1 x 2 (processes x threads), mode funneled", ""),
    (["advise", Q + "/runs/pingpong"], 1, "", "nothing to advise on"),
    (["compare", Q, Q], 0, "# no regression beyond 10% in", ""),
    (["compare", Q, "{tmp}/slower"], 1, "regression  jacobi 2x1",
     "hybridkit: error: 5 regression(s) beyond 10%"),
    (["compare", Q, "{tmp}/slower", "--tolerance", "0.5"], 0, "ok          jacobi", ""),
    (["compare", Q + "/runs/barrier", Q + "/runs/pingpong"], 1, "",
     "no common configuration between"),
    (["compare", Q, Q, "--tolerance", "x"], 2, "", "argument --tolerance: not a number"),
]


def slower_copy(src, dst, factor):
    """A copy of a study whose jacobi runs are `factor` times slower."""
    shutil.copytree(src, dst)
    for path in (dst / "runs" / "jacobi").glob("*/records.jsonl"):
        records = [json.loads(line) for line in path.read_text().splitlines()]
        for r in records:
            r["results"]["mlups"]["value"] /= factor
        path.write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.fixture
def tmp_dirs(tmp_path, fixtures):
    (tmp_path / "empty").mkdir()
    corrupt = tmp_path / "corrupt" / "run1"
    corrupt.mkdir(parents=True)
    (corrupt / "run.json").write_text("{broken")
    (corrupt / "records.jsonl").write_text("not json\n")
    slower_copy(fixtures / "study" / "quick", tmp_path / "slower", 1.25)
    return tmp_path


@pytest.mark.parametrize("args,code,out,err", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_study_cli(cli, study_bin, fixtures, tmp_dirs, args, code, out, err):
    subst = {"fx": str(fixtures), "tmp": str(tmp_dirs)}
    result = cli([a.format(**subst) for a in args])
    assert result.code == code, result
    assert out.format(**subst) in result.out
    assert err.format(**subst) in result.err
    if code != 0:
        errors = [line for line in result.err.splitlines() if line.startswith("hybridkit: e")]
        assert len(errors) == 1 and errors[0].startswith("hybridkit: error: "), result.err
        assert "Traceback" not in result.err


def test_report_keeps_incomplete_runs_listed(cli, study_bin, fixtures, tmp_path):
    result = cli(["report", str(fixtures / "study" / "partial"), "-o", str(tmp_path / "p.md"),
                  "--format", "md"])
    assert result.code == 0
    md = (tmp_path / "p.md").read_text()
    section = md[md.index("## Incomplete runs"):]
    for status, why in [("unfinished", "did not finish"), ("failed", "verification failed"),
                        ("corrupt", "run.json unreadable"),
                        ("invalid-records", "line 4: not JSON")]:
        assert f"| {status} | " in section and why in section, (status, section)
    # the halo run's three valid lines are kept for the CSV, but not plotted
    assert "1x2-mode_masteronly" in md


def test_compare_ignores_superseded_attempts(cli, study_bin, fixtures, tmp_path):
    """A sweep keeps the attempts it ran again beside the run (<id>.busy-N, <id>.attempt-N):
    they are no missing measurement; compare judges the runs themselves."""
    dst = tmp_path / "with_attempts"
    shutil.copytree(fixtures / "study" / "quick", dst)
    run = next(p for p in sorted((dst / "runs" / "jacobi").iterdir()) if p.is_dir())
    for tag, status in (("busy-1", "busy-repeated"), ("attempt-1", "failed")):
        aside = run.with_name(f"{run.name}.{tag}")
        shutil.copytree(run, aside)
        info = json.loads((aside / "run.json").read_text())
        info.update(status=status, message="kept aside")
        (aside / "run.json").write_text(json.dumps(info))
    result = cli(["compare", str(fixtures / "study" / "quick"), str(dst)])
    assert result.code == 0, result
    assert "# no regression beyond 10% in" in result.out
