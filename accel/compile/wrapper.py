"""The APPLY_MODEL wrapper: swaps a thin `_Region` in place of each compiled module for the duration of one
`apply_model` call, runs the compiled runners, accounts compiles and recompiles, and falls back on failure."""
from __future__ import annotations

import os
import re
import sys
import time
import weakref

import torch

from ..common import log
from ..common.errors import AccelError, oom_cause, out_of_memory
from ..common.policy import Policy
from . import cache as compile_cache
from . import graphs as compile_graphs
from . import stream as compile_stream
from .config import CompileConfig, CompileStatus, status_for
from .dynamo_compat import RecompileLimit, dynamo_events, entry_counts, last_guard_failure, unique_graphs
from .prefetch import Prefetcher, PrefetchStats
from .runners import RUNNER_CODES, compiled_runner
from .signature import options_signature


class _Region(torch.nn.Module):
    """Stands in for one compiled module during apply_model: calls the shared compiled runner with the
    original module as its first argument. Attribute reads fall through to the original module."""

    _arg_names: tuple | None = None  # a typed stand-in (`_typed_region`): the forward's argument names

    def __init__(self, orig, call_state):
        torch.nn.Module.__init__(self)  # not the original class's __init__ in a typed stand-in
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
        names = self._arg_names
        if names and args and len(args) <= len(names):
            # by name: the guard filter knows transformer_options by its name (a UNet's walk passes it positionally)
            kwargs = {**dict(zip(names[:len(args)], args, strict=True)), **kwargs}
            args = ()
        return cs.fetcher.run(orig, fn, args, kwargs)

    forward = __call__


_TYPED: dict = {}


def _typed_region(cls) -> type:
    """A stand-in class that is also a `cls`: for the layers of a UNet block, which ComfyUI's walk
    (`forward_timestep_embed`) calls with arguments chosen by `isinstance` (a ResBlock gets the timestep embedding, a
    SpatialTransformer the context). Attribute reads still fall through to the original module: the stand-in holds no
    state of `cls`'s own (its __init__ is not run)."""
    typed = _TYPED.get(cls)
    if typed is None:
        import inspect

        try:
            params = list(inspect.signature(cls.forward).parameters.values())[1:]
        except (TypeError, ValueError):
            params = []
        plain = all(p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params)
        names = tuple(p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD) if plain else None
        typed = _TYPED[cls] = type(f"_Region_{cls.__name__}", (_Region, cls),
                                   {"__module__": __name__, "_arg_names": names})
    return typed


def _stand_in(parent, orig, call_state):
    """The region standing in for `orig` in `parent`: typed where the parent calls its layers by their type."""
    if any(k.__name__ == "TimestepEmbedSequential" for k in type(parent).__mro__):
        return _typed_region(type(orig))(orig, call_state)
    return _Region(orig, call_state)


_NO_RUNNERS: dict = {}


class _CallState:
    """Per BaseModel: the swap targets, and the runners for the current call."""

    __slots__ = ("status", "targets", "runners", "runner_sets", "fetcher", "graphs", "__weakref__")

    def __init__(self):
        self.status = None
        self.targets = None  # [(parent, name, orig, region)]
        self.runners = _NO_RUNNERS  # module class -> compiled runner, set for the duration of a call
        self.runner_sets = {}  # (signature, mode) -> ({module class: runner}, [runner code objects])
        self.fetcher = compile_stream.BlockFetcher()
        self.graphs = compile_graphs.GraphState()  # CUDA graphs of whole calls (cuda_graphs on)


