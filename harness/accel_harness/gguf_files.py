"""Random-weight GGUF files in the layout ComfyUI-GGUF (city96's pack) loads: what users of the `*-Q8_0.gguf` Wan
files run through its "Unet Loader (GGUF)" node. For benchmarks and tests only; no weights are downloaded.

The layout follows ComfyUI-GGUF's own converter (`tools/convert.py`: `general.architecture` = the model family,
1-D and small tensors in F32, tensors of more than 4 dimensions stored flattened with their shape in a
`comfy.gguf.orig_shape.<name>` field) and llama.cpp's Q8_0 quantization of the 2-D weights (blocks of 32 values: one
float16 scale `d` = amax / 127, 32 int8 `round(x / d)`, rounded half away from zero). The Q8_0 blocks are computed
with torch (a 14B model on the GPU in seconds, where `gguf.quants.quantize` in numpy takes minutes) and checked
bit-equal to the `gguf` package's reference (tests/benchmarks/test_gguf_files.py). Which 2-D tensors a published
Q8_0 file keeps in higher precision was not checked against one (none can be downloaded here): every 2-D weight whose
rows split into whole blocks is Q8_0 here.
"""
from __future__ import annotations

from pathlib import Path

import torch

# Why the tests that need ComfyUI-GGUF skip on CI, and where the chains they check ran.
SKIP_REASON = ("ComfyUI-GGUF is on no package registry, so no machine here can install it for CI; its chains ran on "
               "the GPU machine with bench/prepare_gguf_carry.sh's carry (bench/results/h100/wf_lightx2v_033/"
               "gguf_80GB/matrix.json). Set GGUF_NODES_PATH to a checkout of city96/ComfyUI-GGUF to run this")
QK8_0 = 32  # values per Q8_0 block
_SMALL = 1024  # ComfyUI-GGUF's QUANTIZATION_THRESHOLD: tensors this small stay F32


def q8_0_blocks(t: torch.Tensor) -> torch.Tensor:
    """`t` (last dim a multiple of 32) as Q8_0 bytes: uint8 of shape (*t.shape[:-1], t.shape[-1] // 32 * 34), each
    block its float16 scale then its 32 int8 values: the bytes `gguf.quants.quantize(t, Q8_0)` returns (the same float32
    operations, on `t`'s device)."""
    if t.shape[-1] % QK8_0:
        raise ValueError(f"Q8_0 needs a last dimension divisible by {QK8_0}, got shape {tuple(t.shape)}")
    lead = t.shape[:-1]
    blocks = t.detach().float().reshape(-1, QK8_0)
    d = blocks.abs().amax(dim=1, keepdim=True) / 127
    inv = torch.where(d == 0, torch.zeros_like(d), 1 / d)
    x = blocks * inv
    a = x.abs()
    floored = torch.floor(a)
    q = torch.sign(x) * (floored + torch.floor(2 * (a - floored)))  # gguf's np_roundf: half away from zero
    out = torch.cat([d.to(torch.float16).view(torch.uint8), q.to(torch.int8).view(torch.uint8)], dim=1)
    return out.reshape(*lead, t.shape[-1] // QK8_0 * (QK8_0 + 2))


def write_gguf(sd: dict, path, arch: str, quantize=lambda key, t: t.ndim == 2) -> Path:
    """Write `sd` (name -> tensor, any device) as a GGUF file ComfyUI-GGUF loads: tensors `quantize(key, t)` picks (and
    whose rows split into Q8_0 blocks, more than 1024 values) as Q8_0, 1-D and small ones as F32, the rest as F16 (more
    than 4 dimensions: flattened to 2-D, the shape in `comfy.gguf.orig_shape.<name>`). Returns the path. Needs the
    `gguf` package (the registry's; ComfyUI-GGUF requires it too)."""
    import gguf

    path = Path(path)
    w = gguf.GGUFWriter(path=None, arch=arch)
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0)
    for key, t in sd.items():
        n = t.numel()
        if t.ndim >= 2 and n > _SMALL and t.shape[-1] % QK8_0 == 0 and quantize(key, t):
            w.add_tensor(key, q8_0_blocks(t).cpu().numpy(), raw_dtype=gguf.GGMLQuantizationType.Q8_0)
        elif t.ndim <= 1 or n <= _SMALL:
            w.add_tensor(key, t.detach().float().cpu().numpy(), raw_dtype=gguf.GGMLQuantizationType.F32)
        else:
            data = t.detach().to(torch.float16).cpu()
            if data.ndim > 4:
                w.add_array(f"comfy.gguf.orig_shape.{key}", [int(s) for s in t.shape])
                data = data.reshape(t.shape[0], -1)
            w.add_tensor(key, data.numpy(), raw_dtype=gguf.GGMLQuantizationType.F16)
    tmp = path.with_suffix(".partial")
    w.write_header_to_file(path=tmp)
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    tmp.replace(path)
    return path


def wan_q8_0(sd: dict, path) -> Path:
    """A Wan state dict (ComfyUI's key layout) as a Q8_0 GGUF file, the way the published Wan `*-Q8_0.gguf` files
    quantize: the 2-D weights of the transformer blocks (their Linears) in Q8_0."""
    return write_gguf(sd, path, "wan", quantize=lambda key, t: key.startswith("blocks.") and t.ndim == 2)


def wan_q8_0_file(path, variant: str, size: str, device="cpu") -> float | None:
    """The benchmarks' random Wan expert (accel_harness.models.wan_state_dict: bf16, seed 0, the weights of their
    fp8_scaled file before quantization) as a Q8_0 GGUF file at `path`, written unless it exists. Returns the seconds
    it took, or None when the file was there.

    The file is written beside `path` under a temporary name and renamed when whole, so a write that fails (a full
    disk: a 14B expert is ~15 GiB) leaves no truncated file that a later run would take for the expert; and it is not
    started where the disk lacks the room (`check_room`)."""
    import os
    import time

    from . import models as M

    path = Path(path)
    if path.exists():
        return None
    t0 = time.perf_counter()
    sd = M.wan_state_dict(variant, size, seed=0, dtype=torch.bfloat16, device=device)
    check_room(path.parent, sum(t.numel() for t in sd.values()) * 34 // 32)
    part = path.with_name(path.name + ".part")
    try:
        wan_q8_0(sd, part)
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)
    return time.perf_counter() - t0


def check_room(folder, need_bytes: int, margin=2 << 30) -> None:
    """Raise (naming the folder, what it needs and what to do) unless `folder`'s disk has `need_bytes` free and a margin
    beside them for what else the run writes (outputs, caches)."""
    import shutil

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(folder).free
    if free < need_bytes + margin:
        raise RuntimeError(f"not enough disk for a {need_bytes / 2**30:.1f} GiB GGUF file in {folder}: "
                           f"{free / 2**30:.1f} GiB free (with {margin / 2**30:.0f} GiB kept for the run's other "
                           "files). Delete files there, or point the benchmark's weights folder (--weights / --base) "
                           "at a disk with room.")
