"""Accel Compile's CUDA graphs (cuda_graphs on) with real captures on a GPU: do they replay, and are they dropped and
captured again when they must be? The invalidation cases of tests/compile/test_cuda_graphs.py (there on the CPU, with
a stand-in for torch.cuda.CUDAGraph) on tiny image models in bf16, through ComfyUI's own sampler; each case samples
the same model through the compiled blocks without graphs and with them and compares the final latents.

    replay          every image family (tiny Z-Image, Flux, Qwen-Image, SDXL): 2 runs; the shipped chain (Accel CUDA
                    Settings -> Accel Attention -> Accel Compile), so the attention kernel this GPU picks is captured
    resolution      Z-Image at 64, 48, 64 px: recompiles, captures, replays per run
    batch           Z-Image with a batch of 2
    lora            Z-Image with a LoRA at strength 1 then 0.5 (ComfyUI patches it into new tensors at each load)
    unload          Z-Image, comfy.model_management.unload_all_models() between two runs
    weights         Z-Image, a weight replaced by a new tensor after the second step (what hooks do mid-run)
    second_model    two Z-Image models sampled in turn

A case is ok when its latents match (cosine >= 0.9999: the replay runs the same kernels, so they normally agree bit
for bit) and it replayed. Expected duration on one H200: about 2-4 minutes (inductor compiles each tiny family).

Usage (GPU machine, after `source bench/gpu_env.sh 033`): python3 bench/graph_check.py --out $OUT/graph_check
CPU smoke: python3 bench/graph_check.py --smoke --out /tmp/gc  (the replay and lora cases on Z-Image, fp32, with the
CPU stand-in for the graphs and dynamo's eager backend: checks the script end to end)
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import families  # noqa: E402  bench/families.py: the tiny families' inputs (imports no torch)
import runner  # noqa: E402  bench/runner.py: shared CLI, metadata, result files, compare()
from bench_matrix import call_node  # noqa: E402  runs a node with its declared defaults

CASES = ("replay", "resolution", "batch", "lora", "unload", "weights", "second_model")
SMOKE_CASES = ("replay", "lora")
IMAGE = ("z_image", "flux", "qwen_image", "sdxl")
STEPS = 4
OK_COSINE = 0.9999
log = runner.Log("graph_check")


def parse(argv=None):
    ap = runner.parser(__doc__, smoke="the replay and lora cases on tiny Z-Image (fp32, CPU stand-in for the graphs)")
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    a = ap.parse_args(argv)
    a.cases = [c.strip() for c in a.cases.split(",") if c.strip()]
    if a.smoke:
        a.cases = [c for c in a.cases if c in SMOKE_CASES]
    bad = [c for c in a.cases if c not in CASES]
    if bad:
        ap.error(f"unknown case(s) {', '.join(bad)}; known: {', '.join(CASES)}")
    return a


class Check:
    def __init__(self, a):
        import accel_harness as H

        self.a = a
        H.bootstrap(cpu=True if a.smoke else None)
        H.load_pack()
        import torch

        self.H, self.torch = H, torch
        self.C = H.pack_module("accel.compile")
        self.cuda = torch.cuda.is_available() and not a.smoke
        if a.smoke:  # no GPU: the stand-in the CPU tests use
            from accel_harness.graph_emulation import EmulatedGraphs

            H.pack_module("accel.compile.graphs").TEST_BACKEND = EmulatedGraphs()
        self.dtype = torch.bfloat16 if self.cuda else torch.float32
        self.backend = "inductor" if self.cuda else "eager"
        self.res = {"name": "graph_check", "command": runner.command(), "cases": {}, "errors": [],
                    "meta": {"smoke": a.smoke, "dtype": str(self.dtype), "compile_backend": self.backend,
                             "steps": STEPS, "gpu": torch.cuda.get_device_name(0) if self.cuda else None},
                    "run_meta": runner.metadata("cuda" if self.cuda else "cpu")}

    # --- models, inputs, runs ------------------------------------------------------------------------------
    def model(self, family, seed=1):
        from accel_harness import models as M

        return getattr(M, families.IN_MEMORY_SMOKE[family])(seed, self.dtype)

    def inputs(self, family, side=64, batch=1):
        import types

        f = families.spec(family)
        a = types.SimpleNamespace(family=family, smoke=True, tokens=families.SMOKE["tokens"], frames=1, height=side,
                                  width=side)
        pos, neg, lat = families.inputs(a)
        lat["samples"] = lat["samples"].repeat(batch, *([1] * (lat["samples"].ndim - 1)))
        return pos, neg, lat, f

    def sample(self, model, inputs, callback=None):
        import comfy.sample

        pos, neg, lat, f = inputs
        with self.torch.inference_mode():
            noise = comfy.sample.prepare_noise(lat["samples"], 0)
            out = comfy.sample.sample(model, noise, STEPS, f.cfg, f.sampler, f.scheduler, pos, neg, lat["samples"],
                                      callback=callback, seed=0)
        return out.float().cpu()

    def chains(self, model):
        """(compiled without graphs, with graphs): the shipped chain on a GPU (its attention kernel is captured too);
        on the CPU Accel Compile alone with dynamo's eager backend."""
        if not self.cuda:
            return tuple(self.C.apply_compile(model, backend="eager", cuda_graphs=g)[0] for g in ("off", "on"))
        m = call_node("AccelCUDASettings", model=model)[0]
        m = call_node("AccelAttention", model=m)[0]
        return tuple(call_node("AccelCompile", model=m, cuda_graphs=g)[0] for g in ("off", "on"))

    def compare(self, on, want, got) -> dict:
        st = self.C.compile_status(on)
        c = runner.compare(got, want)
        return {"cosine": round(c["cosine"], 6), "max_abs_diff": round(c["max_abs_diff"], 6),
                "last_run": st["graph_last_run"], "captures": st["graph_captures"], "replays": st["graph_replays"],
                "drops": st["graph_drops"], "failures": st["graph_failures"], "recompiles": st["recompiles"],
                "reason": st["graph_reason"], "memory": st["memory"]}

    def pair(self, off, on, inputs, callback=None) -> dict:
        t0 = time.perf_counter()
        want = self.sample(off, inputs, callback)
        t1 = time.perf_counter()
        got = self.sample(on, inputs, callback)
        row = self.compare(on, want, got)
        row["times_s"] = [round(t1 - t0, 3), round(time.perf_counter() - t1, 3)]
        return row

    # --- cases -----------------------------------------------------------------------------------------------
    def case_replay(self):
        out = {}
        for family in (IMAGE if not self.a.smoke else ("z_image",)):
            off, on = self.chains(self.model(family))
            inputs = self.inputs(family)
            out[family] = [self.pair(off, on, inputs) for _ in range(2)]
        return out

    def case_resolution(self):
        off, on = self.chains(self.model("z_image"))
        return {str(side): self.pair(off, on, self.inputs("z_image", side)) for side in (64, 48, 64)}

    def case_batch(self):
        off, on = self.chains(self.model("z_image"))
        return {"batch2": self.pair(off, on, self.inputs("z_image", 64, 2))}

    def case_lora(self):
        import comfy.sd

        from accel_harness import models as M

        base = self.model("z_image")
        lora = M.lora_for(base, ["layers.0.attention.qkv", "layers.1.feed_forward.w2", "noise_refiner.0.attention.out"],
                          dtype=self.dtype)
        out = {}
        for strength in (1.0, 0.5):
            off, on = self.chains(comfy.sd.load_lora_for_models(base, None, lora, strength, 0.0)[0])
            out[str(strength)] = self.pair(off, on, self.inputs("z_image"))
        return out

    def case_unload(self):
        import comfy.model_management as mm

        off, on = self.chains(self.model("z_image"))
        inputs = self.inputs("z_image")
        first = self.pair(off, on, inputs)
        mm.unload_all_models()
        return {"before": first, "after_unload": self.pair(off, on, inputs)}

    def case_weights(self):
        import comfy.utils

        off, on = self.chains(self.model("z_image"))
        key = "diffusion_model.layers.0.attention.qkv.weight"
        base = on.model
        orig = comfy.utils.get_attr(base, key)

        def cb(step, x0, x, total):
            if step == 1:
                comfy.utils.set_attr_param(base, key, orig.detach() * 1.5)
        rows = {}
        for name, model in (("compiled", off), ("graphs", on)):
            try:
                rows[name] = self.sample(model, self.inputs("z_image"), cb)
            finally:
                comfy.utils.set_attr_param(base, key, orig)
        return {"mid_run": self.compare(on, rows["compiled"], rows["graphs"])}

    def case_second_model(self):
        a, b = self.chains(self.model("z_image", 1)), self.chains(self.model("z_image", 2))
        inputs = self.inputs("z_image")
        return {f"{n}{i}": self.pair(*pair, inputs) for i in range(2) for n, pair in (("a", a), ("b", b))}

    # --- run ---------------------------------------------------------------------------------------------------
    def run(self):
        for case in self.a.cases:
            with runner.captured(self.res, case, log=log):
                t0 = time.perf_counter()
                rows = getattr(self, f"case_{case}")()
                self.res["cases"][case] = {"rows": rows, "ok": _ok(case, rows), "s": round(time.perf_counter() - t0, 1)}
                log(f"{case}: ok={self.res['cases'][case]['ok']} {rows}")
            self.save()

    def save(self):
        runner.write(self.a.out, "graph_check", self.res, markdown(self.res))


