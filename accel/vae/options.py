"""Accel VAE's contract: `VAEOptions` (the node's inputs, checked when built) and `apply(vae, options) -> (vae,
Report)`,
on top of accel.vae.decode (what a decode runs) and accel.vae.measured (the defaults measured per GPU class)."""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

from ..common import log
from ..common.errors import AccelError, current_title
from ..common.figures import num as _num
from ..common.figures import text as _text
from ..common.policy import Policy, as_policy
from ..common.report import Report, Section
from . import decode, measured, output

# the integer inputs: name -> smallest value the decode can use (tile_size 0: tiles sized to the free memory)
INT_MINIMUM = {"tile_size": 0, "overlap": 0, "temporal_size": 8, "temporal_overlap": 4, "temporal_chunk": 0}


@dataclass(frozen=True)
class VAEOptions:
    """The node's inputs. Booleans: see OPTION_NOTES. tile_size / overlap (pixels) and temporal_size /
    temporal_overlap (frames): VAE Decode (Tiled)'s meaning; tile_size 0 sizes the tiles to the device's free memory
    (a full decode where it fits). temporal_chunk: latent frames per decoder call of the Wan VAEs (0: ComfyUI's own
    decode; 2 or more: that many, each call continuing the causal cache of the last). policy: the node's on_failure.
    compile_backend: torch.compile's backend (tests use "eager": the plumbing without a compiler)."""

    channels_last: bool = True
    cudnn_benchmark: bool = False  # its first decode at a new size searches (~11 s, Wan 81f 480p) for 1.05x: opt-in
    tf32: bool = False
    fused_norm: bool = False
    compile: bool = False
    tiled: bool = False
    tile_size: int = 512
    overlap: int = 64
    temporal_size: int = 64
    temporal_overlap: int = 8
    temporal_chunk: int = 0
    policy: Policy = Policy.FALL_BACK
    compile_backend: object = "inductor"

    def __post_init__(self):
        for name, lo in INT_MINIMUM.items():
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < lo:
                raise AccelError(name, f"{v!r} is not an integer >= {lo}", f"Set {name} to {lo} or more")
        if self.tile_size and self.tile_size < 64:
            raise AccelError("tile_size", f"{self.tile_size} px is too small for a tile",
                             "Set tile_size to 64 or more, or to 0 (tiles sized to the free memory)")
        if self.temporal_chunk == 1:
            raise AccelError("temporal_chunk", "1 latent frame per call breaks the causal cache of ComfyUI's newer "
                             "Wan 2.1 decoder", "Set temporal_chunk to 0 (ComfyUI's own decode) or 2 or more")
        object.__setattr__(self, "policy", as_policy(self.policy))

    def exact(self) -> bool:
        """Is every option on exact up to float reassociation (OPTION_NOTES)?"""
        return all(OPTION_NOTES[n][0] for n in BOOL_OPTIONS if getattr(self, n)) and (
            not self.temporal_chunk or CHUNK_NOTE[0])


