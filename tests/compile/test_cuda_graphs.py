"""Accel Compile's CUDA-graph path (accel.compile.graphs) through a real ComfyUI sampling tiny Z-Image and SDXL on
the CPU: when a call is captured, replayed, dropped and run compiled instead.

No GPU records graphs here: accel_harness.graph_emulation stands in for torch.cuda.CUDAGraph. Its replays compute on
the captured call's static inputs and arguments, with the model's tensors as they were at capture, so a call whose
key misses what changed, or weights that moved without the graphs being dropped, give a wrong output; every test
compares with the same model run through the compiled blocks without graphs (cuda_graphs off). The real capture
(host syncs, memory) is what bench/graph_check.py runs on a GPU. Dynamo runs with backend "eager" (tracing and
guards are dynamo's; graphs are above the compiled blocks).
"""
import pytest
import torch

import accel_harness as H
from accel_harness.graph_emulation import EmulatedGraphs

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


@pytest.fixture(scope="module")
def G(mod):
    return mod("accel.compile.graphs")


@pytest.fixture
def emu(G):
    G.TEST_BACKEND = e = EmulatedGraphs()
    yield e
    G.TEST_BACKEND = None


@pytest.fixture
def zimage(M):
    return M.with_sdpa(M.tiny_z_image(seed=1))


