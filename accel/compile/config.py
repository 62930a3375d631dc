"""Accel Compile's settings (checked before anything compiles) and its status per model and settings, and the
choices the node offers."""
from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field

from ..common import keys
from ..common.errors import AccelError, current_title
from ..common.policy import Policy

WRAPPER_KEY = keys.COMPILE
CORE_WRAPPER_KEY = "torch.compile"  # comfy_api.torch_helpers.torch_compile.COMPILE_KEY

MODES = ("default", "max-autotune-no-cudagraphs", "max-autotune", "reduce-overhead")
# inductor: Linear -> GELU(tanh) runs as one cuBLASLt matmul with a GELU epilogue (kernels/epilogue.py)
GELU_EPILOGUE = True
# inductor: comfy-kitchen's RoPE and AdaLN ops traced into the compiled blocks as their eager math
# (kernels/rope_trace.py)
ROPE_TRACE = True
SCOPES = ("blocks", "model")
DYNAMIC = ("auto", "true", "false")
CUDA_GRAPHS = ("off", "on")  # on: each model call replayed as one CUDA graph where safe (accel.compile.graphs)
BACKENDS = ("inductor", "cudagraphs")  # the node offers these; apply_compile accepts any registered backend

# how the report's memory line opens (accel.compile.apply `_clone`); the report's first line reads which one it is
MEMORY_KEPT = "memory: DynamicVRAM kept"
MEMORY_OFF = "memory: DynamicVRAM OFF for this model"
# what the memory line says where an input that needs resident weights was not applied, before its reason
RESIDENT_KEPT = "resident_weights: kept streaming"
GRAPHS_KEPT = "CUDA graphs do not run on it"

_SCOPE_ALIASES = {"blocks": "blocks", "transformer blocks": "blocks", "block": "blocks",
                  "model": "model", "whole model": "model", "whole diffusion model": "model",
                  "diffusion_model": "model"}


@dataclass
class CompileConfig:
    chain: tuple  # modes in the order tried; eager after the last
    scope: str
    dynamic: bool | None
    dynamic_text: str
    fullgraph: bool
    backend: str
    recompile_limit: int
    policy: Policy
    title: str | None  # the node's title (errors raised while the model samples name it)
    keys: tuple = ()
    cuda_graphs: bool = False
    prefetch: object = None  # accel.compile.prefetch.PrefetchSettings with prefetch_weights on, else None
    resident: bool = False  # resident_weights: a DynamicVRAM model that fits the card loads resident (apply._clone)
    keep_casts: bool = False  # compiled with eager's 16-bit roundings kept (accel.compile.runners.keeps_casts)

    @property
    def key(self) -> tuple:
        return (self.chain, self.scope, self.dynamic, self.fullgraph, self.backend, self.recompile_limit, self.keys,
                self.cuda_graphs, self.prefetch, self.resident, self.keep_casts)


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
    graph_breaks: int = 0  # graph breaks dynamo recorded while compiling this model's blocks (the code between runs
                           # eager)
    break_reason: str = ""  # the latest one's reason
    frames_at_limit: int = 0  # pieces of blocks (e.g. a graph break's resume) dynamo stopped compiling: eager from then
                              # on
    limit_reason: str = ""  # the last guard that failed there (dynamo's warning)
    calls: int = 0
    oom: int = 0  # calls that ran out of memory (not compile failures: compile stays on)
    cache_note: str = ""  # the persistent compile cache had a damaged file: what was done (accel.compile.cache)
    regions: int = 0
    streamed_regions: int = 0  # regions of the last call whose weights were fetched outside the graph
    fetch_host_ms: float = 0.0  # host time of the last call spent fetching those weights (accel.compile.stream)
    call_host_ms: float = 0.0  # host time of the whole last model call (the GPU may still be running when it returns)
    quantized_plans: dict = field(default_factory=dict)  # quantized layers of the last call per plan (quantized.py)
    memory: str = ""  # where this model's weights live while it samples, and why (Accel Compile's residency decision)
    # CUDA graphs (accel.compile.graphs), over the model's life: calls replayed, graphs captured, dropped because the
    # weights moved, captures that failed; why the last call not replayed ran compiled; the last run's counts
    graph_replays: int = 0
    graph_captures: int = 0
    graph_drops: int = 0
    graph_failures: int = 0
    graph_reason: str = ""
    graph_last_run: dict = field(default_factory=dict)  # {"calls", "replays", "captures", "reason"}
    prefetch: object = None  # accel.compile.prefetch.PrefetchStats with prefetch_weights on

    @property
    def mode(self) -> str:
        return "eager" if self.fell_back else self.chain[self.mode_index]

    def as_dict(self) -> dict:
        return {"enabled": True, "mode": self.mode, "requested_mode": self.requested_mode, "chain": list(self.chain),
                "backend": self.backend, "scope": self.scope, "fell_back": self.fell_back, "reason": self.reason,
                "failures": [list(f) for f in self.failures], "compile_seconds": round(self.compile_seconds, 3),
                "compiles": self.compiles, "graphs": self.graphs, "recompiles": self.recompiles,
                "last_recompile_reason": self.last_recompile_reason, "recompile_limit_hit": self.limit_hit,
                "graph_breaks": self.graph_breaks, "break_reason": self.break_reason,
                "frames_at_recompile_limit": self.frames_at_limit, "limit_reason": self.limit_reason,
                "calls": self.calls, "oom": self.oom, "cache_note": self.cache_note, "regions": self.regions,
                "streamed_regions": self.streamed_regions,
                "fetch_host_ms": self.fetch_host_ms, "call_host_ms": self.call_host_ms,
                "quantized_plans": dict(self.quantized_plans), "memory": self.memory,
                "graph_replays": self.graph_replays, "graph_captures": self.graph_captures,
                "graph_drops": self.graph_drops, "graph_failures": self.graph_failures,
                "graph_reason": self.graph_reason, "graph_last_run": dict(self.graph_last_run),
                "prefetch": (None if self.prefetch is None
                             else {**self.prefetch.as_dict(), "line": self.prefetch.line()})}


