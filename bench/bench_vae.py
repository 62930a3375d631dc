"""Accel VAE vs ComfyUI's stock VAE decode: every candidate and combination on the same latents, in one process.

What it measures (ComfyUI started like main.py, random weights at the true configs, bf16 on the GPU):
  * Wan 2.1 VAE (dim 96; also Qwen-Image's and the Wan 2.2 A14B workflows' VAE): a (1, 16, 21, 60, 104) latent =
    81 frames 480p;
  * Wan 2.2 VAE (TI2V-5B's, 48 latent channels, 16x spatial): the same 81 frames 480p, a (1, 48, 21, 30, 52) latent;
  * Flux KL VAE (16 latent channels): a (1, 16, 128, 128) latent = 1024x1024.
Per variant: the decode through `VAE.decode` (what VAE Decode runs, model already loaded), after --warmup calls (the
first also compiles / runs cudnn.benchmark's search; its time is first_s), median of --repeats, CUDA-synchronized;
peak VRAM = torch.cuda.max_memory_allocated during one decode; and the output against
  * stock's output (max |diff| on the [-1, 1] scale: ComfyUI returns [0, 1], x2), and
  * the same weights decoded by stock in float32 (the weights and latent rounded to bf16 first, so only the
    arithmetic differs): max |diff| (same scale) and PSNR (dB, peak = the float32 output's range).
The bound (issue: "no farther from a float32 decode than stock's bf16 decode"): PSNR vs float32 at least stock's, and
max |diff| vs float32 at most stock's plus one bf16 step at 1.0 (2^-7 on the [-1, 1] scale: two decodes that only
sum in another order land a step apart at their worst element). `within_bound` in each row.

Variants: stock | default (the node's defaults on this machine: accel/vae/measured.py) | a combination of candidates
joined by "+" (`cl+cb+fn`):
  cl  channels_last (channels-last 3D activations)    cb  cudnn_benchmark (cuDNN's algorithm search, for the decode)
  fn  fused_norm (Triton RMSNorm+SiLU, Wan)            co  compile (torch.compile of each decoder residual block)
  tc<k>  temporal_chunk k (k latent frames per decoder call, the causal cache carried; Wan)
  tile<px>  ComfyUI's tiled decode, px tiles             tilefit  tiles sized to the free memory (tile_size 0)
| combos: Wan: every combination of cl, cb, fn, tc4, and cl+cb+co, cl+cb+fn+co, tilefit; KL: co, tilefit (the
  node leaves cl and cb off on KL VAEs);
| the names earlier result files used (VARIANT_OPTIONS: `fused_norm` = cl+cb+fn, ...); `output`: every option off,
  only what an Accel VAE copy always does (the images converted on the GPU, copied through pinned memory).
The first decode of a variant pays what is cached per process afterwards (cuDNN's algorithm search per conv shape,
Triton/inductor compiles); later variants in the same process reuse the searches of earlier ones. For a cold first
decode per variant run one variant per process (`--variants X`: stock, which searches nothing, always runs first).

Choice (the markdown's last section, and `choice` in the JSON; `pick`): per VAE, among the variants within the bound
whose first decode costs at most 20 s more than stock's (the whole-Queue target: a first Queue at most 20 s over
stock's; a compiling variant counts with the run's coldest compile), tiling left out (it trades speed for memory), the
one changing fewest of the node's defaults among those within 3.5% of the fastest (the spread of one variant between
runs); with the entry for accel/vae/measured.py DECODE_DEFAULTS. A default rests on a run with --rounds 3 or more
(every variant's timed decodes interleaved with the others', on a GPU the run has to itself), as the FP8 loader's
`auto` table does; a run without rounds shows the candidates and decides nothing.

Run (GPU machine, repo root, after `source bench/gpu_env.sh 033`), one VAE per call (each within the 10-minute limit):
    python3 bench/bench_vae.py --vaes wan2.1 --variants combos --rounds 3 --out bench/results/h200/vae_candidates
    python3 bench/bench_vae.py --vaes wan2.2,kl_flux --variants combos --rounds 3 \
        --out bench/results/h200/vae_candidates_22
    python3 bench/bench_vae.py --vaes wan2.1 --variants stock,cl+fn,cl+cb+fn+co --profile --no-fp32-reference \
        --out bench/results/h200/vae_profile   # where each decode's GPU time goes
CPU smoke (tiny Wan 2.1 VAE, the Flux VAE at a 32x32 image, compile with the eager backend; `--vaes wan2.2` builds the
true Wan 2.2 VAE, 0.7 B parameters, on the CPU):
    python bench/bench_vae.py --smoke --out /tmp/vaesmoke
Results are written after every variant, so a timeout keeps what was measured.
"""
from __future__ import annotations

