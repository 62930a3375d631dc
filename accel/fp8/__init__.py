"""FP8 diffusion models inside ComfyUI: loading every FP8 form, quantizing on load, FP8 matmuls, saving.

How a model is loaded (`load(path, FP8LoadOptions(...))`; `load_file` takes the options as keyword arguments;
`load_state_dict` loads a state dict):
1. `formats.normalize` turns the file (bf16/fp16/fp32, scaled_fp8, _quantization_metadata,
   comfy_quant, plain fp8, per-channel weight_scale) into one canonical state dict and validates it.
2. ComfyUI's own `comfy.sd.load_diffusion_model_state_dict` builds the model with our custom
   operations (`make_operations`, a subclass of comfy.ops.manual_cast): every Linear stores its weight
   as given (fp8 + fp32 `weight_scale`, or high precision); everything else is ComfyUI's.
3. `accel.common.families.detect` names the family; `plan_layers` decides which Linears are quantized
   (transformer-block linears; embeddings, norms, modulation/adaLN and the head stay high
   precision, optionally also the first/last blocks); `finalize` quantizes / requantizes /
   dequantizes each Linear accordingly (on the GPU when there is one).

At run time a quantized Linear either calls `kernels.fp8_linear.fp8_linear` (dynamic per-token activation
scales x per-channel weight scales through torch._scaled_mm, on GPUs with FP8 tensor cores; the
path comes from `accel.common.defaults.choose(profile).fp8_compute`; the loader's `activation_scaling` input
can ask for fp32 accumulation or 1x128 activation blocks instead, `plan.resolve_activation`) or
dequantizes its weight per layer to the compute dtype. Weights are fetched through
comfy.ops.cast_bias_weight, so offloading/lowvram work; `convert_weight`/`set_weight` make LoRA weight
patches apply to the true (scaled) values and requantize with ComfyUI's stochastic rounding; per-forward
weight functions (LoRA in lowvram mode or under DynamicVRAM, hooks) run on the dequantized weight, except a plain
low-rank LoRA, which is added beside the FP8 matmul (`ops` module docstring).

Layout (one concern per file): ``options`` (the nodes' choices), ``formats`` (file forms: read, normalize, write),
``ops`` (the FP8 Linear and its runtime), ``plan`` (compute path, layers kept in high precision), ``finalize``
(quantize each Linear to the plan, key and NaN checks), ``load`` (file / state dict -> MODEL, report), ``save``
(portable format). This package re-exports the public API the nodes use.
"""
from __future__ import annotations

from ..common import live_report
from .finalize import Stats, check_keys, count_nonfinite, finalize, nonfinite_tensors, nonfinite_text
from .load import LoadResult, activation_dtype, load, load_file, load_state_dict
from .ops import FP8Runtime, after_run_lines, is_accel_linear, make_operations
from .options import (
    ACT_BLOCK,
    ACT_CHOICES,
    ACT_DEFAULT,
    ACT_INPUT,
    ACT_PER_TOKEN,
    ACT_PER_TOKEN_FP32,
    AUTO_TARGET,
    COMPUTE_AUTO,
    COMPUTE_CHOICES,
    COMPUTE_DEQUANT,
    COMPUTE_FP8,
    FAMILY_KEEP,
    FORMAT_AUTO,
    FORMAT_KEEP,
    KEEP_AUTO,
    KEEP_CHOICES,
    KEEP_FIRST_LAST,
    KEEP_FIRST_LAST_2,
    KEEP_STANDARD,
    WEIGHT_FORMATS,
    FP8LoadOptions,
    check_activation_scaling,
)
from .plan import Plan, plan_layers, resolve_activation, resolve_compute
from .save import (
    NO_SOURCE_FILE,
    SaveTarget,
    convert_file,
    model_path,
    output_path,
    portable_tensors,
    reserve_target,
    save_from_inputs,
    save_portable,
)

__all__ = ["ACT_BLOCK", "ACT_CHOICES", "ACT_DEFAULT", "ACT_INPUT", "ACT_PER_TOKEN", "ACT_PER_TOKEN_FP32", "AUTO_TARGET",
           "COMPUTE_AUTO", "COMPUTE_CHOICES", "COMPUTE_DEQUANT", "COMPUTE_FP8", "FAMILY_KEEP", "FORMAT_AUTO",
           "FORMAT_KEEP", "KEEP_AUTO", "KEEP_CHOICES", "KEEP_FIRST_LAST", "KEEP_FIRST_LAST_2", "KEEP_STANDARD",
           "WEIGHT_FORMATS", "FP8LoadOptions", "FP8Runtime", "LoadResult", "Plan", "SaveTarget", "Stats",
           "activation_dtype",
           "check_activation_scaling", "check_keys", "convert_file", "count_nonfinite", "finalize", "is_accel_linear",
           "load", "load_file", "load_state_dict", "make_operations", "model_path", "NO_SOURCE_FILE",
           "save_from_inputs", "nonfinite_tensors", "nonfinite_text", "output_path",
           "plan_layers", "portable_tensors", "reserve_target", "resolve_activation", "resolve_compute",
           "save_portable"]

live_report.register_after_run(after_run_lines, order=20)