class CompileWrapper:
    """APPLY_MODEL wrapper. Shared by every clone of the patcher it was added to (clone() copies the
    wrapper lists, not the objects) and never deep-copied."""

    def __init__(self, cfg: CompileConfig):
        self.cfg = cfg
        self._states: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    def status(self, base) -> CompileStatus:
        return status_for(base, self.cfg)

    def end_run(self, patcher) -> None:
        """ON_CLEANUP (ComfyUI's cleanup after sampling): the run's CUDA graphs and their memory are dropped."""
        cs = self._states.get(getattr(patcher, "model", None))
        if cs is None:
            return
        g, st = cs.graphs, cs.status
        run = g.run
        if run["calls"]:
            st.graph_last_run = dict(run)
        g.end_run()

    # -- per call -----------------------------------------------------------------------------------
    def __call__(self, executor, *args, **kwargs):
        base = executor.class_obj
        cs = self._states.get(base)
        if cs is None:
            cs = self._prepare(base)
        st = cs.status
        if st.fell_back:
            if self.cfg.policy is Policy.ERROR:  # an earlier node with 'fall back' gave up on these settings
                raise AccelError("on_failure", f"torch.compile already failed for this model with these settings "
                                 f"({st.reason}) and it runs eager",
                                 "set on_failure to 'fall back' to run without compile, or choose another "
                                 "mode/backend", title=self.cfg.title)
            return executor(*args, **kwargs)
        if self.cfg.cuda_graphs:
            return self._graph_call(executor, cs, base, args, kwargs)
        return self._compiled_call(executor, cs, args, kwargs)

    # -- CUDA graphs of whole calls (accel.compile.graphs) ------------------------------------------
    def _graph_call(self, executor, cs, base, args, kwargs):
        """Replay this call's graph, capture it, or run it compiled (and say why)."""
        st, g = cs.status, cs.graphs
        g.run["calls"] += 1
        to = args[5] if len(args) > 5 and isinstance(args[5], dict) else kwargs.get("transformer_options") or {}
        x = args[0] if args and isinstance(args[0], torch.Tensor) else None
        device = x.device if x is not None else None
        g.backend = compile_graphs.backend_for(device) if device is not None else None
        if g.backend is None:
            why = f"CUDA graphs need a CUDA device (this model runs on {device})"
        else:
            why = (compile_graphs.backend_problem(g.backend)
                   or compile_graphs.call_problem(executor, to, st.chain[st.mode_index], self.cfg.backend))
        if why is None:
            why, dropped = g.weights_ok(base, device)
            if dropped:
                st.graph_drops += dropped
                log.info("compile: the model's weights moved or were patched again since its CUDA graphs were "
                         "captured: %d graph(s) dropped, captured again", dropped)
        if why is not None:
            return self._not_graphed(executor, cs, args, kwargs, why)
        call = compile_graphs.Call(args, kwargs, options_signature(to, self.cfg.scope))
        entry = g.entries.get(call.key)
        if entry is not None:
            st.graph_replays += 1
            g.run["replays"] += 1
            return g.replay(entry, call.leaves)
        if call.key in g.failed:
            return self._not_graphed(executor, cs, args, kwargs, g.failed[call.key])
        if call.key not in g.warm:  # the first call of this key compiles; the next one captures
            out = self._compiled_call(executor, cs, args, kwargs)
            if not st.fell_back:
                g.warm.add(call.key)
            return out
        if len(g.entries) >= compile_graphs.MAX_GRAPHS_PER_RUN:
            return self._not_graphed(executor, cs, args, kwargs, f"{len(g.entries)} CUDA graphs captured in this run "
                                     f"already (the limit per run: new shapes or batches run compiled)")
        return self._capture(executor, cs, base, call, args, kwargs, device)

    def _not_graphed(self, executor, cs, args, kwargs, why):
        st = cs.status
        if why != st.graph_reason:
            st.graph_reason = why
            log.info_once(("compile", "graphs", why), "compile: CUDA graphs not used for this call: %s", why)
        cs.graphs.run["reason"] = why
        return self._compiled_call(executor, cs, args, kwargs)

    def _capture(self, executor, cs, base, call, args, kwargs, device):
        """Warm up on the capture stream (this call's output), then capture the same call on static inputs."""
        st, g = cs.status, cs.graphs
        before = (st.compiles, len(st.failures), st.fell_back)
        with g.backend.side_stream(device):
            out = self._compiled_call(executor, cs, args, kwargs)
        if (st.compiles, len(st.failures), st.fell_back) != before:
            return out  # the warm-up compiled or fell back: capture on a later call
        t0 = time.perf_counter()
        try:
            g.capture(call, lambda a, k: self._compiled_call(executor, cs, a, k, capturing=True), device, base)
        except Exception as e:  # noqa: BLE001 - a host sync or an op CUDA graphs cannot record: this key runs compiled
            intr = _interrupt_in(e)
            if intr is not None:
                if intr is e:
                    raise
                raise intr from None
            if oom_cause(e) is not None:
                g.drop_graphs()
                reason = "out of memory while capturing a CUDA graph (the run's graphs were dropped)"
            else:
                reason = f"capturing the CUDA graph failed: {_short_error(e)}"
                site = None if _user_frame(e) else raise_site(e)  # dynamo's own frame is named by _short_error
                if site:
                    reason += f" (in {site})"
            g.failed[call.key] = reason
            st.graph_failures += 1
            log.warning("compile: %s; this shape runs compiled from now on", reason)
            st.graph_reason = g.run["reason"] = reason
            return out
        st.graph_captures += 1
        g.run["captures"] += 1
        log.info_once(("compile", "graph", id(g)), "compile: captured a CUDA graph of the model call in %.2f s (%d "
                      "this run); later calls of this shape replay it", time.perf_counter() - t0, len(g.entries))
        return out

    def _compiled_call(self, executor, cs, args, kwargs, capturing=False):
        """The call through the compiled blocks. `capturing`: inside a CUDA-graph capture, where any error is the
        capture's (it is raised to `_capture`, never taken for a compile failure or a damaged cache)."""
        st = cs.status
        to = args[5] if len(args) > 5 and isinstance(args[5], dict) else kwargs.get("transformer_options") or {}
        mode = st.chain[st.mode_index]
        rkey = (options_signature(to, self.cfg.scope), mode)
        hit = cs.runner_sets.get(rkey)
        if hit is None:
            try:
                runners = {cls: compiled_runner(cls, rkey[0], mode,
                                                self.cfg) for cls in {type(t[2]) for t in cs.targets}}
            except Exception as e:  # noqa: BLE001 - torch.compile refused its arguments (e.g. a backend gone since)
                if capturing:
                    raise
                return self._on_failure(executor, args, kwargs, st, mode, e)
            hit = cs.runner_sets[rkey] = (runners, [RUNNER_CODES[id(fn)] for fn in runners.values()])
        runners, codes = hit
        cs.runners = runners
        if self.cfg.prefetch is not None and not capturing:  # a captured call runs resident weights: nothing to fetch
            st.prefetch = st.prefetch or PrefetchStats()
            cs.fetcher.ahead = Prefetcher(self.cfg.prefetch, cs.fetcher, st.prefetch)
        cs.fetcher.streamed = 0
        cs.fetcher.plans = {}
        cs.fetcher.host_s = 0.0
        before = entry_counts(codes)
        graphs0 = unique_graphs()
        events0 = dynamo_events()
        t0 = time.perf_counter()
        try:
            try:
                with RecompileLimit(self.cfg.recompile_limit):
                    out = self._run_swapped(executor, cs, args, kwargs)
            except Exception as e:  # noqa: BLE001 - a damaged file in the compile cache: moved aside, compiled afresh
                # out of memory and interrupts raised while a cached kernel runs pass through the cached file's frames
                # too: they are not damage (the cache stays where it is)
                damaged = not capturing and _interrupt_in(e) is None and oom_cause(e) is None
                note = compile_cache.quarantine(e) if damaged else None
                if note is None:
                    raise
                st.cache_note = note
                with RecompileLimit(self.cfg.recompile_limit):
                    out = self._run_swapped(executor, cs, args, kwargs)
        except AccelError:  # the pack's own error with on_failure error (e.g. prefetch_weights): not a compile failure
            raise
        except Exception as e:  # noqa: BLE001 - any compile/first-call failure; genuine errors re-raise below
            if capturing:
                raise
            intr = _interrupt_in(e)
            oom = intr is None and oom_cause(e) is not None
            if (intr is not None or oom) and unique_graphs() != graphs0:
                self._account(st, codes, before, graphs0, time.perf_counter() - t0)  # what compiled stays compiled
            if intr is not None:  # ComfyUI's interrupt (Cancel): never a compile failure, passed on as it was raised
                if intr is e:
                    raise
                raise intr from None
            if oom:
                # not a compile failure either: no eager re-run (it would start with this call's memory still held
                # by the traceback), compile stays on, the error says what ran out and what helps
                raise self._out_of_memory(e, args, executor.class_obj, st, mode) from e
            if not _compiler_error(e):
                # the model's own error (raised by its code, not by dynamo, a backend, inductor or compiled code): it is
                # the model's, passed on as it was raised; no eager re-run (a transient error would pass and be taken
                # for a compile failure, leaving the model eager until ComfyUI restarts), compile stays on
                if unique_graphs() != graphs0:
                    self._account(st, codes, before, graphs0, time.perf_counter() - t0)
                raise
            return self._on_failure(executor, args, kwargs, st, mode, e)
        finally:
            cs.runners = _NO_RUNNERS
            cs.fetcher.ahead = None
        st.calls += 1
        st.streamed_regions = cs.fetcher.streamed
        st.fetch_host_ms = round(cs.fetcher.host_s * 1e3, 2)
        st.call_host_ms = round((time.perf_counter() - t0) * 1e3, 2)
        st.quantized_plans = dict(cs.fetcher.plans)
        if unique_graphs() != graphs0:  # dynamo compiled something during this call
            self._account(st, codes, before, graphs0, time.perf_counter() - t0)
        events = dynamo_events()
        if events != events0:
            self._account_events(st, events0, events)
        return out

    @staticmethod
    def _account_events(st, before, after):
        """Graph breaks and frames given up at dynamo's recompile limit during this model's call: counted in its status
        (the report says so: those parts of the blocks run eager), logged once per model when they first appear."""
        breaks, limit = after[0] - before[0], after[2] - before[2]
        if breaks > 0:
            first = st.graph_breaks == 0
            st.graph_breaks += breaks
            st.break_reason = after[1] or st.break_reason
            if first:
                log.warning("compile: %d graph break(s) inside the compiled blocks (%s); the code between the graphs "
                            "runs eager (the node's report keeps the count)", breaks,
                            st.break_reason or "reason not recorded")
        if limit > 0:
            first = st.frames_at_limit == 0
            st.frames_at_limit += limit
            st.limit_reason = after[3] or st.limit_reason
            if first:
                log.warning("compile: dynamo reached its recompile limit on a piece of a compiled block (last guard "
                            "that failed: %s); that piece runs eager from now on. Where the guard names a size or a "
                            "setting that changes between prompts, raise recompile_limit on the node",
                            st.limit_reason or
                            "not recorded")

    def _prepare(self, base):
        cs = _CallState()
        cs.status = st = status_for(base, self.cfg)
        targets = []
        for key in self.cfg.keys:
            parent, name = _resolve_parent(base, key)
            orig = parent._modules[name]
            targets.append((parent, name, orig, _stand_in(parent, orig, cs)))
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
                    region = _stand_in(parent, cur, cs)
                    targets[i] = (parent, name, cur, region)
                    orig = cur
                parent._modules[name] = region
                swapped.append((parent, name, orig))
            pf = cs.fetcher.ahead
            if pf is not None:
                pf.set_order([orig for _, _, orig in swapped])
                if args and isinstance(args[0], torch.Tensor):
                    pf.begin(executor.class_obj, args[0])
            return executor(*args, **kwargs)
        finally:
            if cs.fetcher.ahead is not None:
                cs.fetcher.ahead.finish()  # a fetch started ahead that no block used is released
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
                     st.last_recompile_reason or "reason not recorded", seconds, st.recompiles,
                     self.cfg.recompile_limit)
        elif new:
            log.info("compile: compiled %d region(s) with mode %s (%s) in %.1f s",
                     st.regions, st.chain[st.mode_index], self.cfg.backend, seconds)
        if not st.limit_hit and any(n >= self.cfg.recompile_limit for n in after.values()):
            st.limit_hit = True
            log.warning("compile: the recompile limit (%d) is reached; new shapes now run eager. Raise "
                        "recompile_limit or use dynamic=true for workflows with many resolutions.",
                        self.cfg.recompile_limit)

    def _out_of_memory(self, err, args, base, st, mode):
        x = args[0] if args and isinstance(args[0], torch.Tensor) else None
        remedies = ["lower the resolution, the frame count (length) or the batch size",
                    "start ComfyUI with --reserve-vram <GB> (ComfyUI then keeps that much VRAM free for sampling and "
                    "offloads more of the weights)"]
        if not _has_fp8_weights(base):
            remedies.append("load the model with 'Accel Load Diffusion Model (FP8)' (FP8 weights take half the memory "
                            "of fp16/bf16)")
        if mode in ("reduce-overhead", "max-autotune") or self.cfg.backend == "cudagraphs":
            remedies.append(f"use mode default (mode {mode} records CUDA graphs, which keep a memory pool of their "
                            "own)")
        remedies.append("to rule compile out, bypass Accel Compile and queue again")
        st.oom += 1
        log.warning("compile: out of memory during a compiled call (mode %s); compile stays on for the next prompt",
                    mode)
        return out_of_memory(err, f"during a compiled sampling step (mode {mode}, {st.regions} compiled "
                             f"region(s))", x.device if x is not None else None, remedies,
                             note="Accel Compile keeps its compiled blocks: running out of memory is not a compile "
                                  "failure (on_failure does not apply), so the next prompt runs compiled",
                             title=self.cfg.title)

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
        if self.cfg.policy is Policy.ERROR:
            raise AccelError("mode", f"torch.compile failed with mode {mode} ({reason})",
                             "set on_failure to 'fall back' to run without compile, or choose another mode/backend",
                             title=self.cfg.title) from err
        st.fell_back = True
        st.reason = f"{mode}: {reason}"
        log.warning("compile: torch.compile failed (%s: %s); this model runs eager from now on", mode, reason)
        log.logger.debug("accel: compile: torch.compile's whole error (mode %s):\n%s", mode, err)
        return out


