"""Weight prefetch of the compiled blocks (`prefetch_weights`, accel/compile/prefetch.py) inside a real ComfyUI.

On the CPU, ComfyUI streams no weights (DynamicVRAM is off with --cpu) and has no streams: the scheduling is what is
tested. A tiny Wan 2.1 (4 blocks, fp32) with a LightX2V-layout LoRA on every block Linear is loaded partially with
nothing resident (`lowvram_model_memory=1`: every Linear casts per call and applies its LoRA there, as on a small
card), compiled with dynamo's eager backend (the fetch runs outside the graph either way), and run with prefetch off
and on: which blocks were fetched ahead and when, the VRAM budget, the output (bit-identical), the layers' own state
afterwards, the fallback. The DynamicVRAM decisions (which VBAR layers stream, how much room to make, from whom) are
plain functions of comfy-aimdo's page state, tested here with stand-ins for comfy-aimdo's GPU-only VBAR objects.
"""
import logging

import pytest
import torch

from accel_harness.forward import lowvram_apply

pytestmark = pytest.mark.usefixtures("fresh_dynamo")

BLOCKS = 4


@pytest.fixture(scope="module")
def P(mod):
    return mod("accel.compile.prefetch")


def _sdpa(func, *args, **kwargs):
    from comfy.ldm.modules.attention import attention_pytorch

    return attention_pytorch(*args, **kwargs)


@pytest.fixture
def wan(M):
    """Tiny Wan, 4 blocks, with a LoRA on every block Linear (per-call weight functions under a partial load)."""
    import comfy.sd

    m = M.wan_model(dtype=torch.float32, seed=1, num_layers=BLOCKS)
    m.model_options.setdefault("transformer_options", {})["optimized_attention_override"] = _sdpa
    lora = M.wan_lora(rank=4, seed=3, layout="lightx2v", num_layers=BLOCKS, bias_diffs=False)
    return comfy.sd.load_lora_for_models(m, None, lora, 1.0, 0.0)[0]


def _inputs():
    g = torch.Generator().manual_seed(0)
    return torch.randn(1, 16, 1, 4, 4, generator=g), torch.randn(1, 8, 4096, generator=g)


def _compiled(C, model, prefetch=None, policy=None):
    """Accel Compile (dynamo's eager backend) with `prefetch` settings (accel.compile.prefetch.PrefetchSettings)."""
    from accel_harness import pack_module

    Policy = pack_module("accel.common.policy").Policy
    cfg = pack_module("accel.compile.options").CompileOptions(backend="eager",
                                                              policy=policy or Policy.FALL_BACK).config()
    cfg.prefetch = prefetch
    return C.compile_model(model, cfg)[0]


def _lowvram_forward(p, x, ctx, trace=None):
    """One forward with nothing resident (every Linear casts per call), then unpatched. `trace`: a list that gets
    ("done", i) when block i has run (a block replacement that calls the block, outside the compiled blocks)."""
    if trace is not None:
        p = p.clone()
        for i in range(BLOCKS):
            def done(args, extra, i=i):
                out = extra["original_block"](args)
                trace.append(("done", i))
                return out

            p.set_model_patch_replace(done, "dit", "double_block", i)
    return lowvram_apply(p, x, ctx)


def _traced(model, trace):
    """A clone whose first Linear of each block records ("cast", i) each time ComfyUI casts its weight (an identity
    weight wrapper, ComfyUI's own `add_weight_wrapper`)."""
    m = model.clone()
    for i in range(BLOCKS):
        m.add_weight_wrapper(f"diffusion_model.blocks.{i}.self_attn.q.weight",
                             lambda w, i=i: (trace.append(("cast", i)), w)[1])
    return m


def _block_bytes(P, model):
    """What casting one block's ComfyUI layers takes (the budget unit of a cast ahead): all of them cast per call
    under a partial load with nothing resident."""
    from accel_harness import pack_module

    blk = model.model.diffusion_model.blocks[1]
    layers = pack_module("accel.compile.stream").BlockFetcher().layers(blk)
    return P.cast_bytes([m for m in layers if m._parameters.get("weight") is not None], torch.float32)


