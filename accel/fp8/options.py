"""The FP8 loader's contract: `FP8LoadOptions` (the loader's inputs, checked when built; `load.load(path, options)`
returns the model and its report), the FP8 nodes' choices (weight format, compute path, activation scaling, layers
kept in high precision) and the per-family `auto` rule."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from ...kernels import fp8_linear as kfp8
from ..common.errors import AccelError
from ..common.figures import text as _fig
from ..common.policy import Policy, as_policy

# --- user-facing options ---------------------------------------------------------------------------
FORMAT_AUTO = "auto"
FORMAT_KEEP = "keep as stored"
WEIGHT_FORMATS = {
    FORMAT_AUTO: None,
    "fp8_e4m3fn per-channel scaled": (kfp8.E4M3, True),
    "fp8_e4m3fn per-tensor scaled": (kfp8.E4M3, False),
    "fp8_e5m2 per-tensor scaled": (kfp8.E5M2, False),
    FORMAT_KEEP: None,
}
AUTO_TARGET = (kfp8.E4M3, True)  # what `auto` quantizes a bf16/fp16/fp32 file to

COMPUTE_AUTO = "auto"
COMPUTE_FP8 = "fp8 matmul"
COMPUTE_DEQUANT = "dequantize (bf16/fp16 matmul)"
COMPUTE_CHOICES = (COMPUTE_AUTO, COMPUTE_FP8, COMPUTE_DEQUANT)

# How an FP8 matmul quantizes its activations (the loader's advanced input `activation_scaling`). Today's behaviour
# (per-token, fast accumulation) stays the default until the GPU measurement (bench/bench_fp8_quality.py) picks one.
ACT_INPUT = "activation_scaling"
ACT_PER_TOKEN = "per-token"
ACT_PER_TOKEN_FP32 = "per-token, fp32 accumulation"
ACT_BLOCK = "1x128 blocks"
ACT_CHOICES = (ACT_PER_TOKEN, ACT_PER_TOKEN_FP32, ACT_BLOCK)
ACT_DEFAULT = ACT_PER_TOKEN


def check_activation_scaling(choice: str) -> None:
    if choice not in ACT_CHOICES:
        raise AccelError(ACT_INPUT, f"unknown choice '{choice}'", f"Use one of {', '.join(ACT_CHOICES)}")

# Measured deviation of each FP8 matmul path, shown in the loader's report (figures from accel/common/figures.py).
# Final latent vs stock ComfyUI: Wan 2.1 T2V 14B fp16, RANDOM weights, 480p 81 frames, 2 steps CFG 5, loader ->
# Accel Wan Level-1, H200, ComfyUI 0.33.0 (bench/results/h200/matrix_033_wan14B_fp16_140GB.md). Random weights
# show deviation, not visual quality.
_WHERE = "Wan 14B random weights, 2 steps CFG 5, H200, ComfyUI 0.33; bench/results/h200/matrix_033_wan14B_fp16_140GB.md"
MEASURED_DEVIATION = {
    ("scaled_mm_rowwise", True): f"final-latent cosine {_fig('matrix.h200.140.fp8_level1.cosine')} vs stock ({_WHERE})",
    (kfp8.BLOCK_MODE, True): f"final-latent cosine {_fig('fp8.h200.block.cosine')} vs stock ({_WHERE})",
}


# The family's own measured deviation on the row-wise FP8 path (the FP8 loader -> the family's exact chain, final
# latent vs stock's; random weights, H200, ComfyUI 0.33), where a run measured it: kind of model
# (accel.common.gains.KINDS) -> (figure id, the run in words). The loader's report quotes it before Wan's figure.
FAMILY_DEVIATION = {
    "wan14B": ("fp8auto.h200.wan21.fp8_level1.cosine", "Wan 2.1 T2V 14B 480p 81 frames, 4 steps CFG 5"),
    "wan5B": ("fp8auto.h200.ti2v.fp8_shipped.cosine", "Wan 2.2 TI2V-5B 1280x704 121 frames, 4 steps"),
    "flux": ("fp8auto.h200.flux.fp8_shipped.cosine", "Flux.1-dev 1024px, 20 steps"),
    "hunyuan_video": ("fp8auto.h200.hv.fp8_shipped.cosine", "HunyuanVideo 960x544 33 frames, 4 steps"),
    "ltxv": ("fp8auto.h200.ltxv.fp8_shipped.cosine", "LTX-Video 768x512 121 frames, 20 steps"),
    "qwen_image": ("fp8auto.h200.qwen.fp8_shipped.cosine", "Qwen-Image 1328px, 8 steps CFG 2.5"),
    "z_image": ("fp8auto.h200.zimage.fp8_shipped.cosine", "Z-Image Turbo 1024px, 9 steps"),
    "minimax_h3": ("family.h200.minimax_h3_turbo.fp8_auto.cosine",
                   "MiniMax-H3 from a scaled-fp8 file, 1344x768 124 frames, 4 steps, a shared host"),
}


def measured_deviation(mode: str, fast_accum: bool, kind: str | None = None) -> str:
    """The report's `measured deviation:` text: this kind of model's own figure where one was measured on this
    path, else the path's figure on Wan 14B (MEASURED_DEVIATION)."""
    if mode == "scaled_mm_rowwise" and fast_accum and kind in FAMILY_DEVIATION:
        from ..common.figures import fig

        fid, run = FAMILY_DEVIATION[kind]
        f = fig(fid)
        return (f"final-latent cosine {f.text} vs stock, measured on this kind of model ({run}, random weights, H200, "
                f"ComfyUI 0.33; bench/results/{f.file.rsplit('/', 1)[0]})")
    return MEASURED_DEVIATION.get((mode, fast_accum), "not measured for this path yet (bench/bench_fp8_quality.py)")


