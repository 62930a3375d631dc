"""kernels/convert: the Triton fp16<->bf16 conversion (run in the Triton interpreter on CPU) is bit-exact
against torch's `.to()` - normal values, subnormals, signed zeros, overflow to inf, inf, NaN - and the
dispatcher keeps `.to()` where it must (torch.compile tracing, CPU tensors, other dtypes)."""
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import accel_harness as H


def test_triton_conversion_is_bit_exact_in_the_interpreter():
    pytest.importorskip("triton")
    code = textwrap.dedent(f"""
        import importlib.util, sys, torch
        root = {str(H.REPO_ROOT)!r}
        spec = importlib.util.spec_from_file_location("accel_kernels_t", root + "/kernels/__init__.py",
                                                      submodule_search_locations=[root + "/kernels"])
        pkg = importlib.util.module_from_spec(spec); sys.modules["accel_kernels_t"] = pkg; spec.loader.exec_module(pkg)
        import accel_kernels_t.convert as C
        g = torch.Generator().manual_seed(0)
        special = torch.tensor([0.0, -0.0, 65504.0, -65504.0, 6e-8, -6e-8, 1e-5, float("inf"), float("-inf"), float("nan")])
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
    env = dict(os.environ, TRITON_INTERPRET="1", OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0 and "OK" in out.stdout, out.stderr[-3000:]


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
