"""Per-MODEL attention backend patching through ComfyUI's `optimized_attention_override` hook.

`apply_attention(model, backend, policy, autotune)` returns a patched clone and a report.
The clone's `model_options["transformer_options"]["optimized_attention_override"]` holds one small
immutable `AttentionOverride`; ComfyUI's `@wrap_attn` calls it as `override(func, *args, **kwargs)`
with exactly what the model passed to its attention function, for every model that passes
`transformer_options` to attention (Wan 2.1/2.2, Flux, Qwen-Image, HunyuanVideo, LTXV, SD3, SDXL).

Call conventions handled (ComfyUI 0.3.75 and 0.33.x):
  - (B, L, H*D) tensors with `heads` (Wan, SDXL, LTXV);
  - (B, H, L, D) with `skip_reshape=True` (Flux, HunyuanVideo, Qwen-Image with `mask` positional);
  - `skip_output_reshape=True` (output (B, H, L, D) instead of (B, L, H*D));
  - `mask` (only mask-capable backends serve it), `scale`, `enable_gqa` (K/V with fewer heads),
    `low_precision_attention=False` (low-precision backends such as Sage do not serve such calls),
    `attn_precision` (ignored, as ComfyUI's SDPA path does);
  - newer ComfyUI: q/k/v in `AttentionTensorContainer`s (unwrapped as wrap_attn does) and a checkpoint's
    `preferred_attention` (dropped: an override runs instead, as in wrap_attn); see accel/comfy_compat.py.
Whatever the backend cannot serve (a mask, a head_dim, float32, a non-CUDA tensor, an unknown
argument) goes to ComfyUI's own function (`func`) with one warning per (backend, reason), or raises
`AccelError` with policy ERROR. Every decision that does not depend on the call is made at patch
time; the per-call work is a few attribute and shape checks.

Low-precision backends (SageAttention, `flash_attn_3_fp8`, `comfy_kitchen_int8`) are used only when chosen by
name (`auto` is exact only) and can run on a hybrid schedule (`Hybrid`): exact attention on the first/last
sampling steps (and optionally the first/last transformer blocks), the quantized kernel elsewhere
(accel/attention/hybrid.py).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import torch

from ...kernels.attention import adapters, registry
from ...kernels.attention.base import BHLD, BLHD, invoke, is_compiling
from .. import comfy_compat
from ..common import defaults, families, gains, hardware, keys, log, numerics
from ..common.errors import AccelError, current_title
from ..common.policy import Policy
from ..common.report import Report, Section
from .hybrid import EXACT_FLAG, Hybrid, StepWrapper, apply_model_wrappers, check_hybrid

OVERRIDE_KEY = "optimized_attention_override"

# Tests set this to a collections.Counter to count served / fallen-back calls; None in production.
STATS = None

_KNOWN_KWARGS = frozenset({
    "heads", "mask", "attn_precision", "skip_reshape", "skip_output_reshape", "transformer_options",
    "_inside_attn_wrapper", "low_precision_attention", "enable_gqa", "scale",
})
_POSITIONAL = ("q", "k", "v", "heads", "mask", "attn_precision", "skip_reshape", "skip_output_reshape")
_SDP_BATCH_LIMIT = 2 ** 15  # ComfyUI splits larger batches for SDPA on NVIDIA; leave those to it
_OOM = getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError  # torch < 2.5: cuda only


class AttentionOverride:
    """The object stored in transformer_options. Immutable after construction: `copy.deepcopy`
    (ModelPatcher.clone in ComfyUI 0.3.75 deep-copies model_options) returns the same object, so a
    clone costs nothing and shares the built kernels."""

    __slots__ = ("backend", "kernel", "policy", "title", "tuner", "bad", "hybrid", "exact", "__weakref__")

    def __init__(self, kernel, policy: Policy = Policy.FALL_BACK, tuner=None, hybrid=None, exact=None,
                 title: str | None = None):
        self.backend = kernel.name
        self.kernel = kernel
        self.policy = Policy(policy)
        self.title = title if title is not None else current_title()  # errors raised while sampling name the node
        self.tuner = tuner
        self.bad = set()  # call signatures on which the kernel raised (eager only): sent to ComfyUI
        self.hybrid = hybrid  # Hybrid schedule (low-precision kernels only) or None
        self.exact = exact  # AttentionOverride of the exact kernel for the hybrid's exact calls (None: ComfyUI's)

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    def __repr__(self):
        return f"<accel attention override {self.kernel.label}{' strict' if self.strict else ''}>"

    @property
    def strict(self) -> bool:
        return self.policy is Policy.ERROR

    # --- the hot path -----------------------------------------------------------------------
    def __call__(self, func, *args, **kwargs):
        if args and not isinstance(args[0], torch.Tensor):  # q/k/v in AttentionTensorContainers (newer ComfyUI)
            args = comfy_compat.attention_args_unwrap(args)
        if "preferred_attention" in kwargs:  # a checkpoint's ComfyAttention: an override runs instead (as wrap_attn)
            del kwargs["preferred_attention"]
        n = len(args)
        if n > 5 or n < 3:
            if n < 3 or n > len(_POSITIONAL):
                return self._fallback(func, args, kwargs, "signature", "a call with an unexpected signature")
            extra = {_POSITIONAL[i]: args[i] for i in range(5, n)}
            if extra.keys() & kwargs.keys():
                return self._fallback(func, args, kwargs, "signature", "a call with an unexpected signature")
            return self(func, *args[:5], **kwargs, **extra)
        if not kwargs.keys() <= _KNOWN_KWARGS:
            unknown = ", ".join(sorted(set(kwargs) - _KNOWN_KWARGS))
            return self._fallback(func, args, kwargs, "kwarg:" + unknown, f"calls with argument(s) {unknown}")
        if self.hybrid is not None:
            to = kwargs.get("transformer_options")
            if to is not None and self.hybrid.wants_exact(to):
                if STATS is not None:
                    STATS[(self.backend, "hybrid-exact")] += 1
                if self.exact is not None:
                    return self.exact(func, *args, **kwargs)
                return func(*args, **kwargs)
        q, k, v = args[0], args[1], args[2]
        heads = args[3] if n > 3 else kwargs.get("heads")
        mask = args[4] if n > 4 else kwargs.get("mask")
        kern = self.kernel

        if mask is not None and not kern.supports_mask:
            return self._fallback(func, args, kwargs, "mask", "attention masks")
        dtype = q.dtype
        if dtype not in kern.dtypes:
            name = str(dtype).replace("torch.", "")
            return self._fallback(func, args, kwargs, "dtype:" + name, f"{name} inputs")
        if q.device.type not in kern.device_types:
            return self._fallback(func, args, kwargs, "device:" + q.device.type, f"{q.device.type} tensors")
        if kern.low_precision and kwargs.get("low_precision_attention", True) is False:
            return self._fallback(func, args, kwargs, "exact",
                                  "calls that ask for exact attention (low_precision_attention=False)")
        if k.dtype != dtype or v.dtype != dtype:
            return self._fallback(func, args, kwargs, "mixed-dtypes", "q/k/v of different dtypes")
        if not kern.autograd and torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad):
            return self._fallback(func, args, kwargs, "grad", "calls that need gradients (training)")
        scale = kwargs.get("scale")
        if scale is not None and not kern.supports_scale:
            return self._fallback(func, args, kwargs, "scale", "a custom softmax scale")

        if kwargs.get("skip_reshape", False):
            if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
                return self._fallback(func, args, kwargs, "shape", "tensors of unexpected rank")
            b, h, lq, d = q.shape
            hkv, lk = k.shape[1], k.shape[2]
            if k.shape[3] != d or v.shape[3] != d or v.shape[1] != hkv:
                return self._fallback(func, args, kwargs, "shape", "q/k/v of different head sizes")
            lay = BHLD
            q4, k4, v4 = q, k, v
        else:
            if q.ndim != 3 or k.ndim != 3 or v.ndim != 3 or not heads:
                return self._fallback(func, args, kwargs, "shape", "tensors of unexpected rank")
            b, lq, hd = q.shape
            h = heads
            d = hd // h
            lk = k.shape[1]
            hkv = k.shape[2] // d if d else 0
            if d * h != hd or hkv * d != k.shape[2] or v.shape[2] != k.shape[2]:
                return self._fallback(func, args, kwargs, "shape", "inner sizes not divisible by heads")
            lay = BLHD
            # torch.unflatten, not Tensor.unflatten: the method is Python code in torch._tensor that torch 2.11's dynamo
            # cannot trace on a tensor subclass (ComfyUI-GGUF's GGMLTensor reaches here through its norm weights)
            q4 = torch.unflatten(q, -1, (h, d))
            k4, v4 = torch.unflatten(k, -1, (hkv, d)), torch.unflatten(v, -1, (hkv, d))
        if hkv != h and (not kwargs.get("enable_gqa", False) or h % hkv):
            return self._fallback(func, args, kwargs, "kv-heads", "K/V with a different number of heads")
        if not kern.head_dim_ok(d):
            return self._fallback(func, args, kwargs, f"head_dim:{d}", f"head_dim {d}")
        if b > _SDP_BATCH_LIMIT:
            return self._fallback(func, args, kwargs, "batch", f"batches over {_SDP_BATCH_LIMIT}")

        compiling = is_compiling()
        if self.tuner is not None and not compiling:
            from ...kernels.attention.autotune import call_key

            with comfy_compat.pause_malloc_graph():  # timings and the kept choice: outside the Comfy Compiler's record
                kern = self.tuner.pick(call_key(b, h, hkv, lq, lk, d, dtype, lay, mask is not None, scale),
                                       q4, k4, v4, lay, mask, scale, d, False)
        if compiling:
            out, olay = invoke(kern, q4, k4, v4, lay, mask, scale)
        else:
            if self.bad and (kern.name, b, h, hkv, lq, lk, d, dtype, lay, mask is None) in self.bad:
                return func(*args, **kwargs)
            try:
                out, olay = invoke(kern, q4, k4, v4, lay, mask, scale)
            except _OOM:
                raise
            except Exception as e:  # a kernel refusing an input we did not foresee: never crash sampling
                if self.strict:
                    raise AccelError("backend", f"{kern.label} failed on a call with q {tuple(q.shape)} "
                                     f"{dtype}: {type(e).__name__}: {str(e).splitlines()[0][:300]}",
                                     "Set fallback to 'fall back' to let such calls use ComfyUI's attention",
                                     title=self.title) from e
                self.bad.add((kern.name, b, h, hkv, lq, lk, d, dtype, lay, mask is None))
                log.warn_once(("attention", kern.name, "error:" + type(e).__name__),
                              "attention backend %s failed (%s: %s) on q %s; calls of that shape use ComfyUI's "
                              "attention from now on (logged once)", kern.label, type(e).__name__,
                              str(e).splitlines()[0][:300] if str(e) else "", tuple(q.shape))
                return func(*args, **kwargs)
        if STATS is not None:
            STATS[(kern.name, "served")] += 1
        if kwargs.get("skip_output_reshape", False):
            return out if olay == BHLD else out.transpose(1, 2)
        if olay == BHLD:
            out = out.transpose(1, 2)
        return out.reshape(b, lq, h * d)

    def _fallback(self, func, args, kwargs, code: str, text: str):
        if STATS is not None:
            STATS[(self.backend, "fallback", code)] += 1
        if self.strict:
            raise AccelError("backend", f"{self.kernel.label} cannot serve {text} (fallback is 'error')",
                             "Set fallback to 'fall back' to let such calls use ComfyUI's attention, or choose backend "
                             "'sdpa' (PyTorch's SDPA serves them; 'auto' picks the fastest exact kernel, which may "
                             "not)", title=self.title)
        if self.exact is not None and self.kernel.sparse:  # radial_sparse: the exact backend serves what it cannot
            if not is_compiling():
                log.warn_once(("attention", self.backend, code),
                              "attention backend %s cannot serve %s; those calls use %s. Logged once.", self.backend,
                              text, self.exact.kernel.label)
            return self.exact(func, *args, **kwargs)
        if not is_compiling():
            log.warn_once(("attention", self.backend, code),
                          "attention backend %s cannot serve %s; those calls use ComfyUI's attention (%s). "
                          "Logged once.", self.backend, text, getattr(func, "__name__", "original"))
        return func(*args, **kwargs)


# --- choosing and building a backend --------------------------------------------------------

def installed_backends(profile=None) -> list:
    """'auto' plus every registry backend usable on this machine, in registry order (node combo)."""
    prof = profile if profile is not None else hardware.profile()
    return ["auto"] + [n for n in registry.BACKENDS if registry.available(n, prof)[0]]


def _device():
    dev = hardware.comfy_device()
    return dev if dev is not None else torch.device("cpu")


def _build(name: str, prof, extra_device_types, device):
    """(kernel, None) or (None, why not): registry check, build (imports the library), probe."""
    ok, reason = registry.available(name, prof)
    if not ok:
        return None, reason
    try:
        kern = adapters.build_kernel(name, prof, extra_device_types)
    except Exception as e:
        return None, f"could not be loaded ({type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''})"
    ok, why = adapters.probe_kernel(kern, device)
    if not ok:
        return None, why
    return kern, None


def _install_hint(name: str, problem: str) -> str:
    """The package that provides `name`, unless the reason already says how to install it."""
    spec = registry.BACKENDS[name]
    if not spec.install or "install:" in problem:
        return ""
    return f"package: {spec.install}"


def _resolve(prof, backend: str, policy: Policy, extra_device_types, device, family: str | None = None):
    """(kernel or None, why-line, skipped [(name, why)]). `family`: the model's (families.detect), for `auto`."""
    if backend == "auto":
        exclude: dict = {}
        while True:
            name, why, skipped = defaults.choose_attention(prof, exclude, family)
            if name in exclude:  # the last resort failed too
                return None, "auto: no backend works here; ComfyUI's own attention stays in use", skipped
            kern, problem = _build(name, prof, extra_device_types, device)
            if kern is not None:
                return kern, f"auto on {prof.gpu_class()}: {why}", skipped
            exclude[name] = problem
    if backend not in registry.BACKENDS:
        raise AccelError("backend", f"unknown attention backend '{backend}'",
                         "Choose 'auto' or one of: " + ", ".join(registry.BACKENDS))
    kern, problem = _build(backend, prof, extra_device_types, device)
    if kern is not None:
        return kern, f"{backend} chosen by the user ({registry.BACKENDS[backend].description})", []
    hint = _install_hint(backend, problem)
    if policy is Policy.ERROR:
        raise AccelError("backend", f"{backend} cannot be used on this machine: {problem}"
                         + (f" ({hint})" if hint else ""),
                         "Choose 'auto' or an installed backend, or set fallback to 'fall back'")
    log.warn_once(("attention-unavailable", backend, problem),
                  "[%s] attention backend %s cannot be used here (%s); fallback 'fall back': ComfyUI's own attention "
                  "is used for this model", current_title() or "attention", backend, problem)
    return None, (f"{backend} cannot be used here: {problem}" + (f" ({hint})" if hint else "")
                  + ". fallback 'fall back': ComfyUI's own attention is used"), []


