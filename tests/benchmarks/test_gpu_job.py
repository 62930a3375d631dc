"""bench/gpu_job.sh: a plan of benchmark steps run detached, one after another, each with `--out` appended, its own
console log and a time limit; `wait` reports, `pack` puts the results into one archive. Run here with plain shell
steps (no GPU environment)."""
import os
import subprocess
import tarfile
import time

import accel_harness as H

SCRIPT = H.REPO_ROOT / "bench" / "gpu_job.sh"


def job(tmp_path, *args, timeout=60):
    env = {**os.environ, "ACCEL_JOB_DIR": str(tmp_path / "job"), "ACCEL_JOB_ENV": "", "OUT": str(tmp_path / "out")}
    return subprocess.run(["bash", str(SCRIPT), *args], cwd=H.REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_a_plan_runs_detached_step_by_step(tmp_path):
    slow = tmp_path / "slow.py"  # stopped at its limit with SIGINT, as Ctrl-C stops it
    slow.write_text("import sys, time\ntry:\n    time.sleep(20)\nexcept KeyboardInterrupt:\n    print('stopped')\n"
                    "    sys.exit(3)\n")
    plan = tmp_path / "plan.txt"
    plan.write_text(
        "# a comment, then a step that writes its result where --out says\n"
        "first 30 bash -c 'mkdir -p \"$2\" && echo \"{\\\"ok\\\": 1}\" > \"$2/r.json\" && echo wrote' _\n"
        f"! touch {tmp_path}/between\n"
        "\n"
        f"slow 1 python3 {slow}\n"
        "where 30 bash -c 'pwd; test -f bench/gpu_job.sh && echo has-the-tree' _\n"
        "last 30 bash -c 'echo \"$1 $2\"' _\n")
    r = job(tmp_path, "start", str(plan))
    assert r.returncode == 0 and "started 4 step(s)" in r.stdout, r.stdout + r.stderr
    again = job(tmp_path, "start", str(plan))  # one plan at a time
    assert again.returncode == 2 and "still running" in again.stdout
    t0 = time.time()
    r = job(tmp_path, "wait", "45")
    assert r.returncode == 0 and "gpu_job: done" in r.stdout, r.stdout + r.stderr
    assert time.time() - t0 < 40  # the slow step was stopped at its limit
    res = tmp_path / "job" / "res"
    status = (tmp_path / "job" / "status").read_text().splitlines()
    assert [s.split()[:2] for s in status] == [["first", "rc=0"], ["slow", "rc=124"], ["where", "rc=0"],
                                               ["last", "rc=0"]]
    # the steps ran in a copy of the tree taken at the start (a later device call's copy of the working tree cannot
    # reach them), without the hidden folders (the carried archives)
    assert (res / "where" / "log.txt").read_text().split() == [str(tmp_path / "job" / "src"), "has-the-tree"]
    assert not (tmp_path / "job" / "src" / ".git").exists()
    assert (res / "first" / "r.json").read_text().strip() == '{"ok": 1}'
    assert (res / "first" / "log.txt").read_text().strip() == "wrote"
    assert (res / "slow" / "log.txt").read_text().strip() == "stopped"  # SIGINT reached it (not ignored)
    assert (tmp_path / "between").exists()
    assert (res / "last" / "log.txt").read_text().strip() == f"--out {res / 'last'}"
    r = job(tmp_path, "pack")
    assert r.returncode == 0, r.stdout + r.stderr
    with tarfile.open(tmp_path / "out" / "res.tar.xz") as t:
        names = set(t.getnames())
    assert {"res/first/r.json", "res/first/log.txt", "res/last/log.txt", "res/status.txt"} <= names


def test_usage_and_a_missing_plan(tmp_path):
    r = job(tmp_path)
    assert r.returncode == 2 and "gpu_job.sh start PLAN" in r.stdout
    r = job(tmp_path, "start", str(tmp_path / "nope.txt"))
    assert r.returncode == 2 and "no plan file" in r.stdout
