"""GPU benchmark scripts keep working: their CPU smoke mode runs end to end on a tiny Wan (no timing
claims; the GPU figures are in bench/results/)."""
import json
import re
import subprocess
import sys

import pytest

import accel_harness as H


def test_profile_wan_smoke(tmp_path):
    out = tmp_path / "prof"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "profile_wan.py"), "--smoke", "--out", str(out),
                        "--variants", "stock,attn,fp8"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads((out / "profile_wan.json").read_text())
    assert set(res["variants"]) == {"stock", "attn", "fp8"}
    for name, v in res["variants"].items():
        assert "error" not in v, (name, v.get("traceback"))
        assert v["median_ms"] > 0 and v["kernel_total_ms"] > 0 and v["top"]
    assert res["variants"]["attn"]["cosine_vs_first"] > 0.9999  # SDPA on CPU vs ComfyUI's CPU attention
    assert "| stock |" in (out / "profile_wan.md").read_text()


@pytest.mark.parametrize("family,variants,batch", [("flux", None, 1), ("qwen_image", "stock", 2)])
def test_profile_family_smoke(tmp_path, family, variants, batch):
    """profile_family on the family's tiny model (CPU): each variant's forward measured inside one sampling step at the
    sampler's batch (Flux CFG 1: 1; Qwen-Image CFG 2.5: cond + uncond, 2); the FP8 loader's variant recorded as skipped
    (the tiny model is built in memory); the FP8 micro table at the shapes the stock forward ran."""
    out = tmp_path / family
    extra = ["--variants", variants, "--skip-micro"] if variants else []
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "profile_family.py"), "--smoke", "--family", family,
                        "--out", str(out), "--weights", str(tmp_path / "w"), *extra],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads((out / f"profile_{family}.json").read_text())
    assert not res["errors"], res["errors"]
    v = res["variants"]
    st = v["stock"]
    assert st["batch"] == batch and sorted(st["cond_or_uncond"]) == list(range(batch)), st  # 0 cond, 1 uncond
    assert st["median_ms"] > 0 and st["host_ms"] > 0 and st["kernel_total_ms"] > 0 and st["top"]
    assert st["cosine_vs_stock"] == 1.0 and st["gpu_busy_ms"] is None  # no GPU: no kernel intervals
    md = (out / f"profile_{family}.md").read_text()
    assert f"batch {batch} (CFG {res['meta']['cfg']})" in md.splitlines()[0] and "| stock | stock |" in md
    if variants:
        assert set(v) == {"stock"} and "linear_shapes" not in res
        return
    assert set(v) == {"stock", "attn", "fp8"} and v["fp8"]["chain"] == "fp8_forced"
    assert "built in memory" in v["fp8"]["skipped"]
    assert v["attn"]["batch"] == 1 and v["attn"]["cosine_vs_stock"] > 0.9999  # SDPA vs ComfyUI's CPU attention
    # tiny Flux (hidden 128, MLP ratio 2; one double and one single block) at 64x64: 16 image and 16 text tokens
    shapes = {tuple(s["shape"]): s["calls"] for s in res["linear_shapes"]}
    assert shapes == {(16, 128, 384): 2, (16, 128, 128): 2, (16, 128, 256): 2, (16, 256, 128): 2,  # img + txt streams
                      (32, 128, 640): 1, (32, 384, 128): 1}, shapes  # single block: linear1, linear2
    assert {(m["M"], m["K"], m["N"]) for m in res["micro"]} == set(shapes)
    per = res["micro_per_forward_ms"]
    assert per["bf16"] == pytest.approx(sum(shapes[(m["M"], m["K"], m["N"])] * m["bf16_ms"] for m in res["micro"]),
                                        abs=2e-3)
    assert "## Linears the FP8 loader quantizes" in md and "double_blocks.*.img_attn.qkv" in md


