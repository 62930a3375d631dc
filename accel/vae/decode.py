"""Accel VAE: a faster decode for the Wan 2.1/2.2 VAE (also Qwen-Image's) and the KL VAEs (Flux, SDXL, SD3).

The user's VAE object is never modified: `accelerate(vae, options)` returns a shallow copy (same weights,
same ModelPatcher, so ComfyUI loads and offloads it exactly as before) whose class is a subclass of the
input's class with `decode` / `decode_tiled` wrapped. The wrapper runs ComfyUI's own decode (0.3.75 and
0.33 alike: `VAE.decode` / `VAE.decode_tiled` call `first_stage_model.decode`) inside `decode_scope`,
which for the length of that one call:

- sets the torch flags (cudnn.benchmark, TF32) through accel.cuda_settings.flags.scoped and restores them after;
- adds forward pre-hooks to the decoder's convolutions that hand them channels_last(_3d) activations (cuDNN
  then keeps that layout from conv to conv); removed after the call;
- optionally points the Wan decoder's `RMS_norm -> SiLU` pairs at the fused Triton kernel
  (kernels/vae_norm.py), and the decoder's residual blocks at torch.compile'd versions of themselves
  (one compiled callable per block call, never the chunk loop around them), through instance attributes
  removed after the call.

ComfyUI runs one prompt at a time, so the shared modules carry these hooks only while this VAE decodes;
the input VAE decodes exactly as before at any other time. `tiled` routes `decode` to ComfyUI's own
`decode_tiled` (the VAE Decode (Tiled) node's arguments), which bounds peak memory by the tile size.

Exactness: channels_last and cudnn.benchmark only change which cuDNN algorithm runs (float reassociation);
TF32, compile, the fused norm and tiling change the numbers more and are opt-in (`Option.exact`).
"""
from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass, fields, replace

from ..common import log
from ..common.errors import AccelError, current_title
from ..common.figures import num as _num, span as _span, text as _text
from ..common.policy import Policy



# --- the options ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class VaeOptions:
    channels_last: bool = True
    cudnn_benchmark: bool = False  # its first decode at a new size searches (~11 s, Wan 81f 480p) for 1.05x: opt-in
    tf32: bool = False
    fused_norm: bool = False
    compile: bool = False
    tiled: bool = False
    tile_size: int = 512        # pixels, like VAE Decode (Tiled)
    overlap: int = 64
    temporal_size: int = 64     # frames
    temporal_overlap: int = 8
    compile_backend: str = "inductor"  # tests use "eager" (the plumbing without a compiler)


