"""Dtype conversion of large activations (fp16 <-> bf16 around a bf16-only attention kernel).

`convert(t, dtype)`: the Triton streaming kernel (kernels/convert_triton.py) for contiguous CUDA tensors
in eager mode, else `t.to(dtype)` - the reference, and what torch.compile traces (inductor then fuses
the conversion into the op that produces or consumes the tensor). Falls back to `t.to` with one log line
when Triton cannot be imported.
"""
from __future__ import annotations

import logging

import torch

from .tracing import is_compiling as _compiling

_state: dict = {}
_FAST = {(torch.float16, torch.bfloat16), (torch.bfloat16, torch.float16)}


def _kernel():
    if "mod" not in _state:
        try:
            from . import convert_triton

            _state["mod"] = convert_triton if convert_triton.available() else None
        except Exception as e:  # pragma: no cover - depends on the machine
            _state["mod"] = None
            logging.getLogger("comfyui-accel").warning(
                "accel: triton is not available (%s: %s): fp16<->bf16 conversions use PyTorch's slower copy; "
                "install triton (Linux) or triton-windows for the fast path",
                type(e).__name__, e)
    return _state["mod"]


def convert(t: torch.Tensor, dtype: torch.dtype, allow_cpu: bool = False) -> torch.Tensor:
    """`t.to(dtype)`, faster for large contiguous fp16<->bf16 CUDA tensors outside torch.compile.
    `allow_cpu` (tests): use the Triton path on CPU tensors too (Triton interpreter)."""
    if t.dtype == dtype:
        return t
    if ((t.dtype, dtype) in _FAST and (t.is_cuda or allow_cpu) and t.is_contiguous()
            and t.numel() >= (1 << 16 if not allow_cpu else 1) and not _compiling()):
        k = _kernel()
        if k is not None:
            return k.convert(t, dtype)
    return t.to(dtype)
