"""FP8 linears that keep quality: the loader's `activation_scaling` choices (per-token, per-token with fp32
accumulation, 1x128 activation blocks), their math against float references, the Triton 1x128 quantizer in
the interpreter, the scale layouts torch._scaled_mm's blockwise recipe reads, the option plumbing through
ComfyUI, errors for bad values, and bench/bench_fp8_quality.py's --smoke mode.

Tolerances: e4m3fn rounds every normal value to within 2**-4 of itself (relative, round to nearest even, 3
mantissa bits) and subnormals (|x / scale| < 2**-6) to within 2**-10 * scale; a matmul of such values vs fp32
has relative L2 error ~2**-5 per operand. References of the same math agree to fp32 summation order (1e-5).
The GPU kernels themselves (cuBLAS blockwise, the Triton cast) are compared with these references by the bench.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from accel_harness.interp import run_interpreted

E4M3 = torch.float8_e4m3fn
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def K(mod):
    return mod("kernels.fp8_linear")


def rel(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm()).item()


def _profile(mod, sm):
    hw = mod("accel.common.hardware")
    return hw.HardwareProfile("cuda", "test GPU", sm, torch_version="2.11.0", triton_version="3.6.0")


# --- math -------------------------------------------------------------------------------------------

def test_block_quantization_reference(K):
    """quantize_blocks_ref: one scale per token and 128 channels = amax/448; every value within the e4m3
    rounding bound of its block's scale; an outlier channel only coarsens its own block (per-token
    quantization pushes the other blocks' small values into e4m3's subnormal range)."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(6, 384, generator=g) * torch.logspace(-3, 3, 6).unsqueeze(1)
    x[2] = 0  # an all-zero token: finite tiny scale, values stay 0
    x8, s = K.quantize_blocks_ref(x)
    assert x8.dtype == E4M3 and x8.shape == x.shape and s.shape == (6, 3) and s.dtype == torch.float32
    amax = x.abs().reshape(6, 3, 128).amax(-1)
    assert torch.allclose(s, amax.clamp_min(K.AMAX_EPS) / 448, rtol=1e-6, atol=0)
    back = (x8.float().reshape(6, 3, 128) * s.unsqueeze(-1)).reshape(6, 384)
    bound = torch.maximum(x.abs() * 2 ** -4, s.repeat_interleave(128, 1) * 2 ** -10) * (1 + 1e-6)
    assert bool(((back - x).abs() <= bound).all())
    assert bool((back[2] == 0).all()) and bool(torch.isfinite(s).all())
    # outlier channel in block 0 of a token: 1x128 keeps blocks 1 and 2 as precise as without it
    y = torch.randn(4, 384, generator=g) * 1e-3
    y[:, 5] = 1e3
    yb8, ys = K.quantize_blocks_ref(y)
    yr8, yrs = K.quantize_rows_ref(y)
    err_b = ((yb8.float().reshape(4, 3, 128) * ys.unsqueeze(-1)).reshape(4, 384) - y)[:, 128:]
    err_r = (yr8.float() * yrs - y)[:, 128:]
    assert err_b.norm() < 0.2 * err_r.norm(), (err_b.norm(), err_r.norm())


def test_block_matmul_reference_against_float(K):
    """scaled_mm_block_ref equals an explicit per-block sum (fp32 order only), and the whole 1x128 FP8 linear
    is within e4m3's error of the fp32 matmul (rel <= 0.06 for two quantized operands; measured ~0.035)."""
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 33, 256, generator=g).to(torch.bfloat16)
    w = torch.randn(96, 256, generator=g) / 16
    b = torch.randn(96, generator=g).to(torch.bfloat16)
    for per_channel in (True, False):
        w8, sw = K.quantize_weight(w, E4M3, per_channel)
        x8, sx = K.quantize_blocks_ref(x.reshape(-1, 256))
        got = K.scaled_mm_block_ref(x8, sx, w8, sw, b, torch.float32)
        exp = sum((x8[:, i * 128:(i + 1) * 128].float() @ w8[:, i * 128:(i + 1) * 128].float().t()) * sx[:, i:i + 1]
                  for i in range(2))
        exp = exp * (sw.reshape(1, -1) if sw.numel() > 1 else sw) + b.float()
        assert torch.allclose(got, exp, rtol=1e-5, atol=1e-5)
        out = K.fp8_linear_ref(x, w8, sw, b, act="block")
        assert out.shape == (2, 33, 96) and out.dtype == torch.bfloat16
        assert rel(out, torch.nn.functional.linear(x.float(), w, b.float())) <= 0.06


