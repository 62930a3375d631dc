"""Accel Compile inside a real ComfyUI, on tiny random Wan 2.1 (dim 128, 2 blocks, fp32, CPU).

Mechanism tests use dynamo with backend="eager" (tracing, guards, recompiles and caches are dynamo's,
identical for inductor); two tests run real inductor (C++ on CPU): compiled == eager, and a warm
restart in a second process that must hit the persistent FX-graph cache.

Attention runs through an override that calls ComfyUI's attention_pytorch (SDPA): on CPU ComfyUI's
default sub-quadratic attention calls psutil and breaks graphs; the override is also how the
pack's attention node plugs in, so every test exercises compile + attention override together.
"""
import copy
import functools
import json
import logging
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import accel_harness as H
from accel_harness.forward import lowvram_apply

pytestmark = pytest.mark.usefixtures("fresh_dynamo")

# fp32 CPU: inductor's fused kernels reorder float sums; 1e-4 relative to the output scale is far above
# that (~1e-6) and far below any real difference (a LoRA at strength 1 changes outputs by ~1e-1).
TOL = 1e-4


def _close(a, b, tol=TOL):
    scale = max(1.0, float(b.abs().max()))
    return float((a - b).abs().max()) <= tol * scale


# ------------------------------------------------------------------------------------------------ fixtures

def sdpa_override(func, *args, **kwargs):
    from comfy.ldm.modules.attention import attention_pytorch

    return attention_pytorch(*args, **kwargs)


def half_key_override(func, q, k, v, *args, **kwargs):
    """A deliberately different attention (keys scaled by 0.5): its outputs differ from sdpa_override's."""
    from comfy.ldm.modules.attention import attention_pytorch

    return attention_pytorch(q, k * 0.5, v, *args, **kwargs)


def with_override(model, fn):
    m = model.clone()
    m.model_options.setdefault("transformer_options", {})["optimized_attention_override"] = fn
    return m


@pytest.fixture
def wan(M):
    return with_override(M.wan_model(dtype=torch.float32, seed=1), sdpa_override)


def inputs(frames=1, h=4, w=4, batch=1, seed=0, tokens=8):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(batch, 16, frames, h, w, generator=g), torch.randn(batch, tokens, 4096, generator=g)


def forward(patcher, x, ctx, sigma=0.7):
    from accel_harness.forward import Forward

    with Forward(patcher) as f:
        return f(x, sigma, ctx).float()


def graphs():
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"])


def lora_sd(M, rank=4, seed=3):
    """A LoRA for tiny Wan in the diffusers-style key layout (lora_A / lora_B) that ComfyUI's comfy/lora.py
    maps through its generic `diffusion_model.<module>` keys (accel_harness.models.wan_lora)."""
    return M.wan_lora(rank=rank, seed=seed, layout="diffusers",
                      modules=["blocks.0.self_attn.q", "blocks.0.ffn.0", "blocks.1.cross_attn.o", "blocks.1.ffn.2"])


def with_lora(model, sd, strength):
    import comfy.sd

    return comfy.sd.load_lora_for_models(model, None, sd, strength, 0.0)[0]


def block_types_during_forward(patcher, x, ctx):
    """Record what sits in diffusion_model.blocks while the model runs (via a DIFFUSION_MODEL wrapper)."""
    import comfy.patcher_extension as pe

    seen = []

    def spy(executor, *args, **kwargs):
        seen.append([type(b).__name__ for b in executor.class_obj.blocks])
        return executor(*args, **kwargs)

    m = patcher.clone()
    m.add_wrapper_with_key(pe.WrappersMP.DIFFUSION_MODEL, "test.spy", spy)
    out = forward(m, x, ctx)
    return seen, out


# ------------------------------------------------------------------------------------------------ node

def test_node_registered_with_report(pack, wan, C, mod):
    import comfy.patcher_extension as pe
    import nodes

    cls = nodes.NODE_CLASS_MAPPINGS["AccelCompile"]
    assert pack.nodes.NODE_DISPLAY_NAME_MAPPINGS["AccelCompile"] == "Accel Compile"
    assert cls.CATEGORY == "accel/patch" and tuple(cls.RETURN_TYPES) == ("MODEL", "STRING")
    req = cls.INPUT_TYPES()["required"]
    assert req["mode"][1]["options"] == ["default", "max-autotune-no-cudagraphs", "max-autotune", "reduce-overhead"]
    assert req["scope"][1]["default"] == "blocks" and req["on_failure"][1]["default"] == "fall back"
    out = H.call_node(cls, wan, "default", "blocks", "auto", False, "inductor", 64, "eager")
    m, report = out["result"]
    assert out["ui"]["text"] == [report]
    assert m is not wan and m.model is wan.model
    assert m.get_wrappers(pe.WrappersMP.APPLY_MODEL, C.WRAPPER_KEY)
    assert not wan.get_wrappers(pe.WrappersMP.APPLY_MODEL, C.WRAPPER_KEY), "the input MODEL must stay unpatched"
    assert "mode default (inductor)" in report and "2 blocks" in report and "guard filter" in report
    cc = mod("accel.compile.cache")
    assert cc.info()["dir"] in report  # the cache folder is named in the report
    if cc._user_set() is None:  # not overridden by the user's TORCHINDUCTOR_CACHE_DIR: ours, under ComfyUI/user
        import folder_paths

        assert cc.info()["dir"] == os.path.join(folder_paths.get_user_directory(), "comfyui-accel", "compile-cache")
        assert os.environ["TORCHINDUCTOR_CACHE_DIR"] == cc.info()["dir"]
    assert C.compile_status(wan) == {"enabled": False}
    st = C.compile_status(m)
    assert st["enabled"] and st["mode"] == "default" and st["fell_back"] is False and st["recompiles"] == 0


def test_bad_inputs_name_node_and_input(wan, C, mod):
    """(on_failure is parsed at the node boundary: test_vocabulary.py)"""
    errors = mod("accel.common.errors")
    AccelError = errors.AccelError
    for kw, inp in (({"mode": "fastest"}, "mode"), ({"scope": "layers"}, "scope"), ({"dynamic": "maybe"}, "dynamic"),
                    ({"recompile_limit": 0}, "recompile_limit"), ({"mode_chain": ["default", "turbo"]}, "mode")):
        with pytest.raises(AccelError) as e, errors.titled("Accel Compile"):  # the title the node boundary sets
            C.apply_compile(wan, **kw)
        assert e.value.node == "Accel Compile" and e.value.input_name == inp, kw


# ------------------------------------------------------------------------------------------------ inductor

