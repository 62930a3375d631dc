"""Every private or version-dependent torch.compile symbol the pack uses, in one place.

torch.compile's public API does not say how many variants a compiled function holds, why it recompiled or
whether the guard filter is supported; the pack needs all three to report what compile did. Each function
below names the torch symbol it reads, since when it exists, and what it returns where it does not: a
newer torch that drops a symbol degrades a report line, never a prompt. `tests/compile/test_dynamo_compat.py` runs
each against the installed torch (CI: 2.14.1; the GPU machine: 2.11), so a torch that changes one fails there.
Nothing here imports torch._dynamo / torch._inductor at module import time.
"""
from __future__ import annotations

import functools
import inspect
import logging
import re
import warnings

import torch


@functools.cache
def guard_filter_supported() -> bool:
    """torch.compile(options={"guard_filter_fn": f}) is honoured (torch >= 2.8: torch/__init__.py pops it
    from the options and hands it to `torch._dynamo.eval_frame._optimize(guard_filter_fn=)`). Detected from
    that function's signature, which needs no source files (the old check read torch.compile's source and
    said "unsupported" on installs shipped without .py sources)."""
    try:
        import torch._dynamo.eval_frame as ef

        opt = getattr(ef, "_optimize", None)
        if opt is not None and "guard_filter_fn" in inspect.signature(opt).parameters:
            return True
    except Exception:  # noqa: BLE001
        pass
    try:
        return "guard_filter_fn" in inspect.getsource(torch.compile)
    except (OSError, TypeError):
        return False


@functools.cache
def compile_accepts(name: str) -> bool:
    """torch.compile takes keyword `name` (e.g. `recompile_limit`, torch >= 2.13)."""
    try:
        return name in inspect.signature(torch.compile).parameters
    except (TypeError, ValueError):
        return False


@functools.cache
def shares_block_graphs() -> bool:
    """Dynamo inlines nn.Modules, so parameters are graph inputs and every block of a class shares one graph
    (`torch._dynamo.config.inline_inbuilt_nn_modules`: opt-in before 2.5, default after, always on and
    deprecated from 2.10 — reading it then warns, so the warning is silenced and True assumed if absent)."""
    try:
        import torch._dynamo.config as dc
    except Exception:  # noqa: BLE001
        return True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bool(getattr(dc, "inline_inbuilt_nn_modules", True))


def inductor_has(name: str) -> bool:
    """`torch._inductor.config` has option `name` (e.g. `pre_grad_custom_pass`)."""
    try:
        import torch._inductor.config as ic

        return hasattr(ic, name)
    except Exception:  # noqa: BLE001
        return False


class RecompileLimit:
    """The recompile limit for one call where torch.compile has no `recompile_limit` keyword: dynamo's
    `config.recompile_limit` (2.6+; `cache_size_limit` before) set on entry and restored on exit."""

    __slots__ = ("limit", "old", "attr")

    def __init__(self, limit):
        self.limit = limit
        self.attr = None

    def __enter__(self):
        if compile_accepts("recompile_limit"):
            return self
        cfg = torch._dynamo.config
        self.attr = "recompile_limit" if hasattr(cfg, "recompile_limit") else "cache_size_limit"
        self.old = getattr(cfg, self.attr)
        if self.old != self.limit:
            setattr(cfg, self.attr, self.limit)
        else:
            self.attr = None
        return self

    def __exit__(self, *exc):
        if self.attr is not None:
            setattr(torch._dynamo.config, self.attr, self.old)
        return False


def raised_recompile_limits(n: int) -> dict:
    """`torch._dynamo.config.patch(**this)` values that let `n` cache entries per code object and in total
    (Accel VAE compiles every decoder block through one code object). The names changed across torch
    versions (recompile_limit / cache_size_limit, accumulated_*): the ones this torch has, never lowered."""
    cfg = torch._dynamo.config
    out = {}
    for name in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit", "accumulated_cache_size_limit"):
        cur = getattr(cfg, name, None)
        if isinstance(cur, int) and not isinstance(cur, bool):
            out[name] = max(cur, n)
    return out


_BOUND: dict = {}


def entry_counts(codes) -> dict:
    """Compiled variants (dynamo cache entries) per code object:
    `torch._C._dynamo.eval_frame._debug_get_cache_entry_list(code)` (2.1+). 0 where unavailable."""
    fn = _BOUND.get("entries")
    if fn is None:
        try:
            fn = torch._C._dynamo.eval_frame._debug_get_cache_entry_list
        except Exception:  # noqa: BLE001
            fn = lambda code: ()  # noqa: E731
        _BOUND["entries"] = fn
    out = {}
    for code in codes:
        try:
            out[code] = len(fn(code))
        except Exception:  # noqa: BLE001
            out[code] = 0
    return out


