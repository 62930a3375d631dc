"""Build a `Kernel` for any registry backend (`build_kernel`) and check that it really works on this
machine (`probe_kernel`). The registry says what a backend needs; this module knows which adapter
module serves it. Nothing is imported until a kernel is built.
"""
from __future__ import annotations

import threading

from . import registry
from .base import BHLD, BLHD, Kernel, invoke, reference, to_layout

# registry backend -> adapter module (relative name) ; every registry name must appear here
ADAPTERS = {
    "sdpa": "sdpa", "sdpa_cudnn": "sdpa", "sdpa_flash": "sdpa", "sdpa_efficient": "sdpa", "sdpa_math": "sdpa",
    "flash_attn_2": "flash", "flash_attn_3": "flash", "flash_attn_4": "flash",
    "sage": "sage", "sageattn_qk_int8_pv_fp16_triton": "sage", "sageattn_qk_int8_pv_fp16_cuda": "sage",
    "sageattn_qk_int8_pv_fp8_cuda": "sage", "sageattn_qk_int8_pv_fp8_cuda_sm90": "sage", "sage3": "sage",
    "xformers": "xformers_ops",
    "flash_attn_3_fp8": "fp8_attention", "comfy_kitchen_int8": "comfy_registered",
    "radial_sparse": "radial",
}

_built: dict = {}
_probed: dict = {}
_lock = threading.RLock()


def _adapter(modname: str):
    import importlib

    return importlib.import_module(f".{modname}", __package__)


def build_kernel(name: str, profile, extra_device_types=()) -> Kernel:
    """The Kernel for backend `name` using the library the profile says is installed (cached per
    process). Raises KeyError for unknown names and ImportError/RuntimeError when it cannot be built.
    `extra_device_types` (tests) lets a kernel accept tensors of other device types, e.g. ("cpu",)
    for fake libraries that compute on the CPU."""
    spec = registry.BACKENDS[name]
    library = registry.library_for(name, profile) if spec.libraries else None
    if spec.libraries and library is None:
        raise ImportError(f"{name}: none of {', '.join(spec.libraries)} is available")
    key = (name, library, tuple(sorted(extra_device_types)))
    with _lock:
        k = _built.get(key)
        if k is not None:
            return k
        mod = _adapter(ADAPTERS[name])
        if library is None:
            k = mod.build(name, spec, extra_device_types)
        else:
            version = profile.lib(library).version
            k = mod.build(name, spec, library, version, extra_device_types)
        _built[key] = k
        return k


def probe_kernel(kernel: Kernel, device, tolerance: float | None = None) -> tuple[bool, str]:
    """Run `kernel` once on a small random problem on `device` and compare with a float32
    reference. Catches broken installs (a wheel built for another CUDA/torch, a kernel that returns
    garbage) at patch time instead of mid-sampling. Cached per (kernel, device)."""
    import torch

    dev = torch.device(device)
    if dev.type not in kernel.device_types:
        return True, f"not probed ({dev.type} is not a device this backend runs on)"
    key = (id(kernel), str(dev))
    with _lock:
        if key in _probed:
            return _probed[key]
    d = 128 if kernel.head_dim_ok(128) else next((x for x in (64, 96, 80, 256) if kernel.head_dim_ok(x)), 64)
    dtype = next((t for t in (torch.bfloat16, torch.float16, torch.float32) if t in kernel.dtypes), None)
    if dtype is None:
        result = (False, "declares no supported dtype")
    else:
        g = torch.Generator(device="cpu").manual_seed(0)
        q, k, v = (torch.randn(1, 2, 256, d, generator=g).to(dev, dtype) for _ in range(3))
        tol = tolerance if tolerance is not None else (0.08 if kernel.low_precision else 0.02)
        try:
            out, lay = invoke(kernel, q, k, v, BHLD)
            out = to_layout(out, lay, BHLD)
            ref = reference(q, k, v, BHLD)
            if tuple(out.shape) != tuple(ref.shape):
                result = (False, f"probe returned shape {tuple(out.shape)}, expected {tuple(ref.shape)}")
            else:
                err = float((out.float() - ref.float()).norm() / ref.float().norm().clamp_min(1e-12))
                if not err == err or err > tol:  # NaN or too far from exact attention
                    result = (False, f"probe result is wrong (relative error {err:.3g} > {tol})")
                else:
                    result = (True, f"probe ok (relative error {err:.2g})")
        except Exception as e:  # a broken install: report it, never crash the node
            msg = f"{type(e).__name__}: {e}".splitlines()[0][:300]
            result = (False, f"probe failed: {msg}")
    with _lock:
        _probed[key] = result
    return result


def forget() -> None:
    """Drop built kernels and probe results (tests)."""
    with _lock:
        _built.clear()
        _probed.clear()


__all__ = ["ADAPTERS", "BHLD", "BLHD", "Kernel", "build_kernel", "probe_kernel", "forget"]
