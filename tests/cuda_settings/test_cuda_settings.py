"""Accel CUDA Settings / accel.cuda_settings.flags: torch's global numerics flags are set only during ONE model's
sampling (ON_PRE_RUN) and restored after it (ON_CLEANUP), exactly, also when sampling fails.

On this CPU machine TF32 / cuDNN do nothing, but the flags are ordinary torch globals that can be set
and read; that is what these tests check (no numeric tolerance involved: flags compare exactly).
"""
import pytest
import torch

import accel_harness as H

NODE = "AccelCUDASettings"


def flags():
    """The flags as a reader sees them (each getter on its own: a legacy getter may raise)."""
    m, cd = torch.backends.cuda.matmul, torch.backends.cudnn

    def g(fn):
        try:
            return fn()
        except Exception as e:
            return f"raises {type(e).__name__}"

    out = {
        "tf32_matmul": g(lambda: m.allow_tf32),
        "tf32_cudnn": g(lambda: cd.allow_tf32),
        "benchmark": g(lambda: cd.benchmark),
        "float32_matmul_precision": g(torch.get_float32_matmul_precision),
        "flash": torch.backends.cuda.flash_sdp_enabled(),
        "efficient": torch.backends.cuda.mem_efficient_sdp_enabled(),
        "cudnn_sdp": torch.backends.cuda.cudnn_sdp_enabled(),
        "math": torch.backends.cuda.math_sdp_enabled(),
    }
    if hasattr(m, "fp32_precision") or isinstance(g(lambda: m.fp32_precision), str):
        out["fp32_precision"] = g(lambda: m.fp32_precision)
        out["conv_fp32_precision"] = g(lambda: cd.conv.fp32_precision)
        out["mkldnn_fp32_precision"] = g(lambda: torch.backends.mkldnn.matmul.fp32_precision)
    try:
        out["fp16_acc"] = m.allow_fp16_accumulation
    except Exception:
        pass
    if hasattr(torch._C, "_get_sdp_priority_order"):
        out["priority"] = list(torch._C._get_sdp_priority_order())
    return out


@pytest.fixture
def clean_flags(mod):
    """Every test starts from torch's defaults and must leave them as found."""
    num = mod("accel.cuda_settings.flags")
    saved = num.snapshot()
    before = flags()
    yield num
    after = flags()
    num.restore(saved)
    assert after == before, "a test leaked torch flags"


def apply_node(pack, model, **kw):
    args = dict(tf32_matmul="on", tf32_cudnn="on", cudnn_benchmark="on", fp16_accumulation="unchanged",
                sdpa_order="unchanged")
    args.update(kw)
    out = H.call_node(NODE, model, **args)
    assert out["ui"]["text"][0] == out["result"][1]
    return out["result"]


class Recorder:
    """A DIFFUSION_MODEL wrapper that records the flags seen inside the model's forward."""

    def __init__(self, fail=False):
        self.seen = []
        self.fail = fail

    def __call__(self, executor, *args, **kwargs):
        self.seen.append(flags())
        if self.fail:
            raise RuntimeError("boom (test)")
        return executor(*args, **kwargs)


def with_recorder(model, rec):
    import comfy.patcher_extension as pe

    m = model.clone()
    m.add_wrapper_with_key(pe.WrappersMP.DIFFUSION_MODEL, "test_recorder", rec)
    return m


@pytest.fixture(scope="module")
def wan(M):
    return M.wan_model("t2v", "tiny", dtype=torch.float32)


def _sample(M, model, steps=1):
    lat = M.wan_latent(1, 16, 16)
    return M.sample(model, M.conditioning(8), M.conditioning(8, seed=1), lat, steps=steps, cfg=2.0)


# --- the flag mechanics ---------------------------------------------------------------------------

@pytest.mark.parametrize("start", ["defaults", "legacy_on", "medium", "new_api_tf32", "new_api_ieee",
                                   "mixed_high_ieee"])
def test_apply_then_restore_is_exact_from_any_start(clean_flags, start):
    num = clean_flags
    orig = num.snapshot()  # put back at the end (the fixture then checks torch's defaults are back)
    m, cd = torch.backends.cuda.matmul, torch.backends.cudnn
    if start == "legacy_on":
        m.allow_tf32 = True
        cd.benchmark = True
    elif start == "medium":
        torch.set_float32_matmul_precision("medium")
    elif start == "mixed_high_ieee" and hasattr(torch.backends, "fp32_precision"):
        torch.set_float32_matmul_precision("high")
        m.fp32_precision = "ieee"  # legacy getter raises here too
    elif start == "new_api_tf32" and hasattr(torch.backends, "fp32_precision"):
        m.fp32_precision = "tf32"  # a state in which the legacy getter raises on torch 2.9+
    elif start == "new_api_ieee" and hasattr(torch.backends, "fp32_precision"):
        m.fp32_precision = "ieee"
        cd.conv.fp32_precision = "ieee"
    before = flags()
    s = num.CudaSettings(tf32_matmul=True, tf32_cudnn=True, cudnn_benchmark=True,
                             fp16_accumulation=True if num.has_fp16_accumulation() else None,
                             sdpa_order=("cudnn", "flash", "efficient", "math"))
    with num.scoped(s):
        inside = flags()
        assert inside["tf32_matmul"] is True and inside["tf32_cudnn"] is True and inside["benchmark"] is True
        if num.has_fp16_accumulation():
            assert inside["fp16_acc"] is True
        if num.has_sdpa_priority():
            from torch.nn.attention import SDPBackend

            assert inside["priority"][0] == int(SDPBackend.CUDNN_ATTENTION)
            assert sorted(inside["priority"]) == sorted(before["priority"])  # reordered, none lost
    assert flags() == before
    num.restore(orig)


