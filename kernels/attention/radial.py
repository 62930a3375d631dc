"""The `radial_sparse` registry backend: one attention function that decides per call, at run time, between the
radial pattern (kernels/attention/sparse) and exact dense attention (sparse/runtime.py says how).

It is one torch custom op (comfyui_accel::radial_sparse_torch) with a fake implementation, like the library
kernels: torch.compile traces a call to it without a graph break, and the decision (step, block, grid) is made
inside it when the compiled graph runs, so nothing about the step or the block is traced or guarded. Layout:
(B, H, L, D). K/V with fewer heads are repeated inside. A call with an attention mask runs exact SDPA with it.
"""
from __future__ import annotations

import torch

from .base import BHLD, OP_NAMESPACE, Kernel, compile_safe, op_id, tensor_device_types, torch_dtypes
from .sdpa import norm_mask
from .sparse.runtime import attend_current


def _impl(q, k, v, mask, scale, layout):
    # contiguous, as the fake implementation declares (SDPA, FA3 and flex may return other strides; a compiled graph
    # reads the output with the fake's strides). A mask (ComfyUI's 2-D / 3-D / 4-D convention) makes the call dense.
    out = attend_current(q, k, v, scale, None if mask is None else norm_mask(mask))
    return out if out.is_contiguous() else out.contiguous()


def build(name: str, spec, extra_device_types=()) -> Kernel:
    opname = op_id(name, "torch")
    return Kernel(
        name=name, library=None, version=torch.__version__, layouts=(BHLD,),
        call=compile_safe(opname, _impl), op_name=f"{OP_NAMESPACE}::{opname}",
        dtypes=torch_dtypes(spec.dtypes),
        device_types=tensor_device_types(spec.devices) | frozenset(extra_device_types),
        head_dims=frozenset(spec.head_dims) if spec.head_dims else None, max_head_dim=spec.max_head_dim,
        supports_mask=True, gqa=True, supports_scale=True, low_precision=True, sparse=True, autograd=False,
        note="radial pattern on video self-attention, exact dense attention elsewhere; decided per call at run time",
    )
