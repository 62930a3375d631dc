"""Process-global torch flags (TF32, cudnn.benchmark, fp16 accumulation, SDPA priority), scoped to one
model's sampling run: what Accel CUDA Settings sets, and what other features set for their model's runs (Accel
Attention's measured SDPA order for the calls it hands back to ComfyUI, the VAE decode).

TF32 (cuBLAS matmul, cuDNN), `cudnn.benchmark`, fp16 accumulation in cuBLAS and the SDPA backend
priority are process-wide torch globals. Setting them once (as `--fast` does) changes every model in the
ComfyUI process. Here they are set by an ON_PRE_RUN callback of one MODEL (ModelPatcher) and restored
to exactly what they were by its ON_CLEANUP callback (ComfyUI runs cleanup in a `finally`, so an
interrupted or failed run restores them too). Other models sampled in the same process see the flags
as they were.

    attach(clone, CudaSettings(tf32_matmul=True, cudnn_benchmark=True))   # a clone you own

A setting left at None means "unchanged" (whatever the process has). A second setting on the same model merges
into the first (its explicit values win); the model carries one pair of callbacks. `scoped(settings)` does the
same for code outside a sampling run.

Torch API notes (checked on 2.11-2.14): the legacy `allow_tf32` flags and the newer `fp32_precision`
strings (torch >= 2.9) are two views of one state. Setting the new string alone can leave the legacy
getter raising ("mix of the legacy and new APIs"), so TF32 is set through the legacy setter (which
updates both views consistently) and restore sets both views back. `allow_fp16_accumulation` exists
from torch 2.7; the SDPA priority order (`torch._C._set_sdp_priority_order`) from 2.6. Missing features
are reported, never fatal.
"""
from __future__ import annotations

import contextlib
import functools
import threading
from dataclasses import dataclass, fields, replace

from .. import comfy_compat
from . import keys, log
from .errors import current_title

CALLBACK_KEY = keys.CUDA_SETTINGS

# SDPA backends by our short name -> (torch.backends.cuda enable/getter stem, SDPBackend member)
_SDPA = {
    "flash": ("flash", "FLASH_ATTENTION"),
    "efficient": ("mem_efficient", "EFFICIENT_ATTENTION"),
    "cudnn": ("cudnn", "CUDNN_ATTENTION"),
    "math": ("math", "MATH"),
}

@dataclass(frozen=True)
class CudaSettings:
    """What to set during a run. None = leave unchanged."""

    tf32_matmul: bool | None = None
    tf32_cudnn: bool | None = None
    cudnn_benchmark: bool | None = None
    fp16_accumulation: bool | None = None
    sdpa_order: tuple | None = None  # e.g. ("cudnn", "flash", "efficient", "math")
    sdpa_exclusive: bool = False  # True: backends not in sdpa_order are disabled

    def merged(self, later: CudaSettings) -> CudaSettings:
        """self, overridden by every explicit (non-None) value of `later`."""
        upd = {f.name: getattr(later, f.name) for f in fields(later)
               if f.name != "sdpa_exclusive" and getattr(later, f.name) is not None}
        if later.sdpa_order is not None:
            upd["sdpa_exclusive"] = later.sdpa_exclusive
        return replace(self, **upd)

    def is_empty(self) -> bool:
        return all(getattr(self, f.name) is None for f in fields(self) if f.name != "sdpa_exclusive")

    def describe(self) -> list[str]:
        def onoff(v):
            return "unchanged" if v is None else ("on" if v else "off")

        sdpa = "unchanged"
        if self.sdpa_order is not None:
            sdpa = " > ".join(self.sdpa_order) + (" only" if self.sdpa_exclusive else "")
        return [f"TF32 matmul {onoff(self.tf32_matmul)}, TF32 cuDNN {onoff(self.tf32_cudnn)}, "
                f"cudnn.benchmark {onoff(self.cudnn_benchmark)}, fp16 accumulation {onoff(self.fp16_accumulation)}, "
                f"SDPA order {sdpa}"]


# --- what this torch offers ----------------------------------------------------------------------

def _torch():
    import torch

    return torch


