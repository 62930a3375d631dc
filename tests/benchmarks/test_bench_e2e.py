"""bench/bench_e2e.py: the end-to-end benchmark runs the shipped Wan 2.1 T2V API workflow through a live ComfyUI
server (CPU smoke: tiny models), stock vs accelerated, and reports per-stage times from the websocket events."""
import importlib.util
import json
import subprocess
import sys

import pytest

import accel_harness as H
from accel_harness.gguf_files import SKIP_REASON as GGUF_SKIP


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
    assert len(acc) == 1
    assert next(v for v in vae.values() if v["class_type"] == "VAEDecode")["inputs"]["vae"] == [acc[0], 0]
    assert B.stage_times(vae, {acc[0]: 0.5, "9": 2.0}) == {"accel patch": 0.5, "sampler": 2.0}
    # the node's own defaults (its schema), options on top; every input the node declares is given
    node = H.pack_module("nodes.vae").AccelVAE
    declared = {i.id for i in node.define_schema().inputs}
    assert set(vae[acc[0]]["inputs"]) == declared
    assert vae[acc[0]]["inputs"]["channels_last"] is True and vae[acc[0]]["inputs"]["fused_norm"] is False
    assert vae[acc[0]]["inputs"]["cudnn_benchmark"] is False
    fused = B.variant_prompt("level1+vae_fused", B.parse(["--smoke"]), "unet.safetensors")
    inp = next(v["inputs"] for v in fused.values() if v["class_type"] == "AccelVAE")
    assert inp["fused_norm"] is True and inp["channels_last"] is True
    fast = B.variant_prompt("level1_fast", B.parse(["--smoke", "--workflow", "wan22_t2v_lightx2v"]), None)
    assert [v["inputs"].get("quality") for v in fast.values() if v["class_type"] == "AccelWanLevel1"] == ["fast"] * 2
    # the opt-in row: the graph as shipped (level1+vae+save+prefetch) with quality fast on both experts, nothing else
    a = B.parse(["--smoke", "--workflow", "wan22_t2v_lightx2v"])
    optin, as_shipped = (B.variant_prompt(v, a, None) for v in ("level1_fast+vae+save+prefetch",
                                                                  "level1+vae+save+prefetch"))
    for k, v in optin.items():
        if v["class_type"] == "AccelWanLevel1":
            assert v["inputs"].pop("quality") == "fast"
            as_shipped[k]["inputs"].pop("quality", None)
    assert json.dumps(optin, sort_keys=True) == json.dumps(as_shipped, sort_keys=True).replace(
        '"e2e/level1_vae_save_prefetch"', '"e2e/level1_fast_vae_save_prefetch"')
    # the sparse opt-in row: the same with the node's own sparse choice
    sparse = B.variant_prompt("level1_sparse+vae+save+prefetch", a, None)
    quality = [v["inputs"]["quality"] for v in sparse.values() if v["class_type"] == "AccelWanLevel1"]
    assert quality == [H.pack_module("accel.wan_level1.preset").SPARSE] * 2
    assert all(v["inputs"]["prefetch_weights"] is True for v in sparse.values() if v["class_type"] == "AccelWanLevel1")
    assert set(B.OPTIN_QUALITY.values()) <= set(H.pack_module("accel.wan_level1.preset").QUALITIES)
    # the change Queues: every LoRA's strength, then the size; nothing to change gives None
    a14b = B.load_workflow("wan22_t2v_lightx2v")
    lora = B.changed(a14b, "lora")
    assert sorted(v["inputs"]["strength_model"] for v in lora.values() if v["class_type"] == "LoraLoaderModelOnly") \
        == [0.7, 0.7]
    size = next(v["inputs"] for v in B.changed(a14b, "resolution").values()
                if v["class_type"] == "EmptyHunyuanLatentVideo")
    assert (size["width"], size["height"]) == (480, 832) and B.changed(shipped, "lora") is None
    # a later Queue changes only the sampler's seed
    again = B.reseeded(shipped, 1)
    changed = {k for k in shipped if shipped[k] != again[k]}
    assert changed == {k for k, v in shipped.items() if v["class_type"] == "KSampler"}
    ks_again = next(v for v in again.values() if v["class_type"] == "KSampler")
    assert ks_again["inputs"]["seed"] == ks["inputs"]["seed"] + 1