def test_inductor_per_block_matches_eager_and_fills_cache(wan, C, mod):
    x, ctx = inputs()
    ref = forward(wan, x, ctx)
    m, _ = C.apply_compile(wan, mode="default", scope="blocks", backend="inductor")
    g0 = graphs()
    seen, out = block_types_during_forward(m, x, ctx)
    assert _close(out, ref), float((out - ref).abs().max())
    assert seen == [["_Region", "_Region"]], "each transformer block must run through the compiled region"
    assert [type(b).__name__ for b in wan.model.diffusion_model.blocks] == ["WanAttentionBlock"] * 2, (
        "originals restored")
    st = C.compile_status(m)
    # both blocks share ONE graph (same code, parameters are graph inputs, inputs made contiguous)
    assert graphs() - g0 == 1 and st["graphs"] == 1 and st["regions"] == 2 and st["compile_seconds"] > 0
    cache = mod("accel.compile.cache").info()["dir"]
    assert os.path.isdir(os.path.join(cache, "fxgraph")), f"no FX graph cache under {cache}"
    out2 = forward(m, x, ctx)
    assert torch.equal(out2, out) and graphs() - g0 == 1, "a second call must not compile again"


def test_warm_restart_hits_persistent_cache(comfy, mod):
    """A second Python process with the same cache folder compiles the same graph from disk.
    (test_inductor_per_block... above filled the folder; this runs its own compile first if run alone.)"""
    cache_dir = mod("accel.compile.cache").activate()["dir"]
    code = textwrap.dedent(f"""
        import json, os, sys, time, logging
        sys.path.insert(0, {str(H.REPO_ROOT / 'harness')!r})
        import accel_harness as H
        H.bootstrap()
        import torch
        torch.set_num_threads({torch.get_num_threads()})  # inductor's CPU cache key includes the thread count
        H.load_pack()
        from accel_harness import models as M
        from accel_harness.forward import Forward
        from comfy.ldm.modules.attention import attention_pytorch
        from torch._dynamo.utils import counters
        C = H.pack_module("accel.compile")
        def sdpa_override(func, *args, **kwargs):
            return attention_pytorch(*args, **kwargs)
        m = M.wan_model(dtype=torch.float32, seed=1)
        m.model_options.setdefault("transformer_options", {{}})["optimized_attention_override"] = sdpa_override
        c, _ = C.apply_compile(m, backend="inductor")
        g = torch.Generator().manual_seed(0)
        x, ctx = torch.randn(1, 16, 1, 4, 4, generator=g), torch.randn(1, 8, 4096, generator=g)
        with Forward(c) as f:
            f(x, 0.7, ctx)
        st = C.compile_status(c)
        print("RESULT=" + json.dumps({{"hit": counters["inductor"]["fxgraph_cache_hit"],
                                      "miss": counters["inductor"]["fxgraph_cache_miss"],
                                      "seconds": st["compile_seconds"],
                                      "dir": H.pack_module("accel.compile.cache").info()["dir"]}}))
    """)
    env = dict(os.environ, OMP_NUM_THREADS="1", ACCEL_COMPILE_CACHE_DIR=cache_dir)
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    runs = []
    for _ in range(2):  # the first run fills the cache if this test runs alone; the second must hit it
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
        assert out.returncode == 0, out.stderr[-3000:]
        runs.append(json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("RESULT=")][-1][7:]))
        if runs[-1]["hit"] >= 1 and runs[-1]["miss"] == 0:
            break
    warm = runs[-1]
    assert os.path.abspath(warm["dir"]) == os.path.abspath(cache_dir)
    assert warm["hit"] >= 1 and warm["miss"] == 0, runs


# ------------------------------------------------------------------------------------------------ LoRA

def test_lora_before_and_after_compile_take_effect(M, wan, C):
    sd = lora_sd(M)
    x, ctx = inputs()
    base = forward(wan, x, ctx)
    ref1 = forward(with_lora(wan, sd, 1.0), x, ctx)
    ref05 = forward(with_lora(wan, sd, 0.5), x, ctx)
    assert not _close(ref1, base, 1e-2), "the test LoRA must change the output"

    compiled, _ = C.apply_compile(wan, backend="eager")
    assert _close(forward(compiled, x, ctx), base)
    g0 = graphs()
    after = with_lora(compiled, sd, 1.0)  # LoRA after the compile node
    assert _close(forward(after, x, ctx), ref1)
    after05 = with_lora(compiled, sd, 0.5)  # strength change: a new LoRA clone
    assert _close(forward(after05, x, ctx), ref05)
    assert graphs() == g0, "LoRA after compile / a strength change must reuse the compiled graph"

    before, _ = C.apply_compile(with_lora(wan, sd, 1.0), backend="eager")  # LoRA before the compile node
    assert _close(forward(before, x, ctx), ref1)
    before05, _ = C.apply_compile(with_lora(wan, sd, 0.5), backend="eager")  # the node re-executes
    assert _close(forward(before05, x, ctx), ref05)
    assert graphs() == g0, "re-executing the compile node for a new LoRA strength must reuse compiled code"
    assert C.compile_status(before05)["recompiles"] == 0 and C.compile_status(after05)["recompiles"] == 0


def test_lowvram_lora_blocks_stay_compiled_no_storm(M, wan, C, mod):
    """Partial load (lowvram) + LoRA: ComfyUI casts those weights per call and applies the LoRA there with
    LowVramPatch objects that dynamo would guard on (a recompile per block per LoRA change). The compile
    wrapper fetches each block's weights outside the graph (accel.compile.stream), so the blocks stay
    compiled, the output is the eager one, and a LoRA strength change compiles nothing."""

    sd = lora_sd(M)
    x, ctx = inputs()
    compiled, _ = C.apply_compile(wan, backend="eager")

    def lowvram_forward(p):
        return lowvram_apply(p, x, ctx)

    g00 = graphs()
    out1 = lowvram_forward(with_lora(compiled, sd, 1.0))
    st = C.compile_status(compiled)
    assert st["streamed_regions"] == 2 and st["regions"] == 2, st  # both blocks fetched outside the graph
    # the host time of that model call, and the part of it spent fetching and restoring the blocks' weights
    assert 0 < st["fetch_host_ms"] < st["call_host_ms"], st
    assert graphs() > g00 and not st["fell_back"], st  # ... and ran compiled
    # the report after the run says so, with that host time
    run = mod("accel.compile.report").run_lines(st)
    assert f"  weights: 2 of 2 compiled region(s) fetched their weights in the last model call " \
           f"({st['fetch_host_ms']:.1f} ms of host time; ComfyUI streams them)" in run, run
    # a model loaded resident whose layers still cast per call (a plain fp8 file): cast, not streamed
    cfg = mod("accel.compile.config")
    run = mod("accel.compile.report").run_lines({**st, "memory": cfg.MEMORY_OFF + " (resident_weights on)"})
    assert any(line.endswith("; the stored weights cast to the compute dtype per call, as stock casts them)")
               for line in run) and not any("ComfyUI streams them" in line for line in run), run
    assert _close(out1, forward(with_lora(wan, sd, 1.0), x, ctx))
    g0 = graphs()
    out05 = lowvram_forward(with_lora(compiled, sd, 0.5))
    assert _close(out05, forward(with_lora(wan, sd, 0.5), x, ctx))
    assert graphs() == g0, "a LoRA strength change under lowvram must not recompile"
    assert C.compile_status(compiled)["recompiles"] == 0
    # the layers got their own state back: per-call casting (and the LoRA patch functions) are in place
    layers = [m for m in compiled.model.diffusion_model.blocks[0].modules() if hasattr(m, "comfy_cast_weights")]
    assert layers and not any(m.comfy_cast_weights for m in layers)  # unpatched after lowvram_forward


