"""A node's report is read in five seconds: its first screen (the lines before accel.common.report.DETAILS) has at most
six lines saying what ran, the measured gain for this kind of model and GPU (a row of the figure table, or that none
was measured) and what to install or change for more; the reasons, sources and fidelity follow as details, complete
in the node's STRING output and in the prompt's history (the frontend folds them away: web/accel_report.js,
tests/workflows/test_browser.py).

Accel Wan Level-1's report was 23 lines and 3,900 characters under each node (two per A14B workflow) with no such
screen: here it runs in a prompt through ComfyUI's own executor, and the text under the node, in the history and after
the run each open with at most six lines.
"""
from pathlib import Path

import pytest
import torch

import accel_harness as H
from accel_harness.executor import run_prompt

UNET = "first_screen_wan.safetensors"
SIX = 6


@pytest.fixture(scope="module")
def R(mod):
    return mod("accel.common.report")


@pytest.fixture(scope="module")
def unet(comfy, pack, M):
    import folder_paths

    M.write_wan(Path(folder_paths.get_folder_paths("diffusion_models")[0]) / UNET, seed=5, dtype=torch.float32)
    return UNET


def _screen(R, text):
    first, details = R.split_details(text)
    return first.splitlines(), details


def test_level1_report_first_screen_on_a_real_run(unet, R, mod, monkeypatch):
    """Accel Wan Level-1 in a prompt (inductor cannot build kernels here, so compile falls back at run time and the
    report after the run says so): the node's text, the history entry and the text after the run open with at most six
    lines: what ran (attention, compile, TF32), the gain line, then the details with the reasons and the fidelity."""
    import torch._dynamo
    import torch._inductor.compile_fx as cfx

    def broken(*args, **kwargs):
        raise RuntimeError("test: inductor cannot build kernels here")

    monkeypatch.setattr(cfx, "compile_fx", broken)
    torch._dynamo.reset()
    prompt = {
        "1": {"class_type": "UNETLoader", "inputs": {"unet_name": UNET, "weight_dtype": "default"}},
        "2": {"class_type": "AccelRandomConditioning", "inputs": {"seed": 1, "tokens": 8, "dim": 4096, "scale": 1.0}},
        "3": {"class_type": "EmptyHunyuanLatentVideo",
              "inputs": {"width": 32, "height": 32, "length": 1, "batch_size": 1}},
        "5": {"class_type": "AccelWanLevel1", "inputs": {
            "model": ["1", 0], "attention": True, "compile": True, "compile_mode": "auto", "tf32": True,
            "cudnn_benchmark": False, "on_failure": "fall back"}},
        "6": {"class_type": "KSampler", "inputs": {"model": ["5", 0], "seed": 0, "steps": 2, "cfg": 1.0,
                                                   "sampler_name": "euler", "scheduler": "simple",
                                                   "positive": ["2", 0], "negative": ["2", 0],
                                                   "latent_image": ["3", 0], "denoise": 1.0}},
        "7": {"class_type": "SaveLatent", "inputs": {"samples": ["6", 0], "filename_prefix": "first_screen/out"}},
    }
    try:
        _, hist = run_prompt(prompt)
    finally:
        torch._dynamo.reset()
    out = hist["outputs"]["5"]
    written, after = out["text"][0], out["accel_report"][0]["text"]
    first, details = _screen(R, written)
    assert len(first) <= SIX and details, written
    assert first[0].startswith("Accel Wan Level-1: Wan 2.1 T2V") and "attention sdpa" in first[0], first
    assert "compile default" in first[0] and "TF32 on" in first[0], first
    assert any(line.startswith("gain: not measured for Wan 2.1 T2V") for line in first), first  # a CPU: none
    for part in ("why: ", "guard filter:", "numerics", "fidelity: not bit-identical", "not touched:"):
        assert part in details, part
    assert len(written) > 3 * len(R.join_details(first, ""))  # the details are most of it, one click away
    first_after, details_after = _screen(R, after)
    assert len(first_after) <= SIX and details_after, after
    assert first_after[0].startswith("after the last run: compile: FELL BACK TO EAGER"), after
    assert first_after[1:] == first, (first_after, first)


