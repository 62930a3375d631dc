"""Accel Attention: per-model attention backends through ComfyUI's optimized_attention_override.

Real ComfyUI model classes at tiny configs (Wan 2.1 T2V/I2V, Flux, Qwen-Image). GPU-only libraries
are replaced by fakes in tests/fake_attention_libs/ that enforce the real libraries' input rules and
compute exact attention with plain torch ops; a simulated CUDA HardwareProfile plus the
`tensor_device_types=("cpu",)` test hook lets the adapters serve the CPU tensors of this machine.

Tolerances: float32 SDPA vs ComfyUI's CPU attention (sub-quadratic) differ only in summation order,
so we allow max|diff| <= 1e-4 * max|ref|. bfloat16 runs through the fakes round the same float32
math to bfloat16 once per call: allowed max|diff| <= 2e-2 * max|ref| (bf16 has 8 mantissa bits).
"""
import collections
import copy
import logging
import math
import sys
from pathlib import Path

import pytest
import torch

FAKES = Path(__file__).resolve().parents[1] / "fake_attention_libs"
FAKE_MODULES = ("_fake_common", "flash_attn", "flash_attn.cute", "flash_attn_interface", "fa3_fwd_interface",
                "fa3_fwd_config", "sageattention", "sageattn3", "xformers", "xformers.ops")
FP32_TOL = 1e-4
BF16_TOL = 2e-2


# --- fixtures and helpers ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def A(mod):
    return mod("accel.attention.override")


@pytest.fixture(scope="module")
def fakes(mod):
    """Put the fake libraries on sys.path; returns (probed LibraryInfo dict, fake common module)."""
    for name in FAKE_MODULES:
        assert name not in sys.modules or name == "_fake_common", f"a real {name} is imported; fakes would not load"
    mod("accel.common.hardware").profile()  # cache this machine's real profile before the fakes are importable
    sys.path.insert(0, str(FAKES))
    try:
        hw = mod("accel.common.hardware")
        libs = {key: hw.probe_library(key, m, d) for key, m, d in hw.ATTENTION_LIBRARIES}
        assert all(i.available for i in libs.values()), libs
        import _fake_common

        yield libs, _fake_common
    finally:
        sys.path.remove(str(FAKES))
        for name in FAKE_MODULES:
            sys.modules.pop(name, None)
        mod("kernels.attention.adapters").forget()


def sim_profile(mod, libs, sm=(9, 0), drop=()):
    """A CUDA HardwareProfile as an H100 (or another SM) would report, with the given libraries."""
    hw = mod("accel.common.hardware")
    libraries = {k: (hw.LibraryInfo(k, False, error="not installed") if k in drop else v) for k, v in libs.items()}
    return hw.HardwareProfile(device_kind="cuda", gpu_name=f"Simulated sm{sm[0]}{sm[1]}", sm=sm,
                              torch_version=torch.__version__, cuda_version="13.0", cudnn_version=91900,
                              triton_version="3.6.0", libraries=libraries)


def wan(M, variant="t2v", dtype=torch.float32):
    cfg = {"image_model": "wan2.1", "model_type": variant, "patch_size": (1, 2, 2),
           "in_dim": 36 if variant == "i2v" else 16, "dim": 256, "ffn_dim": 256, "freq_dim": 256, "out_dim": 16,
           "num_heads": 2, "num_layers": 1, "window_size": (-1, -1), "qk_norm": True, "cross_attn_norm": True,
           "eps": 1e-6}
    m = M.tiny_model_from_config(cfg, dtype=dtype)
    m.model.diffusion_model.patch_embedding.float()  # ComfyUI keeps Wan's patch embedding in float32
    return m


def qwen(M, dtype=torch.float32):
    cfg = {"image_model": "qwen_image", "in_channels": 64, "out_channels": 16, "num_layers": 1,
           "attention_head_dim": 64, "num_attention_heads": 2, "joint_attention_dim": 64, "axes_dims_rope": (8, 28, 28)}
    return M.tiny_model_from_config(cfg, dtype=dtype)


def model_case(M, name, dtype):
    """(patcher, forward args) for one tiny model: every attention call site of these models runs."""
    g = torch.Generator().manual_seed(1)
    r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
    if name == "wan_t2v":
        return wan(M, "t2v", dtype), (r(1, 16, 2, 4, 4), r(1, 8, 4096)), {}
    if name == "wan_i2v":  # self-attention, text cross-attention and image (CLIP) cross-attention
        return wan(M, "i2v", dtype), (r(1, 16, 2, 4, 4),
                                      r(1, 8, 4096)), {"c_concat": r(1, 20, 2, 4, 4), "clip_fea": r(1, 4, 1280)}
    if name == "flux":
        return M.tiny_flux(dtype=dtype), (r(1, 16, 8, 8), r(1, 8, 64)), {"y": r(1, 32), "guidance": torch.tensor([3.5])}
    if name == "qwen":  # mask passed positionally, (B, H, L, D) with skip_reshape
        return qwen(M, dtype), (r(1, 16, 1, 8, 8), r(1, 8, 64)), {}
    raise KeyError(name)


def forward(patcher, args, extra):
    from accel_harness.forward import Forward

    with torch.inference_mode(), Forward(patcher) as f:  # ComfyUI executes prompts in inference mode
        return f(args[0], 0.7, args[1], **extra).float()


@pytest.fixture
def count_comfy_attention(monkeypatch):
    """Counts calls that reach ComfyUI's own CPU attention (sub-quadratic): an attention call that
    bypassed our override would show up here."""
    import comfy.ldm.modules.attention as cattn

    counter = collections.Counter()
    orig = cattn.efficient_dot_product_attention

    def counting(*a, **k):
        counter["comfy"] += 1
        return orig(*a, **k)

    monkeypatch.setattr(cattn, "efficient_dot_product_attention", counting)
    return counter


def close(a, b, tol):
    err = float((a.float() - b.float()).abs().max())
    scale = float(b.float().abs().max()) or 1.0
    return err <= tol * scale, f"max|diff| {err:.3g} vs tol {tol} * {scale:.3g}"


def override_of(A, patcher):
    return patcher.model_options.get("transformer_options", {}).get(A.OVERRIDE_KEY)


# --- 1. the override reaches every attention call; SDPA variants reproduce stock ----------------