def test_fp8_loader_lowvram_lora_patched_outside_the_graph(M, mod, C, comfy):
    """The pack's FP8 loader + LoRA where the LoRA stays a per-call weight function (partial loads; DynamicVRAM on
    ComfyUI 0.33 streams every model this way): the block fetcher fetches the stored fp8 weight and hands the LoRA
    factors to the compiled block, which adds the low-rank term beside the FP8 matmul (accel.compile.stream,
    accel.fp8.ops), so the blocks run one graph per LoRA layout, a strength change compiles nothing, and the output
    is the eager FP8 + LoRA one (rel <= 0.05, the bound tests/fp8/test_fp8.py uses for baked LoRAs; the same math
    here, so far closer in fact)."""
    from pathlib import Path

    import folder_paths

    d = Path(folder_paths.get_folder_paths("diffusion_models")[0])
    path = M.write_wan(d / "compile_fp8_lora.safetensors", seed=4, dtype=torch.float32)
    fp8 = mod("accel.fp8").load_file(str(path)).patcher
    fp8 = with_override(fp8, sdpa_override)
    compiled, _ = C.apply_compile(fp8, backend="eager")
    sd = lora_sd(M)
    x, ctx = inputs()

    def lowvram_forward(p, lora=True):
        def check(p):
            q = p.model.diffusion_model.blocks[0].self_attn.q
            assert bool(q.weight_function) == lora and q.weight_scale is not None  # the case under test

        return lowvram_apply(p, x, ctx, check)

    def rel(a, b):
        return float((a - b).norm() / b.norm())

    def fp8_rt(p):
        return p.model.diffusion_model.blocks[0].self_attn.q.accel_fp8_runtime.calls

    nolora = lowvram_forward(fp8, lora=False)
    ref1 = lowvram_forward(with_lora(fp8, sd, 1.0))
    ref05 = lowvram_forward(with_lora(fp8, sd, 0.5))
    g0 = graphs()
    out1 = lowvram_forward(with_lora(compiled, sd, 1.0))
    st = C.compile_status(compiled)
    assert not st["fell_back"] and st["streamed_regions"] == 2, st
    # a plain LoRA runs beside the FP8 matmul inside the graph (accel.fp8.ops): one graph per LoRA layout of a block
    # (this LoRA patches other layers in each block: 2), never one per strength; tracing the weight functions would
    # also give one per block, but through guards on each block's patch key, recompiled at every change
    assert graphs() - g0 == 2, f"{graphs() - g0} graphs for two blocks with two LoRA layouts"
    assert st["quantized_plans"] == {} and fp8_rt(fp8)["lora_lowrank"] >= 4 and fp8_rt(fp8)["lora_dense"] == 0
    assert rel(out1, ref1) <= 0.05 and rel(nolora, ref1) >= 0.1, (rel(out1, ref1), rel(nolora, ref1))
    g1 = graphs()
    out05 = lowvram_forward(with_lora(compiled, sd, 0.5))
    assert graphs() == g1, "a LoRA strength change compiled a new graph"
    assert rel(out05, ref05) <= 0.05 and rel(out05, out1) >= 0.02, (rel(out05, ref05), rel(out05, out1))


# ------------------------------------------------------------------------------------------------ shapes

def test_new_resolution_recompiles_once_with_reason(wan, C, caplog):
    caplog.set_level(logging.INFO, logger="comfyui-accel")
    m, _ = C.apply_compile(wan, backend="eager", dynamic="auto")
    g0 = graphs()
    for shape in ((1, 4, 4), (1, 6, 4), (1, 8, 6), (5, 6, 4), (9, 4, 8)):  # (frames, h, w) latent sizes
        x, ctx = inputs(*shape)
        assert _close(forward(m, x, ctx), forward(wan, x, ctx)), shape
    st = C.compile_status(m)
    # first shape: 1 graph; first new shape: 1 recompile into a dynamic graph; later sizes/frames: none
    assert st["recompiles"] == 1 and graphs() - g0 == 2, st
    assert "size mismatch" in st["last_recompile_reason"]
    msgs = [r.getMessage() for r in caplog.records if "recompiled (" in r.getMessage()]
    assert len(msgs) == 1 and "size mismatch" in msgs[0]


@pytest.mark.parametrize("native", [True, False], ids=["compile-kwarg", "config-per-call"])
def test_recompile_limit_is_configurable(wan, C, mod, caplog, monkeypatch, native):
    """torch >= 2.13 takes torch.compile(recompile_limit=); older ones get dynamo's config set per call."""
    if not native:
        monkeypatch.setattr(mod("accel.compile.runners"), "compile_accepts", lambda name: False)
        monkeypatch.setattr(mod("accel.compile.dynamo_compat"), "compile_accepts", lambda name: False)
    elif not mod("accel.compile.dynamo_compat").compile_accepts("recompile_limit"):
        pytest.skip("this torch has no torch.compile(recompile_limit=)")
    caplog.set_level(logging.WARNING, logger="comfyui-accel")
    m, _ = C.apply_compile(wan, backend="eager", dynamic="false", recompile_limit=2 if native else 3)
    limit = 2 if native else 3
    for shape in ((1, 4, 4), (1, 6, 4), (1, 8, 4), (1, 10, 4), (1, 12, 4)):
        x, ctx = inputs(*shape)
        assert _close(forward(m, x, ctx), forward(wan, x, ctx)), shape  # past the limit: still correct (eager)
    st = C.compile_status(m)
    assert st["recompile_limit_hit"] and st["graphs"] == limit, st
    assert sum(f"recompile limit ({limit}) is reached" in r.getMessage() for r in caplog.records) == 1


# ------------------------------------------------------------------------------------------------ failures