def test_profile_kernel_categories_and_gpu_busy_time():
    """The profiles' kernel categories (bench/runner.py; real kernel names from H100 profiles and inductor) and the
    GPU busy time: the union of kernel intervals, an overlap counted once."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("runner_under_test", H.REPO_ROOT / "bench" / "runner.py")
    pf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pf)
    cat = pf.kernel_category
    assert cat("void cutlass::device_kernel<flash::enable_sm90_or_later<"
               "flash::FlashAttnFwdSm90<flash::Coll") == "attention"
    assert cat("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1") == "attention"
    assert cat("nvjet_sm90_hsh_256x152_64x4_1x2_h_bz_coopA_bias_TNT") == "matmul"
    assert cat("sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x128") == "matmul"  # an FP8 GEMM is a matmul
    assert cat("_quant_rows_kernel") == "fp8 quantize"
    assert cat("void at::native::unrolled_elementwise_kernel<"
               "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
               "::{lambda(c10::Float8_e4m3fn)#1}>") == "fp8 quantize"
    # inductor names a kernel after the ops it fused: one feeding attention is still a fused elementwise kernel
    assert cat("triton_red_fused__fused_rms_norm__scaled_dot_product_cudnn_attention__to_copy_addcmul_mul") == "triton"
    assert cat("triton_red_fused__to_copy_abs_amax_clamp_div_native_layer_norm_0") == "fp8 quantize"
    assert cat("triton_poi_fused__to_copy_clamp_div_1") == "fp8 quantize"
    assert cat("triton_tem_fused_addmm_0") == "matmul"
    assert cat("Memcpy HtoD (Pageable -> Device)") == "copy/cast"
    # the VAE's convolutions (cuDNN's implicit-GEMM forward kernels; the CPU smoke's op names)
    assert cat("sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_ndhwc_kernel_ndhwc_tilesize128x128x64") == \
        "convolution"
    assert cat("aten::mkldnn_convolution") == cat("aten::slow_conv3d_forward") == "convolution"
    assert cat("void at::native::vectorized_elementwise_kernel<8, "
               "at::native::GeluCUDAKernelImpl") == "other elementwise"
    assert pf.busy_ms([]) == 0.0
    # [0, 10) and [5, 20) overlap: 20 us; [30, 35): 5 us; [32, 34) inside it adds nothing; [40, 41): 1 us
    assert pf.busy_ms([(30.0, 35.0), (5.0, 20.0), (0.0, 10.0), (32.0, 34.0), (40.0, 41.0)]) == pytest.approx(0.026)
    # a streamed model's weight copies against its compute (us): copy [0, 10k) overlaps compute [5k, 30k) for 5 ms,
    # copy [40k, 50k) runs alone (the GPU waited on it)
    assert pf.is_copy_event("Memcpy HtoD (Pinned -> Device)") and not pf.is_copy_event("triton_poi_fused_copy_0")
    assert pf.copy_overlap([(0.0, 1e4), (4e4, 5e4)], [(5e3, 3e4)]) == {
        "copy_ms": 20.0, "compute_busy_ms": 25.0, "copy_alone_ms": 15.0}


def test_bench_compile_smoke_interleaved(tmp_path):
    """bench_compile end to end on tiny Wan (CPU, inductor): eager, Accel Compile default, and the
    interleaved eager/compiled rounds that the GPU figures quote."""
    out = tmp_path / "bc"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_compile.py"), "--smoke", "--out", str(out),
                        "--modes", "default", "--core-models", "", "--warm-modes", "", "--interleave", "2"],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads((out / "bench_compile.json").read_text())
    cand = res["models"]["tiny"]["candidates"]
    assert cand["eager"]["forward_ms"] > 0
    c = cand["accel:default"]
    assert "error" not in c, c.get("error")
    assert c["status"]["graphs"] >= 1 and not c["status"]["fell_back"]
    ab = c["interleaved"]
    assert ab["order"] == [["eager", "accel:default"], ["accel:default", "eager"]]
    assert ab["speedup"]["accel:default"] > 0 and len(ab["rounds"]) == 2
    assert "| tiny | accel:default (vs eager) | 2 |" in (out / "bench_compile.md").read_text()


def test_interleaved_mirrors_order_and_takes_median_of_round_ratios():
    from accel_harness.timing import GpuMonitor, interleaved

    calls = []
    times = {"a": iter([10.0, 12.0, 30.0]), "b": iter([5.0, 6.0, 10.0])}

    def timer(label, reps):
        calls.append((label, reps))
        return next(times[label])

    r = interleaved({"a": "a", "b": "b"}, rounds=3, reps=2, timer=timer, monitor=GpuMonitor(command=["true"]))
    assert [c[0] for c in calls] == ["a", "b", "b", "a", "a", "b"] and all(c[1] == 2 for c in calls)
    assert r["median_ms"] == {"a": 12.0, "b": 6.0}
    assert r["speedup"] == {"b": 2.0}  # ratios 2.0, 2.0, 3.0
    try:
        interleaved({"a": "a"}, rounds=1, reps=1, timer=timer)
    except ValueError as e:
        assert "2 candidates" in str(e)
    else:
        raise AssertionError("one candidate must be refused")


def test_gpu_monitor_files_samples_under_the_running_phase():
    import time

    from accel_harness.timing import GpuMonitor, parse_sample, summarize

    assert parse_sample("1755, 698.12, 71, 0x0000000000000004") == {
        "sm_mhz": 1755.0, "power_w": 698.12, "temp_c": 71.0, "reasons": 4}
    assert parse_sample("[N/A], 1, 2, 0x0") is None and parse_sample("1, 2") is None
    s = summarize([parse_sample("1980, 500, 60, 0x0"), parse_sample("1700, 700, 70, 0x4")])
    assert s["samples"] == 2 and s["temp_c_max"] == 70 and s["share_sw_power_cap"] == 0.5 and s["sm_mhz_min"] == 1700
    assert summarize([]) == {"samples": 0}

    fake = [sys.executable, "-c", "print('1800, 650.5, 66, 0x4')"]
    with GpuMonitor(interval_s=0.01, command=fake) as mon:
        time.sleep(0.2)  # no phase: nothing recorded
        mon.phase("compiled")
        deadline = time.time() + 20
        while not mon._samples.get("compiled") and time.time() < deadline:
            time.sleep(0.05)
        mon.phase(None)
    summ = mon.summary()
    assert set(summ) == {"compiled"}, summ
    assert summ["compiled"]["sm_mhz_median"] == 1800 and summ["compiled"]["share_sw_power_cap"] == 1.0

    with GpuMonitor(command=[sys.executable, "-c", "print('garbage')"], interval_s=0.01) as bad:
        bad.phase("x")
        deadline = time.time() + 20
        while bad.error is None and time.time() < deadline:
            time.sleep(0.05)
    assert "unreadable" in bad.summary()["_error"]


def _smoke(tmp_path, script, *extra):
    out = tmp_path / script
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / f"{script}.py"), "--smoke", "--out", str(out),
                        *extra],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return out


def test_bench_save_smoke(tmp_path):
    """bench_save writes ComfyUI's own MP4 (VideoFromComponents.save_to, as SaveVideo) for both clips: real h264
    files, the noise clip larger than the smooth one (h264 cannot predict noise: the reason the script exists); takes
    the save apart (the CPU parts here), runs Accel Save Video's writer per encoder setting (NVENC: unavailable with
    its reason on this machine) with PSNR against the frames, and decode + save stock vs the node on the tiny VAE."""
    pytest.importorskip("av")
    out = _smoke(tmp_path, "bench_save")
    res = json.loads((out / "save_video.json").read_text())
    assert not res["errors"], res["errors"]
    noise, smooth = res["clips"]["noise"], res["clips"]["smooth"]
    assert noise["seconds"][0] > 0 and smooth["seconds"][0] > 0
    assert noise["bytes"][0] > 2 * smooth["bytes"][0], res["clips"]
    for kind in ("noise", "smooth"):
        parts = res["breakdown"][kind]
        assert {"uint8_cpu_per_frame_s", "rgb_to_yuv420_s", "encoder_only_s"} <= set(parts)
        rows = {r["setting"]: r for r in res["encoders"][kind]}
        assert rows["cpu (as Save Video), medium"]["encoder"] == "libx264" and rows["cpu, veryfast"]["psnr_db"] > 0
        assert "unavailable" in rows["gpu"] or rows["gpu"]["on_gpu"]
    # smooth content keeps far more of its detail than noise at the same CRF (chroma subsampling alone costs noise)
    assert rows["cpu, medium"]["psnr_db"] > 25
    ds = res["decode_save"]
    assert [r["variant"].split(",")[0] for r in ds["rows"]] == [
        "stock: VAE Decode", "Accel Save Video (samples + vae)", "Accel Save Video (samples + vae)",
        "Accel Save Video (samples + vae)"]
    stock_psnr = ds["rows"][0]["psnr_db"]
    assert all(abs(r["psnr_db"] - stock_psnr) < 0.5 for r in ds["rows"]), ds["rows"]
    assert "encoded while it decoded" in ds["rows"][1]["report"]
    md = (out / "save_video.md").read_text()
    assert "| noise |" in md and "## Where Save Video's time goes" in md and "## Decode + save" in md


def test_bench_save_clips_are_what_they_say():
    import importlib.util

    import torch

    spec = importlib.util.spec_from_file_location("bench_save", H.REPO_ROOT / "bench" / "bench_save.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for kind in ("noise", "smooth"):
        c = mod.clip(kind, 5, 16, 24)
        assert c.shape == (5, 16, 24, 3) and c.dtype == torch.float32 and 0 <= c.min() and c.max() <= 1
    smooth = mod.clip("smooth", 5, 16, 24)
    # neighbouring pixels and frames differ little in the smooth clip, as much as anywhere in the noise one
    assert (smooth[:, 1:] - smooth[:, :-1]).abs().mean() < 0.1 and (smooth[1:] - smooth[:-1]).abs().mean() < 0.1
    noise = mod.clip("noise", 5, 16, 24)
    assert (noise[:, 1:] - noise[:, :-1]).abs().mean() > 0.25
    with pytest.raises(ValueError, match="noise or smooth"):
        mod.clip("real", 1, 2, 2)


def test_bench_attention_smoke(tmp_path):
    out = _smoke(tmp_path, "bench_attention")
    res = json.loads((out / "bench_attention.json").read_text())
    assert not res["errors"], res["errors"]
    md = (out / "bench_attention.md").read_text()
    assert "| tiny | stock |" in md and "| smoke_256x2 | sdpa |" in md
    auto = next(r for r in res["model"] if r["backend"] == "auto")
    assert auto["interleaved"]["order"] == [["stock", "auto"], ["auto", "stock"]]
    assert "| tiny | auto (vs stock) | 2 |" in md


def test_bench_fp8_smoke(tmp_path):
    out = _smoke(tmp_path, "bench_fp8")
    res = json.loads((out / "fp8.json").read_text())
    # older PyTorch (e.g. 2.9) has a per-tensor-only CPU _scaled_mm: those micro rows fail there, by design
    errors = {k: v for k, v in res["errors"].items()
              if not (k.startswith("micro ") and "per-tensor scaling for CPU" in v)}
    assert not errors, errors
    variants = res["model"]["variants"]
    assert res["micro"] and variants
    for v in variants:
        assert "error" not in v, v
        assert v["forward_ms"] > 0 and len(v["forward_ms_all"]) >= 1, v


def test_bench_level1_smoke(tmp_path):
    out = _smoke(tmp_path, "bench_level1")
    md = (out / "level1.md").read_text()
    assert "| tiny | stock |" in md and "| tiny | Level-1 |" in md
    assert "| tiny | Level-1 (vs stock) | 2 |" in md


def test_bench_cache_smoke_records_skips_per_set(tmp_path):
    """bench_cache end to end on tiny Wan (CPU): the timed variants, and per set at 20/30/50 steps the skip counts
    and the deviation vs the uncached run (issue #14)."""
    out = tmp_path / "cache"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_cache.py"), "--smoke", "--out", str(out),
                        "--repeats", "1"], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads((out / "bench_cache.json").read_text())
    assert not res["errors"], res["errors"]
    for key in ("magcache:wan2.1_t2v_1.3B", "teacache:wan2.1_t2v_1.3B", "magcache:wan2.2_t2v_14B"):
        for n in ("20", "30", "50"):
            row = res["sweep"][key][n]
            assert row["evaluations"] == int(n) and row["computed"] + row["skipped"] == int(n)
            assert "psnr_db" in row and "cosine" in row
    assert res["sweep"]["magcache:wan2.1_t2v_1.3B"]["50"]["skipped"] > 0
    # the runtime skips what the schedule table says (MagCache is table-driven)
    mag = res["sweep"]["magcache:wan2.1_t2v_1.3B"]["30"]
    assert mag["pattern"] == res["schedule"]["wan2.1_t2v_1.3B"]["30"]["pattern"]
    assert res["schedule"]["qwen_image"]["20"]["skipped"] == 7
    md = (out / "bench_cache.md").read_text()
    assert "| magcache:wan2.1_t2v_1.3B |" in md
    assert re.search(r"- ComfyUI \d+\.\d+\.\d+, torch ", md) and res["comfyui"] != "unknown"  # results name both