def test_gain_lines_quote_the_figure_table(mod):
    """The gain line quotes the figure table's row for the chain, kind of model and GPU, with its file; elsewhere it
    says nothing was measured there. The FP8 hint appears only where the FP8 chain measured faster."""
    gains, figures, families, hw = (mod("accel.common.gains"), mod("accel.common.figures"),
                                    mod("accel.common.families"), mod("accel.common.hardware"))
    wan14 = families.Family("wan21", "WAN21", variant="t2v", size="14B")
    h200 = hw.HardwareProfile(device_kind="cuda", gpu_name="NVIDIA H200", sm=(9, 0), torch_version="2.11")
    line = gains.gain_line(gains.EXACT, wan14, h200)
    fid = "matrix.h200.140.level1.speedup"
    assert line.startswith(f"gain: {figures.text(fid)} vs stock, measured for Accel Wan Level-1 on Wan 14B, H200")
    assert figures.fig(fid).file in line
    hint = gains.fp8_hint(wan14, h200)
    assert hint and figures.text("matrix.h200.140.fp8_level1.speedup") in hint
    ada = hw.HardwareProfile(device_kind="cuda", gpu_name="NVIDIA RTX 4090", sm=(8, 9), torch_version="2.11")
    assert gains.gain_line(gains.EXACT, wan14, ada).startswith("gain: not measured for Wan 2.1 / 2.2 A14B T2V 14B on")
    assert gains.fp8_hint(wan14, ada) is None
    ltxv = families.Family("ltxv", "LTXV")
    hint = gains.fp8_hint(ltxv, h200)  # FP8 measured faster on LTX-Video, H200 (three interleaved runs)
    assert hint and figures.text("fp8auto.h200.ltxv.fp8_shipped.speedup") in hint
    h100 = hw.HardwareProfile(device_kind="cuda", gpu_name="NVIDIA H100 80GB HBM3", sm=(9, 0), torch_version="2.11")
    flux = families.Family("flux", "Flux")
    assert gains.fp8_hint(flux, h100) is None  # FP8 measured slower than the exact chain on Flux.1, H100 (run2)
    h3 = families.Family("minimax_h3", "MiniMaxH3")  # its Level-1 node, exact and quality sparse (H200, turbo template)
    line = gains.gain_line(gains.EXACT, h3, h200)
    assert line.startswith(f"gain: {figures.text('family.h200.minimax_h3_turbo.shipped.speedup')} vs stock, measured "
                           "for Accel MiniMax-H3 Level-1 on MiniMax-H3, H200"), line
    line = gains.gain_line(gains.SPARSE, h3, h200)
    assert (f"{figures.text('family.h200.minimax_h3_turbo.sparse.speedup')} vs stock, measured for Accel MiniMax-H3 "
            "Level-1 quality sparse (not exact; flex_attention)") in line, line
    line = gains.gain_line(gains.SPARSE_FA4, h3, h200)  # the same run with flash-attn-4 installed: its own figure
    assert (f"{figures.text('family.h200.minimax_h3_turbo.sparse_fa4.speedup')} vs stock, measured for Accel "
            "MiniMax-H3 Level-1 quality sparse (not exact; FlashAttention-4)") in line, line
    assert gains.measured(gains.SPARSE, wan14, h200) is None
    # the newer families, measured at fewer steps than their templates: the line says how many
    hv15 = families.Family("hunyuan_video15", "HunyuanVideo15")
    line = gains.gain_line(gains.EXACT, hv15, h200)
    assert line.startswith(f"gain: {figures.text('family.h200.hunyuan_video15_2steps.shipped.speedup')} vs stock, "
                           "measured for CUDA Settings + Attention + Compile on HunyuanVideo 1.5 (2 of its "
                           "template's 20 steps), H200"), line
    hint = gains.fp8_hint(hv15, h200)  # the FP8 loader's auto measured faster there (one timed run)
    assert hint and figures.text("family.h200.hunyuan_video15_2steps.fp8_auto.speedup") in hint
    assert gains.measured(gains.FP8, families.Family("flux2", "Flux2"), h200) is None  # not run on Flux.2
    z_image = families.Family("z_image", "ZImage")  # Accel Compile's resident_weights, measured on the H200
    line = gains.gain_line(gains.RESIDENT, z_image, h200)
    assert line.startswith(f"gain: {figures.text('family.h200.zimage_resident.shipped_resident.speedup')} vs stock, "
                           "measured for CUDA Settings + Attention + Compile with resident_weights (the model loaded "
                           "resident) on Z-Image Turbo, H200"), line
    assert gains.measured(gains.RESIDENT, families.Family("flux", "Flux"), h100) is None  # measured on the H200 only
    sdxl = families.Family("sdxl", "SDXL")  # Accel Compile's scope model: the whole UNet one region, H200
    line = gains.gain_line(gains.WHOLE, sdxl, h200)
    assert line.startswith(f"gain: {figures.text('sdxlkept.h200.model_scope.speedup')} vs stock, measured for CUDA "
                           "Settings + Attention + Compile with scope model (the whole model one region) on SDXL, "
                           "H200"), line
    assert gains.measured(gains.WHOLE, flux, h100) is None  # Flux.1's whole-model region: measured on the H200 only
    # at scope model, where the blocks ran faster in the same run, the first screen says so; not where the whole model
    # ran faster (Flux.1), no blocks ran beside it (SDXL) or nothing was measured (H100)
    qwen = families.Family("qwen_image", "QwenImage")
    hint = gains.blocks_hint(qwen, h200)
    assert hint == (f"for more: set scope to blocks: {figures.text('qwenkept.h200.shipped_resident.speedup')} vs "
                    f"stock in the same run, against {figures.text('qwenkept.h200.model_scope.speedup')} for the "
                    "whole model (H200)"), hint
    assert gains.blocks_hint(flux, h200) is None and gains.measured(gains.WHOLE, flux, h200) is not None
    assert gains.blocks_hint(sdxl, h200) is None and gains.blocks_hint(qwen, h100) is None
    for kind in gains.BLOCKS_BESIDE_WHOLE:  # each blocks figure has the whole-model figure of its run
        assert set(gains.BLOCKS_BESIDE_WHOLE[kind]) == set(gains.GAINS[gains.WHOLE][kind]), kind
        for gpu, fid in gains.BLOCKS_BESIDE_WHOLE[kind].items():
            assert figures.fig(fid).file == figures.fig(gains.GAINS[gains.WHOLE][kind][gpu]).file, kind
    for chain, kinds in gains.GAINS.items():  # every row exists
        for kind, per_gpu in kinds.items():
            assert kind in gains.KINDS and set(per_gpu) <= set(gains.GPUS), (chain, kind)
            for fid in per_gpu.values():
                assert figures.fig(fid).fmt.endswith("x"), fid