def test_bench_e2e_smoke(tmp_path):
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_e2e.py"), "--smoke", "--out", str(out),
                        "--base", str(tmp_path / "base"), "--changes", "none",
                        "--comfy-args=--preview-method none"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    data = json.loads((out / "e2e.json").read_text())
    assert not data["errors"], data["errors"]
    # --comfy-args reach every server's command line (and the results say so)
    assert data["meta"]["server_args"] == ["--preview-method", "none"]
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
    # each variant's own part of the server console is kept beside the results (the base's server.log is appended
    # to by every server): it starts with that server's start-up and holds its prompts
    logs = {name: (out / row["server_log"]).read_text(errors="replace") for name, row in rows.items()}
    assert (out / "server_logs" / "level1_vae_fused.log").exists()
    for name, text in logs.items():
        assert "Prompt executed" in text, (name, text[-500:])
        assert text.count("Starting server") == 1, name
        assert isinstance(rows[name]["server_log_notes"], list)
    assert "Server consoles:" in md


def test_bench_e2e_keeps_a_variants_server_console(tmp_path):
    """keep_server_log: only this variant's bytes (from the offset), progress bars left out of the notable lines,
    the fallbacks and warnings kept, the end kept when the log is over the cap, a missing log said so."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_e2e_mod", H.REPO_ROOT / "bench" / "bench_e2e.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    log = tmp_path / "server.log"
    earlier = b"Starting server\nWARNING: an earlier variant's warning\n"
    mine = (b"Starting server\nWARNING: torchaudio missing (start-up noise)\n[INFO] got prompt\n 50%|#####     | 2/4 "
            b"[00:01<00:00, 1.9it/s]\r100%|##########| 4/4 [00:02, 1.9it/s]\nWarning: Ran out of memory when regular "
            b"VAE decoding, retrying with tiled VAE decoding.\n[comfyui-accel] Accel Wan Level-1: compile fell back to "
            b"eager\nPrompt executed in 3.2 seconds\n")
    log.write_bytes(earlier + mine)
    got = mod.keep_server_log(log, len(earlier), tmp_path / "out", "level1+vae")
    assert got["server_log"] == "server_logs/level1_vae.log"
    assert (tmp_path / "out" / got["server_log"]).read_bytes() == mine
    notes = got["server_log_notes"]
    assert any("retrying with tiled" in n for n in notes) and any("fell back" in n for n in notes)
    assert not any("earlier variant" in n for n in notes) and not any("it/s]" in n for n in notes)
    assert not any("start-up noise" in n for n in notes), notes  # notes start at the first queued prompt
    capped = mod.keep_server_log(log, 0, tmp_path / "out2", "stock", cap=20)
    assert (tmp_path / "out2" / capped["server_log"]).read_bytes() == (earlier + mine)[-20:]
    missing = mod.keep_server_log(tmp_path / "none.log", 0, tmp_path / "out3", "stock")
    assert missing["server_log"] is None and "no server log" in missing["server_log_notes"][0]


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


def test_a14b_lightx2v_prompts_split_the_experts_and_swap_level1_for_peer_chains(comfy):
    """The users' workflow (issue #27): both experts bypassed for stock, the 2 + 2 split kept at any step count,
    each sampler reported under its expert's name, and the peer variants in Level-1's place on both experts."""
    B = _bench()
    a = B.parse(["--workflow", "wan22_t2v_lightx2v", "--steps", "6", "--frames", "17"])
    assert a.size == "14B" and a.te_format == "fp8_scaled" and a.variants == "stock,level1,level1+vae"
    assert B.result_name(a) == "e2e_wan22_t2v_lightx2v"
    assert B.result_name(B.parse(["--workflow", "wan22_t2v_lightx2v", "--card", "24", "--occupy"])) \
        == "e2e_wan22_t2v_lightx2v_card24"
    stock = B.variant_prompt("stock", a, None)
    assert not any(v["class_type"].startswith("Accel") for v in stock.values())
    ks = {k: v["inputs"] for k, v in stock.items() if v["class_type"] == "KSamplerAdvanced"}
    assert sorted((i["start_at_step"], i["end_at_step"], i["steps"]) for i in ks.values()) == [(0, 3, 6), (3, 10000, 6)]
    assert {k: B.sampler_stage(stock, k) for k in ks} == {"14": "sampler high-noise", "15": "sampler low-noise"}
    assert B.stage_times(stock, {"14": 2.0, "15": 1.0, "2": 0.5, "1": 0.25}) == {
        "sampler high-noise": 2.0, "sampler low-noise": 1.0, "LoRA load": 0.5, "model load": 0.25}
    lat = next(v["inputs"] for v in stock.values() if v["class_type"] == "EmptyHunyuanLatentVideo")
    assert (lat["length"], lat["width"], lat["height"]) == (17, 832, 480)
    for variant, chain in (("kj_sage_compile", ["PathchSageAttentionKJ", "TorchCompileModelAdvanced"]),
                           ("core_compile", ["TorchCompileModel"]), ("core_ck_int8", ["ModelAttentionBackend"])):
        p = B.variant_prompt(variant, a, None)
        assert not any(v["class_type"].startswith("Accel") for v in p.values()), variant
        for k in ks:  # each expert: loader -> LoRA -> shift -> the chain -> its sampler
            walk, link = [], p[k]["inputs"]["model"]
            while p[link[0]]["class_type"] != "UNETLoader":
                walk.append(p[link[0]]["class_type"])
                link = p[link[0]]["inputs"]["model"]
            assert walk[::-1] == ["LoraLoaderModelOnly", "ModelSamplingSD3", *chain], (variant, k, walk)
    kj = B.variant_prompt("kj_sage_compile", a, None)
    info = {"PathchSageAttentionKJ": {"input": {"required": {"model": ["MODEL"], "sage_attention": [
                ["disabled", "auto"],
                {"default": False}]}, "optional": {"allow_compile": ["BOOLEAN", {"default": False}]}}},
            "TorchCompileModelAdvanced": {"input": {"required": {"model": ["MODEL"], "backend": [
                ["inductor", "cudagraphs"],
                {"default": "inductor"}], "dynamic": ["COMBO", {"options": ["auto", "false"],
                "default": "false"}], "dynamo_cache_size_limit": ["INT", {"default": 64}]}}}}
    filled = B.fill_defaults(kj, info)
    tc = next(v["inputs"] for v in filled.values() if v["class_type"] == "TorchCompileModelAdvanced")
    assert {k: v for k, v in tc.items() if k != "model"} == {"backend": "inductor", "dynamic": "false",
                                                             "dynamo_cache_size_limit": 64}
    sage = next(v["inputs"] for v in filled.values() if v["class_type"] == "PathchSageAttentionKJ")
    assert sage["sage_attention"] == "auto" and "allow_compile" not in sage
    with pytest.raises(RuntimeError, match="no TorchCompileModelAdvanced node.*KJNODES_PATH"):
        B.fill_defaults(kj, {"PathchSageAttentionKJ": info["PathchSageAttentionKJ"]})
    int8 = B.variant_prompt("core_ck_int8", a, None)
    with pytest.raises(RuntimeError, match="comfy kitchen attention.*not offered"):
        B.fill_defaults(int8, {"ModelAttentionBackend": {"input": {"required": {
            "model": ["MODEL"], "attention": [["pytorch attention"]]}}}})


def test_gguf_variants_load_each_expert_from_its_gguf_file(comfy):
    """The GGUF variants (users of ComfyUI-GGUF): every UNETLoader becomes UnetLoaderGGUF of that expert's Q8_0 file
    name, stock bypasses Level-1, gguf+level1 keeps it; samplers still reported per expert; other workflows refuse."""
    B = _bench()
    a = B.parse(["--workflow", "wan22_t2v_lightx2v", "--variants", "gguf,gguf+level1"])
    assert B.gguf_name("wan2.2_t2v_high_noise_14B_fp8_scaled.safetensors") == "wan2.2_t2v_high_noise_14B_Q8_0.gguf"
    for variant, level1 in (("gguf", 0), ("gguf+level1", 2)):
        p = B.variant_prompt(variant, a, None)
        loaders = sorted(v["inputs"]["unet_name"] for v in p.values() if v["class_type"] == "UnetLoaderGGUF")
        assert loaders == ["wan2.2_t2v_high_noise_14B_Q8_0.gguf", "wan2.2_t2v_low_noise_14B_Q8_0.gguf"], variant
        assert not any(v["class_type"] == "UNETLoader" for v in p.values())
        assert [v["class_type"] for v in p.values()].count("AccelWanLevel1") == level1
        ks = [k for k, v in p.items() if v["class_type"] == "KSamplerAdvanced"]
        assert sorted(B.sampler_stage(p, k) for k in ks) == ["sampler high-noise", "sampler low-noise"]
    with pytest.raises(SystemExit):
        B.parse(["--variants", "gguf"])  # the 1.3B workflow has no GGUF twin here


@pytest.mark.skipif(not __import__("os").environ.get("GGUF_NODES_PATH"), reason=GGUF_SKIP)
def test_bench_e2e_smoke_gguf(tmp_path):
    """The users' workflow on Q8_0 GGUF experts through ComfyUI-GGUF on a live server, stock and with Level-1."""
    out, base = tmp_path / "out", tmp_path / "base"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_e2e.py"), "--smoke", "--workflow",
                        "wan22_t2v_lightx2v", "--variants", "gguf,gguf+level1", "--queues", "1", "--out", str(out),
                        "--base", str(base)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    data = json.loads((out / "e2e_wan22_t2v_lightx2v.json").read_text())
    assert not data["errors"], data["errors"]
    rows = {x["variant"]: x for x in data["rows"]}
    for name in ("gguf", "gguf+level1"):
        assert list(rows[name]["nodes"].values()).count("UnetLoaderGGUF") == 2
        assert {"sampler high-noise", "sampler low-noise", "save"} <= set(rows[name]["queues"][0]["stages_s"])
    assert (base / "models" / "diffusion_models" / "wan2.2_t2v_low_noise_14B_Q8_0.gguf").is_symlink()


