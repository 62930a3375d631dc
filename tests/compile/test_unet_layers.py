"""Accel Compile on a UNet (SDXL), inside a real ComfyUI sampling a tiny SDXL on the CPU: each block's attention
(SpatialTransformer) and residual (ResBlock) layers compiled as regions of their own, stood in for by regions of the
layer's own class (ComfyUI's walk, `forward_timestep_embed`, calls each layer with arguments chosen by `isinstance`).

Dynamo runs with backend "eager" (tracing, guards and recompiles are dynamo's; identical for inductor). Attention runs
through ComfyUI's attention_pytorch (SDPA) override, as in tests/compile/test_compile.py: on the CPU ComfyUI's default
attention calls psutil and breaks graphs. fp32: the compiled output equals the eager one within 1e-4 of its scale.
"""
import pytest
import torch

pytestmark = pytest.mark.usefixtures("fresh_dynamo")

TOL = 1e-4


@pytest.fixture
def sdxl(M):
    return M.with_sdpa(M.tiny_sdxl(seed=1))


def run(M, model, side=64, steps=3):
    pos, neg, lat = M.sdxl_inputs(side)
    return M.sample(model, pos, neg, lat, steps=steps, cfg=5.0, seed=0)


def close(a, b):
    return float((a - b).abs().max()) <= TOL * max(1.0, float(b.abs().max()))


def layer_types_during_call(M, model):
    """The classes of the UNet's layers while the compiled model runs, and whether ComfyUI's walk still sees each as
    its own type (a ResBlock stand-in must be a TimestepBlock, a SpatialTransformer's a SpatialTransformer)."""
    from comfy.ldm.modules.attention import SpatialTransformer
    from comfy.ldm.modules.diffusionmodules.openaimodel import ResBlock

    seen = []
    dm = model.model.diffusion_model
    orig = type(dm).forward

    def spy(self, *a, **k):
        for seq in list(self.input_blocks) + [self.middle_block] + list(self.output_blocks):
            for layer in seq:
                if "Region" in type(layer).__name__:
                    seen.append((type(layer).__name__, isinstance(layer, (ResBlock, SpatialTransformer))))
        return orig(self, *a, **k)

    type(dm).forward = spy
    try:
        run(M, model, steps=1)
    finally:
        type(dm).forward = orig
    return seen


def test_sdxl_layers_are_the_regions(mod, M, C, sdxl):
    """The regions are each block's attention and residual layers, in forward order, named in the report; the
    stand-ins are instances of the layer's own class while the model runs."""
    families = mod("accel.common.families")
    fam = families.detect(sdxl)
    assert fam.block_keys == [f"diffusion_model.{k}" for k in (
        "input_blocks.1.0", "input_blocks.3.0", "input_blocks.3.1", "middle_block.0", "middle_block.1",
        "middle_block.2", "output_blocks.0.0", "output_blocks.0.1", "output_blocks.1.0", "output_blocks.1.1",
        "output_blocks.2.0", "output_blocks.3.0")]
    assert fam.dims == {"attention": 4, "residual": 8}
    m, report = C.apply_compile(sdxl, backend="eager")
    assert ("scope 12 layers of SDXL (4 attention, 8 residual; SDXL is a UNet whose blocks ComfyUI walks layer by "
            "layer)") in report, report
    seen = layer_types_during_call(M, m)
    assert len(seen) == 12 and all(ok for _, ok in seen), seen
    assert {n for n, _ in seen} == {"_Region_ResBlock", "_Region_SpatialTransformer"}
    assert C.compile_status(m)["regions"] == 12


def test_sdxl_layers_compiled_match_eager_and_a_new_size_recompiles_once(M, C, sdxl):
    """Compiled == eager; a new resolution recompiles (dynamo marks the changed sizes dynamic), a third one does not;
    no graph breaks; the whole-model scope still compiles one region."""
    ref = run(M, sdxl)
    m = C.apply_compile(sdxl, backend="eager")[0]
    assert close(run(M, m), ref)
    st = C.compile_status(m)
    assert st["graph_breaks"] == 0 and st["recompiles"] == 0 and st["graphs"] > 0, st
    first = st["graphs"]
    assert close(run(M, m, side=96, steps=2), run(M, sdxl, side=96, steps=2))
    st = C.compile_status(m)
    assert st["recompiles"] > 0, st
    n = st["graphs"]
    assert n > first
    assert close(run(M, m, side=128, steps=2), run(M, sdxl, side=128, steps=2))
    assert C.compile_status(m)["graphs"] == n  # the third size runs the dynamic graphs: nothing compiled

    whole, report = C.apply_compile(sdxl, backend="eager", scope="model")
    assert "scope whole diffusion model (SDXL)" in report
    assert close(run(M, whole), ref) and C.compile_status(whole)["regions"] == 1


def test_sdxl_whole_unet_static_per_size_and_the_layers_hint(M, C, mod, sdxl):
    """The shipped SDXL workflow's setting (scope model, dynamic false): one static graph per size, so a new size
    compiles one more graph, a third size one more again (no dynamic graph), and a size seen before none. The layers'
    first screen points at scope model with the measured times; scope model's does not."""
    families, figs = mod("accel.common.families"), mod("accel.common.figures")
    ref = run(M, sdxl)
    m, report = C.apply_compile(sdxl, backend="eager", scope="model", dynamic="false")
    assert "for more, where the size stays" not in report
    assert close(run(M, m), ref)
    counts = [C.compile_status(m)["graphs"]]
    for side in (96, 128, 64):
        assert close(run(M, m, side=side, steps=2), run(M, sdxl, side=side, steps=2))
        counts.append(C.compile_status(m)["graphs"])
    assert counts[0] > 0 and counts[1] == counts[0] + 1 and counts[2] == counts[1] + 1 and counts[3] == counts[2], \
        counts
    _, layers = C.apply_compile(sdxl, backend="eager")
    hint = next(x for x in layers.splitlines() if x.startswith("for more, where the size stays: scope model"))
    assert figs.text("sdxlsdpa.h200.model_scope.time") in hint and figs.text("sdxlsdpa.h200.layers.time") in hint
    assert hint.endswith(families.UNET_MODEL_SCOPE["sdxl"])