def test_block_scale_layouts(K):
    """The scale layouts of torch._scaled_mm's 1x128 x 1x128 recipe (ATen ScaledBlas.cpp
    is_blockwise_1x128_scaling, for a and for b.t()): scale_a (M, K/128) strides (1, M); scale_b (K/128, N)
    row-major holding the weight's per-channel (or per-tensor) scale for every block."""
    m, n, k = 40, 48, 384
    x8 = torch.zeros(m, k, dtype=E4M3)
    w8 = torch.zeros(n, k, dtype=E4M3)
    sx = torch.rand(m, 3) + 0.5  # row-major, as the traced reference makes it
    sw = torch.rand(n, 1) + 0.5
    sa, sb = K._block_scales(x8, sx, w8, sw)
    assert sa.shape == (m, 3) and sa.stride() == (1, m) and torch.equal(sa, sx)
    assert sb.shape == (3, n) and sb.is_contiguous() and torch.equal(sb, sw.reshape(1, n).expand(3, n))
    sa2, _ = K._block_scales(x8, sx.t().contiguous().t(), w8, sw)  # the Triton kernel's layout: kept as is
    assert sa2.stride() == (1, m)
    _, sbt = K._block_scales(x8, sx, w8, torch.tensor(0.25))
    assert sbt.shape == (3, n) and bool((sbt == 0.25).all())


def test_block_custom_op_shape_under_fake_tensors(K):
    """The 1x128 matmul is a custom op (opaque to inductor): its fake gives (M, N) in the asked dtype."""
    op = K._block_op()
    if op is None:
        pytest.skip("this PyTorch has no torch.library.custom_op")
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        out = op(torch.empty(10, 256, dtype=E4M3), torch.empty(10, 2), torch.empty(24, 256, dtype=E4M3),
                 torch.empty(24, 1), torch.float16)
    assert tuple(out.shape) == (10, 24) and out.dtype == torch.float16


def test_fp8_linear_block_mode_on_cpu(K):
    """fp8_linear in block mode: CPU runs the reference (same result as fp8_linear_ref act=block); a layer whose
    K is not a multiple of 128 runs per token instead."""
    g = torch.Generator().manual_seed(2)
    x = torch.randn(3, 7, 256, generator=g).to(torch.bfloat16)
    w8, sw = K.quantize_weight(torch.randn(64, 256, generator=g) / 16, E4M3, True)
    out = K.fp8_linear(x, w8, sw, None, mode=K.BLOCK_MODE)
    assert torch.equal(out, K.fp8_linear_ref(x, w8, sw, None, act="block"))
    x2 = torch.randn(5, 80, generator=g).to(torch.bfloat16)
    w28, sw2 = K.quantize_weight(torch.randn(32, 80, generator=g) / 9, E4M3, True)
    try:
        out2 = K.fp8_linear(x2, w28, sw2, None, mode=K.BLOCK_MODE, use_fast_accum=False)
    except (RuntimeError, NotImplementedError) as e:
        pytest.skip(f"no CPU torch._scaled_mm for the per-token fallback: {e}")
    assert rel(out2, K.fp8_linear_ref(x2, w28, sw2, None, act="row")) <= 1e-2


def test_triton_block_quant_kernel_matches_reference(comfy):
    """The Triton 1x128 quantizer in the interpreter (fp32 output: the interpreter's fp8 cast is inexact)
    against quantize_blocks_ref; its scales come out (M, K/128) with strides (1, M)."""
    pytest.importorskip("triton")
    ok, err = run_interpreted("""
        import accel_kernels.fp8_linear as K, accel_kernels.fp8_linear_triton as T
        g = torch.Generator().manual_seed(0)
        for m, k in [(5, 384), (1, 128), (3, 640)]:
            x = (torch.randn(m, k, generator=g) * torch.logspace(-2, 2, m).unsqueeze(1)).to(torch.bfloat16)
            x[0, :128] = 0
            x[-1, 7] = 300.0
            y, s = T.quantize_blocks(x, out=torch.empty(m, k, dtype=torch.float32))
            yr, sr = K.quantize_blocks_ref(x, out_dtype=torch.float32)
            assert s.shape == (m, k // 128) and s.stride()[0] == 1 and (k == 128 or s.stride()[1] == m), s.stride()
            assert torch.allclose(s, sr, rtol=1e-6, atol=0), (s, sr)
            assert torch.allclose(y, yr, rtol=1e-5, atol=1e-6), (y - yr).abs().max()
        print("OK")
    """)
    assert ok, err


