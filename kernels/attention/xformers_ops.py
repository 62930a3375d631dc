"""xFormers adapter: `xformers.ops.memory_efficient_attention` on (B, L, H, D), with additive or
boolean masks (turned into a float bias of shape (B, H, Lq, Lk) whose storage row is padded to a
multiple of 8, as xFormers requires).
"""
from __future__ import annotations

import importlib

import torch

from .base import BLHD, OP_NAMESPACE, Kernel, compile_safe, contiguous_last, op_id, tensor_device_types, torch_dtypes


def _bias(mask, q, k):
    b, lq, h = q.shape[0], q.shape[1], q.shape[2]
    lk = k.shape[1]
    if mask.ndim == 2:
        mask = mask.unsqueeze(0)
    if mask.ndim == 3:
        mask = mask.unsqueeze(1)
    if mask.dtype == torch.bool:
        mask = torch.zeros(mask.shape, dtype=q.dtype, device=q.device).masked_fill(~mask, float("-inf"))
    pad = (8 - lk % 8) % 8
    store = torch.empty((mask.shape[0], mask.shape[1], lq, lk + pad), dtype=q.dtype, device=q.device)
    store[..., :lk] = mask
    return store[..., :lk].expand(b, h, lq, lk)


def build(name: str, spec, library: str, version, extra_device_types=()) -> Kernel:
    ops = importlib.import_module("xformers.ops")
    fn = ops.memory_efficient_attention

    def impl(q, k, v, mask, scale, layout):
        bias = _bias(mask, q, k) if mask is not None else None
        return fn(contiguous_last(q), contiguous_last(k), contiguous_last(v), attn_bias=bias, p=0.0, scale=scale)

    return Kernel(
        name=name, library=library, version=version, layouts=(BLHD,),
        call=compile_safe(op_id(name, library), impl), op_name=f"{OP_NAMESPACE}::{op_id(name, library)}",
        dtypes=torch_dtypes(spec.dtypes),
        device_types=tensor_device_types(spec.devices) | frozenset(extra_device_types),
        head_dims=frozenset(spec.head_dims) if spec.head_dims else None, max_head_dim=spec.max_head_dim,
        supports_mask=spec.supports_mask, gqa=False, supports_scale=True, low_precision=False, autograd=False,
    )
