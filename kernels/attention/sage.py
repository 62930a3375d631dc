"""SageAttention adapters: the auto dispatcher `sageattn` and each kernel the installed version
exports (`sageattn_qk_int8_pv_fp16_triton`, `..._fp16_cuda`, `..._fp8_cuda`, `..._fp8_cuda_sm90`),
plus SageAttention3 (`sageattn3.sageattn3_blackwell`, Blackwell).

SageAttention quantizes Q/K to INT8 (and P/V to FP16/FP8): fast, not exact, so these kernels are
`low_precision` and calls that ask for exact attention fall back. Both layouts are native
(tensor_layout "HND" = (B, H, L, D), "NHD" = (B, L, H, D)).

K smoothing (subtracting the per-head mean of K over tokens, exact for softmax and it keeps the INT8
quantization of K accurate) is done here out of place and the kernel is called with smooth_k=False:
SageAttention 1.x smooths in place (`k -= km`), which would modify the caller's tensor.
"""
from __future__ import annotations

import importlib

from .base import (
    BHLD,
    BLHD,
    OP_NAMESPACE,
    Kernel,
    compile_safe,
    contiguous_last,
    op_id,
    tensor_device_types,
    torch_dtypes,
)

_LAYOUT = {BHLD: "HND", BLHD: "NHD"}


def build(name: str, spec, library: str, version, extra_device_types=()) -> Kernel:
    if library == "sageattn3":
        fn = importlib.import_module("sageattn3").sageattn3_blackwell

        def impl(q, k, v, mask, scale, layout):
            return fn(contiguous_last(q), contiguous_last(k), contiguous_last(v), is_causal=False)
        layouts = (BHLD,)
        supports_scale = False
    else:
        fn = getattr(importlib.import_module("sageattention"), spec.kernel)

        def impl(q, k, v, mask, scale, layout):
            seq_dim = 2 if layout == BHLD else 1
            k = k - k.mean(dim=seq_dim, keepdim=True)
            return fn(contiguous_last(q), k, contiguous_last(v), tensor_layout=_LAYOUT[layout],
                      is_causal=False, sm_scale=scale, smooth_k=False)
        layouts = (BLHD, BHLD)
        supports_scale = True

    return Kernel(
        name=name, library=library, version=version, layouts=layouts,
        call=compile_safe(op_id(name, library), impl), op_name=f"{OP_NAMESPACE}::{op_id(name, library)}",
        dtypes=torch_dtypes(spec.dtypes),
        device_types=tensor_device_types(spec.devices) | frozenset(extra_device_types),
        head_dims=frozenset(spec.head_dims) if spec.head_dims else None, max_head_dim=spec.max_head_dim,
        supports_mask=False, gqa=False, supports_scale=supports_scale, low_precision=True,
        autograd=False, note="INT8 Q/K quantization: not exact",
    )
