"""One contract per feature (issue #31 item 1): an Options dataclass of the node's inputs, checked when built (errors
name the input), and apply(model, options) -> (model, Report), a structured report rendered to the node's text once.
Wan Level-1 composes the other features' Options and takes their Report sections (it parses no text)."""
import pytest


def _titles(report):
    return [s.title for s in report.sections]


def test_report_renders_titled_sections(mod):
    R = mod("accel.common.report")
    rep = R.Report([R.Section("Accel X", "did it", ["  why: because"]), R.Section("numerics", "on"),
                    R.Section(None, "a line alone")], deviation="cosine 0.99")
    assert rep.render() == "Accel X: did it\n  why: because\nnumerics: on\na line alone"
    assert R.Section("Accel CUDA Settings").render() == ["Accel CUDA Settings"]
    inner = rep.plus("  one more").under("x")
    assert _titles(R.Report(inner)) == ["x", "numerics", None] and inner[-1].lines == ("  one more",)
    assert rep.body == rep.sections[1:] and rep.deviation == "cosine 0.99"


@pytest.mark.parametrize("module,cls,kw,name", [
    ("accel.attention.options", "AttentionOptions", {"backend": "nope"}, "backend"),
    ("accel.attention.options", "AttentionOptions", {"quality": "fastest"}, "quality"),
    ("accel.attention.options", "AttentionOptions", {"policy": "maybe"}, "policy"),
    ("accel.compile.options", "CompileOptions", {"mode": "turbo"}, "mode"),
    ("accel.compile.options", "CompileOptions", {"recompile_limit": 0}, "recompile_limit"),
    ("accel.compile.options", "CompileOptions", {"backend": "no_such_backend"}, "backend"),
    ("accel.cuda_settings.options", "CudaSettingsOptions", {"tf32_matmul": "maybe"}, "tf32_matmul"),
    ("accel.cuda_settings.options", "CudaSettingsOptions", {"sdpa_order": "nah"}, "sdpa_order"),
    ("accel.wan_level1.preset", "WanLevel1Options", {"quality": "fastest"}, "quality"),
    ("accel.wan_level1.preset", "WanLevel1Options", {"compile_mode": "bogus"}, "compile_mode"),
    ("accel.wan_level1.preset", "WanLevel1Options", {"policy": "eager"}, "policy"),
    ("accel.vae.options", "VAEOptions", {"temporal_chunk": 1}, "temporal_chunk"),
    ("accel.vae.options", "VAEOptions", {"tile_size": 16}, "tile_size"),
    ("accel.vae.options", "VAEOptions", {"overlap": -1}, "overlap"),
    ("accel.vae.options", "VAEOptions", {"policy": "maybe"}, "policy"),
    ("accel.multigpu.options", "MultiGPUOptions", {"device": "tpu"}, "device"),
    ("accel.multigpu.options", "MultiGPUOptions", {"cfg_parallel": "maybe"}, "cfg_parallel"),
    ("accel.multigpu.options", "MultiGPUOptions", {"gpus": "2"}, "gpus"),
])
def test_options_are_checked_when_built_naming_the_input(mod, AccelError, module, cls, kw, name):
    with pytest.raises(AccelError) as e:
        getattr(mod(module), cls)(**kw)
    assert e.value.input_name == name and e.value.remedy, str(e.value)


def test_each_apply_returns_the_report_the_old_function_renders(mod, M):
    A, C, N = mod("accel.attention.override"), mod("accel.compile"), mod("accel.cuda_settings.flags")
    AO, CO, NO = mod("accel.attention.options"), mod("accel.compile.options"), mod("accel.cuda_settings.options")
    flux, wan = M.tiny_flux(), M.wan_model("t2v", "tiny")
    m, rep = AO.apply(flux, AO.AttentionOptions("sdpa_math", "error"))
    assert m is not flux and rep.render() == A.apply_attention(flux, "sdpa_math", "error")[1]
    assert rep.deviation is None and _titles(rep) == [None]  # exact; a node's title heads it inside a node
    m, rep = CO.apply(wan, CO.CompileOptions(backend="eager", mode_chain=("max-autotune-no-cudagraphs", "default")))
    assert rep.render() == C.apply_compile(wan, backend="eager",
                                           mode_chain=["max-autotune-no-cudagraphs", "default"])[1]
    assert _titles(rep) == ["compile"] and ("fallback chain: max-autotune-no-cudagraphs -> default -> "
                                            "eager") in rep.render()
    m, rep = NO.apply(wan, NO.CudaSettingsOptions("on", "unchanged", "off", "unchanged", "unchanged"))
    settings = N.CudaSettings(tf32_matmul=True, cudnn_benchmark=False)
    assert _titles(rep) == ["Accel CUDA Settings", N.NUMERICS] and N.settings_of(m) == settings
    prof = mod("accel.common.hardware").profile()
    assert rep.details().splitlines()[1:] == N.apply_cuda_settings(wan, settings, profile=prof)[1]


def test_vae_apply_returns_a_report_and_a_copy(mod, M):
    import torch

    Opts = mod("accel.vae.options")
    vae = M.vae_from_state_dict(M.wan21_vae_state_dict("tiny", seed=0), dtype=torch.float32)
    out, rep = Opts.apply(vae, Opts.VAEOptions(fused_norm=True))
    assert out is not vae and rep.deviation is not None and "on: fused_norm" in rep.render()
    out, rep = Opts.apply(vae, Opts.VAEOptions())
    assert rep.deviation is None and rep.render().startswith("VAE: Wan 2.1 VAE")  # no title outside a node


def test_no_function_in_accel_vae_takes_more_than_8_parameters():
    import ast
    from pathlib import Path

    for path in (Path(__file__).resolve().parents[2] / "accel" / "vae").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
                assert n <= 8, f"{path.name}:{node.lineno} {node.name} takes {n} parameters"


def test_wan_level1_composes_the_features_reports(mod, M):
    L, AO, N = mod("accel.wan_level1.preset"), mod("accel.attention.options"), mod("accel.cuda_settings.flags")
    wan = M.wan_model("t2v", "tiny")
    opts = L.WanLevel1Options(policy="error")
    assert opts.attention_options() == AO.AttentionOptions("auto", "error")
    assert opts.compile_options(["default"]).mode_chain == ("default",)
    assert opts.cuda_settings_options().cudnn_benchmark == "on"
    m, rep = L.apply(wan, opts)
    assert _titles(rep) == [None, "attention", "compile", N.NUMERICS, "not touched", None]
    att = AO.apply(wan, opts.attention_options())[1]
    assert rep.sections[1].lines == att.sections[0].lines and rep.sections[1].text == att.sections[0].text
    assert rep.deviation.startswith("fidelity: not bit-identical") and rep.render() == L.apply_level1(
        wan, policy="error")[1]
    _, off = L.apply(wan, L.WanLevel1Options(attention=False, compile=False, tf32=False, cudnn_benchmark=False))
    assert [s.render()[0] for s in off.sections[1:4]] == [
        "attention: off (ComfyUI's own attention)", "compile: off",
        "numerics: unchanged (TF32 and cudnn.benchmark off in the node)"]