def _rows(rows) -> list:
    """The comparison rows of a case (families of the replay case hold a list per family)."""
    out = []
    for v in rows.values():
        out += v if isinstance(v, list) else [v]
    return out


def _ok(case, rows) -> bool:
    flat = _rows(rows)
    same = all(r["cosine"] >= OK_COSINE and not r["failures"] for r in flat)
    replayed = all(r["last_run"].get("replays", 0) >= 1 for r in flat)
    if case == "weights":
        replayed = flat[0]["drops"] >= 1
    return same and replayed


def markdown(res) -> list:
    m = res["meta"]
    lines = [f"# CUDA graphs (Accel Compile cuda_graphs on): real captures, {m['gpu'] or 'CPU stand-in (smoke)'}", "",
             f"Tiny image models ({m['dtype']}), {m['steps']} steps, dynamo backend {m['compile_backend']}; each row: "
             "the same sampling through the compiled blocks without graphs and with them.",
             f"Command: `{res['command']}`", *runner.meta_markdown(res.get("run_meta")), "",
             "| case | row | ok | cosine | max abs diff | last run: calls / replays / captures | drops | recompiles | "
             "times (s): compiled / graphs | not replayed because |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for case, c in res["cases"].items():
        for name, v in c["rows"].items():
            for i, r in enumerate(v if isinstance(v, list) else [v]):
                lr = r["last_run"]
                lines.append(f"| {case} | {name}{f' run {i + 1}' if isinstance(v, list) else ''} | {c['ok']} | "
                             f"{r['cosine']} | {r['max_abs_diff']} | {lr.get('calls')} / {lr.get('replays')} / "
                             f"{lr.get('captures')} | {r['drops']} | {r['recompiles']} | "
                             f"{' / '.join(map(str, r.get('times_s', [])))} | {r['reason'] or ''} |")
    for e in res["errors"]:
        lines.append(f"\nERROR {e}")
    return lines


if __name__ == "__main__":
    Check(parse()).run()
