"""Accel CUDA Settings: TF32, cudnn.benchmark, fp16 accumulation and SDPA order, for one model's runs only."""
from __future__ import annotations

from comfy_api.latest import io

from ._common import CATEGORY_PATCH, AccelNode, advanced, model_output, patched, report_output, schema
from ._inputs import checked


class AccelCUDASettings(AccelNode):
    @classmethod
    def define_schema(cls):
        from ..accel.cuda_settings.flags import ON_OFF_UNCHANGED, SDPA_AUTO, SDPA_PRESETS

        return schema(
            node_id="AccelCUDASettings",
            display_name="Accel CUDA Settings",
            category=CATEGORY_PATCH,
            description="Sets PyTorch's numerics switches (TF32, cudnn.benchmark, fp16 accumulation, SDPA kernel "
                        "order) only while this model samples, then restores them, so other models are unaffected "
                        "(unlike the --fast flags). Works with any model.",
            search_aliases=["tf32", "cudnn benchmark", "fp16 accumulation"],
            inputs=[
                io.Model.Input("model", tooltip="The model whose sampling runs get these settings (any family)."),
                io.Combo.Input("tf32_matmul", options=list(ON_OFF_UNCHANGED), default="on", tooltip=(
                    "TF32 tensor cores for float32 matmuls: faster fp32 layers on Ampere and newer NVIDIA GPUs, "
                    "slightly less precise. bf16/fp16 matmuls are unaffected. unchanged: leave the process "
                    "setting.")),
                io.Combo.Input("tf32_cudnn", options=list(ON_OFF_UNCHANGED), default="on", tooltip=(
                    "TF32 for float32 cuDNN convolutions, e.g. Wan's fp32 patch embedding. PyTorch's default is "
                    "already on.")),
                io.Combo.Input("cudnn_benchmark", options=list(ON_OFF_UNCHANGED), default="on", tooltip=(
                    "Time the cuDNN convolution algorithms once per new shape and keep the fastest. Helps "
                    "repeated runs at one resolution; the first run at a new resolution pays the search.")),
                io.Combo.Input("fp16_accumulation", options=list(ON_OFF_UNCHANGED), default="unchanged", tooltip=(
                    "Accumulate fp16 matmuls in fp16 (torch >= 2.7): faster on consumer GPUs, less precise. "
                    "Affects fp16 models only; ignored where torch lacks it.")),
                io.Combo.Input("sdpa_order", options=list(SDPA_PRESETS), default=SDPA_AUTO, **advanced(), tooltip=(
                    "The order in which PyTorch SDPA tries its exact kernels. auto: the fastest order measured for "
                    "this GPU, unchanged where not measured. Matters where attention goes through torch SDPA.")),
            ],
            outputs=[model_output("A clone of the model that carries these settings for its sampling runs."),
                     report_output("What will be set during this model's runs, and what has no effect on this "
                                   "machine.")],
        )

    @classmethod
    @checked
    def execute(cls, model, tf32_matmul, tf32_cudnn, cudnn_benchmark, fp16_accumulation, sdpa_order):
        from ..accel.cuda_settings import options as cuda_settings

        options = cuda_settings.CudaSettingsOptions(tf32_matmul, tf32_cudnn, cudnn_benchmark, fp16_accumulation,
                                                    sdpa_order)
        return patched(cuda_settings.apply(model, options))


NODES = [AccelCUDASettings]
