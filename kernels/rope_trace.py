"""Trace comfy-kitchen's RoPE ops into the graphs Accel Compile hands to inductor.

ComfyUI 0.33+ applies rotary embeddings through comfy-kitchen (`comfy.quant_ops.ck.apply_rope`, `apply_rope1`, ...:
Flux, Wan, Qwen-Image, HunyuanVideo, LTX-Video, Lumina). Each is a `torch.library.custom_op`, so inside a compiled
block it stays one opaque call: its Python dispatch (the custom-op wrapper, comfy-kitchen's registry lookup and
argument checks) costs about 0.2 ms of host time per call on an H200 (1,140 calls a Flux 1024² 20-step run:
bench/results/h200/family_033_README.md), and its kernel reads and writes q and k once more in memory.

`rewrite` replaces each such call in a dynamo FX graph with the same op's *eager* implementation from comfy-kitchen
itself (`comfy_kitchen.backends.eager.rope`: the library's reference math, fp32 inside, the same slicing of the
frequencies), registered as a `CompositeImplicitAutograd` op under a stable name (`comfyui_accel::comfy_kitchen_<op>`):
AOT autograd decomposes it into aten ops, which inductor fuses with the norms and casts around it. Same math as
the op (rounding level: one fused kernel instead of comfy-kitchen's CUDA kernel), no Python per call.

The same is done for comfy-kitchen's fused adaptive layer norms (`adaln`: layernorm(x) * (1 + scale) + shift, and
`rms_adaln`), which ComfyUI 0.33 calls in LTX-Video's blocks (`rms_adaln`, lightricks/model.py) and later versions
in Wan's `modulate` too (`adaln`, wan/model.py @0c9a69ae, docs/compat.md): as an opaque op it would also keep
inductor from fusing the norm and modulation with what follows (under Level-1 on quantized layers, the activation
quantization of the next FP8 matmul). Their eager math is `comfy_kitchen.backends.eager.adaln`.

Only the out-of-place ops are rewritten, and only where comfy-kitchen's eager function takes exactly the op's
arguments (checked against the op's schema); anything else stays as it was. Without comfy-kitchen nothing changes.
Registered on first use (a compile), never at import. No `from __future__ import annotations` (torch.library).
"""
import hashlib
import importlib
import inspect
import threading
import types
from pathlib import Path

import torch

# comfy-kitchen's out-of-place RoPE ops (the in-place `*_` variants mutate their inputs: left alone) and its fused
# adaptive layer norms
OPS = ("apply_rope", "apply_rope1", "apply_rope_split_half", "apply_rope_split_half1",
       "rms_rope", "rms_rope1", "rms_rope_split_half", "rms_rope_split_half1", "adaln", "rms_adaln")
# where comfy-kitchen keeps the eager (reference) functions of those ops
EAGER_MODULES = ("comfy_kitchen.backends.eager.rope", "comfy_kitchen.backends.eager.adaln")
NAMESPACE = "comfyui_accel"
CK_NAMESPACE = "comfy_kitchen"  # the ops' namespace (tests point it at a stand-in)
_state: dict = {}
_lock = threading.Lock()


def _schema_names(overload) -> list:
    return [a.name for a in overload._schema.arguments]


def _eager_module():
    """comfy-kitchen's eager functions of the ops in OPS as one namespace, or None (comfy-kitchen absent: ComfyUI
    before 0.33, or laid out differently)."""
    fns = {}
    for name in EAGER_MODULES:
        try:
            m = importlib.import_module(name)
        except Exception:  # noqa: BLE001 - absent, or an older comfy-kitchen without that module
            continue
        fns.update({op: getattr(m, op) for op in OPS if callable(getattr(m, op, None))})
    return types.SimpleNamespace(**fns) if fns else None


def library_version() -> str:
    try:
        from importlib.metadata import version

        return version("comfy-kitchen")
    except Exception:
        return ""


def targets() -> dict:
    """{comfy-kitchen op (packet and .default): our composite op's .default}, registered on first call; {} where
    comfy-kitchen or its eager functions are missing."""
    with _lock:
        if "targets" in _state:
            return _state["targets"]
        out = {}
        eager = _eager_module()
        ck = getattr(torch.ops, CK_NAMESPACE, None) if eager is not None else None
        lib = None
        for name in OPS if ck is not None else ():
            fn = getattr(eager, name, None)
            try:
                packet = getattr(ck, name)
                overload = packet.default
            except (AttributeError, RuntimeError):
                continue
            if fn is None or list(inspect.signature(fn).parameters) != _schema_names(overload):
                continue
            ours = f"{CK_NAMESPACE}_{name}"
            if not hasattr(getattr(torch.ops, NAMESPACE), ours):
                schema = str(overload._schema).split("::", 1)[1].replace(name, ours, 1)
                try:
                    if lib is None:
                        lib = torch.library.Library(NAMESPACE, "FRAGMENT")
                    lib.define(schema)
                    lib.impl(ours, fn, "CompositeImplicitAutograd")
                except Exception:  # noqa: BLE001 - another copy of the pack registered it; reused below
                    pass
            try:
                target = getattr(getattr(torch.ops, NAMESPACE), ours).default
            except (AttributeError, RuntimeError):
                continue
            out[packet] = out[overload] = target
        if lib is not None:
            _state["lib"] = lib  # a Library's registrations live as long as the object
        _state["targets"] = out
        return out


def available() -> bool:
    return bool(targets())


def rewrite(graph: torch.fx.Graph) -> int:
    """Point every comfy-kitchen RoPE / AdaLN call of a dynamo FX graph at its composite twin; returns how many."""
    tmap = targets()
    if not tmap:
        return 0
    n = 0
    for node in graph.nodes:
        if node.op == "call_function" and node.target in tmap:
            node.target = tmap[node.target]
            n += 1
    return n


def uuid_part() -> str:
    """This file and comfy-kitchen's version (its eager math is what the rewritten graphs compute)."""
    return hashlib.sha256(Path(__file__).read_bytes() + library_version().encode()).hexdigest()