def test_each_block_after_the_first_is_cast_while_the_one_before_runs(C, P, wan):
    """Prefetch on: block i+1's weights (LoRA applied by ComfyUI's cast_bias_weight) are fetched right after block i is
    queued, before block i's output reaches the model; block 0 at its own entry. Same bits as without prefetch, the
    layers get their own per-call state back, and the status / report line say what ran."""
    x, ctx = _inputs()
    off_trace, on_trace = [], []
    off = _lowvram_forward(_traced(_compiled(C, wan), off_trace), x, ctx, off_trace)
    on_model = _compiled(C, wan, P.PrefetchSettings(budget_bytes=1 << 40))
    on = _lowvram_forward(_traced(on_model, on_trace), x, ctx, on_trace)
    assert off_trace == [e for i in range(BLOCKS) for e in (("cast", i), ("done", i))]
    assert on_trace == [("cast", 0), ("cast", 1), ("done", 0), ("cast", 2), ("done", 1), ("cast", 3), ("done", 2),
                        ("done", 3)], on_trace
    assert torch.equal(on, off), "prefetch must not change a bit"
    st = C.compile_status(on_model)
    assert not st["fell_back"] and st["streamed_regions"] == BLOCKS, st
    pf = st["prefetch"]
    assert pf["path"] == P.PATH_PREFETCH and pf["streamed_blocks"] == BLOCKS and pf["ahead_blocks"] == BLOCKS - 1, pf
    assert pf["line"].startswith(f"weights: {P.PATH_PREFETCH} ({BLOCKS - 1} of {BLOCKS} streamed block calls"), pf
    assert C.compile_status(_compiled(C, wan))["prefetch"] is None  # off: no prefetch status, no report line
    # the compiled run's output is ComfyUI's own lowvram run (uncompiled, every layer casting itself)
    assert torch.allclose(on, _lowvram_forward(wan, x, ctx), atol=1e-5, rtol=1e-5)
    # every layer has its own per-call state back: cast per call, its LoRA as a weight function
    q = on_model.model.diffusion_model.blocks[2].self_attn.q
    assert "weight" in q._parameters and q.weight_function == [] and not q.comfy_cast_weights  # unpatched by now


def test_the_vram_budget_bounds_what_is_cast_ahead(C, P, wan, comfy):
    """A block is cast ahead only when its cast weights fit the budget: one block's bytes -> every block after the
    first; a byte less -> none (counted, and the output is the same). The default budget is ComfyUI's accounting:
    free device memory less torch's cached part less minimum_inference_memory() (none on the CPU: nothing ahead)."""
    import comfy.model_management as mm

    x, ctx = _inputs()
    need = _block_bytes(P, wan)
    ref = _lowvram_forward(_compiled(C, wan), x, ctx)
    fits = _compiled(C, wan, P.PrefetchSettings(budget_bytes=need))
    assert torch.equal(_lowvram_forward(fits, x, ctx), ref)
    assert C.compile_status(fits)["prefetch"]["ahead_blocks"] == BLOCKS - 1
    tight = _compiled(C, wan, P.PrefetchSettings(budget_bytes=need - 1))
    assert torch.equal(_lowvram_forward(tight, x, ctx), ref)
    pf = C.compile_status(tight)["prefetch"]
    assert pf["ahead_blocks"] == 0 and pf["skipped"] == {P.SKIP_BUDGET: BLOCKS - 1}, pf
    assert f"{BLOCKS - 1} {P.SKIP_BUDGET}" in pf["line"]
    cpu = torch.device("cpu")
    total, cached = mm.get_free_memory(cpu, torch_free_too=True)
    assert P.vram_budget(cpu) == int(total - cached) - int(mm.minimum_inference_memory()) < need
    default = _compiled(C, wan, P.PrefetchSettings())
    assert torch.equal(_lowvram_forward(default, x, ctx), ref)
    assert C.compile_status(default)["prefetch"]["ahead_blocks"] == 0


def test_a_resident_model_has_nothing_to_prefetch(C, P, M, mod):
    """Fully loaded (no LoRA, nothing cast per call): the report says so."""
    from accel_harness.forward import Forward

    m = M.wan_model(dtype=torch.float32, seed=1, num_layers=BLOCKS)
    m.model_options.setdefault("transformer_options", {})["optimized_attention_override"] = _sdpa
    on = _compiled(C, m, P.PrefetchSettings(budget_bytes=1 << 40))
    x, ctx = _inputs()
    with Forward(on) as f:
        f(x, 0.7, ctx)
    pf = C.compile_status(on)["prefetch"]
    assert pf["path"] == P.PATH_RESIDENT and pf["ahead_blocks"] == 0 and pf["room_calls"] == 0, pf
    assert pf["line"] == f"weights: {P.PATH_RESIDENT} (nothing to prefetch)"
    # without DynamicVRAM (the CPU), the probes the DynamicVRAM paths start from find nothing to act on
    compat = mod("accel.comfy_compat")
    cpu = torch.device("cpu")
    assert compat.dynamic_vbar(on.model, cpu) is None and compat.loaded_dynamic_patchers(cpu) == []