# What "fast" quality (Accel Wan Level-1) uses, in order of preference: opt-in quantized attention.
FAST_BACKENDS = ("flash_attn_3_fp8",)


def patch_fast_attention(model, policy: Policy = Policy.FALL_BACK, *, hybrid: Hybrid | None = None,
                         profile=None, tensor_device_types=()):
    """Quantized attention with the hybrid schedule where a FAST_BACKENDS entry works here, else exact `auto`.
    Returns (clone, Report); the report's `deviation` is set where the quantized kernel is used (None: it stayed
    exact). policy ERROR: raise AccelError (input 'quality') instead of staying exact.
    Calls the quantized kernel cannot serve (masks, low_precision_attention=False, ...) always use exact
    attention (logged once): that is the design, not a failure."""
    prof = profile if profile is not None else hardware.profile()
    device = _device()
    why_not = []
    for name in FAST_BACKENDS:
        kern, problem = _build(name, prof, tuple(tensor_device_types), device)
        if kern is not None:
            return patch_attention(model, name, Policy.FALL_BACK, False, hybrid=hybrid or Hybrid.default(),
                                   profile=prof, tensor_device_types=tensor_device_types)
        why_not.append(f"{name}: {problem}")
    if Policy(policy) is Policy.ERROR:
        raise AccelError("quality", "quality 'fast' needs FP8 attention, which cannot run here: " + "; ".join(why_not),
                         "Set quality to 'exact', or on_failure to 'fall back' to continue with exact attention")
    m, report = patch_attention(model, "auto", Policy.FALL_BACK, False, profile=prof,
                                tensor_device_types=tensor_device_types)
    return m, report.plus("  quality fast: stayed exact, because " + "; ".join(why_not))