def has_fp16_accumulation() -> bool:
    torch = _torch()
    try:
        torch.backends.cuda.matmul.allow_fp16_accumulation  # noqa: B018  (AttributeError before torch 2.7)
        return hasattr(torch._C,
                       "_set_cublas_allow_fp16_accumulation")  # private, 2.7+: without it ignored, with a note
    except Exception:
        return False


def has_sdpa_priority() -> bool:
    """torch._C._set/_get_sdp_priority_order (private, torch >= 2.6): without them only the SDPA backends' enable
    flags are set (torch's priority order is left alone)."""
    torch = _torch()
    return hasattr(torch._C, "_set_sdp_priority_order") and hasattr(torch._C, "_get_sdp_priority_order")


def _has_fp32_precision() -> bool:
    torch = _torch()
    try:
        return isinstance(torch.backends.cuda.matmul.fp32_precision, str)
    except Exception:
        return False


# --- snapshot / set / restore of the globals -----------------------------------------------------

_MISSING = object()


def _get(fn):
    try:
        return fn()
    except Exception:  # getters of the legacy TF32 view raise in some mixed-API states
        return _MISSING


def snapshot() -> dict:
    """The current value of every flag this module may change (unreadable ones are left out)."""
    torch = _torch()
    m, cd = torch.backends.cuda.matmul, torch.backends.cudnn
    s = {
        # TF32, legacy view (float32_matmul_precision / cuDNN flags); a getter raises in mixed-API states
        "matmul.allow_tf32": _get(lambda: m.allow_tf32),
        "float32_matmul_precision": _get(torch.get_float32_matmul_precision),
        "cudnn.allow_tf32": _get(lambda: cd.allow_tf32),
        "cudnn.benchmark": _get(lambda: cd.benchmark),
    }
    if _has_fp32_precision():  # TF32, per-backend view (torch >= 2.9)
        s["matmul.fp32_precision"] = _get(lambda: m.fp32_precision)
        s["cudnn.conv.fp32_precision"] = _get(lambda: cd.conv.fp32_precision)
        s["cudnn.rnn.fp32_precision"] = _get(lambda: cd.rnn.fp32_precision)
        s["mkldnn.matmul.fp32_precision"] = _get(lambda: torch.backends.mkldnn.matmul.fp32_precision)
    if has_fp16_accumulation():
        s["matmul.allow_fp16_accumulation"] = _get(lambda: m.allow_fp16_accumulation)
    for name, (stem, _) in _SDPA.items():
        s[f"sdp.{name}"] = _get(getattr(torch.backends.cuda, f"{stem}_sdp_enabled"))
    if has_sdpa_priority():
        s["sdp.priority"] = _get(lambda: list(torch._C._get_sdp_priority_order()))
    held = comfy_compat.sdpa_backend_priority()
    if held is not None:
        s["comfy.sdpa_priority"] = list(held)
    return {k: v for k, v in s.items() if v is not _MISSING}


def _set_tf32_matmul(on: bool) -> None:
    torch = _torch()
    try:
        torch.backends.cuda.matmul.allow_tf32 = bool(on)
    except Exception:
        torch.backends.cuda.matmul.fp32_precision = "tf32" if on else "ieee"


def _set_tf32_cudnn(on: bool) -> None:
    torch = _torch()
    try:
        torch.backends.cudnn.allow_tf32 = bool(on)
    except Exception:
        torch.backends.cudnn.conv.fp32_precision = "tf32" if on else "ieee"


def _set_sdpa(order, exclusive: bool) -> None:
    torch = _torch()
    for name, (stem, _) in _SDPA.items():
        if exclusive:
            getattr(torch.backends.cuda, f"enable_{stem}_sdp")(name in order)
        elif name in order:
            getattr(torch.backends.cuda, f"enable_{stem}_sdp")(True)
    if has_sdpa_priority():
        from torch.nn.attention import SDPBackend

        wanted = [int(getattr(SDPBackend, _SDPA[n][1])) for n in order]
        prev = list(torch._C._get_sdp_priority_order())
        torch._C._set_sdp_priority_order(wanted + [b for b in prev if b not in wanted])
    held = comfy_compat.sdpa_backend_priority()
    if held is not None:
        from torch.nn.attention import SDPBackend

        wanted = [getattr(SDPBackend, _SDPA[n][1]) for n in order]
        rest = [b for b in held if b not in wanted]
        held[:] = wanted + ([] if exclusive else rest)


