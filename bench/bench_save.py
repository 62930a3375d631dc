"""Where ComfyUI's video save spends its time, and what Accel Save Video does with it: one call, one table per part.

The whole-workflow benchmark (bench_e2e.py --save video) ends in the shipped CreateVideo -> SaveVideo: an h264 MP4
written by PyAV on the CPU, a fifth of a stock Queue. This script measures, on clips of the workflow's size (81
frames 832x480, 16 fps):
  clips       ComfyUI's own save (`VideoFromComponents.save_to`, as SaveVideo calls it, format and codec auto) on
              `noise` (uniform random pixels: nothing to predict, the worst case, near what random VAE weights decode
              to) and `smooth` (moving colour gradients with grain: motion and texture a real clip has; synthetic,
              and a clip with more detail encodes slower); every time and the file size.
  breakdown   the same save taken apart, per clip: the GPU -> CPU copy of the decoded frames (bf16 on the GPU to
              float32 on the CPU, as VAE.decode hands them out; GPU only) and ComfyUI's process_output; the 8-bit
              conversion as save_to does it (per frame on the CPU) and on the GPU (whole clip, then the 8-bit copy);
              the RGB -> YUV 4:2:0 conversion (swscale, per frame); the encoder alone on converted frames.
  encoders    Accel Save Video's writer (accel/video/writer.py: conversion, a thread that encodes) per encoder
              setting: Save Video's exactly (`cpu (as Save Video)`), frame + slice threads (`cpu`), x264's faster
              presets at the same CRF 23, NVENC where it opens (else the reason); time, file size, PSNR of the
              decoded file against the 8-bit frames (the quality each setting keeps).
  decode_save the Wan 2.1 VAE (true config, random weights, bf16 on the GPU) decoding a 81-frame 480p latent, then
              saving: stock (VAE.decode, then save_to) against the Accel Save Video node given the latent and the VAE
              (encoding while decoding), per encoder; time, PSNR against the decoded frames.
Timings are medians of --repeats after one warm-up where a part has one; the CPU of the machine it runs on does the
encoding (16 cores on the H100/H200 hosts so far).

Run (GPU machine, after `source bench/gpu_env.sh 033` on a machine that got PyAV, bench/prepare_av_carry.sh):
    python3 bench/bench_save.py --out bench/results/h200/save_video_accel
CPU smoke: python bench/bench_save.py --smoke --out /tmp/savesmoke
"""
from __future__ import annotations

import math
import os
import statistics
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import runner  # noqa: E402  (bench/runner.py: harness bootstrap and environment lines)

ENCODER_SETTINGS = (  # (label, encoder input, cpu_preset)
    ("cpu (as Save Video), medium", "cpu (as Save Video)", "medium"),
    ("cpu, medium", "cpu", "medium"),
    ("cpu, fast", "cpu", "fast"),
    ("cpu, faster", "cpu", "faster"),
    ("cpu, veryfast", "cpu", "veryfast"),
    ("gpu", "gpu", "medium"),
)
DECODE_SAVE_ENCODERS = ("cpu (as Save Video)", "cpu", "auto")


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


def to_uint8(images):
    """Save Video's 8-bit conversion: (frame * 255).clamp(0, 255).byte()."""
    return (images * 255).clamp(0, 255).byte()


def psnr_db(path: str, ref_u8) -> float:
    """PSNR (dB, peak 255) of the decoded file against 8-bit frames (frames, H, W, 3)."""
    import av
    import numpy as np

    with av.open(path) as c:
        got = np.stack([f.to_ndarray(format="rgb24") for f in c.decode(video=0)]).astype(np.float64)
    want = ref_u8.numpy().astype(np.float64)
    if got.shape != want.shape:
        raise ValueError(f"decoded {got.shape} vs frames {want.shape}")
    mse = float(((got - want) ** 2).mean())
    return round(10 * math.log10(255.0 ** 2 / mse), 3) if mse else math.inf


