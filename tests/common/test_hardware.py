"""Hardware profile and the defaults table: every GPU class, with and without the preferred library."""
import sys
import types

import pytest


@pytest.fixture(scope="module")
def hw(mod):
    return mod("accel.common.hardware")


@pytest.fixture(scope="module")
def defaults(mod):
    return mod("accel.common.defaults")


def lib(hw, key, version="1.0", kernels=("flash_attn_func",)):
    return hw.LibraryInfo(key, True, version, tuple(kernels))


def profile(hw, kind="cuda", sm=None, libs=(), torch="2.11.0", triton="3.6.0", name="GPU", arch=None):
    libraries = {k: hw.LibraryInfo(k, False, error="not installed") for k, _m, _d in hw.ATTENTION_LIBRARIES}
    for info in libs:
        libraries[info.key] = info
    return hw.HardwareProfile(device_kind=kind, gpu_name=name, sm=sm, gcn_arch=arch, vram_bytes=80 * 2**30,
                              torch_version=torch, cuda_version="13.0" if kind == "cuda" else None,
                              triton_version=triton, c_compiler="cc", libraries=libraries)


SAGE2 = ("sageattn", "sageattn_qk_int8_pv_fp16_triton", "sageattn_qk_int8_pv_fp16_cuda",
         "sageattn_qk_int8_pv_fp8_cuda", "sageattn_qk_int8_pv_fp8_cuda_sm90")


# (description, profile kwargs, libraries, expected attention, expected fp8 path)
CASES = [
    ("H100/H200 sm90 with FA3 (fa3-fwd)", dict(sm=(9, 0)), [("fa3_fwd_interface",)], "flash_attn_3",
     "scaled_mm_rowwise"),
    ("H100 sm90 with FA3 hopper build", dict(sm=(9, 0)), [("flash_attn_interface",)], "flash_attn_3",
     "scaled_mm_rowwise"),
    ("H200 sm90, no FA3: cuDNN SDPA", dict(sm=(9, 0)), [], "sdpa_cudnn", "scaled_mm_rowwise"),
    ("H100 sm90, old torch, FA2 only", dict(sm=(9, 0), torch="2.4.1"), [("flash_attn",)], "flash_attn_2",
     "scaled_mm_tensorwise"),
    ("L40S sm89 with FA2", dict(sm=(8, 9), name="NVIDIA L40S"), [("flash_attn",)], "flash_attn_2",
     "scaled_mm_tensorwise"),
    # SageAttention is low precision: `auto` never picks it (opt-in by name in Accel Attention)
    ("RTX 4090 sm89, no FA2, Sage2: exact SDPA", dict(sm=(8, 9)), [("sageattention", "2.2.0", SAGE2)],
     "sdpa", "scaled_mm_tensorwise"),
    ("L40 sm89, Sage 1.0.6 (Triton only)", dict(sm=(8, 9)), [("sageattention", "1.0.6", ("sageattn",))], "sdpa",
     "scaled_mm_tensorwise"),
    ("L40 sm89, nothing installed", dict(sm=(8, 9)), [], "sdpa", "scaled_mm_tensorwise"),
    ("A100 sm80 with FA2", dict(sm=(8, 0)), [("flash_attn",)], "flash_attn_2", "dequant"),
    ("RTX 3090 sm86, Sage2", dict(sm=(8, 6)), [("sageattention", "2.1.1", SAGE2)], "sdpa", "dequant"),
    ("RTX 3090 sm86, nothing", dict(sm=(8, 6)), [], "sdpa", "dequant"),
    ("B200 sm100 with FA4", dict(sm=(10, 0)), [("flash_attn_cute",)], "flash_attn_4", "scaled_mm_rowwise"),
    ("B200 sm100 without FA4", dict(sm=(10, 0)), [], "sdpa_cudnn", "scaled_mm_rowwise"),
    ("RTX 5090 sm120 with FA2", dict(sm=(12, 0)), [("flash_attn",)], "flash_attn_2", "scaled_mm_tensorwise"),
    ("RTX 5090 sm120, nothing", dict(sm=(12, 0)), [], "sdpa", "scaled_mm_tensorwise"),
    ("T4 sm75 with xformers", dict(sm=(7, 5)), [("xformers", "0.0.30", ("memory_efficient_attention",))], "xformers",
     "dequant"),
    ("MI300X ROCm with FA2", dict(kind="rocm", arch="gfx942"), [("flash_attn",)], "flash_attn_2",
     "scaled_mm_tensorwise"),
    ("RX 7900 ROCm, nothing", dict(kind="rocm", arch="gfx1100"), [], "sdpa", "dequant"),
    ("Apple MPS", dict(kind="mps"), [("flash_attn",)], "sdpa", "dequant"),
    ("CPU", dict(kind="cpu"), [], "sdpa", "dequant"),
]