class _FailOnce:
    """A weight wrapper (identity) whose first call fails: the first cast of its layer is the one fetched ahead."""

    def __init__(self):
        self.calls = 0

    def __call__(self, w):
        self.calls += 1
        if self.calls == 1:
            raise RuntimeError("boom while casting")
        return w


def test_an_error_while_fetching_ahead_falls_back_with_one_log_line(C, P, wan, caplog, AccelError, mod):
    """fall back: one warning, the block is fetched when it runs (same output), prefetch stays off for the model and
    the report says ComfyUI's own streaming ran. error: an AccelError naming prefetch_weights (not a compile failure:
    compile stays on)."""
    Policy = mod("accel.common.policy").Policy
    x, ctx = _inputs()
    ref = _lowvram_forward(_compiled(C, wan), x, ctx)
    m = _compiled(C, wan, P.PrefetchSettings(budget_bytes=1 << 40)).clone()
    m.add_weight_wrapper("diffusion_model.blocks.2.ffn.0.weight", _FailOnce())
    with caplog.at_level(logging.WARNING):
        assert torch.equal(_lowvram_forward(m, x, ctx), ref)
        assert torch.equal(_lowvram_forward(m, x, ctx), ref)
    warned = [r for r in caplog.records if "weight prefetch failed" in r.getMessage()]
    assert len(warned) == 1 and "boom while casting" in warned[0].getMessage()
    st = C.compile_status(m)
    pf = st["prefetch"]
    assert not st["fell_back"] and pf["fell_back"].startswith("RuntimeError: boom") and pf["path"] == P.PATH_COMFY
    assert pf["ahead_blocks"] == 1, pf  # block 1 came ahead before block 2 failed; nothing ahead afterwards
    assert pf["line"].startswith(f"weights: {P.PATH_COMFY} (prefetch fell back: RuntimeError: boom")

    strict = _compiled(C, wan, P.PrefetchSettings(policy=Policy.ERROR, budget_bytes=1 << 40, title="Accel Wan Level-1"),
                       policy=Policy.ERROR).clone()
    strict.add_weight_wrapper("diffusion_model.blocks.2.ffn.0.weight", _FailOnce())
    with pytest.raises(AccelError) as e:
        _lowvram_forward(strict, x, ctx)
    assert e.value.input_name == "prefetch_weights" and "boom while casting" in str(e.value)
    assert not C.compile_status(strict)["fell_back"]


# --- DynamicVRAM decisions (comfy-aimdo's VBAR state as plain data) -------------------------------------------

class _VBAR:
    """Stands in for comfy_aimdo.model_vbar.ModelVBAR (GPU-only): its address, allocation offset, watermark and page
    residency, as the real object reports them."""

    def __init__(self, pages, watermark, resident=()):
        self.base_addr, self.offset, self._mark = 1 << 40, 0, watermark
        self._res = [1 if p in resident else 0 for p in range(pages)]

    def alloc(self, nbytes):  # ModelVBAR.alloc: 512-byte aligned slices, one after the other
        self.offset = (self.offset + 511) & ~511
        a = (self, self.base_addr + self.offset, nbytes)
        self.offset += nbytes
        return a

    def get_watermark(self):
        return self._mark

    def get_residency(self):
        return list(self._res)


class _Layer:
    def __init__(self, v):
        self._v = v


def test_streamed_layers_are_the_slices_above_the_watermark(P, mod):
    page = mod("accel.comfy_compat").VBAR_PAGE_BYTES
    vbar = _VBAR(pages=8, watermark=3)
    a, b, c = (_Layer(vbar.alloc(n)) for n in (2 * page, page - 4096, page))  # pages [0,2), [2,3), [3,4)
    assert [id(m) for m in P.streamed_layers([a, b, c])] == [id(c)]
    assert P.streamed_layers([c, a]) == [c]
    vbar._mark = 2
    assert P.streamed_layers([a, b, c]) == [b, c]  # a slice that reaches past the watermark cannot be faulted

    class Old:  # a comfy-aimdo without the watermark query
        base_addr, offset = 0, 0

    assert P.streamed_layers([_Layer((Old(), 0, 10))]) is None