def apply_settings(settings: CudaSettings) -> dict:
    """Set the flags; returns the snapshot taken before (give it to `restore`)."""
    saved = snapshot()
    torch = _torch()
    try:
        if settings.tf32_matmul is not None:
            _set_tf32_matmul(settings.tf32_matmul)
        if settings.tf32_cudnn is not None:
            _set_tf32_cudnn(settings.tf32_cudnn)
        if settings.cudnn_benchmark is not None:
            torch.backends.cudnn.benchmark = bool(settings.cudnn_benchmark)
        if settings.fp16_accumulation is not None and has_fp16_accumulation():
            torch.backends.cuda.matmul.allow_fp16_accumulation = bool(settings.fp16_accumulation)
        if settings.sdpa_order:
            _set_sdpa(settings.sdpa_order, settings.sdpa_exclusive)
    except BaseException:
        restore(saved)
        raise
    return saved


def restore(saved: dict) -> None:
    """Put every flag in `saved` back. Each flag is restored on its own: one failure never skips the rest."""
    torch = _torch()
    m, cd = torch.backends.cuda.matmul, torch.backends.cudnn

    def attempt(what, fn):
        try:
            fn()
        except Exception as e:  # pragma: no cover - depends on the torch build
            log.warn_once(("numerics-restore", what), "could not restore torch flag %s (%s: %s)", what,
                          type(e).__name__, e)

    # TF32 for matmul is two pieces of state: the legacy float32_matmul_precision and the per-backend
    # string. The legacy setter writes both; the string setter only the string. Restore the legacy one
    # first, then the strings, which reproduces even a mixed state in which the legacy getter raises.
    fmp = saved.get("float32_matmul_precision")
    if "matmul.allow_tf32" in saved:
        attempt("matmul.allow_tf32", lambda: setattr(m, "allow_tf32", saved["matmul.allow_tf32"]))
    elif "matmul.fp32_precision" in saved and fmp is None:
        # the legacy getters raised: legacy and string disagree, so the legacy flag is the opposite
        attempt("matmul.allow_tf32", lambda: setattr(m, "allow_tf32", saved["matmul.fp32_precision"] != "tf32"))
    if fmp is not None and _get(torch.get_float32_matmul_precision) != fmp:
        attempt("float32_matmul_precision", lambda: torch.set_float32_matmul_precision(fmp))
    if "cudnn.allow_tf32" in saved:
        attempt("cudnn.allow_tf32", lambda: setattr(cd, "allow_tf32", saved["cudnn.allow_tf32"]))
    for key, holder, attr in (("matmul.fp32_precision", m, "fp32_precision"),
                              ("cudnn.conv.fp32_precision", getattr(cd, "conv", None), "fp32_precision"),
                              ("cudnn.rnn.fp32_precision", getattr(cd, "rnn", None), "fp32_precision"),
                              ("mkldnn.matmul.fp32_precision",
                               getattr(getattr(torch.backends, "mkldnn", None), "matmul", None), "fp32_precision")):
        if key in saved and holder is not None and _get(functools.partial(getattr, holder, attr)) != saved[key]:
            attempt(key, lambda holder=holder, attr=attr, key=key: setattr(holder, attr, saved[key]))
    if "cudnn.benchmark" in saved:
        attempt("cudnn.benchmark", lambda: setattr(cd, "benchmark", saved["cudnn.benchmark"]))
    if "matmul.allow_fp16_accumulation" in saved:
        attempt("allow_fp16_accumulation",
                lambda: setattr(m, "allow_fp16_accumulation", saved["matmul.allow_fp16_accumulation"]))
    for name, (stem, _) in _SDPA.items():
        if f"sdp.{name}" in saved:
            attempt(f"sdp.{name}", lambda stem=stem, name=name: getattr(torch.backends.cuda,
                                                                        f"enable_{stem}_sdp")(saved[f"sdp.{name}"]))
    if "sdp.priority" in saved:
        attempt("sdp.priority", lambda: torch._C._set_sdp_priority_order(saved["sdp.priority"]))
    held = comfy_compat.sdpa_backend_priority()
    if "comfy.sdpa_priority" in saved and held is not None:
        attempt("comfy.ops.SDPA_BACKEND_PRIORITY", lambda: held.__setitem__(slice(None), saved["comfy.sdpa_priority"]))


