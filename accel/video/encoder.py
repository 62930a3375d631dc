"""Which video encoder runs, and with which settings: ComfyUI's Save Video settings on the CPU, a GPU encoder where
the installed PyAV/FFmpeg offers one that opens on this machine.

ComfyUI's Save Video (comfy_api VideoFromComponents.save_to) adds a stream by codec name ("h264", which FFmpeg
resolves to libx264; "libsvtav1" for AV1) and sets no encoder options: libx264 then runs CRF 23, preset medium, and
PyAV's default threading (slices). The CPU settings here keep the codec, the CRF and (by default) the preset: the
quality target is Save Video's. "cpu" threads over frames as well as slices (more cores busy on a short clip, the
same CRF and preset); "cpu (as Save Video)" keeps PyAV's threading too: every setting is Save Video's. (A threaded
x264 encode is not bit-identical from run to run under load, Save Video's own included: tests compare quality against
the frames, not bytes.)

GPU encoders (NVENC) are probed once per process by opening one and encoding a frame: the FFmpeg in a wheel may list
h264_nvenc while the GPU has no encoder (an H100 or H200 has none) or the driver lacks libnvidia-encode. NVENC runs in
constant-quality mode at the same number (cq 23 for h264): NVENC's quality scale is not x264's CRF, so its files
are not Save Video's quality by construction; bench/bench_save.py measures both against the frames (PSNR).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

CODECS = ("auto", "h264", "av1")
FORMATS = ("auto", "mp4", "mkv", "webm")
ENCODERS = ("auto", "gpu", "cpu", "cpu (as Save Video)")
CPU_PRESETS = ("medium", "fast", "faster", "veryfast", "superfast", "ultrafast")  # x264's, slowest first
CPU_CODEC = {"h264": "h264", "av1": "libsvtav1"}  # the names Save Video adds its stream by
GPU_CODEC = {"h264": "h264_nvenc", "av1": "av1_nvenc"}
CONTAINER = {"mp4": "mp4", "mkv": "matroska", "webm": "webm"}
NVENC_QUALITY = "23"  # constant-quality target (cq), the number of x264's default CRF

_PROBED: dict = {}


@dataclass(frozen=True)
class Encoder:
    """name: the FFmpeg encoder to open; on_gpu: NVENC; options: encoder options (PyAV's stream.options); threads:
    PyAV's thread_type ("SLICE" as Save Video, "AUTO" for frame + slice threads, None for the encoder's own);
    why: where it runs and with which settings (the report's encoder line)."""

    name: str
    on_gpu: bool
    options: dict = field(default_factory=dict)
    threads: str | None = None
    why: str = ""


def resolve(fmt: str, codec: str) -> tuple:
    """(container, codec) as Save Video resolves `auto`: the container mp4, the codec AV1 for WebM, else H.264."""
    container = "mp4" if fmt == "auto" else fmt
    if codec == "auto":
        codec = "av1" if container == "webm" else "h264"
    return container, codec


def probe(name: str) -> str | None:
    """None when encoder `name` opens and encodes a frame here, else why not (cached per process)."""
    if name in _PROBED:
        return _PROBED[name]
    import av
    import numpy as np

    why = None
    if name not in av.codecs_available:
        why = f"this PyAV's FFmpeg ({av.__version__}) has no {name}"
    else:
        try:
            ctx = av.CodecContext.create(name, "w")
            ctx.width, ctx.height, ctx.pix_fmt = 256, 256, "yuv420p"
            ctx.time_base = Fraction(1, 16)
            ctx.framerate = Fraction(16, 1)
            ctx.open()
            frame = av.VideoFrame.from_ndarray(np.zeros((256, 256, 3), np.uint8), format="rgb24").reformat(
                format="yuv420p")
            frame.pts = 0
            ctx.encode(frame)
            ctx.encode(None)
        except Exception as e:  # noqa: BLE001 - FFmpeg reports a missing device in many ways
            why = f"{name} does not open here ({type(e).__name__}: {str(e)[:160]})"
    _PROBED[name] = why
    return why


def choose(codec: str, want: str, preset: str) -> tuple:
    """(Encoder, fallback line or None) for `codec` (h264 | av1) and the node's `encoder` input. A GPU encoder that
    does not open here falls back to the CPU with a line saying why (the node logs it once)."""
    fallback = None
    if want in ("auto", "gpu"):
        name = GPU_CODEC[codec]
        why = probe(name)
        if why is None:
            opts = {"rc": "vbr", "cq": NVENC_QUALITY, "b": "0"} if codec == "h264" else {"cq": NVENC_QUALITY}
            return Encoder(name, True, opts, None, f"on the GPU, constant quality cq {opts['cq']}"), None
        fallback = f"GPU encoder {name}: {why}; encoding on the CPU"
    name = CPU_CODEC[codec]
    as_save_video = want == "cpu (as Save Video)"
    if as_save_video:
        preset = "medium"  # every setting Save Video's (save._encoder reports a cpu_preset it leaves unused)
    opts = {} if codec != "h264" or preset == "medium" else {"preset": preset}
    if codec == "h264":
        what = (f"on the CPU, CRF 23 (Save Video's), preset {preset}"
                + (" (Save Video's)" if preset == "medium"
                   else " (same CRF, a faster preset: file size and quality move a little)"))
    else:
        what = "on the CPU with the encoder's own defaults (Save Video's)"
    threads = "SLICE" if as_save_video else "AUTO"
    what += ", slice threads (every setting Save Video's)" if as_save_video else ", frame + slice threads"
    return Encoder(name, False, opts, threads, what), fallback