def test_math_only_disables_the_others_and_restores(clean_flags):
    num = clean_flags
    before = flags()
    with num.scoped(num.CudaSettings(sdpa_order=("math",), sdpa_exclusive=True)):
        f = flags()
        assert (f["flash"], f["efficient"], f["cudnn_sdp"], f["math"]) == (False, False, False, True)
    assert flags() == before


def test_settings_merge_later_wins(mod):
    num = mod("accel.cuda_settings.flags")
    a = num.CudaSettings(tf32_matmul=True, cudnn_benchmark=True, sdpa_order=("math",), sdpa_exclusive=True)
    b = num.CudaSettings(tf32_matmul=False, fp16_accumulation=True)
    c = a.merged(b)
    assert (c.tf32_matmul, c.cudnn_benchmark, c.fp16_accumulation, c.sdpa_order, c.sdpa_exclusive) == \
        (False, True, True, ("math",), True)
    assert num.CudaSettings().is_empty() and not c.is_empty()


# --- the node on a real model -----------------------------------------------------------------------

def test_node_attaches_callbacks_to_a_clone_only(pack, mod, wan, clean_flags):
    import comfy.patcher_extension as pe

    num = clean_flags
    before = flags()
    m, text = apply_node(pack, wan)
    assert m is not wan
    assert len(m.get_callbacks(pe.CallbacksMP.ON_PRE_RUN, num.CALLBACK_KEY)) == 1
    assert len(m.get_callbacks(pe.CallbacksMP.ON_CLEANUP, num.CALLBACK_KEY)) == 1
    assert wan.get_callbacks(pe.CallbacksMP.ON_PRE_RUN, num.CALLBACK_KEY) == []
    assert "TF32 matmul on" in text and "cudnn.benchmark on" in text
    assert "no effect on cpu" in text  # the report says TF32 does nothing here
    assert flags() == before  # attaching changes nothing by itself


def test_flags_set_during_this_models_run_only(pack, M, wan, clean_flags):
    before = flags()
    assert before["tf32_matmul"] is False and before["benchmark"] is False  # torch defaults (precondition)
    patched, _ = apply_node(pack, wan, sdpa_order="math only (reference, slow)")
    rec, rec_other = Recorder(), Recorder()
    _sample(M, with_recorder(patched, rec))
    assert rec.seen, "the model never ran"
    for f in rec.seen:
        assert f["tf32_matmul"] is True and f["tf32_cudnn"] is True and f["benchmark"] is True
        assert (f["flash"], f["efficient"], f["math"]) == (False, False, True)
    assert flags() == before, "flags not restored after sampling"
    # a second, unpatched model (same weights) sampled in the same process sees the process flags
    _sample(M, with_recorder(wan, rec_other))
    assert rec_other.seen and all(f == before for f in rec_other.seen)


def test_flags_restored_when_sampling_fails(pack, M, wan, clean_flags):
    before = flags()
    patched, _ = apply_node(pack, wan)
    rec = Recorder(fail=True)
    with pytest.raises(RuntimeError, match="boom"):
        _sample(M, with_recorder(patched, rec))
    assert rec.seen and rec.seen[0]["benchmark"] is True
    assert flags() == before


def test_chained_nodes_merge_into_one_scope(pack, wan, clean_flags):
    import comfy.patcher_extension as pe

    num = clean_flags
    m1, _ = apply_node(pack, wan, tf32_matmul="on", fp16_accumulation="unchanged")
    m2, text = apply_node(pack, m1, tf32_matmul="off", tf32_cudnn="unchanged", cudnn_benchmark="unchanged",
                          sdpa_order="flash > cudnn > efficient > math")
    assert len(m2.get_callbacks(pe.CallbacksMP.ON_PRE_RUN, num.CALLBACK_KEY)) == 1
    s = num.settings_of(m2)
    assert (s.tf32_matmul, s.tf32_cudnn, s.cudnn_benchmark, s.sdpa_order[0]) == (False, True, True, "flash")
    assert num.settings_of(m1).tf32_matmul is True  # the first clone is unchanged
    assert "merged" in text


def test_unchanged_everywhere_attaches_nothing(pack, wan, clean_flags):
    import comfy.patcher_extension as pe

    num = clean_flags
    m, _ = apply_node(pack, wan, tf32_matmul="unchanged", tf32_cudnn="unchanged", cudnn_benchmark="unchanged")
    assert m.get_callbacks(pe.CallbacksMP.ON_PRE_RUN, num.CALLBACK_KEY) == []


