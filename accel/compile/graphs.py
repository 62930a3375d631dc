"""CUDA graphs over a compiled model call: Accel Compile's `cuda_graphs` option.

Each sampling step calls the diffusion model once per batch; with compiled blocks, what is left of that call's time
on the host is Python (ComfyUI's forward, dynamo's guards, inductor's launchers, attention wrappers). Where the
model's weights stay where they are and the call's shapes repeat, the whole call (ComfyUI's `apply_model` under
Accel Compile's wrapper: input scaling, embedders, every compiled block, the output) is recorded once as a CUDA
graph and replayed on the later steps: the same kernels on the same memory, one launch per step.

When a graph is recorded, replayed, dropped (the decisions, all made on the host, are CPU-testable):
- Key: what the call's computation depends on besides tensor values: the shapes, dtypes and devices of every tensor
  argument (latent, timestep, conditioning, extra conditions, the tensors of `transformer_options` such as the
  sigmas), every other argument's value (lists, flags, ints such as Lumina's token count), the simple values of
  `transformer_options` and the attention override / patch signature (accel.compile.signature). A new resolution or
  batch size is a new key. Tensor arguments are copied into the graph's static buffers before each replay; those
  ComfyUI copies to the GPU inside the call (the conditions, which ComfyUI 0.33 keeps on the CPU until then) have
  their buffers on the GPU, so that copy happens before the replay and not inside the graph.
- Record on the second call of a key (the first one compiles): that call runs normally on a side stream (its output
  is the call's output: no extra forward), then the same call is captured. If that warm-up compiled or fell back,
  capture waits for a later call. A key whose capture failed (a host sync inside the model, an unsupported op) runs
  compiled from then on, with its reason in the report.
- Replay only while the weights the graph reads are where they were: every parameter and buffer of the model is
  checked per call (the same tensor object, the same address); a LoRA or strength change ComfyUI patches in (new
  tensors), an unload and reload, hooks that patch weights mid-run, drop the run's graphs; they are captured again.
- Lifetime: one sampling run. The graphs and their memory pool are dropped when ComfyUI cleans up after sampling
  (ON_CLEANUP), so nothing of them stays on the card between prompts or when another model needs the memory; the next
  run captures again on its first call (its keys are known to be compiled already).
- Not used (the call runs compiled, the report says why) where a replay would not be the same computation: weights
  streamed per call (DynamicVRAM, a partial load, LoRA kept as a per-call patch function, ComfyUI's quantized
  layers), a DIFFUSION_MODEL wrapper (step caches decide per step in Python), an APPLY_MODEL wrapper inside Accel
  Compile's, model patches in `transformer_options`, a compile mode that records CUDA graphs itself, a device other
  than CUDA, more than MAX_GRAPHS_PER_RUN keys in one run; and not in a process whose CUDA allocator is
  cudaMallocAsync (ComfyUI's default; `backend_problem`): a failed capture under it ended the process.

Backends: torch.cuda.CUDAGraph on CUDA devices; `TEST_BACKEND` lets the CPU tests put a stand-in for it
(accel_harness.graph_emulation: replays re-run the captured call on its static inputs with the weights as they were at
capture, so a key or an invalidation that misses a change shows as a wrong output). Nothing here imports ComfyUI.
"""
from __future__ import annotations

import contextlib
import gc
import warnings

import torch

from .. import comfy_compat
from .signature import describe

MAX_GRAPHS_PER_RUN = 4  # keys captured per model and sampling run (cond/uncond splits, a resolution change)
# transformer_options entries that are not inputs of the computation (the wrappers and callbacks are checked on their
# own, the override and patches enter the key through the signature, the uuids name the conds)
_TO_SKIP = frozenset({"wrappers", "callbacks", "uuids", comfy_compat.OVERRIDE_KEY, "patches", "patches_replace"})
_MODES_WITH_GRAPHS = ("reduce-overhead", "max-autotune")