def _resolve_parent(base, key):
    """(parent module, name) of a dotted module path such as "diffusion_model.blocks.3"."""
    import comfy.utils

    path, _, name = key.rpartition(".")
    return (comfy.utils.get_attr(base, path) if path else base), name


def _interrupt_in(e):
    """ComfyUI's InterruptProcessingException if `e` is one or wraps one (dynamo keeps an exception raised while it
    compiles in `inner_exception` / `__cause__`), else None."""
    try:
        import comfy.model_management as mm
    except Exception:
        return None
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, mm.InterruptProcessingException):
            return e
        e = getattr(e, "inner_exception", None) or e.__cause__
    return None


# torch.compile's machinery: dynamo (tracing, guards), AOT autograd, FX, fake tensors, decompositions, inductor,
# triton. An exception of these packages, or one raised from their code, is a compile failure.
_COMPILER_PACKAGES = ("torch._dynamo", "torch._inductor", "torch._functorch", "torch.fx", "torch._subclasses",
                      "torch._higher_order_ops", "torch._prims", "torch._refs", "torch._export", "triton")


def _compiler_dirs() -> tuple:
    """Folders whose code is the compiler's or compiled code: the compiler's packages, inductor's generated modules (the
    compile cache folder) and this package's compiled-call code (block fetcher, runners)."""
    dirs = []
    for name in _COMPILER_PACKAGES:
        mod = sys.modules.get(name)
        f = getattr(mod, "__file__", None) if mod is not None else None
        if f:
            dirs.append(os.path.dirname(os.path.abspath(f)))
    dirs += [os.path.abspath(compile_cache.folder()), os.path.dirname(os.path.abspath(__file__))]
    return tuple(d.rstrip(os.sep) + os.sep for d in dirs)


