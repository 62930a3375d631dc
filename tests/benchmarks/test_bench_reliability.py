"""bench/bench_reliability.py --smoke: the GPU fault paths of issue #29 item 6 on a live ComfyUI (main.py) on the CPU,
tiny models, every fault injected: each case ends as the user should see it and the next prompt runs.
One run of the script (one process; each case starts its own server): the cases share the model file and the persistent
compile cache that compile_oom fills, which a new server must read as it is (corrupt_cache damages its own copy)."""
import json
import subprocess
import sys

import pytest

import accel_harness as H


@pytest.mark.timeout(1800)
def test_bench_reliability_smoke(comfy, tmp_path):
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_reliability.py"), "--smoke", "--out",
                        str(out), "--base", str(tmp_path / "base")], capture_output=True, text=True, timeout=1700)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    data = json.loads((out / "reliability.json").read_text())
    cases = {c["case"]: c for c in data["cases"]}
    assert set(cases) == {"compile_oom", "fp8_oom", "interrupt_compile", "compile_error", "corrupt_cache",
                          "multigpu_kill", "multigpu_oom"}
    assert cases["multigpu_oom"]["skipped"].startswith("a real out-of-memory needs GPUs"), cases["multigpu_oom"]
    for name, c in cases.items():
        if c.get("skipped"):
            assert name.startswith("multigpu_"), c
            continue
        assert c["ok"] is True and c["next_prompt_ran"] is True, (name, json.dumps(c, indent=1)[:4000])
    base = tmp_path / "base"
    assert not [p.name for p in base.iterdir() if p.name.startswith("compile-cache.damaged-")], \
        "a new server took the shared warm compile cache for damaged"
    for name, c in cases.items():
        if name != "corrupt_cache":
            reports = " ".join(" ".join(p.get("reports", {}).values()) for p in c.get("prompts", []))
            assert "damaged" not in reports and "EAGER" not in reports.replace("FELL BACK TO EAGER", ""), (
                name, reports)
    first = cases["compile_oom"]["prompts"][0]
    assert first["error_type"].endswith("OutOfMemoryError")
    assert first["error_text"].startswith("[Accel Compile] out of memory")
    assert "--reserve-vram" in first["error_text"]
    assert cases["interrupt_compile"]["prompts"][0]["status"] == "interrupted"
    fell_back = " ".join(cases["compile_error"]["prompts"][0]["reports"].values())
    assert "FELL BACK TO EAGER" in fell_back and "injected by bench_reliability" in fell_back
    assert "[Accel Compile]" in cases["compile_error"]["prompts"][1]["error_text"]
    damaged = " ".join(cases["corrupt_cache"]["prompts"][-1]["reports"].values())
    assert "a damaged file in the compile cache" in damaged and "ran compiled" in damaged, damaged
    assert any(n.startswith("compile-cache.damaged-") for n in cases["corrupt_cache"]["cache_folders"])
    assert cases["corrupt_cache"]["damaged_files"] > 0
    if not cases["multigpu_kill"].get("skipped"):
        assert "was killed by SIGKILL" in cases["multigpu_kill"]["prompts"][1]["error_text"]
    md = (out / "reliability.md").read_text()
    assert "| compile_oom | True | True |" in md and "```" in md