# status per BaseModel and settings: survives clones (LoRA) and node re-execution; dies with the model
_STATUS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
compile_lock = threading.RLock()


def status_for(base, cfg: CompileConfig) -> CompileStatus:
    with compile_lock:
        per = _STATUS.get(base)
        if per is None:
            per = {}
            _STATUS[base] = per
        st = per.get(cfg.key)
        if st is None:
            st = CompileStatus(cfg.chain[0], cfg.chain, cfg.backend, cfg.scope)
            per[cfg.key] = st
        return st


def registered_backends() -> set | None:
    """Names torch.compile accepts as `backend` here (torch._dynamo's registry, debug and experimental ones
    included); None when the registry cannot be read (then torch.compile itself decides)."""
    try:
        import torch._dynamo

        return set(torch._dynamo.list_backends(exclude_tags=()))
    except Exception:  # noqa: BLE001 - an older or stripped torch: no up-front check
        return None


def torch_version() -> str:
    import torch

    return f"torch {torch.__version__}"


def validate(options) -> CompileConfig:
    """The CompileConfig of Accel Compile's settings (`options`: a CompileOptions, or any object with its fields),
    each checked: AccelError naming the input."""
    mode, scope, dynamic, fullgraph = options.mode, options.scope, options.dynamic, options.fullgraph
    backend, recompile_limit, policy, cuda_graphs = (options.backend, options.recompile_limit, options.policy,
                                                     options.cuda_graphs)
    prefetch = getattr(options, "prefetch", False)
    chain = list(options.mode_chain) if options.mode_chain else [mode]
    for md in chain:
        if md not in MODES:
            raise AccelError("mode", f"unknown compile mode '{md}'", "choose one of " + ", ".join(MODES))
    sc = _SCOPE_ALIASES.get(str(scope).strip().lower())
    if sc is None:
        raise AccelError("scope", f"unknown scope '{scope}'",
                         "choose 'blocks' (each transformer block) or 'model' (the whole diffusion model)")
    dyn_text = str(dynamic).strip().lower() if not isinstance(dynamic, bool) else ("true" if dynamic else "false")
    if dynamic is None:
        dyn_text = "auto"
    if dyn_text not in DYNAMIC:
        raise AccelError("dynamic", f"unknown value '{dynamic}'", "choose auto, true or false")
    dyn = {"auto": None, "true": True, "false": False}[dyn_text]
    if not isinstance(backend, str) or not backend:
        raise AccelError("backend", f"invalid backend {backend!r}", "choose inductor or cudagraphs")
    known = registered_backends()
    if known is not None and backend not in known:
        # an unknown name made torch.compile raise InvalidBackend on the first sampling step, outside the
        # on_failure handling: a bad input, refused here whatever on_failure says
        raise AccelError("backend", f"'{backend}' is not a torch.compile backend registered in this torch "
                         f"({torch_version()})",
                         "choose " + " or ".join(BACKENDS) + " (a script may also name any backend "
                         "that torch._dynamo.list_backends(exclude_tags=()) lists)")
    try:
        limit = int(recompile_limit)
    except (TypeError, ValueError):
        raise AccelError("recompile_limit", f"not a number: {recompile_limit!r}", "use an integer such as 64") from None
    if limit < 1:
        raise AccelError("recompile_limit", f"must be at least 1 (got {limit})", "use e.g. 64")
    graphs = {"off": False, "on": True}.get(cuda_graphs if isinstance(cuda_graphs, str) else
                                            ("on" if cuda_graphs is True else "off" if cuda_graphs is False else None))
    if graphs is None:
        raise AccelError("cuda_graphs", f"unknown value {cuda_graphs!r}", "choose off or on")
    resident = getattr(options, "resident", False)
    if not isinstance(resident, bool):
        raise AccelError("resident_weights", f"not on or off: {resident!r}", "set it on (true) or off (false)")
    settings = None
    if prefetch:
        from .prefetch import PrefetchSettings

        settings = PrefetchSettings(policy=Policy(policy), title=current_title())
    return CompileConfig(tuple(chain), sc, dyn, dyn_text, bool(fullgraph), backend, limit, Policy(policy),
                         current_title(), cuda_graphs=graphs, prefetch=settings, resident=resident)