def test_room_is_what_the_next_call_faults_in_taken_from_the_least_recent(P, mod):
    page = mod("accel.comfy_compat").VBAR_PAGE_BYTES
    # 6 pages hold layers, watermark 5, pages 0 and 2 resident: 3 absent pages below the watermark fault in next
    assert P.absent_bytes(5, 6, [1, 0, 1, 0, 0, 0, 0, 0]) == 3 * page
    assert P.absent_bytes(8, 2, [1, 1, 0, 0]) == 0  # the unused tail of the VBAR is not counted
    assert P.room_plan(5, [("te", 2), ("expert1", 10), ("vae", 4)]) == [("te", 2), ("expert1", 3)]
    assert P.room_plan(20, [("te", 2), ("expert1", 10)]) == [("te", 2), ("expert1", 10)]  # never more than held
    assert P.room_plan(0, [("te", 2)]) == []


def test_layers_fetched_by_comfyuis_block_queue_are_not_fetched_again(mod, monkeypatch):
    """MiniMax-H3's and LTX-2's forwards run ComfyUI's block queue (comfy.model_prefetch.prefetch_queue_pop) before
    each block: it fetches the block's VBAR layers and leaves ComfyUI's fetch state on each (`_prefetch`). A compiled
    block then uses that state as stock's `cast_bias_weight` does (`resolve_cast_module_with_vbar`), fetches only the
    layers the queue did not, and leaves releasing the queue's layers to the queue's next pop. comfy-aimdo's functions
    are GPU-only: `cast_modules_with_vbar`, `resolve_cast_module_with_vbar` and `cleanup_prefetched_modules` are
    stand-ins restating what ComfyUI 0.33.0's comfy/ops.py and comfy/model_prefetch.py do with that state."""
    why = mod("accel.comfy_compat").block_fetch_support()
    if why is not None:
        pytest.skip(f"no block queue to use here: {why} (ComfyUI before 0.33 has no DynamicVRAM)")
    import comfy.model_management as mm
    import comfy.model_prefetch as mp
    import comfy.ops as ops

    S = mod("accel.compile.stream")
    block = torch.nn.Sequential(*[ops.disable_weight_init.Linear(4, 4, device="meta") for _ in range(3)])
    for m in block:
        m._v = object()  # a slice of the model's VBAR: the weight stays where ComfyUI keeps it (meta here)
    fetched, resolved, cleaned = [], [], []

    def cast_modules_with_vbar(mods, dtype, device, bias_dtype, non_blocking):
        fetched.append(list(mods))
        for m in mods:
            m._prefetch = {"resident": False}
        return None  # no offload stream on the CPU

    def resolve(m, dtype, device, bias_dtype, compute_dtype, want_requant):
        assert hasattr(m, "_prefetch")
        resolved.append(m)
        return torch.full((4, 4), float(len(resolved)), device=device, dtype=dtype), None

    def cleanup(module, mods):
        for m in mods:
            cleaned.append(m)
            del m._prefetch

    monkeypatch.setattr(ops, "cast_modules_with_vbar", cast_modules_with_vbar)
    monkeypatch.setattr(ops, "resolve_cast_module_with_vbar", resolve)
    monkeypatch.setattr(mp, "cleanup_prefetched_modules", cleanup)
    monkeypatch.setattr(mm, "device_supports_non_blocking", lambda device: True)
    x = torch.zeros(2, 4)
    fetcher = S.BlockFetcher()
    # the queue fetched the first two layers for this call; the third it did not (e.g. no VBAR slice when it ran)
    block[0]._prefetch = {"resident": False}
    block[1]._prefetch = {"resident": True}
    f = fetcher.fetch(block, fetcher.pending(block), x)
    assert fetched == [[block[2]]]  # only the layer the queue did not fetch
    assert set(map(id, resolved)) == set(map(id, block)) and f.copied
    assert f.queued == [block[0], block[1]] and f.vbar == [block[2]]
    assert all(m.weight.device == x.device for m in block)  # each layer holds its fetched weight for the call
    fetcher.release(f)
    assert cleaned == [block[2]]  # the queue's layers keep ComfyUI's state until its next pop releases them
    assert hasattr(block[0], "_prefetch") and hasattr(block[1], "_prefetch")
    assert all(m.weight.device.type == "meta" for m in block)  # and get their own weights back
    # without the queue (Wan's forward runs none), every streamed layer is fetched here and released here
    for m in block[:2]:
        del m._prefetch
    fetched.clear(), cleaned.clear()
    f = fetcher.fetch(block, fetcher.pending(block), x)
    assert fetched == [list(block)] and f.queued == []
    fetcher.release(f)
    assert cleaned == list(block)
