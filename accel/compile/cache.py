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
  reclaim disk space);
- a damaged file in the folder (a disk filled up, a killed write, a copy gone wrong): inductor skips a FX-graph entry
  it cannot unpickle, but a truncated generated kernel module (`<dir>/xx/c....py`, `.so`) makes every compile of
  that graph fail, in every later ComfyUI session too. `quarantine(error)`: when a compile error names a file inside
  our folder, the folder is renamed to `compile-cache.damaged-<time>` (nothing is deleted; the report and the log say
  where it went), a fresh folder takes its place and the caller compiles again. A user-set folder is never moved:
  the error then names the file to delete.
"""
from __future__ import annotations

import os
import shutil
import threading
import time
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


def quarantine(err) -> str | None:
    """If `err` (a compile error, with its causes) names a file inside the active cache folder: move our folder aside
    (renamed, never deleted), start a fresh one and return the line for the report; None when the error is not about
    the cache, or the folder is the user's own (then the caller's failure reason names the file)."""
    d = _state.get("dir") if _state.get("active") else None
    if not d or not os.path.isdir(d):
        return None
    root = os.path.abspath(d) + os.sep
    named = _named_file(err, root)
    if named is None or _user_set() or _state.get("source", "").startswith(ENV_SWITCH):
        return None
    with _lock:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = Path(d)
        aside = target.with_name(f"{target.name}.damaged-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = target.with_name(f"{target.name}.damaged-{stamp}-{n}")
        try:
            os.rename(target, aside)
            target.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            log.warning("compile cache: %s is damaged (%s) and could not be moved aside (%s)", d, named, e)
            return None
        clear_inductor_caches()
    note = (f"cache: a damaged file in the compile cache ({os.path.relpath(named, root)}: {_first_line(err)}); the "
            f"folder was moved to {aside} (nothing deleted; remove it once this run works) and compiled afresh")
    log.warning("compile %s", note)
    return note


# A compiler that is missing or fails (no C++ compiler on the machine, a kernel that does not build) is not damage:
# inductor builds a cached module's kernels while the module is imported, so its errors pass through the cached
# file's module-level code too. Moving the folder aside then only costs the user their warm kernels, every try.
_TOOLCHAIN_ERRORS = ("InvalidCxxCompiler", "CppCompileError", "CUDACompileError", "CompilationError")


def _chain(err) -> list:
    out, seen, e = [], set(), err
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        out.append(e)
        e = getattr(e, "inner_exception", None) or e.__cause__ or e.__context__
    return out


def _named_file(err, root: str) -> str | None:
    """The first path under `root` that `err` or an exception it wraps names in its message (inductor's "Failed to
    import <file>", a SyntaxError's file, a shared object that does not load), or whose module-level code raised an
    error a damaged file raises (a file that imports but is not what inductor wrote: a SyntaxError, NameError,
    ImportError, EOFError, OSError, a pickle error). Never for a compiler failure (_TOOLCHAIN_ERRORS) and never for a
    frame inside a function of a cached file (a kernel running: out of memory, a bad input)."""
    import pickle
    import traceback

    chain = _chain(err)
    if any(type(e).__name__ in _TOOLCHAIN_ERRORS for e in chain):
        return None
    damage = (SyntaxError, NameError, ImportError, EOFError, OSError, UnicodeDecodeError, pickle.UnpicklingError)
    for e in chain:
        frames = ([f.filename for f in traceback.extract_tb(e.__traceback__) if f.name == "<module>"]
                  if isinstance(e, damage) else [])
        for text in [str(e), getattr(e, "filename", None) or ""] + frames:
            i = text.find(root)
            if i >= 0:
                return text[i:].split()[0].rstrip(".,:;)'\"")
    return None


def _first_line(err) -> str:
    e = err
    while (getattr(e, "inner_exception", None) or e.__cause__) is not None:
        e = getattr(e, "inner_exception", None) or e.__cause__
    line = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), "")
    return f"{type(e).__name__}: {line}"[:200]


def folder() -> str:
    """The compile cache folder in use (inductor writes its generated modules there)."""
    return _state.get("dir") or os.environ.get(ENV_TORCH) or _torch_default()


def info() -> dict:
    d = folder()
    return {"dir": d, "source": _state.get("source", "not activated yet"),
            "bytes": _size(d) if _state.get("active") else None}


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
