"""accel/comfy_compat.py: what the pack does with the interfaces of ComfyUI newer than 0.33 (docs/compat.md).

Two kinds of test:
- against the real ComfyUI of the test bed (0.3.75 in CI; run them on 0.33 too): the probes say "absent" where
  a feature is absent, and the pack keeps working through ComfyUI's real code (0.33's wrap_attn already passes
  q/k/v in AttentionTensorContainers);
- against small STAND-INS of newer ComfyUI interfaces. Each stand-in below RESTATES, in a few lines, what a public
  file of Comfy-Org/ComfyUI does (file and commit named at the stand-in). A stand-in is a restatement written
  for these tests, NOT ComfyUI itself: what only a stand-in shows is listed in docs/compat.md as unverified until
  a newer ComfyUI tree runs here.
"""
import sys
import threading
import types

import pytest
import torch


@pytest.fixture(scope="module")
def C(mod):
    return mod("accel.comfy_compat")


@pytest.fixture(scope="module")
def A(mod):
    return mod("accel.attention.override")


def _qkv(seed=0, b=1, lq=16, h=2, d=32):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(b, lq, h * d, generator=g) for _ in range(3)]


def _reference(q, k, v, heads):
    b, n, hd = q.shape
    d = hd // heads
    q4, k4, v4 = (t.view(b, -1, heads, d).transpose(1, 2) for t in (q, k, v))
    return torch.nn.functional.scaled_dot_product_attention(q4, k4, v4).transpose(1, 2).reshape(b, n, hd)


def _sdpa_override(A, M):
    patched, _ = A.apply_attention(M.tiny_flux(), "sdpa")
    ov = patched.model_options["transformer_options"][A.OVERRIDE_KEY]
    assert isinstance(ov, A.AttentionOverride)
    return patched, ov


# --- stand-ins (restatements, not ComfyUI) -------------------------------------------------------------------

class StandinContainer:
    """Restates AttentionTensorContainer of Comfy-Org/ComfyUI comfy/ldm/modules/attention.py at commit
    05080f6022b2572df36a0aa6bcba413209c3d265 (same class in 0.33.0): holds one tensor; take() hands it over once."""

    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor

    def take(self):
        if self.tensor is None:
            raise RuntimeError("attention tensor container has already been consumed")
        t, self.tensor = self.tensor, None
        return t


class StandinComfyAttention(torch.nn.Module):
    """Restates ComfyAttention of Comfy-Org/ComfyUI comfy/ldm/modules/attention.py at commit
    05080f6022b2572df36a0aa6bcba413209c3d265: `config` (what the checkpoint set) and `function` (what ComfyUI
    found for it here, None when unavailable)."""

    def __init__(self, config=None, function=None):
        super().__init__()
        self.config = config
        self.function = function


StandinComfyAttention.__name__ = "ComfyAttention"  # the pack recognises the module by name and shape


class StandinGraph:
    """Restates the comfy-aimdo recording graph as comfy/model_prefetch.py uses it: pause()/resume(sync=...)."""

    def __init__(self):
        self.paused = 0
        self.events = []
        self._comfy_active = True

    def pause(self, sync=False):
        self.paused += 1
        self.events.append(("pause", sync))

    def resume(self, sync=False):
        self.paused -= 1
        self.events.append(("resume", sync))


def standin_prefetch_later(graph):
    """Restates comfy/model_prefetch.py of Comfy-Org/ComfyUI at commit 03fb330a7f50e51fd7b3de126a288b089871c5e6:
    per-thread MALLOC_GRAPHS, `_comfy_active`, and pause_malloc_graph(sync) pausing the active graph."""
    m = types.ModuleType("comfy.model_prefetch")
    m.MALLOC_GRAPHS = {threading.get_ident(): graph} if graph is not None else {}

    class _Pause:
        def __init__(self, sync=False):
            self.sync = sync

        def __enter__(self):
            g = m.MALLOC_GRAPHS.get(threading.get_ident())
            if g is not None and g._comfy_active:
                g.pause(sync=self.sync)

        def __exit__(self, *a):
            g = m.MALLOC_GRAPHS.get(threading.get_ident())
            if g is not None and g._comfy_active:
                g.resume(sync=self.sync)

    m.pause_malloc_graph = lambda sync=False: _Pause(sync)
    return m