# option -> (exact up to float reassociation?, what it does, deviation measured vs stock decode)
# CPU: the bounds tests/vae/test_vae.py asserts (tiny random-weight VAEs, fp32). GPU: bench/bench_vae.py on an
# H200, ComfyUI 0.33, bf16, Wan 2.1 VAE (true config, RANDOM weights) decoding 81 frames 480p; each option
# on top of channels_last + cudnn_benchmark (bench/results/h200/vae_033/vae.md). Random weights show speed
# and deviation from stock, not visual quality; max|diff| is on the [-1, 1] output scale.
OPTION_NOTES = {
    "channels_last": (True, "channels_last(_3d) activations for the decoder's convolutions",
                      "other cuDNN algorithms, float reassociation only (CPU fp32: max|diff| <= 1e-5; H100 bf16 "
                      f"Wan VAE: max|diff| {_text('vae.h100.default.vae033.maxdiff')} vs stock)"),
    "cudnn_benchmark": (True, "cudnn.benchmark during the decode (restored after)",
                        "another cuDNN algorithm, float reassociation only; the first decode at a new size searches "
                        f"(H200 Wan VAE 81f 480p with channels_last: {_text('vae.h200.cl_bench.first.vae033')} vs "
                        f"{_text('vae.h200.stock.first.vae033')} stock, once per process)"),
    "tf32": (False, "TF32 for float32 convolutions/matmuls during the decode (restored after)",
             "fp32 VAEs only (~1e-3 relative per conv); no effect on bf16/fp16 VAEs; GPU: not measured"),
    "fused_norm": (False, "fused RMSNorm+SiLU (one Triton pass, fp32 math, one rounding)",
                   "fewer roundings than stock (CPU fp32: max|diff| <= 1e-5; H200 bf16 Wan VAE: "
                   f"{_text('vae.h200.fused_norm.fp32ref.vs_fp32')} from a float32 decode, where stock is "
                   f"{_text('vae.h200.stock.fp32ref.vs_fp32')})"),
    "compile": (False, "torch.compile of each decoder residual block call",
                "fused fp32 intermediates (H200 bf16 Wan VAE with fused_norm: max|diff| "
                f"{_text('vae.h200.compile.fp32ref.maxdiff')} vs stock; the first decode compiles, "
                f"{_num('vae.h100.compile.first.run2')}-{_text('vae.h100.compile.first.vae033')} on an H100)"),
    "tiled": (False, "ComfyUI's tiled decode (bounds peak VRAM by the tile size)",
              "blended seams differ from a full decode (H200 Wan VAE, 512 px tiles: peak "
              f"{_num('vae.h200.tiled.peak')} vs {_text('vae.h200.stock.peak')}, {_text('vae.h200.tiled.speedup')} "
              "speed, large max|diff| near seams with random weights)"),
}
BOOL_OPTIONS = tuple(OPTION_NOTES)
CHUNK_NOTE = (True, "latent frames per decoder call of the Wan VAE (the causal cache carried from call to call)",
              "the same convolutions over longer runs of frames: float reassociation only (CPU fp32: max|diff| <= "
              "1e-5); GPU: not measured yet")
# Flux's KL VAE at 1024^2 on an H200 (bf16, ComfyUI 0.33): channels_last + cudnn_benchmark decoded at 0.64x
# stock speed (bench/results/h200/vae_033/vae.md), so the node does not apply them to KL VAEs.
KL_LAYOUT_MEASURED = f"measured {_text('vae.h200.kl.cl_bench.speedup')} stock speed on Flux's VAE at 1024^2 on an H200"


def _inapplicable(options: VAEOptions, kind) -> tuple:
    """(options without what this VAE cannot use, report lines saying so). AccelError under policy ERROR for an
    option set to other than the node's default here (accel.vae.measured) that cannot run on this VAE: a measured
    default made for the Wan VAEs is skipped on a KL VAE with a line, never an error."""
    defaults = measured_defaults()[0]
    skipped = []
    for name, off, msg, remedy in (
            ("fused_norm", False, "fused_norm: the KL decoder's GroupNorm + functional SiLU have no fused kernel here",
             "Set fused_norm to false for this VAE"),
            ("temporal_chunk", 0, "temporal_chunk: an image VAE has no frames to chunk",
             "Set temporal_chunk to 0 for this VAE")):
        value = getattr(options, name)
        if value == off or kind.family != "kl":
            continue
        if options.policy is Policy.ERROR and value != defaults[name]:
            raise AccelError(name, msg, remedy)
        skipped.append(msg + (": skipped" if value != defaults[name] else ": skipped (the default here)"))
        options = replace(options, **{name: off})
    if kind.family == "kl" and (options.channels_last or options.cudnn_benchmark):
        # measured, not assumed: see KL_LAYOUT_MEASURED
        skipped.append("channels_last, cudnn_benchmark: not applied to KL VAEs (" + KL_LAYOUT_MEASURED + ")")
        options = replace(options, channels_last=False, cudnn_benchmark=False)
    return options, skipped