def z_inputs(side=64, batch=1, seed=1):
    g = torch.Generator().manual_seed(seed)
    pos = [[torch.randn(1, 16, 32, generator=g), {}]]
    neg = [[torch.zeros(1, 16, 32), {}]]
    return pos, neg, {"samples": torch.zeros(batch, 16, side // 8, side // 8)}


def run(M, model, inputs, steps=4, cfg=1.0):
    pos, neg, lat = inputs
    return M.sample(model, pos, neg, lat, steps=steps, cfg=cfg, seed=0)


def both(C, model, **kw):
    """(compiled without graphs, compiled with graphs) clones of `model`."""
    off = C.apply_compile(model, backend="eager", **kw)[0]
    on = C.apply_compile(model, backend="eager", cuda_graphs="on", **kw)[0]
    return off, on


def last_run(C, model):
    return C.compile_status(model)["graph_last_run"]


# ---------------------------------------------------------------------------------- what the graph's inputs are

@pytest.mark.parametrize("family", ["z_image", "sdxl"])
def test_static_inputs_are_on_the_device_where_comfyui_copies_them_inside_the_call(M, G, monkeypatch, family):
    """Oracle: ComfyUI's own `BaseModel._apply_model`. Every tensor of a real model call that it copies to the model's
    device (`cast_to_device`, `convert_tensor`: since ComfyUI 0.33 the conditions reach the call on the CPU) must get a
    static buffer on the device (`Call.cast`), or the capture records a copy from pageable memory, which CUDA refuses
    ("Cannot copy between CPU and CUDA tensors during CUDA graph capture", every family on an H200,
    bench/results/h200/graph_check_033). The other leaves marked so are on the device already; transformer_options'
    tensors are never moved. (On the CPU every device is the CPU: the test checks which leaves, not the copy.)"""
    import comfy.model_base
    import comfy.model_management
    import comfy.patcher_extension

    seen, calls = set(), []  # ids of the tensors ComfyUI cast during the call in progress; (call, those ids)
    cast_to_device, convert_tensor = comfy.model_management.cast_to_device, comfy.model_base.convert_tensor

    def record_cast(tensor, *a, **k):
        seen.add(id(tensor))
        return cast_to_device(tensor, *a, **k)

    def record_convert(extra, *a, **k):
        seen.add(id(extra))
        return convert_tensor(extra, *a, **k)

    monkeypatch.setattr(comfy.model_management, "cast_to_device", record_cast)
    monkeypatch.setattr(comfy.model_base, "convert_tensor", record_convert)

    def wrapper(executor, *args, **kwargs):
        seen.clear()
        call = G.Call(args, kwargs, "")
        out = executor(*args, **kwargs)
        calls.append((call, set(seen)))  # the call's leaves are alive here: their ids are theirs
        return out

    if family == "z_image":
        model, inputs, cfg = M.tiny_z_image(seed=1), z_inputs(), 1.0
    else:
        model, inputs, cfg = M.tiny_sdxl(seed=1), M.sdxl_inputs(), 5.0
    model = model.clone()
    model.add_wrapper_with_key(comfy.patcher_extension.WrappersMP.APPLY_MODEL, "test", wrapper)
    run(M, model, inputs, steps=2, cfg=cfg)
    assert calls
    device = model.load_device
    for call, cast_ids in calls:
        copied = [id(t) in cast_ids for t in call.leaves]
        assert any(copied), "ComfyUI copied none of the call's tensors: the oracle saw nothing"
        missed = [i for i, (c, k) in enumerate(zip(copied, call.cast, strict=True)) if c and not k]
        assert not missed, f"leaves {missed} are copied by ComfyUI inside the call but get a static copy in place"
        for t, c, k in zip(call.leaves, copied, call.cast, strict=True):
            if k and not c:
                assert t.device == device, "a leaf ComfyUI does not copy was moved to the device"
        statics = call.statics(torch.device("meta"))
        assert [s.device.type == "meta" for s in statics] == call.cast
        assert all(s is not t for s, t in zip(statics, call.leaves, strict=True))


# ------------------------------------------------------------------------------------------- replay, lifetime

@pytest.mark.parametrize("family", ["z_image", "sdxl"])
def test_graphs_replay_each_run_and_match_the_compiled_blocks(M, C, mod, emu, family):
    """Run 1: the first call compiles, the second is captured, the rest replay; run 2 captures on its first call (its
    key is compiled already). The graphs go when ComfyUI cleans up after each run. Same output as the compiled blocks
    without graphs, bit for bit; the report's after-run line says what ran."""
    if family == "z_image":
        model, inputs, cfg = M.with_sdpa(M.tiny_z_image(seed=1)), z_inputs(), 1.0
    else:
        model, inputs, cfg = M.with_sdpa(M.tiny_sdxl(seed=1)), M.sdxl_inputs(), 5.0
    off, on = both(C, model)
    want = run(M, off, inputs, cfg=cfg)
    assert torch.equal(run(M, on, inputs, cfg=cfg), want)
    assert last_run(C, on) == {"calls": 4, "replays": 2, "captures": 1, "reason": ""}
    assert (emu.captures, emu.replays, emu.releases) == (1, 2, 1)
    assert torch.equal(run(M, on, inputs, cfg=cfg), want)
    assert last_run(C, on) == {"calls": 4, "replays": 3, "captures": 1, "reason": ""}
    assert (emu.captures, emu.releases) == (2, 2)
    lines = mod("accel.common.live_report").run_lines(on)
    assert any("CUDA graphs: 3 of 4 model calls replayed (1 captured)" in ln for ln in lines), lines


def test_resolution_and_batch_changes_get_their_own_graphs(M, C, emu, zimage):
    """A new resolution, back, and again; then a batch of 2: each run replays graphs of its own shape and matches the
    compiled blocks; the resolution change recompiles once (dynamic="auto" marks the size dynamic), then never."""
    off, on = both(C, zimage)
    recompiles = []
    for side, batch in ((64, 1), (48, 1), (64, 1), (48, 1), (64, 2)):
        inputs = z_inputs(side, batch)
        assert torch.equal(run(M, on, inputs), run(M, off, inputs)), (side, batch)  # `on` first: it compiles
        assert last_run(C, on)["replays"] >= 2, (side, batch, last_run(C, on))
        recompiles.append(C.compile_status(on)["recompiles"])
    assert recompiles[1] <= 1 and recompiles[3] == recompiles[1], recompiles


def test_lora_and_strength_changes(M, C, emu, zimage):
    """A LoRA at strength 1, the same LoRA at 0.5, none: ComfyUI patches each into the weights at load; every run
    replays graphs captured on the weights of that run."""
    import comfy.sd

    lora = M.lora_for(zimage, ["layers.0.attention.qkv", "layers.1.feed_forward.w2", "noise_refiner.0.attention.out",
                               "context_refiner.0.feed_forward.w1"])
    inputs = z_inputs()
    outs = []
    for strength in (1.0, 0.5, None):
        m = zimage if strength is None else comfy.sd.load_lora_for_models(zimage, None, lora, strength, 0.0)[0]
        off, on = both(C, m)
        want = run(M, off, inputs)
        assert torch.equal(run(M, on, inputs), want), strength
        assert last_run(C, on)["replays"] == 2, (strength, last_run(C, on))
        outs.append(want)
    assert not torch.equal(outs[0], outs[1]) and not torch.equal(outs[1], outs[2])  # the LoRA does change the output


def test_unload_between_runs(M, C, emu, zimage):
    import comfy.model_management as mm

    off, on = both(C, zimage)
    inputs = z_inputs()
    want = run(M, off, inputs)
    assert torch.equal(run(M, on, inputs), want)
    mm.unload_all_models()
    assert torch.equal(run(M, on, inputs), want)
    assert last_run(C, on) == {"calls": 4, "replays": 3, "captures": 1, "reason": ""}


def test_weights_replaced_during_a_run_drop_the_graphs(M, C, emu, zimage):
    """A weight replaced by a new tensor in the middle of a run (what ComfyUI's hooks do when they patch a LoRA in
    at a keyframe: comfy.utils.set_attr_param): the graphs captured on the old tensor are dropped and the call is
    captured again; the output follows the new weight, as the compiled blocks' does."""
    import comfy.sample
    import comfy.utils

    key = "diffusion_model.layers.0.attention.qkv.weight"
    pos, neg, lat = z_inputs()

    def sample(model):
        base = model.model
        orig = comfy.utils.get_attr(base, key)

        def cb(step, x0, x, total):
            if step == 1:  # after the second step: the third and fourth run on the new weight
                comfy.utils.set_attr_param(base, key, orig.detach() * 1.5)
        try:
            noise = comfy.sample.prepare_noise(lat["samples"], 0)
            return comfy.sample.sample(model, noise, 5, 1.0, "euler", "simple", pos, neg, lat["samples"], callback=cb,
                                       seed=0)
        finally:
            comfy.utils.set_attr_param(base, key, orig)

    off, on = both(C, zimage)
    want = sample(off)
    assert torch.equal(sample(on), want)
    st = C.compile_status(on)
    assert st["graph_drops"] == 1 and st["graph_captures"] == 2, st
    assert st["graph_last_run"]["replays"] == 2, st["graph_last_run"]  # calls 3 and 5 replay; 4 captures again


def test_a_second_model_on_the_card(M, C, emu):
    """Two models sampled in turn, each with its own graphs: neither replays the other's."""
    a, b = M.with_sdpa(M.tiny_z_image(seed=1)), M.with_sdpa(M.tiny_z_image(seed=2))
    a_off, a_on = both(C, a)
    b_off, b_on = both(C, b)
    inputs = z_inputs()
    want = {"a": run(M, a_off, inputs), "b": run(M, b_off, inputs)}
    assert not torch.equal(want["a"], want["b"])
    for name in ("a", "b", "a", "b"):
        assert torch.equal(run(M, a_on if name == "a" else b_on, inputs), want[name]), name
    assert last_run(C, a_on)["replays"] == 3 and last_run(C, b_on)["replays"] == 3


def test_a_transformer_options_value_that_changes_per_step_is_part_of_the_key(M, C, emu, zimage):
    """A wrapper outside Accel Compile's sets a flag in transformer_options from the third call on, and the attention
    reads it: the calls with the flag get their own graph (replaying the first one would ignore the flag)."""
    import comfy.patcher_extension as pe

    calls = []

    def flag(executor, *args, **kwargs):
        calls.append(1)
        args[5]["test.flag"] = len(calls) % 4 >= 3  # per run of 4 calls: off, off, on, on
        return executor(*args, **kwargs)

    def attention(func, q, k, v, *args, **kwargs):
        from comfy.ldm.modules.attention import attention_pytorch

        to = kwargs.get("transformer_options") or {}
        return attention_pytorch(q, k * (0.5 if to.get("test.flag") else 1.0), v, *args, **kwargs)

    m = zimage.clone()
    m.model_options["transformer_options"]["optimized_attention_override"] = attention
    m.add_wrapper_with_key(pe.WrappersMP.APPLY_MODEL, "test.flag", flag)
    off, on = both(C, m)
    inputs = z_inputs()
    want = run(M, off, inputs)
    assert torch.equal(run(M, on, inputs), want)
    assert torch.equal(run(M, on, inputs), want)
    assert last_run(C, on)["captures"] == 2, last_run(C, on)


# ------------------------------------------------------------------------------------ where graphs do not run

def _dm_wrapper(executor, *args, **kwargs):
    return executor(*args, **kwargs)


def _noise_refiner_patch(args):
    return {"img": args["img"] * 1.0}


@pytest.mark.parametrize("case,reason", [
    ("diffusion_model_wrapper", "DIFFUSION_MODEL wrapper (test.cache)"),
    ("inner_wrapper", "run inside Accel Compile's"),
    ("model_patch", "model patches (noise_refiner)"),
    ("weight_wrapper", "apply weight patches per call"),
    ("reduce_overhead", "records CUDA graphs of its own"),
    ("no_backend", "CUDA graphs need a CUDA device (this model runs on cpu)"),
    ("async_allocator", "cudaMallocAsync allocator is in use (ComfyUI's default): a capture that fails under it can "
                        "end the process, so none is attempted; start ComfyUI with --disable-cuda-malloc"),
])
def test_calls_that_a_replay_would_change_run_compiled(M, C, G, emu, zimage, case, reason):
    """Each case runs through the compiled blocks, the output unchanged, the reason in the status and in the report."""
    import comfy.patcher_extension as pe

    m = zimage.clone()
    kw = {}
    if case == "diffusion_model_wrapper":
        m.add_wrapper_with_key(pe.WrappersMP.DIFFUSION_MODEL, "test.cache", _dm_wrapper)
    elif case == "model_patch":
        m.set_model_patch(_noise_refiner_patch, "noise_refiner")
    elif case == "weight_wrapper":
        m.add_weight_wrapper("diffusion_model.layers.0.attention.qkv.weight", lambda w: w * 1.0)
    elif case == "reduce_overhead":
        kw["mode"] = "reduce-overhead"
    elif case == "no_backend":
        G.TEST_BACKEND = None
    elif case == "async_allocator":
        G.TEST_BACKEND = EmulatedGraphs(allocator="cudaMallocAsync")
    off, on = both(C, m, **kw)
    if case == "inner_wrapper":  # added after Accel Compile's: it runs inside it
        on.add_wrapper_with_key(pe.WrappersMP.APPLY_MODEL, "test.inner", _dm_wrapper)
        off.add_wrapper_with_key(pe.WrappersMP.APPLY_MODEL, "test.inner", _dm_wrapper)
    inputs = z_inputs()
    assert torch.equal(run(M, on, inputs), run(M, off, inputs))
    st = C.compile_status(on)
    assert st["graph_captures"] == 0 and st["graph_last_run"]["replays"] == 0
    assert reason in st["graph_reason"], st["graph_reason"]
    assert reason in C.compile_status(on)["graph_last_run"]["reason"]


def test_a_capture_that_fails_runs_compiled_from_then_on(M, C, G, zimage):
    """A capture refused (as a GPU refuses a host sync inside the model): that call's warm-up output is kept, the
    shape runs compiled for the rest of the model's life (no capture attempted again), the reason is reported."""
    G.TEST_BACKEND = e = EmulatedGraphs(fail=RuntimeError("operation not permitted when stream is capturing"))
    try:
        off, on = both(C, zimage)
        inputs = z_inputs()
        want = run(M, off, inputs)
        for _ in range(2):
            assert torch.equal(run(M, on, inputs), want)
        st = C.compile_status(on)
        assert st["graph_failures"] == 1 and st["graph_replays"] == 0 and e.captures == 0
        assert "capturing the CUDA graph failed: RuntimeError: operation not permitted" in st["graph_reason"]
    finally:
        G.TEST_BACKEND = None


def test_a_refused_capture_names_the_models_line(M, C, G, zimage):
    """A GPU refuses a host copy inside the captured call ("Cannot copy between CPU and CUDA tensors during CUDA graph
    capture"): the reason names the line of the model's (ComfyUI's) code that ran it, not the pack's or torch's."""
    msg = "Cannot copy between CPU and CUDA tensors during CUDA graph capture unless the CPU tensor is pinned."
    G.TEST_BACKEND = EmulatedGraphs(refuse=(torch.ops.aten.mul, RuntimeError(msg)))
    try:
        off, on = both(C, zimage)
        inputs = z_inputs()
        want = run(M, off, inputs)
        for _ in range(2):
            assert torch.equal(run(M, on, inputs), want)
        reason = C.compile_status(on)["graph_reason"]
        assert reason.startswith(f"capturing the CUDA graph failed: RuntimeError: {msg[:40]}"), reason
        site = reason.rsplit(" (in ", 1)[1].rstrip(")")
        path, line_fn = site.split(":", 1)
        assert line_fn.split()[0].isdigit(), site
        in_comfy = [p for p in (H.comfy_root() / "comfy").rglob(path.rsplit("/", 1)[-1]) if p.as_posix().endswith(path)]
        assert in_comfy, (site, "is not a file of ComfyUI's")
    finally:
        G.TEST_BACKEND = None


def test_an_interrupt_during_capture_is_passed_on(M, C, G, zimage):
    import comfy.model_management as mm

    G.TEST_BACKEND = EmulatedGraphs(fail=mm.InterruptProcessingException())
    try:
        on = C.apply_compile(zimage, backend="eager", cuda_graphs="on")[0]
        with pytest.raises(mm.InterruptProcessingException):
            run(M, on, z_inputs())
        assert C.compile_status(on)["graph_failures"] == 0
    finally:
        G.TEST_BACKEND = None


# ------------------------------------------------------------------------------------------ settings, decisions

def test_residency_decision(G):
    gib = 2 ** 30
    fits, text = G.resident_decision(12 * gib, 4 * gib, 20 * gib)
    assert fits and text == "the model fits: 12.0 GiB of weights + 4.0 GiB to sample <= 20.0 GiB free"
    fits, text = G.resident_decision(24 * gib, 7 * gib, 24 * gib)
    assert not fits and text == "the model does not fit: 24.0 GiB of weights + 7.0 GiB to sample > 24.0 GiB free"
    fits, text = G.resident_decision(gib, gib, None)
    assert not fits and "unknown" in text


def test_node_input(pack, M, AccelError, zimage):
    import accel_harness as H

    node = pack.nodes.NODE_CLASS_MAPPINGS["AccelCompile"]
    inputs = {i.id: i for i in node.GET_SCHEMA().inputs}
    # the options added since, in order, after every input saved workflows give positionally; each off by default
    assert list(inputs)[-2:] == ["cuda_graphs", "resident_weights"] and inputs["cuda_graphs"].default == "off"
    assert inputs["resident_weights"].default is False and inputs["resident_weights"].optional
    out = H.call_node(node, model=zimage, mode="default", scope="blocks", dynamic="auto", fullgraph=False,
                      backend="inductor", recompile_limit=64, on_failure="fall back", cuda_graphs="on")["result"]
    assert "CUDA graphs: on" in out[1] and "memory: ComfyUI's own loading" in out[1]
    with pytest.raises(AccelError, match="cuda_graphs"):
        H.call_node(node, model=zimage, mode="default", scope="blocks", dynamic="auto", fullgraph=False,
                    backend="inductor", recompile_limit=64, on_failure="fall back", cuda_graphs="maybe")
    # resident_weights through the node: a model ComfyUI loads its own way (no DynamicVRAM here) is left as it is;
    # a value that is not on or off names the input
    out = H.call_node(node, model=zimage, mode="default", scope="blocks", dynamic="auto", fullgraph=False,
                      backend="inductor", recompile_limit=64, on_failure="fall back", resident_weights=True)["result"]
    assert out[1].startswith("Accel Compile") and "DynamicVRAM" not in out[1], out[1]
    with pytest.raises(AccelError, match="resident_weights"):
        H.call_node(node, model=zimage, mode="default", scope="blocks", dynamic="auto", fullgraph=False,
                    backend="inductor", recompile_limit=64, on_failure="fall back", resident_weights="maybe")