def _compiler_error(e) -> bool:
    """Whether `e` is a failure of torch.compile (dynamo tracing, a backend or inductor compiling, triton, a compiled
    graph or kernel failing at run time) rather than the model's own error: an exception of the compiler's packages in
    its chain (dynamo keeps what it wraps in `inner_exception` / `__cause__`), or one raised from the compiler's code,
    from compiled code (inductor's generated modules, FX graph code) or from this package. The model's own error,
    raised by its code inside a compiled block, passes through dynamo's frames but is raised from the model's code."""
    import traceback

    dirs = None
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if (type(e).__module__ or "").startswith(_COMPILER_PACKAGES):
            return True
        frames = traceback.extract_tb(e.__traceback__)
        if frames:
            where = frames[-1].filename
            if where.startswith("<eval_with_key"):  # an FX GraphModule's generated forward
                return True
            dirs = dirs or _compiler_dirs()
            if os.path.abspath(where).startswith(dirs):
                return True
        e = getattr(e, "inner_exception", None) or e.__cause__
    return False


def _has_fp8_weights(base) -> bool:
    dm = getattr(base, "diffusion_model", None)
    fp8 = {getattr(torch, n) for n in ("float8_e4m3fn", "float8_e5m2") if hasattr(torch, n)}
    return dm is not None and any(p.dtype in fp8 for p in dm.parameters())


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
        if any(w in low for w in ("not supported", "cannot find", "no such file", "unsupported", "fp8e4nv",
                                  "compiler")):
            first = f"{first} ... {ln}"
            break
    text = f"{type(inner).__name__}: {first}" if first else type(inner).__name__
    if inner is not e:
        text = f"{type(e).__name__} <- {text}"
    where = _user_frame(e)
    return f"{text[:330]} (in {where})" if where else text[:400]


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def _user_frame(e) -> str | None:
    """Where in the model's code dynamo stopped ("wan/model.py:123 forward"): the innermost frame outside torch itself
    of the user stack dynamo puts in its errors' message ("from user code:"), else its
    `innermost_user_frame_summary`; None when the error carries neither (e.g. an exception raised by the model itself,
    eager)."""
    torch_dir = os.path.dirname(torch.__file__).replace("\\", "/") + "/"
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        _, sep, trail = str(e).partition("from user code:")
        found = _FRAME.findall(trail) if sep else []
        if not found:
            fs = getattr(e, "innermost_user_frame_summary", None)
            if fs is not None and getattr(fs, "filename", None):
                found = [(fs.filename, str(fs.lineno), fs.name)]
        if found:
            outside = [f for f in found if not f[0].replace("\\", "/").startswith(torch_dir)]
            path, line, name = (outside or found)[-1]
            return f"{_short_path(path)}:{line} {name}"
        e = getattr(e, "inner_exception", None) or e.__cause__
    return None


def raise_site(e) -> str | None:
    """The line of the model's code (or ComfyUI's) that made `e` ("lumina/model.py:601 patchify_and_embed"): the
    innermost frame of its traceback outside torch and this package, and outside torch's mode hooks
    (`__torch_dispatch__` / `__torch_function__` interpose; they are not where the model called); None if none is."""
    torch_dir = os.path.dirname(torch.__file__).replace("\\", "/") + "/"
    here = os.path.dirname(os.path.abspath(__file__)).replace("\\", "/") + "/"
    site, tb = None, e.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        path = code.co_filename.replace("\\", "/")
        if not (path.startswith((torch_dir, here)) or code.co_name in ("__torch_dispatch__", "__torch_function__")):
            site = f"{_short_path(path)}:{tb.tb_lineno} {code.co_name}"
        tb = tb.tb_next
    return site


def _short_path(path: str) -> str:
    parts = path.replace("\\", "/").split("/")
    return "/".join(parts[-2:])
