"""Fused channel RMSNorm + SiLU for the Wan VAE (`RMS_norm(images=False)` followed by `nn.SiLU()`).

The Wan 2.1/2.2 VAE normalizes every activation over its channels before each causal conv:
`silu(F.normalize(x, dim=1) * sqrt(C) * gamma (+ bias))`. PyTorch runs that as five memory passes over a
(B, C, T, H, W) tensor (norm, divide, two multiplies, SiLU), each rounded to the activation dtype. The
Triton kernel (kernels/vae_norm_triton.py) reads x once and writes the result once, computing in fp32
and rounding once: not bit-identical to the stock chain in bf16/fp16 (fewer roundings), which is why the
Accel VAE node makes it opt-in and reports the deviation.

`rms_norm_silu(x, gamma, bias, eps)`: the Triton kernel for CUDA tensors whose channel and spatial strides
it can address (contiguous or channels_last_3d), else `rms_norm_silu_reference` (the stock formula).
"""
from __future__ import annotations

import logging

import torch
import torch.nn.functional as F

from .optional import load_once
from .tracing import is_compiling as _compiling

_state: dict = {}
EPS = 1e-12  # F.normalize's default


def _warn(error: str) -> None:
    logging.getLogger("comfyui-accel").warning(
        "accel: triton is not available (%s): the VAE's RMSNorm+SiLU runs as PyTorch's separate ops", error)


def kernel():
    """The Triton module, or None where Triton cannot be imported (logged once)."""
    return load_once(_state, "vae_norm_triton", _warn)


def rms_norm_silu_reference(x: torch.Tensor, gamma: torch.Tensor, bias=None, eps: float = EPS) -> torch.Tensor:
    """What ComfyUI's Wan `RMS_norm` + `nn.SiLU` compute (channel dim 1)."""
    scale = x.shape[1] ** 0.5
    y = F.normalize(x, dim=1, eps=eps) * scale * gamma.to(x) + (bias.to(x) if bias is not None else 0)
    return F.silu(y)


def layout(x: torch.Tensor):
    """(batch stride, channel stride, spatial stride, spatial size) when the dims after the channel dim can be
    walked with one stride (contiguous or channels_last(_3d) tensors), else None."""
    if x.ndim < 3:
        return None
    sizes, strides = x.shape[2:], x.stride()[2:]
    s_stride = strides[-1]
    expect = s_stride
    for size, stride in zip(reversed(sizes), reversed(strides), strict=True):
        if size != 1 and stride != expect:
            return None
        expect *= size
    spatial = 1
    for size in sizes:
        spatial *= size
    return x.stride(0), x.stride(1), s_stride, spatial


def usable(x: torch.Tensor, allow_cpu: bool = False) -> str | None:
    """None when the fused kernel can take x, else the reason it cannot."""
    if not (x.is_cuda or allow_cpu):
        return "not a CUDA tensor"
    if x.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        return f"dtype {x.dtype}"
    if x.shape[1] > 4096:
        return f"{x.shape[1]} channels (> 4096)"
    if layout(x) is None:
        return "strides the kernel cannot walk"
    if _compiling():
        return "inside torch.compile"
    return None


def rms_norm_silu(x: torch.Tensor, gamma: torch.Tensor, bias=None, eps: float = EPS,
                  allow_cpu: bool = False) -> torch.Tensor:
    """silu(RMS_norm(x)) in one pass where possible; the reference elsewhere. `allow_cpu` (tests): run the
    Triton kernel on CPU tensors too (Triton interpreter)."""
    if usable(x, allow_cpu) is None:
        k = kernel()
        if k is not None:
            return k.rms_norm_silu(x, gamma, bias, eps)
    return rms_norm_silu_reference(x, gamma, bias, eps)