@pytest.fixture
def broken_backend():
    """Registers dynamo backends that raise (always / only on their first compile)."""
    from torch._dynamo.backends.registry import _COMPILER_FNS, register_backend

    calls = {"flaky": 0}

    def always(gm, example_inputs, **kw):
        raise RuntimeError("simulated compiler failure: type fp8e4nv not supported in this architecture")

    def flaky(gm, example_inputs, **kw):
        calls["flaky"] += 1
        if calls["flaky"] == 1:
            raise RuntimeError("simulated max-autotune failure")
        return gm.forward

    register_backend(always, name="accel_test_broken")
    register_backend(flaky, name="accel_test_flaky")
    yield calls
    _COMPILER_FNS.pop("accel_test_broken", None)
    _COMPILER_FNS.pop("accel_test_flaky", None)


def test_compile_failure_falls_back_to_eager_once(M, wan, C, broken_backend, caplog):
    caplog.set_level(logging.WARNING, logger="comfyui-accel")
    pos, neg = M.conditioning(8, seed=1), M.conditioning(8, seed=2)
    latent = M.wan_latent(frames=1, height=32, width=32)
    ref = M.sample(wan, pos, neg, latent, steps=2, cfg=2.0)
    m, _ = C.apply_compile(wan, backend="accel_test_broken")
    out = M.sample(m, pos, neg, latent, steps=2, cfg=2.0)  # the prompt succeeds
    assert _close(out, ref)
    out = M.sample(m, pos, neg, latent, steps=2, cfg=2.0)
    assert _close(out, ref)
    lines = [r.getMessage() for r in caplog.records if "compile" in r.getMessage()]
    assert len(lines) == 1 and "runs eager from now on" in lines[0] and "fp8e4nv" in lines[0], lines
    st = C.compile_status(m)
    assert st["fell_back"] and st["mode"] == "eager" and "simulated compiler failure" in st["reason"]
    # the node re-executed for the same model and settings: stays eager, no new attempt, no new log line
    m2, report = C.apply_compile(wan, backend="accel_test_broken")
    assert "EAGER" in report and C.compile_status(m2)["fell_back"]


def test_error_policy_raises_after_an_earlier_fallback(wan, C, mod, broken_backend):
    """The same model and settings that already fell back, patched again with on_failure 'error' (a user switching
    the option after seeing EAGER): the run stops with the earlier reason instead of running eager silently."""
    AccelError = mod("accel.common.errors").AccelError
    x, ctx = inputs()
    m, _ = C.apply_compile(wan, backend="accel_test_broken")
    forward(m, x, ctx)
    assert C.compile_status(m)["fell_back"]
    with mod("accel.common.errors").titled("Accel Compile"):
        m2, _ = C.apply_compile(wan, backend="accel_test_broken", policy="error")
    with pytest.raises(AccelError) as e:
        forward(m2, x, ctx)
    assert e.value.node == "Accel Compile" and "simulated compiler failure" in str(e.value), str(e.value)


def test_compile_failure_raises_when_asked(M, wan, C, mod, broken_backend):
    AccelError = mod("accel.common.errors").AccelError
    with mod("accel.common.errors").titled("Accel Compile"):  # the title the node boundary sets
        m, _ = C.apply_compile(wan, backend="accel_test_broken", policy="error")
    x, ctx = inputs()
    with pytest.raises(AccelError) as e:
        forward(m, x, ctx)
    assert e.value.node == "Accel Compile" and "simulated compiler failure" in str(e.value)


def test_mode_chain_moves_to_next_mode(wan, C, broken_backend, caplog):
    caplog.set_level(logging.WARNING, logger="comfyui-accel")
    m, report = C.apply_compile(wan, backend="accel_test_flaky", mode_chain=["max-autotune-no-cudagraphs", "default"])
    assert "max-autotune-no-cudagraphs -> default -> eager" in report
    x, ctx = inputs()
    ref = forward(wan, x, ctx)
    assert _close(forward(m, x, ctx), ref)  # first mode fails: this call ran eager
    st = C.compile_status(m)
    assert st["mode"] == "default" and not st["fell_back"] and st["failures"][0][0] == "max-autotune-no-cudagraphs"
    assert _close(forward(m, x, ctx), ref)  # second mode compiles and runs
    st = C.compile_status(m)
    assert st["graphs"] == 1 and st["mode"] == "default" and broken_backend["flaky"] == 2
    assert sum("using mode default" in r.getMessage() for r in caplog.records) == 1


@pytest.mark.parametrize("policy", ["fall back", "error"])
def test_unknown_backend_is_refused_up_front(wan, C, mod, policy):
    """An unknown backend name made torch.compile raise a raw InvalidBackend on the first sampling step, even with
    on_failure 'fall back' (issue #29): now an error naming the input, before anything is patched or compiled,
    whatever on_failure says (a bad input, not a fast path that failed)."""
    AccelError = mod("accel.common.errors").AccelError
    for bad in ("no_such_backend", "Inductor"):
        with pytest.raises(AccelError) as e, mod("accel.common.errors").titled("Accel Compile"):
            C.apply_compile(wan, backend=bad, policy=policy)
        msg = str(e.value)
        assert msg.startswith(f"[Accel Compile] input 'backend': '{bad}' is not a torch.compile backend"), msg
        assert "inductor or cudagraphs" in msg
    C.apply_compile(wan, backend="eager", policy=policy)  # registered in torch (a debug backend): accepted


def _compile_prompt(unet, on_failure):
    return {
        "1": {"class_type": "UNETLoader", "inputs": {"unet_name": unet, "weight_dtype": "default"}},
        "2": {"class_type": "AccelCompile", "inputs": {"model": ["1", 0], "mode": "default", "scope": "blocks",
                                                        "dynamic": "auto", "fullgraph": False, "backend": "inductor",
                                                        "recompile_limit": 7, "on_failure": on_failure}},
        "3": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 1, "tokens": 8, "dim": 4096, "scale": 1.0}},
        "4": {"class_type": "EmptyHunyuanLatentVideo", "inputs": {"width": 32, "height": 32, "length": 1,
                                                                  "batch_size": 1}},
        "5": {"class_type": "KSampler", "inputs": {"model": ["2", 0], "seed": 0, "steps": 2, "cfg": 1.0,
                                                   "sampler_name": "euler", "scheduler": "simple", "positive": ["3", 0],
                                                   "negative": ["3", 0], "latent_image": ["4", 0], "denoise": 1.0}},
        "6": {"class_type": "SaveLatent", "inputs": {"samples": ["5", 0], "filename_prefix": "compile_backend/out"}},
        "7": {"class_type": "PreviewAny", "inputs": {"source": ["2", 1]}},
    }


