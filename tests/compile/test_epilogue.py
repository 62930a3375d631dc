"""kernels/epilogue: the Linear -> GELU(tanh) rewrite that Accel Compile hands to inductor. The rewritten
graph computes the same values (on CPU through the plain ops; on CUDA through cuBLASLt's tanh-GELU
epilogue, which is what `_addmm_activation(use_gelu=True)` is there), only fusable pairs are rewritten,
and inductor's FX-graph cache still works with the pass (warm restarts are covered in test_compile)."""
import pytest
import torch
import torch.nn.functional as F


@pytest.fixture(scope="module")
def E(mod):
    return mod("kernels.epilogue")


def capture(fn, *args):
    graphs = []

    def backend(gm, example_inputs):
        graphs.append((gm, list(example_inputs)))
        return gm.forward

    torch._dynamo.reset()
    torch.compile(fn, backend=backend, fullgraph=True)(*args)
    torch._dynamo.reset()
    return graphs[0]


def test_ffn_pair_is_rewritten_and_values_match(E):
    ffn = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(approximate="tanh"), torch.nn.Linear(64, 32))
    x = torch.randn(2, 5, 32)
    gm, inputs = capture(ffn, x)
    assert E.rewrite(gm.graph) == 1
    gm.recompile()
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert any("linear_gelu_tanh" in str(t) for t in targets) and not any(t in E._GELUS for t in targets)
    with torch.no_grad():
        out = gm(*inputs)
        out = out[0] if isinstance(out, (tuple, list)) else out
        assert torch.allclose(out, ffn(x), atol=1e-6)


def test_only_fusable_pairs_are_rewritten(E):
    lin = torch.nn.Linear(16, 16)
    x = torch.randn(3, 16)

    def exact_gelu(t):
        return F.gelu(lin(t))  # erf GELU: cuBLASLt's epilogue is the tanh one

    def two_users(t):
        y = lin(t)
        return F.gelu(y, approximate="tanh") + y

    def no_bias(t):
        return F.gelu(F.linear(t, lin.weight), approximate="tanh")

    for fn in (exact_gelu, two_users, no_bias):
        gm, _ = capture(fn, x)
        assert E.rewrite(gm.graph) == 0, fn.__name__


def test_fused_function_falls_back_off_cuda(E):
    x, w, b = (torch.randn(4, 8, dtype=torch.bfloat16), torch.randn(6, 8, dtype=torch.bfloat16),
               torch.randn(6, dtype=torch.bfloat16))
    assert torch.equal(E.linear_gelu_tanh(x, w, b), F.gelu(F.linear(x, w, b), approximate="tanh"))


def test_accel_compile_hands_the_pass_to_inductor(mod, E):
    options, runners = mod("accel.compile.options"), mod("accel.compile.runners")
    cfg = options.CompileOptions(policy="fall back").config()
    opts = runners._compile_kwargs("default", cfg)["options"]
    p = opts["pre_grad_custom_pass"]
    assert p.gelu and p.rope and p.uuid()  # the FFN epilogue and the traced RoPE (tests/compile/test_rope_trace.py)
    opts = runners._compile_kwargs("max-autotune-no-cudagraphs", cfg)["options"]
    assert opts["pre_grad_custom_pass"] is p and opts.get("max_autotune")


def test_the_passes_run_the_epilogue_rewrite(mod):
    ffn = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(approximate="tanh"), torch.nn.Linear(64, 32))
    gm, _ = capture(ffn, torch.randn(2, 5, 32))
    mod("accel.compile.passes").PreGradPasses(True, True)(gm.graph)
    assert any("linear_gelu_tanh" in str(n.target) for n in gm.graph.nodes if n.op == "call_function")


def test_the_op_is_registered_before_inductor_loads_a_cached_graph(comfy):
    """Code that inductor loads from its on-disk caches calls torch.ops.comfyui_accel.linear_gelu_tanh, and a cache
    hit skips the pass that registered the op on first use: a new process with a warm cache took the cache for
    damaged, moved it aside and fell back to eager. Handing the pass to inductor registers the op (a fresh process:
    in this one an earlier test may have registered it)."""
    import subprocess
    import sys
    import textwrap

    import accel_harness as H

    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(H.REPO_ROOT / 'harness')!r})
        import accel_harness as H
        H.bootstrap()
        H.load_pack()
        import torch
        options, runners = H.pack_module("accel.compile.options"), H.pack_module("accel.compile.runners")
        ns = getattr(torch.ops, "comfyui_accel")
        assert not hasattr(ns, "linear_gelu_tanh"), "registered before Accel Compile ran"
        cfg = options.CompileOptions(policy="fall back").config()
        runners._compile_kwargs("default", cfg)
        print("REGISTERED=" + str(hasattr(ns, "linear_gelu_tanh")))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "REGISTERED=True" in out.stdout, out.stdout[-2000:]


def test_inductor_compiles_a_tiny_wan_ffn_with_the_pass(E, mod):
    ffn = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(approximate="tanh"), torch.nn.Linear(64, 32))
    x = torch.randn(2, 5, 32)
    torch._dynamo.reset()
    with torch.inference_mode():
        passes = mod("accel.compile.passes").PreGradPasses(True, False)
        out = torch.compile(ffn, options={"pre_grad_custom_pass": passes})(x)
        ref = ffn(x)
    torch._dynamo.reset()
    assert torch.allclose(out, ref, atol=1e-5)


def test_pass_pickles_to_a_stable_key_and_copies_to_itself(E, mod):
    import copy
    import pickle

    P = mod("accel.compile.passes")
    both, gelu = P.PreGradPasses(True, True), P.PreGradPasses(True, False)
    assert pickle.loads(pickle.dumps(both)) == f"comfyui_accel.PreGradPasses:{both.uuid()}"
    assert both.uuid() == P.PreGradPasses(True, True).uuid() != gelu.uuid()  # stable, and keyed on what runs
    assert E.uuid_part() and copy.copy(both) is both and copy.deepcopy({"x": both})["x"] is both


def test_report_says_the_epilogue_is_applied(M, mod):
    C = mod("accel.compile")
    _, report = C.apply_compile(M.wan_model("t2v", "tiny", dtype=torch.float32), backend="inductor")
    assert "FFN epilogue: Linear -> GELU(tanh)" in report
    # the traced RoPE is reported where comfy-kitchen's RoPE ops exist (ComfyUI 0.33+), and only there
    assert ("RoPE: where the model calls comfy-kitchen's rotary-embedding ops" in report) == \
        mod("kernels.rope_trace").available()
    _, report = C.apply_compile(M.wan_model("t2v", "tiny", dtype=torch.float32), backend="eager")
    assert "FFN epilogue" not in report
