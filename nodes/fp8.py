"""FP8 loader and saver nodes. Thin: validation and a call into accel.fp8."""
from __future__ import annotations

import folder_paths
from comfy_api.latest import io

from ..accel import fp8 as F
from ..accel.common.errors import AccelError
from ..accel.common.figures import text as _fig
from ._common import CATEGORY_LOAD, AccelNode, advanced, files_in, model_output, report_output, with_report

NONE_FILE = "(none)"


def _files():
    return folder_paths.get_filename_list("diffusion_models")


class AccelLoadDiffusionModelFP8(AccelNode, node_id="AccelLoadDiffusionModelFP8",
                                 display="Accel Load Diffusion Model (FP8)", category=CATEGORY_LOAD,
                                 aliases=("fp8 loader", "load diffusion model", "unet loader")):
    """Loads a diffusion model (Wan, Flux, Qwen-Image, ...) with FP8 weights: half the memory of bf16, and FP8
    tensor-core matmuls on GPUs that have them (H100/H200, L40/RTX 40xx and newer). Reads bf16/fp16/fp32 files
    (quantized on load) and every FP8 form in use: ComfyUI scaled_fp8, _quantization_metadata, comfy_quant, plain
    fp8 and per-channel weight_scale files. Embeddings, norms, modulation and the output head stay in bf16/fp16.
    LoRAs, offloading and other model nodes work as with ComfyUI's own loader. The report says what was done."""

    @classmethod
    def inputs(cls):
        return [
            io.Combo.Input("unet_name", options=_files(),
                           tooltip="A .safetensors diffusion model from models/diffusion_models (or models/unet)."),
            io.Combo.Input("weight_format", options=list(F.WEIGHT_FORMATS), default=F.FORMAT_AUTO, tooltip=(
                "auto: FP8 files stay as stored; bf16/fp16/fp32 files are quantized to fp8_e4m3fn with one "
                "scale per output channel (most accurate). per-tensor: one scale per layer (the portable "
                "format). e5m2: more range, less precision (no FP8 matmul). keep as stored: no quantization.")),
            io.Combo.Input("compute", options=list(F.COMPUTE_CHOICES), default=F.COMPUTE_AUTO, tooltip=(
                "auto: FP8 tensor-core matmuls where the GPU has them (SM >= 8.9: per-token x per-channel "
                "scales on H100/H200, per-tensor on L40/RTX 40xx), otherwise dequantize each layer to "
                "bf16/fp16. 'fp8 matmul' warns once and dequantizes where unsupported (errors in strict mode).")),
            io.Combo.Input("keep_high_precision", options=list(F.KEEP_CHOICES), default=F.KEEP_AUTO, tooltip=(
                "Layers that stay bf16/fp16. auto/standard: embeddings, norms, modulation/adaLN and the "
                "output head (only transformer-block linears are FP8). Optionally also the first/last "
                "blocks, which some models are most sensitive in.")),
            io.String.Input("extra_keep", default="", multiline=False, optional=True, **advanced(), tooltip=(
                "More layers to keep in bf16/fp16: comma-separated patterns on layer names, e.g. "
                "'blocks.*.cross_attn.*, blocks.39.*'.")),
            io.Boolean.Input("strict", default=False, optional=True, **advanced(), tooltip=(
                "On: stop with an error instead of falling back (e.g. FP8 matmul requested on a GPU without it); "
                "what on_failure 'error' means on the other nodes. Off: fall back, logged once.")),
            # after strict: widget values are positional in saved UI workflows, new inputs go last
            io.Combo.Input(F.ACT_INPUT, options=list(F.ACT_CHOICES), default=F.ACT_DEFAULT, optional=True,
                           **advanced(), tooltip=(
                "How FP8 matmuls quantize activations. per-token: one scale per token (fastest; the default). "
                "per-token, fp32 accumulation: same scales, exact fp32 sums (slower matmuls). 1x128 blocks: one "
                "scale per 128 input channels of each token, fp32 sums per block (H100/H200 with PyTorch >= 2.9 "
                "on CUDA >= 12.9; elsewhere per-token, or an error in strict mode). The report says which ran. Measured "
                "on an H200 (Wan 14B): neither finer option helped enough to pay (1x128: final-latent cosine "
                f"{_fig('fp8.h200.block.cosine')} vs {_fig('matrix.h200.140.fp8_level1.cosine')}, at 16-bit matmul speed); for quality keep cross_attn.q/o in 16-bit (extra_keep).")),
        ]

    COMBO_RULES = {"unet_name": files_in("diffusion_models")}
    OUTPUTS = (model_output("The diffusion model with FP8 linear layers."),
               report_output("What was loaded: stored format, layers quantized and kept, memory saved, compute path."))

    @classmethod
    def execute(cls, unet_name, weight_format, compute, keep_high_precision, extra_keep="", strict=False,
                activation_scaling=F.ACT_DEFAULT):
        path = folder_paths.get_full_path("diffusion_models", unet_name)
        if path is None:
            raise AccelError(cls.DISPLAY, "unet_name", f"'{unet_name}' is not in models/diffusion_models or models/unet",
                             "Refresh the node list (press R) and pick an existing file")
        res = F.load_file(path, weight_format, compute, keep_high_precision, extra_keep, strict,
                          activation_scaling=activation_scaling)
        return with_report(res.patcher, res.report, report=res.report)


