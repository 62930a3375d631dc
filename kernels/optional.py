"""Optional Triton kernel modules, imported on first use and remembered (one import attempt per process)."""
from __future__ import annotations

import importlib


def load_once(state: dict, module: str, on_error=None):
    """The kernels submodule `module` (e.g. "convert_triton") when it imports and says `available()`, else
    None; kept in state["mod"]. An import failure is kept as state["error"] (text) and, the one time it
    happens, passed to on_error(text) (e.g. to log what to install)."""
    try:
        return state["mod"]
    except KeyError:
        pass
    try:
        mod = importlib.import_module("." + module, __package__)
        state["mod"] = mod if mod.available() else None
    except Exception as e:  # noqa: BLE001 - depends on the machine (no triton, no compiler, ...)
        state["mod"] = None
        state["error"] = f"{type(e).__name__}: {e}"
        if on_error is not None:
            on_error(state["error"])
    return state["mod"]
