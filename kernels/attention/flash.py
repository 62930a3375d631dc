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


# fa3-fwd through its raw forward op where that is bit-equal to its interface (direct_fa3); False: the interface always
DIRECT_FA3 = True
# fa3-fwd's `_flash_attn_forward(...)`: the arguments of its raw op `fa3_fwd.fwd`, in the order its interface passes
# them
_FA3_FWD_ARGS = ("q", "k", "v", "k_new", "v_new", "qv", "out_", "cu_seqlens_q", "cu_seqlens_k", "cu_seqlens_k_new",
                 "seqused_q", "seqused_k", "max_seqlen_q", "max_seqlen_k", "page_table", "kv_batch_idx", "leftpad_k",
                 "rotary_cos", "rotary_sin", "seqlens_rotary", "q_descale", "k_descale", "v_descale", "softmax_scale",
                 "causal", "window_size_left", "window_size_right", "attention_chunk", "softcap", "rotary_interleaved",
                 "scheduler_metadata", "num_splits", "pack_gqa", "sm_margin")


def direct_fa3(mod, device):
    """fa3-fwd's raw forward op called as its own interface calls it (`_flash_attn_forward`: q, k, v, a softmax scale,
    not causal, no window), without the layers above it: the autograd Function of `flash_attn_func`, the interface's
    custom-op wrapper and its argument copies. Each layer costs Python time per call: about 0.1 ms of host time per
    attention call on an H200, where Flux is host-bound (bench/results/h200/family_033_README.md).
    Used only where the interface's argument list is the one above AND, on `device`, the direct call returns exactly
    (bit for bit) what `flash_attn_func` returns for the same inputs; else None (the interface is used as before)."""
    fwd = getattr(getattr(mod, "fa3_fwd_cuda", None), "fwd", None)
    init = getattr(getattr(mod, "_flash_attn_forward", None), "_init_fn", None)  # the function under the custom op
    entry = getattr(mod, "flash_attn_func", None)
    if fwd is None or init is None or entry is None or device is None:
        return None
    try:
        import inspect

        if tuple(inspect.signature(init).parameters) != _FA3_FWD_ARGS:
            return None
    except (TypeError, ValueError):
        return None
    tail = (None,) * 20  # k_new .. v_descale

    def direct(q, k, v, scale):
        if scale is None:
            scale = q.shape[-1] ** -0.5
        return fwd(q, k, v, *tail, scale, False, -1, -1, 0, 0.0, True, None, 1, None, 0)[0]

    try:
        g = torch.Generator(device=device).manual_seed(0)
        q, k, v = (torch.randn(1, 192, 2, 128, generator=g, device=device).to(torch.bfloat16) for _ in range(3))
        if not torch.equal(direct(q, k, v, None), _first(entry(q, k, v, softmax_scale=None, causal=False))):
            return None
        if not torch.equal(direct(q, k, v, 0.07), _first(entry(q, k, v, softmax_scale=0.07, causal=False))):
            return None
    except Exception:  # noqa: BLE001 - anything unexpected: the interface as before
        return None
    return direct


def build(name: str, spec, library: str, version, extra_device_types=()) -> Kernel:
    mod = importlib.import_module(MODULES[library])
    fn = getattr(mod, "flash_attn_func", None)
    if fn is None and library == "flash_attn_cute":
        fn = importlib.import_module("flash_attn.cute.interface").flash_attn_func
    if fn is None:
        raise ImportError(f"{MODULES[library]} has no flash_attn_func")

    direct = None
    if library == "flash_attn":
        def impl(q, k, v, mask, scale, layout):
            return fn(contiguous_last(q), contiguous_last(k), contiguous_last(v),
                      dropout_p=0.0, softmax_scale=scale, causal=False)
    else:  # FA3 / FA4 interfaces: no dropout argument
        direct = (direct_fa3(mod, "cuda") if DIRECT_FA3 and library == "fa3_fwd_interface" and torch.cuda.is_available()
                  else None)
        if direct is not None:
            def impl(q, k, v, mask, scale, layout):
                return direct(contiguous_last(q), contiguous_last(k), contiguous_last(v), scale)
        else:
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
    if direct is not None:
        note = (note + "; " if note else "") + ("called through its raw forward op (checked bit-equal to "
                                                "flash_attn_func when built: less host time per call)")
    return Kernel(
        name=name, library=library, version=version, layouts=(BLHD,),
        call=call, op_name=f"{OP_NAMESPACE}::{op_id(name, library)}",
        dtypes=dtypes, device_types=tensor_device_types(spec.devices) | frozenset(extra_device_types),
        head_dims=frozenset(spec.head_dims) if spec.head_dims else None, max_head_dim=spec.max_head_dim,
        supports_mask=False, gqa=True, supports_scale=True, low_precision=spec.low_precision,
        autograd=False, note=note,
    )
