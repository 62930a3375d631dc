"""The measured gain a node's first screen quotes: per chain of nodes, kind of model and GPU, one row of the figure
table (accel.common.figures), or a line that says it was not measured for this kind of model and GPU.

    gain_line(EXACT, families.detect(model), hardware.profile())
    -> "gain: <figure> vs stock, measured for Accel Wan Level-1 on Wan 14B, H200 (bench/results/h200/...json)"
"""
from __future__ import annotations

from . import figures

EXACT = "exact"  # the family's exact chain: Accel Wan Level-1 on Wan, Accel CUDA Settings -> Attention -> Compile else
FP8 = "fp8"  # Accel Load Diffusion Model (FP8) before the exact chain
SPARSE = "sparse"  # the family's Level-1 preset with quality sparse (radial, opt-in; not exact), torch flex_attention
SPARSE_FA4 = "sparse_fa4"  # the same where its sparse kernel is FlashAttention-4's block-sparse one
RESIDENT = "resident"  # the exact chain with Accel Compile's resident_weights on, where the model loaded resident
WHOLE = "whole"  # the exact chain with Accel Compile's scope model (the whole diffusion model one region)

# chain -> kind of model -> GPU class -> figure id (bench/figures.py says how each was measured). A node that is part
# of the exact chain (Attention, Compile, CUDA Settings) quotes the chain's figure, and says so.
GAINS = {
    EXACT: {
        "wan14B": {"H200": "matrix.h200.140.level1.speedup", "H100": "matrix.h100.80.run2.level1.speedup"},
        "wan1.3B": {"H100": "level1.h100.1.3B.sample.speedup"},
        "wan5B": {"H200": "fp8auto.h200.ti2v.shipped.speedup", "H100": "family.h100.ti2v.shipped.speedup"},
        "flux": {"H200": "fp8auto.h200.flux.shipped.speedup", "H100": "family.h100.flux.run2.shipped.speedup"},
        "hunyuan_video": {"H200": "fp8auto.h200.hv.shipped.speedup", "H100": "family.h100.hv.shipped.speedup"},
        "ltxv": {"H200": "fp8auto.h200.ltxv.shipped.speedup", "H100": "family.h100.ltxv.shipped.speedup"},
        "qwen_image": {"H200": "fp8auto.h200.qwen.shipped.speedup", "H100": "family.h100.qwen.fix.shipped.speedup"},
        "z_image": {"H200": "fp8auto.h200.zimage.shipped.speedup"},
        "sdxl": {"H200": "sdxlsdpa.h200.layers.speedup"},
        "minimax_h3": {"H200": "family.h200.minimax_h3_turbo.shipped.speedup"},
        "hunyuan_video15": {"H200": "family.h200.hunyuan_video15_2steps.shipped.speedup"},
        "ltxav": {"H200": "ltx2_20.h200.shipped.speedup"},
        "flux2": {"H200": "family.h200.flux2_8steps.shipped.speedup"},
        "kandinsky5": {"H200": "family.h200.kandinsky5_2steps.shipped.speedup"},
    },
    FP8: {
        "wan14B": {"H200": "matrix.h200.140.fp8_level1.speedup", "H100": "matrix.h100.80.run2.fp8_level1.speedup"},
        "wan5B": {"H200": "fp8auto.h200.ti2v.fp8_shipped.speedup", "H100": "family.h100.ti2v.fp8_shipped.speedup"},
        "flux": {"H200": "fp8auto.h200.flux.fp8_shipped.speedup",
                 "H100": "family.h100.flux.run2.fp8_shipped.speedup"},
        "hunyuan_video": {"H200": "fp8auto.h200.hv.fp8_shipped.speedup", "H100": "family.h100.hv.fp8_shipped.speedup"},
        "ltxv": {"H200": "fp8auto.h200.ltxv.fp8_shipped.speedup", "H100": "family.h100.ltxv.fp8_shipped.speedup"},
        "qwen_image": {"H200": "fp8auto.h200.qwen.fp8_shipped.speedup",
                       "H100": "family.h100.qwen.fix.fp8_shipped.speedup"},
        "z_image": {"H200": "fp8auto.h200.zimage.fp8_shipped.speedup"},
        "hunyuan_video15": {"H200": "family.h200.hunyuan_video15_2steps.fp8_auto.speedup"},
        "kandinsky5": {"H200": "family.h200.kandinsky5_2steps.fp8_auto.speedup"},
        "minimax_h3": {"H200": "family.h200.minimax_h3_turbo.fp8_auto.speedup"},
    },
    SPARSE: {
        "minimax_h3": {"H200": "family.h200.minimax_h3_turbo.sparse.speedup"},
    },
    SPARSE_FA4: {
        "minimax_h3": {"H200": "family.h200.minimax_h3_turbo.sparse_fa4.speedup"},
    },
    RESIDENT: {
        "flux": {"H200": "family.h200.flux_resident.shipped_resident.speedup"},
        "z_image": {"H200": "family.h200.zimage_resident.shipped_resident.speedup"},
        "qwen_image": {"H200": "family.h200.qwen_resident.shipped_resident.speedup"},
        "flux2": {"H200": "flux2_20.h200.shipped_resident.speedup"},
    },
    WHOLE: {  # measured with eager's 16-bit roundings kept, as the whole model compiles (accel.compile.runners)
        "sdxl": {"H200": "sdxlkept.h200.model_scope.speedup"},
        "flux": {"H200": "fluxkept.h200.model_scope.speedup"},
        "z_image": {"H200": "zkept.h200.model_scope.speedup"},
        "qwen_image": {"H200": "qwenkept.h200.model_scope.speedup"},
    },
}
# The blocks (scope blocks) in the same run as each WHOLE figure: kind of model -> GPU class -> figure id (SDXL's run
# had none: its layers ran slower than its whole UNet wherever both ran, bench/results/h200/family_033_sdxl/)
BLOCKS_BESIDE_WHOLE = {
    "flux": {"H200": "fluxkept.h200.shipped_resident.speedup"},
    "z_image": {"H200": "zkept.h200.shipped_resident.speedup"},
    "qwen_image": {"H200": "qwenkept.h200.shipped_resident.speedup"},
}