def test_backend_failing_at_run_time_falls_back_in_a_prompt(M, comfy, mod, monkeypatch, caplog):
    """A registered backend whose compile fails on the first sampling step: with on_failure 'fall back' the prompt
    succeeds and the log says the model runs eager and why; with 'error' the prompt stops with an error naming the
    node. Through ComfyUI's executor with the node (its backend list: inductor, made to fail here)."""
    import torch._inductor.compile_fx

    from accel_harness.executor import run_prompt

    M.write_wan(comfy / "models" / "diffusion_models" / "compile_backend_wan.safetensors", dtype=torch.float32)

    def broken(gm, example_inputs, **kw):
        raise RuntimeError("simulated backend failure at run time")

    monkeypatch.setattr(torch._inductor.compile_fx, "compile_fx", broken)  # what torch.compile's inductor calls
    monkeypatch.setattr(mod("accel.compile.apply"), "preflight_problem", lambda model, cfg: None)  # no compiler check
    caplog.set_level(logging.WARNING, logger="comfyui-accel")
    _, hist = run_prompt(_compile_prompt("compile_backend_wan.safetensors", "fall back"))
    assert "compile: mode default (inductor)" in hist["outputs"]["7"]["text"][0]
    lines = [r.getMessage() for r in caplog.records if "runs eager from now on" in r.getMessage()]
    assert lines and "simulated backend failure at run time" in lines[0], [r.getMessage() for r in caplog.records]
    with pytest.raises(RuntimeError) as e:
        run_prompt(_compile_prompt("compile_backend_wan.safetensors", "error"))
    assert "[Accel Compile]" in str(e.value) and "simulated backend failure at run time" in str(e.value)


def test_model_errors_are_not_hidden_by_fallback(wan, C):
    """If the eager re-run fails too, the model (not the compiler) is at fault: its error surfaces."""
    m, _ = C.apply_compile(wan, backend="eager")
    x, ctx = inputs()
    with pytest.raises(Exception) as e:
        forward(m, x, ctx[:, :, :100])  # wrong text width: the model itself fails
    assert "AccelError" not in type(e.value).__name__
    assert not C.compile_status(m)["fell_back"]


class _ModelFault(RuntimeError):
    """A model's own transient error (a test model that raises once)."""


_FAULT = {"now": False}  # a module global: dynamo guards it (what transformer_options holds is not guarded)


def _fault():
    if _FAULT["now"]:
        _FAULT["now"] = False
        raise _ModelFault("forced failure at call 2")


@pytest.mark.parametrize("where", ["in a compiled block", "outside the blocks"])
def test_a_models_own_error_under_compile_is_raised_not_a_fallback(wan, C, where, caplog):
    """A model that raises once (its own transient error, on its second call), inside a compiled block (its attention)
    or outside the compiled blocks (a DIFFUSION_MODEL wrapper). The compile wrapper took the error for a compile
    failure: it ran the call again eagerly (which passed), so the error was lost, and kept the model eager until ComfyUI
    restarts. Now the error is the model's: raised as the model raised it, no eager re-run, compile stays on and the
    next call runs compiled. (Only failures of dynamo, a backend, inductor or compiled code fall back.)"""
    import comfy.patcher_extension as pe

    if where == "in a compiled block":
        def override(func, *args, **kwargs):
            _fault()
            return sdpa_override(func, *args, **kwargs)

        model = with_override(wan, override)
    else:
        def wrapper(executor, *args, **kwargs):
            _fault()
            return executor(*args, **kwargs)

        model = wan.clone()
        model.add_wrapper_with_key(pe.WrappersMP.DIFFUSION_MODEL, "test.fault", wrapper)
    caplog.set_level(logging.WARNING, logger="comfyui-accel")
    x, ctx = inputs()
    ref = forward(model, x, ctx)
    m, _ = C.apply_compile(model, backend="eager")
    assert _close(forward(m, x, ctx), ref)
    _FAULT["now"] = True
    with pytest.raises(_ModelFault, match="forced failure at call 2"):
        forward(m, x, ctx)
    st = C.compile_status(m)
    assert not st["fell_back"] and st["mode"] == "default" and not st["failures"], st
    assert _close(forward(m, x, ctx), ref)  # the next call: compiled, right
    st = C.compile_status(m)
    assert st["calls"] == 2 and st["graphs"] >= 1 and not st["fell_back"], st
    assert not [r for r in caplog.records if "compile" in r.getMessage() and "eager" in r.getMessage()]


def test_preflight_missing_compiler_is_reported_without_compiling(wan, C, mod, monkeypatch):
    hw = mod("accel.common.hardware")
    real = hw.profile()
    monkeypatch.setattr(hw, "profile", lambda refresh=False: real.replace(c_compiler=None))
    m, report = C.apply_compile(wan, backend="inductor")
    assert "EAGER" in report and "C/C++ compiler" in report
    g0 = graphs()
    x, ctx = inputs()
    assert _close(forward(m, x, ctx), forward(wan, x, ctx)) and graphs() == g0
    with pytest.raises(mod("accel.common.errors").AccelError):
        C.apply_compile(wan.clone(), backend="inductor", policy="error", mode="max-autotune")


# ------------------------------------------------------------------------------------------------ attention

def test_attention_override_in_either_order_never_stale(M, C):
    base = M.wan_model(dtype=torch.float32, seed=1)
    x, ctx = inputs()
    ref_a = forward(with_override(base, sdpa_override), x, ctx)
    ref_b = forward(with_override(base, half_key_override), x, ctx)
    assert not _close(ref_a, ref_b, 1e-3)

    compiled, _ = C.apply_compile(with_override(base, sdpa_override), backend="eager")  # attention, then compile
    assert _close(forward(compiled, x, ctx), ref_a)
    b_after = with_override(compiled, half_key_override)  # compile, then another attention backend
    assert _close(forward(b_after, x, ctx), ref_b), "the compiled code must not keep the old attention"
    g0 = graphs()
    assert _close(forward(compiled, x, ctx), ref_a)  # back to A: its compiled code is reused
    assert _close(forward(b_after, x, ctx), ref_b)
    assert graphs() == g0

    # the attention node re-executed (new closure / partial / deep-copied object): same kernel, no recompile
    def make_closure(scale):
        def ov(func, q, k, v, *args, **kwargs):
            from comfy.ldm.modules.attention import attention_pytorch

            return attention_pytorch(q, k * scale, v, *args, **kwargs)
        return ov

    class Obj:
        def __init__(self, scale):
            self.scale = scale

        def __call__(self, func, q, k, v, *args, **kwargs):
            return half_key_override(func, q, k, v, *args, **kwargs)

    for make in (make_closure, lambda s: functools.partial(half_key_override), lambda s: copy.deepcopy(Obj(s))):
        first = with_override(compiled, make(0.5))
        assert _close(forward(first, x, ctx), ref_b)
        g1 = graphs()
        again = with_override(compiled, make(0.5))
        assert _close(forward(again, x, ctx), ref_b)
        assert graphs() == g1, make
    other = with_override(compiled, make_closure(1.0))  # same code, different captured value: a new variant
    assert _close(forward(other, x, ctx), ref_a)