def apply_fast_attention(model, policy: Policy = Policy.FALL_BACK, *, hybrid: Hybrid | None = None,
                         profile=None, tensor_device_types=()):
    """As `patch_fast_attention`; returns (clone, report text, fast: bool)."""
    m, report = patch_fast_attention(model, policy, hybrid=hybrid, profile=profile,
                                     tensor_device_types=tensor_device_types)
    return m, report.render(), report.deviation is not None


SPARSE_REMEDY = "Set quality to 'exact', or on_failure to 'fall back' to continue with exact attention"


def patch_sparse_attention(model, backend: str = "radial_sparse", policy: Policy = Policy.FALL_BACK, *, sparse=None,
                           profile=None, tensor_device_types=()):
    """The `sparse` quality (Accel Wan Level-1): the sparse `backend` (radial_sparse) with settings `sparse` where it
    runs here, else exact `auto` with a report line saying why (radial_sparse cannot run here: no CUDA, no
    flex_attention; or core's BlockSparseAttention is on the model and radial_sparse stands down). Returns (clone,
    Report); the report's `deviation` is accel.attention.sparse.DEVIATION where the sparse pattern is on (None: it
    stayed exact). policy ERROR: AccelError naming 'quality' instead of staying exact."""
    from . import sparse as sparse_mod

    policy = Policy(policy)
    prof = profile if profile is not None else hardware.profile()
    kern, problem = _build(backend, prof, tuple(tensor_device_types), _device())
    remedy = SPARSE_REMEDY
    if kern is None:
        problem = f"{backend}: {problem}"
    elif comfy_compat.core_sparse_attention_installed(model):
        problem = ("core's Model Sparse Attention (BlockSparseAttention) is on this model and only one sparse pattern "
                   "may apply")
        remedy = ("Remove core's Model Sparse Attention node from this model's chain, or set quality to 'exact', or "
                  "on_failure to 'fall back' to continue with core's pattern and exact attention")
    if problem is not None:
        if policy is Policy.ERROR:
            raise AccelError("quality", "the sparse quality needs radial sparse attention, which cannot run here: "
                             + problem, remedy)
        if kern is None:  # radial_sparse never set up: the exact path, as quality exact
            m, report = patch_attention(model, "auto", Policy.FALL_BACK, False, profile=prof,
                                        tensor_device_types=tensor_device_types)
            return m, report.plus("  quality sparse: stayed exact, because " + problem)
    try:
        m, report = patch_attention(model, backend, policy, False, sparse=sparse, profile=prof,
                                    tensor_device_types=tensor_device_types)
    except AccelError as e:  # policy ERROR: no sparse kernel runs here (accel.attention.sparse.pick_kernel)
        if e.input_name != "backend":
            raise
        raise AccelError("quality", "the sparse quality needs radial sparse attention, which cannot run here: "
                         + e.problem, SPARSE_REMEDY) from e
    ov = m.model_options.get("transformer_options", {}).get(OVERRIDE_KEY)
    if isinstance(ov, AttentionOverride) and ov.kernel.sparse:
        return m, dataclasses.replace(report, deviation=sparse_mod.DEVIATION)
    return m, report.plus("  quality sparse: stayed exact, because " + (problem or "radial_sparse stood down (above)"))


