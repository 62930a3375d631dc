"""Accel VAE vs ComfyUI's stock VAE decode: time, max |diff| of the output in [-1, 1], peak VRAM, per option.

What it measures (ComfyUI started like main.py, random weights at the true configs, bf16 on the GPU):
  * Wan 2.1 VAE (dim 96, also Qwen-Image's VAE): decode of a (1, 16, 21, 60, 104) latent = 81 frames 480p;
  * Flux KL VAE (16 latent channels): decode of a (1, 16, 128, 128) latent = 1024x1024.
Per variant: the decode through `VAE.decode` (what VAE Decode runs, model already loaded), after --warmup
calls (the first also compiles / runs cudnn.benchmark's search; its time is reported as first_s), median of
--repeats, CUDA-synchronized; max |diff| to the stock output on the [-1, 1] scale (ComfyUI returns [0, 1]:
x2), and to the same weights decoded by stock in float32 (stock's own distance from it is what bf16 costs);
peak VRAM = torch.cuda.max_memory_allocated during one decode (reset before it). Variants:
  stock | default (the node's defaults) | cudnn_benchmark | channels_last | channels_last+benchmark |
  fused_norm (channels_last + cudnn_benchmark + Triton RMSNorm+SiLU; Wan) | fused_norm_nobench (channels_last +
  fused norm) | fused_norm_nocl (cudnn_benchmark + fused norm) | compile (channels_last + cudnn_benchmark +
  torch.compile of the blocks) | fused_norm+compile, fused_norm_nobench+compile, fused_norm_nocl+compile (Wan) | tiled (channels_last +
  cudnn_benchmark + ComfyUI's tiled decode, 512 px tiles / 64 frames). VARIANT_OPTIONS lists each one's options.
The first decode of a variant pays what is cached per process afterwards (cuDNN's algorithm search per conv
shape, Triton/inductor compiles); later variants in the same process reuse the searches of earlier ones. For
a cold first decode per variant run one variant per process (`--variants X`: stock, which searches nothing,
always runs first).
Issue #15 target: Wan 2.1 81f 480p >= 1.4x stock with max |diff| <= 1e-2 and peak VRAM <= stock.

Run (GPU machine, repo root, after `source bench/gpu_env.sh 033` or `source bench/gpu_env.sh`):
    python3 bench/bench_vae.py --out bench/results/h100
    python3 bench/bench_vae.py --out bench/results/h100 --vaes wan2.1 --variants stock,default,compile
CPU smoke (tiny Wan VAE, the Flux VAE at a 32x32 image, compile with the eager backend):
    python bench/bench_vae.py --smoke --out /tmp/vaesmoke
Expected GPU time (H100): about 3-5 min (Wan: 7 variants x 3 decodes of ~5-10 s, plus ~1 min of compile).
Results are written after every variant, so a timeout keeps what was measured.
"""
from __future__ import annotations

import gc
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare() (imports no torch)

NAME = "vae"
_CB = dict(channels_last=True, cudnn_benchmark=True)
VARIANT_OPTIONS = {  # variant -> every boolean option it sets (the rest off); "default" is the node's defaults
    "cudnn_benchmark": dict(channels_last=False, cudnn_benchmark=True),
    "channels_last": dict(channels_last=True, cudnn_benchmark=False),
    "channels_last+benchmark": _CB,
    "fused_norm": dict(_CB, fused_norm=True),
    "fused_norm_nobench": dict(channels_last=True, cudnn_benchmark=False, fused_norm=True),
    "fused_norm_nocl": dict(channels_last=False, cudnn_benchmark=True, fused_norm=True),
    "compile": dict(_CB, compile=True),
    "fused_norm+compile": dict(_CB, fused_norm=True, compile=True),
    "fused_norm_nobench+compile": dict(channels_last=True, cudnn_benchmark=False, fused_norm=True, compile=True),
    "fused_norm_nocl+compile": dict(channels_last=False, cudnn_benchmark=True, fused_norm=True, compile=True),
    "tiled": dict(_CB, tiled=True),
}
VARIANTS = ("stock", "default") + tuple(VARIANT_OPTIONS)
WAN_ONLY = tuple(v for v, o in VARIANT_OPTIONS.items() if o.get("fused_norm"))


