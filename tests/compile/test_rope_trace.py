"""kernels/rope_trace: comfy-kitchen's RoPE ops traced into Accel Compile's graphs as the library's own eager math.

The oracle is the published math, not ours: ComfyUI's pure-torch rotary embedding (`comfy.ldm.flux.math`, the
interleaved pairs rotated in float32) and comfy-kitchen's own eager backend where comfy-kitchen is installed
(ComfyUI 0.33+). ComfyUI 0.3.75 (CI) has no comfy-kitchen: there a stand-in op in another namespace, whose kernel
counts its calls, plays comfy-kitchen's part, with ComfyUI's pure-torch function as its eager math."""
import types

import pytest
import torch

_COUNT = {"n": 0}  # calls of the stand-in op's kernel


@pytest.fixture(scope="module")
def R(mod):
    return mod("kernels.rope_trace")


def _reference(x, freqs):
    """ComfyUI's pure-torch RoPE of one tensor (0.33: `_apply_rope1`; 0.3.x: `apply_rope1`, which is that math)."""
    import comfy.ldm.flux.math as fm

    return getattr(fm, "_apply_rope1", None)(x, freqs) if hasattr(fm, "_apply_rope1") else fm.apply_rope1(x, freqs)


def _inputs(dtype=torch.float32):
    import comfy.ldm.flux.math as fm

    g = torch.Generator().manual_seed(0)
    b, h, length, d = 1, 2, 12, 16
    x = torch.randn(b, h, length, d, generator=g).to(dtype)
    pos = torch.arange(length, dtype=torch.float32).reshape(1, length)
    freqs = fm.rope(pos, d, 10000).unsqueeze(1)  # (1, 1, L, D/2, 2, 2), as Flux/Wan build it
    return x, freqs


def _capture(fn, *args):
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    torch.compile(fn, backend=backend, fullgraph=True)(*args)
    torch._dynamo.reset()
    return graphs[0]


@pytest.fixture
def standin(R, monkeypatch):
    """A comfy-kitchen stand-in: op `accel_test_ck::apply_rope1` (kernel: ComfyUI's math, call counter) and an
    eager module whose apply_rope1 is ComfyUI's pure-torch function."""
    ns = "accel_test_ck"
    if not hasattr(getattr(torch.ops, ns), "apply_rope1"):
        @torch.library.custom_op(f"{ns}::apply_rope1", mutates_args=())
        def _op(x: torch.Tensor, freqs_cis: torch.Tensor) -> torch.Tensor:
            _COUNT["n"] += 1
            return _reference(x, freqs_cis)

        @_op.register_fake
        def _fake(x, freqs_cis):
            return torch.empty_like(x)
    _COUNT["n"] = 0
    eager = types.SimpleNamespace(apply_rope1=lambda x, freqs_cis: _reference(x, freqs_cis))
    monkeypatch.setattr(R, "CK_NAMESPACE", ns)
    monkeypatch.setattr(R, "_eager_module", lambda: eager)
    monkeypatch.setattr(R, "_state", {})
    yield getattr(torch.ops, ns).apply_rope1


def test_standin_op_is_rewritten_to_its_eager_math(R, standin):
    op = standin
    x, freqs = _inputs()
    gm = _capture(lambda a, f: op(a, f) * 2, x, freqs)
    assert R.rewrite(gm.graph) == 1
    gm.recompile()
    names = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    assert any("comfyui_accel.accel_test_ck_apply_rope1" in t for t in names) and not any(
        t.startswith("accel_test_ck.") for t in names), names
    with torch.no_grad():
        out = gm(x, freqs)
    out = out[0] if isinstance(out, (tuple, list)) else out
    assert torch.equal(out, _reference(x, freqs) * 2)


