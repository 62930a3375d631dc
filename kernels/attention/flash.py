"""FlashAttention adapters: FA2 (`flash_attn`), FA3 (`flash_attn_interface` from flash-attention's
hopper/ build, or the PyPI forward-only `fa3_fwd_interface`), FA4 (`flash_attn.cute`).

All take (B, L, H, D) with the last dimension contiguous, support GQA natively (K/V with fewer
heads) and a softmax scale, and have no attention-mask argument. Each is wrapped as a torch custom op
(comfyui_accel::<backend>) so torch.compile does not graph-break at every call. Libraries are
imported when a kernel is built (a node run), never at ComfyUI start-up.
"""
from __future__ import annotations

import importlib

import torch

from ..convert import convert
from .base import BLHD, OP_NAMESPACE, Kernel, compile_safe, contiguous_last, op_id, tensor_device_types, torch_dtypes

MODULES = {
    "flash_attn": "flash_attn",
    "flash_attn_interface": "flash_attn_interface",
    "fa3_fwd_interface": "fa3_fwd_interface",
    "flash_attn_cute": "flash_attn.cute",
}
# the build-config module a FA3 build ships next to its interface (build flags such as no-fp16)
_CONFIG_MODULES = {"fa3_fwd_interface": "fa3_fwd_config", "flash_attn_interface": "flash_attn_config"}


def _fa3_disabled_fp16(library: str) -> bool:
    mod = _CONFIG_MODULES.get(library)
    if not mod:
        return False
    try:
        cfg = importlib.import_module(mod).CONFIG["build_flags"]
        return bool(cfg.get("FLASHATTENTION_DISABLE_FP16", False))
    except Exception:
        return False


def _first(out):
    # FA3/FA4 builds return (out, softmax_lse) from some entry points
    return out[0] if isinstance(out, (tuple, list)) else out


def build(name: str, spec, library: str, version, extra_device_types=()) -> Kernel:
    mod = importlib.import_module(MODULES[library])
    fn = getattr(mod, "flash_attn_func", None)
    if fn is None and library == "flash_attn_cute":
        fn = importlib.import_module("flash_attn.cute.interface").flash_attn_func
    if fn is None:
        raise ImportError(f"{MODULES[library]} has no flash_attn_func")

    if library == "flash_attn":
        def impl(q, k, v, mask, scale, layout):
            return fn(contiguous_last(q), contiguous_last(k), contiguous_last(v),
                      dropout_p=0.0, softmax_scale=scale, causal=False)
    else:  # FA3 / FA4 interfaces: no dropout argument
        def impl(q, k, v, mask, scale, layout):
            return _first(fn(contiguous_last(q), contiguous_last(k), contiguous_last(v),
                             softmax_scale=scale, causal=False))

    dtypes = torch_dtypes(spec.dtypes)
    note = ""
    call = compile_safe(op_id(name, library), impl)
    if _fa3_disabled_fp16(library):
        # ComfyUI runs Wan in fp16 by default on most GPUs. A bf16-only build (the PyPI fa3-fwd wheel)
        # still serves those calls: q/k/v are cast to bf16 for the kernel and the output back to fp16
        # (bf16 attention precision, measured in bench/results). The casts sit OUTSIDE the custom op,
        # so under torch.compile inductor fuses them into the ops that produce q/k (RoPE) and consume
        # the output instead of running four extra memory passes per call.
        bf16_call = call

        def call(q, k, v, mask, scale, layout):
            if q.dtype == torch.float16:
                # eager: a streaming Triton conversion (PyTorch's fp16->bf16 copy is ~2.5x slower);
                # under torch.compile: plain .to(), fused by inductor
                bf = torch.bfloat16
                out = bf16_call(convert(q, bf), convert(k, bf), convert(v, bf), mask, scale, layout)
                return convert(out, torch.float16)
            return bf16_call(q, k, v, mask, scale, layout)

        note = f"{library} was built without fp16: fp16 calls run the kernel in bf16 (inputs cast, output cast back)"
    return Kernel(
        name=name, library=library, version=version, layouts=(BLHD,),
        call=call, op_name=f"{OP_NAMESPACE}::{op_id(name, library)}",
        dtypes=dtypes, device_types=tensor_device_types(spec.devices) | frozenset(extra_device_types),
        head_dims=frozenset(spec.head_dims) if spec.head_dims else None, max_head_dim=spec.max_head_dim,
        supports_mask=False, gqa=True, supports_scale=True, low_precision=spec.low_precision,
        autograd=False, note=note,
    )
