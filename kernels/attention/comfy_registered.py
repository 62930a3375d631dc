"""Attention functions the running ComfyUI registers itself (`register_attention_function`), served as a
registry backend: e.g. "comfy_kitchen_int8", ComfyUI 0.33's comfy-kitchen INT8 attention (what
`--use-ck-attention` uses globally), here per model and ranked by the same benchmark as the others.

The function is taken from ComfyUI's table (registry.comfy_function: the ComfyUI module already imported;
nothing is imported here) and called with ComfyUI's own convention: (B, H, L, D) tensors with
skip_reshape/skip_output_reshape, the mask and scale as ComfyUI passes them, `_inside_attn_wrapper=True` so
ComfyUI's @wrap_attn does not dispatch the call to an override again.
"""
from __future__ import annotations

from . import registry
from .base import BHLD, OP_NAMESPACE, Kernel, compile_safe, op_id, tensor_device_types, torch_dtypes


def build(name: str, spec, extra_device_types=()) -> Kernel:
    fn = registry.comfy_function(spec.comfy_function)
    if fn is None:
        raise ImportError(f"ComfyUI has no registered attention function '{spec.comfy_function}'")

    def impl(q, k, v, mask, scale, layout):
        kw = {"skip_reshape": True, "skip_output_reshape": True, "_inside_attn_wrapper": True}
        if scale is not None:
            kw["scale"] = scale
        return fn(q, k, v, q.shape[1], mask, **kw)

    return Kernel(
        name=name, library=None, version=None, layouts=(BHLD,),
        call=compile_safe(op_id(name, "comfyui"), impl), op_name=f"{OP_NAMESPACE}::{op_id(name, 'comfyui')}",
        dtypes=torch_dtypes(spec.dtypes),
        device_types=tensor_device_types(spec.devices) | frozenset(extra_device_types),
        head_dims=frozenset(spec.head_dims) if spec.head_dims else None, max_head_dim=spec.max_head_dim,
        supports_mask=spec.supports_mask, gqa=False, supports_scale=True, low_precision=spec.low_precision,
        autograd=False, note=f"ComfyUI's registered attention function '{spec.comfy_function}'; not exact",
    )