def test_bench_e2e_smoke_a14b_lightx2v(tmp_path):
    """The users' workflow end to end on a live server: one tiny expert file in ComfyUI's scaled-fp8 layout behind
    both expert names, a LightX2V-layout LoRA per expert, both experts' samplers reported in every Queue; after the
    two seed Queues a LoRA-strength change and a resolution change, each its own measured Queue; and the variant
    with Accel VAE and Accel Save Video (its decode + save one stage)."""
    out, base = tmp_path / "out", tmp_path / "base"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_e2e.py"), "--smoke", "--workflow",
                        "wan22_t2v_lightx2v", "--variants", "stock,level1,level1+vae+save", "--out", str(out),
                        "--base", str(base)], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    data = json.loads((out / "e2e_wan22_t2v_lightx2v.json").read_text())
    assert not data["errors"], data["errors"]
    rows = {x["variant"]: x for x in data["rows"]}
    assert set(rows) == {"stock", "level1", "level1+vae+save"}
    for name, row in rows.items():
        out_stages = {"decode + save"} if name.endswith("+save") else {"VAE decode", "save"}
        q1, q2, lora, res = row["queues"]
        assert {"model load", "LoRA load", "text encode", "sampler high-noise", "sampler low-noise"} | out_stages \
            <= set(q1["stages_s"]), (name, q1)
        assert {"sampler high-noise", "sampler low-noise"} | out_stages <= set(q2["stages_s"]), (name, q2)
        assert "model load" not in q2["stages_s"] and "LoRA load" not in q2["stages_s"], (name, q2)
        assert q2["outputs"] and q2["outputs"] != q1["outputs"], (name, q1["outputs"], q2["outputs"])
        # the LoRA change re-patches the LoRAs (not the loaders); the resolution change re-runs only the sampling on
        assert lora["change"] == "LoRA strength 1.0 -> 0.7" and "LoRA load" in lora["stages_s"], (name, lora)
        assert "model load" not in lora["stages_s"] and {"sampler high-noise", "sampler low-noise"} <= set(
            lora["stages_s"])
        assert res["change"] == "resolution swapped (portrait)" and "LoRA load" not in res["stages_s"], (name, res)
        assert (lora["queue"], res["queue"]) == (3, 4) and all(q["outputs"] for q in (lora, res))
    assert list(rows["level1"]["nodes"].values()).count("AccelWanLevel1") == 2
    saves = list(rows["level1+vae+save"]["nodes"].values())
    assert {"AccelSaveVideo", "AccelVAE"} <= set(saves) and not {"VAEDecode", "CreateVideo", "SaveVideo"} & set(saves)
    assert all(p.endswith(".mp4") for p in rows["level1+vae+save"]["queues"][1]["outputs"])
    # each pack node's report after the Queue, as the history holds it: the saver names its file and encoder
    reports = rows["level1+vae+save"]["queues"][1]["reports"]
    [saver] = [t for k, t in reports.items() if k.endswith(" AccelSaveVideo")]
    assert ".mp4" in saver and "libx264" in saver, saver
    assert any(k.endswith(" AccelWanLevel1") for k in reports) and not rows["stock"]["queues"][1]["reports"]
    assert list(rows["stock"]["nodes"].values()).count("UNETLoader") == 2
    # the files: one random scaled-fp8 expert behind both names, a different LoRA per expert
    import safetensors.torch
    import torch

    dm = base / "models" / "diffusion_models"
    high = dm / "wan2.2_t2v_high_noise_14B_fp8_scaled.safetensors"
    low = dm / "wan2.2_t2v_low_noise_14B_fp8_scaled.safetensors"
    assert high.is_symlink() and low.is_symlink() and high.resolve() == low.resolve()
    sd = safetensors.torch.load_file(str(high))
    assert "scaled_fp8" in sd and sd["blocks.0.self_attn.q.weight"].dtype == torch.float8_e4m3fn
    assert "blocks.0.self_attn.q.scale_weight" in sd
    loras = base / "models" / "loras"
    lh = safetensors.torch.load_file(str(loras / "wan2.2_t2v_lightx2v_4steps_lora_v1.1_high_noise.safetensors"))
    ll = safetensors.torch.load_file(str(loras / "wan2.2_t2v_lightx2v_4steps_lora_v1.1_low_noise.safetensors"))
    key = "diffusion_model.blocks.0.self_attn.q.lora_down.weight"
    assert lh[key].shape[0] == 32 and not torch.equal(lh[key], ll[key])
    m = data["meta"]
    assert m["experts_note"] == "both experts load one random file" and "speed, not quality" in m["weights"]
    md = (out / "e2e_wan22_t2v_lightx2v.md").read_text()
    assert "sampler high-noise | sampler low-noise" in md and "| level1+vae+save | 2 |" in md
    assert "| stock | 3 (LoRA strength 1.0 -> 0.7) |" in md and "| level1 | 4 (resolution swapped (portrait)) |" in md