def _hybrid_setup(m, hybrid: Hybrid, prof, extra_device_types, device, family: str | None = None):
    """Attach the step wrapper to clone `m`; returns (override of the exact kernel or None, report lines)."""
    name, _why, _skipped = defaults.choose_attention(prof, family=family)
    exact_kern, problem = _build(name, prof, extra_device_types, device)
    if exact_kern is not None and not exact_kern.low_precision:
        exact_ov = AttentionOverride(exact_kern, Policy.FALL_BACK)
        exact_text = exact_kern.label
    else:
        exact_ov, exact_text = None, f"ComfyUI's attention ({name}: {problem})"
    m.add_wrapper_with_key(apply_model_wrappers(), keys.ATTENTION, StepWrapper(hybrid))
    lines = [f"hybrid schedule: exact attention ({exact_text}) on {hybrid.describe()}; the quantized kernel elsewhere",
             "  steps are counted over the whole schedule: a KSamplerAdvanced run (one Wan 2.2 A14B expert) is "
             "placed in it by its sigmas; outside a sampler every call is quantized"]
    return exact_ov, lines


def autotune_path() -> Path:
    """Where measured choices are kept: <ComfyUI user dir>/comfyui-accel/attention_autotune.json."""
    try:
        import folder_paths

        base = Path(folder_paths.get_user_directory())
    except Exception:
        import tempfile

        base = Path(tempfile.gettempdir())
    return base / "comfyui-accel" / "attention_autotune.json"


