"""PyTorch scaled_dot_product_attention: PyTorch's own kernel choice, or pinned to one kernel
(cuDNN, FlashAttention-2, memory-efficient, math) with `torch.nn.attention.sdpa_kernel`.

SDPA ops are native ATen ops, so torch.compile traces them (and the sdpa_kernel context) without a
custom op. Layout: (B, H, L, D).
"""
from __future__ import annotations

import torch

from .base import BHLD, Kernel, tensor_device_types, torch_dtypes

# backend name -> SDPBackend member name (None: PyTorch chooses)
PINNED = {
    "sdpa": None,
    "sdpa_cudnn": "CUDNN_ATTENTION",
    "sdpa_flash": "FLASH_ATTENTION",
    "sdpa_efficient": "EFFICIENT_ATTENTION",
    "sdpa_math": "MATH",
}


def _torch_at_least(major: int, minor: int) -> bool:
    try:
        a, b = torch.__version__.split("+")[0].split(".")[:2]
        return (int(a), int(b)) >= (major, minor)
    except ValueError:
        return False


def norm_mask(mask):
    # ComfyUI's convention (attention_pytorch): (Lq, Lk) or (B, Lq, Lk) -> broadcastable 4-D
    if mask.ndim == 2:
        mask = mask.unsqueeze(0)
    if mask.ndim == 3:
        mask = mask.unsqueeze(1)
    return mask


def build(name: str, spec, extra_device_types=()) -> Kernel:
    member = PINNED[name]
    sdpa = torch.nn.functional.scaled_dot_product_attention
    native_gqa = _torch_at_least(2, 5) and member in (None, "MATH")
    def kwargs(q, k, mask, scale):
        kw = {}
        if mask is not None:
            kw["attn_mask"] = norm_mask(mask)
        if scale is not None:
            kw["scale"] = scale
        if k.shape[1] != q.shape[1]:
            kw["enable_gqa"] = True
        return kw

    if member is None:
        def call(q, k, v, mask, scale, layout):
            return sdpa(q, k, v, **kwargs(q, k, mask, scale))
    else:
        from torch.nn.attention import SDPBackend, sdpa_kernel  # torch >= 2.3

        backend = getattr(SDPBackend, member)

        def call(q, k, v, mask, scale, layout):
            with sdpa_kernel(backend):
                return sdpa(q, k, v, **kwargs(q, k, mask, scale))

    return Kernel(
        name=name, library=None, version=torch.__version__, layouts=(BHLD,), call=call,
        dtypes=torch_dtypes(spec.dtypes),
        device_types=tensor_device_types(spec.devices) | frozenset(extra_device_types),
        head_dims=frozenset(spec.head_dims) if spec.head_dims else None, max_head_dim=spec.max_head_dim,
        supports_mask=spec.supports_mask, gqa=native_gqa, supports_scale=True,
        low_precision=spec.low_precision, autograd=True,
        note="PyTorch picks the kernel per call" if member is None else f"pinned to SDPBackend.{member}",
    )