@contextlib.contextmanager
def scoped(settings: CudaSettings):
    """`with scoped(settings): ...` — the same set/restore as a model's callbacks (benchmarks, tests)."""
    saved = apply_settings(settings)
    try:
        yield saved
    finally:
        restore(saved)


# --- per-model scope via ModelPatcher callbacks --------------------------------------------------

class CudaSettingsScope:
    """Holds one model's settings; its `enter`/`exit` are the ON_PRE_RUN / ON_CLEANUP callbacks.

    Clones share the callback objects (ComfyUI copies the lists, not the callables); runs are
    sequential, and a stack pairs each exit with its enter (an exit without an enter is a no-op).
    """

    def __init__(self, settings: CudaSettings, source: str = ""):
        self.settings = settings
        self.source = source
        self._stack: list[dict] = []
        self._lock = threading.Lock()
        self.runs = 0

    def enter(self, patcher=None) -> None:
        saved = apply_settings(self.settings)
        with self._lock:
            self._stack.append(saved)
            self.runs += 1

    def exit(self, patcher=None) -> None:
        with self._lock:
            saved = self._stack.pop() if self._stack else None
        if saved is not None:
            restore(saved)

    def __deepcopy__(self, memo):  # never duplicated by a model_options deepcopy (0.3.75 clone)
        return self


def _callbacks_mp():
    import comfy.patcher_extension as pe

    return pe.CallbacksMP


def scope_of(model) -> CudaSettingsScope | None:
    """The CudaSettingsScope attached to this MODEL, if any."""
    cb = _callbacks_mp()
    for fn in model.get_callbacks(cb.ON_PRE_RUN, CALLBACK_KEY) if hasattr(model, "get_callbacks") else []:
        owner = getattr(fn, "__self__", None)
        if isinstance(owner, CudaSettingsScope):
            return owner
    return None


def settings_of(model) -> CudaSettings | None:
    s = scope_of(model)
    return s.settings if s is not None else None


def attach(model, settings: CudaSettings, source: str | None = None) -> CudaSettingsScope:
    """Attach (or merge into) the CUDA settings scope of `model` IN PLACE; pass a clone you own. `source`: who set
    them (default: the title of the node running now)."""
    source = source if source is not None else (current_title() or "")
    cb = _callbacks_mp()
    prev = scope_of(model)
    if prev is not None:
        settings = prev.settings.merged(settings)
        source = f"{prev.source} + {source}" if prev.source and source else (source or prev.source)
    model.remove_callbacks_with_key(cb.ON_PRE_RUN, CALLBACK_KEY)
    model.remove_callbacks_with_key(cb.ON_CLEANUP, CALLBACK_KEY)
    scope = CudaSettingsScope(settings, source)
    if not settings.is_empty():
        model.add_callback_with_key(cb.ON_PRE_RUN, CALLBACK_KEY, scope.enter)
        model.add_callback_with_key(cb.ON_CLEANUP, CALLBACK_KEY, scope.exit)
    return scope


def auto_sdpa_order(profile) -> tuple:
    """(order or None, reason): the fastest exact SDPA kernel order measured for this GPU class
    (accel.common.defaults, one table), or None where nothing was measured (PyTorch's / ComfyUI's order stays)."""
    from . import defaults

    d = defaults.choose(profile)
    return d.sdpa_order, d.sdpa_reason


def attach_auto_sdpa(model, profile) -> str | None:
    """Give `model` (a clone you own) the measured SDPA order for its runs, unless it carries one already
    (e.g. from Accel CUDA Settings: the user's choice wins). Returns the report line, or None."""
    order, why = auto_sdpa_order(profile)
    if not order:
        return None
    have = settings_of(model)
    if have is not None and have.sdpa_order:
        return f"SDPA order: kept the one already on this model ({' > '.join(have.sdpa_order)})"
    attach(model, CudaSettings(sdpa_order=tuple(order)))
    return f"SDPA order for calls that reach torch SDPA: {' > '.join(order)} ({why})"
