"""GPU benchmark of the step caches (Accel TeaCache / Accel MagCache) on the true Wan 2.1 T2V 1.3B config
(the per-set sweep also on Flux.1-dev and Qwen-Image: --sweep-family).

What it measures, side by side in one process, each variant a full ComfyUI sampling run (common_ksampler,
euler, simple, 30 steps, CFG 5, batched cond/uncond), bf16, latent (1, 16, 9, 60, 104) = 480p 33 frames,
random text context (1, 512, 4096):
  * end-to-end sampling time (CUDA-synchronized wall time, median of --repeats runs after a warm-up; a compiled
    variant's first run, which compiles, is timed apart as first_run_s),
  * model evaluations computed / skipped and the pattern, as the node's run statistics report them,
  * deviation of the final latent from the uncached run: PSNR (peak = range of the uncached latent) and cosine,
  * peak GPU memory (the cached residuals cost memory).
Random weights: the deviation numbers check the mechanism (what skipping does to this network), they are NOT
a quality figure for the real Wan 2.1 weights. Speed-ups are real for this config.

Expected runtime on one H100: about 3 minutes (model build ~5 s, 18 sampling runs of 4-11 s).

Usage (GPU machine, repo root): `bash bench/run_gpu.sh cache`, or after `source bench/gpu_env.sh`:
    python3 bench/bench_cache.py --out bench/results/h100
    python3 bench/bench_cache.py --smoke --out /tmp/x      # tiny model on the CPU, seconds

Per-set sweep (issue #14), after the timed variants, at --sweep-steps (default 20, 30, 50):
  * `schedule`: for every published MagCache set (all families), the skip pattern its recommended values give,
    from the runtime's own rules (accel/cache/schedule.py; no model needed, exact: MagCache is table-driven);
  * `sweep`: for every published Wan set the pack can apply (TeaCache and MagCache, recommended values), one
    sampling run per step count: evaluations computed/skipped, the pattern, and deviation from the uncached run
    at that step count (PSNR, cosine, rel L2). Untimed. --sweep-steps "" turns it off.
  * --sweep-only skips the timed variants; --sweep-shard I/N runs every N-th set starting at I, so N GPUs (or N
    calls) share the sweep: e.g. on two GPUs `CUDA_VISIBLE_DEVICES=0 ... --sweep-only --sweep-shard 0/2` and
    `CUDA_VISIBLE_DEVICES=1 ... --sweep-shard 1/2` (about 5 minutes each on an H200 at 20,30,50 steps, estimated
    from 0.37 s per 1.3B step).
  * --sweep-family flux | qwen_image | hunyuan_video | ltxv: the same sweep for those families'
    published sets on Flux.1-dev (12B; CFG 1 with guidance 3.5, as its workflows run), Qwen-Image (20B; CFG --cfg),
    HunyuanVideo T2V (13B; CFG 1 with guidance 6, --sweep-frames frames) or LTX-Video (2B; CFG --cfg,
    --sweep-frames frames, T5 tokens with their mask, 25 fps) at the true configs ComfyUI detects for the
    published checkpoints, random weights, --sweep-pixels square (default 512 px: the mechanism at a size that
    fits one call). LTX-Video has no set the pack applies (TeaCache's `ltxv` coefficients need a signal the pack
    does not take from LTX-Video's blocks): its run times the any-model variants alone and sweeps no set.
"""
from __future__ import annotations

import platform
import statistics
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare()

import accel_harness as H  # noqa: E402

NAME = "bench_cache"

