"""Accel Save Video's contract: `SaveVideoOptions` (the node's inputs, checked when built) and
`save(options, frames, context) -> (images, SavedVideo, Report)`.

What it writes is what ComfyUI's Create Video -> Save Video writes: the same container and codec choices (`auto`:
an MP4 with H.264, WebM with AV1), the file named by ComfyUI's own counter in the output folder
(`folder_paths.get_save_image_path`: `<prefix>_00001_.mp4`, the next free number; a name is reserved before it is
written, so no file is ever overwritten), the prompt and the workflow embedded as container metadata (unless ComfyUI
runs with --disable-metadata). How it gets there faster: accel.video.encoder (which encoder), accel.video.writer (a
thread encodes while frames arrive), and `Frames.decode`: a decode that hands the frames out while it runs (the node
builds it from accel.vae.stream), so encoding overlaps decoding.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..common import log
from ..common.errors import AccelError, current_title
from ..common.policy import Policy, as_policy
from ..common.report import Report, Section
from . import encoder as enc
from .writer import StreamSpec, VideoWriter

CHUNK_FRAMES = 8  # frames converted and queued at a time when the frames are all there already


@dataclass(frozen=True)
class SaveVideoOptions:
    """The node's inputs. encoder: auto (a GPU encoder where one opens here, else the CPU) | gpu | cpu (Save Video's
    codec and CRF, frame + slice threads) | cpu (as Save Video) (Save Video's settings exactly); cpu_preset: x264's
    preset for H.264 on the CPU (medium: Save Video's). policy: on_failure (error: a GPU encoder asked for by name that
    does not open here stops the prompt)."""

    fps: float = 16.0
    filename_prefix: str = "video/ComfyUI"
    format: str = "auto"
    codec: str = "auto"
    encoder: str = "auto"
    cpu_preset: str = "medium"
    policy: Policy = Policy.FALL_BACK

    def __post_init__(self):
        for name, choices in (("format", enc.FORMATS), ("codec", enc.CODECS), ("encoder", enc.ENCODERS),
                              ("cpu_preset", enc.CPU_PRESETS)):
            if getattr(self, name) not in choices:
                raise AccelError(name, f"{getattr(self, name)!r} is not one of its choices",
                                 "Pick one of: " + ", ".join(choices))
        if isinstance(self.fps, bool) or not isinstance(self.fps, (int, float)) or not 0 < self.fps <= 1000:
            raise AccelError("fps", f"{self.fps!r} is not a frame rate", "Set fps to a number above 0, e.g. 16")
        if not isinstance(self.filename_prefix, str) or not self.filename_prefix.strip():
            raise AccelError("filename_prefix", "empty", "Give a file name prefix, e.g. video/ComfyUI")
        container, codec = enc.resolve(self.format, self.codec)
        if container == "webm" and codec != "av1":
            raise AccelError("codec", "WebM holds AV1 video only (as in Save Video)", "Set codec to auto or av1")
        object.__setattr__(self, "policy", as_policy(self.policy))


@dataclass(frozen=True)
class Frames:
    """What to save: `images` (ComfyUI's IMAGE, (frames, H, W, 3) in [0, 1]) already there, or `decode(sink)`, a decode
    that hands its frames to `sink.frames(pixels)` while it runs and returns (IMAGE, None, line), or (IMAGE, why not,
    line) where it could not hand them out in order; `line`: the report's line on the decode's output ("" for none).
    `height` / `width`: the video's size (the file name's %width% / %height%)."""

    height: int
    width: int
    images: object = None
    decode: Callable | None = None
    where: str = ""  # for the report: what decodes (e.g. "the Wan 2.1 VAE on cuda:0")


@dataclass(frozen=True)
class SavedVideo:
    filename: str
    subfolder: str
    path: str


def check_size(codec: str, frames: Frames) -> None:
    """What the encoders refuse, named before any file exists (FFmpeg's own message is "Generic error in an external
    library"): H.264 in 4:2:0 needs an even width and height (x264 and NVENC do not open otherwise); SVT-AV1 needs
    4x4 at least. Save Video fails on the same frames with FFmpeg's message."""
    h, w = frames.height, frames.width
    name = "samples" if frames.decode is not None else "images"
    if codec == "h264" and (h % 2 or w % 2):
        raise AccelError(name, f"frames of {w}x{h}: H.264 needs an even width and height",
                         f"Crop or scale the frames to an even size (e.g. {w - w % 2}x{h - h % 2}), or set codec "
                         "to av1")
    if codec == "av1" and (h < 4 or w < 4):
        raise AccelError(name, f"frames of {w}x{h}: AV1 needs 4x4 at least", "Save larger frames")


def _reserve(options: SaveVideoOptions, container: str, frames: Frames) -> SavedVideo:
    """The next file name Save Video would pick, created empty so nothing else takes it (and nothing is overwritten)."""
    import folder_paths

    out_dir = folder_paths.get_output_directory()
    folder, name, counter, subfolder, _ = folder_paths.get_save_image_path(
        options.filename_prefix, out_dir, frames.width, frames.height)
    os.makedirs(folder, exist_ok=True)
    ext = "mp4" if container == "mp4" else container
    while True:
        file = f"{name}_{counter:05}_.{ext}"
        path = os.path.join(folder, file)
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return SavedVideo(file, subfolder, path)
        except FileExistsError:
            counter += 1


def _metadata(context: dict) -> dict | None:
    """Save Video's metadata: the workflow (extra_pnginfo's entries) and the prompt, unless --disable-metadata."""
    from comfy.cli_args import args

    if args.disable_metadata:
        return None
    meta = dict(context.get("extra_pnginfo") or {})
    if context.get("prompt") is not None:
        meta["prompt"] = context["prompt"]
    return meta or None


def _encoder(options: SaveVideoOptions, codec: str) -> tuple:
    """(Encoder, report lines): the GPU encoder's fallback logged once; policy ERROR with encoder 'gpu' raises."""
    chosen, fallback = enc.choose(codec, options.encoder, options.cpu_preset)
    lines = []
    if fallback:
        if options.encoder == "gpu" and options.policy is Policy.ERROR:
            raise AccelError("encoder", fallback, "Set encoder to auto or cpu, or on_failure to 'fall back'")
        log.warn_once(("video-encoder", fallback), "Accel Save Video: %s", fallback)
        lines.append(("fallback: " if options.encoder == "gpu" else "") + fallback)
    if options.cpu_preset != "medium" and codec != "h264":
        lines.append(f"cpu_preset {options.cpu_preset}: x264's presets apply to H.264 only (not used)")
    elif options.cpu_preset != "medium" and options.encoder == "cpu (as Save Video)":
        lines.append(f"cpu_preset {options.cpu_preset}: not used with encoder 'cpu (as Save Video)' (every setting "
                     "Save Video's, its preset medium); encoder 'cpu' takes the preset")
    elif options.cpu_preset != "medium" and chosen.on_gpu:
        lines.append(f"cpu_preset {options.cpu_preset}: not used ({chosen.name} encodes on the GPU)")
    return chosen, lines


def _feed(writer: VideoWriter, images) -> None:
    for i in range(0, images.shape[0], CHUNK_FRAMES):
        writer.frames(images[i:i + CHUNK_FRAMES])


def _flat(images):
    """(frames, H, W, C): a video VAE's (batch, frames, H, W, C) output as VAE Decode hands it on."""
    return images.reshape(-1, *images.shape[-3:]) if images.ndim == 5 else images


def save(options: SaveVideoOptions, frames: Frames, context: dict | None = None):
    """Write the video; returns (IMAGE, SavedVideo, Report). `context`: the node's hidden inputs (prompt,
    extra_pnginfo). A decode that cannot hand its frames out in order is encoded after it (a report line says why);
    a failed write leaves no file."""
    from .. import comfy_compat

    start = time.perf_counter()
    context = context or {}
    container, codec = enc.resolve(options.format, options.codec)
    check_size(codec, frames)
    chosen, lines = _encoder(options, codec)
    saved = _reserve(options, container, frames)
    spec = StreamSpec(container, chosen, float(options.fps), _metadata(context), comfy_compat.save_video_color())
    writer = VideoWriter(saved.path, spec)
    t0 = time.perf_counter()
    why_not, output_line = None, ""
    try:
        if frames.decode is None:
            images = frames.images
            _feed(writer, _flat(images))
        else:
            images, why_not, output_line = frames.decode(writer)
            why_not = writer.aborted or why_not
            if why_not is not None:  # encode the decode's output instead: a new file of the same reserved name
                writer.abort(why_not)
                writer.discard()
                saved = _reserve(options, container, frames)
                writer = VideoWriter(saved.path, spec)
                _feed(writer, _flat(images))
        fed = time.perf_counter() - t0
        waited = writer.finish()
    except BaseException:
        writer.abort("the save failed")
        writer.discard()
        raise
    flat = _flat(images)
    total = time.perf_counter() - start
    return flat, saved, _report(options, (chosen, lines), writer, frames, (why_not, fed, waited, total), output_line)


def _report(options, encoding, writer: VideoWriter, frames: Frames, timing, output_line: str = "") -> Report:
    chosen, lines = encoding
    why_not, fed, waited, total = timing
    h, w = writer.size or (frames.height, frames.width)
    head = [Section(current_title())] if current_title() else []
    body = [f"encoder: {writer.encoder_name or chosen.name} {chosen.why}", *lines]
    if frames.decode is None:
        body.append(f"frames: converted to 8 bits where they were and encoded in a thread ({fed:.2f} s to hand them "
                    f"over; the encoder finished {waited:.2f} s later)")
    elif why_not is None:
        body.append(f"frames: converted to 8 bits where {frames.where} decoded them, encoded while it decoded "
                    f"(decode {fed:.2f} s; the encoder finished {waited:.2f} s after it)")
    else:
        body.append(f"frames: encoded after the decode, because {why_not} (decode and hand-over {fed:.2f} s; the "
                    f"encoder finished {waited:.2f} s later)")
    if output_line:
        body.append(output_line)
    body.append(f"time: {total:.2f} s in this node from its inputs to the closed file (what ComfyUI does after it, "
                "e.g. keeping the images output in its cache, is not in it)")
    meta = writer.spec.metadata
    body.append("metadata: " + (", ".join(sorted(meta)) + " embedded (as Save Video)" if meta else
                                "none (ComfyUI runs with --disable-metadata, or no workflow was given)"))
    text = (f"saved {writer.frames_out} frames {w}x{h} at {options.fps:g} fps as "
            f"{os.path.basename(writer.path)} ({writer.spec.container}, {writer.encoder_name or chosen.name})")
    log.info("Accel Save Video: %s", text)
    return Report(head + [Section(None, text, body)])
