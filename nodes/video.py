"""Accel Save Video: Create Video -> Save Video's file, faster; with a latent and a VAE it also decodes (VAE Decode's
output), encoding while the decode runs."""
from __future__ import annotations

from comfy_api.latest import io, ui

from ._common import CATEGORY_VIDEO, AccelNode, advanced, failure_input, failure_policy, report_output, schema
from ._inputs import checked


def _decode_streaming(vae, latent):
    """Frames.decode for the Wan VAEs: ComfyUI's decode (an Accel VAE copy's included), its frames handed to the
    writer while it runs; other VAEs decode first (the reason comes back). The output converted where it was decoded
    (accel.vae.output)."""
    from ..accel.vae import output, stream

    def run(sink):
        why = stream.streamable(vae, latent)
        if why is not None:
            images, kept = output.decode_to_host(vae, latent)
            return images, why, output.report_line(kept, vae.device)
        with stream.frames_while_decoding(vae, latent, sink) as check:
            images, kept = output.decode_to_host(vae, latent)
            check(images)
        return images, None, output.report_line(kept, vae.device)
    return run


class AccelSaveVideo(AccelNode):
    @classmethod
    def define_schema(cls):
        from ..accel.video import encoder as enc

        return schema(
            node_id="AccelSaveVideo",
            display_name="Accel Save Video",
            category=CATEGORY_VIDEO,
            description="Saves a video like Create Video -> Save Video (same container, codec, name counter and "
                        "embedded workflow), faster: encodes in a thread, on the GPU where it can. Give it images, "
                        "or a latent and a VAE to encode while decoding.",
            search_aliases=["save video fast", "nvenc", "video encode", "decode and save"],
            inputs=[
                io.Image.Input("images", optional=True, tooltip="Frames to save (leave empty to decode a latent)."),
                io.Latent.Input("samples", optional=True, tooltip=(
                    "A video latent to decode with `vae` and save; Wan VAEs hand frames to the encoder while "
                    "decoding.")),
                io.Vae.Input("vae", optional=True, tooltip="The VAE that decodes `samples` (Accel VAE's output too)."),
                io.Float.Input("fps", default=16.0, min=1.0, max=120.0, step=1.0, tooltip="Frames per second."),
                io.String.Input("filename_prefix", default="video/ComfyUI", tooltip=(
                    "As Save Video: the prefix in the output folder; %date:...% and node values allowed.")),
                io.Combo.Input("format", options=list(enc.FORMATS), default="auto", tooltip=(
                    "The container (auto: MP4), as Save Video.")),
                io.Combo.Input("codec", options=list(enc.CODECS), default="auto", tooltip=(
                    "auto: H.264 (AV1 for WebM), as Save Video.")),
                io.Combo.Input("encoder", options=list(enc.ENCODERS), default="auto", tooltip=(
                    "auto: a GPU encoder (NVENC) where one works here, else the CPU. cpu: Save Video's codec and "
                    "CRF on more threads. cpu (as Save Video): exactly its settings.")),
                io.Combo.Input("cpu_preset", options=list(enc.CPU_PRESETS), default="medium", **advanced(), tooltip=(
                    "H.264 on the CPU: x264's preset at Save Video's CRF 23. medium is Save Video's; faster ones "
                    "encode quicker at about the same quality (measured in the node's help).")),
                failure_input("on_failure", (
                    "fall back: a GPU encoder that does not work here falls back to the CPU with a report line. "
                    "error: stop when encoder is 'gpu' and none works.")),
            ],
            outputs=[io.Image.Output(display_name="images", tooltip="The frames saved (VAE Decode's output when it "
                                                                     "decoded)."),
                     report_output("The file written, which encoder ran, whether encoding overlapped the decode, "
                                   "where the decoded images were converted, and the node's own time.")],
            hidden=[io.Hidden.prompt, io.Hidden.extra_pnginfo],
            is_output_node=True,
        )

    @classmethod
    @checked
    def execute(cls, fps, filename_prefix, format, codec, encoder, cpu_preset="medium", on_failure="fall back",
                images=None, samples=None, vae=None):
        from ..accel.common.errors import AccelError
        from ..accel.video import save as video

        options = video.SaveVideoOptions(fps=fps, filename_prefix=filename_prefix, format=format, codec=codec,
                                         encoder=encoder, cpu_preset=cpu_preset,
                                         policy=failure_policy("on_failure", on_failure))
        if images is not None and samples is not None:
            raise AccelError("samples", "both images and a latent are connected",
                             "Connect images, or samples with a vae, not both")
        if images is not None:
            if images.ndim < 4 or images.shape[-1] != 3 or images.numel() == 0:
                shape = "x".join(str(n) for n in images.shape)
                raise AccelError("images", f"frames of shape {shape}: a video takes RGB frames, (frames, height, "
                                 "width, 3), at least one", "Give RGB images (Split Image with Alpha takes the "
                                 "RGB part of RGBA images)")
            frames = video.Frames(int(images.shape[-3]), int(images.shape[-2]), images=images)
        elif samples is not None and vae is not None:
            latent = samples["samples"]
            if getattr(latent, "is_nested", False):  # as VAE Decode: the first of a nested latent
                latent = latent.unbind()[0]
            comp = vae.spacial_compression_decode()
            frames = video.Frames(int(latent.shape[-2]) * comp, int(latent.shape[-1]) * comp,
                                  decode=_decode_streaming(vae, latent), where=f"the VAE on {vae.device}")
        else:
            missing = "vae" if samples is not None else "images"
            raise AccelError(missing, "nothing to save", "Connect images, or samples with a vae")
        out, saved, report = video.save(options, frames, {"prompt": cls.hidden.prompt,
                                                          "extra_pnginfo": cls.hidden.extra_pnginfo})
        text = report.render()
        shown = {**ui.PreviewVideo([ui.SavedResult(saved.filename, saved.subfolder, io.FolderType.output)]).as_dict(),
                 **ui.PreviewText(text).as_dict()}
        return io.NodeOutput(out, text, ui=shown)


NODES = [AccelSaveVideo]