# (label, node, kwargs). Thresholds/start of -1 mean "recommended for the chosen set" (what a user gets by default).
VARIANTS = [
    ("TeaCache auto (recommended)", "tea",
     dict(rel_l1_thresh=-1, start_percent=-1, end_percent=1.0, coefficients="auto")),
    ("TeaCache wan2.1_t2v_1.3B (e, recommended 0.08)", "tea",
     dict(rel_l1_thresh=-1, start_percent=-1, end_percent=1.0, coefficients="wan2.1_t2v_1.3B")),
    ("TeaCache ret_mode 0.26 (LightX2V config)", "tea",
     dict(rel_l1_thresh=0.26, start_percent=0.1, end_percent=1.0, coefficients="wan2.1_t2v_1.3B_ret_mode")),
    ("MagCache auto (recommended)", "mag",
     dict(magcache_thresh=-1, magcache_K=-1, start_percent=-1, end_percent=1.0, ratios="auto")),
    ("MagCache 0.24 K6", "mag",
     dict(magcache_thresh=0.24, magcache_K=6, start_percent=0.2, end_percent=1.0, ratios="wan2.1_t2v_1.3B")),
    ("Cache (any model) defaults", "any", {}),
    ("Accel Compile -> Cache (any model) defaults", "compile+any", {}),
]


