"""Persistent torch.compile cache: warm restarts reuse compiled kernels instead of compiling again.

Inductor keeps its FX-graph cache, AOTAutograd cache, autotune results and Triton kernels under one
directory (`TORCHINDUCTOR_CACHE_DIR`, default `/tmp/torchinductor_<user>`, which a reboot or a temp
cleaner may wipe). The pack points that directory at a folder in ComfyUI's user directory,
`<ComfyUI>/user/comfyui-accel/compile-cache/`, so that restarting ComfyUI and running the same
workflow only re-traces (seconds) and loads the compiled kernels from disk.

Rules:
- a `TORCHINDUCTOR_CACHE_DIR` the user set before ComfyUI started always wins (we only report it);
- `ACCEL_COMPILE_CACHE_DIR` overrides our folder; `ACCEL_COMPILE_CACHE=off` leaves torch's default;
- activation happens on the first compile request, never at import (no torch._inductor import at
  ComfyUI start-up);
- `clear()` deletes our folder (the README says when that helps: after a driver/toolchain change or to
  reclaim disk space).
"""
from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

from ..common import log
from .dynamo_compat import clear_inductor_caches, inductor_default_cache_dir

ENV_TORCH = "TORCHINDUCTOR_CACHE_DIR"
ENV_DIR = "ACCEL_COMPILE_CACHE_DIR"
ENV_SWITCH = "ACCEL_COMPILE_CACHE"

# What was set when the pack was imported. torch itself writes its default folder into the variable on
# first use, so a value equal to torch's default counts as "not set by the user" (see _user_set()).
_AT_IMPORT = os.environ.get(ENV_TORCH)
_lock = threading.Lock()
_state: dict = {}


def default_dir() -> Path:
    """Our folder: ACCEL_COMPILE_CACHE_DIR, else <ComfyUI user dir>/comfyui-accel/compile-cache."""
    env = os.environ.get(ENV_DIR)
    if env:
        return Path(env)
    try:
        import folder_paths

        base = Path(folder_paths.get_user_directory())
    except Exception:  # pure-library use without ComfyUI
        base = Path.home() / ".cache"
    return base / "comfyui-accel" / "compile-cache"


def activate() -> dict:
    """Point inductor's caches at the persistent folder (once per process). Returns `info()`."""
    with _lock:
        if _state.get("active"):
            return info()
        mode = (os.environ.get(ENV_SWITCH) or "on").lower()
        user = _user_set()
        if user:
            _state.update(active=True, dir=user, source="TORCHINDUCTOR_CACHE_DIR set by the user")
        elif mode in ("off", "0", "false", "no"):
            _state.update(active=True, dir=os.environ.get(ENV_TORCH) or _torch_default(),
                          source=f"{ENV_SWITCH}=off: torch's default folder")
        else:
            target = default_dir()
            try:
                target.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                log.warn_once(("compile-cache", "mkdir"),
                              "compile cache: cannot create %s (%s); torch's default cache folder is used", target, e)
                _state.update(active=True, dir=os.environ.get(ENV_TORCH) or _torch_default(),
                              source=f"torch default ({target} not writable)")
                return info()
            current = os.environ.get(ENV_TORCH)
            os.environ[ENV_TORCH] = str(target)
            if current and os.path.abspath(current) != str(target.absolute()):
                clear_inductor_caches()  # inductor already resolved another folder in this process
            _state.update(active=True, dir=str(target), source="comfyui-accel persistent folder")
        log.info("compile cache: %s (%s)", _state["dir"], _state["source"])
        return info()


def info() -> dict:
    d = _state.get("dir") or os.environ.get(ENV_TORCH) or _torch_default()
    return {"dir": d, "source": _state.get("source", "not activated yet"), "bytes": _size(d) if _state.get("active") else None}


def describe() -> str:
    i = info()
    size = f", {i['bytes'] / 2**20:.1f} MiB" if i.get("bytes") is not None else ""
    return f"{i['dir']} ({i['source']}{size})"


def clear() -> str:
    """Delete the persistent folder's contents (only our folder, never a user-set one). Returns what was done."""
    with _lock:
        target = default_dir()
        user = _user_set()
        if user:
            return f"not cleared: TORCHINDUCTOR_CACHE_DIR is set by the user ({user}); delete it yourself"
        if not target.exists():
            return f"nothing to clear ({target} does not exist)"
        size = _size(str(target))
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True, exist_ok=True)
        clear_inductor_caches()
        log.info("compile cache: cleared %s (%.1f MiB)", target, size / 2**20)
        return f"cleared {target} ({size / 2**20:.1f} MiB)"


def _user_set() -> str | None:
    """The user's own TORCHINDUCTOR_CACHE_DIR, if any (torch's default folder does not count)."""
    v = _AT_IMPORT
    if not v or os.path.abspath(v) == os.path.abspath(_torch_default()):
        return None
    return v


def _torch_default() -> str:
    return inductor_default_cache_dir() or "torch default"


def _size(path: str) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total