KINDS = {"wan14B": "Wan 14B", "wan1.3B": "Wan 1.3B", "wan5B": "Wan 2.2 TI2V-5B", "flux": "Flux.1",
         "hunyuan_video": "HunyuanVideo", "ltxv": "LTX-Video", "qwen_image": "Qwen-Image", "z_image": "Z-Image Turbo",
         "sdxl": "SDXL",
         "minimax_h3": "MiniMax-H3", "hunyuan_video15": "HunyuanVideo 1.5 (2 of its template's 20 steps)",
         "ltxav": "LTX-2 (4 of its template's 20 steps)", "flux2": "Flux.2-dev (8 of its template's 20 steps)",
         "kandinsky5": "Kandinsky 5 Video Lite (2 of its template's 50 steps)"}
_WAN_SIZES = {"14B": "wan14B", "1.3B": "wan1.3B", "5B": "wan5B"}
GPUS = ("H100", "H200")


def model_kind(family) -> str | None:
    """The kind of model (a key of KINDS) a families.Family was measured as, None for one never measured."""
    if family.is_wan:
        return _WAN_SIZES.get(family.size)
    return family.family if family.family in KINDS else None


def gpu_class(profile) -> str | None:
    """"H100" / "H200" for those GPUs (the ones measured), else None."""
    name = (getattr(profile, "gpu_name", None) or "").upper()
    return next((g for g in GPUS if g in name), None)


def chain_name(chain: str, family) -> str:
    exact = ("Accel Wan Level-1" if family.is_wan else "Accel MiniMax-H3 Level-1" if family.family == "minimax_h3"
             else "CUDA Settings + Attention + Compile")
    if chain == SPARSE:
        return exact + " quality sparse (not exact; flex_attention)"
    if chain == SPARSE_FA4:
        return exact + " quality sparse (not exact; FlashAttention-4)"
    if chain == RESIDENT:
        return exact + " with resident_weights (the model loaded resident)"
    if chain == WHOLE:
        return exact + " with scope model (the whole model one region)"
    return "the FP8 loader + " + exact if chain == FP8 else exact


def measured(chain: str, family, profile) -> str | None:
    """The figure id of `chain`'s gain on this kind of model and GPU, None where it was not measured."""
    return GAINS.get(chain, {}).get(model_kind(family), {}).get(gpu_class(profile))


def gain_line(chain: str, family, profile) -> str:
    """The first screen's gain line: the measured figure with where it comes from, or that there is none."""
    fid, kind, gpu = measured(chain, family, profile), model_kind(family), gpu_class(profile)
    if fid is not None:
        return (f"gain: {figures.text(fid)} vs stock, measured for {chain_name(chain, family)} on {KINDS[kind]}, {gpu} "
                f"({figures.RESULTS}/{figures.fig(fid).file})")
    where = gpu or getattr(profile, "gpu_name", None) or getattr(profile, "device_kind", None) or "this device"
    return f"gain: not measured for {family.name} on {where} (what was measured where: docs/results.md)"


def unmeasured_line(what: str) -> str:
    """The gain line of a path this table has no whole-run figure for (its measured figures are in the details)."""
    return f"gain: no whole-run figure for {what} in this table (what was measured: details)"


def fp8_hint(family, profile) -> str | None:
    """"for more" line where the FP8 loader before the exact chain measured faster than the exact chain on this kind
    of model and GPU (not exact: its deviation is in the loader's report), else None."""
    fp8, exact = measured(FP8, family, profile), measured(EXACT, family, profile)
    if fp8 is None or exact is None or figures.fig(fp8).value <= figures.fig(exact).value:
        return None
    return (f"for more: load the model with Accel Load Diffusion Model (FP8): {figures.text(fp8)} vs stock measured "
            "here (FP8 weights: not exact)")


def blocks_hint(family, profile) -> str | None:
    """"for more" line at Accel Compile's scope model where the blocks ran faster than the whole model in the same
    run on this kind of model and GPU, else None."""
    whole = measured(WHOLE, family, profile)
    blocks = BLOCKS_BESIDE_WHOLE.get(model_kind(family), {}).get(gpu_class(profile))
    if whole is None or blocks is None or figures.fig(blocks).value <= figures.fig(whole).value:
        return None
    return (f"for more: set scope to blocks: {figures.text(blocks)} vs stock in the same run, against "
            f"{figures.text(whole)} for the whole model ({gpu_class(profile)})")


def install_hints(skipped) -> tuple:
    """What to install for the first backend `auto` prefers here and could not use, from (backend, why) pairs whose
    why says "install: <how>": ("for more: <how> (<backend>)",) or ()."""
    return tuple(f"for more: {why.split('install: ', 1)[1]} ({name})" for name, why in skipped
                 if "install: " in why)[:1]
