"""Accel VAE: a faster decode for the Wan 2.1/2.2 VAE (Wan, Qwen-Image) and the KL VAEs (Flux, SDXL, SD3)."""
from __future__ import annotations

from comfy_api.latest import io

from ..accel.common.figures import num as _num, span as _span, text as _text
from ._common import (CATEGORY_PATCH, AccelNode, advanced, failure_input, failure_policy, patched,
                      report_output)


class AccelVAE(AccelNode, node_id="AccelVAE", display="Accel VAE", category=CATEGORY_PATCH,
               aliases=("vae decode speed", "channels last", "tiled vae", "vae compile")):
    """Decodes faster with the same VAE weights: a copy of the VAE whose decode runs its convolutions channels-last
    (exact up to float reassociation, on by default), and optionally cudnn.benchmark, TF32, a fused RMSNorm+SiLU
    Triton kernel (Wan VAEs), torch.compile of the decoder blocks and ComfyUI's tiled decode (lower peak VRAM).
    Torch settings are set for the decode only and restored after; the input VAE is not modified. Wan 2.1/2.2 VAE
    (Wan, Qwen-Image) and the KL VAEs of Flux/SDXL/SD3. The report says what was applied and how far it may differ."""

    @classmethod
    def inputs(cls):
        return [
            io.Vae.Input("vae", tooltip="The VAE to accelerate (a copy is made; the input stays as it is)."),
            io.Boolean.Input("channels_last", default=True, tooltip=(
                "Run the decoder's convolutions on channels-last activations (cuDNN's fast layout). "
                "Exact up to float reassociation.")),
            io.Boolean.Input("cudnn_benchmark", default=False, tooltip=(
                "cudnn.benchmark during the decode only: time cuDNN's algorithms once per shape, keep the "
                "fastest. Exact up to float reassociation. The first decode at a new size pays the search "
                f"(Wan 81 frames 480p: {_num('vae.h100.cl_bench.cold.first')}-{_text('vae.h200.cl_bench.first.vae033')} "
                "once per ComfyUI start) - for many decodes at one size. Whether it pays depends on the card: with "
                f"fused_norm {_span('vae.h200.fused_norm_bench.vae033', 'vae.h200.fused_norm_bench.run2')} vs "
                f"{_text('vae.h200.fused_norm_nobench.run3')} without on an H200, but "
                f"{_span('vae.h100.fused_norm_bench.vae033', 'vae.h100.fused_norm_bench.run2')} vs "
                f"{_span('vae.h100.fused_norm_nobench.run3', 'vae.h100.fused_norm_nobench.vae033')} without on an H100.")),
            io.Boolean.Input("tf32", default=False, tooltip=(
                "TF32 for float32 convolutions during the decode (fp32 VAEs only; ~1e-3 relative). "
                "Changes numbers: off by default.")),
            io.Boolean.Input("fused_norm", default=False, tooltip=(
                "Wan VAEs: one Triton kernel for each RMSNorm+SiLU pair (fp32 math, one rounding instead of "
                "five). Changes numbers by a few bf16 ulps: off by default.")),
            io.Boolean.Input("compile", default=False, tooltip=(
                "torch.compile each decoder residual block call (the first decode compiles, about a minute). "
                "Changes numbers slightly (fused fp32 intermediates): off by default.")),
            io.Boolean.Input("tiled", default=False, tooltip=(
                "Decode in tiles with ComfyUI's own tiled decode: bounds peak VRAM, slower, blended "
                "seams differ slightly from a full decode.")),
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
                "unchanged with a report line; error: stop with a message naming the reason.")),
        ]

    OUTPUTS = (io.Vae.Output(display_name="vae", tooltip="A copy of the VAE whose decode runs accelerated."),
               report_output("What was applied, and how far each option may differ from the stock decode."))

    @classmethod
    def execute(cls, vae, channels_last=True, cudnn_benchmark=False, tf32=False, fused_norm=False, compile=False,
                tiled=False, tile_size=512, overlap=64, temporal_size=64, temporal_overlap=8, on_failure="fall back"):
        from ..accel.vae import decode as accel_vae

        policy = failure_policy(cls.DISPLAY, "on_failure", on_failure)
        options = accel_vae.VaeOptions(channels_last=channels_last, cudnn_benchmark=cudnn_benchmark, tf32=tf32,
                                       fused_norm=fused_norm, compile=compile, tiled=tiled, tile_size=tile_size,
                                       overlap=overlap, temporal_size=temporal_size, temporal_overlap=temporal_overlap)
        return patched(accel_vae.accelerate(vae, options, on_failure=policy, node=cls.DISPLAY))


NODES = [AccelVAE]
