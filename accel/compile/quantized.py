"""Compiled blocks over ComfyUI's quantized Linear layers (0.33+: `comfy.ops.mixed_precision_ops`, what Load
Diffusion Model builds for the `*_fp8_scaled` files and every other quantized checkpoint it reads).

Such a layer keeps its weight as a `QuantizedTensor` (comfy-kitchen) and, on every call, quantizes the input
with comfy-kitchen's own kernels, dispatches the matmul through the tensor subclass, and applies LoRA by
dequantizing, patching and requantizing the weight. None of that traces: comfy-kitchen's CUDA kernels have no
fake implementation ("Cannot access data pointer of Tensor (FakeTensor)") and the requantization under a LoRA
breaks dynamo's symbolic shapes ("vr must not be None"), so a compiled block fell back to eager on both Wan 2.2
experts of the LightX2V workflow.

What the block fetcher does instead, for the duration of one compiled block call and outside the graph:
1. decide what stock ComfyUI computes for this layer in this call (`stock_plan`, the conditions of
   `MixedPrecisionOps.Linear.forward`): an FP8 matmul (fp8 layouts on a GPU with FP8 compute, no per-forward
   weight function), or the dequantized weight in the compute dtype (emulated formats, LoRA as a weight
   function, weight-only formats such as int8_tensorwise);
2. fetch the weight exactly as stock does for that plan, with ComfyUI's own functions (LoRA under DynamicVRAM
   is baked and requantized by `resolve_cast_module_with_vbar(want_requant=True)` and kept resident, as in a
   stock run);
3. hand the compiled block plain tensors (the fp8 data and its scales, or the dequantized weight) and run the
   layer as one of the two small modules below, by class swap, so the graph sees `torch._scaled_mm` (or
   `F.linear`) with the same operands and scales as stock's comfy-kitchen call: the same math, traceable, and
   inductor fuses the input quantization into the ops before it. One class for every model: the two experts
   of Wan 2.2 A14B share their compiled graphs.
Formats with no traceable matmul here (nvfp4, mxfp8, int8_tensorwise, the 4-bit ones) run on the dequantized
weight in the compute dtype: exact with respect to the stored weight (ComfyUI's own path where the format's kernel
is disabled), not comfy-kitchen's low-precision kernel that stock runs where it can; `describe` counts them so the
node's report says so.
"""
from __future__ import annotations

import torch

from ..comfy_compat import FP8_LAYOUTS, quantized_tensor_class

FP8 = "fp8"  # plan: FP8 matmul on the stored fp8 weight
DEQUANT = "dequant"  # plan: matmul on the dequantized weight in the compute dtype


def stock_plan(m) -> str:
    """What ComfyUI's mixed-precision Linear computes for this layer right now (its forward's conditions)."""
    layout = getattr(m, "layout_type", None)
    if layout is None or getattr(m, "_full_precision_mm", False) or getattr(m, "comfy_force_cast_weights", False):
        return DEQUANT
    if m.weight_function or m.bias_function:
        return DEQUANT
    try:
        from comfy.quant_ops import QUANT_ALGOS

        quantize_input = QUANT_ALGOS.get(getattr(m, "quant_format", None), {}).get("quantize_input", True)
    except Exception:  # noqa: BLE001
        quantize_input = True
    if not quantize_input:
        # int8_tensorwise, the 4-bit formats: stock hands the float input to comfy-kitchen's kernel for the format
        # (int8 may quantize the activations inside it); the compiled blocks dequantize the weight instead
        return DEQUANT
    return FP8 if layout in FP8_LAYOUTS else DEQUANT


class QuantizedFP8Linear(torch.nn.Module):
    """A quantized ComfyUI Linear during a compiled block call (class swap): its fetched fp8 weight in
    `weight`, the weight scale and input scale as buffers. Same math as comfy-kitchen's TensorCoreFP8Layout
    linear that stock runs: input * (1 / input_scale) clamped to the fp8 range and cast, then
    `_scaled_mm(x8, w8.T, input_scale, weight_scale, bias, use_fast_accum=False)` in the input dtype."""

    def forward(self, input, *args, **kwargs):  # noqa: A002 - nn.Linear's name
        b = self._buffers
        pre = b.get("accel_pre_quant_scale")
        if pre is not None:
            input = input * pre
        w8 = self._parameters["weight"]
        sx, sw = b["accel_input_scale"], b["accel_weight_scale"]
        shape = input.shape
        x2 = input.reshape(-1, shape[-1])
        lp = torch.finfo(w8.dtype).max
        x8 = torch.clamp(x2 * (1.0 / sx).to(x2.dtype), -lp, lp).to(w8.dtype)
        bias = self._parameters.get("bias")
        out = torch._scaled_mm(x8, w8.t(), scale_a=sx, scale_b=sw, bias=bias, out_dtype=input.dtype,
                               use_fast_accum=False)
        return out.reshape(*shape[:-1], w8.shape[0])