def test_with_the_packs_attention_node_in_either_order(M, C, mod):
    """The real Accel Attention override (an immutable object with __slots__): each backend gets its own
    compiled code; re-running the attention node (a new override object, same backend) reuses it."""
    A = mod("accel.attention.override")
    base = M.wan_model(dtype=torch.float32, seed=1)
    x, ctx = inputs()
    attn, _ = A.apply_attention(base, "sdpa")
    ov = attn.model_options["transformer_options"][A.OVERRIDE_KEY]
    sig = mod("accel.compile.signature").options_signature({A.OVERRIDE_KEY: ov}, "blocks")
    assert "sdpa" in sig
    again, _ = A.apply_attention(base, "sdpa")  # the attention node re-executed
    again_ov = again.model_options["transformer_options"][A.OVERRIDE_KEY]
    assert mod("accel.compile.signature").options_signature({A.OVERRIDE_KEY: again_ov}, "blocks") == sig
    assert mod("accel.compile.signature").options_signature({A.OVERRIDE_KEY: copy.deepcopy(ov)}, "blocks") == sig
    math_m, _ = A.apply_attention(base, "sdpa_math")
    if math_m.model_options["transformer_options"].get(A.OVERRIDE_KEY) is not None:
        math_ov = math_m.model_options["transformer_options"][A.OVERRIDE_KEY]
        other = mod("accel.compile.signature").options_signature({A.OVERRIDE_KEY: math_ov}, "blocks")
        assert other != sig, "two attention backends must never share compiled code"

    ref = forward(attn, x, ctx)
    first, _ = C.apply_compile(attn, backend="eager")  # attention, then compile
    assert _close(forward(first, x, ctx), ref)
    g0 = graphs()
    second, _ = A.apply_attention(C.apply_compile(base, backend="eager")[0], "sdpa")  # compile, then attention
    assert _close(forward(second, x, ctx), ref)
    assert graphs() == g0, "same attention backend, same settings: the compiled graph is reused"


# ------------------------------------------------------------------------------------------------ misc

def test_whole_model_scope_and_core_wrapper_replaced(wan, C):
    import comfy.patcher_extension as pe
    from comfy_api.torch_helpers import set_torch_compile_wrapper

    x, ctx = inputs()
    ref = forward(wan, x, ctx)
    core = wan.clone()
    set_torch_compile_wrapper(core, backend="eager")
    m, report = C.apply_compile(core, scope="model", backend="eager")
    assert not m.get_wrappers(pe.WrappersMP.APPLY_MODEL, "torch.compile"), "core's wrapper must be replaced"
    assert "whole diffusion model" in report
    assert _close(forward(m, x, ctx), ref)
    st = C.compile_status(m)
    assert st["regions"] == 1 and st["graphs"] >= 1 and not st["fell_back"]


def test_whole_model_keeps_eager_roundings_outside_the_blocks(M, C, mod, monkeypatch):
    """Flux.1's whole model as one region (scope model) deviated from stock on an H200 (final-latent cosine 0.9527,
    bench/results/h200/family_033_flux_1024_model_scope_shared/): ComfyUI hands the model its guidance in bf16, stock's
    1000 * 3.5 rounds to 3504 there, and inductor's fused kernel kept 3500, so the guidance embedding moved. A
    whole-model region now compiles with eager's roundings kept: on the CPU, in bf16, through ComfyUI's sampler, its
    result matches stock's; with inductor's default roundings (what ran on the H200, and what a torch without the
    option gives) it does not, and the report says so and what to change. The blocks keep inductor's default."""
    import torch._dynamo

    flux = M.tiny_flux(dtype=torch.bfloat16)
    g = torch.Generator().manual_seed(3)
    pos = [[torch.randn(1, 8, 64, generator=g), {"pooled_output": torch.randn(1, 32, generator=g), "guidance": 3.5}]]
    neg = [[torch.randn(1, 8, 64, generator=g), {"pooled_output": torch.randn(1, 32, generator=g), "guidance": 3.5}]]
    lat = {"samples": torch.zeros(1, 16, 16, 16)}

    def cos(a, b):
        return torch.nn.functional.cosine_similarity(a.flatten().double(), b.flatten().double(), 0).item()

    ref = M.sample(flux, pos, neg, lat, steps=2, cfg=1.0)
    torch._dynamo.reset()
    runners = mod("accel.compile.runners")
    m, report = C.apply_compile(flux, scope="model", backend="inductor")
    assert "  " + runners.KEPT_CASTS in report, report
    kept = cos(M.sample(m, pos, neg, lat, steps=2, cfg=1.0), ref)
    torch._dynamo.reset()
    assert "roundings:" not in C.apply_compile(flux, scope="blocks", backend="inductor")[1]
    # a torch whose inductor cannot keep them: inductor's default roundings; the report says so and what to change
    real = runners.inductor_has
    monkeypatch.setattr(runners, "inductor_has", lambda name: name != "emulate_precision_casts" and real(name))
    m, report = C.apply_compile(flux, scope="model", backend="inductor")
    assert "  " + runners.NO_CASTS in report and "set scope to blocks" in runners.NO_CASTS, report
    default = cos(M.sample(m, pos, neg, lat, steps=2, cfg=1.0), ref)
    torch._dynamo.reset()
    assert kept > 0.9999 and default < 0.999, (kept, default)


def test_dynamic_patcher_kept_or_clear_error(wan, C, mod, monkeypatch):
    """ComfyUI 0.33 DynamicVRAM: where ComfyUI has the block-fetch API, the compiled model stays dynamic
    (the report says so). Where it has not, the model is cloned with disable_dynamic=True, which raises a
    bare RuntimeError for a patcher whose loader set no cached_patcher_init (custom loaders): the node
    turns that into an AccelError naming the node, the input and the remedy."""
    import inspect

    if "disable_dynamic" not in inspect.signature(wan.clone).parameters:
        pytest.skip("this ComfyUI has no DynamicVRAM patchers (clone() takes no disable_dynamic): runs in CI on the "
                    "ComfyUI 0.33 main bed (scripts/test.sh)")
    compat = mod("accel.comfy_compat")
    dyn = wan.clone()
    dyn.is_dynamic = lambda: True  # what ModelPatcherDynamic reports (it needs a GPU to exist)
    dyn.cached_patcher_init = None
    if compat.block_fetch_support() is None:
        # kept: the clone is a plain one (a disable_dynamic clone of this patcher would raise, see below), and the
        # compiled model computes what the uncompiled one does, with its blocks compiled
        clones = []
        plain_clone = dyn.clone
        monkeypatch.setattr(dyn, "clone", lambda *a, **kw: clones.append(kw) or plain_clone(*a, **kw), raising=False)
        m, report = C.apply_compile(dyn, backend="eager")
        assert clones and not any(kw.get("disable_dynamic") for kw in clones), clones
        assert "DynamicVRAM kept" in report
        x, ctx = inputs()
        assert _close(forward(m, x, ctx), forward(wan, x, ctx))
        st = C.compile_status(m)
        assert st["regions"] > 1 and st["graphs"] >= 1 and not st["fell_back"], st
        monkeypatch.undo()
    monkeypatch.setattr(compat, "block_fetch_support", lambda: "no block-fetch API (test)")
    with pytest.raises(RuntimeError) as core:  # the core behaviour this guards against
        dyn.clone(disable_dynamic=True)
    assert not isinstance(core.value, mod("accel.common.errors").AccelError)
    with pytest.raises(mod("accel.common.errors").AccelError) as e, mod("accel.common.errors").titled("Accel Compile"):
        C.apply_compile(dyn, backend="eager")
    msg = str(e.value)
    assert "[Accel Compile]" in msg and "'model'" in msg and "--disable-dynamic-vram" in msg


