"""Fuse `GELU(tanh)(linear(x))` into the matmul's epilogue when inductor compiles a model.

Transformer FFNs (Wan, Flux, Qwen-Image, HunyuanVideo, ...) run `Linear -> GELU(approximate="tanh")`.
inductor keeps the linear on cuBLAS (an extern kernel) and runs GELU as a separate Triton pass that reads
and writes the whole hidden activation (Wan 14B 480p 81f: 32760 x 13824 fp16, 0.65 ms per block on an
H100, bench/results/h100/profile_wan.md). cuBLASLt can apply the tanh GELU in the matmul epilogue
(`aten._addmm_activation(..., use_gelu=True)`, which on CUDA is exactly `gelu(addmm(...), "tanh")`).

`rewrite` runs in Accel Compile's inductor pre-grad pass (`accel.compile.passes`, handed to torch.compile through
`options`, never set globally): it rewrites each `gelu(linear(x, w, b), approximate="tanh")` whose linear has no
other user into the custom op `comfyui_accel::linear_gelu_tanh` (a stable name: inductor's on-disk caches key on it,
so warm restarts keep hitting them; a Python function would be keyed by the pack's module path). The op
runs the fused kernel for CUDA fp16/bf16 tensors and the plain `gelu(linear(...))` otherwise (CPU's
`_addmm_activation` uses the erf GELU), so the rewrite never changes what is computed, only how.

Note: no `from __future__ import annotations` here: `torch.library.custom_op` reads real annotations.
"""
import hashlib
import threading
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor

# torch._C._nn.linear / gelu: the C functions F.linear / F.gelu are (every torch); FX graphs may hold either form
_LINEARS = {torch._C._nn.linear, F.linear}
_GELUS = {torch._C._nn.gelu, F.gelu}
OP_NAME = "comfyui_accel::linear_gelu_tanh"
_op_state: dict = {}
_lock = threading.Lock()


def linear_gelu_tanh(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
    """gelu(linear(x, w, b), approximate="tanh"), with the GELU in the cuBLASLt epilogue on CUDA."""
    if x.is_cuda and x.dtype in (torch.float16, torch.bfloat16) and w.dtype == x.dtype and b.dtype == x.dtype \
            and x.shape[-1] > 1 and w.shape[0] > 1:
        x2 = x.reshape(-1, x.shape[-1])
        # aten._addmm_activation (torch >= 1.13, CUDA): cuBLASLt matmul with a GELU epilogue; every torch we support has
        # it
        out = torch.ops.aten._addmm_activation(b, x2, w.t(), use_gelu=True)
        return out.reshape(*x.shape[:-1], w.shape[0])
    return F.gelu(F.linear(x, w, b), approximate="tanh")


def op():
    """The registered custom op (registered on first use), or None where torch has no custom_op."""
    with _lock:
        if "op" in _op_state:
            return _op_state["op"]
        custom_op = getattr(getattr(torch, "library", None), "custom_op", None)
        result = None
        if custom_op is not None:
            try:
                def _impl(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
                    return linear_gelu_tanh(x, w, b)

                result = custom_op(OP_NAME, mutates_args=())(_impl)

                def _fake(x, w, b):
                    return x.new_empty(x.shape[:-1] + (w.shape[0],))

                result.register_fake(_fake)
            except Exception:  # already registered by another copy of the pack in this process
                result = getattr(getattr(torch.ops, "comfyui_accel", None), "linear_gelu_tanh", None)
        else:
            return None
        if result is not None:  # the OpOverload: what an FX graph calls (stable, picklable by name)
            result = torch.ops.comfyui_accel.linear_gelu_tanh.default
        _op_state["op"] = result
        return result


def _kw(node, name, pos, default=None):
    if name in node.kwargs:
        return node.kwargs[name]
    return node.args[pos] if len(node.args) > pos else default


def rewrite(graph: torch.fx.Graph) -> int:
    """Rewrite every fusable linear -> gelu(tanh) pair of a dynamo FX graph; returns how many."""
    fused_op = op()
    if fused_op is None:
        return 0
    n = 0
    for g in list(graph.nodes):
        if g.op != "call_function" or g.target not in _GELUS or _kw(g, "approximate", 1, "none") != "tanh":
            continue
        lin = g.args[0] if g.args else g.kwargs.get("input")
        if not isinstance(lin, torch.fx.Node) or lin.op != "call_function" or lin.target not in _LINEARS:
            continue
        if len(lin.users) != 1:
            continue
        x, w, b = _kw(lin, "input", 0), _kw(lin, "weight", 1), _kw(lin, "bias", 2)
        if b is None or not all(isinstance(t, torch.fx.Node) for t in (x, w, b)):
            continue
        with graph.inserting_before(g):
            fused = graph.call_function(fused_op, (x, w, b))
        fused.meta.update(g.meta)
        g.replace_all_uses_with(fused)
        graph.erase_node(g)
        graph.erase_node(lin)
        n += 1
    if n:
        graph.lint()
    return n


def uuid_part() -> str:
    """This file's hash: part of the uuid of the pass that runs `rewrite` (accel.compile.passes)."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