def main():
    ap = runner.parser(__doc__, smoke="tiny Wan (or the --sweep-family model) on the CPU, at most 8 steps",
                       full_doc=True)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--cfg", type=float, default=5.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sweep-steps", default="20,30,50", help="step counts of the per-set sweep ('' = no sweep)")
    ap.add_argument("--sweep-only", action="store_true", help="only the per-set sweep (no timed variants)")
    ap.add_argument("--sweep-shard", default="0/1", help="I/N: this run sweeps sets I, I+N, I+2N, ... of the list")
    ap.add_argument("--sweep-family", default="wan", choices=list(SWEEP_FAMILIES),
                    help="whose published sets the sweep runs: wan (Wan 2.1 T2V 1.3B, default), flux (Flux.1-dev 12B), "
                         "qwen_image (Qwen-Image 20B), hunyuan_video (HunyuanVideo T2V 13B) or ltxv (LTX-Video 2B); "
                         "without --sweep-only their timed variants are the auto and any-model ones")
    ap.add_argument("--sweep-pixels", type=int, default=512,
                    help="flux / qwen_image / hunyuan_video / ltxv: side in pixels")
    ap.add_argument("--sweep-frames", type=int, default=17, help="hunyuan_video / ltxv: frames")
    a = ap.parse_args()
    _shard(a.sweep_shard)  # a bad value stops here, before the model is built
    out_dir = Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    t_start = time.time()

    H.bootstrap(cpu=True if a.smoke else None)
    H.load_pack()
    import torch

    from accel_harness import models as M

    sc = H.pack_module("accel.cache")
    cuda = torch.cuda.is_available() and not a.smoke
    comfy_v = H.comfy_version()
    res = {"name": NAME, "command": runner.command(), "torch": torch.__version__,
           "comfyui": comfy_v, "python": platform.python_version(),
           "gpu": torch.cuda.get_device_name(0) if cuda else "cpu (smoke)",
           "smoke": a.smoke, "steps": a.steps, "cfg": a.cfg, "repeats": a.repeats, "sampler": "euler/simple",
           "note": "random weights: deviation figures check the mechanism, not real-model quality",
           "runs": {}, "errors": {}, "run_meta": runner.metadata("cuda" if cuda else "cpu")}

    def sync():
        if cuda:
            torch.cuda.synchronize()

    try:
        t = time.time()
        g = torch.Generator().manual_seed(1)
        if a.sweep_family != "wan":
            model, latent, pos, neg, res["model"] = _family_inputs(a, M, g)
            steps = a.steps
            if a.sweep_family in ("flux", "hunyuan_video"):
                a.cfg = 1.0  # guidance-distilled: the guidance input, no CFG (as ComfyUI's Flux / HunyuanVideo
                             # workflows)
            res["cfg"] = a.cfg
        elif a.smoke:
            model = M.wan_model("t2v", "tiny", dtype=torch.float32)
            latent = {"samples": torch.zeros(1, 16, 2, 8, 8)}
            ctx_len, steps = 16, min(a.steps, 8)
        else:
            model = M.wan_model("t2v", "1.3B", device="cuda", dtype=torch.bfloat16)
            latent = {"samples": torch.zeros(1, 16, 9, 60, 104)}
            ctx_len, steps = 512, a.steps
        if a.sweep_family == "wan":
            res["model"] = ("Wan 2.1 T2V 1.3B true config (dim 1536, 30 layers), bf16" if not a.smoke
                            else "tiny Wan, fp32")
            pos = [[torch.randn(1, ctx_len, 4096, generator=g), {}]]
            neg = [[torch.randn(1, ctx_len, 4096, generator=g), {}]]
        res["sweep_family"] = a.sweep_family
        res["latent"] = list(latent["samples"].shape)
        res["steps"] = steps
        res["build_s"] = round(time.time() - t, 1)
        print(f"[{NAME}] built {res['model']} in {res['build_s']} s on {res['gpu']}", flush=True)
    except Exception:
        res["errors"]["build"] = traceback.format_exc()
        _write(out_dir, res)
        raise

    def run(m):
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        sync()
        t0 = time.perf_counter()
        lat = M.sample(m, pos, neg, latent, steps=steps, cfg=a.cfg, seed=0)
        sync()
        return time.perf_counter() - t0, lat.float().cpu(), (torch.cuda.max_memory_allocated() / 2**30 if cuda else 0.0)

    # Smoke: tiny Wan has no published set of its own; the 1.3B sets drive the mechanism.
    variants = []
    for label, node, kw in VARIANTS:
        kw = dict(kw)
        if a.smoke and a.sweep_family == "wan" and kw.get("coefficients") == "auto":
            kw["coefficients"] = "wan2.1_t2v_1.3B_ret_mode"
        if a.smoke and a.sweep_family == "wan" and kw.get("ratios") == "auto":
            kw["ratios"] = "wan2.1_t2v_1.3B"
        if a.sweep_family != "wan" and (kw.get("coefficients") or kw.get("ratios") or "auto") != "auto":
            continue  # a set named explicitly is Wan 1.3B's: other families run the auto and any-model variants
        if node in ("tea", "mag") and not _has_sets("teacache" if node == "tea" else "magcache", a.sweep_family):
            continue  # no published set the pack applies for this family (LTX-Video): auto has nothing to pick
        variants.append((label, node, kw))

    if a.sweep_only:
        variants = []
    models = {} if a.sweep_only else {"baseline": (model, "")}
    for label, node, kw in variants:
        try:
            if node in ("any", "compile+any"):
                base, creport = model, ""
                if node == "compile+any":  # inductor on the GPU, eager backend in the smoke (CPU compile is slow)
                    base, creport = H.pack_module("accel.compile").apply_compile(
                        model, backend="eager" if a.smoke else "inductor")
                m, report = H.pack_module("accel.cache.any_model").configure(base, cache_device="GPU", **kw)
                report = (creport + "\n" + report).strip()
            elif node == "tea":
                m, report = sc.configure_teacache(model, cache_device="GPU", **kw)
            else:
                m, report = sc.configure_magcache(model, cache_device="GPU", **kw)
            models[label] = (m, report)
        except Exception:
            res["errors"][label] = traceback.format_exc()
            print(f"[{NAME}] {label}: configure failed\n{res['errors'][label]}", flush=True)

    try:  # warm-up (allocator, cuDNN/cuBLAS heuristics), short
        t = time.time()
        M.sample(model, pos, neg, latent, steps=3, cfg=a.cfg, seed=0)
        sync()
        print(f"[{NAME}] warm-up {time.time() - t:.1f} s", flush=True)
    except Exception:
        res["errors"]["warmup"] = traceback.format_exc()

    compiled = [label for label, node, _ in variants if node == "compile+any" and label in models]
    for label in compiled:  # the first run of a compiled model compiles: timed apart, not in the median
        try:
            dt = run(models[label][0])[0]
            res.setdefault("first_run_s", {})[label] = round(dt, 2)
            print(f"[{NAME}] {label}: first run (compiles) {dt:.1f} s", flush=True)
        except Exception:
            res["errors"][f"{label} first run"] = traceback.format_exc()

    times = {k: [] for k in models}
    lats, mem, stats = {}, {}, {}
    for rep in range(a.repeats):  # interleaved: drift in clocks/thermals hits every variant alike
        for label, (m, _) in models.items():
            try:
                dt, lat, peak = run(m)
                times[label].append(dt)
                lats.setdefault(label, lat)
                mem[label] = max(mem.get(label, 0.0), peak)
                if label != "baseline":
                    stats[label] = sc.last_stats(m)
                extra = f", skipped {stats[label].skipped}/{stats[label].evaluations}" if label in stats else ""
                print(f"[{NAME}] rep {rep + 1}/{a.repeats} {label}: {dt:.2f} s{extra}", flush=True)
            except Exception:
                res["errors"][f"{label} rep {rep}"] = traceback.format_exc()
                print(f"[{NAME}] {label} failed:\n{res['errors'][f'{label} rep {rep}']}", flush=True)

    ref = lats.get("baseline")
    base_t = statistics.median(times["baseline"]) if times.get("baseline") else None
    for label, (_, report) in models.items():
        if not times.get(label):
            continue
        r = {"time_s_median": round(statistics.median(times[label]), 3),
             "time_s_all": [round(x, 3) for x in times[label]], "peak_mem_gib": round(mem.get(label, 0.0), 2)}
        if base_t:
            r["speedup_vs_uncached"] = round(base_t / r["time_s_median"], 3)
        st = stats.get(label)
        if st is not None:
            r.update({"set": st.set_name, "evaluations": st.evaluations, "computed": st.computed, "skipped": st.skipped,
                      "pattern": st.pattern, "estimated_block_speedup": round(st.speedup, 3), "notes": st.notes})
        if ref is not None and label in lats:
            with runner.captured(res, f"{label} deviation"):
                r.update(_deviation(lats[label], ref))
        if report:
            r["report"] = report
        res["runs"][label] = r
    _write(out_dir, res)  # partial results: a run cut short by a time limit keeps what it measured
    steps_list = [int(x) for x in a.sweep_steps.split(",") if x.strip()]
    if steps_list:
        try:
            _sweep(res, sc, model, pos, neg, latent, a, steps_list, sync, out_dir)
        except Exception:
            res["errors"]["sweep"] = traceback.format_exc()
            print(f"[{NAME}] sweep failed:\n{res['errors']['sweep']}", flush=True)
    res["total_s"] = round(time.time() - t_start, 1)
    _write(out_dir, res)
    print(f"[{NAME}] done in {res['total_s']} s -> {out_dir / (NAME + '.json')}", flush=True)