@pytest.mark.parametrize("case", ["wan_t2v", "wan_i2v", "flux", "qwen"])
def test_sdpa_backends_serve_every_call_and_match_stock(A, M, stats, count_comfy_attention, case):
    model, args, extra = model_case(M, case, torch.float32)
    stock = forward(model, args, extra)
    n_calls = count_comfy_attention["comfy"]
    assert n_calls >= 1
    for backend in ("sdpa", "sdpa_math"):
        count_comfy_attention.clear()
        stats.clear()
        patched, report = A.apply_attention(model, backend)
        assert backend in report
        out = forward(patched, args, extra)
        assert count_comfy_attention["comfy"] == 0, "an attention call bypassed the override"
        assert stats == {(backend, "served"): n_calls}, stats
        ok, msg = close(out, stock, FP32_TOL)
        assert ok, f"{case}/{backend}: {msg}"


@pytest.mark.parametrize("case", ["wan_t2v", "wan_i2v", "flux", "qwen"])
def test_fake_flash_attention_3_runs_whole_models(A, M, mod, fakes, stats, count_comfy_attention, case):
    libs, fc = fakes
    model, args, extra = model_case(M, case, torch.bfloat16)
    stock = forward(model, args, extra)
    n_calls = count_comfy_attention["comfy"]
    count_comfy_attention.clear()
    fc.CALLS.clear()
    prof = sim_profile(mod, libs, drop=("fa3_fwd_interface",))
    patched, report = A.apply_attention(model, "auto", profile=prof, tensor_device_types=("cpu",))
    assert "flash_attn_3 (flash_attn_interface" in report and "Hopper" in report
    fc.CALLS.clear()  # (the patch-time probe ran the kernel once)
    out = forward(patched, args, extra)
    assert count_comfy_attention["comfy"] == 0
    assert stats == {("flash_attn_3", "served"): n_calls}, stats
    assert [c["lib"] for c in fc.CALLS] == ["flash_attn_interface"] * n_calls
    ok, msg = close(out, stock, BF16_TOL)
    assert ok, f"{case}: {msg}"


# --- 2. adapters: every library, every call convention -------------------------------------------