class Timer:
    def __init__(self, cuda: bool):
        self.cuda = cuda

    def __call__(self, fn, repeats: int, warmup: int = 0) -> list:
        import torch

        out = []
        for i in range(warmup + repeats):
            if self.cuda:
                torch.cuda.synchronize()
            t0 = time.perf_counter()
            fn()
            if self.cuda:
                torch.cuda.synchronize()
            if i >= warmup:
                out.append(round(time.perf_counter() - t0, 4))
        return out


def breakdown(images, fps: float, timer: Timer, repeats: int) -> dict:
    """The parts of Save Video's time, each alone (see the module docstring)."""
    import av
    import torch

    from accel_harness import pack_module

    C = pack_module("accel.comfy_compat")
    color = C.save_video_color()
    out: dict = {}
    if timer.cuda:
        decoded = images.movedim(-1, 1).movedim(0, 1).unsqueeze(0).to("cuda", torch.bfloat16) * 2 - 1  # as decode
        out["gpu_to_cpu_s"] = timer(lambda: decoded.to(device="cpu", dtype=torch.float32, copy=True), repeats, 1)
        host = decoded.to(device="cpu", dtype=torch.float32, copy=True)
        out["process_output_cpu_s"] = timer(lambda: host.clone().add_(1.0).div_(2.0).clamp_(0.0, 1.0), repeats)
        on_gpu = images.cuda()
        out["uint8_gpu_and_copy_s"] = timer(lambda: to_uint8(on_gpu).cpu(), repeats, 1)
    out["uint8_cpu_per_frame_s"] = timer(lambda: [to_uint8(f).cpu().numpy() for f in images], repeats)
    u8 = to_uint8(images).numpy()

    def yuv():
        for f in u8:
            vf = av.VideoFrame.from_ndarray(f, format="rgb24")
            vf.reformat(format="yuv420p", dst_colorspace=color[1] if color else None)
    out["rgb_to_yuv420_s"] = timer(yuv, repeats)
    frames = [av.VideoFrame.from_ndarray(f, format="rgb24").reformat(format="yuv420p") for f in u8]

    def encode_only():
        ctx = av.CodecContext.create("libx264", "w")
        ctx.width, ctx.height, ctx.pix_fmt = u8.shape[2], u8.shape[1], "yuv420p"
        ctx.time_base, ctx.framerate = Fraction(1000, round(fps * 1000)), Fraction(round(fps * 1000), 1000)
        for i, f in enumerate(frames):
            f.pts = i
            ctx.encode(f)
        ctx.encode(None)
    out["encoder_only_s"] = timer(encode_only, repeats)
    return out


def encoders(images, fps: float, tmp: str, repeats: int) -> list:
    """Accel Save Video's writer per encoder setting: time (conversion included), size, PSNR against the frames."""
    from accel_harness import pack_module

    E, W, C = (pack_module(f"accel.{m}") for m in ("video.encoder", "video.writer", "comfy_compat"))
    ref = to_uint8(images)
    rows = []
    for label, want, preset in ENCODER_SETTINGS:
        chosen, fallback = E.choose("h264", want, preset)
        row = {"setting": label, "encoder": chosen.name, "on_gpu": chosen.on_gpu, "why": chosen.why}
        if want == "gpu" and fallback:
            row["unavailable"] = fallback
            rows.append(row)
            continue
        times, path = [], os.path.join(tmp, f"enc_{len(rows)}.mp4")
        for _ in range(repeats):
            t0 = time.perf_counter()
            w = W.VideoWriter(path, W.StreamSpec("mp4", chosen, fps, None, C.save_video_color()))
            for i in range(0, images.shape[0], 8):
                w.frames(images[i:i + 8])
            w.finish()
            times.append(round(time.perf_counter() - t0, 4))
            row["encoder"] = w.encoder_name
        row.update(seconds=times, bytes=os.path.getsize(path), psnr_db=psnr_db(path, ref))
        rows.append(row)
    return rows