@pytest.mark.parametrize("desc,kw,libs,attn,fp8", CASES, ids=[c[0] for c in CASES])
def test_defaults_table(hw, defaults, desc, kw, libs, attn, fp8):
    infos = []
    for spec in libs:
        key = spec[0]
        version = spec[1] if len(spec) > 1 else "1.0"
        kernels = spec[2] if len(spec) > 2 else ("flash_attn_func",)
        infos.append(lib(hw, key, version, kernels))
    p = profile(hw, libs=infos, **kw)
    d = defaults.choose(p)
    assert d.attention == attn, (desc, d.report_lines())
    assert d.fp8_compute == fp8, (desc, d.fp8_reason)
    assert d.attention_reason
    text = "\n".join(d.report_lines())
    # Every preference skipped is reported with its reason.
    for name, why in d.attention_skipped:
        assert name in text and why in text


def test_skipped_preferences_name_the_package(hw, defaults):
    d = defaults.choose(profile(hw, sm=(9, 0)))
    skipped = dict(d.attention_skipped)
    assert "flash_attn_3" in skipped and "pip install fa3-fwd" in skipped["flash_attn_3"]


def test_compile_mode_rows(hw, defaults):
    assert defaults.choose(profile(hw, sm=(9, 0))).compile_mode == "default"  # max-autotune did not pay (defaults.py)
    no_triton = defaults.choose(profile(hw, sm=(8, 9), triton=None))
    assert no_triton.compile_mode == "eager" and "triton" in no_triton.compile_reason
    assert defaults.choose(profile(hw, sm=(7, 5))).compile_mode == "default"
    assert defaults.choose(profile(hw, kind="cpu")).compile_mode == "default"
    assert defaults.choose(profile(hw, kind="cpu").replace(c_compiler=None)).compile_mode == "eager"
    assert defaults.choose(profile(hw, kind="mps")).compile_mode == "eager"


def test_tf32_and_fp8_flags(hw):
    assert profile(hw, sm=(8, 0)).tf32 and not profile(hw, sm=(7, 5)).tf32
    assert profile(hw, sm=(8, 9)).fp8_compute and not profile(hw, sm=(8, 6)).fp8_compute
    assert profile(hw, sm=(9, 0)).fp8_rowwise and not profile(hw, sm=(8, 9)).fp8_rowwise
    assert not profile(hw, kind="cpu").tf32
    assert profile(hw, sm=(9, 0)).gpu_class() == "Hopper (sm90)"
    assert profile(hw, sm=(8, 9)).gpu_class() == "Ada (sm89)"


def test_every_row_reachable(hw, defaults):
    rows_hit = {defaults.row_for(profile(hw, **c[1])).name for c in CASES}
    assert rows_hit == {r.name for r in defaults.ROWS}


def test_detect_this_machine(hw):
    p = hw.detect(refresh=True)
    assert p.device_kind in ("cpu", "cuda", "rocm", "mps")
    assert p.torch_version
    assert set(p.libraries) == {k for k, _m, _d in hw.ATTENTION_LIBRARIES}
    assert "device:" in p.summary_lines()[0]


def test_probe_sees_a_fake_library_and_its_kernels(hw, monkeypatch):
    fake = types.ModuleType("sageattention")
    fake.__version__ = "2.2.0"
    fake.sageattn = lambda *a, **k: None
    fake.sageattn_qk_int8_pv_fp16_triton = lambda *a, **k: None
    monkeypatch.setitem(sys.modules, "sageattention", fake)
    info = hw.probe_library("sageattention", "sageattention", ("sageattention",))
    assert info.available and info.version == "2.2.0"
    assert info.kernels == ("sageattn", "sageattn_qk_int8_pv_fp16_triton")


def test_probe_takes_the_distributions_version_over_a_placeholder(hw, monkeypatch):
    """flash-attn-4's beta wheels: `flash_attn.cute.__version__` is 0.0.0, the installed distribution 4.0.0b36 (an H100
    run read 0.0.0 into its result files)."""
    import importlib.metadata

    fake = types.ModuleType("flash_attn_cute_fake")
    fake.__version__ = "0.0.0"
    fake.flash_attn_func = lambda *a, **k: None
    monkeypatch.setitem(sys.modules, "flash_attn_cute_fake", fake)
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version",
                        lambda n: "4.0.0b36" if n == "flash-attn-4" else real(n))
    info = hw.probe_library("flash_attn_cute", "flash_attn_cute_fake", ("flash-attn-4",))
    assert info.available and info.version == "4.0.0b36"
    assert hw.probe_library("flash_attn_cute", "flash_attn_cute_fake", ("no-such-dist-xyz",)).version == "0.0.0"


def test_probe_reports_broken_library(hw, monkeypatch):
    broken = types.ModuleType("flash_attn")  # imports, but has no flash_attn_func
    monkeypatch.setitem(sys.modules, "flash_attn", broken)
    info = hw.probe_library("flash_attn", "flash_attn", ("flash-attn",))
    assert not info.available and "flash_attn_func" in info.error
    missing = hw.probe_library("nope", "definitely_not_a_module_xyz", ())
    assert not missing.available and missing.error == "not installed"