def test_sdxl_gain_line_follows_the_scope(M, C, mod, monkeypatch, sdxl):
    """On an H200 the first screen quotes the figure measured for the scope that runs: the layers' for scope blocks,
    the whole UNet's for scope model."""
    hw, figs = mod("accel.common.hardware"), mod("accel.common.figures")
    real = hw.profile()
    monkeypatch.setattr(hw, "profile", lambda refresh=False: real.replace(gpu_name="NVIDIA H200"))
    lines = {scope: next(x for x in C.apply_compile(sdxl, backend="eager", scope=scope)[1].splitlines()
                         if x.startswith("gain: ")) for scope in ("blocks", "model")}
    assert lines["blocks"].startswith(f"gain: {figs.text('sdxlsdpa.h200.layers.speedup')} vs stock"), lines
    assert lines["model"].startswith(f"gain: {figs.text('sdxlkept.h200.model_scope.speedup')} vs stock"), lines
    assert "with scope model" in lines["model"] and "scope model" not in lines["blocks"]


def test_sdxl_layers_load_resident_where_they_fit(M, C, mod, monkeypatch, sdxl):
    """SDXL's compiled layers streaming their weights ran slower than stock (each fetch with little compute beside it:
    bench/results/h200/family_033_sdxl/README.md): a DynamicVRAM UNet that fits is re-created without DynamicVRAM, as
    one region over the whole model is; one that does not fit keeps streaming and the report says what that costs."""
    import inspect

    if "disable_dynamic" not in inspect.signature(sdxl.clone).parameters:
        pytest.skip("this ComfyUI has no DynamicVRAM patchers (clone() takes no disable_dynamic): runs in CI on the "
                    "ComfyUI 0.33 main bed (scripts/test.sh)")
    compat, apply_ = mod("accel.comfy_compat"), mod("accel.compile.apply")
    monkeypatch.setattr(compat, "block_fetch_support", lambda: None)
    recreated = []

    def dynamic():
        return M.as_dynamic(sdxl, recreated)

    ref = run(M, sdxl)
    fits = [True, "the model fits: 1.0 GiB of weights + 1.0 GiB to sample <= 9.0 GiB free"]
    monkeypatch.setattr(apply_, "_fits", lambda model: tuple(fits))
    m, report = C.apply_compile(dynamic(), backend="eager")
    assert recreated == [True] and not compat.patcher_is_dynamic(m)
    assert ("memory: DynamicVRAM OFF for this model (its compiled UNet layers ran slower than stock while they "
            "streamed their weights, and the model fits") in report, report
    assert close(run(M, m), ref)

    fits[:] = [False, "the model does not fit: 20.0 GiB of weights + 4.0 GiB to sample > 9.0 GiB free"]
    m, report = C.apply_compile(dynamic(), backend="eager")
    assert recreated == [True]  # kept: the clone streams as the model did
    assert ("DynamicVRAM kept" in report and "its compiled UNet layers run slower than stock while they stream their "
            "weights: kept streaming: the model does not fit") in report, report
    assert close(run(M, m), ref)


def test_sdxl_layers_with_a_per_block_attention_patch(M, C, sdxl):
    """A patch on one block's cross-attention (IPAdapter's way: `set_model_attn2_replace` for input block 3) runs in
    that block only, compiled as eager: the patched runner keeps the guard on the block ComfyUI's walk names."""
    def half_query(q, k, v, extra_options):
        return q * 0.5

    patched = sdxl.clone()
    patched.set_model_attn2_replace(half_query, "input", 3)
    ref, plain = run(M, patched), run(M, sdxl)
    assert not close(ref, plain)  # the patch changes the output
    m = C.apply_compile(patched, backend="eager")[0]
    assert close(run(M, m), ref)
    unpatched = C.apply_compile(sdxl, backend="eager")[0]  # the same layers without the patch: their own runner
    assert close(run(M, unpatched), plain)


def test_patched_runner_keeps_the_block_guard(D, mod):
    """The guard filter of a runner with patches inside keeps the guards on `block` and `transformer_index` (ComfyUI's
    UNet walk sets them outside a compiled layer; its block reads them to find its patch); the plain one drops
    them (they change per layer, and without patches nothing reads them)."""
    if not D.guard_filter_supported():
        pytest.skip("this torch has no guard_filter_fn")
    runners = mod("accel.compile.runners")
    assert runners._has_patches("attn=x|replace=attn2:('input', 3)=f") and not runners._has_patches("attn=x")

    def layer(x, transformer_options):
        return x * 2 if transformer_options.get("block") == ("input", 3) else x * 3

    for gf, graphs_after in ((runners._guard_filter_patched, 2), (runners._guard_filter, 1)):
        torch._dynamo.reset()
        n0 = D.unique_graphs()
        g = torch.compile(layer, backend="eager", dynamic=False, options={"guard_filter_fn": gf})
        x = torch.ones(2)
        assert g(x, transformer_options={"block": ("input", 3)})[0] == 2
        out = g(x, transformer_options={"block": ("middle", 0)})[0]
        assert D.unique_graphs() - n0 == graphs_after
        assert out == (3 if graphs_after == 2 else 2)  # dropped: the first layer's graph served the second


@pytest.fixture
def D(mod):
    return mod("accel.compile.dynamo_compat")