def decode_save(a, timer: Timer, tmp: str) -> dict:
    """Stock VAE.decode then save_to, against the Accel Save Video node decoding and saving (per encoder)."""
    import torch

    import accel_harness as H
    from accel_harness import models as M

    dtype = torch.bfloat16 if timer.cuda else torch.float32
    vae = M.vae_from_state_dict(M.wan21_vae_state_dict("tiny" if a.smoke else "true", seed=0, dtype=dtype), dtype=dtype)
    t = (a.frames - 1) // 4 + 1
    z = torch.randn(1, 16, t, a.height // 8, a.width // 8, generator=torch.Generator().manual_seed(7))
    res = {"latent": list(z.shape), "rows": []}
    with torch.inference_mode():
        images = vae.decode(z)  # warm-up (cuDNN's first calls), and the frames every file is compared with
        flat = images.reshape(-1, *images.shape[-3:])
        ref = to_uint8(flat)
        res["decode_s"] = timer(lambda: vae.decode(z), a.repeats)
        path = os.path.join(tmp, "stock_decode_save.mp4")

        def stock():
            out = vae.decode(z)
            save_once(out.reshape(-1, *out.shape[-3:]), a.fps, path)
        res["rows"].append({"variant": "stock: VAE Decode, then Create Video -> Save Video",
                            "seconds": timer(stock, a.repeats), "psnr_db": psnr_db(path, ref)})
        import folder_paths

        for want in DECODE_SAVE_ENCODERS:
            got = {}

            def accel(got=got, want=want):
                got["out"] = H.call_node("AccelSaveVideo", samples={"samples": z}, vae=vae, fps=a.fps,
                                         filename_prefix="bench/decode_save", format="auto", codec="auto",
                                         encoder=want)
            seconds = timer(accel, a.repeats)
            item = got["out"]["ui"]["images"][0]
            file = os.path.join(folder_paths.get_output_directory(), item["subfolder"], item["filename"])
            res["rows"].append({"variant": f"Accel Save Video (samples + vae), encoder {want}", "seconds": seconds,
                                "psnr_db": psnr_db(file, ref), "report": got["out"]["ui"]["text"][0]})
    return res


def median(xs):
    return round(statistics.median(xs), 4) if xs else None


def main(argv=None):
    ap = runner.parser(__doc__, smoke="9 frames of 64x96, the tiny Wan VAE")
    ap.add_argument("--frames", type=int, default=81)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--width", type=int, default=832)
    ap.add_argument("--fps", type=float, default=16.0)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--parts", default="clips,breakdown,encoders,decode_save",
                    help="comma list of: clips, breakdown, encoders, decode_save")
    a = ap.parse_args(argv)
    if a.smoke:
        a.frames, a.height, a.width, a.repeats = 9, 64, 96, 1
    log = runner.Log("bench_save")
    from accel_harness import mainlike

    start = mainlike.start(["--cpu"] if a.smoke else [])
    import accel_harness as H

    H.bootstrap(cpu=a.smoke)
    H.load_pack()
    import av
    import torch

    cuda = torch.cuda.is_available() and not a.smoke
    timer = Timer(cuda)
    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else None
    parts = [p.strip() for p in a.parts.split(",") if p.strip()]
    res = {"frames": a.frames, "height": a.height, "width": a.width, "fps": a.fps, "pyav": av.__version__,
           "cpu_count": os.cpu_count(), "machine_gpu": gpu, "comfyui": start.get("comfyui"), "clips": {},
           "breakdown": {}, "encoders": {}, "errors": [], "run_meta": runner.metadata("cuda" if cuda else "cpu")}

    def write():
        runner.write(a.out, "save_video", res, markdown(res))

    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("noise", "smooth"):
            images = clip(kind, a.frames, a.height, a.width)
            if "clips" in parts:
                times, sizes = [], []
                for i in range(a.repeats):
                    path = os.path.join(tmp, f"{kind}_{i}.mp4")
                    times.append(round(save_once(images, a.fps, path), 3))
                    sizes.append(os.path.getsize(path))
                res["clips"][kind] = {"seconds": times, "bytes": sizes}
                log(f"{kind}: {times} s, {sizes[-1] / 1e6:.2f} MB")
            if "breakdown" in parts:
                with runner.captured(res, f"breakdown {kind}", log=log):
                    res["breakdown"][kind] = breakdown(images, a.fps, timer, a.repeats)
                    log(f"{kind} breakdown: {res['breakdown'][kind]}")
            if "encoders" in parts:
                with runner.captured(res, f"encoders {kind}", log=log):
                    res["encoders"][kind] = encoders(images, a.fps, tmp, a.repeats)
            write()
        if "decode_save" in parts:
            with runner.captured(res, "decode_save", log=log):
                res["decode_save"] = decode_save(a, timer, tmp)
            write()
    return res


