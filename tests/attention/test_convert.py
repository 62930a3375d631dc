"""kernels/convert: the Triton fp16<->bf16 conversion (run in the Triton interpreter on CPU) is bit-exact
against torch's `.to()` - normal values, subnormals, signed zeros, overflow to inf, inf, NaN - and the
dispatcher keeps `.to()` where it must (torch.compile tracing, CPU tensors, other dtypes)."""
import pytest
import torch

from accel_harness.interp import run_interpreted


def test_triton_conversion_is_bit_exact_in_the_interpreter():
    pytest.importorskip("triton")
    ok, err = run_interpreted("""
        import accel_kernels.convert as C
        g = torch.Generator().manual_seed(0)
        special = torch.tensor([0.0, -0.0, 65504.0, -65504.0, 6e-8, -6e-8, 1e-5,
                                float("inf"), float("-inf"), float("nan")])
        for src, dst in [(torch.float16, torch.bfloat16), (torch.bfloat16, torch.float16)]:
            for n in (1, 4095, 4097, 3 * 4096 + 5):
                x = (torch.randn(n, generator=g) * torch.logspace(-9, 6, n)).to(src)
                k = min(n, len(special))
                x[:k] = special[:k].to(src)
                y = C.convert(x, dst, allow_cpu=True)
                r = x.to(dst)
                assert y.dtype == dst and y.shape == x.shape
                assert torch.equal(y.isnan(), r.isnan()), (src, n)
                ok = y.isnan() | (y.view(torch.int16) == r.view(torch.int16))
                assert bool(ok.all()), (src, dst, n, x[~ok][:5], y[~ok][:5], r[~ok][:5])
        x = torch.randn(4, 8, 16, generator=g).to(torch.float16).transpose(0, 1)  # non-contiguous input
        y = C.convert(x, torch.bfloat16, allow_cpu=True)
        assert torch.equal(y, x.to(torch.bfloat16)) and y.shape == x.shape
        print("OK")
    """)
    assert ok, err


def test_dispatch_keeps_plain_to_where_it_must(mod, monkeypatch):
    C = mod("kernels.convert")
    calls = []

    class Fake:
        @staticmethod
        def convert(t, dtype):
            calls.append(dtype)
            return t.to(dtype)

    monkeypatch.setitem(C._state, "mod", Fake)
    x = torch.randn(8, 16, dtype=torch.float16)
    assert C.convert(x, torch.float16) is x  # nothing to do
    C.convert(x, torch.bfloat16)  # CPU tensor in production: plain .to()
    C.convert(x, torch.float32, allow_cpu=True)  # only fp16<->bf16 has a kernel
    assert calls == []
    C.convert(x, torch.bfloat16, allow_cpu=True)
    assert calls == [torch.bfloat16]
    calls.clear()
    f = torch.compile(lambda t: C.convert(t, torch.bfloat16, allow_cpu=True), backend="eager", fullgraph=True)
    assert torch.equal(f(x), x.to(torch.bfloat16)) and calls == []  # traced: .to(), for inductor to fuse
    torch._dynamo.reset()
def test_optional_kernel_import_failure_is_remembered_and_reported_once(mod):
    """kernels.optional.load_once (convert's and fp8's Triton modules): one import attempt per process; a
    failure is kept and reported once (the caller's log line), later calls return None without retrying."""
    opt = mod("kernels.optional")
    seen, state = [], {}
    assert opt.load_once(state, "no_such_kernel_module", seen.append) is None
    assert opt.load_once(state, "no_such_kernel_module", seen.append) is None
    assert len(seen) == 1 and "ModuleNotFoundError" in seen[0] and state["error"] == seen[0]
    ok = {}
    m = opt.load_once(ok, "convert_triton")
    assert "error" not in ok and (m is None or m.__name__.endswith("convert_triton"))