def test_bench_e2e_smoke_a14b_lightx2v_i2v(tmp_path):
    """The I2V twin of the users' workflow (issue #27 item 4) end to end on a live server: the start image through
    WanImageToVideo, the i2v expert and LoRA names of the shipped file, both experts' samplers in both Queues."""
    out, base = tmp_path / "out", tmp_path / "base"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_e2e.py"), "--smoke", "--workflow",
                        "wan22_i2v_lightx2v", "--variants", "stock,level1", "--changes", "resolution", "--out",
                        str(out), "--base", str(base)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    data = json.loads((out / "e2e_wan22_i2v_lightx2v.json").read_text())
    assert not data["errors"], data["errors"]
    rows = {x["variant"]: x for x in data["rows"]}
    assert set(rows) == {"stock", "level1"}
    for name, row in rows.items():
        q1, q2, res = row["queues"]
        assert {"image load", "image encode", "sampler high-noise", "sampler low-noise", "VAE decode",
                "save"} <= set(q1["stages_s"]), (name, q1)
        assert {"sampler high-noise", "sampler low-noise"} <= set(q2["stages_s"]), (name, q2)
        # the resolution change re-encodes the start image at the new size (WanImageToVideo) and samples again
        assert res["change"] == "resolution swapped (portrait)" and "image encode" in res["stages_s"], (name, res)
        assert "WanImageToVideo" in row["nodes"].values() and "LoadImage" in row["nodes"].values()
    assert list(rows["level1"]["nodes"].values()).count("AccelWanLevel1") == 2
    dm = base / "models" / "diffusion_models"
    assert (dm / "wan2.2_i2v_high_noise_14B_fp8_scaled.safetensors").exists()
    assert (base / "models" / "loras" / "wan2.2_i2v_lightx2v_4steps_lora_v1_low_noise.safetensors").exists()


