"""How long ComfyUI's own video save takes on what random weights decode to, and on a clip with video structure.

The whole-workflow benchmark (bench_e2e.py --save video) ends in the shipped CreateVideo -> SaveVideo: an h264 MP4
written by PyAV on the CPU. Its "save" stage is timed on what the random-weight VAE decodes, frames without the
structure of a real video, and h264 spends its time on detail it cannot predict: a save of random frames is not
what a user's save costs. This script times the same code path (ComfyUI's `VideoFromComponents.save_to`, as
SaveVideo calls it with format auto / codec auto) on two clips of the workflow's size, so the save stage of the
e2e table can be read against a save of structured content:
  noise   uniform random pixels (the worst case: nothing to predict);
  smooth  moving colour gradients with a little grain (motion and texture a real clip has; synthetic: it is not a
          user's video either, and a clip with more detail encodes slower).
Each clip is saved `--repeats` times; the table gives every time and the file size. It measures the CPU of the
machine it runs on (the GPU plays no part in the save).

Run (GPU machine, after `source bench/gpu_env.sh 033` on a machine that got PyAV, bench/prepare_av_carry.sh):
    python3 bench/bench_save.py --out bench/results/h100/save_video
CPU smoke: python bench/bench_save.py --smoke --out /tmp/savesmoke
"""
from __future__ import annotations

import math
import os
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import runner  # noqa: E402  (bench/runner.py: harness bootstrap and environment lines)


def clip(kind: str, frames: int, height: int, width: int, seed: int = 0):
    """(frames, height, width, 3) float images in [0, 1], as VAEDecode hands them to CreateVideo."""
    import torch

    g = torch.Generator().manual_seed(seed)
    if kind == "noise":
        return torch.rand(frames, height, width, 3, generator=g)
    if kind != "smooth":
        raise ValueError(f"clip kind {kind!r}: noise or smooth")
    t = torch.arange(frames, dtype=torch.float32).view(frames, 1, 1, 1)
    y = torch.linspace(0, 1, height).view(1, height, 1, 1)
    x = torch.linspace(0, 1, width).view(1, 1, width, 1)
    phase = torch.tensor([0.0, 2.1, 4.2]).view(1, 1, 1, 3)
    base = 0.5 + 0.35 * torch.sin(2 * math.pi * (1.5 * x + 0.8 * y) + 0.15 * t + phase)
    blob = torch.exp(-(((x - 0.3 - 0.005 * t) ** 2) + (y - 0.5) ** 2) / 0.02)  # an object crossing the frame
    grain = 0.02 * torch.randn(frames, height, width, 1, generator=g)
    return (base + 0.3 * blob + grain).clamp(0, 1)


def save_once(images, fps: float, path: str) -> float:
    """ComfyUI's SaveVideo path: CreateVideo's VideoFromComponents, then save_to with format and codec auto."""
    from comfy_api.latest import InputImpl, Types

    video = InputImpl.VideoFromComponents(Types.VideoComponents(images=images, frame_rate=Fraction(fps)))
    t0 = time.perf_counter()
    video.save_to(path, format=Types.VideoContainer.AUTO, codec=Types.VideoCodec.AUTO)
    return time.perf_counter() - t0


def main(argv=None):
    ap = runner.parser(__doc__, smoke="9 frames of 64x96")
    ap.add_argument("--frames", type=int, default=81)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--width", type=int, default=832)
    ap.add_argument("--fps", type=float, default=16.0)
    ap.add_argument("--repeats", type=int, default=2)
    a = ap.parse_args(argv)
    if a.smoke:
        a.frames, a.height, a.width, a.repeats = 9, 64, 96, 1
    log = runner.Log("bench_save")
    import accel_harness as H

    H.bootstrap(cpu=True)  # ComfyUI's comfy_api on the path; the save runs on the CPU whatever the machine has
    import av
    import torch

    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else None  # names the machine (the save uses no GPU)
    res = {"frames": a.frames, "height": a.height, "width": a.width, "fps": a.fps, "pyav": av.__version__,
           "cpu_count": os.cpu_count(), "machine_gpu": gpu, "clips": {}, "run_meta": runner.metadata("cpu")}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("noise", "smooth"):
            images = clip(kind, a.frames, a.height, a.width)
            times, sizes = [], []
            for i in range(a.repeats):
                path = os.path.join(tmp, f"{kind}_{i}.mp4")
                times.append(round(save_once(images, a.fps, path), 3))
                sizes.append(os.path.getsize(path))
            res["clips"][kind] = {"seconds": times, "bytes": sizes}
            log(f"{kind}: {times} s, {sizes[-1] / 1e6:.2f} MB")
            runner.write(a.out, "save_video", res, markdown(res))
    return res


def markdown(res: dict) -> list[str]:
    lines = [f"# ComfyUI's video save (SaveVideo: h264 MP4, format and codec auto), {res['frames']} frames "
             f"{res['width']}x{res['height']}", "",
             f"PyAV {res['pyav']}, {res['cpu_count']} CPU cores"
             + (f" of the machine with the {res['machine_gpu']}" if res.get("machine_gpu") else "")
             + "; the GPU plays no part (bench/bench_save.py).",
             *runner.meta_markdown(res.get("run_meta")), "", "| clip | save (s) | file (MB) |", "| --- | --- | --- |"]
    for kind, r in res["clips"].items():
        lines.append(f"| {kind} | {', '.join(f'{t:.3f}' for t in r['seconds'])} | {r['bytes'][-1] / 1e6:.2f} |")
    return lines


if __name__ == "__main__":
    main()
