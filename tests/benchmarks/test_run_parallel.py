"""bench/run_parallel.sh (the two-GPU helper of the device runs): each list runs with its own CUDA_VISIBLE_DEVICES,
$RES and the shared-host note, and what comes back is every list's markdown, one archive with every JSON and
bench_e2e.py's server consoles, and the logs' tails. Run on the CPU with a stand-in for bench/gpu_env.sh (the real one
unpacks the GPU machine's carry)."""
import shutil
import subprocess
import tarfile

import accel_harness as H


def test_two_lists_bring_back_markdown_json_and_server_logs(tmp_path):
    (tmp_path / "bench").mkdir()
    shutil.copy(H.REPO_ROOT / "bench" / "run_parallel.sh", tmp_path / "bench" / "run_parallel.sh")
    (tmp_path / "bench" / "gpu_env.sh").write_text("export ACCEL_STANDIN_ENV=1\n")
    list0 = ('mkdir -p $RES/e2e/server_logs && echo "{\\"gpu\\": \\"$CUDA_VISIBLE_DEVICES\\", \\"shared\\": '
             '\\"$ACCEL_BENCH_SHARED_HOST\\", \\"env\\": \\"$ACCEL_STANDIN_ENV\\"}" > $RES/e2e/e2e.json && '
             'echo "# e2e" > $RES/e2e/e2e.md && echo console > $RES/e2e/server_logs/stock.log && '
             'echo scratch > $RES/e2e/other.log')
    list1 = 'mkdir -p $RES/m && echo "{}" > $RES/m/matrix.json && echo "# m" > $RES/m/matrix.md && echo done-one'
    out = tmp_path / "out"
    r = subprocess.run(["bash", "bench/run_parallel.sh", "60", list0, list1], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "OUT": str(out)})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "list 0 rc=0" in r.stdout and "list 1 rc=0" in r.stdout
    assert (out / "0_e2e_e2e.md").read_text() == "# e2e\n" and (out / "1_m_matrix.md").read_text() == "# m\n"
    with tarfile.open(out / "json.tgz") as tgz:
        names = {n.lstrip("./") for n in tgz.getnames() if not tgz.getmember(n).isdir()}
        assert names == {"0/e2e/e2e.json", "0/e2e/server_logs/stock.log", "1/m/matrix.json"}, names
        meta = tgz.extractfile(next(m for m in tgz.getmembers() if m.name.endswith("e2e.json"))).read().decode()
    assert '"gpu": "0"' in meta and '"env": "1"' in meta and "list 0 of 2 run side by side" in meta
    assert "done-one" in (out / "logs.txt").read_text()
