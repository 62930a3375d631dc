"""What an Accel VAE decode runs: the VAE copy, and the scope each decode call runs in.

The user's VAE object is never modified: `accelerated_copy(vae, options, kind)` returns a shallow copy (same weights,
same ModelPatcher, so ComfyUI loads and offloads it exactly as before) whose class is a subclass of the
input's class with `decode` / `decode_tiled` wrapped. The wrapper runs ComfyUI's own decode (0.3.75 and
0.33 alike: `VAE.decode` / `VAE.decode_tiled` call `first_stage_model.decode`) inside `AccelState.scope`,
which for the length of that one call:

- sets the torch flags (cudnn.benchmark, TF32) through accel.cuda_settings.flags.scoped and restores them after;
- adds forward pre-hooks to the decoder's convolutions that hand them channels_last(_3d) activations (cuDNN
  then keeps that layout from conv to conv); removed after the call;
- optionally points the Wan decoder's `RMS_norm -> SiLU` pairs at the fused Triton kernel
  (kernels/vae_norm.py), and the decoder's residual blocks at torch.compile'd versions of themselves
  (one compiled callable per block call, never the chunk loop around them), through instance attributes
  removed after the call;
- optionally (`temporal_chunk`) runs the Wan VAE's decode with that many latent frames per decoder call
  (`decode_chunked`: ComfyUI's decoder and its causal cache, called over longer runs of frames).

ComfyUI runs one prompt at a time, so the shared modules carry these hooks only while this VAE decodes;
the input VAE decodes exactly as before at any other time. `tiled` routes `decode` to ComfyUI's own
`decode_tiled` (the VAE Decode (Tiled) node's arguments), which bounds peak memory by the tile size; tile_size 0
sizes the tiles to the device's free memory by ComfyUI's own estimate of a decode (`fit_tiles`).

Exactness (accel.vae.options.OPTION_NOTES): channels_last, cudnn.benchmark and temporal_chunk only change which
cuDNN algorithm runs and over how many frames (float reassociation); TF32, compile, the fused norm and tiling
change the numbers more and are opt-in.
"""
from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass

from ..common import log
from ..common.errors import AccelError, current_title
from ..common.policy import Policy
from . import output

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
        for a, b in zip(kids, kids[1:], strict=False):
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

    def __init__(self, options, kind: VaeKind):
        self.options = options  # accel.vae.options.VAEOptions
        self.family = kind.family
        self.policy = Policy(options.policy)
        self.title = current_title()  # a compile failure while decoding (later, in another node) names this node
        self.compiled: dict = {}       # residual block -> compiled callable
        self.compile_failed: str | None = None
        self.decodes = 0
        self.last_tiles: dict | None = None  # decode_tiled arguments of the last tiled decode (None: a full decode)

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
                        raise AccelError("compile",
                                         f"torch.compile failed on the VAE decoder ({type(e).__name__}: {e})",
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

        from ...kernels import vae_norm
        from ..compile import dynamo_compat
        from ..cuda_settings import flags as cuda_settings

        kind, why = identify(vae)
        if kind is None:  # cannot happen for a VAE apply() accepted; stay safe
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
                if o.temporal_chunk and kind.family in ("wan2.1", "wan2.2"):
                    fsm = vae.first_stage_model
                    eager_decode = fsm.decode

                    def chunked(z, *args, **kwargs):
                        if args or kwargs or z.ndim != 5 or z.shape[2] < 2:
                            return eager_decode(z, *args, **kwargs)
                        return decode_chunked(fsm, z, o.temporal_chunk, kind.family)
                    set_attr(fsm, "decode", chunked)
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

    def tile_args(self, vae, samples) -> dict | None:
        """decode_tiled arguments from the pixel/frame tile sizes, as VAE Decode (Tiled) computes them; tile_size 0:
        the spatial tile `fit_tiles` sizes to the free memory (None: the whole decode fits, decode untiled)."""
        o = self.options
        t_size, t_overlap = o.temporal_size, o.temporal_overlap
        if t_size < t_overlap * 2:
            t_overlap = t_overlap // 2
        tc = vae.temporal_compression_decode()
        if tc is not None:
            t_size = max(2, t_size // tc)
            t_overlap = max(1, min(t_size // 2, t_overlap // tc))
        else:
            t_size = t_overlap = None
        comp = vae.spacial_compression_decode()
        if o.tile_size == 0:
            tile = fit_tiles(vae, samples, t_size)
            if tile is None:
                return None
            overlap = tile // 4
        else:
            tile, overlap = o.tile_size // comp, o.overlap
            if o.tile_size < overlap * 4:
                overlap = o.tile_size // 4
            overlap //= comp
        return dict(tile_x=tile, tile_y=tile, overlap=overlap, tile_t=t_size, overlap_t=t_overlap)


def fit_tiles(vae, samples, tile_t) -> int | None:
    """The spatial tile (latent pixels) for a tiled decode sized to the device's free memory: None where ComfyUI's
    own estimate of the whole decode (`vae.memory_used_decode`) fits, else the largest of the latent's side halved
    until a tile's estimate fits (at least 256 pixels, ComfyUI's own fallback tile)."""
    from .. import comfy_compat

    free = comfy_compat.vae_free_memory(vae)
    shape = tuple(samples.shape)
    if vae.memory_used_decode(shape, vae.vae_dtype) <= free:
        return None
    smallest = max(1, 256 // vae.spacial_compression_decode())
    tile = max(shape[-2:])
    frames = (min(tile_t, shape[2]) if tile_t else shape[2],) if len(shape) == 5 else ()
    while tile > smallest:
        tile = max(smallest, tile // 2)
        if vae.memory_used_decode(shape[:2] + frames + (tile, tile), vae.vae_dtype) <= free:
            break
    return tile


def decode_chunked(fsm, z, chunk: int, family: str):
    """`WanVAE.decode(z)` with `chunk` latent frames per decoder call after the first frame (ComfyUI 0.33's Wan 2.1
    decode: 2; 0.3.75's, and the Wan 2.2 VAE's: 1). ComfyUI's own decoder and causal cache: the first latent frame
    alone (it is not upsampled in time), then runs of `chunk`, each call continuing the cache of the last."""
    import torch

    from .. import comfy_compat

    feat_map = [None] * comfy_compat.wan_vae_cache_size(fsm.decoder)
    x = fsm.conv2(z)
    out = []
    starts = [0] + list(range(1, x.shape[2], chunk))
    for i, a in enumerate(starts):
        b = 1 if i == 0 else a + chunk
        extra = {"first_chunk": True} if i == 0 and family == "wan2.2" else {}
        got = fsm.decoder(x[:, :, a:b], feat_cache=feat_map, feat_idx=[0], **extra)
        out += got if isinstance(got, list) else [got]
    out = torch.cat(out, 2)
    if family == "wan2.2":
        import comfy.ldm.wan.vae2_2 as wan22

        out = wan22.unpatchify(out, patch_size=2)
    return out


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
            tiles = st.tile_args(self, samples_in) if st.options.tiled else None
            st.last_tiles = tiles
            if tiles is not None:
                out = base.decode_tiled(self, samples_in, **tiles)
            else:
                out, why = output.decode_to_host(self, samples_in, contiguous=True,
                                                 run=lambda v: base.decode(v, samples_in, *args, **kwargs))
                if why is not None and output.on_cpu_from_gpu(self):  # ComfyUI's copy and conversion ran after all
                    # keyed by the reason's kind, not its figures (free memory differs from decode to decode)
                    log.info_once(("vae-output", why.split("(")[0]), "Accel VAE: decoded images converted on the CPU "
                                  "as ComfyUI does: %s", why)
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


def accelerated_copy(vae, options, kind: VaeKind):
    """A shallow copy of `vae` whose decode runs with `options` (accel.vae.options.VAEOptions); `vae` is unchanged."""
    clone = copy.copy(vae)
    clone.__class__ = _accel_class(type(vae))
    clone._accel_vae = AccelState(options, kind)
    return clone