def unique_graphs() -> int:
    """Graphs dynamo has compiled in this process: `torch._dynamo.utils.counters["stats"]["unique_graphs"]`
    (2.0+). 0 where unavailable (the report then shows no graph count)."""
    counters = _BOUND.get("counters")
    if counters is None:
        try:
            from torch._dynamo.utils import counters
        except Exception:  # noqa: BLE001
            return 0
        _BOUND["counters"] = counters
    return counters["stats"]["unique_graphs"]


class _LimitLog(logging.Handler):
    """Counts dynamo's "hit config.recompile_limit" warnings (`cache_size_limit` before 2.6; logged by
    torch._dynamo.convert_frame since 2.0, not counted in its counters on 2.14): the frame named there runs eager from
    then on. Keeps the warning's "last reason" line."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.hits = 0
        self.last = ""

    def emit(self, record):
        try:
            msg = record.getMessage()
        except Exception:  # noqa: BLE001
            return
        if "hit config." in msg and ("recompile_limit" in msg or "cache_size_limit" in msg):
            self.hits += 1
            why = next((ln.split("last reason:", 1)[1].strip() for ln in msg.splitlines() if "last reason:" in ln), "")
            self.last = re.sub(r"^\d+/\d+: ", "", why).split("#", 1)[0].strip()[:200]


def _limit_log() -> _LimitLog:
    h = _BOUND.get("limit_log")
    if h is None:
        h = _BOUND["limit_log"] = _LimitLog()
    dyn = logging.getLogger("torch._dynamo")
    if h not in dyn.handlers:  # (again where torch's logging setup replaced the logger's handlers since)
        dyn.addHandler(h)
    return h


def dynamo_events() -> tuple:
    """(graph breaks, the latest one's reason, frames given up at the recompile limit, the latest one's reason) dynamo
    has recorded in this process: `torch._dynamo.utils.counters["graph_break"]` (reason -> count, 2.1+) and its
    recompile-limit warnings (`_LimitLog`). A graph break inside a compiled block leaves the code between its graphs
    eager; a frame at the recompile limit (e.g. a graph break's resume function guarded on something that differs per
    block) runs eager from then on."""
    lim = _limit_log()
    unique_graphs()  # binds the counters where torch has them
    counters = _BOUND.get("counters")
    n_breaks, last = 0, ""
    if counters is not None:
        try:
            breaks = counters["graph_break"]
            n_breaks = sum(breaks.values())
            last = next(reversed(breaks), "") if breaks else ""
        except Exception:  # noqa: BLE001
            n_breaks, last = 0, ""
    first_line = next((ln.strip() for ln in str(last).splitlines() if ln.strip()), "")
    return n_breaks, first_line[:200], lim.hits, lim.last


def last_guard_failure(codes) -> str:
    """Why the last recompile of any of `codes` happened: `torch._dynamo.utils.guard_failures[code]`
    (2.0+; entries like "0/0: tensor 'x' size mismatch ..."), first two lines. "" where unavailable."""
    try:
        from torch._dynamo.utils import guard_failures
    except Exception:  # noqa: BLE001
        return ""
    for code in codes:
        fails = guard_failures.get(code)
        if fails:
            text = str(fails[-1]).strip()
            lines = [re.sub(r"^\d+/\d+: ", "", ln.strip(" -")) for ln in text.splitlines() if ln.strip()]
            return "; ".join(lines[:2])[:300]
    return ""


def inductor_mode_options(mode: str) -> dict:
    """The inductor options a `mode` stands for: `torch._inductor.list_mode_options(mode)` (2.1+), passed as
    options because torch refuses mode and options together and the guard filter needs options. Without it:
    ImportError, which the compile wrapper treats as a failed compile (fallback chain, then eager)."""
    from torch._inductor import list_mode_options

    return dict(list_mode_options(mode))


def inductor_default_cache_dir() -> str | None:
    """inductor's own cache folder: `torch._inductor.runtime.cache_dir_utils.default_cache_dir()` (2.5+). None
    where unavailable (the cache report then says "torch default")."""
    try:
        from torch._inductor.runtime.cache_dir_utils import default_cache_dir

        return default_cache_dir()
    except Exception:  # noqa: BLE001
        return None


def clear_inductor_caches() -> None:
    """Drop inductor's in-memory memo of cache folders after the folder changed:
    `torch._inductor.utils.clear_caches()` (2.2+), only when inductor is already imported. Without it nothing
    is dropped (a folder change then takes effect for kernels compiled after the next restart)."""
    import sys

    utils = sys.modules.get("torch._inductor.utils")
    if utils is not None:
        try:
            utils.clear_caches()
        except Exception:  # noqa: BLE001
            pass