def test_bench_cache_sweep_shards_split_the_sets(tmp_path):
    """--sweep-only --sweep-shard I/N: no timed variants, and the N shards sweep disjoint sets that together are
    the whole list (two GPUs share the sweep); a bad shard stops before anything is built."""
    script = str(H.REPO_ROOT / "bench" / "bench_cache.py")
    swept = []
    for i in (0, 1):
        out = tmp_path / f"shard{i}"
        r = subprocess.run([sys.executable, script, "--smoke", "--sweep-only", "--sweep-steps", "4", "--sweep-shard",
                            f"{i}/2", "--out", str(out)], capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        res = json.loads((out / "bench_cache.json").read_text())
        assert not res["errors"] and res["runs"] == {} and res["sweep_shard"] == f"{i}/2"
        swept.append(set(res["sweep"]))
    assert swept[0] and swept[1] and not swept[0] & swept[1]
    assert swept[0] | swept[1] >= {"magcache:wan2.1_t2v_1.3B", "teacache:wan2.1_t2v_1.3B", "magcache:wan2.2_t2v_14B"}
    r = subprocess.run([sys.executable, script, "--smoke", "--sweep-shard", "2/2", "--out", str(tmp_path / "bad")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "--sweep-shard" in r.stderr


def test_bench_cache_sweep_family_runs_that_familys_sets(tmp_path):
    """--sweep-family flux / qwen_image / hunyuan_video / ltxv: the sweep runs exactly the published sets of that family
    on its model
    (tiny on the CPU), through ComfyUI's sampler; at 20 steps the MagCache sets skip (the mechanism runs on these
    families' blocks); without --sweep-only the timed variants are the auto and any-model ones (a set named
    explicitly in VARIANTS is Wan 1.3B's)."""
    script = str(H.REPO_ROOT / "bench" / "bench_cache.py")
    want = {"flux": {"teacache:flux", "teacache:flux-kontext", "magcache:flux", "magcache:flux_kontext",
                     "magcache:flux_kontext_28steps"},
            "qwen_image": {"magcache:qwen_image", "magcache:qwen_image_50steps"},
            "hunyuan_video": {"teacache:hunyuan_video", "magcache:hunyuan_video", "magcache:hunyuan_video_544p"},
            "ltxv": set()}  # TeaCache's ltxv coefficients are published, but the pack does not apply them
    for fam, sets in want.items():
        out = tmp_path / fam
        r = subprocess.run([sys.executable, script, "--smoke", "--sweep-only", "--sweep-family", fam, "--sweep-steps",
                            "20", "--out", str(out)], capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        res = json.loads((out / "bench_cache.json").read_text())
        assert not res["errors"] and res["sweep_family"] == fam and set(res["sweep"]) == sets
        assert all(res["sweep"][k]["20"]["skipped"] > 0 for k in sets if k.startswith("magcache")), res["sweep"]
    r = subprocess.run([sys.executable, script, "--smoke", "--sweep-family", "flux", "--sweep-steps", "", "--repeats",
                        "1", "--steps", "6", "--out", str(tmp_path / "timed")], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads((tmp_path / "timed" / "bench_cache.json").read_text())
    assert not res["errors"], res["errors"]
    assert set(res["runs"]) == {"baseline", "TeaCache auto (recommended)", "MagCache auto (recommended)",
                                "Cache (any model) defaults", "Accel Compile -> Cache (any model) defaults"}
    assert res["runs"]["MagCache auto (recommended)"]["set"] == "flux"
    # LTX-Video has no set the pack applies: its timed runs leave TeaCache / MagCache auto out instead of failing
    r = subprocess.run([sys.executable, script, "--smoke", "--sweep-family", "ltxv", "--sweep-steps", "", "--repeats",
                        "1", "--steps", "6", "--out", str(tmp_path / "ltxv_timed")], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads((tmp_path / "ltxv_timed" / "bench_cache.json").read_text())
    assert not res["errors"], res["errors"]
    assert set(res["runs"]) == {"baseline", "Cache (any model) defaults", "Accel Compile -> Cache (any model) defaults"}
    assert res["runs"]["Cache (any model) defaults"]["evaluations"] == 6 and res["model"].startswith("tiny LTX-Video")


def test_bench_matrix_smoke(tmp_path):
    """bench_matrix end to end on tiny Wan (CPU): ComfyUI started like main.py (harness mainlike), weights
    through comfy.sd.load_diffusion_model, chains built with the real nodes, sampled with ComfyUI's sampler;
    fidelity against stock and the markdown table."""
    out = tmp_path / "mx"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_matrix.py"), "--smoke", "--out", str(out),
                        "--chains", "stock,attention,core_fp8_fast", "--weights", str(tmp_path / "w"),
                        "--hygiene", "2", "--hygiene-chain", "attention"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads((out / "matrix.json").read_text())
    assert not res["errors"], res["errors"]
    ch = res["chains"]
    assert set(ch) == {"stock", "attention", "core_fp8_fast"}
    assert ch["stock"]["cosine"] == 1.0 and ch["attention"]["cosine"] > 0.9999
    assert 0.9 < ch["core_fp8_fast"]["cosine"] < 1.0  # fp8 weights deviate, measurably
    assert all(c["times_s"] and c["speedup"] > 0 and c["finite"] for c in ch.values())
    # each chain's timed run against its own first run: the CPU path reproduces bit for bit
    assert [c["self_max_abs_diff"] for c in ch.values()] == [0.0, 0.0, 0.0]
    assert res["meta"]["start"]["dynamic_vram"] in ("off", "not in this ComfyUI")  # --cpu: ComfyUI turns it off
    h = res["hygiene"]  # two-expert runs (high -> low noise model), both patched
    assert h["chain"] == "attention" and len(h["runs"]) == 2 and all(r["finite"] for r in h["runs"])
    md = (out / "matrix.md").read_text()
    assert "| attention | Accel Attention (auto) |" in md and "## Memory hygiene: 2 two-expert runs" in md
    assert "| max abs diff vs its own first run |" in md


@pytest.mark.parametrize("family,chains,expect", [
    # tiny Flux is built in memory (ComfyUI's detection fixes Flux's hidden size): the file-loader chain is skipped
    ("flux", "stock,attention,fp8_shipped,level1", {"stock", "attention"}),
    # tiny Wan 2.2 TI2V-5B goes through the file: ComfyUI's loader, its fp8_e4m3fn_fast option and the pack's FP8 loader
    ("wan_ti2v_5b", "stock,attention,core_fp8_fast,fp8", {"stock", "attention", "core_fp8_fast", "fp8"}),
    # tiny SDXL (built in memory: detection needs SDXL's true widths): its latent, pooled CLIP and size conditioning
    # and the whole UNet one region with PyTorch's SDPA in place of the Hopper default, and with dynamic false
    ("sdxl", "stock,attention,shipped_model_scope_sdpa,shipped_model_scope_static,fp8_shipped",
     {"stock", "attention", "shipped_model_scope_sdpa", "shipped_model_scope_static"}),
])
def test_bench_matrix_family_smoke(tmp_path, family, chains, expect):
    """bench_matrix --family on the family's tiny model (CPU): its latent and conditioning, sampler settings, every
    chain measured against stock; chains that do not apply are recorded as skipped with their reason."""
    out = tmp_path / family
    # flux: the pack's switches for A/B runs, set in the process and read back into its files
    switches = ["--switch", "rope_trace=off,gelu_epilogue=off", "--switch", "fa3_direct=on"] if family == "flux" else []
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_matrix.py"), "--smoke", "--family", family,
                        "--out", str(out), "--chains", chains, "--weights", str(tmp_path / "w"), *switches],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads((out / "matrix.json").read_text())
    assert not res["errors"], res["errors"]
    ch = res["chains"]
    assert set(ch) == set(chains.split(","))
    measured = {n for n, c in ch.items() if "skipped" not in c}
    assert measured == expect
    for n in measured:
        assert ch[n]["times_s"] and ch[n]["speedup"] > 0 and ch[n]["finite"], (n, ch[n])
    assert ch["stock"]["cosine"] == 1.0 and ch["attention"]["cosine"] > 0.9999
    meta = res["meta"]
    assert meta["family"] == family and meta["steps"] == 2
    md = (out / "matrix.md").read_text()
    if family == "flux":
        assert meta["switches"] == {"rope_trace": "off", "gelu_epilogue": "off",
                                    "fa3_direct": "on"}, meta.get("switches")
        assert "Pack switches set: rope_trace=off, gelu_epilogue=off, fa3_direct=on." in md
        assert meta["cfg"] == 1.0 and "built in memory" in ch["fp8_shipped"]["skipped"]
        assert "Wan models only" in ch["level1"]["skipped"]
        assert md.startswith("# Matrix: Flux.1-dev") and "guidance 3.5" in md.splitlines()[0]
    elif family == "sdxl":
        assert meta["cfg"] == 7.0 and meta["sampler"] == "euler/normal" and md.startswith("# Matrix: SDXL 1.0 base")
        static, sdpa = ch["shipped_model_scope_static"]["report"], ch["shipped_model_scope_sdpa"]["report"]
        assert "scope whole diffusion model (SDXL), dynamic false" in static, static
        assert "scope whole diffusion model (SDXL), dynamic auto" in sdpa, sdpa
    else:
        assert 0.9 < ch["fp8"]["cosine"] < 1.0 and 0.9 < ch["core_fp8_fast"]["cosine"] < 1.0  # fp8 deviates, measurably
        assert meta["frames"] == 5 and meta["sampler"] == "uni_pc/simple"
        assert "ModelSamplingSD3 8" in md.splitlines()[0]
        assert (tmp_path / "w" / "wan_ti2v_5b_tiny_fp16_seed0.safetensors").exists()


@pytest.mark.parametrize("family", ["minimax_h3", "hunyuan_video15", "ltxav", "flux2", "kandinsky5"])
def test_bench_matrix_newer_family_smoke(tmp_path, M, family):
    """bench_matrix --family for ComfyUI 0.33's newer families on their tiny models (CPU), from a file in the published
    key layout through ComfyUI's loader: the family's latent (MiniMax-H3 and LTX-2: video + audio, compared as one
    flat latent), conditioning and sampler settings; stock, Accel Attention and the FP8 loader measured; MiniMax-H3
    also through its Level-1 node (its shipped chain: inductor on the CPU, compiled). The chain defaults name the
    issue's matrix (MiniMax-H3: sparse, FP8 auto, TorchCompileModel, KJNodes; the others: the exact chain vs stock
    and TorchCompileModel, FP8 auto). A ComfyUI without the family skips it."""
    sys.path.insert(0, str(H.REPO_ROOT / "bench"))
    import families as fam

    why = M.lacks_family(fam.NEW_FAMILIES[family])
    if why:
        pytest.skip(why)
    chains = "stock,attention,fp8" + (",level1_h3" if family == "minimax_h3" else "")
    out = tmp_path / family
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_matrix.py"), "--smoke", "--family", family,
                        "--out", str(out), "--chains", chains, "--weights", str(tmp_path / "w")],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads((out / "matrix.json").read_text())
    assert not res["errors"], res["errors"]
    ch = res["chains"]
    assert set(ch) == set(chains.split(",")) and all("skipped" not in c for c in ch.values()), ch
    for n, c in ch.items():
        assert c["times_s"] and c["speedup"] > 0 and c["finite"], (n, c)
    assert ch["stock"]["cosine"] == 1.0 and ch["attention"]["cosine"] > 0.9999 and 0.9 < ch["fp8"]["cosine"] <= 1.0
    spec = fam.spec(family)
    meta = res["meta"]
    assert meta["family"] == family and meta["steps"] == 2 and meta["sampler"] == f"{spec.sampler}/{spec.scheduler}"
    assert (tmp_path / "w" / f"{family}_tiny_bf16_seed0.safetensors").exists()
    assert (out / "matrix.md").read_text().startswith(f"# Matrix: {spec.label} tiny (smoke)")
    if family == "minimax_h3":
        assert ch["level1_h3"]["cosine"] > 0.9999 and spec.shipped == "level1_h3"
        assert set(spec.chains.split(",")) == {"stock", "shipped", "level1_h3_sparse", "fp8_auto_shipped",
                                               "core_compile", "kj_sage_compile"}
    else:
        assert set(spec.chains.split(",")) == {"stock", "shipped", "core_compile", "fp8_auto_shipped"}
    assert fam.not_applicable(family, "level1_h3") == (None if family == "minimax_h3" else
                                                       "Accel MiniMax-H3 Level-1 patches MiniMax-H3 only")
    # the compile options of the generic chain: not for a family whose shipped chain is a preset
    for chain in ("shipped_graphs", "shipped_model_scope", "shipped_resident"):
        assert (fam.not_applicable(family, chain) is None) == (spec.shipped == "cuda_attn_compile"), chain


def test_chain_names_compose_compile_and_fp8_options(M, mod):
    """A chain name adds Accel Compile's options to `shipped` / `cuda_attn_compile` / `fp8_shipped` in any order, and
    the FP8 loader's to `fp8_shipped`: the node inputs they set are the ones the name says, the FP8 values are the
    loader's own choices, a name with an unknown or repeated option is not a chain, and a family whose shipped chain
    is a preset (Wan, MiniMax-H3) refuses the compile options instead of measuring another chain."""
    import importlib.util
    import types

    import comfy.patcher_extension as pe

    sys.path.insert(0, str(H.REPO_ROOT / "bench"))
    import families as fam

    assert fam.chain_options("shipped_model_scope_static_resident", "shipped") == (
        {"model_scope", "static", "resident"}, {})
    assert fam.chain_options("fp8_shipped_resident_keep1", "fp8_shipped") == (
        {"resident"}, {"keep": "standard + first & last block"})
    for bad in ("shipped_keep1", "shipped_resident_resident", "shippedx", "shipped_fast"):
        assert fam.chain_options(bad, "shipped") is None, bad
    assert fam.chain_options("fp8_shipped_keep1_keep2", "fp8_shipped") is None  # two values for one input
    opts = mod("accel.fp8.options")
    for key, value in fam._FP8_OPTS.values():
        assert value in {"keep": opts.KEEP_CHOICES, "activation_scaling": opts.ACT_CHOICES}[key], value
    assert fam.compile_chain({"static", "model_scope", "resident"}) == "cuda_attn_compile_model_scope_resident_static"
    assert "resident_weights" in fam.not_applicable("wan", "fp8_shipped_resident")
    assert fam.not_applicable("z_image", "fp8_shipped_resident_keep1") is None
    assert fam.not_applicable("flux", "shipped_model_scope_static_resident") is None

    spec = importlib.util.spec_from_file_location("bench_matrix_under_test", H.REPO_ROOT / "bench" / "bench_matrix.py")
    bm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bm)
    run = types.SimpleNamespace(a=types.SimpleNamespace(family="z_image"))
    run.patch = lambda name, base: bm.Matrix.patch(run, name, base)
    m, report = run.patch("shipped_model_scope_static_resident", M.wan_model("t2v", "tiny"))
    assert "scope whole diffusion model" in report and "dynamic false" in report, report
    cfg = m.get_wrappers(pe.WrappersMP.APPLY_MODEL, "accel.compile")[-1].cfg
    assert cfg.resident and cfg.scope == "model" and not cfg.cuda_graphs, cfg


@pytest.mark.parametrize("family", ["flux", "qwen_image"])
def test_edit_runs_carry_one_reference_latent_the_model_reads(M, family):
    """bench_matrix --edit (FLUX.1 Kontext dev, Qwen-Image-Edit): the positive conditioning carries one reference
    latent of the output's shape (Qwen-Image-Edit's negative too, as its template encodes the image on both sides),
    and ComfyUI's model reads it: the same tiny model samples another latent with it than without. A family without
    an edit model is refused before anything runs."""
    import types

    import torch

    sys.path.insert(0, str(H.REPO_ROOT / "bench"))
    import families as fam

    a = types.SimpleNamespace(family=family, smoke=True, edit=True, steps=2, cfg=None, frames=None, height=None,
                              width=None, tokens=None, dtype=None)
    fam.defaults(a)
    pos, neg, lat = fam.inputs(a)
    [ref] = pos[0][1]["reference_latents"]
    assert ref.shape == lat["samples"].shape and ref.abs().sum() > 0
    assert ("reference_latents" in neg[0][1]) == fam.EDIT_FAMILIES[family][1]
    plain_pos, plain_neg, _ = fam.inputs(types.SimpleNamespace(**{**vars(a), "edit": False}))
    assert "reference_latents" not in plain_pos[0][1] and torch.equal(plain_pos[0][0], pos[0][0])
    model = fam.tiny_model(family)
    with torch.inference_mode():
        edit = M.sample(model, pos, neg, lat, steps=1, cfg=a.cfg, seed=0)
        plain = M.sample(model, plain_pos, plain_neg, lat, steps=1, cfg=a.cfg, seed=0)
    assert edit.shape == plain.shape and not torch.allclose(edit, plain)
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_matrix.py"), "--smoke", "--family", "ltxv",
                        "--edit", "--out", "/nonexistent"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--edit takes --family flux / qwen_image / flux2" in r.stderr, r.stderr[-1500:]


def test_bench_matrix_stored_fp8_scaled_weights(tmp_path, M, mod):
    """--stored fp8_scaled (the way to MiniMax-H3 33B on the GPU machine's 64 GiB disk): the tiny MiniMax-H3 written in
    ComfyUI's scaled-fp8 layout (every 2-D weight of its `blocks` in e4m3fn with a per-tensor scale, the marker, the
    rest as written) by the weights step the GPU run starts in a child process, and ComfyUI's loader builds its FP8
    layers from it (0.33+: quantized-tensor layers, one per fp8 weight). --stored with Wan, or with a family the
    smoke builds in memory, is refused before anything runs. (Sampling it is left to the GPU: on the CPU, ComfyUI
    0.33's legacy load of quantized-tensor layers fails under inference mode, in `comfy/ops.py` `_quantized_apply`.)"""
    sys.path.insert(0, str(H.REPO_ROOT / "bench"))
    import families as fam
    from safetensors import safe_open

    why = M.lacks_family(fam.NEW_FAMILIES["minimax_h3"])
    if why:
        pytest.skip(why)
    bench = [sys.executable, str(H.REPO_ROOT / "bench" / "bench_matrix.py"), "--smoke", "--out", str(tmp_path / "o"),
             "--weights", str(tmp_path / "w"), "--stored", "fp8_scaled"]
    for refused in (["--family", "wan"], ["--family", "flux"]):
        r = subprocess.run(bench + refused, capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and "--stored takes a --family other than wan" in r.stderr, r.stderr[-1500:]
    r = subprocess.run(bench + ["--family", "minimax_h3", "--weights-only"], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    path = tmp_path / "w" / "minimax_h3_tiny_bf16_fp8_scaled_seed0.safetensors"
    with safe_open(str(path), "pt") as f:
        keys = set(f.keys())
        fp8 = {k for k in keys if f.get_slice(k).get_dtype() == "F8_E4M3"} - {"scaled_fp8"}
        assert "scaled_fp8" in keys and fp8 and all(k.startswith("blocks.") and k.endswith(".weight") for k in fp8)
        assert all(k[: -len("weight")] + "scale_weight" in keys for k in fp8)
        assert any(k.endswith(".weight") and not k.startswith("blocks.") and f.get_slice(k).get_dtype() == "BF16"
                   for k in keys)
    import comfy.sd

    compat = mod("accel.comfy_compat")
    dm = comfy.sd.load_diffusion_model(str(path)).model.diffusion_model
    assert type(dm).__name__ == "MiniMaxH3Model"
    if compat.loads_fp8_files_as_quantized_layers():
        assert sum(1 for m in dm.modules() if compat.is_quantized_layer(m)) == len(fp8)


def test_bench_matrix_stored_plain_fp8_weights(tmp_path, M):
    """--stored fp8_e4m3fn: the layout of the plain `*_fp8_e4m3fn` files the shipped Qwen-Image workflows load: the
    block lists' 2-D weights cast to float8_e4m3fn (saturated at +-448) with no scale and no marker, the rest as
    written; ComfyUI reads the file's storage dtype as fp8 (comfy.utils.weight_dtype, what its loader picks the model's
    weight dtype from). Written by the weights step, as for fp8_scaled above (the tiny MiniMax-H3: the tiny Qwen-Image
    is built in memory); on the CPU ComfyUI upcasts such a file at load, so the fp8 layers are the GPU's to measure."""
    sys.path.insert(0, str(H.REPO_ROOT / "bench"))
    import families as fam
    import torch
    from safetensors.torch import load_file

    why = M.lacks_family(fam.NEW_FAMILIES["minimax_h3"])
    if why:
        pytest.skip(why)
    bench = [sys.executable, str(H.REPO_ROOT / "bench" / "bench_matrix.py"), "--smoke", "--out", str(tmp_path / "o"),
             "--weights", str(tmp_path / "w")]
    for stored in ("", "fp8_e4m3fn"):
        r = subprocess.run(bench + ["--family", "minimax_h3", "--weights-only"] + (["--stored", stored] if stored
                                                                                    else []),
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    plain = load_file(str(tmp_path / "w" / "minimax_h3_tiny_bf16_seed0.safetensors"))
    sd = load_file(str(tmp_path / "w" / "minimax_h3_tiny_bf16_fp8_e4m3fn_seed0.safetensors"))
    assert set(sd) == set(plain), "no scale or marker keys"
    fp8 = {k for k, v in sd.items() if v.dtype == torch.float8_e4m3fn}
    assert fp8 == {k for k, v in plain.items() if k.startswith("blocks.") and k.endswith(".weight") and v.ndim == 2}
    k = sorted(fp8)[0]
    want = plain[k].float().clamp(-448, 448).to(torch.float8_e4m3fn).float()
    assert torch.equal(sd[k].float(), want), "each weight is the bf16 one cast to e4m3fn"
    assert all(torch.equal(sd[k], plain[k]) for k in set(sd) - fp8)
    import comfy.utils

    assert comfy.utils.weight_dtype(sd) == torch.float8_e4m3fn


def test_bench_matrix_cuda_graph_chain_and_resolution_change_smoke(tmp_path):
    """bench_matrix --family z_image --sequential with the CUDA-graph chain, the shipped chain at scope model and
    --resolution-change (CPU, inductor):
    tiny Z-Image with its template's sampler and shift; the graph path cannot run on a CPU, and the compile summary
    and matrix.md say which path ran and why; the size change and back, twice, with times and recompiles after each
    pair (the second pair compiles nothing more)."""
    out = tmp_path / "z"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_matrix.py"), "--smoke", "--family",
                        "z_image", "--sequential", "--chains", "stock,shipped_graphs,shipped_model_scope",
                        "--resolution-change", "48x48",
                        "--out", str(out), "--weights", str(tmp_path / "w")], capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads((out / "matrix.json").read_text())
    assert not res["errors"], res["errors"]
    ch = res["chains"]
    assert list(ch) == ["stock", "shipped_graphs", "shipped_model_scope", "stock_again"]
    # scope model: the whole diffusion model one region (ComfyUI's TorchCompileModel's granularity), the same latent
    [whole] = ch["shipped_model_scope"]["compile"]
    assert whole["regions"] == 1 and ch["shipped_model_scope"]["cosine"] > 0.999
    assert ch["shipped_graphs"]["cosine"] > 0.999 and ch["shipped_graphs"]["times_s"]
    [c] = ch["shipped_graphs"]["compile"]
    assert "CUDA graphs need a CUDA device" in c["graph_reason"] and c["graph_last_run"]["replays"] == 0
    assert c["regions"] == 4  # Z-Image's caption refiner, image refiner and two layers
    rc = ch["shipped_graphs"]["resolution_change"]
    assert (rc["size"], rc["back_to"], len(rc["pairs"])) == ("48x48", "64x64", 2)
    assert rc["pairs"][1]["recompiles"] == rc["pairs"][0]["recompiles"] <= rc["before"]["recompiles"] + 1
    assert ch["stock"]["resolution_change"]["pairs"][0]["times_s"]
    meta = res["meta"]
    assert meta["sampler"] == "res_multistep/simple" and meta["cfg"] == 1.0
    md = (out / "matrix.md").read_text()
    assert md.startswith("# Matrix: Z-Image Turbo 6B tiny") and "ModelSamplingAuraFlow 3" in md.splitlines()[0]
    assert "## Which path ran" in md and "48x48 then back to 64x64, twice" in md
    assert "not replayed: CUDA graphs need a CUDA device" in md
    # the nodes' after-run report lines are kept per chain (sparse attention's kept mass lands there); matrix.md lists
    # them without the compile line, which restates the compile status
    assert ch["shipped_graphs"]["after_run"][0].startswith("compile: ran compiled") and ch["stock"]["after_run"] is None
    assert "- shipped_graphs: compile:" not in md


def test_graph_check_smoke(tmp_path):
    """bench/graph_check.py --smoke: the replay and LoRA cases on tiny Z-Image through ComfyUI's sampler, with the
    CPU stand-in for torch.cuda.CUDAGraph: each run replays and matches the compiled blocks."""
    out = _smoke(tmp_path / "gc", "graph_check")
    res = json.loads((out / "graph_check.json").read_text())
    assert not res["errors"], res["errors"]
    assert set(res["cases"]) == {"replay", "lora"} and all(c["ok"] for c in res["cases"].values()), res["cases"]
    runs = res["cases"]["replay"]["rows"]["z_image"]
    assert [r["last_run"]["replays"] for r in runs] == [2, 3] and all(r["cosine"] == 1.0 for r in runs)
    assert "| replay | z_image run 2 | True |" in (out / "graph_check.md").read_text()


def test_probe_roundings_smoke(tmp_path):
    """bench/probe_roundings.py --smoke: tiny Flux in bf16 through ComfyUI's sampler, stock and Accel Compile's blocks,
    whole model and whole model with inductor's default roundings, each final latent against stock's (dynamo's eager
    backend on the CPU: the same latents; the roundings themselves: tests/compile/test_compile.py)."""
    out = _smoke(tmp_path / "pr", "probe_roundings")
    res = json.loads((out / "probe_roundings.json").read_text())
    assert not res["errors"], res["errors"]
    rows = res["rows"]
    assert list(rows) == ["stock", "blocks", "whole", "whole_default"], rows
    assert all(rows[n]["cosine"] == 1.0 for n in ("blocks", "whole", "whole_default")), rows
    assert not any(r["roundings_kept"] for r in rows.values())  # the eager backend: inductor's option does not apply
    md = (out / "probe_roundings.md").read_text()
    assert md.startswith("# Accel Compile's whole-model region and eager's roundings: tiny Flux.1 (smoke)")
    assert "| whole_default | no | 1.000000 | 0 |" in md, md


def test_bench_matrix_users_workflow_smoke(tmp_path):
    """bench_matrix --workflow lightx2v --sequential on tiny Wan (CPU): both experts from one file in ComfyUI's
    scaled-fp8 layout, a LightX2V-layout LoRA on each, shift 5, 4 steps CFG 1 split 2 + 2; each chain alone, stock
    first and last; the pack's FP8 loader reads the fp8_scaled file."""
    out = tmp_path / "wf"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_matrix.py"), "--smoke", "--out", str(out),
                        "--workflow", "lightx2v", "--sequential", "--chains", "stock,attention,fp8", "--profile",
                        "--host-profile",
                        "--weights", str(tmp_path / "w")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads((out / "matrix.json").read_text())
    assert not res["errors"], res["errors"]
    ch = res["chains"]
    assert list(ch) == ["stock", "attention", "fp8", "stock_again"]
    assert res["meta"]["workflow"] == "lightx2v" and res["meta"]["steps"] == 4 and res["meta"]["cfg"] == 1.0
    assert ch["stock_again"]["cosine"] == 1.0 and ch["attention"]["cosine"] > 0.9999
    assert 0.9 < ch["fp8"]["cosine"] < 1.0  # the FP8 loader's own quantization of the fp8_scaled file deviates
    assert all(c["times_s"] and c["speedup"] > 0 and c["finite"] for c in ch.values())
    assert all(c["self_max_abs_diff"] == 0.0 for c in ch.values())  # each chain reproduces its own first run here
    assert (tmp_path / "w" / "lora_lightx2v_tiny_r32_high.safetensors").exists()
    assert "users' workflow" in (out / "matrix.md").read_text()
    # --profile: one more run of each chain under torch.profiler (on the CPU: torch ops stand in for kernels)
    prof = ch["fp8"]["profile"]
    assert prof["kernel_ms"] > 0 and prof["by_category_ms"] and prof["top"]
    # ... split by model call: the workflow's 4 steps, 2 per expert, in order
    assert [c["name"] for c in prof["calls"]] == [f"model call {i} ({e}-noise)" for i, e in
                                                  ((1, "high"), (2, "high"), (3, "low"), (4, "low"))]
    assert "| model call | host ms |" in (out / "matrix.md").read_text()
    assert prof["host_top"] and all(n > 0 and ms > 0 for _, n, ms in prof["host_top"])  # the host side, op by op
    md = (out / "matrix.md").read_text()
    assert "## fp8: one profiled run" in md and "| host op (self CPU time) | calls | ms |" in md
    # --host-profile: the Python functions of one more run, by own time
    funcs = prof["host_functions"]
    assert funcs and all(n > 0 for _, n, _, _ in funcs) and "| Python function (cProfile, own time)" in md
    cum = prof["host_cumulative"]  # the same run by cumulative time: the outer frames first
    assert cum and all(a[3] >= b[3] for a, b in zip(cum, cum[1:],
                                                    strict=False)) and "cumulative: with what it calls" in md


def test_simulated_card_args():
    from accel_harness import mainlike

    assert mainlike.simulate_card_args(80, 24) == ["--reserve-vram", "56.00"]
    assert mainlike.simulate_card_args(24, 24) == [] and mainlike.simulate_card_args(24, 48) == []


def test_aimdo_log_level_as_main_py_sets_it():
    """main.py sets comfy-aimdo's native log level from the console level right after init_devices (ComfyUI 0.33
    main.py: DEBUG -> set_log_debug, DETAIL -> set_log_detail or set_log_info, CRITICAL/ERROR/WARNING -> their
    setter, anything else -> set_log_info); the harness does the same, so a benchmark does not pay for native
    debug messages that `python main.py` never emits."""
    from types import SimpleNamespace

    from accel_harness import mainlike

    class Ctl:
        def __init__(self, names):
            self.called = []
            for n in names:
                setattr(self, n, lambda n=n: self.called.append(n))

    full = ["set_log_debug", "set_log_detail", "set_log_info", "set_log_critical", "set_log_error", "set_log_warning"]
    for level, want in [("INFO", "set_log_info"), ("DEBUG", "set_log_debug"), ("DETAIL", "set_log_detail"),
                        ("WARNING", "set_log_warning"), ("ERROR", "set_log_error"), ("CRITICAL", "set_log_critical")]:
        ctl = Ctl(full)
        assert mainlike.set_aimdo_log_level(ctl, level) == want and ctl.called == [want]
    old = Ctl([n for n in full if n != "set_log_detail"])  # an older comfy-aimdo: DETAIL falls back to info
    assert mainlike.set_aimdo_log_level(old, "DETAIL") == "set_log_info" and old.called == ["set_log_info"]
    assert mainlike.set_aimdo_log_level(Ctl([]), "INFO") == ""
    # --verbose: a level string before 0.33's (level, file) list; no flag means INFO
    assert mainlike.console_log_level(SimpleNamespace(verbose="WARNING")) == "WARNING"
    assert mainlike.console_log_level(SimpleNamespace()) == "INFO"
    try:
        from comfy.cli_args import get_console_log_level  # noqa: F401
    except ImportError:
        return
    assert mainlike.console_log_level(SimpleNamespace(verbose=[])) == "INFO"
    assert mainlike.console_log_level(SimpleNamespace(verbose=[("DEBUG", None), ("INFO", "f.log")])) == "DEBUG"


def test_true_flux_and_qwen_image_configs_are_comfys_detection(M, mod):
    """bench_multigpu's --family flux / qwen_image true models: ComfyUI's detection reads the published key
    skeletons as Flux.1-dev (guidance embedder, not schnell) and Qwen-Image, and the models it builds from them
    have the published sizes (11.9 B and 20.4 B parameters; counted on the meta device, nothing allocated) in
    the classes Accel Multi-GPU splits."""
    import comfy.model_detection

    families = mod("accel.multigpu.sp").FAMILIES
    flux = M.true_unet_config("flux")
    assert (flux["hidden_size"], flux["depth"], flux["depth_single_blocks"],
            flux["guidance_embed"]) == (3072, 19, 38, True)
    assert (flux["context_in_dim"], flux["vec_in_dim"], flux["num_heads"]) == (4096, 768, 24)
    qwen = M.true_unet_config("qwen_image")
    assert (qwen["in_channels"], qwen["num_layers"]) == (64, 60)
    for cfg, cls, billions in ((flux, "Flux", 11.90), (qwen, "QwenImageTransformer2DModel", 20.43)):
        dm = M.meta_diffusion_model(cfg)
        assert type(dm).__name__ == cls and cls in families
        sd = dm.state_dict()
        assert round(sum(t.numel() for t in sd.values()) / 1e9, 2) == billions
        # the whole random state dict (this key layout) loads back as the same config (what flux_model checks)
        again = comfy.model_detection.model_config_from_unet(sd, "").unet_config
        assert all(again.get(k) == v for k, v in cfg.items()), (again, cfg)
    dm = M.meta_diffusion_model(qwen)
    assert (dm.txt_in.in_features, dm.inner_dim) == (3584, 3072)


def test_reduced_depth_keeps_the_true_widths_and_detects_back(M):
    """profile_family --layers: the published config with fewer blocks (Flux and HunyuanVideo keep the 1:2 double to
    single ratio unless --single-layers says otherwise, never past the published depth), and ComfyUI's detection reads
    that depth and the true widths back from the key layout (meta tensors: nothing is allocated)."""
    import importlib.util

    import comfy.model_detection

    spec = importlib.util.spec_from_file_location("families_under_test", H.REPO_ROOT / "bench" / "families.py")
    fam = sys.modules[spec.name] = importlib.util.module_from_spec(spec)  # its dataclasses look their module up
    spec.loader.exec_module(fam)
    assert fam.reduced_depth("flux", 6) == {"depth": 6, "depth_single_blocks": 12}
    assert fam.reduced_depth("flux", 30, 50) == {"depth": 19, "depth_single_blocks": 38}
    assert fam.reduced_depth("hunyuan_video", 2, 0) == {"depth": 2, "depth_single_blocks": 0}
    assert fam.reduced_depth("qwen_image", 4) == {"num_layers": 4}
    with pytest.raises(SystemExit, match="no depth keys known for family 'ltxv'"):
        fam.reduced_depth("ltxv", 2)
    for family, layers in (("flux", 2), ("qwen_image", 3), ("hunyuan_video", 1)):
        true = M.true_unet_config(family)
        depth = fam.reduced_depth(family, layers)
        sd = M.meta_diffusion_model({**true, **depth}).state_dict()
        again = comfy.model_detection.detect_unet_config(sd, "")
        assert again == {**true, **depth}, (family, again)


def test_true_hunyuan_video_config_is_comfys_detection(M):
    """bench_cache --sweep-family hunyuan_video: ComfyUI's detection reads the published HunyuanVideo T2V 720p key
    skeleton as HunyuanVideo (20 double + 40 single blocks, guidance embedder, not 1.5 / I2V), 12.82 B parameters
    (counted on the meta device), and the full random key layout detects back to the same config."""
    import comfy.model_detection

    hv = M.true_unet_config("hunyuan_video")
    assert (hv["hidden_size"], hv["depth"], hv["depth_single_blocks"], hv["num_heads"]) == (3072, 20, 40, 24)
    assert (hv["in_channels"], hv["context_in_dim"], hv["vec_in_dim"], hv["guidance_embed"]) == (16, 4096, 768, True)
    assert not hv.get("vision_in_dim")
    dm = M.meta_diffusion_model(hv)
    sd = dm.state_dict()
    assert type(dm).__name__ == "HunyuanVideo" and round(sum(t.numel() for t in sd.values()) / 1e9, 2) == 12.82
    mc = comfy.model_detection.model_config_from_unet(sd, "")
    assert type(mc).__name__ == "HunyuanVideo" and all(mc.unet_config.get(k) == v for k, v in hv.items())


def test_true_ltxv_config_is_comfys_detection(M):
    """bench_cache --sweep-family ltxv: ComfyUI's detection reads the published LTX-Video 2B key skeleton as LTXV (28
    blocks, 32 heads x 64, cross-attention 2048), 1.92 B parameters with the T5 (4096) caption projection, and the
    full random key layout detects back to the same config."""
    import comfy.model_detection

    cfg = M.true_unet_config("ltxv")
    assert (cfg["num_layers"], cfg["attention_head_dim"], cfg["cross_attention_dim"]) == (28, 64, 2048)
    dm = M.meta_diffusion_model(cfg)
    sd = dm.state_dict()
    assert type(dm).__name__ == "LTXVModel" and round(sum(t.numel() for t in sd.values()) / 1e9, 2) == 1.92
    assert dm.caption_projection.linear_1.in_features == 4096
    mc = comfy.model_detection.model_config_from_unet(sd, "")
    assert type(mc).__name__ == "LTXV" and all(mc.unet_config.get(k) == v for k, v in cfg.items())


def test_true_z_image_and_sdxl_configs_are_comfys_detection(M):
    """bench_matrix --family z_image / sdxl: ComfyUI's detection reads the Z-Image Turbo key skeleton as its ZImage
    config (dim 3840, 30 layers, pad tokens) and SDXL base's layout as SDXL; the models built from them have the
    published sizes (6.15 B and 2.57 B parameters, on the meta device) and their random key layouts detect back to
    the same configs."""
    import comfy.model_detection

    z = M.true_unet_config("z_image")
    assert (z["image_model"], z["dim"], z["n_layers"], z["cap_feat_dim"], z["pad_tokens_multiple"]) == \
        ("lumina2", 3840, 30, 2560, 32)
    sdxl = M.true_unet_config("sdxl")
    assert (sdxl["model_channels"], sdxl["context_dim"], sdxl["adm_in_channels"]) == (320, 2048, 2816)
    for cfg, config_class, cls, billions in ((z, "ZImage", "NextDiT", 6.15), (sdxl, "SDXL", "UNetModel", 2.57)):
        dm = M.meta_diffusion_model(cfg)
        sd = dm.state_dict()
        assert type(dm).__name__ == cls and round(sum(t.numel() for t in sd.values()) / 1e9, 2) == billions
        mc = comfy.model_detection.model_config_from_unet(sd, "")
        assert type(mc).__name__ == config_class and all(mc.unet_config.get(k) == v for k, v in cfg.items())


def test_bench_multigpu_smoke_flux_and_qwen_image(tmp_path):
    """bench_multigpu --smoke --family flux / qwen_image: tiny model, 1 process vs 2 CPU workers (gloo), CFG
    parallel on and off; every row measured, the N-worker output equal to the one-process output."""
    pytest.importorskip("yunchang", reason="yunchang not installed (scripts/setup_testbed.sh installs it)")
    for family, name, shapes in (("flux", "multigpu_flux", "latent [2, 16, 4, 4], context [2, 16, 64], y [2, 32], "
                                  "guidance [2] = 3.5"),
                                 ("qwen_image", "multigpu_qwen_image", "latent [2, 16, 1, 4, 4], context [2, 16, 64]")):
        out = _smoke(tmp_path / family, "bench_multigpu", "--family", family)
        res = json.loads((out / f"{name}.json").read_text())
        assert not res["errors"], res["errors"]
        assert res["meta"]["family"] == family and set(res["runs"]) == {"1gpu", "2gpu_cfg_on", "2gpu_cfg_off"}
        assert res["runs"]["2gpu_cfg_on"]["split"] == [2, ""] and res["runs"]["2gpu_cfg_off"]["split"][0] == 1
        for key in ("2gpu_cfg_on", "2gpu_cfg_off"):
            assert res["runs"][key]["cosine"] > 0.9999 and res["runs"][key]["max_abs_diff"] < 1e-4, res["runs"][key]
        md = (out / f"{name}.md").read_text()
        label = "Flux.1-dev" if family == "flux" else "Qwen-Image"
        assert md.startswith(f"# Accel Multi-GPU: {label} (tiny config) per-step forward"), md
        assert shapes in md and "| 2gpu_cfg_on | 2 | on |" in md and "| 2gpu_cfg_off | 2 | off |" in md


@pytest.mark.parametrize("workload", ["wan14b_720p", "a14b_720p"])
def test_bench_multigpu_run_smoke(tmp_path, workload):
    """bench_multigpu_run --smoke: whole sampling runs through ComfyUI's KSampler (A14B: two KSamplerAdvanced, two
    experts with their LoRAs, shift 5) on a tiny Wan file, 1 process vs 2 CPU workers (gloo), CFG parallel on and
    off; the workers' output equals one process's, each worker runs Accel Attention, and the two experts both stay in
    the workers (a timed run sends no weights)."""
    pytest.importorskip("yunchang", reason="yunchang not installed (scripts/setup_testbed.sh installs it)")
    out = _smoke(tmp_path, "bench_multigpu_run", "--workload", workload, "--weights", str(tmp_path / "w"))
    res = json.loads((out / f"multigpu_run_{workload}.json").read_text())
    assert not res["errors"], res["errors"]
    runs = res["runs"]
    assert set(runs) == {"1gpu", "2gpu_cfg_on", "2gpu_cfg_off"}
    experts = 2 if workload == "a14b_720p" else 1
    assert runs["1gpu"]["run_s_median"] > 0 and res["meta"]["steps"] == (4 if experts == 2 else 3)
    for key in ("2gpu_cfg_on", "2gpu_cfg_off"):
        r = runs[key]
        assert r["cosine"] > 0.9999 and r["max_abs_diff"] < 1e-3, r
        assert r["weights_sent_in_timed_runs"] == 0 and len(r["workers"]) == 2
        for w in r["workers"]:
            assert len(w["models"]) == experts, w
            assert all(m["attention"] == "<accel attention override sdpa>" for m in w["models"].values()), w
    # CFG 5 batches cond and uncond: one half each; CFG 1 (A14B) runs sequence parallel over both workers
    split = runs["2gpu_cfg_on"]["split"]
    assert split == ([[2, ""]] if experts == 1 else [[1, split[0][1]]] * 2)
    assert runs["2gpu_cfg_on"]["workers_start_s"] > 0 and runs["2gpu_cfg_off"]["weights_s"] == 0
    md = (out / f"multigpu_run_{workload}.md").read_text()
    assert md.startswith("# Accel Multi-GPU, whole sampling runs: ") and "| 2gpu_cfg_off | 2 | off |" in md


def test_bench_matrix_level1_prefetch_chain(pack, M):
    """bench_matrix's level1_prefetch chain (plain and --workflow): Accel Wan Level-1 with prefetch_weights on and
    on_failure error, so a prefetch that cannot run fails the chain instead of timing Level-1 without it."""
    import importlib.util

    import comfy.patcher_extension as pe

    spec = importlib.util.spec_from_file_location("bench_matrix_under_test", H.REPO_ROOT / "bench" / "bench_matrix.py")
    bm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bm)
    assert "level1_prefetch" in bm.CHAINS
    assert bm.Matrix.WORKFLOW_CHAINS["level1_prefetch"] == ("core", "level1_prefetch")
    m, report = bm.Matrix.patch(None, "level1_prefetch", M.wan_model("t2v", "tiny"))
    pf = m.get_wrappers(pe.WrappersMP.APPLY_MODEL, "accel.compile")[-1].cfg.prefetch
    assert pf is not None and pf.policy.name == "ERROR" and "weights: prefetch on" in report
    # --switch prefetch_room / prefetch_ahead: A/B one half of it, one process per setting
    P = H.pack_module("accel.compile.prefetch")
    try:
        assert bm.apply_switches(H.pack_module, {"prefetch_room": False, "prefetch_ahead": True}) == \
            {"prefetch_room": "off", "prefetch_ahead": "on"}
        assert P.MAKE_ROOM is False and P.FETCH_AHEAD is True
    finally:
        P.MAKE_ROOM = P.FETCH_AHEAD = True