import gc
import math
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare() (imports no torch)

NAME = "vae"
_CB = dict(channels_last=True, cudnn_benchmark=True)
VARIANT_OPTIONS = {  # the names earlier result files used -> every boolean option they set (the rest off)
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
    # an Accel VAE copy with every option off: what its decode always does (accel/vae/output.py: the images converted
    # on the GPU and copied through pinned memory), against stock's decode bit for bit
    "output": {},
}
ATOMS = {"cl": "channels_last", "cb": "cudnn_benchmark", "fn": "fused_norm", "co": "compile"}
WAN_ATOMS = ("fn", "tc")  # what only the Wan VAEs have (fused RMSNorm, frames)
VAES = ("wan2.1", "wan2.2", "kl_flux")
BF16_STEP = 2.0 ** -7  # one bf16 step at 1.0, on the [-1, 1] scale
FIRST_DECODE_SLACK_S = 20.0  # the whole-Queue target: a first Queue at most 20 s over stock's
# Variants this close to the fastest count as equally fast, and the one changing fewest of the node's own defaults is
# chosen: the same variant's median moved 3.3% between two runs on one H200 (cl+fn: 1.352 s in
# bench/results/h200/vae_033_run3, 1.398 s in vae_033_combos), more than what separates the fastest combinations.
NEAR_FASTEST = 0.035


def pick(rows: list, base: dict) -> tuple:
    """(chosen row or None, how many variants qualified, why) among one VAE's `rows` (stock's included): within the
    bound, no tiling, a first decode at most FIRST_DECODE_SLACK_S over stock's, then the fewest options changed from
    `base` (VAEOptions()'s defaults) among those within NEAR_FASTEST of the fastest. A compiling variant's first decode
    counts as the slowest first decode of any compiling variant of the run: later ones reuse the process's inductor and
    Triton caches, which a user's first Queue does not have."""
    stock = next((r for r in rows if r["variant"] == "stock"), None)
    if stock is None or "within_bound" not in stock:
        return None, 0, "no stock row or no float32 reference: nothing to choose by"

    def opt(r, name):  # stock's row has no options
        return (r["options"] or {}).get(name)

    cold_compile = max((r["first_s"] for r in rows if opt(r, "compile")), default=0.0)

    def first(r):
        return cold_compile if opt(r, "compile") else r["first_s"]

    ok = [r for r in rows if r["variant"] not in ("stock", "default") and r.get("within_bound")
          and not opt(r, "tiled") and first(r) <= stock["first_s"] + FIRST_DECODE_SLACK_S]
    if not ok:
        return stock, 0, "no variant within the bound and the first-decode limit"
    fastest = min(ok, key=lambda r: r["time_s"])
    if fastest["time_s"] >= stock["time_s"]:
        return stock, len(ok), f"the fastest variant within the bound ({fastest['variant']}) is not faster than stock"
    near = [r for r in ok if r["time_s"] <= fastest["time_s"] * (1 + NEAR_FASTEST)]
    best = min(near, key=lambda r: (len(changed_options(r["options"], base)), r["time_s"]))
    why = f"fastest of {len(ok)} variants within the bound and the first-decode limit"
    if best is not fastest:
        why = (f"fewest changes among the {len(near)} within {NEAR_FASTEST:.1%} of the fastest ({fastest['variant']}, "
               f"{fastest['time_s']} s) of {len(ok)} variants within the bound and the first-decode limit")
    return best, len(ok), why