def standin_prefetch_first(graph):
    """Restates comfy/model_prefetch.py of Comfy-Org/ComfyUI at commit afc78e858ccb47c9754d9084f1a2d5cba1c269bf:
    ACTIVE_MALLOC_GRAPHS[thread id] = the recording graph, no pause_malloc_graph function."""
    m = types.ModuleType("comfy.model_prefetch")
    m.ACTIVE_MALLOC_GRAPHS = {threading.get_ident(): graph} if graph is not None else {}
    return m


def standin_bsa_override(previous, patch):
    """Restates make_attention_override / mark_attention_override of Comfy-Org/ComfyUI
    comfy_extras/nodes_sparse_attention.py and comfy_extras/sparse_attention_history.py at commit
    cf3103c5221f22fd6535b5db2a857d7151e2e2d7, dense path only: calls the previous override (or func) with
    heads positional and mask/attn_precision/skip_reshape/skip_output_reshape as keywords; marks itself."""
    def override(func, q, k, v, heads, mask=None, attn_precision=None, skip_reshape=False, skip_output_reshape=False,
                 **kwargs):
        kw = dict(mask=mask, attn_precision=attn_precision, skip_reshape=skip_reshape,
                  skip_output_reshape=skip_output_reshape, **kwargs)
        return func(q, k, v, heads, **kw) if previous is None else previous(func, q, k, v, heads, **kw)

    override._block_sparse_attention_patch = patch
    override._block_sparse_attention_previous = previous
    return override


# --- attention: containers -----------------------------------------------------------------------------------

def test_container_probe_matches_this_comfyui(C, comfy):
    import comfy.ldm.modules.attention as cattn

    real = getattr(cattn, "AttentionTensorContainer", None)
    assert C.attention_container_class() is real  # 0.3.75: None; 0.33: the class
    plain = tuple(_qkv()) + (2,)
    assert C.attention_args_unwrap(plain) is plain  # plain tensors: untouched, no copy


def test_override_serves_containers_through_real_wrap_attn(A, C, M, stats):
    """Real ComfyUI: where its wrap_attn knows containers (0.33), a container call reaches our override unwrapped
    and is served; where it does not (0.3.75), a plain call is served (and containers cannot occur)."""
    import comfy.ldm.modules.attention as cattn

    patched, _ = _sdpa_override(A, M)
    to = patched.model_options["transformer_options"]
    q, k, v = _qkv(1)
    ref = _reference(q, k, v, 2)
    fn = cattn.attention_pytorch  # @wrap_attn in both versions
    real = getattr(cattn, "AttentionTensorContainer", None)
    if real is None:
        out = fn(q, k, v, 2, transformer_options=to)
    else:
        cq, ck, cv = real(q), real(k), real(v)
        out = fn(cq, ck, cv, 2, transformer_options=to)
        assert cq.tensor is None and ck.tensor is None and cv.tensor is None  # consumed once, by wrap_attn
    assert stats[("sdpa", "served")] == 1, dict(stats)
    torch.testing.assert_close(out, ref, atol=1e-4, rtol=1e-4)


def test_override_unwraps_containers_it_is_handed(A, C, M, stats, monkeypatch):
    """Stand-in: an override that chains to ours with containers still in hand (no wrap_attn between): served."""
    _, ov = _sdpa_override(A, M)
    monkeypatch.setattr(C, "_container_cls", StandinContainer)
    q, k, v = _qkv(2)
    ref = _reference(q, k, v, 2)
    cq, ck, cv = StandinContainer(q), StandinContainer(k), StandinContainer(v)
    out = ov(lambda *a, **kw: pytest.fail("fell back to ComfyUI"), cq, ck, cv, 2)
    assert stats[("sdpa", "served")] == 1, dict(stats)
    assert cq.tensor is None and cv.tensor is None
    torch.testing.assert_close(out, ref, atol=1e-4, rtol=1e-4)
    with pytest.raises(TypeError, match="must all be attention tensor containers"):  # wrap_attn's own rule
        C.attention_args_unwrap((StandinContainer(q), k, v, 2), container_cls=StandinContainer)