def test_inductor_runs_the_traced_rope_not_the_op(R, mod, standin):
    """Compiled with Accel Compile's pass: the op's kernel is never called, the values are ComfyUI's math (float32
    inputs: inductor's fused kernel within 1e-6 of the eager reference; bf16: within one bf16 rounding step)."""
    op = standin
    P = mod("accel.compile.passes")
    p = P.PreGradPasses(False, True)
    for dtype, tol, dynamic in ((torch.float32, 1e-6, False), (torch.bfloat16, 1e-2, False),
                                (torch.float32, 1e-6, True)):
        x, freqs = _inputs(dtype)
        torch._dynamo.reset()
        _COUNT["n"] = 0
        with torch.inference_mode():  # dynamic=True: Accel Compile's `dynamic: true` (symbolic sequence lengths)
            out = torch.compile(lambda a, f: op(a, f) + 1, options={"pre_grad_custom_pass": p}, fullgraph=True,
                                dynamic=dynamic)(x, freqs)
        torch._dynamo.reset()
        assert _COUNT["n"] == 0, "the op ran: the rewrite did not reach inductor"
        ref = _reference(x, freqs) + 1
        assert out.dtype == dtype and torch.allclose(out.float(), ref.float(), atol=tol,
                                                     rtol=tol), (out - ref).abs().max()


def test_without_the_pass_the_op_stays_one_call(standin):
    """The control: the same compile without the pass calls the op's kernel (so the test above can fail)."""
    op = standin
    x, freqs = _inputs()
    torch._dynamo.reset()
    _COUNT["n"] = 0
    with torch.inference_mode():
        torch.compile(lambda a, f: op(a, f) + 1, fullgraph=True)(x, freqs)
    torch._dynamo.reset()
    assert _COUNT["n"] >= 1


def test_an_op_whose_eager_function_takes_other_arguments_is_left_alone(R, standin, monkeypatch):
    op = standin
    monkeypatch.setattr(R, "_eager_module", lambda: types.SimpleNamespace(apply_rope1=lambda x, freqs, extra=0: x))
    monkeypatch.setattr(R, "_state", {})
    x, freqs = _inputs()
    gm = _capture(lambda a, f: op(a, f), x, freqs)
    assert R.rewrite(gm.graph) == 0 and not R.available()


def test_no_comfy_kitchen_no_change(R, monkeypatch):
    monkeypatch.setattr(R, "_eager_module", lambda: None)
    monkeypatch.setattr(R, "_state", {})
    g = torch.fx.Graph()
    x = g.placeholder("x")
    g.output(g.call_function(torch.neg, (x,)))
    assert R.rewrite(g) == 0 and R.targets() == {}


def test_real_comfy_kitchen_ops_match_comfyuis_math(R, mod):
    """ComfyUI 0.33+ (comfy-kitchen installed): Flux's `apply_rope` and Wan's `apply_rope1` as ComfyUI calls them,
    compiled with the pass, equal ComfyUI's pure-torch math and the op itself (CPU: comfy-kitchen's eager backend)."""
    pytest.importorskip("comfy_kitchen")
    import comfy.quant_ops as qo

    R._state.clear()
    tm = R.targets()
    assert torch.ops.comfy_kitchen.apply_rope1.default in tm and torch.ops.comfy_kitchen.apply_rope.default in tm, tm
    x, freqs = _inputs(torch.bfloat16)
    k = x.flip(2)
    p = mod("accel.compile.passes").PreGradPasses(False, True)

    def fn(a, b, f):
        q2, k2 = qo.ck.apply_rope(a, b, f)
        return q2 + qo.ck.apply_rope1(b, f)

    gm = _capture(fn, x, k, freqs)
    assert R.rewrite(gm.graph) == 2
    torch._dynamo.reset()
    with torch.inference_mode():
        out = torch.compile(fn, options={"pre_grad_custom_pass": p}, fullgraph=True)(x, k, freqs)
        eager = fn(x, k, freqs)
    torch._dynamo.reset()
    ref = _reference(x, freqs) + _reference(k, freqs)
    assert torch.allclose(out.float(), ref.float(), atol=2e-2) and torch.allclose(out.float(), eager.float(), atol=2e-2)