TEST_BACKEND = None  # tests: a stand-in for torch.cuda.CUDAGraph (see the module docstring)


# --- the residency decision Accel Compile takes when it patches the model -------------------------------------

def resident_decision(weights: int, room: int, free: int | None) -> tuple[bool, str]:
    """Whether a model of `weights` bytes that needs `room` bytes more to sample fits the `free` bytes of its card
    (None: unknown), and the report's words for it (sizes in GiB)."""
    need = weights + room
    if free is None:
        return False, f"the free VRAM of the card is unknown (the model takes {_gib(weights)})"
    if need > free:
        return False, f"the model does not fit: {_gib(weights)} of weights + {_gib(room)} to sample > {_gib(free)} free"
    return True, f"the model fits: {_gib(weights)} of weights + {_gib(room)} to sample <= {_gib(free)} free"


def _gib(n: int) -> str:
    return f"{n / 2 ** 30:.1f} GiB"


# --- what a call's graph is keyed on ------------------------------------------------------------------------------

def _freeze(obj):
    """A hashable stand-in for a non-tensor argument: simple values as they are, other objects by their stable
    description (qualified names and simple attributes: accel.compile.signature)."""
    if obj is None or isinstance(obj, (str, int, float, bool, torch.dtype, torch.device)):
        return obj
    return describe(obj)


def _flatten(obj, leaves: list):
    """A hashable spec of `obj` (lists, tuples and dicts walked) with each tensor replaced by its shape, dtype and
    device and appended to `leaves`."""
    if isinstance(obj, torch.Tensor):
        leaves.append(obj)
        return ("T", tuple(obj.shape), obj.dtype, obj.device)
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, tuple(_flatten(x, leaves) for x in obj))
    if isinstance(obj, dict):
        return ("dict", tuple((k, _flatten(v, leaves)) for k, v in obj.items()))
    return ("C", _freeze(obj))