def _spec_reference(q, k, v, heads, mask=None, skip_reshape=False, skip_output_reshape=False, scale=None,
                    enable_gqa=False, **_):
    """What ComfyUI's attention functions compute for each call convention (the test's spec)."""
    if skip_reshape:
        qh, kh, vh = q, k, v
    else:
        b, lq, hd = q.shape
        d = hd // heads
        qh = q.reshape(b, lq, heads, d).transpose(1, 2)
        kh = k.reshape(b, k.shape[1], -1, d).transpose(1, 2)
        vh = v.reshape(b, v.shape[1], -1, d).transpose(1, 2)
    qf, kf, vf = qh.float(), kh.float(), vh.float()
    if kf.shape[1] != qf.shape[1]:
        assert enable_gqa
        kf = kf.repeat_interleave(qf.shape[1] // kf.shape[1], 1)
        vf = vf.repeat_interleave(qf.shape[1] // vf.shape[1], 1)
    s = qf @ kf.transpose(-1, -2) * (scale if scale is not None else 1 / math.sqrt(qf.shape[-1]))
    if mask is not None:
        m = mask
        while m.ndim < 4:
            m = m.unsqueeze(0) if m.ndim < 3 else m.unsqueeze(1)
        s = s.masked_fill(~m, float("-inf")) if m.dtype == torch.bool else s + m.float()
    o = (s.softmax(-1) @ vf).to(q.dtype)
    if skip_output_reshape:
        return o
    return o.transpose(1, 2).reshape(o.shape[0], o.shape[2], -1)


def _conventions(d, dtype=torch.bfloat16):
    """(label, args, kwargs) for each call convention ComfyUI models use (B=2, H=2 unless GQA)."""
    g = torch.Generator().manual_seed(0)
    r = lambda *s: torch.randn(*s, generator=g).to(dtype)  # noqa: E731
    to = {"transformer_options": {}, "_inside_attn_wrapper": True}
    h = 2
    return [
        ("wan_self (B,L,H*D) heads=", (r(2, 24, h * d), r(2, 24, h * d), r(2, 24, h * d)), dict(heads=h, **to)),
        ("wan_cross Lq!=Lk", (r(2, 24, h * d), r(2, 10, h * d), r(2, 10, h * d)), dict(heads=h, **to)),
        ("flux (B,H,L,D) skip_reshape mask=None", (r(2, h, 24, d), r(2, h, 24, d), r(2, h, 24, d), h),
         dict(skip_reshape=True, mask=None, **to)),
        ("qwen mask positional", (r(2, h, 24, d), r(2, h, 24, d), r(2, h, 24, d), h, None),
         dict(skip_reshape=True, **to)),
        ("gather skip_output_reshape", (r(2, h, 24, d), r(2, h, 10, d), r(2, h, 10, d)),
         dict(heads=h, skip_reshape=True, skip_output_reshape=True, **to)),
        ("(B,L,H*D) in, (B,H,L,D) out", (r(2, 24, h * d), r(2, 24, h * d), r(2, 24, h * d)),
         dict(heads=h, skip_output_reshape=True, **to)),
        ("gqa (B,L,H*D)", (r(2, 24, 4 * d), r(2, 10, 2 * d), r(2, 10, 2 * d)), dict(heads=4, enable_gqa=True, **to)),
        ("gqa (B,H,L,D)", (r(2, 4, 24, d), r(2, 2, 10, d), r(2, 2, 10, d)),
         dict(heads=4, skip_reshape=True, enable_gqa=True, **to)),
        ("scale", (r(2, 24, h * d), r(2, 24, h * d), r(2, 24, h * d)), dict(heads=h, scale=0.05, **to)),
        ("low_precision_attention=True", (r(2, 24, h * d), r(2, 24, h * d), r(2, 24, h * d)),
         dict(heads=h, low_precision_attention=True, attn_precision=torch.float32, **to)),
    ]


def _original(calls):
    """Stands in for ComfyUI's original attention function: records that the override fell back."""
    def attention_original(*args, **kwargs):
        calls.append(1)
        a = dict(zip(("q", "k", "v", "heads", "mask"), args, strict=False))
        a.update({k: v for k, v in kwargs.items() if k not in ("transformer_options", "_inside_attn_wrapper")})
        return _spec_reference(**a)
    return attention_original


def test_spec_reference_matches_comfyui_attention():
    """Our test spec equals ComfyUI's own attention (basic and sub-quadratic) on the conventions
    0.3.75 supports (no scale / GQA kwargs there)."""
    import comfy.ldm.modules.attention as cattn

    for label, args, kwargs in _conventions(64, torch.float32)[:6]:
        kw = dict(kwargs)
        ref = _spec_reference(*args, **{k: v for k, v in kw.items()
                                        if k not in ("transformer_options", "_inside_attn_wrapper")})
        for fn in (cattn.attention_basic, cattn.attention_sub_quad):
            out = fn(*args, **kw)
            ok, msg = close(out, ref, FP32_TOL)
            assert out.shape == ref.shape and ok, f"{label} {fn.__name__}: {msg}"


# backend, library expected to run, simulated SM, libraries to hide so the wanted one is used, head dim
LIB_CASES = [
    ("flash_attn_2", "flash_attn", (8, 9), (), 64),
    ("flash_attn_3", "flash_attn_interface", (9, 0), (), 128),
    ("flash_attn_3", "fa3_fwd_interface", (9, 0), ("flash_attn_interface",), 128),
    ("flash_attn_4", "flash_attn_cute", (10, 0), (), 128),
    ("sage", "sageattn", (8, 9), (), 128),
    ("sageattn_qk_int8_pv_fp16_triton", "sageattn_qk_int8_pv_fp16_triton", (8, 6), (), 64),
    ("sageattn_qk_int8_pv_fp16_cuda", "sageattn_qk_int8_pv_fp16_cuda", (8, 0), (), 96),
    ("sageattn_qk_int8_pv_fp8_cuda", "sageattn_qk_int8_pv_fp8_cuda", (8, 9), (), 128),
    ("sageattn_qk_int8_pv_fp8_cuda_sm90", "sageattn_qk_int8_pv_fp8_cuda_sm90", (9, 0), (), 128),
    ("sage3", "sageattn3", (12, 0), (), 128),
    ("xformers", "xformers", (7, 5), (), 64),
]


def test_every_registry_backend_has_an_adapter_and_a_test(mod):
    registry = mod("kernels.attention.registry")
    adapters = mod("kernels.attention.adapters")
    assert set(adapters.ADAPTERS) == set(registry.BACKENDS)
    tested = {c[0] for c in LIB_CASES} | {"sdpa", "sdpa_math"}  # + the pinned SDPA variants below
    tested |= {"flash_attn_3_fp8", "comfy_kitchen_int8"}  # tests/attention/test_quant_attention.py
    tested |= {"radial_sparse"}  # tests/attention/test_sparse_backend.py
    assert set(registry.BACKENDS) - tested == {"sdpa_cudnn", "sdpa_flash", "sdpa_efficient"}


def test_pinned_sdpa_variants_pin_their_kernel(mod, monkeypatch):
    """sdpa_cudnn/flash/efficient cannot run on a CPU: check they enter sdpa_kernel with their backend."""
    from torch.nn.attention import SDPBackend

    adapters = mod("kernels.attention.adapters")
    hw = mod("accel.common.hardware")
    prof = hw.HardwareProfile(device_kind="cuda", gpu_name="sim", sm=(9, 0), torch_version=torch.__version__)
    seen = []
    import torch.nn.attention as tna

    real = tna.sdpa_kernel

    def spy(backends, *a, **k):
        seen.append(backends)
        return real(SDPBackend.MATH)  # run the math kernel on this CPU instead

    for name, member in (("sdpa_cudnn", "CUDNN_ATTENTION"), ("sdpa_flash", "FLASH_ATTENTION"),
                         ("sdpa_efficient", "EFFICIENT_ATTENTION")):
        adapters.forget()
        with monkeypatch.context() as mp:
            mp.setattr(tna, "sdpa_kernel", spy)  # the adapter binds sdpa_kernel when it is built
            kern = adapters.build_kernel(name, prof)
        q = torch.randn(1, 2, 8, 64)
        seen.clear()
        out = kern.call(q, q, q, None, None, "bhld")
        assert seen == [getattr(SDPBackend, member)]
        assert close(out, _spec_reference(q, q, q, 2, skip_reshape=True, skip_output_reshape=True), FP32_TOL)[0]
        assert kern.device_types == {"cuda"}
        assert (torch.float32 in kern.dtypes) == (name == "sdpa_efficient")  # registry: only it takes fp32
    adapters.forget()


@pytest.mark.parametrize("backend,lib,sm,drop,d", LIB_CASES, ids=[f"{c[0]}-{c[1]}" for c in LIB_CASES])
def test_adapter_call_conventions(A, M, mod, fakes, stats, backend, lib, sm, drop, d):
    libs, fc = fakes
    prof = sim_profile(mod, libs, sm=sm, drop=drop)
    patched, report = A.apply_attention(M.tiny_flux(), backend, profile=prof, tensor_device_types=("cpu",))
    ov = override_of(A, patched)
    assert ov is not None and ov.backend == backend, report
    for label, args, kwargs in _conventions(d):
        if backend == "sage3" and "scale" in kwargs:
            continue  # SageAttention3 has no scale argument: covered by the fallback test
        before = [t.clone() for t in args[:3]]
        fc.CALLS.clear()
        fell_back = []
        out = ov(_original(fell_back), *args, **kwargs)
        ref = _spec_reference(*args, **{k: v for k, v in kwargs.items()
                                        if k not in ("transformer_options", "_inside_attn_wrapper")})
        assert not fell_back, f"{label}: fell back to ComfyUI's attention"
        assert [c["lib"] for c in fc.CALLS] == [lib], f"{label}: {fc.CALLS}"
        assert out.shape == ref.shape and out.dtype == ref.dtype, f"{label}: {out.shape} {out.dtype} vs {ref.shape}"
        ok, msg = close(out, ref, BF16_TOL)
        assert ok, f"{label}: {msg}"
        for t, t0 in zip(args[:3], before, strict=True):
            assert torch.equal(t, t0), f"{label}: the backend modified an input tensor"
        if "scale" in kwargs:
            assert fc.CALLS[0]["scale"] == kwargs["scale"]
        if lib.startswith("sage"):  # both layouts are native: no transpose for (B,H,L,D) calls
            assert fc.CALLS[0]["layout"] == ("HND" if kwargs.get("skip_reshape") or lib == "sageattn3" else "NHD")
            if lib != "sageattn3":
                assert fc.CALLS[0]["smooth_k"] is False  # smoothing is done out of place by the adapter


@pytest.mark.parametrize("backend,sm", [("xformers", (8, 0)), ("sdpa", (9, 0)), ("sdpa_math", (9, 0))])
def test_mask_capable_backends_serve_masks(A, M, mod, fakes, stats, backend, sm):
    libs, fc = fakes
    prof = sim_profile(mod, libs, sm=sm)
    patched, _ = A.apply_attention(M.tiny_flux(), backend, profile=prof, tensor_device_types=("cpu",))
    ov = override_of(A, patched)
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(2, 2, 12, 64, generator=g).to(torch.bfloat16) for _ in range(3))
    additive = torch.zeros(2, 12, 12).masked_fill(torch.rand(2, 12, 12, generator=g) > 0.7, float("-inf"))
    additive[..., 0] = 0.0
    boolean = torch.rand(12, 12, generator=g) > 0.3
    boolean[:, 0] = True
    for mask in (additive.to(torch.bfloat16), boolean):
        fell_back = []
        out = ov(_original(fell_back), q, k, v, 2, mask, skip_reshape=True, transformer_options={},
                 _inside_attn_wrapper=True)
        ref = _spec_reference(q, k, v, 2, mask, skip_reshape=True)
        assert not fell_back
        ok, msg = close(out, ref, BF16_TOL)
        assert ok, msg
    assert stats[(backend, "served")] == 2


# --- 3. per-call fallbacks, warned once; strict mode ----------------------------------------------

def _fallback_cases(d=128):
    g = torch.Generator().manual_seed(5)
    r = lambda *s, dt=torch.bfloat16: torch.randn(*s, generator=g).to(dt)  # noqa: E731
    to = {"transformer_options": {}, "_inside_attn_wrapper": True}
    bhld = lambda dd=d, dt=torch.bfloat16: tuple(r(1, 2, 16, dd, dt=dt) for _ in range(3))  # noqa: E731
    return {
        "mask": (bhld() + (2, torch.zeros(16, 16, dtype=torch.bfloat16)), dict(skip_reshape=True, **to)),
        "dtype:float32": (bhld(dt=torch.float32), dict(heads=2, skip_reshape=True, **to)),
        "head_dim:512": (bhld(512), dict(heads=2, skip_reshape=True, **to)),
        "head_dim:256": (bhld(256), dict(heads=2, skip_reshape=True, **to)),
        "exact": (bhld(), dict(heads=2, skip_reshape=True, low_precision_attention=False, **to)),
        "kwarg:is_causal": (bhld(), dict(heads=2, skip_reshape=True, is_causal=True, **to)),
        "dtype:float16": (bhld(dt=torch.float16), dict(heads=2, skip_reshape=True, **to)),
    }


# backend, library, sm, hidden libraries, {case: falls back?}
FALLBACK_EXPECT = [
    ("flash_attn_3", "fa3_fwd_interface", (9, 0), ("flash_attn_interface",),
     {"mask": True, "dtype:float32": True, "head_dim:512": True, "head_dim:256": False, "exact": False,
      "kwarg:is_causal": True, "dtype:float16": False}),  # bf16-only build: fp16 served via a bf16 cast
    ("flash_attn_3", "flash_attn_interface", (9, 0), (),
     {"mask": True, "dtype:float16": False, "exact": False}),
    ("sage", "sageattn", (8, 9), (),
     {"mask": True, "dtype:float32": True, "head_dim:256": True, "exact": True, "dtype:float16": False}),
]


@pytest.mark.parametrize("backend,lib,sm,drop,expect", FALLBACK_EXPECT, ids=[f"{c[0]}-{c[1]}" for c in FALLBACK_EXPECT])
def test_per_call_fallbacks_warn_once(A, M, mod, fakes, stats, caplog, backend, lib, sm, drop, expect):
    libs, fc = fakes
    prof = sim_profile(mod, libs, sm=sm, drop=drop)
    patched, _ = A.apply_attention(M.tiny_flux(), backend, profile=prof, tensor_device_types=("cpu",))
    ov = override_of(A, patched)
    cases = _fallback_cases()
    for code, should_fall_back in expect.items():
        args, kwargs = cases[code]
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="comfyui-accel"):
            for _ in range(3):
                fell_back, fc.CALLS[:] = [], []
                out = ov(_original(fell_back), *args, **kwargs)
                assert bool(fell_back) == should_fall_back, code
                assert [c["lib"] for c in fc.CALLS] == ([] if should_fall_back else [lib]), code
                if not should_fall_back:
                    # the fake enforces its build's dtypes (fa3-fwd: bf16 only); output keeps the caller's dtype
                    assert out.dtype == args[0].dtype, code
                ref = _spec_reference(*args, **{k: v for k, v in kwargs.items()
                                                if k in ("heads", "skip_reshape", "mask")})
                assert close(out, ref, BF16_TOL)[0], code
        warnings = [r for r in caplog.records if "cannot serve" in r.getMessage()]
        assert len(warnings) == (1 if should_fall_back else 0), (code, [r.getMessage() for r in warnings])
        if should_fall_back:
            assert stats[(backend, "fallback", code)] == 3


