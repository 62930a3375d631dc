"""accel.compile.dynamo_compat against the installed torch: each private symbol the compile node reads still exists
and means what the pack assumes. A torch that renames or changes one fails here, not in a user's report."""
import pytest
import torch

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


@pytest.fixture(scope="module")
def D(mod):
    return mod("accel.compile.dynamo_compat")


def _major_minor():
    return tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2])


def test_guard_filter_detected_without_sources(D, monkeypatch):
    """torch >= 2.8 honours options={"guard_filter_fn"}; detection must not need torch's .py sources."""
    import inspect

    D.guard_filter_supported.cache_clear()

    def no_source(obj):
        raise OSError("could not get source code")

    monkeypatch.setattr(inspect, "getsource", no_source)
    try:
        assert D.guard_filter_supported() is (_major_minor() >= (2, 8))
    finally:
        D.guard_filter_supported.cache_clear()


def test_guard_filter_is_applied(D):
    """The filter really drops guards: a changed Python value it filters out does not recompile."""
    if not D.guard_filter_supported():
        pytest.skip("this torch has no guard_filter_fn")
    calls = []

    def keep_no_constants(entries):
        calls.append(len(entries))
        return [e.guard_type == "TENSOR_MATCH" for e in entries]

    def f(x, opts):
        return x * 2 + (1 if opts["k"] else 0)

    g = torch.compile(f, backend="eager", options={"guard_filter_fn": keep_no_constants})
    x = torch.ones(3)
    g(x, {"k": True})
    before = D.unique_graphs()
    g(x, {"k": False})  # a recompile without the filter
    assert calls and D.unique_graphs() == before


def test_counters_entries_and_guard_failures(D):
    code_fn = lambda x: x.sin() + 1  # noqa: E731
    g = torch.compile(code_fn, backend="eager", dynamic=False)
    g0 = D.unique_graphs()
    g(torch.ones(4))
    assert D.unique_graphs() == g0 + 1
    assert D.entry_counts([code_fn.__code__]) == {code_fn.__code__: 1}
    g(torch.ones(5))  # new size, dynamic=False: a recompile with a recorded reason
    assert D.entry_counts([code_fn.__code__])[code_fn.__code__] == 2
    assert "size mismatch" in D.last_guard_failure([code_fn.__code__])


def test_blocks_share_graphs_and_options(D):
    assert D.shares_block_graphs() is True  # torch >= 2.5 default; the node raises the limit otherwise
    assert D.inductor_has("pre_grad_custom_pass") and not D.inductor_has("no_such_option_xyz")
    assert D.compile_accepts("backend") and not D.compile_accepts("no_such_kwarg")


def test_recompile_limit_context_restores_dynamo_config(D, monkeypatch):
    monkeypatch.setattr(D, "compile_accepts", lambda name: False)
    cfg = torch._dynamo.config
    attr = "recompile_limit" if hasattr(cfg, "recompile_limit") else "cache_size_limit"
    old = getattr(cfg, attr)
    with D.RecompileLimit(old + 5):
        assert getattr(cfg, attr) == old + 5
    assert getattr(cfg, attr) == old


def test_inductor_mode_options(D):
    """list_mode_options: 'default' adds nothing; the max-autotune modes switch autotuning on."""
    assert D.inductor_mode_options("default") == {}
    opts = D.inductor_mode_options("max-autotune-no-cudagraphs")
    assert opts.get("max_autotune") is True and not opts.get("triton.cudagraphs")
    assert D.inductor_mode_options("reduce-overhead").get("triton.cudagraphs") is True


def test_inductor_default_cache_dir(D):
    """inductor's own folder (what the cache report compares a user's TORCHINDUCTOR_CACHE_DIR against)."""
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir

    d = D.inductor_default_cache_dir()
    assert isinstance(d, str) and "torchinductor" in d and d == default_cache_dir()


def test_clear_inductor_caches(D, monkeypatch):
    """Calls torch._inductor.utils.clear_caches once inductor is imported (a changed cache folder is re-read)."""
    import torch._inductor.utils as iu

    calls = []
    monkeypatch.setattr(iu, "clear_caches", lambda: calls.append(1))
    D.clear_inductor_caches()
    assert calls == [1]


def test_pack_guard_filter_keeps_the_hybrid_attention_flag(D, mod):
    """accel.compile's guard filter drops guards on transformer_options values (LoRA/patch changes must not
    recompile) but keeps the pack's own switches: a compiled block must see the hybrid attention schedule's
    exact/quantized flag change between steps (on the old filter, the graph of the first step ran on every
    step). block_index stays unguarded (ComfyUI's SDXL block reads it: one graph per block otherwise); the
    hybrid block rule is decided outside the graph and still right in every block."""
    if not D.guard_filter_supported():
        pytest.skip("this torch has no guard_filter_fn")
    runners, A = mod("accel.compile.runners"), mod("accel.attention.override")

    def block(x, transformer_options):
        y = x * 2 if transformer_options.get(A.EXACT_FLAG) else x * 3
        return y + (1 if transformer_options.get("some_patch_switch") else 0)

    g = torch.compile(block, backend="eager", options={"guard_filter_fn": runners._guard_filter})
    x = torch.ones(2)
    assert g(x, {A.EXACT_FLAG: True})[0] == 2
    assert g(x, {A.EXACT_FLAG: False})[0] == 3  # the flag is guarded: recompiled
    n = D.unique_graphs()
    g(x, {A.EXACT_FLAG: False, "some_patch_switch": True})  # filtered: no new graph
    assert D.unique_graphs() == n

    torch._dynamo.reset()
    hybrid = A.Hybrid(0, 0, 1, 1)  # exact in the first and the last block

    def attn(x, transformer_options):
        return x * 2 if hybrid.wants_exact(transformer_options) else x * 3

    h = torch.compile(attn, backend="eager", options={"guard_filter_fn": runners._guard_filter})
    got = [float(h(x, {"block_index": i, "total_blocks": 4})[0]) for i in range(4)]
    assert got == [2.0, 3.0, 3.0, 2.0], got
    n = D.unique_graphs()
    for i in range(4):  # no graph per block: the decision comes back as one of two values
        h(x, {"block_index": i, "total_blocks": 4})
    assert D.unique_graphs() == n