def markdown(res: dict) -> list[str]:
    lines = [f"# Video save: ComfyUI's Save Video taken apart, and Accel Save Video ({res['frames']} frames "
             f"{res['width']}x{res['height']} at {res['fps']:g} fps)", "",
             f"PyAV {res['pyav']}, {res['cpu_count']} CPU cores"
             + (f" of the machine with the {res['machine_gpu']}" if res.get("machine_gpu") else "")
             + f", ComfyUI {res.get('comfyui')} (bench/bench_save.py).",
             *runner.meta_markdown(res.get("run_meta"))]
    if res.get("clips"):
        lines += ["", "## Save Video (save_to, format and codec auto)", "", "| clip | save (s) | file (MB) |",
                  "| --- | --- | --- |"]
        for kind, r in res["clips"].items():
            lines.append(f"| {kind} | {', '.join(f'{t:.3f}' for t in r['seconds'])} | {r['bytes'][-1] / 1e6:.2f} |")
    if res.get("breakdown"):
        keys = ["gpu_to_cpu_s", "process_output_cpu_s", "uint8_cpu_per_frame_s", "uint8_gpu_and_copy_s",
                "rgb_to_yuv420_s", "encoder_only_s"]
        lines += ["", "## Where Save Video's time goes (median seconds per part, each alone)", "",
                  "| clip | " + " | ".join(k[:-2].replace("_", " ") for k in keys) + " |",
                  "|---" * (len(keys) + 1) + "|"]
        for kind, r in res["breakdown"].items():
            lines.append(f"| {kind} | " + " | ".join(str(median(r.get(k, [])) or "") for k in keys) + " |")
    if res.get("encoders"):
        lines += ["", "## Accel Save Video's writer per encoder setting (H.264, CRF 23 on the CPU)", "",
                  "| clip | setting | encoder | time (s) | file (MB) | PSNR vs frames (dB) |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for kind, rows in res["encoders"].items():
            for r in rows:
                if "unavailable" in r:
                    lines.append(f"| {kind} | {r['setting']} | {r['encoder']} | unavailable: {r['unavailable'][:140]} "
                                 "| | |")
                else:
                    lines.append(f"| {kind} | {r['setting']} | {r['encoder']} | {median(r['seconds'])} | "
                                 f"{r['bytes'] / 1e6:.2f} | {r['psnr_db']} |")
    ds = res.get("decode_save")
    if ds:
        lines += ["", f"## Decode + save: the Wan 2.1 VAE on latent {ds['latent']} (decode alone "
                  f"{median(ds['decode_s'])} s)", "", "| variant | time (s) | PSNR vs decoded frames (dB) |",
                  "| --- | --- | --- |"]
        for r in ds["rows"]:
            lines.append(f"| {r['variant']} | {median(r['seconds'])} | {r['psnr_db']} |")
        reports = [r for r in ds["rows"] if r.get("report")]
        if reports:
            lines.append("")
            for r in reports:
                picked = [ln for ln in r["report"].splitlines() if ln.startswith(("encoder:", "frames:", "fallback:",
                                                                                  "GPU encoder"))]
                lines.append(f"- {r['variant']}: " + " / ".join(f"`{ln[:200]}`" for ln in picked))
    if res.get("errors"):
        lines += ["", "Errors: " + "; ".join(str(e)[:300] for e in res["errors"])]
    return lines


if __name__ == "__main__":
    main()
