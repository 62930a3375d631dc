"""Accel VAE: a faster decode for the Wan 2.1/2.2 VAE (Wan, Qwen-Image) and the KL VAEs (Flux, SDXL, SD3)."""
from __future__ import annotations

from comfy_api.latest import io

from ._common import (CATEGORY_PATCH, AccelNode, advanced, failure_input, failure_policy, patched,
                      report_output, schema)


class AccelVAE(AccelNode):
    @classmethod
    def define_schema(cls):
        return schema(
            node_id="AccelVAE",
            display_name="Accel VAE",
            category=CATEGORY_PATCH,
            description="A copy of the VAE that decodes faster with the same weights: channels-last convolutions "
                        "(exact up to rounding) and optional cudnn.benchmark, TF32, a fused norm kernel, "
                        "torch.compile and tiled decode. For the Wan 2.1/2.2 and KL (Flux, SDXL, SD3) VAEs.",
            search_aliases=["vae decode speed", "channels last", "tiled vae", "vae compile"],
            inputs=[
                io.Vae.Input("vae", tooltip="The VAE to accelerate (a copy is made; the input stays as it is)."),
                io.Boolean.Input("channels_last", default=True, tooltip=(
                    "Run the decoder's convolutions on channels-last activations (cuDNN's fast layout). Exact up "
                    "to float reassociation.")),
                io.Boolean.Input("cudnn_benchmark", default=False, tooltip=(
                    "cudnn.benchmark during the decode only: time cuDNN's algorithms once per shape and keep the "
                    "fastest. The first decode at a new size pays the search; whether it pays depends on the card "
                    "(help page).")),
                io.Boolean.Input("tf32", default=False, tooltip=(
                    "TF32 for float32 convolutions during the decode (fp32 VAEs only). Changes numbers: off by "
                    "default.")),
                io.Boolean.Input("fused_norm", default=False, tooltip=(
                    "Wan VAEs: one Triton kernel for each RMSNorm+SiLU pair (fp32 math, one rounding instead of "
                    "five). Changes numbers by a few bf16 ulps: off by default.")),
                io.Boolean.Input("compile", default=False, tooltip=(
                    "torch.compile each decoder residual block (the first decode compiles). Changes numbers "
                    "slightly (fused fp32 intermediates): off by default.")),
                io.Boolean.Input("tiled", default=False, tooltip=(
                    "Decode in tiles with ComfyUI's own tiled decode: bounds peak VRAM, slower, blended seams "
                    "differ slightly from a full decode.")),
                io.Int.Input("tile_size", default=512, min=64, max=4096, step=32, **advanced(),
                             tooltip="tiled: tile size in pixels (as VAE Decode (Tiled))."),
                io.Int.Input("overlap", default=64, min=0, max=4096, step=32, **advanced(),
                             tooltip="tiled: tile overlap in pixels."),
                io.Int.Input("temporal_size", default=64, min=8, max=4096, step=4, **advanced(),
                             tooltip="tiled, video VAEs: frames decoded at a time."),
                io.Int.Input("temporal_overlap", default=8, min=4, max=4096, step=4, **advanced(),
                             tooltip="tiled, video VAEs: frames of overlap."),
                failure_input("on_failure", (
                    "fall back: a VAE type Accel VAE does not know (or an option it cannot apply) passes through "
                    "unchanged with a report line. error: stop with a message naming the reason.")),
            ],
            outputs=[io.Vae.Output(display_name="vae", tooltip="A copy of the VAE whose decode runs accelerated."),
                     report_output("What was applied, and how far each option may differ from the stock decode.")],
        )

    @classmethod
    def execute(cls, vae, on_failure="fall back", **options):  # options: the inputs of VaeOptions (its defaults)
        from ..accel.vae import decode as accel_vae

        policy = failure_policy("on_failure", on_failure)
        return patched(accel_vae.accelerate(vae, accel_vae.VaeOptions(**options), policy=policy))


NODES = [AccelVAE]