def median(values: list) -> float:
    """The median (the upper one of an even count)."""
    s = sorted(values)
    return s[len(s) // 2]


def changed_options(options: dict, base: dict) -> dict:
    """The options a row sets otherwise than `base` (compile_backend follows compile)."""
    return {k: v for k, v in options.items() if k != "compile_backend" and base.get(k) != v}


def combos(vae: str) -> list:
    """`--variants combos` for one VAE: every combination of the exact-path candidates, two compiled ones, tilefit."""
    import itertools

    if not vae.startswith("wan"):  # KL VAEs: the node leaves channels_last and cudnn_benchmark off (measured slower)
        return ["co", "tilefit"]
    atoms = ["cl", "cb", "fn", "tc4"]
    out = ["+".join(c) for r in range(1, len(atoms) + 1) for c in itertools.combinations(atoms, r)]
    return out + ["cl+cb+co", "cl+cb+fn+co", "tilefit"]


def variant_options(variant: str, smoke: bool = False) -> dict:
    """VAEOptions keywords of a variant other than stock/default: every boolean named (a variant's meaning never moves
    with the node's defaults), the integers where the variant sets them. ValueError for an unknown name."""
    if variant in VARIANT_OPTIONS:
        kw = {v: False for v in ATOMS.values()} | dict(VARIANT_OPTIONS[variant])
        if kw.get("tiled"):
            kw.update(tile_size=64 if smoke else 512, overlap=16 if smoke else 64)
    else:
        kw = {v: False for v in ATOMS.values()}
        for atom in variant.split("+"):
            if atom in ATOMS:
                kw[ATOMS[atom]] = True
            elif atom.startswith("tc") and atom[2:].isdigit():
                kw["temporal_chunk"] = int(atom[2:])
            elif atom == "tilefit":
                kw.update(tiled=True, tile_size=0)
            elif atom.startswith("tile") and atom[4:].isdigit():
                kw.update(tiled=True, tile_size=int(atom[4:]), overlap=int(atom[4:]) // 8)
            else:
                raise ValueError(f"unknown variant atom {atom!r} in {variant!r} (atoms: {', '.join(ATOMS)}, tc<k>, "
                                 f"tile<px>, tilefit; or one of {', '.join(VARIANT_OPTIONS)})")
    if kw.get("compile"):
        kw["compile_backend"] = "eager" if smoke else "inductor"
    return kw


def wan_only(variant: str) -> bool:
    kw = variant_options(variant)
    return bool(kw.get("fused_norm") or kw.get("temporal_chunk"))


def parse(argv=None):
    ap = runner.parser(__doc__, smoke="tiny Wan VAE (9 frames at 64x64) and a 32x32 Flux decode, compile with the "
                       "eager backend", out_help="folder for vae.json / vae.md")
    ap.add_argument("--vaes", default="wan2.1,kl_flux", help="comma list: " + ", ".join(VAES))
    ap.add_argument("--variants", default="combos", help="comma list: stock, default, combos, a combination of "
                    "candidates (cl+cb+fn+co+tc4, tile512, tilefit) or a name of VARIANT_OPTIONS")
    ap.add_argument("--frames", type=int, default=81)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--width", type=int, default=832)
    ap.add_argument("--image", type=int, default=1024, help="Flux VAE image side (pixels)")
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=0,
                    help="after every variant's own decodes, this many rounds of one more timed decode per variant, "
                    "interleaved (order reversed every other round; every variant's copy stays loaded): the medians "
                    "then include them, as a default chosen from the run needs (3 or more)")
    ap.add_argument("--profile", action="store_true",
                    help="after each variant's timed decodes, one more under torch.profiler: GPU kernel time by "
                    "category (convolution, norms and other elementwise, copies), the top kernels and the GPU-busy "
                    "share of the decode's wall time: where a decode's time goes, and what a faster one must cut")
    ap.add_argument("--no-fp32-reference", dest="fp32_reference", action="store_false",
                    help="skip the float32 reference decode (the columns vs float32, the bound and the choice)")
    ap.add_argument("--comfy-args", default="", help="extra ComfyUI command-line arguments (as main.py takes them)")
    a = ap.parse_args(argv)
    for v in a.vaes.split(","):
        if v.strip() and v.strip() not in VAES:
            ap.error(f"--vaes: unknown {v!r} (choose from {', '.join(VAES)})")
    for v in a.variants.split(","):
        if v.strip() and v.strip() not in ("stock", "default", "combos"):
            try:
                variant_options(v.strip())
            except ValueError as e:
                ap.error(f"--variants: {e}")
    if a.smoke:
        a.frames, a.height, a.width, a.image = 9, 64, 64, 32
        a.warmup, a.repeats = 1, 1
    return a


log = runner.Log("bench_vae")
PROFILE_TOP = 12  # kernels kept per profiled variant


class Bench:
    def __init__(self, a):
        self.a = a
        self.out = Path(a.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.res = {"name": NAME, "command": runner.command(), "rows": [], "errors": [], "choice": {}}

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
        self.O = H.pack_module("accel.vae.options")
        self.measured = H.pack_module("accel.vae.measured")
        self.cuda = torch.cuda.is_available() and not self.a.smoke
        self.dtype = torch.bfloat16 if self.cuda else torch.float32
        meta = {"comfyui": start.get("comfyui"), "start": start, "torch": torch.__version__,
                "python": sys.version.split()[0], "gpu": torch.cuda.get_device_name(0) if self.cuda else None,
                "dtype": str(self.dtype), "frames": self.a.frames, "height": self.a.height, "width": self.a.width,
                "image": self.a.image, "warmup": self.a.warmup, "repeats": self.a.repeats, "rounds": self.a.rounds,
                "node_defaults": self.O.measured_defaults()[1]}
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

        t = (self.a.frames - 1) // 4 + 1
        if name == "wan2.1":
            sd = M.wan21_vae_state_dict("tiny" if self.a.smoke else "true", seed=0)
            z = torch.randn(1, 16, t, self.a.height // 8, self.a.width // 8, generator=g)
        elif name == "wan2.2":
            sd = M.wan22_vae_state_dict(seed=0)
            z = torch.randn(1, 48, t, self.a.height // 16, self.a.width // 16, generator=g)
        elif name == "kl_flux":
            sd = M.kl_vae_state_dict("flux", seed=0)
            z = torch.randn(1, 16, self.a.image // 8, self.a.image // 8, generator=g)
        else:
            raise ValueError(f"unknown VAE {name!r}")
        vae = M.vae_from_state_dict({k: r(v) if v.is_floating_point() else v for k, v in sd.items()},
                                    device=dev, dtype=self.dtype)
        return vae, r(z)

    def options(self, variant):
        """VAEOptions of a variant; `default` is the node's defaults on this machine (accel/vae/measured.py)."""
        if variant == "default":
            return self.O.VAEOptions(**self.O.measured_defaults()[0])
        return self.O.VAEOptions(**variant_options(variant, self.a.smoke))

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
        several bf16 steps near 1.0, 2**-7 each). On the CPU smoke the VAE runs in float32 already: the reference is
        stock's own decode there (the bound then asks for reassociation-level agreement)."""
        if not self.a.fp32_reference:
            return None
        torch, dtype = self.torch, self.dtype
        try:
            self.dtype = torch.float32
            vae32, z = self.build(name, round_to=dtype if self.cuda else None)
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
            if self.cuda:
                torch.cuda.empty_cache()

    def variants(self, name) -> list:
        out = []
        for v in (x.strip() for x in self.a.variants.split(",")):
            for w in (combos(name) if v == "combos" else [v] if v else []):
                if w not in out and not (w not in ("stock", "default") and wan_only(w) and not name.startswith("wan")):
                    out.append(w)
        out = ["stock"] + [v for v in out if v != "stock"]
        # compiled variants last: a compile's recompile limits and caches do not touch the others' timings
        return sorted(out, key=lambda v: v not in ("stock", "default") and variant_options(v).get("compile", False))

    def measure(self, vae, z, row) -> object:
        times, peaks, first, out = [], [], None, None
        for i in range(self.a.warmup + self.a.repeats):
            out, dt, peak = self.decode_timed(vae, z)
            if i == 0:
                first = dt
            if i >= self.a.warmup:
                times.append(dt)
                peaks.append(peak)
        times.sort()
        row["first_s"] = round(first, 4)
        row["time_s"] = round(median(times), 4)
        row["times_s"] = [round(t, 4) for t in times]
        row["peak_gib"] = None if peaks[0] is None else round(max(peaks), 3)
        return out.float().cpu()

    def profile(self, vae, z) -> dict:
        """One decode under torch.profiler (--profile): kernel time per category and the top kernels
        (runner.kernel_summary), the GPU-busy time (the union of the kernels' intervals) against the decode's wall
        time. On the CPU smoke every op's CPU time stands in for the kernels (the figures mean nothing there)."""
        torch = self.torch
        acts = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if self.cuda else [])
        with torch.profiler.profile(activities=acts) as prof:
            self.sync()
            t0 = time.perf_counter()  # inside: the profiler's own start and stop are not the decode's
            with torch.inference_mode():
                vae.decode(z)
            self.sync()
            wall_ms = (time.perf_counter() - t0) * 1000.0
        out = runner.kernel_summary(runner.kernel_times(prof, self.cuda), PROFILE_TOP)
        out["wall_ms"] = round(wall_ms, 2)
        if self.cuda:
            busy = runner.busy_ms(runner.device_intervals(prof))
            out["gpu_busy_ms"] = round(busy, 2)
            out["gpu_busy_share"] = round(busy / wall_ms, 3) if wall_ms else None
        return out

    def compare(self, row, out, ref, ref32, stock) -> None:
        row["max_abs_diff"] = runner.compare(out, ref)["max_abs_diff"] * 2.0  # [0, 1] -> [-1, 1] scale
        if ref32 is not None:
            c = runner.compare(out, ref32, psnr=True)
            row["max_abs_diff_vs_fp32"] = c["max_abs_diff"] * 2.0
            row["psnr_vs_fp32"] = round(c["psnr_db"], 3) if math.isfinite(c["psnr_db"]) else c["psnr_db"]
            row["within_bound"] = (row["psnr_vs_fp32"] >= stock["psnr_vs_fp32"]
                                   and row["max_abs_diff_vs_fp32"] <= stock["max_abs_diff_vs_fp32"] + BF16_STEP)
        row["speedup"] = round(stock["time_s"] / row["time_s"], 3) if row["time_s"] else None
        if row["peak_gib"] is not None and stock.get("peak_gib") is not None:
            row["peak_vs_stock"] = round(row["peak_gib"] / stock["peak_gib"], 3)

    def run_vae(self, name):
        torch = self.torch
        t0 = time.perf_counter()
        vae, z = self.build(name)
        log(f"{name}: built in {time.perf_counter() - t0:.1f} s, latent {tuple(z.shape)}")
        ref = None
        ref32 = self.fp32_reference(name, z)
        stock = None
        loaded = []  # (row, the variant's VAE copy) for the interleaved rounds
        for variant in self.variants(name):
            row = {"vae": name, "variant": variant, "latent": list(z.shape)}
            try:
                opts = None if variant == "stock" else self.options(variant)
                use, report = (vae, None) if opts is None else self.O.apply(vae, opts)
                row["options"] = None if opts is None else {k: v for k, v in vars(opts).items()
                                                            if k not in ("policy", "compile_backend")}
                row["report"] = "" if report is None else report.render()
                out = self.measure(use, z, row)
                if self.a.profile:
                    row["profile"] = self.profile(use, z)
                if self.a.rounds:
                    loaded.append((row, use))
                if variant == "stock":
                    ref, stock = out, row
                self.compare(row, out, ref, ref32, stock)
                log(f"{name} {variant}: {row['time_s']} s (first {row['first_s']} s), x{row['speedup']}, "
                    f"max|diff| {row['max_abs_diff']:.3g}, vs fp32 {row.get('max_abs_diff_vs_fp32', float('nan')):.3g} "
                    f"/ {row.get('psnr_vs_fp32', float('nan'))} dB, peak {row['peak_gib']} GiB")
            except Exception as e:  # keep the other variants
                row["error"] = f"{type(e).__name__}: {e}"
                row["traceback"] = traceback.format_exc()[-3000:]
                self.res["errors"].append(f"{name} {variant}: {row['error']}")
                log(f"FAILED {name} {variant}: {e!r}")
            self.res["rows"].append(row)
            self.save()
            gc.collect()
        if loaded and stock is not None:
            self.interleaved_rounds(name, loaded, z, stock)
        del loaded
        self.res["choice"][name] = self.choose(name)
        torch._dynamo.reset()
        del vae
        gc.collect()
        if self.cuda:
            torch.cuda.empty_cache()

    def interleaved_rounds(self, name, loaded, z, stock) -> None:
        """--rounds: one more timed decode per variant per round, the variants in turn (reversed every other round),
        then each row's median over all its timed decodes and its speed-up against stock's."""
        for r in range(self.a.rounds):
            for row, use in (loaded if r % 2 == 0 else loaded[::-1]):
                try:
                    _, dt, _ = self.decode_timed(use, z)
                    row["times_s"].append(round(dt, 4))
                except Exception as e:  # noqa: BLE001 - the row keeps its own decodes
                    row.setdefault("round_errors", []).append(f"{type(e).__name__}: {e}")
            log(f"{name}: interleaved round {r + 1} of {self.a.rounds}")
        for row, _ in loaded:
            row["time_s"] = round(median(row["times_s"]), 4)
            row["interleaved_rounds"] = self.a.rounds
        for row, _ in loaded:
            row["speedup"] = round(stock["time_s"] / row["time_s"], 3) if row["time_s"] else None
        self.save()

    def choose(self, name) -> dict:
        """`pick` for one VAE, with the accel/vae/measured.py entry that makes it the node's default."""
        rows = [r for r in self.res["rows"] if r["vae"] == name and "error" not in r]
        base = vars(self.O.VAEOptions())
        best, _, why = pick(rows, base)
        if best is None or best["variant"] == "stock":
            return {"variant": best and "stock", "why": why}
        changed = changed_options(best["options"], base)
        gpu = self.res["meta"].get("gpu") or "CPU smoke"
        entry = (f'DecodeChoice({changed!r}, "bench/results/<gpu>/<folder>/vae.json", "{name} VAE, '
                 f'{self.a.frames} frames {self.a.width}x{self.a.height}, {gpu}, ComfyUI '
                 f'{self.res["meta"].get("comfyui")}", "<figure id of its {best["speedup"]}x: rows/N/speedup>")')
        return {"variant": best["variant"], "speedup": best["speedup"], "options": changed, "entry": entry,
                "why": why}

    def profile_markdown(self) -> list:
        """--profile: per profiled variant, its kernel time by category, GPU-busy share and top kernels."""
        rows = [r for r in self.res["rows"] if r.get("profile")]
        if not rows:
            return []
        cats = sorted({c for r in rows for c in r["profile"]["category_ms"]},
                      key=lambda c: -max(r["profile"]["category_ms"].get(c, 0.0) for r in rows))
        lines = ["", "## Where the decode's time goes (one profiled decode per variant)", "",
                 "GPU kernel time per category (ms; on the CPU smoke: every op's CPU time), the kernels' total, the "
                 "GPU-busy time (kernels of one decode, overlaps counted once) and the decode's wall time under the "
                 "profiler.", "",
                 "| vae | variant | " + " | ".join(cats) + " | kernels (ms) | GPU busy (ms) | wall (ms) | busy share |",
                 "|---|---|" + "---|" * (len(cats) + 4)]
        for r in rows:
            p = r["profile"]
            lines.append(f"| {r['vae']} | {r['variant']} | "
                         + " | ".join(str(p["category_ms"].get(c, "")) for c in cats)
                         + f" | {p['kernel_total_ms']} | {p.get('gpu_busy_ms', '')} | {p['wall_ms']} | "
                         f"{p.get('gpu_busy_share', '')} |")
        for r in rows:
            top = "; ".join(f"{name} {ms} ms ({cat})" for name, ms, cat in r["profile"]["top"][:5])
            lines.append(f"- {r['vae']} {r['variant']}, the longest kernels: {top}")
        return lines

    def markdown(self):
        m = self.res.get("meta", {})
        lines = [f"# Accel VAE decode vs stock ({m.get('gpu') or 'CPU smoke'})", "",
                 f"ComfyUI {m.get('comfyui')}, torch {m.get('torch')}, triton {m.get('triton')}, {m.get('dtype')}, "
                 f"DynamicVRAM {m.get('start', {}).get('dynamic_vram')}; Wan: {m.get('frames')} frames "
                 f"{m.get('width')}x{m.get('height')}, Flux VAE: {m.get('image')}^2; median of {m.get('repeats')} "
                 f"after {m.get('warmup')} warm-up"
                 + (f" and {m['rounds']} interleaved rounds" if m.get("rounds") else "")
                 + ". max|diff| on the [-1, 1] scale; PSNR vs float32 in dB. Node "
                 f"defaults here: {m.get('node_defaults')}.", "",
                 f"Command: `{self.res.get('command')}`", *runner.meta_markdown(self.res.get("run_meta")), "",
                 "| vae | variant | time (s) | first (s) | speedup | max abs diff | max abs diff vs float32 | "
                 "PSNR vs float32 (dB) | within bound | peak VRAM (GiB) | peak vs stock |",
                 "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in self.res["rows"]:
            if "error" in r:
                lines.append(f"| {r['vae']} | {r['variant']} | error: {r['error'][:120]} | | | | | | | | |")
                continue
            v32 = r.get("max_abs_diff_vs_fp32")
            bound = {True: "yes", False: "no"}.get(r.get("within_bound"), "")
            lines.append(f"| {r['vae']} | {r['variant']} | {r['time_s']} | {r['first_s']} | {r.get('speedup')} | "
                         f"{r['max_abs_diff']:.3g} | {'' if v32 is None else f'{v32:.3g}'} | "
                         f"{r.get('psnr_vs_fp32', '')} | {bound} | {r.get('peak_gib')} | {r.get('peak_vs_stock', '')} "
                         "|")
        if any("max_abs_diff_vs_fp32" in r for r in self.res["rows"]):
            lines += ["", "vs float32: against the same weights decoded by stock ComfyUI in float32 (stock's own row "
                          "is what bf16 costs). Within bound: PSNR vs float32 at least stock's and max |diff| vs "
                          "float32 at most stock's plus one bf16 step at 1.0 (2^-7)."]
        lines += self.profile_markdown()
        if self.res.get("choice"):
            lines += ["", "## Choice", "", f"Per VAE: among the variants within the bound whose first decode is at "
                      f"most {FIRST_DECODE_SLACK_S:g} s over stock's (a compiling variant: the run's coldest compile), "
                      f"tiling left out, the one changing fewest of the node's defaults within {NEAR_FASTEST:.1%} of "
                      "the fastest; the entry makes it the node's default for this GPU class (accel/vae/measured.py "
                      "DECODE_DEFAULTS)."]
            for vae, c in self.res["choice"].items():
                lines.append(f"- {vae}: {c.get('variant')} ({c.get('why')})"
                             + (f": `{c['entry']}`" if c.get("entry") else ""))
        if self.res["errors"]:
            lines += ["", "Errors: " + "; ".join(self.res["errors"])]
        return "\n".join(lines) + "\n"


def main(argv=None):
    a = parse(argv)
    b = Bench(a)
    t0 = time.time()
    b.boot()
    log(f"device {b.res['meta'].get('gpu') or 'cpu'}, torch {b.res['meta']['torch']}, ComfyUI "
        f"{b.res['meta']['comfyui']}")
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