def _autotune_candidates(primary, prof, extra_device_types, device):
    """Exact backends usable here (Sage kernels too when the primary is one), built and probed.
    sdpa_math is left out (it materialises the full attention matrix) and so is plain sdpa (it
    is one of the pinned SDPA kernels)."""
    cands, dropped = [], []
    for name, spec in registry.BACKENDS.items():
        if name == primary.name or name in ("sdpa", "sdpa_math"):
            continue
        if (spec.low_precision and not primary.low_precision) or spec.sparse:
            continue
        if not registry.available(name, prof)[0]:
            continue
        kern, problem = _build(name, prof, extra_device_types, device)
        if kern is None:
            dropped.append((name, problem))
        else:
            cands.append(kern)
    return cands, dropped


def _capabilities(kern) -> str:
    dts = "/".join(sorted(str(d).replace("torch.", "") for d in kern.dtypes))
    if kern.head_dims is not None:
        hd = "head_dim " + "/".join(str(x) for x in sorted(kern.head_dims))
    else:
        hd = f"head_dim <= {kern.max_head_dim}"
    parts = [dts, hd, "masks" if kern.supports_mask else "no masks"]
    parts.append(", ".join(sorted(kern.device_types)) + " tensors")
    if kern.low_precision:
        parts.append("not exact (skips calls that ask for exact attention)")
    return "; ".join(parts)