class AccelSaveFP8Model(AccelNode, node_id="AccelSaveFP8Model", display="Accel Save FP8 Model",
                        category=CATEGORY_LOAD, output_node=True,
                        aliases=("save fp8", "convert fp8", "save diffusion model")):
    """Saves an FP8 diffusion model in the portable format that ComfyUI's stock Load Diffusion Model node reads
    (ComfyUI 0.3.75 and 0.33): fp8_e4m3fn weights with one fp32 scale per layer and _quantization_metadata. Connect
    a MODEL (LoRAs applied to it are baked in; a bf16 model is quantized with the loader's layer plan) or pick a
    source file to convert. Per-channel scales are not readable by stock 0.3.75, so the file is per-tensor. Written
    to models/diffusion_models."""

    @classmethod
    def inputs(cls):
        return [
            io.String.Input("filename_prefix", default="accel_fp8", tooltip=(
                "File name (a sub-folder is allowed) under models/diffusion_models; _00001.safetensors "
                "etc. is appended, existing files are never overwritten.")),
            io.Model.Input("model", optional=True,
                           tooltip="The model to save (from any loader; LoRAs on it are baked in)."),
            io.Combo.Input("source_file", options=[NONE_FILE] + _files(), default=NONE_FILE, optional=True,
                           tooltip="Or convert this file from models/diffusion_models without connecting a model."),
            io.Combo.Input("keep_high_precision", options=list(F.KEEP_CHOICES), default=F.KEEP_AUTO, optional=True,
                           tooltip="For a source file or a non-FP8 model: which layers stay bf16 (as in the loader)."),
        ]

    COMBO_RULES = {"source_file": files_in("diffusion_models", NONE_FILE)}
    OUTPUTS = (report_output("Where the file was written and what it holds."),)

    @classmethod
    def execute(cls, filename_prefix, model=None, source_file=NONE_FILE, keep_high_precision=F.KEEP_AUTO):
        has_file = bool(source_file) and source_file != NONE_FILE
        if model is None and not has_file:
            raise AccelError(cls.DISPLAY, "model", "nothing to save", "Connect a MODEL or pick a source_file")
        if model is not None and has_file:
            raise AccelError(cls.DISPLAY, "source_file", "both a MODEL and a source_file are given",
                             "Disconnect the model or set source_file to (none)")
        if has_file:
            path = folder_paths.get_full_path("diffusion_models", source_file)
            if path is None:
                raise AccelError(cls.DISPLAY, "source_file", f"'{source_file}' is not in models/diffusion_models",
                                 "Refresh the node list (press R)")
            text = F.convert_file(path, filename_prefix, keep_high_precision)
        else:
            text = F.save_portable(model, filename_prefix, keep=keep_high_precision)
        return with_report(text, report=text)


NODES = [AccelLoadDiffusionModelFP8, AccelSaveFP8Model]