def test_bad_input_names_node_and_input(pack, mod, wan):
    AccelError = mod("accel.common.errors").AccelError
    with pytest.raises(AccelError, match=r"\[Accel CUDA Settings\] input 'sdpa_order'"):
        apply_node(pack, wan, sdpa_order="fastest please")


# ------------------------------------------------------------------------------------------------ SDPA order

def _hopper(mod):
    hw = mod("accel.common.hardware")
    libs = {k: hw.LibraryInfo(k, False, error="not installed") for k, _m, _d in hw.ATTENTION_LIBRARIES}
    return hw.HardwareProfile(device_kind="cuda", gpu_name="NVIDIA H100 80GB HBM3", sm=(9, 0), gcn_arch=None,
                              vram_bytes=80 * 2**30, torch_version="2.11.0", cuda_version="13.0",
                              triton_version="3.6.0", c_compiler="cc", libraries=libs)


@pytest.fixture
def comfy_priority(monkeypatch):
    """ComfyUI 0.33 keeps its own SDPA order in comfy.ops.SDPA_BACKEND_PRIORITY (FlashAttention-2 first) and
    passes it to sdpa_kernel(set_priority=True) around every call; it defines it only when CUDA is
    available, so on this CPU machine the same list is put there as 0.33 builds it."""
    import comfy.ops
    from torch.nn.attention import SDPBackend

    lst = [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]
    monkeypatch.setattr(comfy.ops, "SDPA_BACKEND_PRIORITY", lst, raising=False)
    return lst


def test_sdpa_order_also_reorders_comfyuis_own_priority_list_for_the_run(clean_flags, comfy_priority):
    """0.33's inner sdpa_kernel context overrides the process order: the order must be written into
    ComfyUI's list (in place: it is read at call time) and restored after the run."""
    from torch.nn.attention import SDPBackend

    num = clean_flags
    before = list(comfy_priority)
    s = num.CudaSettings(sdpa_order=("cudnn", "flash", "efficient", "math"))
    with num.scoped(s):
        assert comfy_priority[0] == SDPBackend.CUDNN_ATTENTION
        assert sorted(map(int, comfy_priority)) == sorted(map(int, before))
    assert comfy_priority == before


def test_auto_order_is_measured_per_gpu_class(mod):
    d = mod("accel.common.defaults")
    hopper = d.choose(_hopper(mod))
    assert hopper.sdpa_order[0] == "cudnn" and "bench/results/h100" in hopper.sdpa_reason
    cpu = d.choose(_hopper(mod).replace(device_kind="cpu", sm=None, gpu_name=None))
    assert cpu.sdpa_order is None  # not measured: PyTorch's / ComfyUI's order stays
    assert any("SDPA order" in ln for ln in hopper.report_lines())


def test_cuda_settings_auto_sdpa_order_is_the_default_and_reported(pack, mod, monkeypatch):
    monkeypatch.setattr(mod("accel.common.hardware"), "profile", lambda refresh=False: _hopper(mod))
    spec = pack.nodes.NODE_CLASS_MAPPINGS[NODE].INPUT_TYPES()["required"]["sdpa_order"]
    assert spec[1]["default"].startswith("auto")
    from accel_harness import models as M

    wan = M.wan_model(dtype=torch.float32)
    out = H.call_node(NODE, wan, "on", "on", "on", "unchanged", spec[1]["default"])
    m, text = out["result"]
    assert "SDPA order auto -> cudnn > flash > efficient > math" in text
    assert mod("accel.cuda_settings.flags").settings_of(m).sdpa_order == ("cudnn", "flash", "efficient", "math")


def test_attention_fallback_gets_the_measured_order_unless_the_user_set_one(pack, mod, monkeypatch):
    """Calls Accel Attention hands back to ComfyUI (masks, shapes) run torch SDPA: on Hopper with cuDNN
    first. An order the user set with Accel CUDA Settings before it is kept."""
    monkeypatch.setattr(mod("accel.common.hardware"), "profile", lambda refresh=False: _hopper(mod))
    A, num = mod("accel.attention.override"), mod("accel.cuda_settings.flags")
    from accel_harness import models as M

    wan = M.wan_model(dtype=torch.float32)
    m, text = A.apply_attention(wan, "sdpa", profile=_hopper(mod), tensor_device_types=("cpu",))
    assert num.settings_of(m).sdpa_order[0] == "cudnn" and "cudnn > flash" in text
    user, _ = num.apply_cuda_settings(wan, num.CudaSettings(sdpa_order=("efficient", "flash", "cudnn", "math")))
    m2, text2 = A.apply_attention(user, "sdpa", profile=_hopper(mod), tensor_device_types=("cpu",))
    assert num.settings_of(m2).sdpa_order[0] == "efficient" and "kept the one already on this model" in text2
    strict, _ = A.apply_attention(wan, "sdpa", policy="error", profile=_hopper(mod), tensor_device_types=("cpu",))
    assert num.settings_of(strict) is None  # nothing is handed back to ComfyUI in strict mode
