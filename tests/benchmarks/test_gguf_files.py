"""The benchmarks' random-weight GGUF files (harness/accel_harness/gguf_files.py): Q8_0 blocks bit-equal to the `gguf`
package's reference quantizer (gguf-py's `quants.Q8_0`, which states it is bit-exact with ggml-quants.c), and a Wan
file laid out the way ComfyUI-GGUF's loader reads it (its `general.architecture`, tensor types, and the
`comfy.gguf.orig_shape.<name>` field for tensors of more than 4 dimensions), read back with the `gguf` package's own
reader and dequantizer. ComfyUI-GGUF itself is on no package registry: loading such a file through it and compiling
it with Level-1 is `bench_matrix.py --smoke --workflow lightx2v --chains gguf,gguf_level1` with GGUF_NODES_PATH set
(test_bench_matrix_gguf_smoke below, skipped without it)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from accel_harness.gguf_files import SKIP_REASON

gguf = pytest.importorskip("gguf")


def test_q8_0_blocks_equal_the_reference_quantizer(comfy):
    from accel_harness import gguf_files as G

    g = torch.Generator().manual_seed(0)
    x = torch.randn(48, 256, generator=g) * 3
    x[0, :32] = 0  # an all-zero block: scale 0, values 0
    x[1, :32] = torch.tensor([127.0] + [0.5, -1.5, 2.5, -3.5] * 7 + [4.5, 5.5, -6.5])  # d = 1: exact halves
    x[2, 32:64] = torch.randn(32, generator=g) * 1e-30  # tiny values
    ref = gguf.quants.quantize(x.numpy(), gguf.GGMLQuantizationType.Q8_0)
    got = G.q8_0_blocks(x).numpy()
    assert got.shape == ref.shape == (48, 256 // 32 * 34)
    assert (got == ref).all(), "Q8_0 bytes differ from gguf-py's reference"
    with pytest.raises(ValueError, match="divisible by 32"):
        G.q8_0_blocks(torch.zeros(4, 48))


def test_wan_q8_0_file_as_comfyui_gguf_reads_it(comfy, tmp_path):
    from accel_harness import gguf_files as G
    from accel_harness import models as M

    sd = M.wan_state_dict("t2v", "tiny", seed=0, dtype=torch.bfloat16)
    path = G.wan_q8_0(dict(sd), tmp_path / "wan.gguf")
    r = gguf.GGUFReader(str(path))
    arch = r.get_field("general.architecture")
    assert bytes(arch.parts[arch.data[0]]).decode() == "wan"  # ComfyUI-GGUF's IMG_ARCH_LIST names Wan "wan"
    tensors = {t.name: t for t in r.tensors}
    assert set(tensors) == set(sd)
    Q = gguf.GGMLQuantizationType
    seen = set()
    for k, v in sd.items():
        t = tensors[k]
        field = r.get_field(f"comfy.gguf.orig_shape.{k}")
        shape = (tuple(int(field.parts[i][0]) for i in field.data) if field is not None
                 else tuple(int(s) for s in reversed(t.shape)))
        assert shape == tuple(v.shape), k
        if k.startswith("blocks.") and v.ndim == 2:
            assert t.tensor_type == Q.Q8_0, k
        elif v.ndim <= 1 or v.numel() <= 1024:
            assert t.tensor_type == Q.F32, k
        else:
            assert t.tensor_type == Q.F16, k
            assert (v.ndim > 4) == (field is not None), k
        seen.add(t.tensor_type)
        back = torch.from_numpy(gguf.quants.dequantize(t.data, t.tensor_type).copy()).reshape(v.shape)
        ref = v.float()
        tol = ref.abs().max().item() / 127 if t.tensor_type == Q.Q8_0 else ref.abs().max().item() * 1e-3
        assert (back - ref).abs().max().item() <= tol + 1e-12, k
    assert {Q.Q8_0, Q.F32, Q.F16} <= seen
    assert any(r.get_field(f"comfy.gguf.orig_shape.{k}") is not None for k in sd)  # Wan's 5-D patch embedding


@pytest.mark.skipif(not os.environ.get("GGUF_NODES_PATH"), reason=SKIP_REASON)
def test_bench_matrix_gguf_smoke(comfy, tmp_path):
    """The users' workflow on a Q8_0 GGUF file through ComfyUI-GGUF, stock and with Level-1 (also through its Advanced
    loader with patch_on_device): all run, Level-1 compiles (one graph for both experts, with the LoRA) and stays at the
    stock GGUF model's output."""
    import json

    from accel_harness import REPO_ROOT

    out = tmp_path / "m"
    r = subprocess.run([sys.executable, str(REPO_ROOT / "bench" / "bench_matrix.py"), "--smoke", "--workflow",
                        "lightx2v", "--chains", "gguf,gguf_level1,gguf_pod_level1", "--rounds", "1",
                        "--weights", str(tmp_path / "w"), "--out", str(out)], capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads((out / "matrix.json").read_text())
    assert not res["errors"], res["errors"]
    ch = res["chains"]
    assert ch["gguf_level1"]["compile"][0]["fell_back"] is False and ch["gguf_level1"]["compile"][0]["graphs"] == 1
    assert ch["gguf_level1"]["compile"][1]["graphs"] == 0  # the second expert reuses the first one's graph
    assert abs(ch["gguf_level1"]["cosine"] - ch["gguf"]["cosine"]) < 1e-4
    # ComfyUI-GGUF's Advanced loader with patch_on_device (the LoRA on the compute device): the same model, compiled
    pod = ch["gguf_pod_level1"]
    assert not any(c["fell_back"] for c in pod["compile"]) and abs(pod["cosine"] - ch["gguf"]["cosine"]) < 1e-4


def test_wan_q8_0_file_needs_room_and_leaves_no_partial_file(comfy, tmp_path, monkeypatch):
    """The benchmarks' GGUF expert is not started on a disk without room for it (a 14B expert filled the GPU machine's
    disk once), and a write that fails leaves no truncated file that a later run would load as the expert."""
    import shutil

    from accel_harness import gguf_files as G

    real = shutil.disk_usage
    monkeypatch.setattr(shutil, "disk_usage", lambda p: real(p)._replace(free=1 << 30))
    target = tmp_path / "w" / "wan.gguf"
    with pytest.raises(RuntimeError, match=r"not enough disk .* in .*w: 1\.0 GiB free"):
        G.wan_q8_0_file(target, "t2v", "tiny")
    assert not target.exists()
    monkeypatch.setattr(shutil, "disk_usage", real)

    def failing(sd, path):
        Path(path).write_bytes(b"GGUF truncated")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(G, "wan_q8_0", failing)
    with pytest.raises(OSError):
        G.wan_q8_0_file(target, "t2v", "tiny")
    assert list(target.parent.iterdir()) == []
