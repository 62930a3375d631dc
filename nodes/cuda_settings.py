"""Accel CUDA Settings: TF32, cudnn.benchmark, fp16 accumulation and SDPA order, for one model's runs only."""
from __future__ import annotations

from comfy_api.latest import io

from ._common import CATEGORY_PATCH, AccelNode, advanced, model_output, report_output, schema, with_report

_TRI = ["on", "off", "unchanged"]


def _tri(v: str):
    return None if v == "unchanged" else v == "on"


class AccelCUDASettings(AccelNode):
    @classmethod
    def define_schema(cls):
        from ..accel.cuda_settings.flags import SDPA_AUTO, SDPA_PRESETS

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
                io.Combo.Input("tf32_matmul", options=_TRI, default="on", tooltip=(
                    "TF32 tensor cores for float32 matmuls: faster fp32 layers on Ampere and newer NVIDIA GPUs, "
                    "slightly less precise. bf16/fp16 matmuls are unaffected. unchanged: leave the process "
                    "setting.")),
                io.Combo.Input("tf32_cudnn", options=_TRI, default="on", tooltip=(
                    "TF32 for float32 cuDNN convolutions, e.g. Wan's fp32 patch embedding. PyTorch's default is "
                    "already on.")),
                io.Combo.Input("cudnn_benchmark", options=_TRI, default="on", tooltip=(
                    "Time the cuDNN convolution algorithms once per new shape and keep the fastest. Helps "
                    "repeated runs at one resolution; the first run at a new resolution pays the search.")),
                io.Combo.Input("fp16_accumulation", options=_TRI, default="unchanged", tooltip=(
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
    def execute(cls, model, tf32_matmul, tf32_cudnn, cudnn_benchmark, fp16_accumulation, sdpa_order):
        from ..accel.cuda_settings import flags as cuda_settings
        from ..accel.common import hardware
        from ..accel.common.errors import AccelError

        node = cls.DISPLAY
        for name, val in (("tf32_matmul", tf32_matmul), ("tf32_cudnn", tf32_cudnn),
                          ("cudnn_benchmark", cudnn_benchmark), ("fp16_accumulation", fp16_accumulation)):
            if val not in _TRI:
                raise AccelError(name, f"unknown value {val!r}", "use one of: " + ", ".join(_TRI))
        if sdpa_order not in cuda_settings.SDPA_PRESETS:
            raise AccelError("sdpa_order", f"unknown value {sdpa_order!r}",
                             "use one of: " + ", ".join(cuda_settings.SDPA_PRESETS))
        preset = cuda_settings.SDPA_PRESETS[sdpa_order]
        prof = hardware.profile()
        auto_line = None
        if preset == "auto":
            auto, why = cuda_settings.auto_sdpa_order(prof)
            preset = (auto, False) if auto else None
            auto_line = "SDPA order auto -> " + (" > ".join(auto) if auto else "unchanged") + ": " + why
        order, exclusive = preset if preset is not None else (None, False)
        settings = cuda_settings.CudaSettings(
            tf32_matmul=_tri(tf32_matmul), tf32_cudnn=_tri(tf32_cudnn), cudnn_benchmark=_tri(cudnn_benchmark),
            fp16_accumulation=_tri(fp16_accumulation), sdpa_order=order, sdpa_exclusive=exclusive)
        m, lines = cuda_settings.apply_cuda_settings(model, settings, profile=prof)
        if auto_line:
            lines = [*lines, auto_line]
        text = node + "\n" + "\n".join(lines)
        return with_report(m, text, report=text)


NODES = [AccelCUDASettings]