def test_umt5_scaled_fp8_file_loads_through_comfyui_text_encoder_path(comfy, monkeypatch, tmp_path):
    """The umt5 file in ComfyUI's scaled-fp8 text-encoder layout loads through comfy.sd.load_clip (type wan) into
    ComfyUI's fp8 layers (0.3.x: scaled-fp8 ops; 0.33: quantized tensors) with its scales applied: it encodes like
    a bf16 file holding the same dequantized weights. A small stand-in (d_model 64; 24 blocks and d_ff 10240 as
    the real one); the stand-in's size is given to ComfyUI's own umt5 config hook and its detection."""
    import comfy.sd
    import torch

    from accel_harness import models as M

    B = _bench()
    cfg = {"d_model": 64, "d_kv": 16, "num_heads": 4, "vocab_size": 512}
    sd8 = B.umt5_xxl_state_dict(config=cfg, fmt="fp8_scaled")
    scaled = [k for k in sd8 if k.endswith(".scale_weight")]
    assert len(scaled) == 24 * 7 and sd8["scaled_fp8"].dtype == torch.float8_e4m3fn  # as the published file
    assert sd8["encoder.block.3.layer.1.DenseReluDense.wi_0.weight"].dtype == torch.float8_e4m3fn
    assert sd8["shared.weight"].dtype == torch.bfloat16
    assert sd8["encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"].dtype == torch.bfloat16
    deq = {}
    for k, v in sd8.items():
        if k.endswith(".scale_weight") or k == "scaled_fp8":
            continue
        s = sd8.get(k[: -len("weight")] + "scale_weight") if k.endswith(".weight") else None
        deq[k] = (v.float() * s).to(torch.bfloat16) if s is not None else v
    real_detect = comfy.sd.detect_te_model  # the real file is detected by its size; the stand-in is told
    monkeypatch.setattr(comfy.sd, "detect_te_model", lambda sd: comfy.sd.TEModel.T5_XXL
                        if "encoder.block.23.layer.1.DenseReluDense.wi_1.weight" in sd else real_detect(sd))
    out = {}
    for name, sd in (("fp8", sd8), ("deq", deq)):
        path = M.save_safetensors(sd, tmp_path / f"umt5_{name}.safetensors")
        clip = comfy.sd.load_clip([str(path)], clip_type=comfy.sd.CLIPType.WAN,
                                  model_options={"umt5xxl_model_config": cfg})
        q = clip.cond_stage_model.umt5xxl.transformer.encoder.block[0].layer[0].SelfAttention.q
        if name == "fp8":
            w = q.weight
            assert w.dtype == torch.float8_e4m3fn or type(w).__name__ == "QuantizedTensor", (type(w), w.dtype)
        out[name] = clip.encode_from_tokens(clip.tokenize("a red cat walking in the rain")).float().flatten()
    cos = torch.nn.functional.cosine_similarity(out["fp8"], out["deq"], dim=0).item()
    ratio = (out["fp8"].norm() / out["deq"].norm()).item()
    assert cos > 0.999 and abs(ratio - 1) < 0.02, (cos, ratio)


