"""Accel VAE: a faster decode for the Wan 2.1/2.2 VAE (Wan, Qwen-Image) and the KL VAEs (Flux, SDXL, SD3)."""
from __future__ import annotations

from comfy_api.latest import io

from ._common import (CATEGORY_PATCH, AccelNode, advanced, failure_input, failure_policy, patched,
                      report_output, schema)


class AccelVAE(AccelNode):
    @classmethod
    def define_schema(cls):
        from ..accel.vae import options

        d = options.node_defaults()  # this GPU class's measured choice, else VAEOptions()'s defaults
        return schema(
            node_id="AccelVAE",
            display_name="Accel VAE",
            category=CATEGORY_PATCH,
            description="A copy of the VAE that decodes faster with the same weights: channels-last convolutions, "
                        "cudnn.benchmark, TF32, a fused norm kernel, torch.compile, longer causal chunks, tiled "
                        "decode (Wan 2.1/2.2, Flux/SDXL/SD3 VAEs). Defaults measured per GPU (help page).",
            search_aliases=["vae decode speed", "channels last", "tiled vae", "vae compile"],
            inputs=[
                io.Vae.Input("vae", tooltip="The VAE to accelerate (a copy is made; the input stays as it is)."),
                io.Boolean.Input("channels_last", default=d["channels_last"], tooltip=(
                    "Run the decoder's convolutions on channels-last activations (cuDNN's fast layout). Exact up "
                    "to float reassociation.")),
                io.Boolean.Input("cudnn_benchmark", default=d["cudnn_benchmark"], tooltip=(
                    "cudnn.benchmark during the decode only: time cuDNN's algorithms once per shape and keep the "
                    "fastest. The first decode at a new size pays the search; whether it pays depends on the card "
                    "(help page).")),
                io.Boolean.Input("tf32", default=d["tf32"], tooltip=(
                    "TF32 for float32 convolutions during the decode (fp32 VAEs only). Changes numbers.")),
                io.Boolean.Input("fused_norm", default=d["fused_norm"], tooltip=(
                    "Wan VAEs: one Triton kernel for each RMSNorm+SiLU pair (fp32 math, one rounding instead of "
                    "five). Changes numbers by a few bf16 ulps.")),
                io.Boolean.Input("compile", default=d["compile"], tooltip=(
                    "torch.compile each decoder residual block (the first decode compiles). Changes numbers "
                    "slightly (fused fp32 intermediates).")),
                io.Boolean.Input("tiled", default=d["tiled"], tooltip=(
                    "Decode in tiles with ComfyUI's own tiled decode: bounds peak VRAM, slower, blended seams "
                    "differ slightly from a full decode.")),
                io.Int.Input("tile_size", default=d["tile_size"], min=0, max=4096, step=32, **advanced(),
                             tooltip="tiled: tile size in pixels (as VAE Decode (Tiled)); 0: sized to the free VRAM "
                                     "(no tiles where the whole decode fits)."),
                io.Int.Input("overlap", default=d["overlap"], min=0, max=4096, step=32, **advanced(),
                             tooltip="tiled: tile overlap in pixels."),
                io.Int.Input("temporal_size", default=d["temporal_size"], min=8, max=4096, step=4, **advanced(),
                             tooltip="tiled, video VAEs: frames decoded at a time."),
                io.Int.Input("temporal_overlap", default=d["temporal_overlap"], min=4, max=4096, step=4, **advanced(),
                             tooltip="tiled, video VAEs: frames of overlap."),
                failure_input("on_failure", (
                    "fall back: a VAE type Accel VAE does not know (or an option it cannot apply) passes through "
                    "unchanged with a report line. error: stop with a message naming the reason.")),
                io.Int.Input("temporal_chunk", default=d["temporal_chunk"], min=0, max=256, **advanced(), tooltip=(
                    "Wan VAEs: latent frames per decoder call, the causal cache carried between calls (0: ComfyUI's "
                    "own decode). Exact up to float reassociation; more frames use more VRAM.")),
            ],
            outputs=[io.Vae.Output(display_name="vae", tooltip="A copy of the VAE whose decode runs accelerated."),
                     report_output("What was applied, and how far each option may differ from the stock decode.")],
        )

    @classmethod
    def execute(cls, vae, on_failure="fall back", **options):  # options: the inputs of VAEOptions (its defaults)
        from ..accel.vae import options as vae_options

        policy = failure_policy("on_failure", on_failure)
        return patched(vae_options.apply(vae, vae_options.VAEOptions(**options, policy=policy)))


NODES = [AccelVAE]