# option -> (exact up to float reassociation?, what it does, deviation measured vs stock decode)
# CPU: the bounds tests/vae/test_vae.py asserts (tiny random-weight VAEs, fp32). GPU: bench/bench_vae.py on an
# H200, ComfyUI 0.33, bf16, Wan 2.1 VAE (true config, RANDOM weights) decoding 81 frames 480p; each option
# on top of channels_last + cudnn_benchmark (bench/results/h200/vae_033/vae.md). Random weights show speed
# and deviation from stock, not visual quality; max|diff| is on the [-1, 1] output scale.
OPTION_NOTES = {
    "channels_last": (True, "channels_last(_3d) activations for the decoder's convolutions",
                      "other cuDNN algorithms, float reassociation only (CPU fp32: max|diff| <= 1e-5; H100 bf16 "
                      f"Wan VAE: {_span('vae.h100.default.run2', 'vae.h100.default.vae033')} stock, first decode no "
                      f"slower, max|diff| {_text('vae.h100.default.vae033.maxdiff')}; inside the Wan 2.2 A14B LightX2V "
                      f"workflow on an H100, experts resident: slower, {_text('e2e_wf.h100.save.level1_vae.q2.vae_decode')} "
                      f"vs stock's {_text('e2e_wf.h100.save.level1.q2.vae_decode')})"),
    "cudnn_benchmark": (True, "cudnn.benchmark during the decode (restored after)",
                        "another cuDNN algorithm, float reassociation only; with channels_last the first decode "
                        "at a new size searches (Wan VAE 81f 480p, first decode once per process: H200 "
                        f"{_num('vae.h200.cl_bench.first.fp32ref')}-{_text('vae.h200.cl_bench.first.vae033')} vs "
                        f"{_num('vae.h200.stock.first.fp32ref')}-{_text('vae.h200.stock.first.vae033')} stock, H100 "
                        f"{_text('vae.h100.cl_bench.cold.first')} vs {_text('vae.h100.cl_bench.cold.stock_first')}; then "
                        f"{_span('vae.h100.cl_bench.cold.speedup', 'vae.h200.cl_bench.run2.speedup')})"),
    "tf32": (False, "TF32 for float32 convolutions/matmuls during the decode (restored after)",
             "fp32 VAEs only (~1e-3 relative per conv); no effect on bf16/fp16 VAEs; GPU: not measured"),
    "fused_norm": (False, "fused RMSNorm+SiLU (one Triton pass, fp32 math, one rounding)",
                   "fewer roundings than stock (CPU fp32: max|diff| <= 1e-5; H200 bf16 Wan VAE: max|diff| "
                   f"{_num('vae.h200.fused_norm_bench.vae033.maxdiff')}-{_text('vae.h200.fused_norm_nobench.run3.maxdiff')} "
                   f"vs stock, {_text('vae.h200.fused_norm.fp32ref.vs_fp32')} vs a float32 decode where stock is "
                   f"{_text('vae.h200.stock.fp32ref.vs_fp32')}; with channels_last: H200 "
                   f"{_text('vae.h200.fused_norm_nobench.run3')}, "
                   f"{_span('vae.h200.fused_norm_bench.vae033', 'vae.h200.fused_norm_bench.run2')} adding "
                   f"cudnn_benchmark; H100 {_span('vae.h100.fused_norm_nobench.run3', 'vae.h100.fused_norm_nobench.vae033')}, "
                   f"{_span('vae.h100.fused_norm_bench.vae033', 'vae.h100.fused_norm_bench.run2')} adding cudnn_benchmark)"),
    "compile": (False, "torch.compile of each decoder residual block call",
                "fused fp32 intermediates (bf16 Wan VAE with fused_norm + channels_last + cudnn_benchmark: H200 "
                f"{_span('vae.h200.compile.fp32ref', 'vae.h200.compile.run2')} stock, H100 "
                f"{_span('vae.h100.compile.run3', 'vae.h100.compile.vae033')}; without cudnn_benchmark H200 "
                f"{_text('vae.h200.compile_nobench.run3')}, H100 {_text('vae.h100.compile_nobench.run3')}; max|diff| "
                f"{_num('vae.h200.fused_norm_bench.vae033.maxdiff')}-{_text('vae.h200.compile.fp32ref.maxdiff')}, first "
                f"decode {_num('vae.h100.compile.first.run2')}-{_text('vae.h100.compile.first.vae033')})"),
    "tiled": (False, "ComfyUI's tiled decode (bounds peak VRAM by the tile size)",
              f"blended seams differ from a full decode (H200 Wan VAE, 512 px tiles: peak {_num('vae.h200.tiled.peak')} "
              f"vs {_text('vae.h200.stock.peak')}, {_text('vae.h200.tiled.speedup')} speed, large max|diff| near seams "
              "with random weights)"),
}
# Flux's KL VAE at 1024^2 on an H200 (bf16, ComfyUI 0.33): channels_last + cudnn_benchmark decoded at 0.64x
# stock speed (bench/results/h200/vae_033/vae.md), so the node does not apply them to KL VAEs.
KL_LAYOUT_MEASURED = f"measured {_text('vae.h200.kl.cl_bench.speedup')} stock speed on Flux's VAE at 1024^2 on an H200"
BOOL_OPTIONS = tuple(OPTION_NOTES)


# --- which VAE is this ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class VaeKind:
    family: str   # "wan2.1" | "wan2.2" | "kl"
    label: str
    decoder: object  # the decoder module (hooks are added below it)


def identify(vae) -> tuple:
    """(VaeKind, None) for a VAE this module accelerates, else (None, reason)."""
    fsm = getattr(vae, "first_stage_model", None)
    if fsm is None:
        return None, "the VAE has no model (ComfyUI: 'No VAE weights detected')"
    cls = type(fsm)
    where = f"{cls.__module__}.{cls.__name__}"
    decoder = getattr(fsm, "decoder", None)
    if cls.__module__ == "comfy.ldm.wan.vae" and cls.__name__ == "WanVAE" and decoder is not None:
        return VaeKind("wan2.1", f"Wan 2.1 VAE ({where}; Wan 2.1, Wan 2.2 A14B, Qwen-Image)", decoder), None
    if cls.__module__ == "comfy.ldm.wan.vae2_2" and cls.__name__ == "WanVAE" and decoder is not None:
        return VaeKind("wan2.2", f"Wan 2.2 VAE ({where}; Wan 2.2 TI2V-5B)", decoder), None
    dec_cls = type(decoder)
    if (cls.__module__ == "comfy.ldm.models.autoencoder" and decoder is not None
            and dec_cls.__module__ == "comfy.ldm.modules.diffusionmodules.model" and dec_cls.__name__ == "Decoder"
            and getattr(vae, "latent_dim", 2) == 2):
        return VaeKind("kl", f"KL image VAE ({where}; Flux, SDXL, SD3, ...)", decoder), None
    return None, f"{where} is not a VAE Accel VAE knows (Wan 2.1/2.2 VAE, KL image VAEs of Flux/SDXL/SD3)"