# --sweep-family -> the published sets' families it sweeps
SWEEP_FAMILIES = {"wan": ("wan21", "wan22"), "flux": ("flux",), "qwen_image": ("qwen_image",),
                  "hunyuan_video": ("hunyuan_video",), "ltxv": ("ltxv",)}
FAMILY_LABELS = {"flux": "Flux.1-dev", "qwen_image": "Qwen-Image", "hunyuan_video": "HunyuanVideo",
                 "ltxv": "LTX-Video"}


def _has_sets(kind: str, family: str) -> bool:
    cc = H.pack_module("accel.cache.coefficients")
    return any(e.get("family") in SWEEP_FAMILIES[family] and cc.adapter_for_set(e) for e in cc.published(kind).values())


def _family_inputs(a, M, g):
    """(model, latent, positive, negative, label) for --sweep-family flux / qwen_image / hunyuan_video / ltxv: the true
    configs ComfyUI detects for the published checkpoints (tiny ones in the smoke), random weights, at --sweep-pixels
    square; latents and conditioning as bench/families.py makes them for bench_matrix.py --family."""
    import families
    import torch

    true = not a.smoke
    dev, dt = ("cuda", torch.bfloat16) if true else ("cpu", torch.float32)
    px = a.sweep_pixels if true else 64
    fam = a.sweep_family
    build = {"flux": M.flux_model, "hunyuan_video": M.hunyuan_video_model, "ltxv": M.ltxv_model,
             "qwen_image": M.qwen_image_model}[fam]
    model = build("true" if true else "tiny", device=dev, dtype=dt)
    # text tokens: T5 256 (Flux), LLaVA 256 (HunyuanVideo), T5 128 with its mask (LTX-Video), Qwen2.5-VL 256; smoke
    # fewer
    tokens = {"ltxv": 128}.get(fam, 256) if true else {"ltxv": 8}.get(fam, 16)
    frames = a.sweep_frames if fam in ("hunyuan_video", "ltxv") else 1
    latent = families.latent(fam, frames, px, px)
    f = families.spec(fam)
    name = {"flux": "Flux.1-dev true config (12B)", "hunyuan_video": "HunyuanVideo T2V true config (13B)",
            "ltxv": "LTX-Video true config (2B)", "qwen_image": "Qwen-Image true config (20B)"}[fam]
    tiny = {"flux": "tiny Flux", "hunyuan_video": "tiny HunyuanVideo", "ltxv": "tiny LTX-Video",
            "qwen_image": "tiny Qwen-Image"}[fam]
    label = (f"{name}, bf16" + (f", {a.sweep_frames} frames" if frames > 1 else "")) if true else f"{tiny}, fp32"

    def cond():  # Flux / HunyuanVideo: pooled CLIP + guidance; LTX-Video: T5 mask + the frame rate LTXVConditioning
                 # adds
        return families.conditioning(fam, tokens, g, tiny=not true, guidance=f.guidance, **f.extra)

    return model, latent, cond(), cond(), f"{label}, {px}x{px}"


