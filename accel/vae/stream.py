"""A VAE decode that hands its frames out while it runs: the Wan VAEs decode a video in temporal chunks (one decoder
call per run of latent frames, the causal cache carried between calls), so the first frames are final long before the
last. `frames_while_decoding(vae, samples, sink)` hooks the decoder for one `vae.decode` call (ComfyUI's own decode,
an Accel VAE copy's included) and gives `sink` each chunk as ComfyUI would hand it out: `process_output` applied in
`vae_output_dtype`, channels last, (frames, height, width, channels), on the decoder's device, in order.

The numbers are ComfyUI's: the full decode's output is the concatenation of these chunks, converted in the same
elementwise operations (only the device they run on differs). Where the chunks turn out not to be the video's frames
(ComfyUI fell back to a tiled decode after running out of memory, an Accel VAE decodes in tiles), the sink is told
to abort and the caller uses the decode's output instead.
"""
from __future__ import annotations

import contextlib

from .decode import identify


def streamable(vae, samples) -> str | None:
    """None where `frames_while_decoding` can hand this decode's frames out in order, else why it cannot."""
    kind, why = identify(vae)
    if kind is None:
        return why
    if kind.family not in ("wan2.1", "wan2.2"):
        return f"the {kind.label} decodes all frames at once"
    if getattr(samples, "ndim", 0) != 5 or samples.shape[0] != 1:
        return "a batch of several videos (their frames interleave while decoding)"
    if getattr(vae, "output_channels", 3) != 3:
        return f"{vae.output_channels} output channels (not RGB)"
    return None


class _Chunks:
    """The decoder's forward hook: each decoder call's output, checked and converted, to the sink."""

    def __init__(self, vae, samples, sink, family: str):
        from .. import comfy_compat

        self.vae, self.sink, self.family = vae, sink, family
        comp = vae.spacial_compression_decode()
        self.size = (samples.shape[-2] * comp, samples.shape[-1] * comp)
        self.dtype = comfy_compat.vae_output_dtype(vae)
        self.frames = 0
        self.aborted: str | None = None

    def __call__(self, module, args, output):
        if self.aborted is not None:
            return
        for x in output if isinstance(output, (list, tuple)) else [output]:
            if self.family == "wan2.2":
                import comfy.ldm.wan.vae2_2 as wan22

                x = wan22.unpatchify(x, patch_size=2)
            if x.ndim != 5 or x.shape[0] != 1 or tuple(x.shape[-2:]) != self.size or x.shape[1] != 3:
                self.abort(f"the decoder ran on pieces of {tuple(x.shape)} (a tiled decode), not whole frames of "
                           f"{self.size[0]}x{self.size[1]}")
                return
            # process_output works in place on 0.33 (and returns its input), returns a new tensor on 0.3.75
            pixels = self.vae.process_output(x.to(dtype=self.dtype, copy=True)).movedim(1, -1)[0]
            self.frames += pixels.shape[0]
            self.sink.frames(pixels)

    def abort(self, reason: str) -> None:
        self.aborted = reason
        self.sink.abort(reason)


@contextlib.contextmanager
def frames_while_decoding(vae, samples, sink):
    """Within the block, `vae.decode(samples)` hands each finished run of frames to `sink.frames(pixels)`
    ((frames, H, W, 3) on the decoder's device). `sink.abort(reason)` where the run turns out not to be whole frames
    in order. Yields a function `check(images)` to call with the decode's output: it aborts the stream unless the
    frames handed out are exactly the output's count."""
    kind, why = identify(vae)
    hook = _Chunks(vae, samples, sink, kind.family)
    handle = kind.decoder.register_forward_hook(hook)

    def check(images) -> None:
        frames = images.shape[-4] if images.ndim >= 4 else 0
        if hook.aborted is None and hook.frames != frames:
            hook.abort(f"{hook.frames} frames handed out while decoding, {frames} decoded")

    try:
        yield check
    finally:
        handle.remove()