def _sparse_setup(m, model, kern, why, settings, policy, here):
    """radial_sparse on clone `m`: (kernel, exact override, report lines, why). The kernel is `kern` with its
    schedule attached, or the exact backend `auto` picks here when radial_sparse stands down (core's
    BlockSparseAttention on the model, or no sparse kernel runs here, with fallback 'fall back'; else AccelError).
    `here`: (profile, extra tensor device types, device), as `_resolve` takes them."""
    from . import sparse as sparse_mod

    prof, extra_device_types, device = here
    exact_kern, exact_why, _skipped = _resolve(prof, "auto", Policy.FALL_BACK, extra_device_types, device)
    if exact_kern is not None and exact_kern.low_precision:
        exact_kern = None
    exact_label = exact_kern.label if exact_kern is not None else "ComfyUI's attention"
    exact_ov = AttentionOverride(exact_kern, Policy.FALL_BACK) if exact_kern is not None else None
    settings = settings if settings is not None else sparse_mod.settings_from_inputs()
    try:
        run, lines = sparse_mod.setup(m, kern, settings, exact_kern, exact_label, policy, device, model)
    except RuntimeError as e:
        if policy is Policy.ERROR:
            raise AccelError("backend", f"radial_sparse cannot run here: {e}",
                             "Choose an exact backend (auto), or set fallback to 'fall back'") from e
        run, lines = None, [f"radial_sparse stood down: no sparse kernel runs here ({e}); fallback 'fall back': "
                            f"{exact_label} serves every call"]
    if run is None:
        return exact_kern, None, lines, f"{why}; radial_sparse stood down (below), so auto: {exact_label}"
    return kern, exact_ov, lines, why