def test_strict_refusal_names_a_backend_that_serves_the_call(A, M, mod, fakes, stats, AccelError):
    """With fallback 'error' a call the kernel cannot serve (here: a mask on FA3) stops with an error naming the input
    and a remedy that works: 'sdpa' serves it ('auto' on this GPU is FA3 itself, so naming it would send the user in
    a circle)."""
    libs, fc = fakes
    patched, _ = A.apply_attention(M.tiny_flux(), "flash_attn_3", profile=sim_profile(mod, libs),
                                   tensor_device_types=("cpu",), policy=mod("accel.common.policy").Policy.ERROR)
    ov = override_of(A, patched)
    args, kwargs = _fallback_cases()["mask"]
    with pytest.raises(AccelError) as e:
        ov(_original([]), *args, **kwargs)
    msg = str(e.value)
    assert "'backend'" in msg and "attention masks" in msg and "'sdpa'" in msg and "fallback" in msg, msg
    assert "('auto' or" not in msg
    sdpa, _ = A.apply_attention(M.tiny_flux(), "sdpa", profile=sim_profile(mod, libs), tensor_device_types=("cpu",),
                                policy=mod("accel.common.policy").Policy.ERROR)
    fell_back = []
    out = override_of(A, sdpa)(_original(fell_back), *args, **kwargs)  # the remedy: served, no fallback
    assert not fell_back
    ref = _spec_reference(*args, **{k: v for k, v in kwargs.items() if k in ("heads", "skip_reshape", "mask")})
    assert close(out, ref, BF16_TOL)[0]


