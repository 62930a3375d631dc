"""bench/bench_e2e.py: the end-to-end benchmark runs the shipped Wan 2.1 T2V API workflow through a live ComfyUI
server (CPU smoke: tiny models), stock vs accelerated, and reports per-stage times from the websocket events."""
import importlib.util
import json
import subprocess
import sys

import accel_harness as H


def _bench():
    spec = importlib.util.spec_from_file_location("bench_e2e", H.REPO_ROOT / "bench" / "bench_e2e.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_stock_twin_and_accel_vae_variant_are_derived_from_the_shipped_prompt(comfy):
    B = _bench()
    shipped = B.load_workflow()
    stock = B.bypass_accel(shipped)
    assert not any(v["class_type"].startswith("Accel") for v in stock.values())
    ks = next(v for v in stock.values() if v["class_type"] == "KSampler")
    assert stock[ks["inputs"]["model"][0]]["class_type"] == "ModelSamplingSD3"
    vae = B.with_accel_vae(shipped)
    acc = [k for k, v in vae.items() if v["class_type"] == "AccelVAE"]
    assert len(acc) == 1 and next(v for v in vae.values() if v["class_type"] == "VAEDecode")["inputs"]["vae"] == [acc[0], 0]
    assert B.stage_times(vae, {acc[0]: 0.5, "9": 2.0}) == {"accel patch": 0.5, "sampler": 2.0}
    # the node's own defaults (its schema), options on top; every input the node declares is given
    node = H.pack_module("nodes.vae").AccelVAE
    declared = {i.id for i in node.inputs()}
    assert set(vae[acc[0]]["inputs"]) == declared
    assert vae[acc[0]]["inputs"]["channels_last"] is True and vae[acc[0]]["inputs"]["fused_norm"] is False
    assert vae[acc[0]]["inputs"]["cudnn_benchmark"] is False
    fused = B.variant_prompt("level1+vae_fused", B.parse(["--smoke"]), "unet.safetensors")
    inp = next(v["inputs"] for v in fused.values() if v["class_type"] == "AccelVAE")
    assert inp["fused_norm"] is True and inp["channels_last"] is True
    # a later Queue changes only the sampler's seed
    again = B.reseeded(shipped, 1)
    changed = {k for k in shipped if shipped[k] != again[k]}
    assert changed == {k for k, v in shipped.items() if v["class_type"] == "KSampler"}
    assert next(v for v in again.values() if v["class_type"] == "KSampler")["inputs"]["seed"] == ks["inputs"]["seed"] + 1


def test_bench_e2e_smoke(tmp_path):
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_e2e.py"), "--smoke", "--out", str(out),
                        "--base", str(tmp_path / "base")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    data = json.loads((out / "e2e.json").read_text())
    assert not data["errors"], data["errors"]
    rows = {x["variant"]: x for x in data["rows"]}
    assert set(rows) == {"stock", "level1", "level1+vae", "level1+vae_fused", "level1+vae_fast"}
    for name, row in rows.items():
        assert {"text encode", "model load", "sampler", "VAE decode", "save"} <= set(row["stages_s"]), (name, row)
        assert row["total_s"] > 0 and any(p.endswith(".mp4") for p in row["outputs"]), row
        # Queue 2 (new seed): the sampler, decode and save run again; loaders and text encode come from the cache
        q1, q2 = row["queues"]
        assert {"sampler", "VAE decode", "save"} <= set(q2["stages_s"]), (name, q2)
        assert "model load" not in q2["stages_s"] and "text encode" not in q2["stages_s"], (name, q2)
        assert q2["outputs"] and q2["outputs"] != q1["outputs"], (name, q1["outputs"], q2["outputs"])
    assert "AccelVAE" in rows["level1+vae"]["nodes"].values()
    assert not any(c.startswith("Accel") and c != "AccelRandomConditioning" for c in rows["stock"]["nodes"].values())
    md = (out / "e2e.md").read_text()
    assert "| level1+vae | 1 |" in md and "| level1+vae_fused | 2 |" in md and "VAE decode" in md


def test_umt5_file_carries_a_tokenizer_comfyui_accepts(comfy):
    """A umt5 file without `spiece_model` fails in CLIPLoader ("invalid tokenizer", seen on the GPU); the trained
    SentencePiece model must build ComfyUI's own UMT5 tokenizer and encode any prompt inside umt5's vocabulary."""
    import torch
    from comfy.text_encoders.wan import UMT5XXlTokenizer

    B = _bench()
    raw = torch.frombuffer(bytearray(B.spiece_model_bytes()), dtype=torch.uint8)
    tok = UMT5XXlTokenizer(tokenizer_data={"spiece_model": raw})
    out = tok.tokenize_with_weights("a red cat walking in the rain, zebra quokka 123 ÄÖ")
    ids = [t[0] for t in (out if isinstance(out, list) else next(iter(out.values())))[0]]
    assert len(ids) >= 512 and 1 < max(ids) < 256384