def patch_attention(model, backend: str = "auto", policy: Policy = Policy.FALL_BACK, autotune: bool = False, *,
                    hybrid: Hybrid | None = None, sparse=None, profile=None, tensor_device_types=()):
    """Patch a clone of `model` (a ComfyUI ModelPatcher) to run attention with `backend`.

    backend: "auto" (accel.common.defaults.choose_attention for this GPU, then probed) or a registry name.
    policy: FALL_BACK — calls the backend cannot serve, and a backend that is not usable here, use
      ComfyUI's own attention function (SDPA on GPUs), with one warning per (backend, reason);
      ERROR — raise AccelError naming the backend, the reason and the package.
    autotune: time the usable exact backends (all Sage kernels too if the chosen one is Sage) on the
      first real call of each shape and keep the fastest; cached on disk per GPU + shape.
    hybrid: for a low-precision backend, the steps/blocks that run exact attention (`Hybrid`; None or all
      zero: the low-precision kernel on every call it can serve). Exact calls use the exact backend `auto`
      picks here (else ComfyUI's attention). Ignored for exact backends (they are exact on every step) and for
      radial_sparse (its own schedule).
    sparse: for radial_sparse, a kernels.attention.sparse.runtime.RadialSettings (None: accel.common.defaults.SPARSE):
      the pattern's decay factor, dense steps and blocks (accel/attention/sparse.py).
    profile, tensor_device_types: for tests and tools (a simulated HardwareProfile; extra tensor
      device types the backend may serve, e.g. ("cpu",) with fake libraries).
    Returns (patched clone, Report). The input model and its other clones are not changed.
    """
    policy = Policy(policy)
    strict = policy is Policy.ERROR
    prof = profile if profile is not None else hardware.profile()
    device = _device()
    fam = families.detect(model)
    kern, why, skipped = _resolve(prof, backend, policy, tuple(tensor_device_types), device, fam.family)

    lines, deviation = [], None
    where = f"{prof.gpu_name or prof.device_kind}" + (f" (sm{prof.sm_int})" if prof.sm_int else "")
    m = model.clone()
    if m.get_wrappers(apply_model_wrappers(), keys.ATTENTION):  # an earlier Accel Attention's schedule
        m.remove_wrappers_with_key(apply_model_wrappers(), keys.ATTENTION)
    to = dict(m.model_options.get("transformer_options", {}))
    prev = to.get(OVERRIDE_KEY)
    sparse_lines, sparse_exact = [], None
    if kern is not None and kern.sparse:
        kern, sparse_exact, sparse_lines, why = _sparse_setup(m, model, kern, why, sparse, policy,
                                                              (prof, tuple(tensor_device_types), device))
    if kern is None:
        to.pop(OVERRIDE_KEY, None)
        head = f"ComfyUI's own attention on {where}"
        lines.append(f"  why: {why}")
    else:
        tuner, tune_line = None, "autotune: off"
        if autotune and kern.sparse:
            tune_line = "autotune: off (radial_sparse decides per call between its pattern and exact attention)"
        elif autotune:
            cands, dropped = _autotune_candidates(kern, prof, tuple(tensor_device_types), device)
            if cands:
                from ...kernels.attention.autotune import Tuner

                path = autotune_path()
                tuner = Tuner(kern, cands, path, prof.cache_key())
                tune_line = (f"autotune: on - times {', '.join([kern.name] + [c.name for c in cands])} on the first "
                             f"call of each new shape and keeps the fastest that matches; cache: {path}")
            else:
                tune_line = "autotune: on, but no other usable backend to compare here"
            for name, problem in dropped:
                tune_line += f"\n    not timed {name}: {problem}"
        exact_ov, hybrid_lines = None, []
        use_hybrid = hybrid is not None and not hybrid.is_off() and kern.low_precision and not kern.sparse
        if use_hybrid:
            exact_ov, hybrid_lines = _hybrid_setup(m, hybrid, prof, tuple(tensor_device_types), device, fam.family)
        if kern.sparse:
            exact_ov = sparse_exact
        to[OVERRIDE_KEY] = AttentionOverride(kern, policy, tuner, hybrid if use_hybrid else None, exact_ov)
        head = f"{kern.label} on {where}"
        lines.append(f"  why: {why}")
        lines.append(f"  serves: {_capabilities(kern)}" + (f" ({kern.note})" if kern.note else ""))
        target = "raise an error (fallback: error)" if strict else \
            "use ComfyUI's attention, logged once per reason (fallback: fall back)"
        if kern.sparse and not strict:
            target = (f"use {sparse_exact.kernel.label if sparse_exact else 'ComfyUI attention'}, logged once per "
                      "reason (fallback: fall back)")
        lines.append(f"  other calls: {target}")
        lines.append("  " + tune_line)
        if kern.op_name:
            lines.append(f"  torch.compile: runs as custom op {kern.op_name} (no graph break per call)")
        lines += ["  " + x for x in hybrid_lines]
        if kern.low_precision and not kern.sparse:
            deviation = defaults.deviation_text(kern.name)
            lines.append("  " + deviation)
    lines += ["  " + x for x in sparse_lines]
    for name, problem in skipped:
        lines.append(f"  skipped {name}: {problem}")
    hints = gains.install_hints(skipped)
    if kern is not None:
        lines += ["  " + x for x in comfy_compat.checkpoint_attention_lines(model, kern.label)]
        lines += ["  " + x for x in comfy_compat.core_sparse_attention_lines(model, kern.low_precision)]
    sparse_prev = comfy_compat.core_sparse_attention_active({OVERRIDE_KEY: prev}) is not None
    if isinstance(prev, AttentionOverride):
        lines.append(f"  replaced the input model's earlier Accel Attention patch ({prev.kernel.label})")
    elif prev is not None and not sparse_prev:
        lines.append(f"  replaced an earlier attention override ({comfy_compat.describe_override(prev)})")
    m.model_options["transformer_options"] = to
    if not strict:  # calls handed back to ComfyUI's attention: the fastest exact SDPA order for this GPU
        line = numerics.attach_auto_sdpa(m, prof)
        if line:
            lines.append("  " + line)
    if kern is not None:
        log.info("attention=%s for %s", kern.label, where)
    section = Section(current_title(), head, lines)
    return m, Report([section], deviation, summary=(section.render()[0], _gain(kern, fam, prof), *hints),
                     hints=hints)


def _gain(kern, fam, prof) -> str:
    """The first screen's gain line: for an exact kernel, the measured figure of the exact chain Accel Attention is part
    of on this kind of model and GPU (a quantized or sparse kernel's figures are per call: in the details)."""
    if kern is not None and (kern.low_precision or kern.sparse):
        return gains.unmeasured_line(kern.label)
    return gains.gain_line(gains.EXACT, fam, prof)


def apply_attention(model, backend: str = "auto", policy: Policy = Policy.FALL_BACK, autotune: bool = False, *,
                    hybrid: Hybrid | None = None, sparse=None, profile=None, tensor_device_types=()):
    """As `patch_attention`; returns (patched clone, report text)."""
    m, report = patch_attention(model, backend, policy, autotune, hybrid=hybrid, sparse=sparse, profile=profile,
                                tensor_device_types=tensor_device_types)
    return m, report.render()


__all__ = ["apply_attention", "installed_backends", "AttentionOverride", "OVERRIDE_KEY", "autotune_path",
           "Hybrid", "StepWrapper", "EXACT_FLAG", "check_hybrid", "apply_fast_attention", "FAST_BACKENDS",
           "patch_attention", "patch_fast_attention", "patch_sparse_attention"]
