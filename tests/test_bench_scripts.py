"""GPU benchmark scripts keep working: their CPU smoke mode runs end to end on a tiny Wan (no timing
claims; the GPU figures are in bench/results/)."""
import json
import subprocess
import sys

import accel_harness as H


def test_profile_wan_smoke(tmp_path):
    out = tmp_path / "prof"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "profile_wan.py"), "--smoke", "--out", str(out),
                        "--variants", "stock,attn,fp8"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads((out / "profile_wan.json").read_text())
    assert set(res["variants"]) == {"stock", "attn", "fp8"}
    for name, v in res["variants"].items():
        assert "error" not in v, (name, v.get("traceback"))
        assert v["median_ms"] > 0 and v["kernel_total_ms"] > 0 and v["top"]
    assert res["variants"]["attn"]["cosine_vs_first"] > 0.9999  # SDPA on CPU vs ComfyUI's CPU attention
    assert "| stock |" in (out / "profile_wan.md").read_text()