class QuantizedDequantLinear(torch.nn.Module):
    """A quantized ComfyUI Linear during a compiled block call (class swap): its fetched weight, dequantized
    to the compute dtype (LoRA applied), in `weight`."""

    def forward(self, input, *args, **kwargs):  # noqa: A002
        pre = self._buffers.get("accel_pre_quant_scale")
        if pre is not None:
            input = input * pre
        return torch.nn.functional.linear(input, self._parameters["weight"], self._parameters.get("bias"))


_BUFFERS = ("accel_pre_quant_scale", "accel_input_scale", "accel_weight_scale")


def fetch(m, x, vbar: bool):
    """Fetch one quantized layer's weight the way stock would for this call (see the module docstring).
    Returns (plan, weight, bias, scales) with weight/bias on x's device."""
    import comfy.ops as ops

    dtype, device = x.dtype, x.device
    plan = stock_plan(m)
    want_requant = plan == FP8
    if vbar:
        w, b = ops.resolve_cast_module_with_vbar(m, dtype, device, dtype, dtype, want_requant)
    else:
        w, b = ops.cast_bias_weight(m, None, dtype=dtype, device=device, bias_dtype=dtype, want_requant=want_requant)
    qt = quantized_tensor_class()
    scales = {}
    if plan == FP8 and isinstance(w, qt) and getattr(w, "_layout_cls", None) in FP8_LAYOUTS:
        scales["accel_weight_scale"] = w._params.scale.to(device=device, dtype=torch.float32).reshape(())
        sx = getattr(m, "input_scale", None)
        scales["accel_input_scale"] = (_one(device) if sx is None
                                       else sx.detach().to(device=device, dtype=torch.float32).reshape(()))
        w = w._qdata
    else:
        plan = DEQUANT
        if isinstance(w, qt):
            w = w.dequantize()
        w = w.to(dtype)
    pre = getattr(m, "pre_quant_scale", None)
    if pre is not None:
        scales["accel_pre_quant_scale"] = pre.detach().to(device=device, dtype=dtype)
    return plan, w, b, scales


_ONES: dict = {}


def _one(device) -> torch.Tensor:
    """A float32 scalar 1 on `device` (the input scale of a layer that has none), made once per device: the graph only
    reads it, and a new one per layer and call cost an allocation and a fill kernel each (400 a Wan 14B forward)."""
    t = _ONES.get(device)
    if t is None:
        t = _ONES[device] = torch.ones((), device=device, dtype=torch.float32)
    return t


def swap_in(m, plan, w, b, scales):
    """Class-swap `m` to the plan's module for one block call; returns what `restore` needs."""
    p, bufs = m._parameters, m._buffers
    item = (m, m.__class__, p.get("weight"), "bias" in p, p.get("bias"), {k: bufs[k] for k in _BUFFERS if k in bufs})
    p["weight"] = torch.nn.Parameter(w, requires_grad=False)
    if b is not None:
        p["bias"] = torch.nn.Parameter(b, requires_grad=False)
    for k in _BUFFERS:
        bufs.pop(k, None)
    bufs.update(scales)
    m.__class__ = QuantizedFP8Linear if plan == FP8 else QuantizedDequantLinear
    return item


def restore(item):
    m, cls, w, had_bias, b, bufs = item
    m.__class__ = cls
    p = m._parameters
    p["weight"] = w
    if had_bias:
        p["bias"] = b
    for k in _BUFFERS:
        m._buffers.pop(k, None)
    m._buffers.update(bufs)


def describe(plans: dict) -> str:
    """One line for the report: how many quantized layers ran which way in the last compiled call."""
    if not plans:
        return ""
    parts = []
    if plans.get(FP8):
        parts.append(f"{plans[FP8]} with FP8 matmuls inside the graph (stock's math)")
    if plans.get(DEQUANT):
        parts.append(f"{plans[DEQUANT]} on the dequantized weight (stock may use a low-precision kernel there)")
    return "quantized layers (ComfyUI's quantized-tensor weights): " + ", ".join(parts)