def test_resident_weights_load_a_model_that_fits_without_dynamicvram(M, wan, C, mod, monkeypatch):
    """resident_weights on: a DynamicVRAM model (ComfyUI 0.33) that fits the card is cloned with disable_dynamic=True,
    re-created through its loader's cached_patcher_init (as for CUDA graphs and core's TorchCompileModel), so no block
    fetches its weights per call; the report's memory line says why. One that does not fit, or whose loader cannot
    re-create it, keeps streaming and the line says why not; off, nothing changes. Each computes what the uncompiled
    model does. A value that is not on or off is refused naming the input."""
    import inspect

    if "disable_dynamic" not in inspect.signature(wan.clone).parameters:
        pytest.skip("this ComfyUI has no DynamicVRAM patchers (clone() takes no disable_dynamic): runs in CI on the "
                    "ComfyUI 0.33 main bed (scripts/test.sh)")
    compat, apply_ = mod("accel.comfy_compat"), mod("accel.compile.apply")
    monkeypatch.setattr(compat, "block_fetch_support", lambda: None)  # this ComfyUI's block-fetch API (a GPU's)
    recreated = []

    def dynamic(init=True):
        return M.as_dynamic(wan, recreated, reloadable=init)

    x, ctx = inputs()
    ref = forward(wan, x, ctx)
    fits = [True, "the model fits: 1.0 GiB of weights + 1.0 GiB to sample <= 9.0 GiB free"]
    monkeypatch.setattr(apply_, "_fits", lambda model: tuple(fits))
    # the gain line quotes the resident chain's figure where the model loaded resident and that chain was measured for
    # this kind of model and GPU (Z-Image, Flux.1 on the H200), else the exact chain's
    gains = mod("accel.common.gains")
    monkeypatch.setattr(gains, "measured", lambda chain, fam, prof: "a row" if chain == gains.RESIDENT else None)
    monkeypatch.setattr(gains, "gain_line", lambda chain, fam, prof: f"gain: the {chain} chain's row")
    m, report = C.apply_compile(dynamic(), backend="eager", resident=True)
    assert recreated == [True]
    assert "memory: DynamicVRAM OFF for this model (resident_weights on, and the model fits" in report, report
    assert report.splitlines()[0].endswith("weights resident (DynamicVRAM off for this model)"), report
    assert report.splitlines()[1] == "gain: the resident chain's row", report
    assert not compat.patcher_is_dynamic(m)
    assert _close(forward(m, x, ctx), ref)

    fits[:] = [False, "the model does not fit: 20.0 GiB of weights + 4.0 GiB to sample > 9.0 GiB free"]
    m, report = C.apply_compile(dynamic(), backend="eager", resident=True)
    assert recreated == [True]
    assert "DynamicVRAM kept" in report and "resident_weights: kept streaming: the model does not fit" in report
    assert report.splitlines()[0].endswith("weights streamed by ComfyUI (resident_weights not applied: the model does "
                                           "not fit; see memory below)"), report
    assert report.splitlines()[1] == "gain: the exact chain's row", report  # it streamed: not the resident figure
    assert _close(forward(m, x, ctx), ref)

    fits[0] = True
    m, report = C.apply_compile(dynamic(init=False), backend="eager", resident=True)
    assert recreated == [True] and "resident_weights: kept streaming: its loader cannot re-create it" in report
    assert report.splitlines()[0].endswith("(resident_weights not applied: its loader cannot re-create it without "
                                           "DynamicVRAM; see memory below)"), report

    m, report = C.apply_compile(dynamic(), backend="eager")  # off: as before
    assert recreated == [True] and "DynamicVRAM kept" in report and "resident_weights" not in report
    assert "weights streamed" not in report.splitlines()[0]
    assert _close(forward(m, x, ctx), ref)

    with pytest.raises(mod("accel.common.errors").AccelError) as e:
        C.apply_compile(dynamic(), backend="eager", resident="yes")
    assert "resident_weights" in str(e.value)


def test_comfyui_resident_load_rounds_a_mixed_plain_fp8_file(M, mod):
    """ComfyUI's own loader, the premise of the check below: a plain `*_fp8_e4m3fn` file whose block weights are
    float8 and whose other tensors are 16-bit, loaded in a float8 weight dtype. The legacy patcher (what
    `clone(disable_dynamic=True)` re-creates: resident loading, CUDA graphs, core's TorchCompileModel) copies every
    tensor into layers built in that dtype, rounding the 16-bit ones; DynamicVRAM assigns them as stored
    (`load_model_weights(assign=True)`). `legacy_load_rounds` counts the tensors the copy would round in the assigned
    model, and none once they are float8; a 16-bit model has none to round."""
    import comfy.sd

    compat = mod("accel.comfy_compat")
    fp8 = torch.float8_e4m3fn
    sd = M.comfy_plain_fp8(M.wan_state_dict(dtype=torch.bfloat16, seed=2))
    wider = {k for k, v in sd.items() if v.dtype != fp8 and v.is_floating_point()}
    assert wider and any(v.dtype == fp8 for v in sd.values())
    legacy = comfy.sd.load_diffusion_model_state_dict(dict(sd), model_options={"dtype": fp8})
    assert not compat.patcher_is_dynamic(legacy) and legacy.model.get_dtype() == fp8
    dm = dict(legacy.model.diffusion_model.named_parameters())
    k = next(k for k in sorted(wider) if k.endswith(".bias") and k in dm)
    assert dm[k].dtype == fp8 and not torch.equal(dm[k].float(), sd[k].float()), "the copy rounded a 16-bit bias"
    assert compat.legacy_load_rounds(legacy) is None  # what is float8 already has nothing left to round

    legacy.model.load_model_weights(dict(sd), "", assign=True)  # as ComfyUI 0.33 loads a DynamicVRAM model
    n, dtype = compat.legacy_load_rounds(legacy)
    assert dtype == "float8_e4m3fn" and 0 < n <= len(wider), (n, len(wider))
    assert compat.legacy_load_rounds(M.wan_model(dtype=torch.bfloat16)) is None