def _deviation(x, y) -> dict:
    """x vs the uncached latent y: PSNR (peak = y's range), cosine, rel L2, rounded as the result files hold them."""
    c = runner.compare(x, y, psnr=True)
    return {"psnr_db": round(c["psnr_db"], 2), "cosine": round(c["cosine"], 6), "rel_l2": round(c["rel_l2"], 5)}


def _joint(patterns) -> str:
    return "".join("." if all(p[j] == "." for p in patterns) else "#" for j in range(min(map(len, patterns))))


def _shard(text: str) -> tuple:
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise SystemExit(f"--sweep-shard: {text!r} is not I/N (e.g. 0/2)") from None
    if not 0 <= i < n:
        raise SystemExit(f"--sweep-shard: {text!r} needs 0 <= I < N")
    return i, n


def _sweep(res, sc, model, pos, neg, latent, a, steps_list, sync, out_dir):
    """Skip counts and deviation vs uncached per coefficient set and step count (see the module doc)."""
    from accel_harness import models as M

    cc = H.pack_module("accel.cache.coefficients")
    sched = H.pack_module("accel.cache.schedule")
    res["sweep_steps"] = steps_list
    res["schedule"] = {}
    for name, e in cc.published("magcache").items():
        r = cc.recommended("magcache", e)
        res["schedule"][name] = {}
        for n in steps_list:
            pat = _joint([sched.simulate_mag(e, n, (r["magcache_thresh"], int(r["magcache_K"]), r["retention_ratio"]),
                                             branch=b) for b in e["ratios"]])
            res["schedule"][name][str(n)] = {"skipped": pat.count("."), "steps": n, "pattern": pat}
    sets = [(k, n) for k in ("teacache", "magcache") for n, e in cc.published(k).items()
            if e.get("family") in SWEEP_FAMILIES[a.sweep_family] and cc.adapter_for_set(e)]
    if a.smoke and a.sweep_family == "wan":
        sets = [s for s in sets if s[1] in ("wan2.1_t2v_1.3B", "wan2.2_t2v_14B")]
    shard, shards = _shard(a.sweep_shard)
    sets = sets[shard::shards]
    res["sweep_shard"] = f"{shard}/{shards}"
    res["sweep"] = {}
    for n in steps_list:
        sync()
        ref = M.sample(model, pos, neg, latent, steps=n, cfg=a.cfg, seed=0).float().cpu()
        for kind, name in sets:
            key = f"{kind}:{name}"
            try:
                if kind == "teacache":
                    m, _ = sc.configure_teacache(model, -1, -1, 1.0, name, "GPU")
                else:
                    m, _ = sc.configure_magcache(model, -1, -1, -1, 1.0, name, "GPU")
                lat = M.sample(m, pos, neg, latent, steps=n, cfg=a.cfg, seed=0).float().cpu()
                st = sc.last_stats(m)
                row = {"evaluations": st.evaluations, "computed": st.computed, "skipped": st.skipped,
                       "pattern": st.pattern, **_deviation(lat, ref)}
            except Exception:
                row = {"error": traceback.format_exc().strip().splitlines()[-1]}
            res["sweep"].setdefault(key, {})[str(n)] = row
            _write(out_dir, res)
            print(f"[{NAME}] sweep {key} {n} steps: {row.get('skipped', '-')} skipped, "
                  f"PSNR {row.get('psnr_db', '-')}", flush=True)