def test_fp8_loader_names_the_chain_its_gain_was_measured_with(mod):
    """The FP8 loader's first screen tells the user what to chain after it: the chain its gain line was measured with
    (Wan: its Level-1 node; MiniMax-H3: its own Level-1 node; the others: Accel Attention and Accel Compile)."""
    load, gains, families, hw = (mod("accel.fp8.load"), mod("accel.common.gains"), mod("accel.common.families"),
                                 mod("accel.common.hardware"))
    h200 = hw.HardwareProfile(device_kind="cuda", gpu_name="NVIDIA H200", sm=(9, 0), torch_version="2.11")
    after = {}
    for fam in (families.Family("wan21", "WAN21", variant="t2v", size="14B"), families.Family("minimax_h3", "H3"),
                families.Family("flux", "Flux")):
        first = load._first_screen("file.safetensors\ndetail", (0,), fam, h200, gains.FP8).split("-- details --")[0]
        after[fam.family] = next(x for x in first.splitlines() if x.startswith("for more: "))
        assert gains.chain_name(gains.FP8, fam).removeprefix("the FP8 loader + ") in (
            "Accel Wan Level-1", "Accel MiniMax-H3 Level-1", "CUDA Settings + Attention + Compile")
    assert after == {"wan21": "for more: chain Accel Wan Level-1 after this loader",
                     "minimax_h3": "for more: chain Accel MiniMax-H3 Level-1 after this loader",
                     "flux": "for more: chain Accel Attention and Accel Compile after this loader"}, after


# inputs a tiny model needs (the caches' `auto` finds no published set for it)
CHOICES = {"AccelTeaCache": {"coefficients": "wan2.1_t2v_1.3B"}, "AccelMagCache": {"ratios": "wan2.1_t2v_1.3B"}}
NODES = ["AccelAttention", "AccelCompile", "AccelCUDASettings", "AccelWanLevel1", "AccelTeaCache", "AccelMagCache",
         "AccelCacheAnyModel", "AccelHardwareReport", "AccelLoadDiffusionModelFP8"]


@pytest.mark.parametrize("node", NODES)
def test_every_node_report_opens_with_six_lines_at_most(unet, R, M, node):
    """Each node called as ComfyUI calls it (its defaults, a tiny Wan): the report text under the node opens with at
    most six lines, and a report longer than that has details."""
    cls = H.pack_nodes()[node]
    kwargs = {}
    for i in cls.GET_SCHEMA().inputs:
        if i.id == "model":
            kwargs["model"] = M.wan_model("t2v", "tiny", dtype=torch.float32)
        elif i.id == "unet_name":
            kwargs["unet_name"] = unet
        elif getattr(i, "default", None) is not None:
            kwargs[i.id] = i.default
        elif getattr(i, "options", None):
            kwargs[i.id] = i.options[0]
    kwargs.update(CHOICES.get(node, {}))
    text = H.call_node(node, **kwargs)["ui"]["text"][0]
    first, details = _screen(R, text)
    assert len(first) <= SIX, text
    assert details or len(text.splitlines()) <= SIX, text
