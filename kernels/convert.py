"""Dtype conversion of large activations (fp16 <-> bf16 around a bf16-only attention kernel).

`convert(t, dtype)`: the Triton streaming kernel (kernels/convert_triton.py) for contiguous CUDA tensors
in eager mode, else `t.to(dtype)` - the reference, and what torch.compile traces (inductor then fuses
the conversion into the op that produces or consumes the tensor). Falls back to `t.to` with one log line
when Triton cannot be imported.
"""
from __future__ import annotations

import logging

import torch

from .optional import load_once
from .tracing import is_compiling as _compiling

_state: dict = {}
_FAST = {(torch.float16, torch.bfloat16), (torch.bfloat16, torch.float16)}


def _warn(error: str) -> None:
    logging.getLogger("comfyui-accel").warning(
        "accel: triton is not available (%s): fp16<->bf16 conversions use PyTorch's slower copy; "
        "install triton (Linux) or triton-windows for the fast path", error)


def _kernel():
    return load_once(_state, "convert_triton", _warn)


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