# --- the option through the loader -------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny_file(M, ddir, bf16_sd):
    return M.save_safetensors(dict(bf16_sd), ddir / "quality_bf16.safetensors")


@pytest.fixture(scope="module")
def cond(M):
    return M.conditioning(8, seed=1), M.conditioning(8, seed=2), M.wan_latent(5, 64, 64)


def _run(M, model, cond):
    pos, neg, lat = cond
    return M.sample(model, pos, neg, lat, steps=2, cfg=2.0, seed=0)


def test_activation_scaling_choices_in_the_model(F, K, M, mod, tiny_file, cond):
    """Each choice sets the matmul path of the loaded model (sm90 profile; CPU runs the same math): the default
    is today's per-token path; fp32 accumulation turns fast accumulation off; 1x128 blocks runs the block path
    in sampling, within FP8's error of the stock model (tiny Wan: measured ~0.03 rel)."""
    stock = _run(M, M.load_diffusion_model(tiny_file), cond)
    res = F.load_file(str(tiny_file), profile=_profile(mod, (9, 0)))
    assert res.runtime.mode == "scaled_mm_rowwise" and res.runtime.use_fast_accum
    # the report states the deviation measured on the GPU for this path, naming the result file (which exists)
    line = next(x for x in res.report.splitlines() if "measured deviation:" in x)
    assert "final-latent cosine 0.9941" in line and "bench/results/h200/matrix_033_wan14B_fp16_140GB.md" in line
    assert (Path(__file__).resolve().parents[2] / "bench/results/h200/matrix_033_wan14B_fp16_140GB.md").exists()
    res = F.load_file(str(tiny_file), profile=_profile(mod, (9, 0)), activation_scaling=F.ACT_PER_TOKEN_FP32)
    assert res.runtime.mode == "scaled_mm_rowwise" and not res.runtime.use_fast_accum
    assert "fp32 accumulation" in res.report and "measured deviation: not measured for this path" in res.report
    res = F.load_file(str(tiny_file), profile=_profile(mod, (9, 0)), activation_scaling=F.ACT_BLOCK)
    assert res.runtime.mode == K.BLOCK_MODE and "1x128-block activation scales" in res.report, res.report
    res.runtime.allow_cpu = True
    out = _run(M, res.patcher, cond)
    assert res.runtime.calls["fp8"] > 0 and res.runtime.calls["dequant"] == 0
    assert rel(out, stock) <= 0.05
    init = getattr(res.patcher, "cached_patcher_init", None)  # ComfyUI 0.33: the reload keeps the choice
    assert init is None or init[1][1]["activation_scaling"] == F.ACT_BLOCK, init


def test_block_scaling_where_unsupported(F, K, mod, tiny_file, AccelError, monkeypatch, caplog):
    """1x128 blocks on a GPU without blockwise _scaled_mm (sm89 -> per-tensor path; or a torch/cuBLAS whose
    probe fails): per-token instead, said once in the log and in the report; strict: an error naming the input."""
    log = mod("accel.common.log")
    log.reset_once("fp8")
    with caplog.at_level("WARNING", logger="comfyui-accel"):
        res = F.load_file(str(tiny_file), profile=_profile(mod, (8, 9)), activation_scaling=F.ACT_BLOCK)
    assert res.runtime.mode == "scaled_mm_tensorwise"
    assert "activation_scaling: 1x128 blocks -> 1x128 blocks requested, but" in res.report, res.report
    assert any("1x128 blocks requested" in r.getMessage() for r in caplog.records)
    with pytest.raises(AccelError, match=r"input 'activation_scaling': 1x128 blocks requested.*per-token"):
        F.load_file(str(tiny_file), profile=_profile(mod, (8, 9)), activation_scaling=F.ACT_BLOCK, policy="error")
    monkeypatch.setattr(K, "block_out_dtypes", lambda dev: frozenset())
    mode, fast, note = F.resolve_activation(F.ACT_BLOCK, "scaled_mm_rowwise", torch.device("cuda", 0))
    assert mode == "scaled_mm_rowwise" and fast and "no blockwise torch._scaled_mm" in note
    with pytest.raises(AccelError, match="activation_scaling"):
        F.resolve_activation(F.ACT_BLOCK, "scaled_mm_rowwise", torch.device("cuda", 0), policy="error")
    monkeypatch.setattr(K, "block_out_dtypes", lambda dev: frozenset({torch.bfloat16}))
    assert F.resolve_activation(F.ACT_BLOCK, "scaled_mm_rowwise", torch.device("cuda", 0))[0] == K.BLOCK_MODE
    assert F.resolve_activation(F.ACT_BLOCK, "dequant", torch.device("cuda", 0))[0] == "dequant"


