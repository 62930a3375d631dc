"""torch.compile for a ComfyUI MODEL that users can trust: regional, LoRA-safe, bounded recompiles,
warm restarts, and a fallback that never fails the prompt.

How it hooks in (the APPLY_MODEL wrapper pattern of core's comfy_api/torch_helpers/torch_compile.py):
a wrapper registered with `add_wrapper_with_key(APPLY_MODEL, "accel.compile", ...)` on a clone swaps a
thin `_Region` in place of each compiled module (each transformer block, or the whole diffusion
model) only for the duration of `BaseModel.apply_model`, then puts the originals back. The shared
nn.Module is never modified outside that call, so other MODEL outputs of the same loader stay eager.

What makes it trustworthy:
- One compiled function for all blocks of a class. `_Region` calls a runner `f(block, *args)`;
  with dynamo's inlined nn.Modules the block's parameters are graph inputs, so every Wan block (and
  both Wan 2.2 experts) reuse ONE graph. Non-contiguous tensor arguments are made contiguous first
  (Wan's first block receives a transposed view): otherwise block 0 needs its own graph.
- Guard filter: guards on `transformer_options` are dropped (except tensor shape/dtype guards), so
  LoRA clones, cond/uncond lists, sigmas, wrappers and deep-copied option objects never recompile.
  It is passed through inductor `options` (not `mode`), so it also holds for the max-autotune modes.
  What transformer_options does change inside the compiled code — the attention override and block
  patches — is summarised in a stable signature; each signature gets its own runner (its own
  dynamo cache), so swapping the attention backend can never run stale code.
- LoRA: weights are patched into the module by ComfyUI before apply_model, outside the compiled
  region; a LoRA loaded before or after this node takes effect and a strength change recompiles
  nothing. Compiled runners are cached per (block class, signature, settings) at module level, so a
  node re-executed for a new LoRA strength reuses them too.
- Shapes: `dynamic="auto"` compiles static first; a new resolution / frame count recompiles once
  (dynamo marks the changed dims dynamic) and the reason is logged.
- Memory: ComfyUI keeps managing the weights. Under DynamicVRAM (0.33) and in partial loads, each
  compiled block's weights are fetched eagerly just before it runs (accel.compile_stream), so the model
  is never forced resident and per-call LoRA patches never reach a guard.
- Failures (no triton, no C compiler, fp8e4nv on sm < 89, an unsupported op, ...) at compile or at
  any call: the call is re-run eagerly; if that succeeds, the next mode of the chain is used (or
  eager for the rest of this model's life), with one log line. `on_failure="raise"` raises an
  AccelError instead once the chain is exhausted.
- Warm restarts: accel.compile_cache points inductor's on-disk caches at a persistent folder.

Nothing here imports torch._dynamo / torch._inductor at module import time.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import re
import threading
import time
import types
import weakref
from dataclasses import dataclass, field

import torch

from . import compile_cache, compile_stream, log
from .dynamo_compat import (RecompileLimit, compile_accepts, entry_counts, guard_filter_supported, inductor_has,
                            last_guard_failure, shares_block_graphs, unique_graphs)
from .errors import AccelError

WRAPPER_KEY = "accel.compile"
CORE_WRAPPER_KEY = "torch.compile"  # comfy_api.torch_helpers.torch_compile.COMPILE_KEY

MODES = ("default", "max-autotune-no-cudagraphs", "max-autotune", "reduce-overhead")
# inductor: Linear -> GELU(tanh) runs as one cuBLASLt matmul with a GELU epilogue (kernels/epilogue.py)
GELU_EPILOGUE = True
SCOPES = ("blocks", "model")
DYNAMIC = ("auto", "true", "false")
BACKENDS = ("inductor", "cudagraphs")  # the node offers these; apply_compile accepts any registered backend
ON_FAILURE = ("eager", "raise")

_SCOPE_ALIASES = {"blocks": "blocks", "transformer blocks": "blocks", "block": "blocks",
                  "model": "model", "whole model": "model", "whole diffusion model": "model", "diffusion_model": "model"}


# --------------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------------

def apply_compile(model, mode="default", scope="blocks", dynamic="auto", fullgraph=False, backend="inductor",
                  recompile_limit=64, on_failure="eager", mode_chain=None, node="Accel Compile"):
    """Return `(patched_clone, report)`: a clone of `model` whose diffusion model runs compiled.

    Compilation is lazy (first sampling step). `mode_chain` (e.g. ["max-autotune-no-cudagraphs",
    "default"]) lists modes tried in order when compiling or a compiled call fails; eager follows the
    last one. `on_failure`: "eager" (log one line, run eager for the rest of this model's life) or
    "raise" (AccelError naming `node`).
    """
    cfg = _validate(mode, scope, dynamic, fullgraph, backend, recompile_limit, on_failure, mode_chain, node)
    m, memory_note = _clone(model, node)
    removed = []
    for key in (WRAPPER_KEY, CORE_WRAPPER_KEY):
        if m.get_wrappers(_wrappers_mp().APPLY_MODEL, key):
            m.remove_wrappers_with_key(_wrappers_mp().APPLY_MODEL, key)
            removed.append(key)
    if CORE_WRAPPER_KEY in removed:
        log.info("compile: replaced ComfyUI core's TorchCompileModel wrapper on this model (one compile wrapper at a time)")

    keys, region_note = _region_keys(m, cfg.scope)
    cfg.keys = tuple(keys)
    if len(keys) > 1 and not shares_block_graphs():
        # without inlined nn.Modules dynamo guards on each block's identity: one variant per block
        need = 2 * len(keys) + 8
        if cfg.recompile_limit < need:
            log.warn_once(("compile", "noinline"), "compile: torch._dynamo.config.inline_inbuilt_nn_modules is off, so "
                          "every block compiles separately; recompile limit raised from %d to %d", cfg.recompile_limit, need)
            cfg.recompile_limit = need
    cache_info = compile_cache.activate() if cfg.backend == "inductor" else None
    status = _status_for(m.model, cfg)
    if not status.fell_back:
        problem = _preflight(m, cfg)
        if problem:
            _fail_preflight(status, cfg, problem)
    wrapper = CompileWrapper(cfg)
    m.add_wrapper_with_key(_wrappers_mp().APPLY_MODEL, WRAPPER_KEY, wrapper)
    report = _report(m.model, cfg, status, region_note, cache_info, memory_note)
    log.info("%s", report.splitlines()[0])
    return m, report


def compile_status(model) -> dict:
    """Status of the compile wrapper on a MODEL (ModelPatcher): mode in use, whether it fell back and
    why, compile seconds and recompiles so far. `{"enabled": False}` when the model carries none."""
    ws = model.get_wrappers(_wrappers_mp().APPLY_MODEL, WRAPPER_KEY) if hasattr(model, "get_wrappers") else []
    if not ws:
        return {"enabled": False}
    w = ws[-1]
    base = getattr(model, "model", model)
    return w.status(base).as_dict()


def clear_cache() -> str:
    """Delete the persistent compile cache folder (see accel.compile_cache)."""
    return compile_cache.clear()


# --------------------------------------------------------------------------------------------------
# Settings, status
# --------------------------------------------------------------------------------------------------

@dataclass
class CompileConfig:
    chain: tuple  # modes in the order tried; eager after the last
    scope: str
    dynamic: bool | None
    dynamic_text: str
    fullgraph: bool
    backend: str
    recompile_limit: int
    on_failure: str
    node: str
    keys: tuple = ()

    @property
    def key(self) -> tuple:
        return (self.chain, self.scope, self.dynamic, self.fullgraph, self.backend, self.recompile_limit, self.keys)


@dataclass
class CompileStatus:
    requested_mode: str
    chain: tuple
    backend: str
    scope: str
    mode_index: int = 0
    fell_back: bool = False
    reason: str = ""
    failures: list = field(default_factory=list)  # [(mode, reason)]
    compile_seconds: float = 0.0
    compiles: int = 0  # calls that compiled something
    graphs: int = 0
    recompiles: int = 0
    last_recompile_reason: str = ""
    limit_hit: bool = False
    calls: int = 0
    regions: int = 0
    streamed_regions: int = 0  # regions of the last call whose weights were fetched outside the graph

    @property
    def mode(self) -> str:
        return "eager" if self.fell_back else self.chain[self.mode_index]

    def as_dict(self) -> dict:
        return {"enabled": True, "mode": self.mode, "requested_mode": self.requested_mode, "chain": list(self.chain),
                "backend": self.backend, "scope": self.scope, "fell_back": self.fell_back, "reason": self.reason,
                "failures": [list(f) for f in self.failures], "compile_seconds": round(self.compile_seconds, 3),
                "compiles": self.compiles, "graphs": self.graphs, "recompiles": self.recompiles,
                "last_recompile_reason": self.last_recompile_reason, "recompile_limit_hit": self.limit_hit,
                "calls": self.calls, "regions": self.regions, "streamed_regions": self.streamed_regions}


# status per BaseModel and settings: survives clones (LoRA) and node re-execution; dies with the model
_STATUS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_lock = threading.RLock()


def _status_for(base, cfg: CompileConfig) -> CompileStatus:
    with _lock:
        per = _STATUS.get(base)
        if per is None:
            per = {}
            _STATUS[base] = per
        st = per.get(cfg.key)
        if st is None:
            st = CompileStatus(cfg.chain[0], cfg.chain, cfg.backend, cfg.scope)
            per[cfg.key] = st
        return st


def _validate(mode, scope, dynamic, fullgraph, backend, recompile_limit, on_failure, mode_chain, node) -> CompileConfig:
    chain = list(mode_chain) if mode_chain else [mode]
    for md in chain:
        if md not in MODES:
            raise AccelError(node, "mode", f"unknown compile mode '{md}'", "choose one of " + ", ".join(MODES))
    sc = _SCOPE_ALIASES.get(str(scope).strip().lower())
    if sc is None:
        raise AccelError(node, "scope", f"unknown scope '{scope}'", "choose 'blocks' (each transformer block) or 'model' (the whole diffusion model)")
    dyn_text = str(dynamic).strip().lower() if not isinstance(dynamic, bool) else ("true" if dynamic else "false")
    if dynamic is None:
        dyn_text = "auto"
    if dyn_text not in DYNAMIC:
        raise AccelError(node, "dynamic", f"unknown value '{dynamic}'", "choose auto, true or false")
    dyn = {"auto": None, "true": True, "false": False}[dyn_text]
    if not isinstance(backend, str) or not backend:
        raise AccelError(node, "backend", f"invalid backend {backend!r}", "choose inductor or cudagraphs")
    try:
        limit = int(recompile_limit)
    except (TypeError, ValueError):
        raise AccelError(node, "recompile_limit", f"not a number: {recompile_limit!r}", "use an integer such as 64") from None
    if limit < 1:
        raise AccelError(node, "recompile_limit", f"must be at least 1 (got {limit})", "use e.g. 64")
    if on_failure not in ON_FAILURE:
        raise AccelError(node, "on_failure", f"unknown value '{on_failure}'", "choose eager or raise")
    return CompileConfig(tuple(chain), sc, dyn, dyn_text, bool(fullgraph), backend, limit, on_failure, node)


def _wrappers_mp():
    import comfy.patcher_extension as pe

    return pe.WrappersMP


def _clone(model, node="Accel Compile"):
    """(clone, memory note). A DynamicVRAM model stays dynamic where this ComfyUI has the block-fetch API
    (accel.compile_stream); elsewhere `clone(disable_dynamic=True)` (what core's TorchCompileModel does)."""
    if not compile_stream.patcher_is_dynamic(model):
        return model.clone(), None
    why = compile_stream.dynamic_support()
    if why is None:
        return model.clone(), ("memory: DynamicVRAM kept (ComfyUI streams the weights; each compiled block fetches "
                               "its weights just before it runs)")
    try:
        params = inspect.signature(model.clone).parameters
    except (TypeError, ValueError):
        params = {}
    if "disable_dynamic" in params:
        if getattr(model, "cached_patcher_init", None) is None:
            # ComfyUI would raise a bare "Cannot create non-dynamic delegate" RuntimeError here.
            raise AccelError(node, "model", "this model is a DynamicVRAM model whose loader cannot re-create it "
                             "without DynamicVRAM (no cached_patcher_init), and torch.compile needs that",
                             "load it with a core loader (Load Diffusion Model / Load Checkpoint) or 'Accel Load "
                             "Diffusion Model (FP8)', or start ComfyUI with --disable-dynamic-vram")
        log.warning("compile: DynamicVRAM turned off for this model (%s); it loads like --disable-dynamic-vram", why)
        return model.clone(disable_dynamic=True), (f"memory: DynamicVRAM OFF for this model ({why}); "
                                                   "ComfyUI loads it the legacy way (resident, or partial on small cards)")
    return model.clone(), None


def _region_keys(model, scope):
    from . import families

    fam = families.detect(model)
    if scope == "blocks":
        if fam.block_keys:
            lists = sorted({k.rsplit(".", 1)[0] for k in fam.block_keys})
            return list(fam.block_keys), f"{len(fam.block_keys)} blocks of {fam.name} ({', '.join(lists)})"
        log.warn_once(("compile", "noblocks", fam.base_class),
                      "compile: no transformer block list found in %s; compiling the whole diffusion model", fam.name)
        return ["diffusion_model"], f"whole diffusion model ({fam.name} has no block list)"
    return ["diffusion_model"], f"whole diffusion model ({fam.name})"


# --------------------------------------------------------------------------------------------------
# Preflight: failures we can predict without spending minutes in a compile that is bound to fail
# --------------------------------------------------------------------------------------------------

def _preflight(model, cfg: CompileConfig) -> str | None:
    from . import report as report_mod

    try:
        prof = report_mod.profile()
    except Exception:
        return None
    dev = getattr(model, "load_device", None)
    kind = getattr(dev, "type", None) or prof.device_kind
    if cfg.backend == "inductor":
        if kind == "cuda" and not prof.triton:
            return "triton is not installed, so inductor cannot build GPU kernels (install triton on Linux, triton-windows on Windows)"
        if kind == "cpu" and not prof.c_compiler:
            return "no C/C++ compiler found for inductor's CPU backend (install gcc or clang)"
        if kind == "cuda" and prof.device_kind == "cuda" and prof.sm is not None and prof.sm < (8, 9):
            dm = getattr(model.model, "diffusion_model", None)
            if dm is not None and _has_dtype(dm, getattr(torch, "float8_e4m3fn", None)):
                return (f"the weights are float8_e4m3fn and Triton cannot compile fp8e4nv on sm{prof.sm_int} "
                        "(needs SM >= 8.9); load the model as fp8_e5m2 or bf16 to compile it")
    elif cfg.backend == "cudagraphs" and kind != "cuda":
        return f"the cudagraphs backend needs a CUDA device (this model runs on {kind})"
    if not guard_filter_supported():
        log.warn_once(("compile", "noguardfilter"),
                      "compile: this torch (%s) has no guard_filter_fn; LoRA or attention changes may recompile", torch.__version__)
    return None


def _has_dtype(module, dtype) -> bool:
    if dtype is None:
        return False
    return any(p.dtype == dtype for p in module.parameters())


def _fail_preflight(status: CompileStatus, cfg: CompileConfig, problem: str) -> None:
    if cfg.on_failure == "raise":
        raise AccelError(cfg.node, "backend", f"torch.compile cannot work here: {problem}",
                         "set on_failure to eager to run without compile, or fix the cause")
    status.fell_back = True
    status.reason = problem
    status.failures.append((cfg.chain[0], problem))
    log.warning("compile: running eager (%s)", problem)


# --------------------------------------------------------------------------------------------------
# The wrapper
# --------------------------------------------------------------------------------------------------

class _Region(torch.nn.Module):
    """Stands in for one compiled module during apply_model: calls the shared compiled runner with the
    original module as its first argument. Attribute reads fall through to the original module."""

    def __init__(self, orig, call_state):
        super().__init__()
        self._orig_mod = orig
        object.__setattr__(self, "_call_state", call_state)  # not a submodule; shared by the wrapper

    def __getattr__(self, name):
        mods = self.__dict__.get("_modules")
        if mods is None or "_orig_mod" not in mods:
            raise AttributeError(name)
        if name == "_orig_mod":
            return mods["_orig_mod"]
        return getattr(mods["_orig_mod"], name)

    def __call__(self, *args, **kwargs):  # bypasses nn.Module hook dispatch on this stand-in
        if args:
            args = tuple(a.contiguous() if isinstance(a, torch.Tensor) and not a.is_contiguous() else a for a in args)
        if kwargs:
            for k, v in kwargs.items():
                if isinstance(v, torch.Tensor) and not v.is_contiguous():
                    kwargs[k] = v.contiguous()
        orig = self._modules["_orig_mod"]
        cs = self._call_state
        fn = cs.runners.get(type(orig))
        if fn is None:
            return orig(*args, **kwargs)
        return cs.fetcher.run(orig, fn, args, kwargs)

    forward = __call__


_NO_RUNNERS: dict = {}


class _CallState:
    """Per BaseModel: the swap targets, and the runners for the current call."""

    __slots__ = ("status", "targets", "runners", "runner_sets", "fetcher", "__weakref__")

    def __init__(self):
        self.status = None
        self.targets = None  # [(parent, name, orig, region)]
        self.runners = _NO_RUNNERS  # module class -> compiled runner, set for the duration of a call
        self.runner_sets = {}  # (signature, mode) -> ({module class: runner}, [runner code objects])
        self.fetcher = compile_stream.BlockFetcher()


class CompileWrapper:
    """APPLY_MODEL wrapper. Shared by every clone of the patcher it was added to (clone() copies the
    wrapper lists, not the objects) and never deep-copied."""

    def __init__(self, cfg: CompileConfig):
        self.cfg = cfg
        self._states: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    def status(self, base) -> CompileStatus:
        return _status_for(base, self.cfg)

    # -- per call -----------------------------------------------------------------------------------
    def __call__(self, executor, *args, **kwargs):
        base = executor.class_obj
        cs = self._states.get(base)
        if cs is None:
            cs = self._prepare(base)
        st = cs.status
        if st.fell_back:
            return executor(*args, **kwargs)
        to = args[5] if len(args) > 5 and isinstance(args[5], dict) else kwargs.get("transformer_options") or {}
        mode = st.chain[st.mode_index]
        rkey = (_signature(to, self.cfg.scope), mode)
        hit = cs.runner_sets.get(rkey)
        if hit is None:
            runners = {cls: _runner(cls, rkey[0], mode, self.cfg) for cls in {type(t[2]) for t in cs.targets}}
            hit = cs.runner_sets[rkey] = (runners, [_RUNNER_CODES[id(fn)] for fn in runners.values()])
        runners, codes = hit
        cs.runners = runners
        cs.fetcher.streamed = 0
        before = entry_counts(codes)
        graphs0 = unique_graphs()
        t0 = time.perf_counter()
        try:
            with RecompileLimit(self.cfg.recompile_limit):
                out = self._run_swapped(executor, cs, args, kwargs)
        except Exception as e:  # noqa: BLE001 - any compile/first-call failure; genuine errors re-raise below
            if _is_interrupt(e):
                raise
            return self._on_failure(executor, args, kwargs, st, mode, e)
        finally:
            cs.runners = _NO_RUNNERS
        st.calls += 1
        st.streamed_regions = cs.fetcher.streamed
        if unique_graphs() != graphs0:  # dynamo compiled something during this call
            self._account(st, codes, before, graphs0, time.perf_counter() - t0)
        return out

    def _prepare(self, base):
        cs = _CallState()
        cs.status = st = _status_for(base, self.cfg)
        targets = []
        for key in self.cfg.keys:
            parent, name = _resolve_parent(base, key)
            orig = parent._modules[name]
            targets.append((parent, name, orig, _Region(orig, cs)))
        cs.targets = targets
        st.regions = len(targets)
        self._states[base] = cs
        return cs

    @staticmethod
    def _run_swapped(executor, cs, args, kwargs):
        targets = cs.targets
        swapped = []
        try:
            for i, (parent, name, orig, region) in enumerate(targets):
                cur = parent._modules.get(name)
                if cur is not orig:
                    # an object patch put another module there since we looked: compile that one if it is
                    # of the same class, else leave it alone
                    if cur is None or isinstance(cur, _Region) or type(cur) not in cs.runners:
                        continue
                    region = _Region(cur, cs)
                    targets[i] = (parent, name, cur, region)
                    orig = cur
                parent._modules[name] = region
                swapped.append((parent, name, orig))
            return executor(*args, **kwargs)
        finally:
            for parent, name, orig in swapped:
                parent._modules[name] = orig

    def _account(self, st, codes, before, graphs0, seconds):
        after = entry_counts(codes)
        new = {c: (before.get(c, 0), n - before.get(c, 0)) for c, n in after.items() if n > before.get(c, 0)}
        st.compiles += 1
        st.graphs += max(0, unique_graphs() - graphs0)
        st.compile_seconds += seconds
        recompiled = sum(k for known, k in new.values() if known > 0)
        if recompiled:
            st.recompiles += recompiled
            st.last_recompile_reason = last_guard_failure(new)
            log.info("compile: recompiled (%s) in %.1f s; %d recompile(s) so far for this model, limit %d",
                     st.last_recompile_reason or "reason not recorded", seconds, st.recompiles, self.cfg.recompile_limit)
        elif new:
            log.info("compile: compiled %d region(s) with mode %s (%s) in %.1f s",
                     st.regions, st.chain[st.mode_index], self.cfg.backend, seconds)
        if not st.limit_hit and any(n >= self.cfg.recompile_limit for n in after.values()):
            st.limit_hit = True
            log.warning("compile: the recompile limit (%d) is reached; new shapes now run eager. Raise "
                        "recompile_limit or use dynamic=true for workflows with many resolutions.", self.cfg.recompile_limit)

    def _on_failure(self, executor, args, kwargs, st, mode, err):
        """The compiled call failed. Run the same call eagerly: if that fails too, the model (not the
        compiler) is at fault and its error is raised unchanged. Otherwise advance the mode chain."""
        reason = _short_error(err)
        out = executor(*args, **kwargs)  # raises the model's own error if eager fails too
        st.failures.append((mode, reason))
        st.calls += 1
        if st.mode_index + 1 < len(st.chain):
            st.mode_index += 1
            log.warning("compile: mode %s failed (%s); using mode %s from the next call on",
                        mode, reason, st.chain[st.mode_index])
            return out
        if self.cfg.on_failure == "raise":
            raise AccelError(self.cfg.node, "mode", f"torch.compile failed with mode {mode} ({reason})",
                             "set on_failure to eager to run without compile, or choose another mode/backend") from err
        st.fell_back = True
        st.reason = f"{mode}: {reason}"
        log.warning("compile: torch.compile failed (%s: %s); this model runs eager from now on", mode, reason)
        return out


# --------------------------------------------------------------------------------------------------
# Compiled runners: one per (module class, signature, mode/settings), kept for the process
# --------------------------------------------------------------------------------------------------

def _runner_template(module, *args, **kwargs):
    return module(*args, **kwargs)


_RUNNERS: dict = {}
_RUNNER_CODES: dict = {}  # id(compiled fn) -> its code object (for cache-entry counts)


def _runner(cls, sig, mode, cfg: CompileConfig):
    key = (cls, sig, mode, cfg.backend, cfg.dynamic, cfg.fullgraph, cfg.recompile_limit)
    fn = _RUNNERS.get(key)
    if fn is not None:
        return fn
    with _lock:
        fn = _RUNNERS.get(key)
        if fn is not None:
            return fn
        digest = hashlib.sha1(repr((sig, mode, cfg.backend, cfg.dynamic, cfg.fullgraph)).encode()).hexdigest()[:10]
        name = "accel_" + re.sub(r"\W", "_", cls.__name__) + "_" + digest
        code = _runner_template.__code__.replace(co_name=name)
        if hasattr(code, "co_qualname"):
            code = code.replace(co_qualname=name)
        raw = types.FunctionType(code, _runner_template.__globals__, name)
        fn = torch.compile(raw, **_compile_kwargs(mode, cfg))
        _RUNNERS[key] = fn
        _RUNNER_CODES[id(fn)] = code
        return fn


def _compile_kwargs(mode, cfg: CompileConfig) -> dict:
    kw = {"backend": cfg.backend, "fullgraph": cfg.fullgraph, "dynamic": cfg.dynamic}
    gf = _guard_filter if guard_filter_supported() else None
    if cfg.backend == "inductor":
        from torch._inductor import list_mode_options

        opts = dict(list_mode_options(mode))  # options instead of mode: torch refuses both, and the filter needs options
        if gf is not None:
            opts["guard_filter_fn"] = gf
        if GELU_EPILOGUE and inductor_has("pre_grad_custom_pass"):
            from ..kernels.epilogue import GELU_EPILOGUE_PASS

            opts["pre_grad_custom_pass"] = GELU_EPILOGUE_PASS
        if opts:
            kw["options"] = opts
        else:
            kw["mode"] = mode
    elif gf is not None:
        kw["options"] = {"guard_filter_fn": gf}
    if compile_accepts("recompile_limit"):
        kw["recompile_limit"] = cfg.recompile_limit
    return kw


def _guard_filter(entries):
    """Keep every guard except those on transformer_options (tensor shape/dtype guards there stay)."""
    return [("transformer_options" not in e.name) or e.guard_type == "TENSOR_MATCH" for e in entries]


# --------------------------------------------------------------------------------------------------
# Signature of what transformer_options changes inside the compiled code
# --------------------------------------------------------------------------------------------------

_SIG_MEMO: dict = {}
_SIMPLE = (str, int, float, bool, type(None))


def _signature(to: dict, scope: str) -> str:
    """A stable text for the attention override and model patches in transformer_options. Stable across
    deep copies and node re-execution (qualnames and simple values, never ids), different when the
    kernel or patch set differs."""
    parts = []
    ov = to.get("optimized_attention_override")
    parts.append("attn=" + (_describe_memo(ov) if ov is not None else "-"))
    patches = to.get("patches")
    if patches:
        parts.append("patches=" + ",".join(f"{k}:{_describe_list(v)}" for k, v in sorted(patches.items()) if v))
    pr = to.get("patches_replace")
    if pr:
        items = []
        for name, d in sorted(pr.items()):
            if scope == "blocks" and name == "dit":
                continue  # block replacements run outside the compiled blocks
            if d:
                items.append(f"{name}:" + ",".join(f"{k}={_describe_memo(v)}" for k, v in sorted(d.items(), key=lambda kv: repr(kv[0]))))
        if items:
            parts.append("replace=" + ";".join(items))
    return "|".join(parts)


def _describe_list(v):
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_describe_memo(x) for x in v) + "]"
    return _describe_memo(v)


def _describe_memo(obj) -> str:
    key = id(obj)
    hit = _SIG_MEMO.get(key)
    if hit is not None and hit[0] is obj:
        return hit[1]
    text = _describe(obj, 0)
    if len(_SIG_MEMO) > 256:
        _SIG_MEMO.clear()
    _SIG_MEMO[key] = (obj, text)  # holds obj so its id cannot be reused while memoised
    return text


def _describe(obj, depth) -> str:
    """Qualified names and simple values only: never ids (deep copies and re-executed nodes must map to
    the same text) and never the contents of mutable containers held by objects (caches, tuner memos:
    they change while the model runs)."""
    if isinstance(obj, _SIMPLE):
        return repr(obj)[:80]
    try:
        sig = getattr(obj, "accel_signature", None)
    except Exception:
        sig = None
    if isinstance(sig, str):
        return sig
    if isinstance(obj, (torch.dtype, torch.device)):
        return str(obj)
    if depth > 3:
        return type(obj).__qualname__
    if isinstance(obj, tuple) or (isinstance(obj, list) and depth == 0):
        return "(" + ",".join(_describe(x, depth + 1) for x in list(obj)[:8]) + ")"
    if isinstance(obj, (list, dict, set, frozenset)):
        if isinstance(obj, frozenset) and all(isinstance(x, _SIMPLE + (torch.dtype,)) for x in obj):
            return "{" + ",".join(sorted(str(x) for x in obj))[:120] + "}"
        return type(obj).__name__
    if isinstance(obj, functools.partial):
        args = ",".join(_describe(x, depth + 1) for x in obj.args[:8])
        kws = ",".join(f"{k}={_describe(v, depth + 1)}" for k, v in sorted(obj.keywords.items())[:8])
        return f"partial({_describe(obj.func, depth + 1)};{args};{kws})"
    if isinstance(obj, types.MethodType):
        return f"{_describe(obj.__func__, depth + 1)}@{_describe(obj.__self__, depth + 1)}"
    if isinstance(obj, types.FunctionType):
        text = f"{obj.__module__}.{obj.__qualname__}"
        if obj.__closure__:
            cells = []
            for c in obj.__closure__[:8]:
                try:
                    cells.append(_describe(c.cell_contents, depth + 1))
                except ValueError:  # empty cell
                    cells.append("?")
            text += "<" + ",".join(cells) + ">"
        return text
    if isinstance(obj, (type, types.BuiltinFunctionType, types.ModuleType)):
        return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', getattr(obj, '__name__', '?'))}"
    if isinstance(obj, torch.Tensor):
        return f"tensor{tuple(obj.shape)}{obj.dtype}"
    cls = type(obj)
    text = f"{cls.__module__}.{cls.__qualname__}"
    if isinstance(obj, torch.nn.Module):
        return text
    attrs = dict(getattr(obj, "__dict__", None) or {})
    for klass in cls.__mro__:
        for name in getattr(klass, "__slots__", ()) or ():
            if isinstance(name, str) and not name.startswith("__") and name not in attrs and hasattr(obj, name):
                attrs[name] = getattr(obj, name)
    vals = [f"{k}={_describe(v, depth + 1)}" for k, v in sorted(attrs.items()) if not k.startswith("_")][:16]
    if vals:
        text += "{" + ",".join(vals) + "}"
    return text


# --------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------

def _resolve_parent(base, key):
    parts = key.split(".")
    obj = base
    for p in parts[:-1]:
        obj = obj._modules[p] if p in getattr(obj, "_modules", {}) else getattr(obj, p)
    return obj, parts[-1]


def _is_interrupt(e) -> bool:
    try:
        import comfy.model_management as mm

        return isinstance(e, mm.InterruptProcessingException)
    except Exception:
        return False


def _short_error(e) -> str:
    """One line naming the root cause (dynamo wraps backend errors in BackendCompilerFailed etc.)."""
    inner = e
    for _ in range(6):
        nxt = getattr(inner, "inner_exception", None) or inner.__cause__
        if nxt is None or nxt is inner:
            break
        inner = nxt
    lines = [ln.strip() for ln in str(inner).splitlines() if ln.strip()]
    first = lines[0] if lines else ""
    for ln in lines[1:6]:
        low = ln.lower()
        if any(w in low for w in ("not supported", "cannot find", "no such file", "unsupported", "fp8e4nv", "compiler")):
            first = f"{first} ... {ln}"
            break
    text = f"{type(inner).__name__}: {first}" if first else type(inner).__name__
    if inner is not e:
        text = f"{type(e).__name__} <- {text}"
    return text[:400]


def _report(base, cfg: CompileConfig, st: CompileStatus, region_note: str, cache_info, memory_note=None) -> str:
    chain = " -> ".join(cfg.chain) + " -> eager"
    head = (f"compile: mode {st.mode} ({cfg.backend}), scope {region_note}, dynamic {cfg.dynamic_text}, "
            f"fullgraph {'on' if cfg.fullgraph else 'off'}, recompile limit {cfg.recompile_limit}")
    lines = [head]
    if len(cfg.chain) > 1:
        lines.append(f"  fallback chain: {chain}")
    if guard_filter_supported():
        lines.append("  guard filter: transformer_options ignored (LoRA, cond/uncond, cache and option changes do not recompile; "
                     "attention backends are keyed separately)")
    else:
        lines.append(f"  guard filter: unavailable on torch {torch.__version__}; LoRA/attention changes may recompile")
    if cfg.backend == "inductor" and GELU_EPILOGUE and inductor_has("pre_grad_custom_pass"):
        lines.append("  FFN epilogue: Linear -> GELU(tanh) runs as one cuBLASLt matmul with the GELU in its epilogue "
                     "(one memory pass fewer per FFN; same math)")
    if memory_note:
        lines.append("  " + memory_note)
    if cache_info is not None:
        lines.append("  cache: " + compile_cache.describe())
    if st.fell_back:
        lines.append(f"  status: EAGER - {st.reason}")
    elif st.calls == 0:
        lines.append("  status: compiles on the first sampling step (lazy)")
    else:
        lines.append(f"  status: {st.compile_seconds:.1f} s compiling so far, {st.graphs} graph(s), "
                     f"{st.recompiles} recompile(s)" + (f" (last: {st.last_recompile_reason})" if st.last_recompile_reason else ""))
    for md, why in st.failures:
        lines.append(f"  failed: {md}: {why}")
    return "\n".join(lines)