def test_every_rewritten_real_op_computes_what_the_op_computes(R, mod):
    """ComfyUI 0.33+: each comfy-kitchen op the pass rewrites (split-half RoPE for LTX-Video, the RMSNorm+RoPE ops of
    Lumina-style models) gives, compiled with the pass, what the op itself gives (on the CPU comfy-kitchen runs its
    eager backend: within float rounding of inductor's fused kernel)."""
    pytest.importorskip("comfy_kitchen")
    R._state.clear()
    tm = R.targets()
    ck = torch.ops.comfy_kitchen
    x, freqs = _inputs(torch.float32)
    k = x.flip(2) * 0.5
    scale = torch.linspace(0.5, 1.5, x.shape[-1])
    cases = {"apply_rope_split_half1": (x, freqs), "apply_rope_split_half": (x, k, freqs),
             "rms_rope1": (x, freqs, scale, 1e-6), "rms_rope": (x, k, freqs, scale, scale * 0.5, 1e-6)}
    p = mod("accel.compile.passes").PreGradPasses(False, True)
    checked = 0
    for name, args in cases.items():
        op = getattr(ck, name, None)
        if op is None or op.default not in tm:
            continue
        torch._dynamo.reset()
        with torch.inference_mode():
            out = torch.compile(lambda *a, op=op: op(*a), options={"pre_grad_custom_pass": p}, fullgraph=True)(*args)
            ref = op(*args)
        torch._dynamo.reset()
        outs, refs = (out, ref) if isinstance(out, (tuple, list)) else ((out,), (ref,))
        for o, r in zip(outs, refs, strict=True):
            assert torch.allclose(o, r, atol=1e-5, rtol=1e-5), (name, (o - r).abs().max())
        checked += 1
    assert checked >= 2, sorted(str(t) for t in tm)


def test_real_adaln_ops_are_traced_and_compute_the_published_modulation(R, mod):
    """ComfyUI after 0.33 calls comfy-kitchen's fused AdaLN in Wan's `modulate`: the pass rewrites `adaln` and
    `rms_adaln` too, and the compiled result is comfy-kitchen's documented math (its docstrings:
    layernorm(x) * (1 + scale) + shift; rmsnorm(x) * (1 + scale) + shift; no affine weights) and the op's own."""
    pytest.importorskip("comfy_kitchen")
    ck = torch.ops.comfy_kitchen
    if not hasattr(ck, "adaln"):
        pytest.skip("this comfy-kitchen has no adaln op")
    R._state.clear()
    tm = R.targets()
    assert ck.adaln.default in tm and ck.rms_adaln.default in tm, sorted(str(t) for t in tm)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 24, 64, generator=g)
    scale, shift = torch.randn(2, 1, 64, generator=g) * 0.1, torch.randn(2, 1, 64, generator=g)
    published = {
        "adaln": torch.nn.functional.layer_norm(x, (64,), eps=1e-6) * (1 + scale) + shift,
        "rms_adaln": x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * (1 + scale) + shift,
    }
    p = mod("accel.compile.passes").PreGradPasses(False, True)
    for name, ref in published.items():
        op = getattr(ck, name)
        gm = _capture(lambda a, s, b, op=op: op(a, s, b, 1e-6) * 2, x, scale, shift)
        assert R.rewrite(gm.graph) == 1
        assert not any(str(n.target).startswith("comfy_kitchen.") for n in gm.graph.nodes if n.op == "call_function")
        torch._dynamo.reset()
        with torch.inference_mode():
            out = torch.compile(lambda a, s, b, op=op: op(a, s, b, 1e-6), options={"pre_grad_custom_pass": p},
                                fullgraph=True)(x, scale, shift)
            direct = op(x, scale, shift, 1e-6)
        torch._dynamo.reset()
        assert torch.allclose(out, ref, atol=1e-5, rtol=1e-5), (name, (out - ref).abs().max())
        assert torch.allclose(out, direct, atol=1e-5, rtol=1e-5), (name, (out - direct).abs().max())