KEEP_AUTO = "auto (per model family)"
KEEP_STANDARD = "embeddings, norms, modulation, head"
KEEP_FIRST_LAST = "standard + first & last block"
KEEP_FIRST_LAST_2 = "standard + first 2 & last 2 blocks"
KEEP_CHOICES = (KEEP_AUTO, KEEP_STANDARD, KEEP_FIRST_LAST, KEEP_FIRST_LAST_2)
KEEP_EDGE = {KEEP_STANDARD: 0, KEEP_FIRST_LAST: 1, KEEP_FIRST_LAST_2: 2}

# Per-family `auto` choice with its reason. Families not listed use the standard rule.
_WAN_WHY = ("Wan: the block linears (self/cross attention, FFN) are quantized - the layers LightX2V's FP8 Wan "
            "scheme quantizes; embeddings, modulation and head stay high precision")
FAMILY_KEEP = {
    "wan21": (KEEP_STANDARD, _WAN_WHY),
    "wan22": (KEEP_STANDARD, _WAN_WHY),
    "flux": (KEEP_STANDARD,
             "Flux: double/single-block attention and MLP linears quantized; img_in/txt_in, time/guidance/vector "
             "embedders, the *_mod modulation linears and final_layer stay high precision"),
    "qwen_image": (KEEP_STANDARD,
                   "Qwen-Image: block attention and MLP linears quantized; img_in/txt_in, time_text_embed, "
                   "img_mod/txt_mod modulation, norm_out and proj_out stay high precision"),
}


@dataclass(frozen=True)
class FP8LoadOptions:
    """How to load a diffusion model as an FP8 model. The loader node's inputs: `weight_format` (WEIGHT_FORMATS),
    `compute` (COMPUTE_CHOICES), `keep` (its keep_high_precision, KEEP_CHOICES), `extra_keep` (layer name patterns),
    `policy` (its `strict`: ERROR raises where FALL_BACK picks a slower compute path), `activation_scaling`
    (ACT_CHOICES). For the saver and scripts: `input_name` (the input errors name: the saver converts files as
    `source_file`), `use_fast_accum` (False: as 'per-token, fp32 accumulation'), `compute_dtype` (the dtype of the
    layers kept in high precision and of the activations; None: ComfyUI's choice), `disable_dynamic` (ComfyUI 0.33's
    loader option, where it has it), `auto_16bit` (pins what `auto` decided for a 16-bit file: a reload of the same file
    keeps the first decision) and `profile` (a simulated HardwareProfile; None: this machine's)."""

    weight_format: str = FORMAT_AUTO
    compute: str = COMPUTE_AUTO
    keep: str = KEEP_AUTO
    extra_keep: str = ""
    policy: Policy = Policy.FALL_BACK
    activation_scaling: str = ACT_DEFAULT
    input_name: str = "unet_name"
    use_fast_accum: bool = True
    compute_dtype: object = None
    disable_dynamic: bool | None = None
    auto_16bit: bool | None = None
    profile: object = None

    def __post_init__(self):
        object.__setattr__(self, "policy", as_policy(self.policy))
        if self.weight_format not in WEIGHT_FORMATS:
            raise AccelError("weight_format", f"unknown choice '{self.weight_format}'",
                             f"Use one of {', '.join(WEIGHT_FORMATS)}")
        check_activation_scaling(self.activation_scaling)

    @property
    def explicit(self) -> bool:
        """Whether anything but the defaults was asked for (`auto` then keeps to what was asked)."""
        return (self.weight_format != FORMAT_AUTO or self.compute != COMPUTE_AUTO or self.keep != KEEP_AUTO
                or bool(self.extra_keep.strip()) or self.activation_scaling != ACT_DEFAULT or not self.use_fast_accum
                or self.compute_dtype is not None)

    def plain(self) -> dict:
        """The fields as plain values (the policy's word; no profile, dtype or `disable_dynamic`): what a reload outside
        the node keeps (ComfyUI 0.33's `cached_patcher_init`; Multi-GPU workers)."""
        d = asdict(self)
        d["policy"] = self.policy.value
        for k in ("profile", "compute_dtype", "disable_dynamic"):
            d.pop(k)
        return d
