"""The FX-graph rewrites Accel Compile hands to inductor as its `pre_grad_custom_pass` (never set globally): the
FFN epilogue (kernels/epilogue.py) and comfy-kitchen's RoPE and AdaLN traced into the graph (kernels/rope_trace.py).
One pass object per set of switched-on rewrites, with a uuid (inductor's caches key on it) from the rewrites' files."""
from __future__ import annotations

import hashlib

from . import config

try:
    from torch._inductor.custom_graph_pass import CustomGraphPass as _Base
except Exception:  # pragma: no cover - older torch: a plain object (inductor then bypasses its FX-graph cache)
    _Base = object

_PASSES: dict = {}


class PreGradPasses(_Base):
    def __init__(self, gelu: bool, rope: bool):
        self.gelu, self.rope = gelu, rope
        self._uuid = None  # the files' hashes and comfy-kitchen's version do not change while ComfyUI runs

    def __call__(self, graph) -> None:
        if self.rope:
            from ...kernels import rope_trace

            rope_trace.rewrite(graph)
        if self.gelu:
            from ...kernels import epilogue

            epilogue.rewrite(graph)

    def uuid(self):
        if self._uuid is None:
            from ...kernels import epilogue, rope_trace

            parts = [f"gelu={self.gelu},rope={self.rope}"]
            if self.gelu:
                parts.append(epilogue.uuid_part())
            if self.rope:
                parts.append(rope_trace.uuid_part())
            self._uuid = hashlib.sha256("|".join(parts).encode()).hexdigest()
        return self._uuid

    # pickled into cache keys as a string naming the passes and their uuid (not as a class reference, which would
    # carry the pack's module path: ComfyUI names custom node modules by their folder); copies keep the object
    def __reduce__(self):
        return (str, (f"comfyui_accel.PreGradPasses:{self.uuid()}",))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def pre_grad_pass():
    """The pass for the rewrites switched on in accel.compile.config, or None where none is."""
    key = (bool(config.GELU_EPILOGUE), bool(config.ROPE_TRACE))
    if not any(key):
        return None
    p = _PASSES.get(key)
    if p is None:
        if key[0]:
            from ...kernels.epilogue import op

            # register the GELU op now: code inductor loads from its on-disk caches calls it, and a cache hit skips
            # the pass that registers it on first use (a new process then took the warm cache for damaged)
            op()
        p = _PASSES[key] = PreGradPasses(*key)
    return p