def test_resident_load_refused_where_it_would_round_the_file(M, wan, C, mod, monkeypatch):
    """resident_weights on, CUDA graphs or one region over the whole model, on a DynamicVRAM model that fits, whose
    file mixes float8 and wider tensors: ComfyUI's resident load would round the wider ones to float8 (the test
    above), another image than stock's, so the model keeps streaming, the report's memory line says why, and its
    output stays the uncompiled model's."""
    import inspect

    if "disable_dynamic" not in inspect.signature(wan.clone).parameters:
        pytest.skip("this ComfyUI has no DynamicVRAM patchers (clone() takes no disable_dynamic): runs in CI on the "
                    "ComfyUI 0.33 main bed (scripts/test.sh)")
    compat, apply_ = mod("accel.comfy_compat"), mod("accel.compile.apply")
    monkeypatch.setattr(compat, "block_fetch_support", lambda: None)
    monkeypatch.setattr(apply_, "_fits", lambda model: (True, "the model fits: 1.0 GiB of weights"))
    # what legacy_load_rounds finds in such a file (the test above, on ComfyUI's loader); this model samples as it is
    n = 7
    monkeypatch.setattr(compat, "legacy_load_rounds",
                        lambda model: (n, "float8_e4m3fn") if model.model is wan.model else None)
    recreated = []
    x, ctx = inputs()
    ref = forward(wan, x, ctx)
    for kw, wants in (({"resident": True}, "resident_weights: kept streaming"),
                      ({"scope": "model"}, "kept streaming"), ({"cuda_graphs": "on"}, "CUDA graphs do not run on it")):
        m, report = C.apply_compile(M.as_dynamic(wan, recreated), backend="eager", **kw)
        assert recreated == [], kw  # not re-created: the clone streams as the model did
        assert (f"{wants}: this file mixes float8_e4m3fn with wider tensors, and ComfyUI's resident load would round "
                f"{n} of them to float8_e4m3fn") in report, report
        assert "DynamicVRAM kept" in report
        # the first line says the input was not applied, and why (scope model: no input asked for resident weights)
        head = {"resident": "resident_weights", "cuda_graphs": "CUDA graphs"}.get(next(iter(kw)))
        first = report.splitlines()[0]
        if head:
            assert first.endswith(f"({head} not applied: this file mixes float8_e4m3fn with wider tensors, and "
                                  f"ComfyUI's resident load would round {n} of them to float8_e4m3fn; see memory "
                                  "below)"), report
        else:
            assert "not applied" not in first, report
        assert _close(forward(m, x, ctx), ref)


def test_one_region_over_the_whole_model_loads_resident_where_it_fits(M, wan, C, mod, monkeypatch):
    """A compiled region that is the whole diffusion model (SDXL's UNet; scope model) would fetch every weight before
    any of its compute, with nothing to overlap the fetch with (slower than stock on SDXL:
    bench/results/h200/family_033_sdxl/): a DynamicVRAM model that fits is cloned with disable_dynamic=True without
    resident_weights, and the report's memory line says why; one that does not fit keeps streaming and the line says
    what that costs. Per-block regions are unchanged (they fetch one block's weights while the block before
    computes)."""
    import inspect

    if "disable_dynamic" not in inspect.signature(wan.clone).parameters:
        pytest.skip("this ComfyUI has no DynamicVRAM patchers (clone() takes no disable_dynamic): runs in CI on the "
                    "ComfyUI 0.33 main bed (scripts/test.sh)")
    compat, apply_ = mod("accel.comfy_compat"), mod("accel.compile.apply")
    monkeypatch.setattr(compat, "block_fetch_support", lambda: None)
    recreated = []

    def dynamic():
        return M.as_dynamic(wan, recreated)

    x, ctx = inputs()
    ref = forward(wan, x, ctx)
    fits = [True, "the model fits: 1.0 GiB of weights + 1.0 GiB to sample <= 9.0 GiB free"]
    monkeypatch.setattr(apply_, "_fits", lambda model: tuple(fits))
    m, report = C.apply_compile(dynamic(), backend="eager", scope="model")
    assert recreated == [True] and not compat.patcher_is_dynamic(m)
    assert ("memory: DynamicVRAM OFF for this model (the whole model is one compiled region, which would fetch all "
            "its weights before it computes, and the model fits") in report, report
    assert _close(forward(m, x, ctx), ref)

    fits[:] = [False, "the model does not fit: 20.0 GiB of weights + 4.0 GiB to sample > 9.0 GiB free"]
    m, report = C.apply_compile(dynamic(), backend="eager", scope="model")
    assert recreated == [True]  # not re-created: the clone streams as the model did
    assert ("DynamicVRAM kept" in report and "the whole model is one compiled region, which fetches all its weights "
            "before it computes (slower than stock while it streams): kept streaming: the model does not fit") in report
    assert _close(forward(m, x, ctx), ref)

    fits[0] = True  # per-block regions: streaming kept, nothing re-created
    m, report = C.apply_compile(dynamic(), backend="eager", scope="blocks")
    assert recreated == [True] and "DynamicVRAM kept" in report and "one compiled region" not in report


def test_run_lines_name_the_allocator_flag_where_weights_streamed_under_cudamallocasync(mod):
    """After a run whose compiled blocks streamed their weights (prefetch counted streamed block calls) under PyTorch's
    cudaMallocAsync, the report names ComfyUI's --disable-cuda-malloc with the figure measured for it (the shipped Wan
    2.2 graph on a 12 GB card, from its result file); not under PyTorch's own allocator, not where nothing streamed."""
    R, F = mod("accel.compile.report"), mod("accel.common.figures")
    base = {"enabled": True, "fell_back": False, "calls": 0, "prefetch": {"streamed_blocks": 20, "line": "weights: x"}}
    lines = R.run_lines({**base, "allocator": "cudaMallocAsync"})
    hint = [line for line in lines if "--disable-cuda-malloc" in line]
    without = F.fig("e2eflag.h200.12.shipped.later.total")
    with_ = F.fig("e2eflag.h200.12.shipped_nocm.later.total")
    assert hint == [R.allocator_hint()] and hint[0].startswith("for more: "), lines
    assert f"from {without.text} to {with_.text}" in hint[0] and with_.file in hint[0] and with_.value < without.value
    assert not any("--disable-cuda-malloc" in line for line in R.run_lines({**base, "allocator": "native"}))
    resident = {**base, "allocator": "cudaMallocAsync", "prefetch": {"streamed_blocks": 0, "line": "weights: y"}}
    assert not any("--disable-cuda-malloc" in line for line in R.run_lines(resident))
