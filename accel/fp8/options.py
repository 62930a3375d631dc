"""The FP8 nodes' choices (weight format, compute path, layers kept in high precision) and the per-family `auto`
rule."""
from __future__ import annotations

from ...kernels import fp8_linear as kfp8
from ..common.figures import text as _fig


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

# Measured deviation of each FP8 matmul path, shown in the loader's report (figures from accel/common/figures.py).
# Final latent vs stock ComfyUI: Wan 2.1 T2V 14B fp16, RANDOM weights, 480p 81 frames, 2 steps CFG 5, loader ->
# Accel Wan Level-1, H200, ComfyUI 0.33.0 (bench/results/h200/matrix_033_wan14B_fp16_140GB.md). Random weights
# show deviation, not visual quality.
_WHERE = "Wan 14B random weights, 2 steps CFG 5, H200, ComfyUI 0.33; bench/results/h200/matrix_033_wan14B_fp16_140GB.md"
MEASURED_DEVIATION = {
    ("scaled_mm_rowwise", True): f"final-latent cosine {_fig('matrix.h200.140.fp8_level1.cosine')} vs stock ({_WHERE})",
    (kfp8.BLOCK_MODE, True): f"final-latent cosine {_fig('fp8.h200.block.cosine')} vs stock ({_WHERE})",
}


def measured_deviation(mode: str, fast_accum: bool) -> str:
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
    "flux": (KEEP_STANDARD, "Flux: double/single-block attention and MLP linears quantized; img_in/txt_in, time/guidance/vector "
                            "embedders, the *_mod modulation linears and final_layer stay high precision"),
    "qwen_image": (KEEP_STANDARD, "Qwen-Image: block attention and MLP linears quantized; img_in/txt_in, time_text_embed, "
                                  "img_mod/txt_mod modulation, norm_out and proj_out stay high precision"),
}
