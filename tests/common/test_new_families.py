"""ComfyUI 0.33's newer families through the pack (MiniMax-H3, LTX-2 audio-video, Kandinsky 5, Flux.2, HunyuanVideo
1.5):
tiny random models in each family's published key layout, loaded by ComfyUI's own loader (harness models.family_model,
checked to build the family's class), are detected as their own family with their transformer blocks, the family table
says the exact chain is not measured on them, and the exact chain (Accel Attention auto, the node as a prompt runs it ->
Accel Compile) samples each within the exact path's bounds of stock with every block compiled and attention served
by the pack's kernel (MiniMax-H3 hands it q/k/v in AttentionTensorContainers).

Also: the family of a model config before the build (the FP8 loader's measured `auto` names it), and a family without
an entry (no family id, only a block list) taking the same generic path with a truthful report.

Compile runs dynamo with its "eager" backend (as the compile mechanism tests do); SDPA is `auto`'s kernel on the CPU. A
ComfyUI without a family's class (0.3.75 lacks MiniMaxH3, LTXAV, Kandinsky5) skips it, naming the class.
"""
import pytest
import torch

import accel_harness as H

COS_MIN, MAX_ABS = 0.99999, 1e-4  # the exact path's bounds (tests/level1/test_level1.py)
FAMILIES = {  # harness family -> (accel family id, display name, block lists)
    "minimax_h3": ("minimax_h3", "MiniMax-H3", ["blocks"]),
    "ltxav": ("ltxav", "LTX-2 (audio-video)", ["transformer_blocks"]),
    "kandinsky5": ("kandinsky5", "Kandinsky 5", ["visual_transformer_blocks"]),
    "flux2": ("flux2", "Flux.2", ["double_blocks", "single_blocks"]),
    "hunyuan_video15": ("hunyuan_video15", "HunyuanVideo 1.5", ["double_blocks"]),
}
# families with a GPU run in the family table (accel.common.families.MEASURED) -> the chain it names
_EXACT = "the exact chain (Accel CUDA Settings -> Attention -> Compile)"
MEASURED_HERE = {"minimax_h3": "Accel MiniMax-H3 Level-1", "ltxav": _EXACT, "kandinsky5": _EXACT, "flux2": _EXACT,
                 "hunyuan_video15": _EXACT}


def _model(M, family):
    why = M.lacks_family(family)
    if why:
        pytest.skip(why)
    return M.family_model(family)


def inputs(M, family):
    """(positive conditioning, latent, cfg) as the family's ComfyUI workflow gives them (shapes; random text states)."""
    g = torch.Generator().manual_seed(3)
    if family == "minimax_h3":  # Empty MiniMax H3 AV Latent, BasicGuider (no CFG)
        return M.conditioning(8, 64), M.minimax_h3_latent(64, 64, 22), 1.0
    if family == "ltxav":  # LTXVConcatAVLatent; the text states as LTX-2's connectors give them (video + audio)
        return M.conditioning(8, 128, frame_rate=24.0), M.ltxav_latent(64, 64, 9), 2.0
    if family == "kandinsky5":  # Qwen2.5-VL states + CLIP-L pooled
        return M.conditioning(8, 3584, pooled_output=torch.randn(1, 768, generator=g)), \
            {"samples": torch.zeros(1, 16, 2, 8, 8)}, 2.0
    if family == "flux2":  # EmptyFlux2LatentImage, FluxGuidance
        return M.conditioning(8, 64, guidance=4.0), {"samples": torch.zeros(1, 128, 4, 4)}, 1.0
    # EmptyHunyuanVideo15Latent; its text encoder's pooled output (the model has no vector input: unused)
    return M.conditioning(8, 64, pooled_output=torch.randn(1, 768, generator=g)), \
        {"samples": torch.zeros(1, 32, 2, 4, 4)}, 2.0


def sample(M, model, family):
    pos, lat, cfg = inputs(M, family)
    with torch.inference_mode():
        out = M.sample(model, pos, pos, lat, steps=3, cfg=cfg, seed=5, sampler="euler")
    return [t.float().flatten() for t in (out.unbind() if out.is_nested else [out])]


@pytest.mark.parametrize("family", FAMILIES)
def test_detected_as_its_own_family_with_its_blocks(M, mod, family):
    fid, name, lists = FAMILIES[family]
    fams = mod("accel.common.families")
    fam = fams.detect(_model(M, family))
    assert (fam.family, fam.name) == (fid, name)
    assert sorted({k.split(".")[1] for k in fam.block_keys}) == sorted(lists) and fam.block_keys
    line = fams.measured_text(fam)
    if fid in MEASURED_HERE:  # a GPU run: the family table cites it
        assert fams.measured(fam) is not None and line.startswith(f"family: {name}: {MEASURED_HERE[fid]} measured on")
    else:
        assert fams.measured(fam) is None
        assert line.startswith(f"family: {name}: not measured here") and "generic path" in line, line


