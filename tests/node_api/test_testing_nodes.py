"""Test-only nodes (nodes/testing.py), accel/common/compare.py and the demo's workflow builder (no server)."""
import pytest

import accel_harness as H


def test_random_conditioning_is_seeded(pack):
    import torch

    N = "AccelRandomConditioning"
    (a,) = H.call_node(N, seed=3, tokens=7, dim=4096, scale=1.0)["result"]
    (b,) = H.call_node(N, seed=3, tokens=7, dim=4096, scale=1.0)["result"]
    (c,) = H.call_node(N, seed=4, tokens=7, dim=4096, scale=2.0)["result"]
    assert a[0][0].shape == (1, 7, 4096) and a[0][1] == {}
    assert torch.equal(a[0][0], b[0][0])  # same seed -> bit-identical
    assert not torch.equal(a[0][0], c[0][0])
    assert abs(float(a[0][0].std()) - 1.0) < 0.05  # standard normal: 28k samples, std within 5 %


def test_latent_diff_reports_and_names_input_on_mismatch(pack, mod):
    import torch

    D = "AccelLatentDiff"
    x = torch.randn(1, 16, 1, 8, 8)
    out = H.call_node(D, {"samples": x}, {"samples": x.clone()})
    text, mx, cos = out["result"]
    assert mx == 0.0 and cos == pytest.approx(1.0, abs=1e-12)
    assert out["ui"]["text"] == [text] and "accelerated vs stock" in text
    y = x.clone()
    y[0, 3, 0, 2, 5] += 0.25
    _, mx, cos = H.call_node(D, {"samples": y}, {"samples": x})["result"]
    assert mx == pytest.approx(0.25, abs=1e-6) and cos < 1.0
    errors = mod("accel.common.errors")
    with pytest.raises(errors.AccelError) as e:
        H.call_node(D, {"samples": x}, {"samples": torch.zeros(1, 16, 1, 4, 4)})
    assert "Accel Latent Diff" in str(e.value) and "latent_b" in str(e.value)


def test_tensor_diff_values(mod):
    import torch

    C = mod("accel.common.compare")
    a = torch.tensor([1.0, 2.0, 2.0])
    b = torch.tensor([1.0, 2.0, 3.0])
    d = C.tensor_diff(a, b)
    assert d["max_abs"] == 1.0 and d["mean_abs"] == pytest.approx(1 / 3)
    assert d["rel_l2"] == pytest.approx(1 / 14 ** 0.5)
    assert d["cosine"] == pytest.approx(11 / (3 * 14 ** 0.5))
    assert C.tensor_diff(a, a)["finite"] and not C.tensor_diff(a, torch.tensor([1.0, float("nan"), 1.0]))["finite"]


def _settings_like_spec():
    """The /object_info shape of a MODEL -> (MODEL, STRING) patch node with combo widgets (like AccelCUDASettings)."""
    return {"name": "AccelFakePatch", "input": {"required": {
        "model": ["MODEL", {}], "mode": [["fast", "auto", "off"], {"default": "fast"}],
        "level": ["INT", {"default": 2, "min": 0}], "note": ["STRING", {"multiline": False}]}},
        "input_order": {"required": ["model", "mode", "level", "note"]},
        "output": ["MODEL", "STRING"], "output_name": ["model", "report"]}


def test_builder_composes_chain_from_object_info():
    from accel_harness import demo as D
    from accel_harness.workflow import ApiGraph, ancestors, widget_inputs

    info = {"AccelFakePatch": _settings_like_spec(),
            "AccelNeedsLatent": {"name": "AccelNeedsLatent", "input": {"required": {
                "model": ["MODEL", {}], "latent": ["LATENT", {}]}}, "output": ["MODEL"]},
            "AccelNoModelOut": {"name": "AccelNoModelOut", "input": {"required": {"model": ["MODEL", {}]}},
                                "output": ["STRING"]}}
    assert widget_inputs(info["AccelFakePatch"], {"model": ["1", 0]}) == {
        "model": ["1", 0], "mode": "auto", "level": 2, "note": ""}  # 'auto' preferred over the default
    g = ApiGraph()
    loader = g.add("UNETLoader", unet_name="x", weight_dtype="default")
    link, used, skipped = D.compose_chain(info, g, g.out(loader), (
        "AccelNeedsLatent", "AccelFakePatch", "AccelMissing", "AccelNoModelOut", "AccelFakePatch"))
    assert used == ["AccelFakePatch", "AccelFakePatch"]
    assert set(skipped) == {"AccelNeedsLatent", "AccelMissing", "AccelNoModelOut"}
    p = g.prompt()
    assert link == ["3", 0] and p["3"]["inputs"]["model"] == ["2", 0] and p["2"]["inputs"]["model"] == ["1", 0]
    assert ancestors(p, ["3"]) == {"1", "2", "3"}


def test_demo_workflow_shares_loader_between_branches():
    from accel_harness import demo as D

    info = {"AccelFakePatch": _settings_like_spec(), "AccelLatentDiff": {}, "AccelHardwareReport": {}}
    wf = D.build(info, preset="tiny", chain=("AccelFakePatch",))
    p = wf.prompt
    stock, accel = p[wf.ids["stock_sampler"]], p[wf.ids["accel_sampler"]]
    assert stock["inputs"]["model"] == [wf.ids["loader"], 0]
    patch_id = accel["inputs"]["model"][0]
    assert p[patch_id]["class_type"] == "AccelFakePatch" and p[patch_id]["inputs"]["model"] == [wf.ids["loader"], 0]
    same = {k for k in stock["inputs"] if k != "model"}
    assert all(stock["inputs"][k] == accel["inputs"][k] for k in same)  # same seed, steps, conditioning, latent
    assert set(wf.part("stock_save")) & set(wf.part("accel_save")) >= {wf.ids["loader"]}
    assert wf.with_seed(7).prompt[wf.ids["accel_sampler"]]["inputs"]["seed"] == 7