def test_override_ignores_preferred_attention_as_wrap_attn_does(A, M, stats):
    """Stand-in ComfyAttention passed as preferred_attention= (a wrap_attn that does not pop it): still served by
    our kernel, and ComfyUI's function never sees the keyword on a fallback."""
    _, ov = _sdpa_override(A, M)
    q, k, v = _qkv(3)
    pref = StandinComfyAttention({"attention": "comfy_kitchen_int8"}, function=None)
    out = ov(lambda *a, **kw: pytest.fail("fell back"), q, k, v, heads=2, preferred_attention=pref)
    assert stats[("sdpa", "served")] == 1, dict(stats)
    torch.testing.assert_close(out, _reference(q, k, v, 2), atol=1e-4, rtol=1e-4)
    seen = {}
    ov(lambda *a, **kw: seen.update(kw) or a[0], q, k, v, heads=2, mask=torch.zeros(16, 16), preferred_attention=pref,
       enable_gqa=True, extra_unknown=1)  # an unknown keyword: falls back to ComfyUI
    assert "preferred_attention" not in seen and seen.get("extra_unknown") == 1


# --- attention: checkpoint preference --------------------------------------------------------------------------

def test_checkpoint_attention_preference_reported(A, C, M):
    model = M.tiny_flux()
    assert C.checkpoint_attention_preference(model) == {}  # no ComfyAttention in this ComfyUI's models
    dm = model.get_model_object("diffusion_model")
    dm.add_module("accel_test_pref_a", StandinComfyAttention({"attention": "comfy_kitchen_int8"}, function=print))
    dm.add_module("accel_test_pref_b", StandinComfyAttention({"attention": "comfy_kitchen_int8"}, function=None))
    dm.add_module("accel_test_pref_c", StandinComfyAttention(None))
    try:
        assert C.checkpoint_attention_preference(model) == {"comfy_kitchen_int8": {"layers": 2, "available": 1}}
        _, report = A.apply_attention(model, "sdpa")
        assert "checkpoint asks for 'comfy_kitchen_int8' attention in 2 attention layer(s)" in report, report
        assert "choose backend comfy_kitchen_int8" in report
    finally:
        for n in ("accel_test_pref_a", "accel_test_pref_b", "accel_test_pref_c"):
            delattr(dm, n)


# --- core's BlockSparseAttention --------------------------------------------------------------------------------

def test_core_sparse_attention_detected_and_reported(A, C, M, stats):
    import comfy.patcher_extension as pe

    model = M.tiny_flux()
    patch = types.SimpleNamespace(name="bsa-patch")
    to = model.model_options.setdefault("transformer_options", {})
    assert C.core_sparse_attention_active(to) is None and not C.core_sparse_attention_installed(model)
    to[C.OVERRIDE_KEY] = standin_bsa_override(None, patch)

    def prepare_state(model_patcher, timestep, model_options):  # restates BSA's re-install at ON_PREPARE_STATE
        t = model_options["transformer_options"]
        cur = t.get(C.OVERRIDE_KEY)
        if getattr(cur, "_block_sparse_attention_patch", None) is not patch:
            t[C.OVERRIDE_KEY] = standin_bsa_override(cur, patch)

    model.add_callback_with_key(pe.CallbacksMP.ON_PREPARE_STATE, C.BSA_CALLBACK_KEY, prepare_state)
    assert C.core_sparse_attention_active(to) is patch and C.core_sparse_attention_installed(model)

    patched, report = A.apply_attention(model, "sdpa")
    assert "core's Model Sparse Attention (BlockSparseAttention) is on this model" in report, report
    assert "replaced an earlier attention override" not in report  # it is not replaced: it comes back on top
    pto = patched.model_options["transformer_options"]
    assert isinstance(pto[C.OVERRIDE_KEY], A.AttentionOverride)
    assert C.core_sparse_attention_installed(patched)
    prepare_state(patched, None, patched.model_options)  # what the next step does
    top = pto[C.OVERRIDE_KEY]
    assert C.core_sparse_attention_active(pto) is patch and isinstance(top._block_sparse_attention_previous,
                                                                       A.AttentionOverride)
    q, k, v = _qkv(4)
    out = top(lambda *a, **kw: pytest.fail("fell back"), q, k, v, 2)  # a call BSA keeps dense reaches ours
    assert stats[("sdpa", "served")] == 1, dict(stats)
    torch.testing.assert_close(out, _reference(q, k, v, 2), atol=1e-4, rtol=1e-4)