def _rebuild(obj, it):
    """`obj` with its tensors replaced, in `_flatten`'s order, by the next items of `it`."""
    if isinstance(obj, torch.Tensor):
        return next(it)
    if isinstance(obj, list):
        return [_rebuild(x, it) for x in obj]
    if isinstance(obj, tuple):
        items = [_rebuild(x, it) for x in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else tuple(items)
    if isinstance(obj, dict):
        return {k: _rebuild(v, it) for k, v in obj.items()}
    return obj


def _cast_by_comfy(rest: tuple, kw: dict) -> list:
    """Per tensor leaf of (rest, kw), in `_flatten`'s order: whether ComfyUI's `BaseModel._apply_model` copies it to
    the model's device itself (the latent, the timestep, c_concat, c_crossattn, and each extra condition that is a
    tensor or a list of tensors: `convert_tensor`). Since ComfyUI 0.33 the conditions reach the model call on the CPU
    and are copied to the GPU inside it, from pageable memory, which a CUDA graph cannot record; what sits deeper (the
    `control` dict) is passed on as it is."""
    marks: list = []
    for v in (*rest, *kw.values()):
        leaves: list = []
        _flatten(v, leaves)
        top = isinstance(v, torch.Tensor) or (isinstance(v, (list, tuple))
                                              and all(isinstance(x, torch.Tensor) for x in v))
        marks += [top] * len(leaves)
    return marks


class Call:
    """One model call's arguments split as the graph sees them: `key`, the tensor `leaves` in order, `cast` (per
    leaf: ComfyUI copies it to the model's device inside the call; `_cast_by_comfy`; worked out only when a graph is
    captured) and `rebuild` to make the same call with other tensors in their places."""

    __slots__ = ("key", "leaves", "_args", "_kwargs", "_to_at")

    def __init__(self, args: tuple, kwargs: dict, signature: str):
        self._args, self._kwargs = args, kwargs
        self._to_at = to_at = 5 if len(args) > 5 and isinstance(args[5], dict) else None
        to = args[to_at] if to_at is not None else kwargs.get("transformer_options")
        rest, kw = self._parts()
        leaves: list = []
        spec = (_flatten(rest, leaves), _flatten(kw, leaves),
                tuple((k, _flatten(v, leaves)) for k, v in (to or {}).items() if k not in _TO_SKIP), signature)
        self.key, self.leaves = spec, leaves

    def _parts(self) -> tuple[tuple, dict]:
        """(the positional arguments, the keyword arguments), both without transformer_options."""
        at = self._to_at
        return (tuple(a for i, a in enumerate(self._args) if i != at),
                {k: v for k, v in self._kwargs.items() if k != "transformer_options"})

    @property
    def cast(self) -> list:
        cast = _cast_by_comfy(*self._parts())
        return cast + [False] * (len(self.leaves) - len(cast))  # transformer_options' tensors stay where they are

    def statics(self, device) -> list:
        """The graph's static input buffers: a copy of each leaf, on `device` where ComfyUI would copy it there inside
        the call (the copy then happens before the replay, outside the graph; the model's cast finds it in place)."""
        return [t.to(device, copy=True) if cast else t.clone() for t, cast in zip(self.leaves, self.cast, strict=True)]

    def rebuild(self, tensors) -> tuple[tuple, dict]:
        """(args, kwargs) of this call with `tensors` in place of its tensor leaves (same order)."""
        it = iter(tensors)
        args, kwargs, at = self._args, self._kwargs, self._to_at
        rest, kw = (_rebuild(part, it) for part in self._parts())
        to = args[at] if at is not None else kwargs.get("transformer_options")
        if to is not None:
            to = {k: (v if k in _TO_SKIP else _rebuild(v, it)) for k, v in to.items()}
        if at is not None:
            rest = rest[:at] + (to,) + rest[at:]
        elif "transformer_options" in kwargs:
            kw["transformer_options"] = to
        return rest, kw


# --- when the graph path does not apply ---------------------------------------------------------------------------

def call_problem(executor, to: dict, mode: str, backend_name: str) -> str | None:
    """Why this call cannot be replayed from a graph whatever its weights (None: it can)."""
    if mode in _MODES_WITH_GRAPHS or backend_name == "cudagraphs":
        return f"compile mode {mode} ({backend_name}) records CUDA graphs of its own"
    wrappers = (to or {}).get("wrappers") or {}
    dm = [k for k, fns in (wrappers.get("diffusion_model") or {}).items() if fns]
    if dm:
        return (f"a DIFFUSION_MODEL wrapper ({', '.join(map(str, dm))}) runs per step in Python (a step cache, "
                "multi-GPU): a replay would repeat its first decision")
    inner = [w for w in list(getattr(executor, "wrappers", ()))[getattr(executor, "idx", 0) + 1:]
             if not comfy_compat.is_compiler_off_wrapper(w)]
    if inner:
        names = ", ".join(getattr(w, "__qualname__", type(w).__name__) for w in inner)
        return (f"APPLY_MODEL wrapper(s) {names} run inside Accel Compile's, per step in Python (put Accel Compile "
                "after the node that adds them)")
    patches = [k for k in ("patches", "patches_replace") if (to or {}).get(k)]
    if patches:
        kinds = sorted({str(n) for k in patches for n, v in to[k].items() if v})
        return f"model patches ({', '.join(kinds) or ', '.join(patches)}) run in Python inside the model"
    return None


# What a failed capture did under PyTorch's cudaMallocAsync allocator (ComfyUI's default, cuda_malloc.py): the capture
# of Z-Image 6B through the compiled blocks failed ("CUDA driver error: invalid argument" in an inductor launcher), and
# freeing what it had allocated then ended the process ("uncaptured free of a captured allocation", std::terminate),
# H200, ComfyUI 0.33.0 started as main.py starts it: bench/results/h200/graph_check_033/README.md. With PyTorch's
# own allocator the same scenarios captured, replayed and matched bit for bit (tiny models, same GPU and run).
ASYNC_ALLOCATOR = "cudaMallocAsync"


def backend_problem(backend) -> str | None:
    """Why graphs are not recorded with this backend in this process (None: they can be)."""
    if backend.allocator() == ASYNC_ALLOCATOR:
        return ("PyTorch's cudaMallocAsync allocator is in use (ComfyUI's default): a capture that fails under it can "
                "end the process, so none is attempted; start ComfyUI with --disable-cuda-malloc to use CUDA graphs")
    return None


def weights_problem(base, device) -> tuple[str | None, list]:
    """(why the model's weights are not fixed on `device` for a whole call, or None; the fingerprint of every
    parameter and buffer: (owner dict, name, tensor, address))."""
    vbar = patched = quant = off = layers = 0
    prints = []
    for m in base.modules():
        if hasattr(m, "comfy_cast_weights"):
            layers += 1
            if getattr(m, "_v", None) is not None:
                vbar += 1
            elif (getattr(m, "weight_function", None) or getattr(m, "bias_function", None)
                  or getattr(m, "weight_lowvram_function", None) or getattr(m, "bias_lowvram_function", None)):
                patched += 1
            if comfy_compat.is_quantized_layer(m):
                quant += 1
                continue
        for d in (m._parameters, m._buffers):
            for name, t in d.items():
                if t is None:
                    continue
                if t.device != device or t.is_meta:
                    off += 1
                else:
                    prints.append((d, name, t, t.data_ptr()))
    if vbar:
        return (f"DynamicVRAM streams this model's weights ({vbar} of {layers} layers are fetched per call; Accel "
                "Compile keeps DynamicVRAM where the model does not fit the card)"), []
    if quant:
        return f"{quant} layer(s) are ComfyUI quantized layers (not validated with CUDA graphs)", []
    if patched:
        return f"{patched} layer(s) apply weight patches per call (a LoRA kept as a patch function)", []
    if off:
        return f"ComfyUI loaded part of this model: {off} tensor(s) are not on {device} (copied per call)", []
    return None, prints


def unchanged(prints: list) -> bool:
    """Every fingerprinted tensor is still the one its owner holds, at the same address."""
    for d, name, t, ptr in prints:
        if d.get(name) is not t or t.data_ptr() != ptr:
            return False
    return True


# --- backends -----------------------------------------------------------------------------------------------------

class CudaGraphs:
    """torch.cuda.CUDAGraph: warm-up on a side stream, capture on it into one memory pool per model and run."""

    name = "torch.cuda.CUDAGraph"

    def __init__(self):
        self._streams: dict = {}

    @staticmethod
    def supports(device) -> bool:
        return getattr(device, "type", None) == "cuda" and torch.cuda.is_available()

    @staticmethod
    def allocator() -> str:
        """PyTorch's CUDA allocator backend in this process: "native" or "cudaMallocAsync"."""
        return torch.cuda.get_allocator_backend()

    @staticmethod
    def new_pool(device):
        return torch.cuda.graph_pool_handle()

    def _stream(self, device):
        s = self._streams.get(device)
        if s is None:
            s = self._streams[device] = torch.cuda.Stream(device=device)
        return s

    @contextlib.contextmanager
    def side_stream(self, device):
        """Run the body on this device's capture stream, after what the current stream queued and before what it
        queues next (torch's rule: warm up where the capture will run)."""
        cur, s = torch.cuda.current_stream(device), self._stream(device)
        s.wait_stream(cur)
        with torch.cuda.stream(s):
            yield
        cur.wait_stream(s)

    def capture(self, fn, pool, device, model):
        """(graph, output of fn as captured). ComfyUI's own block graphs use torch.cuda.graph; this calls
        capture_begin/end directly to skip that context's gc.collect() and empty_cache() (once per run), with the
        garbage collector paused so that nothing is freed into the capture."""
        g = torch.cuda.CUDAGraph()
        cur, s = torch.cuda.current_stream(device), self._stream(device)
        s.wait_stream(cur)
        was = gc.isenabled()
        gc.disable()
        try:
            with torch.cuda.stream(s):
                g.capture_begin(pool=pool, capture_error_mode="thread_local")
                try:
                    out = fn()
                except BaseException:
                    with contextlib.suppress(Exception):
                        g.capture_end()
                    raise
                g.capture_end()
        finally:
            if was:
                gc.enable()
            cur.wait_stream(s)
        return g, out

    @staticmethod
    def replay(graph) -> None:
        graph.replay()

    @staticmethod
    def release(graph) -> None:
        with warnings.catch_warnings():  # the allocator's benign "uncaptured free" notes (as ComfyUI silences them)
            warnings.simplefilter("ignore")
            graph.reset()


_CUDA = CudaGraphs()


def backend_for(device):
    """The backend that records graphs on `device`, or None."""
    if TEST_BACKEND is not None:
        return TEST_BACKEND
    return _CUDA if _CUDA.supports(device) else None


# --- per model: the run's graphs ----------------------------------------------------------------------------------

class _Entry:
    __slots__ = ("graph", "statics", "out", "out_leaves")

    def __init__(self, graph, statics, out):
        self.graph, self.statics, self.out = graph, statics, out
        self.out_leaves = []
        _flatten(out, self.out_leaves)


class GraphState:
    """One compiled model's graphs (per BaseModel and Accel Compile settings): the keys known to be compiled (kept),
    the keys whose capture failed (kept), and this run's graphs, pool and weight fingerprint (dropped by `end_run`)."""

    def __init__(self):
        self.warm: set = set()
        self.failed: dict = {}
        self.entries: dict = {}
        self.prints: list | None = None  # this run's weight fingerprint (None: not scanned yet)
        self.weights_why: str | None = None
        self.pool = None
        self.backend = None
        self.run = _new_run()  # this run's counts: model calls, replays, captures, why the last call was not replayed

    def weights_ok(self, base, device) -> tuple[str | None, int]:
        """(why the weights rule graphs out this run, graphs dropped because the weights moved since they were
        captured). Scans once per run; checks the fingerprint per call."""
        dropped = 0
        if self.prints is not None and not self.weights_why and not unchanged(self.prints):
            dropped = len(self.entries)
            self.drop_graphs()
            self.prints = None
        if self.prints is None:
            self.weights_why, self.prints = weights_problem(base, device)
        return self.weights_why, dropped

    def replay(self, entry: _Entry, leaves: list):
        for s, t in zip(entry.statics, leaves, strict=True):
            if s is not t:
                s.copy_(t)
        self.backend.replay(entry.graph)
        return _rebuild(entry.out, iter([t.clone() for t in entry.out_leaves]))

    def capture(self, call: Call, run, device, base):
        """Capture `run(args, kwargs)` on static copies of the call's tensors; the entry is kept under the call's
        key. Raises what the capture raised (the caller records it)."""
        if self.pool is None:
            self.pool = self.backend.new_pool(device)
        statics = call.statics(device)
        args, kwargs = call.rebuild(statics)
        graph, out = self.backend.capture(lambda: run(args, kwargs), self.pool, device, base)
        self.entries[call.key] = _Entry(graph, statics, out)

    def drop_graphs(self) -> int:
        n = len(self.entries)
        for e in self.entries.values():
            self.backend.release(e.graph)
        self.entries = {}
        self.pool = None
        return n

    def end_run(self) -> int:
        """Drop this run's graphs, pool and fingerprint (ComfyUI's cleanup after sampling); returns graphs dropped."""
        n = self.drop_graphs() if self.backend is not None else 0
        self.prints = None
        self.weights_why = None
        self.run = _new_run()
        return n


def _new_run() -> dict:
    return {"calls": 0, "replays": 0, "captures": 0, "reason": ""}