@pytest.mark.parametrize("family", FAMILIES)
def test_family_of_config_names_it_before_the_build(M, mod, family):
    """What the FP8 loader's `auto` reads before it builds the model (its "not measured" line names the family)."""
    import comfy.model_detection

    _model(M, family)  # skips where the class is missing
    cfg = comfy.model_detection.model_config_from_unet_config(M.family_config(family))
    fams = mod("accel.common.families")
    assert fams.family_of_config(cfg) == FAMILIES[family][0]
    assert FAMILIES[family][1] in mod("accel.fp8.plan").resolve_auto_format(
        fams.family_of_config(cfg), _hopper(mod), "auto", "auto", False, 1, 1, 1 << 40).note


def _hopper(mod):
    return mod("accel.common.hardware").HardwareProfile(device_kind="cuda", gpu_name="Simulated H200", sm=(9, 0),
                                                        torch_version=torch.__version__, cuda_version="13.0",
                                                        libraries={})


@pytest.mark.parametrize("family", FAMILIES)
def test_exact_chain_samples_like_stock_fully_compiled(M, mod, stats, family):
    model = _model(M, family)
    want = sample(M, model, family)
    m = H.call_node("AccelAttention", model, backend="auto", fallback="error")["result"][0]
    C = mod("accel.compile")
    patched, report = C.apply_compile(m, backend="eager", policy=mod("accel.common.policy").Policy.ERROR)
    fam = mod("accel.common.families").detect(model)
    assert f"{len(fam.block_keys)} blocks of {fam.name}" in report, report
    assert ("not measured here" in report) == (fam.family not in MEASURED_HERE), report
    got = sample(M, patched, family)
    for a, b in zip(want, got, strict=True):
        cos = float(torch.nn.functional.cosine_similarity(a, b, dim=0))
        assert cos >= COS_MIN and float((a - b).abs().max()) <= MAX_ABS, (family, cos, float((a - b).abs().max()))
    st = C.compile_status(patched)
    assert st["calls"] >= 3 and not st["fell_back"] and st["graph_breaks"] == 0, st
    assert st["regions"] == len(fam.block_keys)
    served = sum(n for k, n in stats.items() if k[1] == "served")
    assert served > 0 and not [k for k in stats if k[1] == "fallback"], stats
    if family == "minimax_h3":  # every block's attention, each step (its token refiner runs before sampling)
        assert served == 3 * len(fam.block_keys), stats


def test_minimax_h3_recompiles_once_for_its_first_step(M, mod):
    """MiniMax-H3 derives one time embedding per distinct timestep: on the first step from pure noise video and audio
    share theirs (one row), later they differ (two), so its blocks compile two graphs, then no more."""
    model = _model(M, "minimax_h3")
    C = mod("accel.compile")
    patched, _ = C.apply_compile(model, backend="eager")
    for _ in range(2):
        sample(M, patched, "minimax_h3")
    st = C.compile_status(patched)
    assert st["recompiles"] == 1 and st["calls"] == 6 and not st["fell_back"], st


def test_a_family_without_an_entry_takes_the_generic_path(M, mod):
    """A model class the pack has no entry for (renamed here: ComfyUI's Kandinsky 5 under another class name) is
    'unknown' but its blocks are found in the known lists and compiled, and the report says it is not measured."""
    import comfy.model_base

    model = _model(M, "kandinsky5")
    Unlisted = type("SomeNewFamily", (comfy.model_base.BaseModel,), {})
    model.model.__class__ = type("SomeNewFamily", (Unlisted, *type(model.model).__mro__[1:]), {})
    fams = mod("accel.common.families")
    fam = fams.detect(model)
    assert fam.family == "unknown" and "SomeNewFamily" in fam.name and fam.block_keys
    _, report = mod("accel.compile").apply_compile(model, backend="eager")
    assert f"{len(fam.block_keys)} blocks of unknown model (SomeNewFamily)" in report
    assert "not measured here" in report and "visual_transformer_blocks" in report, report


def test_measured_families_cite_their_runs(mod):
    """The family table's entries cite rows of the figure table (accel.common.figures) and name the GPUs; the docs'
    family table (docs/nodes.md) cites each of those runs, and every family the code knows without a measurement is
    a 'not measured yet' row there."""
    import re

    fams, figs = mod("accel.common.families"), mod("accel.common.figures")
    doc = (H.REPO_ROOT / "docs" / "nodes.md").read_text()
    table = doc[doc.index("## Model families"):doc.index("## Accel Compile")]
    cited = set(re.findall(r"<!--fig:([\w.]+)-->", table))
    for (family, _variant), m in fams.MEASURED.items():
        assert m.figures and all(f in figs.FIGURES for f in m.figures), (family, m.figures)
        assert all(figs.text(f) in m.evidence for f in m.figures) and m.gpus
        assert set(m.figures) <= cited, (family, set(m.figures) - cited)
    assert cited <= {f for m in fams.MEASURED.values() for f in m.figures}, "the docs cite a run the code does not"
    for family in FAMILIES.values():
        row = next(r for r in table.splitlines() if r.startswith(f"| {family[1].split(' (')[0]}"))
        if family[0] in MEASURED_HERE:
            assert any(f"<!--fig:{f}-->" in row for f in fams.MEASURED[(family[0], "")].figures), row
        else:
            assert "not measured yet" in row, row