# --- the Comfy Compiler ------------------------------------------------------------------------------------------

def test_pause_is_a_noop_on_this_comfyui(C, comfy):
    assert not C.malloc_graph_recording()
    with C.pause_malloc_graph():
        x = torch.empty(4)
    assert x.shape == (4,)
    mp = sys.modules.get("comfy.model_prefetch")
    assert (mp is not None and hasattr(mp, "pause_malloc_graph")) or not C.comfy_compiler_available()


@pytest.mark.parametrize("form", ["later", "first"])
def test_pause_uses_each_public_form(C, form):
    g = StandinGraph()
    mp = (standin_prefetch_later if form == "later" else standin_prefetch_first)(g)
    assert C.malloc_graph_recording(mp)
    with C.pause_malloc_graph(module=mp):
        assert g.paused == 1
    with C.pause_malloc_graph(sync=True, module=mp):
        assert g.paused == 1
    assert g.paused == 0 and g.events[-2:] == [("pause", True), ("resume", True)]
    idle = (standin_prefetch_later if form == "later" else standin_prefetch_first)(None)
    assert not C.malloc_graph_recording(idle)
    with C.pause_malloc_graph(module=idle):
        pass


def test_step_cache_state_is_allocated_outside_the_record(mod, monkeypatch):
    """The step cache's block hook decides (first block) and stores the residual (last block) with the recording
    paused; the blocks themselves run recorded."""
    hooks = mod("accel.cache.hooks")
    g = StandinGraph()
    monkeypatch.setitem(sys.modules, "comfy.model_prefetch", standin_prefetch_later(g))
    seen = []
    call = types.SimpleNamespace(decided=True, skip=False, record=True)

    class Run:
        def __init__(self):
            self.call = call

        def decide(self, args):
            seen.append(("decide", g.paused))
            return False

        def store(self, out, args):
            seen.append(("store", g.paused))

    run = Run()
    first = hooks._BlockHook(run, 0, False, None)
    last = hooks._BlockHook(run, 1, True, None)
    block = lambda args: seen.append(("block", g.paused)) or {"img": args["img"]}  # noqa: E731
    first({"img": torch.zeros(1)}, {"original_block": block})
    last({"img": torch.zeros(1)}, {"original_block": block})
    assert seen == [("decide", 1), ("block", 0), ("block", 0), ("store", 1)], seen
    assert g.paused == 0


def test_autotune_timings_are_allocated_outside_the_record(A, M, stats, monkeypatch):
    _, ov = _sdpa_override(A, M)
    g = StandinGraph()
    monkeypatch.setitem(sys.modules, "comfy.model_prefetch", standin_prefetch_later(g))
    seen = []

    class Tuner:
        def pick(self, key, *a):
            seen.append(g.paused)
            return ov.kernel

    tuned = A.AttentionOverride(ov.kernel, tuner=Tuner())
    q, k, v = _qkv(5)
    tuned(lambda *a, **kw: pytest.fail("fell back"), q, k, v, 2)
    assert seen == [1] and g.paused == 0 and stats[("sdpa", "served")] == 1