def test_bench_e2e_smoke_prefetch_variant_and_peak_rss(tmp_path):
    """level1+prefetch: the level1 graph with prefetch_weights on both Level-1 nodes (nothing else changed);
    every variant's row carries its server's peak host RSS, listed under the table."""
    B = _bench()
    a = B.parse(["--smoke", "--workflow", "wan22_t2v_lightx2v"])
    shipped, pre = B.variant_prompt("level1", a, None), B.variant_prompt("level1+prefetch", a, None)
    nodes = [k for k, v in pre.items() if v["class_type"] == "AccelWanLevel1"]
    assert len(nodes) == 2 and all(pre[k]["inputs"]["prefetch_weights"] is True for k in nodes)
    # the workflow ships it on; every variant without "+prefetch" turns it off
    assert all(shipped[k]["inputs"]["prefetch_weights"] is False for k in nodes)
    for k in nodes:
        pre[k]["inputs"]["prefetch_weights"] = False
    assert json.dumps(pre, sort_keys=True) == json.dumps(shipped, sort_keys=True).replace(
        '"e2e/level1"', '"e2e/level1_prefetch"')
    # level1+save+prefetch: Level-1 and Accel Save Video with prefetch_weights on, nothing else;
    # level1+vae+save+prefetch: the shipped graph as it is (Accel VAE, Accel Save Video) with it on
    for base, node in (("level1+save", "AccelSaveVideo"), ("level1+vae+save", "AccelVAE")):
        plain, on = B.variant_prompt(base, a, None), B.variant_prompt(base + "+prefetch", a, None)
        assert any(v["class_type"] == node for v in on.values()), base
        assert all(on[k]["inputs"]["prefetch_weights"] is True for k in nodes), base
        for k in nodes:
            on[k]["inputs"]["prefetch_weights"] = False
        prefix = "e2e/" + base.replace("+", "_")
        assert json.dumps(on, sort_keys=True) == json.dumps(plain, sort_keys=True).replace(
            f'"{prefix}"', f'"{prefix}_prefetch"'), base
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_e2e.py"), "--smoke", "--workflow",
                        "wan22_t2v_lightx2v", "--variants", "stock,level1+prefetch", "--queues", "1", "--changes",
                        "none", "--out", str(out),
                        "--base", str(tmp_path / "base")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    data = json.loads((out / "e2e_wan22_t2v_lightx2v.json").read_text())
    assert not data["errors"], data["errors"]
    rows = {x["variant"]: x for x in data["rows"]}
    assert set(rows) == {"stock", "level1+prefetch"}
    for row in rows.values():
        assert row["server_peak_rss_gib"] > 0.1
        assert row["queues"][0]["server_peak_rss_gib"] == row["server_peak_rss_gib"]
    md = (out / "e2e_wan22_t2v_lightx2v.md").read_text()
    assert "Peak host RSS of each variant's ComfyUI server (VmHWM, GiB): stock " in md