def _residual_block_types(family: str) -> tuple:
    if family == "wan2.1":
        import comfy.ldm.wan.vae as m

        return (m.ResidualBlock,)
    if family == "wan2.2":
        import comfy.ldm.wan.vae2_2 as m

        return (m.ResidualBlock,)
    import comfy.ldm.modules.diffusionmodules.model as m

    return (m.ResnetBlock,)


def _rms_norm_types() -> tuple:
    types = []
    for name in ("comfy.ldm.wan.vae", "comfy.ldm.wan.vae2_2"):
        try:
            import importlib

            t = getattr(importlib.import_module(name), "RMS_norm", None)
        except ImportError:
            t = None
        if t is not None and t not in types:
            types.append(t)
    return tuple(types)


def norm_silu_pairs(decoder) -> list:
    """(RMS_norm, SiLU) module pairs that follow each other in one nn.Sequential of the decoder, where the
    norm is channel-first (what the fused kernel computes)."""
    import torch

    norms = _rms_norm_types()
    pairs = []
    for mod in decoder.modules():
        if not isinstance(mod, torch.nn.Sequential):
            continue
        kids = list(mod)
        for a, b in zip(kids, kids[1:]):
            if isinstance(a, norms) and isinstance(b, torch.nn.SiLU) and getattr(a, "channel_first", False):
                pairs.append((a, b))
    return pairs


def conv_modules(vae, kind: VaeKind) -> list:
    import torch

    roots = [kind.decoder]
    fsm = vae.first_stage_model
    for name in ("conv2", "post_quant_conv"):  # what decode() runs before the decoder
        m = getattr(fsm, name, None)
        if isinstance(m, torch.nn.Module):
            roots.append(m)
    out = []
    for r in roots:
        out += [m for m in r.modules() if isinstance(m, (torch.nn.Conv2d, torch.nn.Conv3d))]
    return out


# --- the per-call scope -----------------------------------------------------------------------------

def _to_channels_last(module, args):
    import torch

    if not args or not isinstance(args[0], torch.Tensor):
        return None
    x = args[0]
    if x.ndim == 5:
        fmt = torch.channels_last_3d
    elif x.ndim == 4:
        fmt = torch.channels_last
    else:
        return None
    if x.is_contiguous(memory_format=fmt):
        return None
    return (x.contiguous(memory_format=fmt), *args[1:])


def _identity(x, *args, **kwargs):
    return x


