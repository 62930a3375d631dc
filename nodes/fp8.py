"""FP8 loader and saver nodes. Thin: validation and a call into accel.fp8."""
from __future__ import annotations

import folder_paths
from comfy_api.latest import io

from ..accel import fp8 as F
from ._common import (
    CATEGORY_LOAD,
    AccelNode,
    advanced,
    failure_policy,
    model_output,
    report_output,
    schema,
    with_report,
)
from ._inputs import checked, files_in

NONE_FILE = F.NO_SOURCE_FILE


def _files():
    return folder_paths.get_filename_list("diffusion_models")


class AccelLoadDiffusionModelFP8(AccelNode):
    COMBO_RULES = {"unet_name": files_in("diffusion_models")}

    @classmethod
    def define_schema(cls):
        return schema(
            node_id="AccelLoadDiffusionModelFP8",
            display_name="Accel Load Diffusion Model (FP8)",
            category=CATEGORY_LOAD,
            description="Loads a diffusion model (Wan, Flux, Qwen-Image, ...) with FP8 weights: half the memory of "
                        "bf16, and FP8 tensor-core matmuls on GPUs that have them. Reads bf16/fp16/fp32 and all "
                        "common FP8 files; LoRAs work as usual.",
            search_aliases=["fp8 loader", "load diffusion model", "unet loader"],
            inputs=[
                io.Combo.Input("unet_name", options=_files(),
                               tooltip="A .safetensors diffusion model from models/diffusion_models (or "
                                       "models/unet)."),
                io.Combo.Input("weight_format", options=list(F.WEIGHT_FORMATS), default=F.FORMAT_AUTO, tooltip=(
                    "auto: what measured fastest for the model on this GPU (see report): FP8 files as stored or as "
                    "Load Diffusion Model loads them, 16-bit files fp8_e4m3fn per-channel or kept. per-tensor: one "
                    "scale per layer (portable). e5m2: more range, no FP8 matmul. keep as stored: unchanged.")),
                io.Combo.Input("compute", options=list(F.COMPUTE_CHOICES), default=F.COMPUTE_AUTO, tooltip=(
                    "auto: FP8 tensor-core matmuls where the GPU has them (SM >= 8.9), else dequantize each layer "
                    "to bf16/fp16. fp8 matmul: warns once and dequantizes where unsupported (an error if "
                    "strict).")),
                io.Combo.Input("keep_high_precision", options=list(F.KEEP_CHOICES), default=F.KEEP_AUTO, tooltip=(
                    "Layers that stay bf16/fp16. auto/standard: embeddings, norms, modulation and the output head. "
                    "Optionally also the first/last blocks, where some models are most sensitive.")),
                io.String.Input("extra_keep", default="", multiline=False, optional=True, **advanced(), tooltip=(
                    "More layers to keep in bf16/fp16: comma-separated patterns on layer names, e.g. "
                    "'blocks.*.cross_attn.*, blocks.39.*'.")),
                io.Boolean.Input("strict", default=False, optional=True, **advanced(), tooltip=(
                    "On: stop with an error instead of falling back (e.g. FP8 matmul requested on a GPU without "
                    "it), as on_failure error on the other nodes. Off: fall back, logged once.")),
                # after strict: widget values are positional in saved UI workflows, new inputs go last
                io.Combo.Input(F.ACT_INPUT, options=list(F.ACT_CHOICES), default=F.ACT_DEFAULT, optional=True,
                               **advanced(), tooltip=(
                    "How FP8 matmuls scale activations: per-token (fastest, the default), per-token with fp32 "
                    "accumulation, or 1x128 blocks (H100/H200, recent PyTorch and CUDA). The report says which "
                    "ran; the help page compares them.")),
            ],
            outputs=[model_output("The diffusion model with FP8 linear layers."),
                     report_output("What was loaded: stored format, layers quantized and kept, memory saved, "
                                   "compute path.")],
        )

    @classmethod
    @checked
    def execute(cls, unet_name, weight_format, compute, keep_high_precision, extra_keep="", strict=False,
                activation_scaling=F.ACT_DEFAULT):
        options = F.FP8LoadOptions(weight_format=weight_format, compute=compute, keep=keep_high_precision,
                                   extra_keep=extra_keep, policy=failure_policy("strict", strict),
                                   activation_scaling=activation_scaling)
        res = F.load(F.model_path("unet_name", unet_name, "models/diffusion_models or models/unet"), options)
        return with_report(res.patcher, res.report, report=res.report)


class AccelSaveFP8Model(AccelNode):
    COMBO_RULES = {"source_file": files_in("diffusion_models", NONE_FILE)}

    @classmethod
    def define_schema(cls):
        return schema(
            node_id="AccelSaveFP8Model",
            display_name="Accel Save FP8 Model",
            category=CATEGORY_LOAD,
            description="Saves a MODEL (LoRAs baked in) or converts a file to FP8 in the portable per-tensor format "
                        "that ComfyUI's stock Load Diffusion Model reads, in models/diffusion_models. Use it to "
                        "share FP8 files or load them without this pack.",
            search_aliases=["save fp8", "convert fp8", "save diffusion model"],
            is_output_node=True,
            inputs=[
                io.String.Input("filename_prefix", default="accel_fp8", tooltip=(
                    "File name (a sub-folder is allowed) under models/diffusion_models; _00001.safetensors etc. "
                    "is appended, existing files are never overwritten.")),
                io.Model.Input("model", optional=True,
                               tooltip="The model to save (from any loader; LoRAs on it are baked in)."),
                io.Combo.Input("source_file", options=[NONE_FILE] + _files(), default=NONE_FILE, optional=True,
                               tooltip="Or convert this file from models/diffusion_models without connecting a "
                                       "model."),
                io.Combo.Input("keep_high_precision", options=list(F.KEEP_CHOICES), default=F.KEEP_AUTO,
                               optional=True, tooltip="For a source file or a non-FP8 model: which layers stay bf16 "
                                                      "(as in the loader)."),
            ],
            outputs=[report_output("Where the file was written and what it holds.")],
        )

    @classmethod
    @checked
    def execute(cls, filename_prefix, model=None, source_file=NONE_FILE, keep_high_precision=F.KEEP_AUTO):
        text = F.save_from_inputs(filename_prefix, model, source_file, keep_high_precision)
        return with_report(text, report=text)


NODES = [AccelLoadDiffusionModelFP8, AccelSaveFP8Model]