def test_raised_recompile_limits_names_exist_and_never_lower(D):
    """Accel VAE raises dynamo's per-code and accumulated limits during a compiled decode: every name returned
    exists in this torch's config (patch() refuses unknown names) and no limit goes down."""
    import torch._dynamo

    cfg = torch._dynamo.config
    small, big = D.raised_recompile_limits(1), D.raised_recompile_limits(10 ** 6)
    assert small and set(small) == set(big)
    assert any(k in small for k in ("recompile_limit", "cache_size_limit"))
    for k, v in small.items():
        assert v == getattr(cfg, k)
        assert big[k] == 10 ** 6
    with cfg.patch(**big):
        assert all(getattr(cfg, k) == 10 ** 6 for k in big)


def test_fallback_reason_names_the_model_line_dynamo_stopped_at(mod):
    """A compile failure's one-line reason (the report's and the log's) says where in the model's code dynamo stopped,
    read from the error torch raises (its innermost user frame), so a user can tell which pack or layer to blame."""
    W = mod("accel.compile.wrapper")

    def layer(x):
        torch._dynamo.graph_break()  # dynamo cannot keep this in one graph: fullgraph=True raises here
        return x + 1

    def model(x):
        return layer(x * 2)

    with pytest.raises(Exception) as ei:
        torch.compile(model, fullgraph=True, backend="eager")(torch.ones(2))
    line = layer.__code__.co_firstlineno + 1
    reason = W._short_error(ei.value)
    assert reason.endswith(f"(in compile/test_dynamo_compat.py:{line} layer)"), reason
    plain = W._short_error(ValueError("raised by the model itself"))
    assert plain == "ValueError: raised by the model itself"


def test_dynamo_events_count_graph_breaks_and_frames_at_the_recompile_limit(D):
    """What the compile report says about parts of the blocks that run eager comes from dynamo's own counters: a graph
    break is counted with its reason; a function recompiled past the limit (here 2, guarded on an attribute that differs
    per call, as a graph break's resume function was on ComfyUI-GGUF's tensors) is counted once it runs eager."""
    b0, _, l0, _ = D.dynamo_events()

    def broken(x):
        x = x + 1
        torch._dynamo.graph_break()
        return x * 2

    torch.compile(broken, backend="eager")(torch.ones(2))
    b1, why, l1, _ = D.dynamo_events()
    assert b1 == b0 + 1 and l1 == l0 and why, (b0, b1, why)

    class Box:
        def __init__(self, k):
            self.tag = f"t{k}"

    def guarded(x, box):
        return x + len(box.tag)  # guarded on the string's value: one graph per tag

    f = torch.compile(guarded, backend="eager")
    old = torch._dynamo.config.recompile_limit
    torch._dynamo.config.recompile_limit = 2
    try:
        for k in range(4):
            assert float(f(torch.zeros(1), Box(k))[0]) == 2
    finally:
        torch._dynamo.config.recompile_limit = old
    b2, _, l2, why = D.dynamo_events()
    assert l2 == l1 + 1 and "box.tag" in why and b2 == b1, (l1, l2, why)


def test_pieces_at_the_recompile_limit_reach_the_report(mod):
    """What a model's call adds to dynamo's events lands in its status and in the report after the run: PARTLY EAGER
    with the guard that failed, and the graph breaks with their reason (counted per model, not per process)."""
    W, cfg, R = mod("accel.compile.wrapper"), mod("accel.compile.config"), mod("accel.compile.report")
    st = cfg.CompileStatus(requested_mode="default", chain=("default",), backend="inductor", scope="blocks")
    st.calls = 1
    W.CompileWrapper._account_events(st, (3, "old", 1, "old"), (5, "a break", 2, "___stack0.tensor_shape"))
    d = st.as_dict()
    assert (d["graph_breaks"], d["break_reason"], d["frames_at_recompile_limit"], d["limit_reason"]) == \
        (2, "a break", 1, "___stack0.tensor_shape")
    lines = R.run_lines(d)
    assert "PARTLY EAGER: 1 piece(s)" in lines[0] and "___stack0.tensor_shape" in lines[0], lines
    assert lines[1].strip().startswith("2 graph break(s) inside the blocks") and "a break" in lines[1], lines