def _write(out_dir: Path, res: dict):
    fam = FAMILY_LABELS.get(res.get("sweep_family"), "Wan 2.1 T2V 1.3B")
    lines = [f"# Step caches on {fam} ({res.get('gpu')})", "",
             f"- command: `{res.get('command')}`",
             f"- ComfyUI {res.get('comfyui', '?')}, torch {res.get('torch')}, Python {res.get('python')}",
             *runner.meta_markdown(res.get("run_meta")),
             f"- model: {res.get('model')}; latent {res.get('latent')}; {res.get('steps')} steps, CFG "
             f"{res.get('cfg')}, {res.get('sampler')}; time = median of {res.get('repeats')} CUDA-synchronized "
             "sampling runs",
             "- **random weights**: PSNR/cosine compare with the uncached run of the same weights and check the "
             "mechanism; they are not a quality measurement of the real model's outputs", "",
             "| variant | set | computed/evals | time (s) | speed-up | PSNR (dB) | cosine | peak mem (GiB) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for label, r in res.get("runs", {}).items():
        ce = f"{r['computed']}/{r['evaluations']}" if "computed" in r else "all"
        lines.append(f"| {label} | {r.get('set', '-')} | {ce} | {r['time_s_median']:.2f} | "
                     f"{r.get('speedup_vs_uncached', 1.0):.2f}x | {r.get('psnr_db', '-')} | {r.get('cosine', '-')} | "
                     f"{r.get('peak_mem_gib', 0):.1f} |")
    for label, t in res.get("first_run_s", {}).items():
        lines.append(f"\n`{label}`: first run (compiles, not in the median) {t} s")
    for label, r in res.get("runs", {}).items():
        if "pattern" in r:
            lines.append(f"\n`{label}`: steps `{r['pattern']}` (# computed, . skipped); estimated block speed-up "
                         f"{r['estimated_block_speedup']}x")
    if res.get("sweep"):
        ns = res.get("sweep_steps", [])
        lines += ["", f"## Per set, recommended values, at {'/'.join(map(str, ns))} steps",
                  "", "skipped/evaluations and PSNR (dB) vs the uncached run at the same step count"
                  + (f" (shard {res['sweep_shard']} of the sets)" if res.get("sweep_shard", "0/1") != "0/1" else ""),
                  "", "| set | " + " | ".join(f"{n} steps" for n in ns) + " |", "| --- |" + " --- |" * len(ns)]
        for key, per in res["sweep"].items():
            cells = []
            for n in ns:
                r = per.get(str(n), {})
                cells.append(f"{r['skipped']}/{r['evaluations']}, {r['psnr_db']}" if "skipped" in r
                             else r.get("error", "not run")[:40])
            lines.append(f"| {key} | " + " | ".join(cells) + " |")
    if res.get("schedule"):
        ns = res.get("sweep_steps", [])
        lines += ["", "## MagCache schedules (every published set, recommended values, no model needed)", "",
                  "| set | " + " | ".join(f"skipped at {n}" for n in ns) + " |", "| --- |" + " --- |" * len(ns)]
        for name, per in res["schedule"].items():
            lines.append(f"| {name} | " + " | ".join(str(per[str(n)]["skipped"]) for n in ns) + " |")
    if res.get("errors"):
        lines += ["", "## Errors", ""] + [f"- {k}: `{v.strip().splitlines()[-1]}`" for k, v in res["errors"].items()]
    runner.write(out_dir, NAME, res, lines)


if __name__ == "__main__":
    main()