def parse(argv=None):
    ap = runner.parser(__doc__, smoke="tiny Wan VAE (9 frames at 64x64) and a 32x32 Flux decode, compile with the "
                       "eager backend", out_help="folder for vae.json / vae.md")
    ap.add_argument("--vaes", default="wan2.1,kl_flux", help="comma list: wan2.1, kl_flux")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma list of: " + ", ".join(VARIANTS))
    ap.add_argument("--frames", type=int, default=81)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--width", type=int, default=832)
    ap.add_argument("--image", type=int, default=1024, help="Flux VAE image side (pixels)")
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--no-fp32-reference", dest="fp32_reference", action="store_false",
                    help="skip the float32 reference decode (the max |diff| vs float32 column)")
    ap.add_argument("--comfy-args", default="", help="extra ComfyUI command-line arguments (as main.py takes them)")
    a = ap.parse_args(argv)
    if a.smoke:
        a.frames, a.height, a.width, a.image = 9, 64, 64, 32
        a.warmup, a.repeats = 1, 1
    return a


log = runner.Log("bench_vae")


class Bench:
    def __init__(self, a):
        self.a = a
        self.out = Path(a.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.res = {"name": NAME, "command": runner.command(), "rows": [], "errors": []}

    def boot(self):
        sys.path.insert(0, str(REPO / "harness"))
        from accel_harness import mainlike

        args = self.a.comfy_args.split() + (["--cpu"] if self.a.smoke else [])
        start = mainlike.start(args)
        import accel_harness as H

        H.bootstrap(cpu=self.a.smoke)
        H.load_pack()
        import torch

        from accel_harness import models as M

        self.H, self.M, self.torch = H, M, torch
        self.V = H.pack_module("accel.vae.decode")
        self.cuda = torch.cuda.is_available() and not self.a.smoke
        self.dtype = torch.bfloat16 if self.cuda else torch.float32
        meta = {"comfyui": start.get("comfyui"), "start": start, "torch": torch.__version__,
                "python": sys.version.split()[0], "gpu": torch.cuda.get_device_name(0) if self.cuda else None,
                "dtype": str(self.dtype), "frames": self.a.frames, "height": self.a.height, "width": self.a.width,
                "image": self.a.image, "warmup": self.a.warmup, "repeats": self.a.repeats}
        try:
            import triton

            meta["triton"] = triton.__version__
        except Exception:
            meta["triton"] = None
        self.res["meta"] = meta
        self.res["run_meta"] = runner.metadata("cuda" if self.cuda else "cpu")

    def save(self):
        runner.write(self.out, NAME, self.res, self.markdown())

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def build(self, name, round_to=None):
        """(VAE, latent). round_to: a dtype the weights and the latent are rounded to first (the float32
        reference decodes the bf16 run's very values, so only the arithmetic differs)."""
        torch, M = self.torch, self.M
        g = torch.Generator().manual_seed(7)
        dev = None  # ComfyUI picks the VAE device as VAELoader does (0.33's DynamicVRAM needs an indexed device)

        def r(t):
            return t if round_to is None else t.to(round_to).float()

        if name == "wan2.1":
            sd = M.wan21_vae_state_dict("tiny" if self.a.smoke else "true", seed=0)
            t = (self.a.frames - 1) // 4 + 1
            z = torch.randn(1, 16, t, self.a.height // 8, self.a.width // 8, generator=g)
        elif name == "kl_flux":
            sd = M.kl_vae_state_dict("flux", seed=0)
            z = torch.randn(1, 16, self.a.image // 8, self.a.image // 8, generator=g)
        else:
            raise ValueError(f"unknown VAE {name!r}")
        vae = M.vae_from_state_dict({k: r(v) if v.is_floating_point() else v for k, v in sd.items()},
                                    device=dev, dtype=self.dtype)
        return vae, r(z)

    def options(self, variant):
        """VaeOptions of a variant: every variant but `default` names all its options, so its meaning does not
        move when the node's defaults do (results of earlier sessions keep their meaning)."""
        V = self.V
        if variant == "default":
            return V.VaeOptions()
        if variant not in VARIANT_OPTIONS:
            raise ValueError(f"unknown variant {variant!r}")
        kw = dict(VARIANT_OPTIONS[variant])
        if kw.get("compile"):
            kw["compile_backend"] = "eager" if self.a.smoke else "inductor"
        if kw.get("tiled"):
            kw.update(tile_size=64 if self.a.smoke else 512, overlap=16 if self.a.smoke else 64)
        return V.VaeOptions(**kw)

    def decode_timed(self, vae, z):
        torch = self.torch
        if self.cuda:
            torch.cuda.reset_peak_memory_stats()
        self.sync()
        t0 = time.perf_counter()
        with torch.inference_mode():
            out = vae.decode(z)
        self.sync()
        dt = time.perf_counter() - t0
        peak = torch.cuda.max_memory_allocated() / 2 ** 30 if self.cuda else None
        return out, dt, peak

    def fp32_reference(self, name, z):
        """The same weights decoded in float32 (stock ComfyUI, one call): what bf16 rounding costs stock itself,
        the yardstick for every variant's deviation (two bf16 decodes that sum in another order differ by
        several bf16 steps near 1.0, 2**-7 each). None on the CPU smoke (it runs in float32 already)."""
        if not self.cuda or not self.a.fp32_reference:
            return None
        torch, dtype = self.torch, self.dtype
        try:
            self.dtype = torch.float32
            vae32, z = self.build(name, round_to=dtype)
            with torch.inference_mode():
                out = vae32.decode(z).float().cpu()
            del vae32
            log(f"{name}: float32 reference decoded")
            return out
        except Exception as e:  # noqa: BLE001 - the bf16 comparison still stands
            self.res["errors"].append(f"{name} fp32 reference: {type(e).__name__}: {e}")
            return None
        finally:
            self.dtype = dtype
            gc.collect()
            torch.cuda.empty_cache()

    def run_vae(self, name):
        torch = self.torch
        t0 = time.perf_counter()
        vae, z = self.build(name)
        log(f"{name}: built in {time.perf_counter() - t0:.1f} s, latent {tuple(z.shape)}")
        ref = None
        ref32 = self.fp32_reference(name, z)
        variants = [v.strip() for v in self.a.variants.split(",") if v.strip()]
        if "stock" not in variants:
            variants.insert(0, "stock")
        for variant in variants:
            if variant in WAN_ONLY and not name.startswith("wan"):
                continue
            row = {"vae": name, "variant": variant, "latent": list(z.shape)}
            try:
                use, report = (vae, "") if variant == "stock" else self.V.accelerate(vae, self.options(variant))
                row["report"] = report
                times, peaks, first = [], [], None
                out = None
                for i in range(self.a.warmup + self.a.repeats):
                    out, dt, peak = self.decode_timed(use, z)
                    if i == 0:
                        first = dt
                    if i >= self.a.warmup:
                        times.append(dt)
                        peaks.append(peak)
                times.sort()
                row["first_s"] = round(first, 4)
                row["time_s"] = round(times[len(times) // 2], 4)
                row["peak_gib"] = None if peaks[0] is None else round(max(peaks), 3)
                out = out.float().cpu()
                if variant == "stock":
                    ref = out
                row["max_abs_diff"] = runner.compare(out, ref)["max_abs_diff"] * 2.0  # [0, 1] -> [-1, 1] scale
                if ref32 is not None:
                    row["max_abs_diff_vs_fp32"] = runner.compare(out, ref32)["max_abs_diff"] * 2.0
                stock = row if variant == "stock" else next(
                    r for r in self.res["rows"] if r["vae"] == name and r["variant"] == "stock")
                row["speedup"] = round(stock["time_s"] / row["time_s"], 3) if row["time_s"] else None
                if row["peak_gib"] is not None and stock.get("peak_gib") is not None:
                    row["peak_vs_stock"] = round(row["peak_gib"] / stock["peak_gib"], 3)
                log(f"{name} {variant}: {row['time_s']} s (first {row['first_s']} s), x{row['speedup']}, "
                    f"max|diff| {row['max_abs_diff']:.3g}, peak {row['peak_gib']} GiB")
            except Exception as e:  # keep the other variants
                row["error"] = f"{type(e).__name__}: {e}"
                row["traceback"] = traceback.format_exc()[-3000:]
                self.res["errors"].append(f"{name} {variant}: {row['error']}")
                log(f"FAILED {name} {variant}: {e!r}")
            self.res["rows"].append(row)
            self.save()
            if variant.endswith("compile"):
                torch._dynamo.reset()
            gc.collect()
        del vae
        gc.collect()
        if self.cuda:
            torch.cuda.empty_cache()

    def markdown(self):
        m = self.res.get("meta", {})
        lines = [f"# Accel VAE decode vs stock ({m.get('gpu') or 'CPU smoke'})", "",
                 f"ComfyUI {m.get('comfyui')}, torch {m.get('torch')}, triton {m.get('triton')}, {m.get('dtype')}, "
                 f"DynamicVRAM {m.get('start', {}).get('dynamic_vram')}; Wan: {m.get('frames')} frames "
                 f"{m.get('width')}x{m.get('height')}, Flux VAE: {m.get('image')}^2; median of {m.get('repeats')} "
                 f"after {m.get('warmup')} warm-up. max|diff| on the [-1, 1] scale vs stock.", "",
                 f"Command: `{self.res.get('command')}`", *runner.meta_markdown(self.res.get("run_meta")), "",
                 "| vae | variant | time (s) | first (s) | speedup | max abs diff | max abs diff vs float32 | peak VRAM (GiB) | peak vs stock |",
                 "|---|---|---|---|---|---|---|---|---|"]
        for r in self.res["rows"]:
            if "error" in r:
                lines.append(f"| {r['vae']} | {r['variant']} | error: {r['error'][:120]} | | | | | | |")
                continue
            v32 = r.get("max_abs_diff_vs_fp32")
            lines.append(f"| {r['vae']} | {r['variant']} | {r['time_s']} | {r['first_s']} | {r.get('speedup')} | "
                         f"{r['max_abs_diff']:.3g} | {'' if v32 is None else f'{v32:.3g}'} | {r.get('peak_gib')} | "
                         f"{r.get('peak_vs_stock', '')} |")
        if any("max_abs_diff_vs_fp32" in r for r in self.res["rows"]):
            lines += ["", "max abs diff vs float32: against the same weights decoded by stock ComfyUI in float32 "
                      "(stock's own row is what bf16 costs; a variant at or below it is as exact as stock)."]
        if self.res["errors"]:
            lines += ["", "Errors: " + "; ".join(self.res["errors"])]
        return "\n".join(lines) + "\n"


def main(argv=None):
    a = parse(argv)
    b = Bench(a)
    t0 = time.time()
    b.boot()
    log(f"device {b.res['meta'].get('gpu') or 'cpu'}, torch {b.res['meta']['torch']}, ComfyUI {b.res['meta']['comfyui']}")
    for name in [s.strip() for s in a.vaes.split(",") if s.strip()]:
        try:
            b.run_vae(name)
        except Exception as e:
            b.res["errors"].append(f"{name}: {type(e).__name__}: {e}")
            log(f"FAILED {name}: {e!r}")
        b.save()
    b.res["total_s"] = round(time.time() - t0, 1)
    b.save()
    log(f"done in {b.res['total_s']} s -> {b.out / (NAME + '.md')}")
    print(b.markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