def test_later_queues_median():
    """The median of the seed-changed Queues after the first (the change Queues left out): the figure to quote when
    a run queues more than twice; none from a single later Queue."""
    B = _bench()

    def q(n, total, change=None, **stages):
        return {"queue": n, "total_s": total, "stages_s": stages, **({"change": change} if change else {})}

    queues = [q(1, 30.0, sampler=20.0), q(2, 12.0, sampler=8.0, save=3.0), q(3, 11.0, sampler=7.5, save=3.1),
              q(4, 12.5, sampler=8.2, save=2.9), q(5, 14.0, "LoRA strength 1.0 -> 0.7", sampler=9.0, save=3.0)]
    assert B.later_median(queues) == {"queues": 3, "total_s": 12.0, "stages_s": {"sampler": 8.0, "save": 3.0}}
    assert B.later_median(queues[:3])["total_s"] == 11.5 and B.later_median(queues[:2]) is None
    md = B.markdown({"meta": {}, "rows": [{"variant": "level1", "queues": queues,
                                           "later_median": B.later_median(queues)}]})
    assert "Median of the Queues after the first" in md and "| level1 | 3 | 8.0 | 3.0 | 12.0 |" in md


def test_a_variant_can_carry_its_own_server_flags(monkeypatch, tmp_path):
    """`NAME@FLAG@FLAG...`: the graph of NAME on a server started with the run's flags plus these, so one run can
    compare a ComfyUI flag with the default (a variant without flags keeps the run's flags alone); bad forms are
    refused before anything runs."""
    B = _bench()
    assert B.split_variant(" level1+prefetch@--reserve-vram@2 ") == ("level1+prefetch", ["--reserve-vram", "2"])
    assert B.split_variant("stock") == ("stock", [])
    a = B.parse(["--smoke", "--workflow", "wan22_t2v_lightx2v", "--variants",
                 "stock,level1+prefetch,level1+prefetch@--disable-cuda-malloc", "--out", str(tmp_path / "out")])
    seen = {}

    def fake_serve(a_, base, variant, prompt, row, extra_args, env, t0):
        seen[variant] = (list(extra_args), prompt)
        row["queues"] = [{"total_s": 1.0, "stages_s": {}, "per_node_s": {}, "outputs": []}]

    monkeypatch.setattr(B, "_serve_variant", fake_serve)
    monkeypatch.setattr(B, "keep_server_log", lambda *args, **kwargs: {})
    flagged = B.run_variant(a, tmp_path, "level1+prefetch@--disable-cuda-malloc", None, ["--cpu"])
    plain = B.run_variant(a, tmp_path, "level1+prefetch", None, ["--cpu"])
    assert seen["level1+prefetch@--disable-cuda-malloc"][0] == ["--cpu", "--disable-cuda-malloc"]
    assert seen["level1+prefetch"][0] == ["--cpu"]
    assert flagged["variant"] == "level1+prefetch@--disable-cuda-malloc"
    assert flagged["server_flags"] == ["--disable-cuda-malloc"] and "server_flags" not in plain
    # the same graph: the flags change the server, not the prompt
    assert json.dumps(seen["level1+prefetch@--disable-cuda-malloc"][1], sort_keys=True) == json.dumps(
        seen["level1+prefetch"][1], sort_keys=True)
    for bad in ("nope@--cpu", "stock@", "stock@@--cpu"):
        with pytest.raises(SystemExit):
            B.parse(["--smoke", "--variants", bad, "--out", str(tmp_path / "out")])