def test_bad_activation_scaling_errors_before_reading(F, AccelError, pack, ddir, mod):
    """A bad value names the input and the choices, before the file is read (a missing file would otherwise
    be the error), through load_file and through the node."""
    with pytest.raises(AccelError, match=r"\[Accel Load Diffusion Model \(FP8\)\] input 'activation_scaling': "
                                         r"unknown choice 'per-block'.*per-token"), \
            mod("accel.common.errors").titled("Accel Load Diffusion Model (FP8)"):  # as the node boundary sets it
        F.load_file(str(ddir / "does_not_exist.safetensors"), activation_scaling="per-block")
    import nodes

    import accel_harness as H

    cls = nodes.NODE_CLASS_MAPPINGS["AccelLoadDiffusionModelFP8"]
    inputs = {i.id: i for i in cls.define_schema().inputs}
    assert list(inputs["activation_scaling"].options) == list(F.ACT_CHOICES)
    assert inputs["activation_scaling"].default == F.ACT_PER_TOKEN == F.ACT_DEFAULT  # today's behaviour
    with pytest.raises(AccelError, match="input 'activation_scaling'"):
        H.call_node(cls, "quality_bf16.safetensors", "auto", "auto", "auto (per model family)",
                    activation_scaling="1x64 blocks")


# --- the benchmark's CPU mode ---------------------------------------------------------------------------

def test_bench_fp8_quality_smoke(tmp_path):
    """bench/bench_fp8_quality.py --smoke runs end to end on the CPU and writes its json/md with every option."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("TRITON_INTERPRET", None)
    out = subprocess.run([sys.executable, str(REPO / "bench" / "bench_fp8_quality.py"), "--smoke", "--out",
                          str(tmp_path)],
                         capture_output=True, text=True, env=env, timeout=900, cwd=str(REPO))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    import json

    res = json.loads((tmp_path / "fp8_quality.json").read_text())
    assert not res["errors"], res["errors"]
    micro = res["micro"]
    assert {r["option"] for r in micro} >= {"per-token", "per-token, fp32 accumulation", "1x128 blocks", "dequantize"}
    assert all(0.9 < r["cos_vs_fp32"] <= 1.0 for r in micro if "cos_vs_fp32" in r)
    e2e = res["e2e"]
    assert {"stock", "fp8", "fp8_block", "fp8_fp32acc", "fp8_dequant"} <= set(e2e)
    assert all(0.9 < e2e[c]["cosine"] <= 1.0 + 1e-9 for c in e2e)
    assert any(k.startswith("keep:") for k in res["sensitivity"])
    assert (tmp_path / "fp8_quality.md").read_text().startswith("# FP8 linears: quality")


def test_measured_deviation_is_the_model_kinds_own(mod, K):
    """The loader's `measured deviation:` line quotes the deviation measured on this kind of model where a run measured
    it on this path (the FP8 loader -> the family's exact chain, final latent vs stock), naming its result folder;
    elsewhere the path's figure on Wan 14B; other paths theirs or "not measured"."""
    opts, figs, gains = mod("accel.fp8.options"), mod("accel.common.figures"), mod("accel.common.gains")
    root = Path(__file__).resolve().parents[2]
    for kind, (fid, run) in opts.FAMILY_DEVIATION.items():
        assert kind in gains.KINDS
        f = figs.fig(fid)
        text = opts.measured_deviation("scaled_mm_rowwise", True, kind)
        assert text.startswith(f"final-latent cosine {f.text} vs stock, measured on this kind of model ({run}, "), text
        assert (root / "bench/results" / f.file).exists() and f.file.rsplit("/", 1)[0] in text
    assert "final-latent cosine 0.9987 vs stock" in opts.measured_deviation("scaled_mm_rowwise", True, "minimax_h3")
    generic = opts.measured_deviation("scaled_mm_rowwise", True, None)
    assert generic == opts.MEASURED_DEVIATION[("scaled_mm_rowwise", True)] and "0.9941" in generic
    assert opts.measured_deviation("scaled_mm_rowwise", False, "flux").startswith("not measured for this path")
    assert opts.measured_deviation(K.BLOCK_MODE, True, "flux") == opts.MEASURED_DEVIATION[(K.BLOCK_MODE, True)]