class AccelState:
    """The options of one Accel VAE node output, and what it compiled (kept across decodes)."""

    def __init__(self, options: VaeOptions, kind: VaeKind, policy: Policy):
        self.options = options
        self.family = kind.family
        self.policy = Policy(policy)
        self.title = current_title()  # a compile failure while decoding (later, in another node) names this node
        self.compiled: dict = {}       # residual block -> compiled callable
        self.compile_failed: str | None = None
        self.decodes = 0

    def __deepcopy__(self, memo):
        return self

    def _compiled_forward(self, block):
        import torch

        fn = self.compiled.get(block)
        if fn is None:
            eager = type(block).forward.__get__(block)
            compiled = torch.compile(eager, backend=self.options.compile_backend, dynamic=False)
            state = self

            def run(*args, **kwargs):
                if state.compile_failed is not None:
                    return eager(*args, **kwargs)
                try:
                    return compiled(*args, **kwargs)
                except Exception as e:  # noqa: BLE001 - compile errors come in many types
                    if state.policy is Policy.ERROR:
                        raise AccelError("compile", f"torch.compile failed on the VAE decoder ({type(e).__name__}: {e})",
                                         "Set compile to false, or on_failure to 'fall back'", title=state.title) from e
                    state.compile_failed = f"{type(e).__name__}: {e}"
                    log.warn_once(("vae-compile", type(e).__name__), "Accel VAE: torch.compile of the decoder blocks "
                                  "failed (%s); decoding without it", state.compile_failed)
                    return eager(*args, **kwargs)

            fn = self.compiled[block] = run
        return fn

    @contextlib.contextmanager
    def scope(self, vae):
        """Everything this node changes, for one decode call."""
        import torch

        from ..cuda_settings import flags as cuda_settings
        from ...kernels import vae_norm
        from ..compile import dynamo_compat

        kind, why = identify(vae)
        if kind is None:  # cannot happen for a VAE accelerate() accepted; stay safe
            yield
            return
        o = self.options
        settings = cuda_settings.CudaSettings(
            cudnn_benchmark=True if o.cudnn_benchmark else None,
            tf32_cudnn=True if o.tf32 else None, tf32_matmul=True if o.tf32 else None)
        handles, attrs = [], []

        def set_attr(mod, name, value):
            attrs.append((mod, name, mod.__dict__.get(name, _MISSING)))
            setattr(mod, name, value)

        try:
            with contextlib.ExitStack() as stack:
                stack.enter_context(cuda_settings.scoped(settings))
                if o.channels_last:
                    for m in conv_modules(vae, kind):
                        handles.append(m.register_forward_pre_hook(_to_channels_last))
                if o.fused_norm and kind.family in ("wan2.1", "wan2.2"):
                    for norm, silu in norm_silu_pairs(kind.decoder):
                        def fused(x, norm=norm):
                            return vae_norm.rms_norm_silu(x, norm.gamma, norm.bias)
                        set_attr(norm, "forward", fused)
                        set_attr(silu, "forward", _identity)
                if o.compile:
                    blocks = [m for m in kind.decoder.modules() if isinstance(m, _residual_block_types(kind.family))]
                    for b in blocks:
                        set_attr(b, "forward", self._compiled_forward(b))
                    limits = dynamo_compat.raised_recompile_limits(16 * max(1, len(blocks)))
                    if limits:
                        stack.enter_context(torch._dynamo.config.patch(**limits))
                self.decodes += 1
                yield
        finally:
            for h in handles:
                h.remove()
            for mod, name, prev in reversed(attrs):
                if prev is _MISSING:
                    mod.__dict__.pop(name, None)
                else:
                    mod.__dict__[name] = prev

    def tile_args(self, vae) -> dict:
        """decode_tiled arguments from the pixel/frame tile sizes, as VAE Decode (Tiled) computes them."""
        o = self.options
        tile, overlap = o.tile_size, o.overlap
        t_size, t_overlap = o.temporal_size, o.temporal_overlap
        if tile < overlap * 4:
            overlap = tile // 4
        if t_size < t_overlap * 2:
            t_overlap = t_overlap // 2
        tc = vae.temporal_compression_decode()
        if tc is not None:
            t_size = max(2, t_size // tc)
            t_overlap = max(1, min(t_size // 2, t_overlap // tc))
        else:
            t_size = t_overlap = None
        comp = vae.spacial_compression_decode()
        return dict(tile_x=tile // comp, tile_y=tile // comp, overlap=overlap // comp, tile_t=t_size, overlap_t=t_overlap)


_MISSING = object()
_SUBCLASSES: dict = {}


def _accel_class(base):
    """A subclass of the VAE's class whose decode / decode_tiled run inside the node's scope (made once per
    class; isinstance(copy, comfy.sd.VAE) stays true, and copies of the copy keep the behaviour)."""
    if getattr(base, "_accel_base", None) is not None:
        base = base._accel_base
    sub = _SUBCLASSES.get(base)
    if sub is not None:
        return sub

    def decode(self, samples_in, *args, **kwargs):
        st = self._accel_vae
        with st.scope(self):
            if st.options.tiled:
                out = base.decode_tiled(self, samples_in, **st.tile_args(self))
            else:
                out = base.decode(self, samples_in, *args, **kwargs)
        return out.contiguous()

    def decode_tiled(self, samples, *args, **kwargs):
        with self._accel_vae.scope(self):
            return base.decode_tiled(self, samples, *args, **kwargs).contiguous()

    sub = type(f"Accel{base.__name__}", (base,), {"decode": decode, "decode_tiled": decode_tiled,
                                                   "_accel_base": base, "__module__": __name__})
    _SUBCLASSES[base] = sub
    return sub


def state_of(vae) -> AccelState | None:
    return vae.__dict__.get("_accel_vae") if hasattr(vae, "__dict__") else None


# --- the node's entry point ------------------------------------------------------------------------

def check_options(options: VaeOptions) -> None:
    """AccelError for tile settings the tiled decode cannot use (before any work)."""
    for name, lo in (("tile_size", 64), ("overlap", 0), ("temporal_size", 8), ("temporal_overlap", 4)):
        v = getattr(options, name)
        if not isinstance(v, int) or isinstance(v, bool) or v < lo:
            raise AccelError(name, f"{v!r} is not an integer >= {lo}", f"Set {name} to {lo} or more")


def accelerate(vae, options: VaeOptions, policy: Policy = Policy.FALL_BACK):
    """(vae to use, report text). The input VAE is not modified. Unknown VAE types: the input VAE unchanged
    with a report line (policy FALL_BACK) or an AccelError naming the input (ERROR). The report's first line is
    the title of the node running (none outside a node)."""
    import torch

    policy = Policy(policy)
    check_options(options)
    if vae is None or not hasattr(vae, "decode"):
        raise AccelError("vae", f"expected a VAE, got {type(vae).__name__}", "Connect a VAE loader's output")
    kind, why = identify(vae)
    lines = [current_title()] if current_title() else []
    if kind is None:
        if policy is Policy.ERROR:
            raise AccelError("vae", why, "Use the VAE as it is (remove Accel VAE), or set on_failure to 'fall back'")
        lines.append(f"not accelerated (fall back): {why}; the input VAE is passed through unchanged")
        log.warn_once(("vae-unknown", type(vae.first_stage_model).__name__ if getattr(vae, "first_stage_model", None) is not None else None),
                      "Accel VAE: %s; passing the VAE through", why)
        return vae, "\n".join(lines)
    lines.append(f"VAE: {kind.label}, dtype {str(getattr(vae, 'vae_dtype', '?')).replace('torch.', '')}, "
                 f"device {getattr(vae, 'device', '?')}")
    skipped = []
    if options.fused_norm and kind.family == "kl":
        msg = "fused_norm: the KL decoder's GroupNorm + functional SiLU have no fused kernel here"
        if policy is Policy.ERROR:
            raise AccelError("fused_norm", msg, "Set fused_norm to false for this VAE")
        skipped.append(msg + ": skipped")
        options = replace(options, fused_norm=False)
    if kind.family == "kl" and (options.channels_last or options.cudnn_benchmark):
        # measured, not assumed: see KL_LAYOUT_MEASURED
        skipped.append("channels_last, cudnn_benchmark: not applied to KL VAEs (" + KL_LAYOUT_MEASURED + ")")
        options = replace(options, channels_last=False, cudnn_benchmark=False)
    prev = state_of(vae)
    clone = copy.copy(vae)
    clone.__class__ = _accel_class(type(vae))
    state = AccelState(options, kind, policy)
    clone._accel_vae = state
    if prev is not None:
        lines.append("replaces the Accel VAE settings already on the input VAE")
    applied, exact = [], True
    for name in BOOL_OPTIONS:
        on = getattr(options, name)
        is_exact, what, deviation = OPTION_NOTES[name]
        if on:
            applied.append(name)
            exact = exact and is_exact
            tag = "exact up to float reassociation" if is_exact else "changes numbers"
            lines.append(f"on: {name}: {what} [{tag}; {deviation}]")
    lines.append("off: " + (", ".join(n for n in BOOL_OPTIONS if not getattr(options, n)) or "none"))
    if options.tiled:
        lines.append("tiles: {tile_size} px, overlap {overlap} px, {temporal_size} frames, overlap {temporal_overlap} "
                     "frames (VAE Decode (Tiled)'s meaning)".format(**{f.name: getattr(options, f.name) for f in fields(options)}))
    if options.fused_norm:
        from ...kernels import vae_norm

        pairs = len(norm_silu_pairs(kind.decoder))
        k = vae_norm.kernel() if torch.cuda.is_available() else None
        lines.append(f"fused_norm: {pairs} RMSNorm+SiLU pairs" + (
            "" if k is not None else " (no Triton here: PyTorch's ops run instead, same numbers as stock)"))
    if options.tf32 and getattr(vae, "vae_dtype", None) in (torch.float16, torch.bfloat16):
        lines.append("note: tf32 has no effect on this VAE (it runs in " + str(vae.vae_dtype).replace("torch.", "") + ")")
    device = getattr(vae, "device", None)
    if options.cudnn_benchmark and getattr(device, "type", None) != "cuda":
        lines.append(f"note: cudnn.benchmark has no effect on {device}")
    lines += skipped
    lines.append("result: " + ("exact up to float reassociation (all options on are exact)" if exact
                                else "not bit-exact vs stock (opt-in options on): see the deviations above"))
    text = "\n".join(lines)
    log.info("Accel VAE: %s, %s", kind.family, ", ".join(applied) or "nothing")
    return clone, text