def test_cpu_tensors_fall_back_without_the_test_hook(A, M, mod, fakes, stats):
    """Production behaviour: a CUDA-only library never receives CPU tensors."""
    libs, fc = fakes
    patched, _ = A.apply_attention(M.tiny_flux(), "flash_attn_3", profile=sim_profile(mod, libs))
    ov = override_of(A, patched)
    args, kwargs = _conventions(128)[0][1:]
    fell_back = []
    fc.CALLS.clear()
    ov(_original(fell_back), *args, **kwargs)
    assert fell_back and not fc.CALLS
    assert stats[("flash_attn_3", "fallback", "device:cpu")] == 1


def test_gradients_fall_back_for_library_kernels(A, M, mod, fakes, stats):
    libs, fc = fakes
    patched, _ = A.apply_attention(M.tiny_flux(), "flash_attn_2", profile=sim_profile(mod, libs, sm=(8, 0)),
                                   tensor_device_types=("cpu",))
    ov = override_of(A, patched)
    q, k, v = (torch.randn(1, 2, 8, 64, dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    fell_back = []
    ov(_original(fell_back), q, k, v, 2, skip_reshape=True, transformer_options={}, _inside_attn_wrapper=True)
    assert fell_back and stats[("flash_attn_2", "fallback", "grad")] == 1


def test_strict_mode_raises_naming_node_backend_and_reason(A, M, mod, fakes, stats):
    libs, fc = fakes
    errors = mod("accel.common.errors")
    with errors.titled("Accel Attention"):  # the title the node boundary sets (captured by the override)
        patched, report = A.apply_attention(M.tiny_flux(), "sage", "error", profile=sim_profile(mod, libs, sm=(8, 9)),
                                            tensor_device_types=("cpu",))
    assert "raise an error" in report
    ov = override_of(A, patched)
    args, kwargs = _fallback_cases()["head_dim:256"]
    with pytest.raises(errors.AccelError) as ei:
        ov(_original([]), *args, **kwargs)
    text = str(ei.value)
    assert "[Accel Attention]" in text and "'backend'" in text and "sage" in text and "head_dim 256" in text
    assert "fallback" in text


def test_kernel_error_falls_back_once_per_shape(A, M, mod, fakes, stats, caplog):
    """A kernel that raises on an input we did not foresee: that call and later calls of the same
    shape use ComfyUI's attention (no exception per call), with one warning."""
    libs, fc = fakes
    patched, _ = A.apply_attention(M.tiny_flux(), "flash_attn_2", profile=sim_profile(mod, libs, sm=(8, 0)),
                                   tensor_device_types=("cpu",))
    ov = override_of(A, patched)
    args, kwargs = _conventions(64)[2][1:]
    ref = _spec_reference(*args, **{k: v for k, v in kwargs.items() if k in ("skip_reshape", "mask")})
    fc.FAIL["flash_attn"] = "unsupported problem size"
    fc.CALLS.clear()
    try:
        with caplog.at_level(logging.WARNING, logger="comfyui-accel"):
            for _ in range(3):
                fell_back = []
                out = ov(_original(fell_back), *args, **kwargs)
                assert fell_back and close(out, ref, BF16_TOL)[0]
    finally:
        fc.FAIL.clear()
    assert len([r for r in caplog.records if "unsupported problem size" in r.getMessage()]) == 1
    # other shapes still run on the kernel
    args2, kwargs2 = _conventions(64)[4][1:]
    fell_back = []
    ov(_original(fell_back), *args2, **kwargs2)
    assert not fell_back and fc.CALLS[-1]["lib"] == "flash_attn"


# --- 4. auto: the hardware table, probing, the report --------------------------------------------

@pytest.mark.parametrize("sm,drop,expect,skipped_part", [
    ((9, 0), ("fa3_fwd_interface",), "flash_attn_3", None),
    ((9, 0), ("flash_attn_interface", "fa3_fwd_interface"), "sdpa_cudnn", "flash_attn_3 is not installed"),
    ((8, 9), ("flash_attn",), "sdpa", "pip install flash-attn"),  # Sage installed, but auto is exact only
    ((8, 0), (), "flash_attn_2", None),
    ((10, 0), (), "flash_attn_4", None),
])
def test_auto_follows_the_hardware_table(A, M, mod, fakes, stats, sm, drop, expect, skipped_part):
    libs, _ = fakes
    prof = sim_profile(mod, libs, sm=sm, drop=drop)
    # library kernels may serve this machine's CPU tensors through the fakes; pinned SDPA kernels
    # cannot run on a CPU, so they are built without that hook (their probe is then skipped)
    hook = () if expect.startswith("sdpa") else ("cpu",)
    with mod("accel.common.errors").titled("Accel Attention"):  # the title the node boundary sets
        patched, report = A.apply_attention(M.tiny_flux(), "auto", profile=prof, tensor_device_types=hook)
    ov = override_of(A, patched)
    assert ov.backend == expect, report
    assert report.splitlines()[0].startswith(f"Accel Attention: {expect}")
    assert "why: auto on" in report
    if skipped_part:
        assert skipped_part in report


def test_auto_on_hopper_picks_sdpa_for_sdxl(A, M, mod, fakes, stats):
    """SDXL on Hopper: `auto` takes the family's measured backend (PyTorch's SDPA) over FlashAttention-3, and says why
    with both run times; other families on the same machine keep FlashAttention-3 (the test above)."""
    libs, _ = fakes
    defaults, figs = mod("accel.common.defaults"), mod("accel.common.figures")
    prof = sim_profile(mod, libs, sm=(9, 0))
    with mod("accel.common.errors").titled("Accel Attention"):
        patched, report = A.apply_attention(M.tiny_sdxl(), "auto", profile=prof)
        flux, _ = A.apply_attention(M.tiny_flux(), "auto", profile=prof, tensor_device_types=("cpu",))
    assert override_of(A, patched).backend == "sdpa", report
    assert override_of(A, flux).backend == "flash_attn_3"
    assert report.splitlines()[0].startswith("Accel Attention: sdpa")
    assert "at SDXL's attention shapes" in report
    assert figs.text("sdxlattn.h200.sdpa.time") in report and figs.text("sdxlattn.h200.fa3.time") in report
    # the entry only reorders: where its backend cannot be used, the row's list follows
    assert defaults.choose_attention(prof, {"sdpa": "excluded"}, "sdxl")[0] == "flash_attn_3"
    assert defaults.choose_attention(prof, None, "flux")[0] == "flash_attn_3"


def test_auto_skips_a_backend_whose_probe_fails(A, M, mod, fakes, stats):
    libs, fc = fakes
    mod("kernels.attention.adapters").forget()
    fc.WRONG["flash_attn_interface"] = True
    try:
        patched, report = A.apply_attention(M.tiny_flux(), "auto",
                                            profile=sim_profile(mod, libs, drop=("fa3_fwd_interface",)),
                                            tensor_device_types=("cpu",))
    finally:
        fc.WRONG.clear()
        mod("kernels.attention.adapters").forget()
    ov = override_of(A, patched)
    # FA3 returns wrong values -> skipped with the reason; cuDNN SDPA cannot run on this CPU -> skipped; ...
    assert ov is not None and ov.backend not in ("flash_attn_3",), report
    assert "skipped flash_attn_3: probe result is wrong" in report


def test_cpu_auto_and_installed_backends(A, M, mod, pack):
    prof = mod("accel.common.hardware").profile()
    assert A.installed_backends(prof) == ["auto", "sdpa", "sdpa_math"]  # this CPU test machine
    patched, report = A.apply_attention(M.tiny_flux())
    assert override_of(A, patched).backend == "sdpa" and "why: auto on CPU" in report


def test_forced_backend_not_usable(A, M, mod, fakes, stats, caplog):
    libs, _ = fakes
    errors = mod("accel.common.errors")
    model = M.tiny_flux()
    with caplog.at_level(logging.WARNING, logger="comfyui-accel"):
        patched, report = A.apply_attention(model, "flash_attn_3", "fall back")  # this CPU machine
        A.apply_attention(model, "flash_attn_3", "fall back")
    assert override_of(A, patched) is None
    assert "flash_attn_3 cannot be used here" in report and "ComfyUI's own attention" in report
    assert "does not run on cpu" in report and "pip install fa3-fwd" in report
    assert len([r for r in caplog.records if "flash_attn_3" in r.getMessage()]) == 1
    for prof, reason in ((None, "does not run on cpu"),
                         (sim_profile(mod, libs, drop=("flash_attn_interface", "fa3_fwd_interface")), "not installed"),
                         (sim_profile(mod, libs, sm=(8, 6)), "needs SM >= 9.0; this GPU is sm86")):
        with pytest.raises(errors.AccelError) as ei, errors.titled("Accel Attention"):  # as the node boundary sets
            A.apply_attention(model, "flash_attn_3", "error", profile=prof)
        text = str(ei.value)
        assert "[Accel Attention]" in text and "'backend'" in text and "flash_attn_3" in text
        assert reason in text and "pip install fa3-fwd" in text, text
    with pytest.raises(errors.AccelError, match="unknown attention backend 'nope'"):
        A.apply_attention(model, "nope")
    with pytest.raises(ValueError, match="maybe"):  # the node parses its fallback input into a Policy
        A.apply_attention(model, "sdpa", "maybe")


# --- 5. clones, un-patching, the node in a real prompt ------------------------------------------

def test_other_clones_untouched_and_unpatch(A, M, stats):
    model = M.wan_model("t2v", "tiny")
    before = copy.deepcopy(model.model_options)
    pos, neg, lat = M.conditioning(8), M.conditioning(8, seed=1), M.wan_latent(5, 32, 32)
    stock = M.sample(model, pos, neg, lat, steps=2)
    patched, _ = A.apply_attention(model, "sdpa_math")
    sibling = model.clone()
    assert A.OVERRIDE_KEY not in sibling.model_options.get("transformer_options", {})
    assert model.model_options == before
    again = patched.clone()  # e.g. a LoRA loader after our node
    assert override_of(A, again) is override_of(A, patched)  # deepcopy keeps the one immutable override
    M.sample(again, pos, neg, lat, steps=2)
    assert stats[("sdpa_math", "served")] > 0
    stats.clear()
    out = M.sample(model, pos, neg, lat, steps=2)  # the same graph without the node
    assert stats == {} and torch.equal(out, stock)


def test_node_in_a_prompt(A, M, pack, comfy, stats):
    import folder_paths

    from accel_harness.executor import run_prompt, validate

    cls = pack.nodes.NODE_CLASS_MAPPINGS["AccelAttention"]
    assert pack.nodes.NODE_DISPLAY_NAME_MAPPINGS["AccelAttention"] == "Accel Attention"
    assert cls.CATEGORY == "accel/patch" and tuple(cls.RETURN_TYPES) == ("MODEL", "STRING")
    spec = cls.INPUT_TYPES()
    assert spec["required"]["backend"][1]["options"] == A.installed_backends()
    hybrid = {"exact_first_steps", "exact_last_steps", "exact_first_blocks", "exact_last_blocks"}  # quantized backends
    sparse = {"dense_steps", "dense_blocks", "decay_factor"}  # radial_sparse (tests/attention/test_sparse_backend.py)
    assert set(spec["required"]) == {"model", "backend", "fallback"} and \
        set(spec["optional"]) == {"autotune"} | hybrid | sparse
    assert list(spec["optional"])[-3:] == ["dense_steps", "dense_blocks", "decay_factor"]  # new inputs go last
    assert cls.validate_inputs(backend="flash_attn_3") is True and "unknown" in cls.validate_inputs(backend="flash4")

    M.write_wan(Path(folder_paths.get_folder_paths("diffusion_models")[0]) / "attn_tiny_wan.safetensors")
    prompt = {
        "1": {"class_type": "UNETLoader",
              "inputs": {"unet_name": "attn_tiny_wan.safetensors", "weight_dtype": "default"}},
        "2": {"class_type": "AccelAttention",
              "inputs": {"model": ["1", 0], "backend": "flash_attn_3", "fallback": "sdpa",
                                                         "autotune": False}},
        "3": {"class_type": "PreviewAny", "inputs": {"source": ["2", 1]}},
    }
    # a shared workflow naming a backend that is not installed here validates (no "value not in list")
    ok, err, _, node_errors = validate(prompt)
    assert ok, (err, node_errors)
    _, history = run_prompt(prompt)
    text = history["outputs"]["2"]["text"][0]
    assert "flash_attn_3 cannot be used here" in text and "pip install fa3-fwd" in text
    prompt["2"]["inputs"]["fallback"] = "error"
    with pytest.raises(RuntimeError) as ei:
        run_prompt(prompt)
    assert "[Accel Attention]" in str(ei.value) and "fa3-fwd" in str(ei.value)
    # radial_sparse (CUDA only): its inputs reach the node; here it is not usable and falls back
    prompt["2"]["inputs"].update(backend="radial_sparse", fallback="fall back", dense_steps=2, dense_blocks=0,
                                 decay_factor=0.5)
    _, history = run_prompt(prompt)
    assert "radial_sparse cannot be used here" in history["outputs"]["2"]["text"][0]
    prompt["2"]["inputs"]["backend"] = "no_such_backend"
    ok, err, _, node_errors = validate(prompt)
    assert not ok and "unknown attention backend" in str(node_errors)


# --- 6. torch.compile: no graph break per attention call ------------------------------------------

@pytest.mark.parametrize("backend,lib_sm", [("sdpa", None), ("flash_attn_3", (9, 0)), ("sage", (8, 9))])
def test_compile_traces_without_graph_breaks(A, M, mod, fakes, stats, backend, lib_sm):
    libs, _ = fakes
    prof = sim_profile(mod, libs, sm=lib_sm, drop=("fa3_fwd_interface",)) if lib_sm else None
    patched, report = A.apply_attention(M.tiny_flux(), backend, profile=prof, tensor_device_types=("cpu",))
    ov = override_of(A, patched)
    if lib_sm:
        assert "custom op comfyui_accel::" in report
    q, k, v = (torch.randn(1, 2, 16, 128, dtype=torch.bfloat16) for _ in range(3))

    def block(q, k, v):
        x = ov(_original([]), q * 2, k, v, 2, skip_reshape=True, transformer_options={}, _inside_attn_wrapper=True)
        return x * 3

    torch._dynamo.reset()
    explained = torch._dynamo.explain(block)(q, k, v)
    assert explained.graph_break_count == 0, explained.break_reasons
    compiled = torch.compile(block, backend="aot_eager", fullgraph=True)
    assert close(compiled(q, k, v), block(q, k, v), BF16_TOL)[0]
    torch._dynamo.reset()


def test_fp16_cast_of_a_bf16_only_build_is_traced_outside_the_custom_op(A, M, mod, fakes, stats):
    """fa3-fwd is bf16-only: fp16 calls are cast. The casts must be graph ops around the custom op
    (so inductor fuses them into RoPE / the next op), not hidden inside it."""
    libs, fc = fakes
    patched, _ = A.apply_attention(M.tiny_flux(), "flash_attn_3",
                                   profile=sim_profile(mod, libs, drop=("flash_attn_interface",)),
                                   tensor_device_types=("cpu",))
    ov = override_of(A, patched)
    q, k, v = (torch.randn(1, 2, 16, 128, dtype=torch.float16) for _ in range(3))
    graphs = []
    fc.CALLS.clear()

    def capture(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def block(q, k, v):
        return ov(_original([]), q * 2, k, v, 2, skip_reshape=True, transformer_options={},
                  _inside_attn_wrapper=True) * 3

    torch._dynamo.reset()
    out = torch.compile(block, backend=capture, fullgraph=True)(q, k, v)
    torch._dynamo.reset()
    assert out.dtype == torch.float16
    assert close(out, block(q, k, v), BF16_TOL)[0]
    (gm,) = graphs
    op_nodes = [n for n in gm.graph.nodes if "comfyui_accel" in str(n.target)]
    assert len(op_nodes) == 1, gm.code
    ins = [a for a in op_nodes[0].args[:3]]
    assert all(a.meta["example_value"].dtype == torch.bfloat16 for a in ins), gm.code
    assert op_nodes[0].meta["example_value"].dtype == torch.bfloat16
    assert fc.CALLS and all(c["lib"] == "fa3_fwd_interface" for c in fc.CALLS)

@pytest.mark.parametrize("backend", ["sdpa", "flash_attn_3"])
def test_whole_wan_forward_traces_in_one_graph(A, M, mod, fakes, stats, backend):
    """ComfyUI's CPU attention (sub-quadratic) breaks the graph at every call; patched, the whole
    tiny Wan forward is one graph (a library kernel is a custom op with a fake implementation)."""
    libs, _ = fakes
    model = wan(M, "t2v", torch.bfloat16)
    prof = sim_profile(mod, libs, drop=("fa3_fwd_interface",)) if backend != "sdpa" else None
    patched, _ = A.apply_attention(model, backend, profile=prof, tensor_device_types=("cpu",))
    to = patched.model_options["transformer_options"]
    dm = patched.model.diffusion_model
    x, t, ctx = torch.randn(1, 16, 2, 4, 4,
                            dtype=torch.bfloat16), torch.tensor([500.0]), torch.randn(1, 8, 4096, dtype=torch.bfloat16)
    torch._dynamo.reset()
    with torch.inference_mode():
        explained = torch._dynamo.explain(lambda x, t, c: dm(x, t, c, transformer_options=dict(to)))(x, t, ctx)
    torch._dynamo.reset()
    assert explained.graph_break_count == 0, [str(r.reason)[:200] for r in explained.break_reasons]
    assert stats[(backend, "served")] >= 2


def test_nothing_is_imported_or_registered_at_startup(comfy):
    """Loading the pack (ComfyUI start-up) imports no adapter module, so no library is imported and
    no custom op is registered until the node runs."""
    import json
    import os
    import subprocess
    import textwrap

    import accel_harness as H

    code = textwrap.dedent(f"""
        import sys, json
        sys.path.insert(0, {str(H.REPO_ROOT / 'harness')!r})
        import accel_harness as H
        H.bootstrap()
        pack = H.load_pack()
        import torch
        mods = sorted(m for m in sys.modules
                      if (m.startswith(pack.__name__ + '.kernels.attention.')
                          or m.startswith(pack.__name__ + '.accel.attention'))
                      and not m.endswith('.kernels.attention.registry'))
        print("MODS=" + json.dumps(mods))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert out.returncode == 0, out.stderr[-3000:]
    mods = json.loads([x for x in out.stdout.splitlines() if x.startswith("MODS=")][-1][5:])
    assert mods == [], mods


# --- 7. autotune: measured choice per shape, cached on disk ----------------------------------------

def test_autotune_times_once_per_shape_and_caches_on_disk(A, M, mod, fakes, stats, tmp_path, monkeypatch):
    import json

    libs, fc = fakes
    path = tmp_path / "attention_autotune.json"
    monkeypatch.setattr(A, "autotune_path", lambda: path)
    prof = sim_profile(mod, libs, sm=(9, 0), drop=("fa3_fwd_interface", "xformers", "flash_attn_cute"))
    fc.DELAY_S["flash_attn_interface"] = 0.02  # make FA3 the slow one here: something else must win
    try:
        patched, report = A.apply_attention(M.tiny_flux(), "flash_attn_3", autotune=True, profile=prof,
                                            tensor_device_types=("cpu",))
        assert "autotune: on" in report and "flash_attn_2" in report
        ov = override_of(A, patched)
        args, kwargs = _conventions(128)[0][1:]
        fc.CALLS.clear()
        out = ov(_original([]), *args, **kwargs)
        assert len(fc.CALLS) > 2  # fake candidates ran warm-up + repeats
        entry = next(iter(ov.tuner.last.values()))
        times = entry["times_ms"]
        assert entry["source"] == "measured" and {"flash_attn_3", "flash_attn_2"} <= set(times), entry
        winner = entry["winner"]
        assert winner == min(times, key=times.get) and winner != "flash_attn_3"
        assert stats[(winner, "served")] == 1
        fc.CALLS.clear()
        ov(_original([]), *args, **kwargs)
        assert stats[(winner, "served")] == 2
        assert len(fc.CALLS) == (1 if winner == "flash_attn_2" else 0)  # no re-timing for a known shape
        data = json.loads(path.read_text())
        assert len(data) == 1 and next(iter(data.values()))["winner"] == winner
        assert prof.cache_key() in next(iter(data))
        assert close(out, _spec_reference(*args, heads=2), BF16_TOL)[0]
        # a new patch (next ComfyUI run) reads the disk cache instead of timing again
        patched2, _ = A.apply_attention(M.tiny_flux(), "flash_attn_3", autotune=True, profile=prof,
                                        tensor_device_types=("cpu",))
        ov2 = override_of(A, patched2)
        fc.CALLS.clear()
        ov2(_original([]), *args, **kwargs)
        assert len(fc.CALLS) <= 1 and stats[(winner, "served")] == 3
        assert next(iter(ov2.tuner.last.values()))["source"] == "disk"
    finally:
        fc.DELAY_S.clear()


def _fa3_standin(fwd, signature=None):
    """A module shaped like fa3-fwd's interface: its raw op namespace (`fa3_fwd_cuda.fwd`), the function under its
    `_flash_attn_forward` custom op (`_init_fn`, with that signature), and `flash_attn_func` (exact attention)."""
    import types

    names = signature or ("q", "k", "v", "k_new", "v_new", "qv", "out_", "cu_seqlens_q", "cu_seqlens_k",
                          "cu_seqlens_k_new", "seqused_q", "seqused_k", "max_seqlen_q", "max_seqlen_k", "page_table",
                          "kv_batch_idx", "leftpad_k", "rotary_cos", "rotary_sin", "seqlens_rotary", "q_descale",
                          "k_descale", "v_descale", "softmax_scale", "causal", "window_size_left", "window_size_right",
                          "attention_chunk", "softcap", "rotary_interleaved", "scheduler_metadata", "num_splits",
                          "pack_gqa", "sm_margin")
    ns = {}
    exec(f"def init({', '.join(names)}): pass", ns)  # noqa: S102 - a function with exactly these parameters

    def entry(q, k, v, softmax_scale=None, causal=False):
        return _exact(q, k, v, softmax_scale), None

    return types.SimpleNamespace(fa3_fwd_cuda=types.SimpleNamespace(fwd=fwd),
                                 _flash_attn_forward=types.SimpleNamespace(_init_fn=ns["init"]), flash_attn_func=entry)


def _exact(q, k, v, scale):
    s = scale if scale is not None else q.shape[-1] ** -0.5
    a = torch.einsum("blhd,bmhd->bhlm", q.float(), k.float()) * s
    return torch.einsum("bhlm,bmhd->blhd", a.softmax(-1), v.float()).to(q.dtype)


def test_fa3_raw_forward_is_called_as_the_interface_calls_it(mod):
    """kernels.attention.flash.direct_fa3: fa3-fwd's raw forward op, called with the interface's argument order (q, k,
    v, 20 unused inputs, the scale, not causal, no window, ...), used only when it returns exactly what
    flash_attn_func returns on the device; a different argument list or a different result keeps the interface."""
    flash = mod("kernels.attention.flash")
    seen = []

    def fwd(*args):
        seen.append(args)
        q, k, v = args[:3]
        assert all(a is None for a in args[3:23]) and args[24:] == (False, -1, -1, 0, 0.0, True, None, 1, None, 0)
        return _exact(q, k, v, args[23]), None, None, None

    direct = flash.direct_fa3(_fa3_standin(fwd), "cpu")
    assert direct is not None and len(seen) == 2 and len(seen[0]) == 34  # checked at build: default and given scale
    q, k, v = (torch.randn(1, 7, 2, 16).to(torch.bfloat16) for _ in range(3))
    assert torch.equal(direct(q, k, v, 0.3), _exact(q, k, v, 0.3)) and seen[-1][23] == 0.3
    assert direct(q, k, v, None).shape == q.shape and seen[-1][23] == 16 ** -0.5

    def wrong(*args):  # a build whose raw op differs from its interface: not used
        return -_exact(*args[:3], args[23]), None, None, None

    assert flash.direct_fa3(_fa3_standin(wrong), "cpu") is None
    other = ("q", "k", "v", "softmax_scale")  # another interface version: not used
    assert flash.direct_fa3(_fa3_standin(fwd, other), "cpu") is None
    assert flash.direct_fa3(_fa3_standin(fwd), None) is None