def test_compiler_probes_on_this_comfyui(C, M, comfy):
    from comfy.cli_args import args

    model = M.tiny_flux()
    has = hasattr(args, "disable_comfy_compiler")
    assert C.comfy_compiler_available() is (has and callable(getattr(sys.modules.get("comfy.model_prefetch"),
                                                                    "malloc_graph_enabled", None)))
    assert C.comfy_compiler_enabled(model) is False  # no compiler (0.3.75, 0.33) or a CPU device
    if not has:
        m = model.clone()
        assert C.disable_comfy_compiler_for(m) is None
        import comfy.patcher_extension as pe

        assert not m.get_wrappers(pe.WrappersMP.APPLY_MODEL, C.COMPILER_WRAPPER_KEY)


def test_compiler_off_for_one_model_only(C, M, monkeypatch):
    """Stand-ins: comfy.cli_args.args.disable_comfy_compiler and model_prefetch.malloc_graph_enabled restate
    Comfy-Org/ComfyUI comfy/model_prefetch.py at 03fb330a7f50e51fd7b3de126a288b089871c5e6 (the switch is read at
    every malloc_graph_begin). A real tiny model runs; a DIFFUSION_MODEL probe sees the switch during the call."""
    import comfy.patcher_extension as pe
    from comfy.cli_args import args

    from accel_harness.forward import Forward

    monkeypatch.setattr(args, "disable_comfy_compiler", False, raising=False)
    mp = sys.modules.get("comfy.model_prefetch") or types.ModuleType("comfy.model_prefetch")
    monkeypatch.setitem(sys.modules, "comfy.model_prefetch", mp)
    monkeypatch.setattr(mp, "malloc_graph_enabled", lambda device: not args.disable_comfy_compiler, raising=False)
    base = M.tiny_flux()
    assert C.comfy_compiler_available() and C.comfy_compiler_enabled(base)
    seen = []

    def probe(executor, *a, **kw):
        seen.append(mp.malloc_graph_enabled(None))
        return executor(*a, **kw)

    compiled = base.clone()
    line = C.disable_comfy_compiler_for(compiled)
    assert line and "off for this model" in line
    assert C.disable_comfy_compiler_for(compiled) == line  # idempotent: one wrapper under the key
    assert len(compiled.get_wrappers(pe.WrappersMP.APPLY_MODEL, C.COMPILER_WRAPPER_KEY)) == 1
    other = base.clone()
    for m in (compiled, other):
        m.add_wrapper_with_key(pe.WrappersMP.DIFFUSION_MODEL, "accel_test_probe", probe)
    g = torch.Generator().manual_seed(0)
    x, ctx = torch.randn(1, 16, 8, 8, generator=g), torch.randn(1, 8, 64, generator=g)
    for m in (compiled, other):
        with torch.inference_mode(), Forward(m) as f:
            f(x, 0.7, ctx, y=torch.randn(1, 32, generator=g), guidance=torch.tensor([3.5]))
    assert seen == [False, True], seen  # off inside the compiled model's call only
    assert args.disable_comfy_compiler is False  # restored


def test_compiler_switch_restores_across_nesting_and_threads(C, monkeypatch):
    from comfy.cli_args import args

    monkeypatch.setattr(args, "disable_comfy_compiler", False, raising=False)
    inside = threading.Event()
    leave = threading.Event()

    def worker():
        with C.comfy_compiler_off():
            inside.set()
            leave.wait(5)

    t = threading.Thread(target=worker)
    with C.comfy_compiler_off():
        t.start()
        assert inside.wait(5)
        with C.comfy_compiler_off():
            assert args.disable_comfy_compiler is True
    assert args.disable_comfy_compiler is True  # the worker's model call still runs
    leave.set()
    t.join(5)
    assert args.disable_comfy_compiler is False
    monkeypatch.setattr(args, "disable_comfy_compiler", True)  # started with --disable-comfy-compiler: stays on
    with C.comfy_compiler_off():
        pass
    assert args.disable_comfy_compiler is True
