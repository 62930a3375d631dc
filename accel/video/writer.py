"""One video file written by a thread while frames arrive.

`VideoWriter(path, spec)` takes frames as ComfyUI's IMAGE holds them ((frames, H, W, 3) floats in [0, 1], on any
device) through `frames(pixels)`: it converts them to 8 bits where they are (on the GPU for a decode that runs
there: `(pixels * 255).clamp(0, 255)` then a cast, Save Video's own conversion), copies them to pinned host memory
without waiting for the GPU, and queues them; a thread waits for each copy, converts to YUV 4:2:0 and encodes. The
frames reach the encoder while the caller goes on (a decode that hands frames out chunk by chunk keeps decoding).

The file is Save Video's: the container and stream as ComfyUI's `VideoFromComponents.save_to` sets them up (its
movflags, the BT.709 colour properties where this ComfyUI sets them: accel.comfy_compat.save_video_color), the
prompt and workflow as container metadata (JSON strings, keys as Save Video writes them).
"""
from __future__ import annotations

import json
import os
import queue
import threading
import time
from dataclasses import dataclass
from fractions import Fraction

from .encoder import CONTAINER, Encoder

_DONE = object()


@dataclass(frozen=True)
class StreamSpec:
    """container: mp4 | mkv | webm; encoder: what encodes; fps: frames per second; metadata: {key: JSON-able value}
    or None; color: (set_video_color_properties, BT.709 number) as accel.comfy_compat.save_video_color gives it, or
    None (no colour tags, as ComfyUI 0.3.75)."""

    container: str
    encoder: Encoder
    fps: float
    metadata: dict | None = None
    color: tuple | None = None


def to_uint8(pixels):
    """Save Video's conversion of a [0, 1] frame to 8 bits, on the frames' own device."""
    import torch

    return (pixels * 255).clamp(0, 255).to(torch.uint8)


class VideoWriter:
    """frames(pixels) while the caller works, then finish() (or abort(reason) and discard())."""

    def __init__(self, path: str, spec: StreamSpec, queued_chunks: int = 64):
        self.path, self.spec = path, spec
        self.queue: queue.Queue = queue.Queue(maxsize=queued_chunks)
        self.error: BaseException | None = None
        self.aborted: str | None = None
        self.frames_in = self.frames_out = 0
        self.size: tuple | None = None
        self.encoder_name: str | None = None
        self.encode_s = 0.0
        self._container = self._stream = None
        self._thread = threading.Thread(target=self._run, name="accel-video-encoder", daemon=True)
        self._thread.start()

    # ---------------------------------------------------------------- the caller's side (the sink protocol)
    def frames(self, pixels) -> None:
        """Queue (t, H, W, 3) [0, 1] frames (any device). Raises the encoder thread's error, if it had one."""
        import torch

        if self.error is not None:
            raise self.error
        if self.aborted is not None or pixels.shape[0] == 0:
            return
        u8 = to_uint8(pixels)
        event = None
        if u8.is_cuda:
            host = torch.empty(u8.shape, dtype=torch.uint8, pin_memory=True)
            host.copy_(u8, non_blocking=True)
            event = torch.cuda.Event()
            event.record()
        else:
            host = u8.contiguous()
        self.frames_in += host.shape[0]
        self.queue.put((host, event))

    def abort(self, reason: str) -> None:
        """Stop encoding (the frames so far are not the video); the thread ends, discard() removes the file."""
        if self.aborted is None:
            self.aborted = reason
            self.queue.put(_DONE)

    def finish(self) -> float:
        """Wait for the encoder to flush and close the file; returns how long the caller waited. Raises the encoder's
        error (the file is then removed)."""
        t0 = time.perf_counter()
        if self.aborted is None:
            self.queue.put(_DONE)
        self._thread.join()
        if self.error is not None:
            self.discard()
            raise self.error
        return time.perf_counter() - t0

    def discard(self) -> None:
        self._thread.join()
        if os.path.exists(self.path):
            os.remove(self.path)

    # ---------------------------------------------------------------- the encoder thread
    def _run(self) -> None:
        try:
            while True:
                item = self.queue.get()
                if item is _DONE or self.aborted is not None:
                    break
                host, event = item
                if event is not None:
                    event.synchronize()
                t0 = time.perf_counter()
                for frame in host.numpy():
                    self._encode(frame)
                self.encode_s += time.perf_counter() - t0
            if self.aborted is None and self._stream is not None:
                t0 = time.perf_counter()
                self._container.mux(self._stream.encode(None))
                self.encode_s += time.perf_counter() - t0
        except BaseException as e:  # noqa: BLE001 - handed to the caller by frames() / finish()
            self.error = e
        finally:
            try:
                if self._container is not None:
                    self._container.close()
            except BaseException as e:  # noqa: BLE001
                self.error = self.error or e
            while True:  # free the queue: a caller blocked on a full one goes on (and then sees the abort or error)
                try:
                    self.queue.get_nowait()
                except queue.Empty:
                    break

    def _open(self, height: int, width: int) -> None:
        import av

        s = self.spec
        options = {}
        if s.container == "mp4":
            options["movflags"] = "use_metadata_tags+faststart" if s.color is not None else "use_metadata_tags"
        self._container = av.open(self.path, mode="w", format=CONTAINER[s.container], options=options)
        for key, value in (s.metadata or {}).items():
            self._container.metadata[key] = json.dumps(value)
        stream = self._container.add_stream(s.encoder.name, rate=Fraction(round(s.fps * 1000), 1000))
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        if s.encoder.options:
            stream.options = dict(s.encoder.options)
        if s.encoder.threads:
            stream.codec_context.thread_type = s.encoder.threads
        if s.color is not None:
            s.color[0](stream.codec_context, "sRGB")
        self._stream, self.size = stream, (height, width)
        self.encoder_name = stream.codec_context.name

    def _encode(self, frame) -> None:
        import av

        if self._stream is None:
            self._open(frame.shape[0], frame.shape[1])
        elif frame.shape[:2] != self.size:
            raise ValueError(f"a frame of {frame.shape[1]}x{frame.shape[0]} in a video of "
                             f"{self.size[1]}x{self.size[0]}")
        vf = av.VideoFrame.from_ndarray(frame, format="rgb24")
        color = self.spec.color
        vf = vf.reformat(format="yuv420p", dst_colorspace=color[1] if color is not None else None)
        if color is not None:
            color[0](vf, "sRGB")
        self._container.mux(self._stream.encode(vf))
        self.frames_out += 1