def _option_lines(vae, options: VAEOptions, kind) -> list:
    import torch

    lines = []
    for name in BOOL_OPTIONS:
        if getattr(options, name):
            is_exact, what, deviation = OPTION_NOTES[name]
            tag = "exact up to float reassociation" if is_exact else "changes numbers"
            lines.append(f"on: {name}: {what} [{tag}; {deviation}]")
    if options.temporal_chunk:
        lines.append(f"on: temporal_chunk {options.temporal_chunk}: {CHUNK_NOTE[1]} [exact up to float reassociation; "
                     f"{CHUNK_NOTE[2]}]")
    lines.append("off: " + (", ".join(n for n in BOOL_OPTIONS if not getattr(options, n)) or "none")
                 + ("" if options.temporal_chunk else ", temporal_chunk (ComfyUI's own decode schedule)"))
    if options.tiled:
        values = {f.name: getattr(options, f.name) for f in fields(options)}
        lines.append(("tiles: sized to the free memory when the decode runs (a full decode where it fits), "
                      if not options.tile_size else "tiles: {tile_size} px, overlap {overlap} px, ".format(**values))
                     + "{temporal_size} frames, overlap {temporal_overlap} frames (VAE Decode (Tiled)'s meaning)"
                     .format(**values))
    if options.fused_norm:
        from ...kernels import vae_norm

        pairs = len(decode.norm_silu_pairs(kind.decoder))
        k = vae_norm.kernel() if torch.cuda.is_available() else None
        lines.append(f"fused_norm: {pairs} RMSNorm+SiLU pairs" + (
            "" if k is not None else " (no Triton here: PyTorch's ops run instead, same numbers as stock)"))
    if options.tf32 and getattr(vae, "vae_dtype", None) in (torch.float16, torch.bfloat16):
        lines.append("note: tf32 has no effect on this VAE (it runs in "
                     + str(vae.vae_dtype).replace("torch.", "") + ")")
    device = getattr(vae, "device", None)
    if options.cudnn_benchmark and getattr(device, "type", None) != "cuda":
        lines.append(f"note: cudnn.benchmark has no effect on {device}")
    lines.append(output.node_line(vae, options.tiled))
    return lines


def apply(vae, options: VAEOptions):
    """(vae to use, Report). The input VAE is not modified: the result is a shallow copy (same weights, same
    ModelPatcher) whose decode runs inside accel.vae.decode's scope. Unknown VAE types: the input VAE unchanged with a
    report line (policy FALL_BACK) or an AccelError naming the input (ERROR). The report's headline is the title of
    the node running (none outside a node)."""
    if not isinstance(options, VAEOptions):
        raise AccelError("options", f"expected VAEOptions, got {type(options).__name__}", "Build VAEOptions(...)")
    if vae is None or not hasattr(vae, "decode"):
        raise AccelError("vae", f"expected a VAE, got {type(vae).__name__}", "Connect a VAE loader's output")
    kind, why = decode.identify(vae)
    head = [Section(current_title())] if current_title() else []
    if kind is None:
        if options.policy is Policy.ERROR:
            raise AccelError("vae", why, "Use the VAE as it is (remove Accel VAE), or set on_failure to 'fall back'")
        fsm = getattr(vae, "first_stage_model", None)
        log.warn_once(("vae-unknown", type(fsm).__name__ if fsm is not None else None),
                      "Accel VAE: %s; passing the VAE through", why)
        return vae, Report(head + [Section(None, f"not accelerated (fall back): {why}; the input VAE is passed "
                                                  "through unchanged")])
    options, skipped = _inapplicable(options, kind)
    clone = decode.accelerated_copy(vae, options, kind)
    lines = [f"VAE: {kind.label}, dtype {str(getattr(vae, 'vae_dtype', '?')).replace('torch.', '')}, "
             f"device {getattr(vae, 'device', '?')}"]
    if decode.state_of(vae) is not None:
        lines.append("replaces the Accel VAE settings already on the input VAE")
    lines += _option_lines(vae, options, kind) + skipped
    exact = options.exact()
    lines.append("result: " + ("exact up to float reassociation (all options on are exact)" if exact
                               else "not bit-exact vs stock (opt-in options on): see the deviations above"))
    applied = [n for n in BOOL_OPTIONS if getattr(options, n)] + (["temporal_chunk"] if options.temporal_chunk else [])
    log.info("Accel VAE: %s, %s", kind.family, ", ".join(applied) or "nothing")
    deviation = None if exact else "see the report's 'on:' lines (measured deviation per option)"
    return clone, Report(head + [Section(None, lines[0], lines[1:])], deviation=deviation)


def measured_defaults(profile=None) -> tuple:
    """(VAEOptions field values on this machine: the measured choice of its GPU class (accel.vae.measured), else
    VAEOptions()'s own defaults; where they come from)."""
    return measured.choice({f.name: getattr(VAEOptions(), f.name) for f in fields(VAEOptions)}, profile)


def node_defaults(profile=None) -> dict:
    """The defaults of the node's option inputs on this machine (measured_defaults(), without the policy and the
    backend)."""
    values, _ = measured_defaults(profile)
    return {k: v for k, v in values.items() if k not in ("policy", "compile_backend")}
