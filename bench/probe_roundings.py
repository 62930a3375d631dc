"""Accel Compile's whole-model region and eager's 16-bit roundings, on Flux.1 through ComfyUI's sampler.

On an H200 the whole Flux.1 model as one region (scope model) sampled a final latent at cosine 0.9527 to stock's while
its blocks matched stock (bench/results/h200/family_033_flux_1024_model_scope_shared/). ComfyUI hands the model its
guidance in bf16; stock's `1000 * guidance` rounds to bf16 there, and inductor's fused kernel kept the fp32 product.
Accel Compile now compiles a whole-model region with inductor's `emulate_precision_casts` (accel.compile.runners
.keeps_casts). This probe samples one model four ways and compares each final latent with stock's:

    stock           ComfyUI as loaded
    blocks          Accel Compile, scope blocks (inductor)
    whole           Accel Compile, scope model, as the pack compiles it (eager's roundings kept)
    whole_default   the same with inductor's default roundings (what ran on the H200 before the fix)

The model: Flux.1-dev at its true widths (3072 wide, 24 heads, context 4096) with --depth double,single blocks and
random bf16 weights, 1024x1024 (--size), guidance 3.5, --steps steps, CFG 1. Random weights: deviation, not visual
quality. Expected duration on one H200 with the default depth: about a minute (three inductor compiles).

Usage (GPU machine, after `source bench/gpu_env.sh 033`): python3 bench/probe_roundings.py --out $OUT/roundings
CPU smoke: python3 bench/probe_roundings.py --smoke --out /tmp/pr  (tiny Flux in bf16, dynamo's eager backend: checks
the script end to end; the roundings themselves are tests/compile/test_compile.py's, with inductor on the CPU)
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare()

VARIANTS = ("stock", "blocks", "whole", "whole_default")
log = runner.Log("probe_roundings")


def parse(argv=None):
    ap = runner.parser(__doc__, smoke="tiny Flux in bf16 on the CPU, dynamo's eager backend")
    ap.add_argument("--depth", default="2,2", help="double,single blocks of the true-width Flux.1 (default 2,2)")
    ap.add_argument("--size", type=int, default=1024, help="image side in pixels (default 1024)")
    ap.add_argument("--steps", type=int, default=4, help="sampling steps (default 4)")
    a = ap.parse_args(argv)
    try:
        a.depth = tuple(int(x) for x in a.depth.split(","))
        assert len(a.depth) == 2 and min(a.depth) >= 1
    except (ValueError, AssertionError):
        ap.error(f"--depth takes two positive numbers, double,single blocks (got {a.depth!r})")
    if a.smoke:
        a.size, a.steps = 64, 2
    return a


def flux_model(a, torch):
    """A ModelPatcher of Flux.1 at its true widths and --depth (the smoke: the harness's tiny Flux), random bf16."""
    from accel_harness import models as M

    if a.smoke:
        return M.tiny_flux(dtype=torch.bfloat16)
    import comfy.ldm.flux.model

    cfg = {**M.FLUX_TINY, "vec_in_dim": 768, "context_in_dim": 4096, "hidden_size": 3072, "mlp_ratio": 4.0,
           "num_heads": 24, "depth": a.depth[0], "depth_single_blocks": a.depth[1], "axes_dim": [16, 56, 56]}
    cfg = M._with_required_fields(cfg, comfy.ldm.flux.model.FluxParams, {"txt_ids_dims": []})
    return M.tiny_model_from_config(cfg, 0, torch.bfloat16)


def main(argv=None):
    a = parse(argv)
    import accel_harness as H

    H.bootstrap(cpu=True if a.smoke else None)
    H.load_pack()
    import torch
    import torch._dynamo

    from accel_harness import models as M

    C, runners_mod = H.pack_module("accel.compile"), H.pack_module("accel.compile.runners")
    backend = "eager" if a.smoke else "inductor"
    tokens, ctx, pooled = (8, 64, 32) if a.smoke else (256, 4096, 768)
    g = torch.Generator().manual_seed(3)
    pos = [[torch.randn(1, tokens, ctx, generator=g),
            {"pooled_output": torch.randn(1, pooled, generator=g), "guidance": 3.5}]]
    neg = [[torch.zeros(1, tokens, ctx), {"pooled_output": torch.zeros(1, pooled), "guidance": 3.5}]]
    lat = {"samples": torch.zeros(1, 16, a.size // 8, a.size // 8)}
    res = {"name": "probe_roundings", "command": runner.command(), "errors": [], "rows": {},
           "meta": {"smoke": a.smoke, "depth": list(a.depth), "size": a.size, "steps": a.steps, "backend": backend,
                    "guidance": 3.5, "dtype": "bfloat16"},
           "run_meta": runner.metadata("cpu" if a.smoke else None)}
    model = flux_model(a, torch)
    out = {}
    for name in VARIANTS:
        with runner.captured(res, name, log=log):
            torch._dynamo.reset()
            m, report = model, ""
            real = runners_mod.inductor_has
            if name == "whole_default":  # as a torch without the option compiles it: inductor's default roundings
                runners_mod.inductor_has = lambda opt, real=real: opt != "emulate_precision_casts" and real(opt)
            try:
                if name != "stock":
                    m, report = C.apply_compile(model, scope="blocks" if name == "blocks" else "model",
                                                backend=backend)
            finally:
                runners_mod.inductor_has = real
            out[name] = M.sample(m, pos, neg, lat, steps=a.steps, cfg=1.0)
            row = {"roundings_kept": runners_mod.KEPT_CASTS in report}
            if name != "stock":
                row.update(runner.compare(out[name], out["stock"]))
            res["rows"][name] = row
            log(f"{name}: {row}")
        runner.write(a.out, "probe_roundings", res, markdown(res))
    return 1 if res["errors"] else 0


def markdown(res) -> list[str]:
    m = res["meta"]
    model = ("tiny Flux.1 (smoke)" if m["smoke"] else
             f"Flux.1 ({m['depth'][0]} double + {m['depth'][1]} single blocks at true widths)")
    lines = [f"# Accel Compile's whole-model region and eager's roundings: {model}, {m['size']}px, {m['steps']} steps, "
             f"guidance {m['guidance']}, bf16, backend {m['backend']}", "",
             *runner.meta_markdown(res.get("run_meta")), "",
             "| variant | eager's roundings kept | final-latent cosine vs stock | max abs diff |",
             "| --- | --- | --- | --- |"]
    for name, row in res["rows"].items():
        cos = "" if name == "stock" else f"{row['cosine']:.6f}"
        diff = "" if name == "stock" else f"{row['max_abs_diff']:.4g}"
        lines.append(f"| {name} | {'yes' if row['roundings_kept'] else 'no'} | {cos} | {diff} |")
    if res["errors"]:
        lines += ["", "Errors:", *[f"- {e.strip().splitlines()[-1]}" for e in res["errors"]]]
    return lines


if __name__ == "__main__":
    sys.exit(main())
