"""The shipped workflows, each defined once here (scripts/workflows.py writes their UI and API files)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from workflow_parts import (  # noqa: E402
    _ACCEL_VALUES,
    _UMT5,
    _WAN_VAE,
    ACCEL_GROUP,
    IMAGE_NEGATIVE,
    IMAGE_POSITIVE,
    INPUT_IMAGE,
    NEG_COLOR,
    POS_COLOR,
    WAN_POSITIVE,
    Flow,
    _about,
    _accel_video_out,
    _chain,
    _image_out,
    _ksampler,
    _layout,
    _prompts,
    _shift8,
    _unet,
    _video_latent,
    _video_out,
    _wan_encoders,
    _wan_t2v,
)

from accel_harness.demo import CHAIN_VALUES, DEFAULT_CHAIN  # noqa: E402


def wan21_t2v_1_3b_level1(info) -> Flow:
    f = Flow("wan2.1_t2v_1.3B_level1", info)
    unet, clip, vae, pos, neg, lat, shift = _wan_t2v(f, "Load Wan 2.1 T2V 1.3B", "wan2.1_t2v_1.3B_fp16.safetensors", 33)
    [l1] = _chain(f, f.out(shift), ["AccelWanLevel1"])
    ks = _ksampler(f, f.out(l1), f.out(pos), f.out(neg), f.out(lat), steps=30, cfg=6.0, sampler="uni_pc")
    outs = _video_out(f, f.out(ks), f.out(vae), "video/wan2.1_1.3B_level1")
    f.outputs = {"sampler": ks, "save": outs[-1]}
    n = _about(f, "Wan 2.1 T2V 1.3B + Accel Wan Level-1", """
**Accel Wan Level-1** = fastest attention kernel for this GPU + torch.compile of every block + TF32, for this
model only. Not bit-identical to stock (other kernels round differently); the node's report states it.""",
               ["wan2.1_t2v_1.3B_fp16.safetensors", _UMT5, _WAN_VAE])
    _layout(f, n, [unet, clip, vae], [pos, neg], [lat], [shift, l1], [ks], outs)
    return f


def wan21_t2v_14b(info) -> Flow:
    f = Flow("wan2.1_t2v_14B_attention_compile_teacache", info)
    unet, clip, vae, pos, neg, lat, shift = _wan_t2v(f, "Load Wan 2.1 T2V 14B", "wan2.1_t2v_14B_fp16.safetensors", 81)
    chain = _chain(f, f.out(shift), ["AccelAttention", "AccelCompile", "AccelTeaCache"])
    ks = _ksampler(f, f.out(chain[-1]), f.out(pos), f.out(neg), f.out(lat), steps=30, cfg=6.0, sampler="uni_pc")
    outs = _video_out(f, f.out(ks), f.out(vae), "video/wan2.1_14B_accel")
    f.outputs = {"sampler": ks, "save": outs[-1]}
    n = _about(f, "Wan 2.1 T2V 14B + attention, compile, TeaCache", """
**Accel Attention** (auto: FlashAttention-3 on H100/H200, FA2 on Ada/Ampere, else the fastest installed) →
**Accel Compile** (per-block torch.compile) → **Accel TeaCache** (skips steps that change little: faster, not
identical; `rel_l1_thresh` -1 = the published recommendation for Wan 2.1 14B, 0 = off).""",
               ["wan2.1_t2v_14B_fp16.safetensors", _UMT5, _WAN_VAE])
    _layout(f, n, [unet, clip, vae], [pos, neg], [lat], [shift, *chain], [ks], outs, accel_direction="row")
    return f


def wan21_i2v_480p(info) -> Flow:
    f = Flow("wan2.1_i2v_480p_level1_teacache", info)
    unet = _unet(f, "Load Wan 2.1 I2V 480p 14B", "wan2.1_i2v_480p_14B_fp16.safetensors")
    clip, vae = _wan_encoders(f)
    cvl = f.add("CLIPVisionLoader", "Load CLIP Vision H", clip_name="clip_vision_h.safetensors")
    img = f.add("LoadImage", "Start image", image=INPUT_IMAGE)
    cve = f.add("CLIPVisionEncode", None, clip_vision=f.out(cvl), image=f.out(img), crop="none")
    pos, neg = _prompts(f, f.out(clip), "The subject turns slowly towards the camera and smiles, gentle wind, "
                                        "natural light, smooth camera push-in.")
    i2v = f.add("WanImageToVideo", "Wan Image to Video (832x480, 81 frames)", positive=f.out(pos), negative=f.out(neg),
                vae=f.out(vae), width=832, height=480, length=81, batch_size=1, clip_vision_output=f.out(cve),
                start_image=f.out(img))
    shift = _shift8(f, f.out(unet))
    l1, tea = _chain(f, f.out(shift), ["AccelWanLevel1", "AccelTeaCache"])
    ks = _ksampler(f, f.out(tea), f.out(i2v, 0), f.out(i2v, 1), f.out(i2v, 2), steps=20, cfg=6.0, sampler="uni_pc")
    outs = _video_out(f, f.out(ks), f.out(vae), "video/wan2.1_i2v_480p_accel")
    f.outputs = {"sampler": ks, "save": outs[-1]}
    n = _about(f, "Wan 2.1 I2V 480p + Level-1 + TeaCache", """
**Accel Wan Level-1** (fast attention + per-block compile + TF32) → **Accel TeaCache** (`auto` picks the
published I2V 480p or 720p set from the video size; faster, not identical; `rel_l1_thresh` 0 = off).
Put your start image into the Load Image node.""",
               ["wan2.1_i2v_480p_14B_fp16.safetensors", _UMT5, "clip_vision_h.safetensors", _WAN_VAE], size=(460, 280))
    f.column(("Read me", [n]))
    f.column(("1 · Models", [unet, clip, vae, cvl]), ("2 · Start image", [img]))
    f.column(("3 · Prompt", [pos, neg]), ("4 · Image conditioning", [cve, i2v]))
    f.column(("5 · Accelerate (comfyui-accel)", [shift, l1, tea]))
    f.column(("6 · Sample", [ks]))
    f.column(("7 · Decode and save", outs))
    f.group_colors["5 · Accelerate (comfyui-accel)"] = ACCEL_GROUP
    return f


def wan22_a14b(info) -> Flow:
    f = Flow("wan2.2_t2v_A14B_attention_compile_teacache", info)
    hi = _unet(f, "Load Wan 2.2 T2V high-noise expert", "wan2.2_t2v_high_noise_14B_fp8_scaled.safetensors")
    lo = _unet(f, "Load Wan 2.2 T2V low-noise expert", "wan2.2_t2v_low_noise_14B_fp8_scaled.safetensors")
    clip, vae = _wan_encoders(f)
    pos, neg = _prompts(f, f.out(clip))
    lat = _video_latent(f, 81)
    chains = {}
    for tag, loader in (("high-noise", hi), ("low-noise", lo)):
        shift = _shift8(f, f.out(loader), f"Shift 8 ({tag})")
        chains[tag] = [shift, *_chain(f, f.out(shift), ["AccelAttention", "AccelCompile", "AccelTeaCache"], tag)]
    common = dict(steps=20, cfg=3.5, sampler_name="euler", scheduler="simple", positive=f.out(pos), negative=f.out(neg))
    k1 = f.add("KSamplerAdvanced", "KSampler (high-noise expert, steps 0-10)", model=f.out(chains["high-noise"][-1]),
               add_noise="enable", noise_seed=42, latent_image=f.out(lat), start_at_step=0, end_at_step=10,
               return_with_leftover_noise="enable", **common)
    k2 = f.add("KSamplerAdvanced", "KSampler (low-noise expert, steps 10-20)", model=f.out(chains["low-noise"][-1]),
               add_noise="disable", noise_seed=0, latent_image=f.out(k1), start_at_step=10, end_at_step=10000,
               return_with_leftover_noise="disable", **common)
    outs = _video_out(f, f.out(k2), f.out(vae), "video/wan2.2_A14B_accel")
    f.outputs = {"sampler": k2, "save": outs[-1]}
    n = _about(f, "Wan 2.2 A14B (two experts) + attention, compile, TeaCache", """
Wan 2.2 A14B runs a **high-noise expert** for the first half of the steps and a **low-noise expert** for the rest
(two KSamplerAdvanced, split at step 10). Each expert gets its own **Accel Attention → Accel Compile → Accel
TeaCache**: the second expert reuses the first one's compiled code; each TeaCache keeps its own state and maps
its part of the schedule (`auto` uses the Wan 2.1 14B set for the experts; the report says so).""",
               ["wan2.2_t2v_high_noise_14B_fp8_scaled.safetensors", "wan2.2_t2v_low_noise_14B_fp8_scaled.safetensors",
                _UMT5, _WAN_VAE], size=(480, 320))
    f.column(("Read me", [n]))
    f.column(("1 · Models", [hi, lo, clip, vae]))
    f.column(("2 · Prompt", [pos, neg]), ("3 · Size", [lat]))
    f.column(("4 · Accelerate the high-noise expert (comfyui-accel)", chains["high-noise"], "row"),
             ("5 · Accelerate the low-noise expert (comfyui-accel)", chains["low-noise"], "row"))
    f.column(("6 · Sample (two experts)", [k1, k2]))
    f.column(("7 · Decode and save", outs))
    for t in ("4 · Accelerate the high-noise expert (comfyui-accel)",
              "5 · Accelerate the low-noise expert (comfyui-accel)"):
        f.group_colors[t] = ACCEL_GROUP
    return f


def _flux_encoders(f: Flow, t5_name: str) -> tuple[str, str]:
    """The CLIP-L + T5-XXL text encoders and the VAE loaders of the FLUX.1 templates."""
    clip = f.add("DualCLIPLoader", "Load CLIP-L + T5-XXL", clip_name1="clip_l.safetensors", clip_name2=t5_name,
                 type="flux")
    return clip, f.add("VAELoader", "Load FLUX VAE", vae_name="ae.safetensors")


def flux_dev_fp8(info) -> Flow:
    f = Flow("flux1_dev_fp8_teacache", info)
    unet = f.add("AccelLoadDiffusionModelFP8", "Load FLUX.1-dev as FP8 (Accel)", unet_name="flux1-dev.safetensors")
    clip, vae = _flux_encoders(f, "t5xxl_fp16.safetensors")
    pos = f.add("CLIPTextEncode", "Prompt", text=IMAGE_POSITIVE, clip=f.out(clip))
    guid = f.add("FluxGuidance", None, conditioning=f.out(pos), guidance=3.5)
    zero = f.add("ConditioningZeroOut", "Negative (unused by FLUX dev)", conditioning=f.out(pos))
    f.colors[pos], f.colors[zero] = POS_COLOR, NEG_COLOR
    lat = f.add("EmptySD3LatentImage", "Image size (1024x1024)", width=1024, height=1024, batch_size=1)
    [tea] = _chain(f, f.out(unet), ["AccelTeaCache"])
    ks = _ksampler(f, f.out(tea), f.out(guid), f.out(zero), f.out(lat), steps=20, cfg=1.0, sampler="euler")
    outs = _image_out(f, f.out(ks), f.out(vae), "flux1_dev_accel")
    f.outputs = {"sampler": ks, "save": outs[-1]}
    n = _about(f, "FLUX.1-dev: FP8 load + TeaCache", """
**Accel Load Diffusion Model (FP8)** loads the bf16 FLUX file with FP8 weights (half the memory; FP8 matmuls
on H100/H200/L40/RTX 40xx and newer; embeddings, norms and the head stay bf16). **Accel TeaCache** skips steps
that change little (`auto` = the published FLUX set; faster, not identical; `rel_l1_thresh` 0 = off).""",
               ["flux1-dev.safetensors", "clip_l.safetensors", "t5xxl_fp16.safetensors", "ae.safetensors"],
               tail="flux1-dev needs the licence accepted on Hugging Face (black-forest-labs/FLUX.1-dev) before it "
                    "downloads.")
    _layout(f, n, [unet, clip, vae], [pos, guid, zero], [lat], [tea], [ks], outs, models_title="1 · Models (FP8 load)")
    f.group_colors["1 · Models (FP8 load)"] = ACCEL_GROUP
    return f


def _qwen_loaders(f: Flow, title: str, unet_name: str) -> tuple[str, str, str]:
    """The diffusion model, Qwen2.5-VL text encoder and VAE loaders of the Qwen-Image templates."""
    unet = _unet(f, title, unet_name)
    clip = f.add("CLIPLoader", "Load Qwen2.5-VL text encoder", clip_name="qwen_2.5_vl_7b_fp8_scaled.safetensors",
                 type="qwen_image")
    return unet, clip, f.add("VAELoader", "Load Qwen-Image VAE", vae_name="qwen_image_vae.safetensors")


def qwen_image(info) -> Flow:
    f = Flow("qwen_image_attention_compile", info)
    unet, clip, vae = _qwen_loaders(f, "Load Qwen-Image", "qwen_image_fp8_e4m3fn.safetensors")
    pos, neg = _prompts(f, f.out(clip), IMAGE_POSITIVE, IMAGE_NEGATIVE)
    lat = f.add("EmptySD3LatentImage", "Image size (1328x1328)", width=1328, height=1328, batch_size=1)
    shift = f.add("ModelSamplingAuraFlow", "Shift 3.5", model=f.out(unet), shift=3.5)
    att, comp = _chain(f, f.out(shift), ["AccelAttention", "AccelCompile"])
    ks = _ksampler(f, f.out(comp), f.out(pos), f.out(neg), f.out(lat), steps=20, cfg=4.0, sampler="euler")
    outs = _image_out(f, f.out(ks), f.out(vae), "qwen_image_accel")
    f.outputs = {"sampler": ks, "save": outs[-1]}
    n = _about(f, "Qwen-Image + attention + compile", """
**Accel Attention** (auto: the fastest exact backend for this GPU) → **Accel Compile** (per-block torch.compile).
Same images as stock up to kernel rounding. Qwen-Image passes an attention mask for padded prompts: those calls
use ComfyUI's attention (the report says how often).""",
               ["qwen_image_fp8_e4m3fn.safetensors", "qwen_2.5_vl_7b_fp8_scaled.safetensors",
                "qwen_image_vae.safetensors"])
    _layout(f, n, [unet, clip, vae], [pos, neg], [lat], [shift, att, comp], [ks], outs)
    return f


# The other families of issue #30. Each graph is ComfyUI's own example for the model (loaders, file names, sizes,
# sampler nodes and settings as there), with the chain bench/families.py ships for the family (`shipped`:
# cuda_attn_compile = Accel CUDA Settings -> Accel Attention -> Accel Compile, bench_matrix.py) put on the model
# input of the sampler. Sources (read via the public code index):
# - HunyuanVideo T2V: comfyanonymous/ComfyUI_examples hunyuan_video/hunyuan_video_text_to_video.json and its
#   README (files from Comfy-Org/HunyuanVideo_repackaged): UNETLoader hunyuan_video_t2v_720p_bf16, DualCLIPLoader
#   clip_l + llava_llama3_fp8_scaled (hunyuan_video), VAELoader hunyuan_video_vae_bf16, EmptyHunyuanLatentVideo
#   848x480 73 frames, FluxGuidance 6, ModelSamplingSD3 shift 7, BasicGuider, RandomNoise, KSamplerSelect euler,
#   BasicScheduler simple 20 (on the loader's model, as there), SamplerCustomAdvanced, VAEDecodeTiled 256 / 64,
#   24 fps.
# - LTX-Video T2V: comfyanonymous/ComfyUI_examples ltxv/ltxv_text_to_video_0.9.5.json and its README (same files
#   as docs.comfy.org's LTX-Video tutorial): CheckpointLoaderSimple ltx-video-2b-v0.9.5 (model + VAE), CLIPLoader
#   t5xxl_fp16 (ltxv), LTXVConditioning frame rate 25, EmptyLTXVLatentVideo 768x512 97 frames, LTXVScheduler 30
#   steps (2.05 / 0.95, stretch, terminal 0.1), KSamplerSelect res_multistep, SamplerCustom CFG 3, VAEDecode,
#   24 fps.
# The examples save with SaveAnimatedWEBP; these use CreateVideo -> SaveVideo like the other shipped workflows
# (both exist in ComfyUI 0.3.75 and 0.33).
SHIPPED_CHAIN = ["AccelCUDASettings", "AccelAttention", "AccelCompile"]  # bench_matrix.py's cuda_attn_compile
_FAMILY_BODY = """
**Accel CUDA Settings** (TF32, cuDNN benchmark, the fastest SDPA order for this GPU) → **Accel Attention** (auto:
the fastest exact backend for this GPU) → **Accel Compile** (per-block torch.compile): the chain the pack ships
for {model}. No step cache: the video differs from stock only by kernel rounding and TF32 in fp32 layers.
Where this chain was measured on this model and what it gave: the `family:` line of Accel Compile's report, and
the pack's docs/nodes.md, "Model families"."""
LTXV_POSITIVE = (
    "A red fox trots through fresh snow in a quiet birch forest just after sunrise. Low golden light slants between "
    "the white trunks and catches the frost on the branches, and the fox's breath rises in small clouds in the cold "
    "air. The camera tracks alongside at the height of the fox, keeping pace as it lifts its paws high and pauses "
    "to listen, its ears turning. Snow crystals sparkle in the foreground, the background falls into a soft blur, "
    "and the scene has the calm, detailed look of a nature documentary.")
LTXV_NEGATIVE = "low quality, worst quality, blurry, deformed, distorted, motion smear, flicker, watermark, text"


def hunyuan_video_t2v(info) -> Flow:
    f = Flow("hunyuan_video_t2v_attention_compile", info)
    unet = _unet(f, "Load HunyuanVideo T2V 720p", "hunyuan_video_t2v_720p_bf16.safetensors")
    clip = f.add("DualCLIPLoader", "Load CLIP-L + LLaVA-Llama-3", clip_name1="clip_l.safetensors",
                 clip_name2="llava_llama3_fp8_scaled.safetensors", type="hunyuan_video")
    vae = f.add("VAELoader", "Load HunyuanVideo VAE", vae_name="hunyuan_video_vae_bf16.safetensors")
    pos = f.add("CLIPTextEncode", "Prompt", text=WAN_POSITIVE, clip=f.out(clip))
    guid = f.add("FluxGuidance", "Guidance 6", conditioning=f.out(pos), guidance=6.0)
    f.colors[pos] = POS_COLOR
    lat = f.add("EmptyHunyuanLatentVideo", "Video size (848x480, 73 frames)", width=848, height=480, length=73,
                batch_size=1)
    shift = f.add("ModelSamplingSD3", "Shift 7", model=f.out(unet), shift=7.0)
    chain = _chain(f, f.out(shift), SHIPPED_CHAIN)
    noise = f.add("RandomNoise", "Random Noise", noise_seed=42)
    guider = f.add("BasicGuider", "Guider", model=f.out(chain[-1]), conditioning=f.out(guid))
    sampler = f.add("KSamplerSelect", "Sampler (euler)", sampler_name="euler")
    sigmas = f.add("BasicScheduler", "Scheduler (simple, 20 steps)", model=f.out(unet), scheduler="simple", steps=20,
                   denoise=1.0)
    sca = f.add("SamplerCustomAdvanced", "Sampler Custom Advanced", noise=f.out(noise), guider=f.out(guider),
                sampler=f.out(sampler), sigmas=f.out(sigmas), latent_image=f.out(lat))
    dec = f.add("VAEDecodeTiled", "VAE Decode (tiled)", samples=f.out(sca), vae=f.out(vae), tile_size=256, overlap=64,
                temporal_size=64, temporal_overlap=8)
    vid = f.add("CreateVideo", "Create Video", images=f.out(dec), fps=24)
    save = f.add("SaveVideo", "Save Video", video=f.out(vid), filename_prefix="video/hunyuan_video_accel",
                 format="auto", codec="auto")
    f.outputs = {"sampler": sca, "save": save}
    n = _about(f, "HunyuanVideo T2V + CUDA settings, attention, compile",
               _FAMILY_BODY.format(model="HunyuanVideo") + """

The graph is ComfyUI's HunyuanVideo example: guidance-distilled (FluxGuidance 6, no negative prompt), shift 7,
848x480, 73 frames, 20 steps euler / simple, tiled VAE decode (lower tile_size if the decode runs out of memory).""",
               ["hunyuan_video_t2v_720p_bf16.safetensors", "clip_l.safetensors", "llava_llama3_fp8_scaled.safetensors",
                "hunyuan_video_vae_bf16.safetensors"], size=(480, 320))
    f.column(("Read me", [n]))
    f.column(("1 · Models", [unet, clip, vae]))
    f.column(("2 · Prompt", [pos, guid]), ("3 · Size", [lat]))
    f.column(("4 · Shift", [shift]), ("5 · Accelerate (comfyui-accel)", chain))
    f.column(("6 · Sample", [noise, sampler, sigmas, guider, sca]))
    f.column(("7 · Decode and save", [dec, vid, save]))
    f.group_colors["5 · Accelerate (comfyui-accel)"] = ACCEL_GROUP
    return f


def ltxv_t2v(info) -> Flow:
    f = Flow("ltxv_t2v_attention_compile", info)
    ckpt = f.add("CheckpointLoaderSimple", "Load LTX-Video 2B 0.9.5 (model + VAE)",
                 ckpt_name="ltx-video-2b-v0.9.5.safetensors")
    clip = f.add("CLIPLoader", "Load T5-XXL text encoder", clip_name="t5xxl_fp16.safetensors", type="ltxv")
    pos, neg = _prompts(f, f.out(clip), LTXV_POSITIVE, LTXV_NEGATIVE)
    cond = f.add("LTXVConditioning", "LTXV Conditioning (25 fps)", positive=f.out(pos), negative=f.out(neg),
                 frame_rate=25.0)
    lat = f.add("EmptyLTXVLatentVideo", "Video size (768x512, 97 frames)", width=768, height=512, length=97,
                batch_size=1)
    chain = _chain(f, f.out(ckpt), SHIPPED_CHAIN)
    sampler = f.add("KSamplerSelect", "Sampler (res_multistep)", sampler_name="res_multistep")
    sigmas = f.add("LTXVScheduler", "LTXV Scheduler (30 steps)", steps=30, max_shift=2.05, base_shift=0.95,
                   stretch=True, terminal=0.1, latent=f.out(lat))
    sc = f.add("SamplerCustom", "Sampler Custom (CFG 3)", model=f.out(chain[-1]), add_noise=True, noise_seed=42,
               cfg=3.0, positive=f.out(cond, 0), negative=f.out(cond, 1), sampler=f.out(sampler), sigmas=f.out(sigmas),
               latent_image=f.out(lat))
    outs = _video_out(f, f.out(sc), f.out(ckpt, 2), "video/ltxv_accel", fps=24)
    f.outputs = {"sampler": sc, "save": outs[-1]}
    n = _about(f, "LTX-Video T2V + CUDA settings, attention, compile", _FAMILY_BODY.format(model="LTX-Video") + """

The graph is ComfyUI's LTX-Video 0.9.5 example: 768x512, 97 frames, LTXVScheduler 30 steps, res_multistep, CFG 3.
LTX-Video needs long, descriptive prompts; short ones give much worse videos.""",
               ["ltx-video-2b-v0.9.5.safetensors", "t5xxl_fp16.safetensors"], size=(480, 320))
    f.column(("Read me", [n]))
    f.column(("1 · Models", [ckpt, clip]))
    f.column(("2 · Prompt", [pos, neg, cond]), ("3 · Size", [lat]))
    f.column(("4 · Accelerate (comfyui-accel)", chain))
    f.column(("5 · Sample", [sampler, sigmas, sc]))
    f.column(("6 · Decode and save", outs))
    f.group_colors["4 · Accelerate (comfyui-accel)"] = ACCEL_GROUP
    return f


# Image families (issue 52), each ComfyUI's own template for the model with the shipped chain on the sampler's model:
# - Z-Image Turbo: Comfy-Org/workflow_templates image_z_image_turbo.json: UNETLoader z_image_turbo_bf16, CLIPLoader
#   qwen_3_4b (lumina2), VAELoader ae, ConditioningZeroOut as the negative, EmptySD3LatentImage 1024x1024,
#   ModelSamplingAuraFlow 3, KSampler 8 steps CFG 1 res_multistep / simple.
# - SDXL: sdxl_simple_example.json: base and refiner checkpoints, EmptyLatentImage 1024x1024, KSamplerAdvanced base
#   steps 0-20 of 25 (leftover noise kept) then refiner 20-end, CFG 8, euler / normal, the refiner's VAE decodes.
_IMAGE_BODY = """
**Accel CUDA Settings** (TF32, cuDNN benchmark, the fastest SDPA order for this GPU) → **Accel Attention** (auto:
the fastest exact backend for this GPU) → **Accel Compile**: the chain the pack ships for {model}. No step cache:
the image differs from stock only by kernel rounding. Accel Compile's `cuda_graphs` (off here) replays each step as
one CUDA graph where the model stays on the GPU. Where this chain was measured on this model and what it gave:
the `family:` line of Accel Compile's report, and the pack's docs/nodes.md, "Model families"."""


# The chains that load the model resident where it fits (Accel Compile resident_weights; on a card it does not fit,
# it keeps streaming), each faster than DynamicVRAM's per-call weight fetch on the H200 with the same final latent:
# Z-Image Turbo (bench/results/h200/family_033_z_image_peers/resident/), FLUX.1 Kontext's fp8_scaled model
# (family_033_flux_kontext/fp8_scaled_resident_shared/), Flux.2-dev's scaled-fp8 model
# (family_033_flux2_8steps/resident/). Not the Qwen-Image workflows: their plain fp8 files' resident load rounds the
# 16-bit tensors to fp8 (Accel Compile keeps such a file streaming).
RESIDENT_VALUES = {**_ACCEL_VALUES, "AccelCompile": {"resident_weights": True}}
# SDXL's template keeps one size: the whole UNet as one region ran faster than its layers and level with ComfyUI's
# TorchCompileModel (bench/results/h200/family_033_sdxl/sdpa_default/); dynamic false: a new size compiles a static
# graph once more instead of the dynamic recompile that ran for minutes (resolution_change_cut/).
SDXL_VALUES = {**_ACCEL_VALUES, "AccelCompile": {"scope": "model", "dynamic": "false"}}
SDXL_NOTE = """

The graph is ComfyUI's SDXL template: the base model samples steps 0-20 of 25 and hands its leftover noise to the
refiner for the rest (CFG 8, euler / normal, 1024x1024); each model has its own chain. Accel Compile's `scope` is
`model` here: the whole UNet as one region, the fastest measured where the size stays. Each new size compiles the UNet
again, about as long as the first run (`dynamic: false`: one static graph per size). If you change sizes often, set
`scope` to `blocks`: SDXL's attention and residual layers compile as regions, a new size recompiles them in seconds,
and each run is slower."""


def z_image_turbo(info) -> Flow:
    f = Flow("z_image_turbo_attention_compile", info)
    unet = _unet(f, "Load Z-Image Turbo", "z_image_turbo_bf16.safetensors")
    clip = f.add("CLIPLoader", "Load Qwen3-4B text encoder", clip_name="qwen_3_4b.safetensors", type="lumina2")
    vae = f.add("VAELoader", "Load Z-Image VAE", vae_name="ae.safetensors")
    pos = f.add("CLIPTextEncode", "Prompt", text=IMAGE_POSITIVE, clip=f.out(clip))
    zero = f.add("ConditioningZeroOut", "Negative (unused at CFG 1)", conditioning=f.out(pos))
    f.colors[pos], f.colors[zero] = POS_COLOR, NEG_COLOR
    lat = f.add("EmptySD3LatentImage", "Image size (1024x1024)", width=1024, height=1024, batch_size=1)
    shift = f.add("ModelSamplingAuraFlow", "Shift 3", model=f.out(unet), shift=3.0)
    chain = _chain(f, f.out(shift), SHIPPED_CHAIN, values=RESIDENT_VALUES)
    ks = _ksampler(f, f.out(chain[-1]), f.out(pos), f.out(zero), f.out(lat), steps=8, cfg=1.0, sampler="res_multistep")
    outs = _image_out(f, f.out(ks), f.out(vae), "z_image_turbo_accel")
    f.outputs = {"sampler": ks, "save": outs[-1]}
    n = _about(f, "Z-Image Turbo + CUDA settings, attention, compile", _IMAGE_BODY.format(model="Z-Image") + """

Accel Compile's `resident_weights` is on here: where the model fits the card, ComfyUI loads it resident instead of
fetching each block's weights at every step (same output; where it does not fit it keeps streaming, and the
report's first line says which).

The graph is ComfyUI's Z-Image Turbo template: distilled (CFG 1, the negative is zeroed), shift 3, 8 steps
res_multistep / simple at 1024x1024.""", ["z_image_turbo_bf16.safetensors", "qwen_3_4b.safetensors", "ae.safetensors"],
               size=(480, 320))
    _layout(f, n, [unet, clip, vae], [pos, zero], [lat], [shift, *chain], [ks], outs)
    return f


KONTEXT_PROMPT = ("Turn the scene into a watercolor painting with soft washes and visible paper texture, keeping the "
                  "composition, the subject and its pose exactly as they are.")
EDIT_PROMPT = ("Replace the background with a quiet beach at sunset; keep the subject, its pose and its lighting "
               "unchanged.")


def flux_kontext_dev(info) -> Flow:
    f = Flow("flux1_kontext_dev_attention_compile", info)
    unet = _unet(f, "Load FLUX.1 Kontext dev", "flux1-dev-kontext_fp8_scaled.safetensors")
    clip, vae = _flux_encoders(f, "t5xxl_fp8_e4m3fn_scaled.safetensors")
    img = f.add("LoadImage", "Image to edit", image=INPUT_IMAGE)
    scale = f.add("FluxKontextImageScale", "Scale to a Kontext size", image=f.out(img))
    enc = f.add("VAEEncode", "Encode the image", pixels=f.out(scale), vae=f.out(vae))
    pos = f.add("CLIPTextEncode", "Edit instruction", text=KONTEXT_PROMPT, clip=f.out(clip))
    ref = f.add("ReferenceLatent", "Reference latent (the image)", conditioning=f.out(pos), latent=f.out(enc))
    guid = f.add("FluxGuidance", "Guidance 2.5", conditioning=f.out(ref), guidance=2.5)
    zero = f.add("ConditioningZeroOut", "Negative (unused at CFG 1)", conditioning=f.out(pos))
    f.colors[pos], f.colors[zero] = POS_COLOR, NEG_COLOR
    chain = _chain(f, f.out(unet), SHIPPED_CHAIN, values=RESIDENT_VALUES)
    ks = _ksampler(f, f.out(chain[-1]), f.out(guid), f.out(zero), f.out(enc), steps=20, cfg=1.0, sampler="euler")
    outs = _image_out(f, f.out(ks), f.out(vae), "flux1_kontext_accel")
    f.outputs = {"sampler": ks, "save": outs[-1]}
    n = _about(f, "FLUX.1 Kontext dev (image edit) + CUDA settings, attention, compile", _IMAGE_BODY.format(
        model="FLUX.1 Kontext") + """

Accel Compile's `resident_weights` is on here: where the model fits the card, ComfyUI loads it resident instead of
fetching each block's weights at every step (same output; where it does not fit it keeps streaming, and the
report's first line says which).

The graph is ComfyUI's FLUX.1 Kontext dev template with one input image: the image is scaled to a Kontext size,
encoded, given to the prompt as its reference latent and used as the start latent; guidance 2.5, 20 steps euler /
simple at CFG 1. The reference image's tokens join the image tokens in every attention call (about twice the
sequence of a text-to-image run at the same size).""",
               ["flux1-dev-kontext_fp8_scaled.safetensors", "clip_l.safetensors",
                "t5xxl_fp8_e4m3fn_scaled.safetensors", "ae.safetensors"], size=(480, 340))
    _edit_layout(f, n, [unet, clip, vae], [img, scale, enc], [pos, ref, guid, zero], chain, [ks], outs)
    return f


def qwen_image_edit(info) -> Flow:
    f = Flow("qwen_image_edit_attention_compile", info)
    unet, clip, vae = _qwen_loaders(f, "Load Qwen-Image-Edit", "qwen_image_edit_fp8_e4m3fn.safetensors")
    img = f.add("LoadImage", "Image to edit", image=INPUT_IMAGE)
    pos = f.add("TextEncodeQwenImageEdit", "Edit instruction", clip=f.out(clip), prompt=EDIT_PROMPT,
                vae=f.out(vae), image=f.out(img))
    neg = f.add("TextEncodeQwenImageEdit", "Negative", clip=f.out(clip), prompt="", vae=f.out(vae),
                image=f.out(img))
    f.colors[pos], f.colors[neg] = POS_COLOR, NEG_COLOR
    enc = f.add("VAEEncode", "Encode the image", pixels=f.out(img), vae=f.out(vae))
    shift = f.add("ModelSamplingAuraFlow", "Shift 3", model=f.out(unet), shift=3.0)
    norm = f.add("CFGNorm", None, model=f.out(shift), strength=1.0)
    chain = _chain(f, f.out(norm), SHIPPED_CHAIN)
    ks = _ksampler(f, f.out(chain[-1]), f.out(pos), f.out(neg), f.out(enc), steps=20, cfg=2.5, sampler="euler")
    outs = _image_out(f, f.out(ks), f.out(vae), "qwen_image_edit_accel")
    f.outputs = {"sampler": ks, "save": outs[-1]}
    n = _about(f, "Qwen-Image-Edit + CUDA settings, attention, compile", _IMAGE_BODY.format(
        model="Qwen-Image-Edit") + """

The graph is ComfyUI's Qwen-Image-Edit template at its own 20-step setting (CFG 2.5, euler / simple, shift 3,
CFGNorm), without the optional 4-step Lightning LoRA. The image is encoded at its own size: for a large photo put an
ImageScaleToTotalPixels (about 1 megapixel) after Load Image, as the template's note advises. The image's latent
tokens join the image tokens in every attention call.""",
               ["qwen_image_edit_fp8_e4m3fn.safetensors", "qwen_2.5_vl_7b_fp8_scaled.safetensors",
                "qwen_image_vae.safetensors"], size=(480, 340))
    _edit_layout(f, n, [unet, clip, vae], [img, enc], [pos, neg], [shift, norm, *chain], [ks], outs)
    return f


def _edit_layout(f: Flow, note: str, models: list, image: list, prompt: list, accel: list, sample: list,
                 save: list) -> None:
    """The image-edit columns: read me | models | image to edit, prompt | accelerate | sample | decode and save."""
    accel_title = "4 · Accelerate (comfyui-accel)"
    f.column(("Read me", [note]))
    f.column(("1 · Models", models))
    f.column(("2 · Image to edit", image), ("3 · Prompt", prompt))
    f.column((accel_title, accel))
    f.column(("5 · Sample", sample))
    f.column(("6 · Decode and save", save))
    f.group_colors[accel_title] = ACCEL_GROUP


def sdxl_base_refiner(info) -> Flow:
    f = Flow("sdxl_base_refiner_attention_compile", info)
    models, prompts, chains = {}, {}, {}
    for tag, ckpt in (("base", "sd_xl_base_1.0.safetensors"), ("refiner", "sd_xl_refiner_1.0.safetensors")):
        models[tag] = f.add("CheckpointLoaderSimple", f"Load SDXL {tag}", ckpt_name=ckpt)
        prompts[tag] = _prompts(f, f.out(models[tag], 1), IMAGE_POSITIVE, IMAGE_NEGATIVE)
        chains[tag] = _chain(f, f.out(models[tag]), SHIPPED_CHAIN, tag, values=SDXL_VALUES)
    lat = f.add("EmptyLatentImage", "Image size (1024x1024)", width=1024, height=1024, batch_size=1)
    common = dict(steps=25, cfg=8.0, sampler_name="euler", scheduler="normal")
    k1 = f.add("KSamplerAdvanced", "KSampler (base, steps 0-20)", model=f.out(chains["base"][-1]), add_noise="enable",
               noise_seed=42, positive=f.out(prompts["base"][0]), negative=f.out(prompts["base"][1]),
               latent_image=f.out(lat), start_at_step=0, end_at_step=20, return_with_leftover_noise="enable", **common)
    k2 = f.add("KSamplerAdvanced", "KSampler (refiner, steps 20-25)", model=f.out(chains["refiner"][-1]),
               add_noise="disable", noise_seed=0, positive=f.out(prompts["refiner"][0]),
               negative=f.out(prompts["refiner"][1]), latent_image=f.out(k1), start_at_step=20, end_at_step=10000,
               return_with_leftover_noise="disable", **common)
    outs = _image_out(f, f.out(k2), f.out(models["refiner"], 2), "sdxl_accel")
    f.outputs = {"sampler": k2, "save": outs[-1]}
    n = _about(f, "SDXL base + refiner + CUDA settings, attention, compile",
               _IMAGE_BODY.format(model="SDXL") + SDXL_NOTE,
               ["sd_xl_base_1.0.safetensors", "sd_xl_refiner_1.0.safetensors"], size=(480, 340))
    f.column(("Read me", [n]))
    f.column(("1 · Models", [models["base"], models["refiner"]]))
    f.column(("2 · Prompts (base, refiner)", [*prompts["base"], *prompts["refiner"]]), ("3 · Size", [lat]))
    f.column(("4 · Accelerate the base (comfyui-accel)", chains["base"], "row"),
             ("5 · Accelerate the refiner (comfyui-accel)", chains["refiner"], "row"))
    f.column(("6 · Sample (base, then refiner)", [k1, k2]))
    f.column(("7 · Decode and save", outs))
    for t in ("4 · Accelerate the base (comfyui-accel)", "5 · Accelerate the refiner (comfyui-accel)"):
        f.group_colors[t] = ACCEL_GROUP
    return f


def wan21_before_after(info) -> Flow:
    f = Flow("wan2.1_t2v_1.3B_before_after", info)
    unet, clip, vae, pos, neg, lat, shift = _wan_t2v(f, "Load Wan 2.1 T2V 1.3B", "wan2.1_t2v_1.3B_fp16.safetensors", 33)
    # the demo's accelerated chain (accel_harness/demo.py), same order and settings
    chain = _chain(f, f.out(shift), DEFAULT_CHAIN, values=CHAIN_VALUES)
    common = dict(positive=f.out(pos), negative=f.out(neg), latent=f.out(lat), steps=30, cfg=6.0, sampler="uni_pc")
    ks_stock = _ksampler(f, f.out(shift), title="KSampler (stock)", **common)
    ks_fast = _ksampler(f, f.out(chain[-1]), title="KSampler (accelerated)", **common)
    out_stock = _video_out(f, f.out(ks_stock), f.out(vae), "video/before_after_stock", " (stock)")
    out_fast = _video_out(f, f.out(ks_fast), f.out(vae), "video/before_after_accelerated", " (accelerated)")
    diff = f.add("AccelLatentDiff", "Accelerated vs stock", latent_a=f.out(ks_fast), latent_b=f.out(ks_stock),
                 label="accelerated vs stock")
    report = f.add("AccelHardwareReport", None, refresh=False)
    f.outputs = {"stock_sampler": ks_stock, "accel_sampler": ks_fast, "stock_save": out_stock[-1],
                 "accel_save": out_fast[-1], "diff": diff, "report": report}
    n = _about(f, "Before / after: stock vs accelerated Wan 2.1 1.3B", f"""
One loaded model, two branches with the same seed: **stock** (top) and **accelerated** (bottom:
{" → ".join(info[x]["display_name"] for x in DEFAULT_CHAIN)}). The queue panel shows each sampler's time;
**Accelerated vs stock** shows how far the two latents are apart (kernel rounding only: no caches here).
Run it twice: the first accelerated run compiles.""",
               ["wan2.1_t2v_1.3B_fp16.safetensors", _UMT5, _WAN_VAE], tail="", size=(460, 270))
    f.column(("Read me", [n]), ("What the pack detected", [report]))
    f.column(("1 · Models", [unet, clip, vae]))
    f.column(("2 · Prompt", [pos, neg]), ("3 · Size", [lat]))
    f.column(("4 · Shared: shift", [shift]), ("5 · Accelerate (comfyui-accel)", chain, "row"))
    f.column(("6a · Stock", [ks_stock]), ("6b · Accelerated", [ks_fast]))
    f.column(("7a · Decode and save (stock)", out_stock, "row"),
             ("7b · Decode and save (accelerated)", out_fast, "row"), ("8 · Compare", [diff]))
    f.group_colors["5 · Accelerate (comfyui-accel)"] = ACCEL_GROUP
    return f


# Wan 2.2 A14B with LightX2V's 4-step distill LoRAs (docs: huggingface.co/lightx2v/Wan2.2-Distill-Loras; the
# ComfyUI templates load Comfy-Org's repackaged copies): CFG 1, shift 5, 4 steps, steps 0-2 on the high-noise
# expert and 2-4 on the low-noise one (LightX2V switches experts at step 2 of its 4-step schedule).
FEWSTEP_STEPS, FEWSTEP_SPLIT, FEWSTEP_SHIFT = 4, 2, 5.0
# How the A14B LightX2V T2V / I2V workflows decode and save: "accel" (Accel Save Video: decodes and encodes while
# decoding, the CPU encoder at Save Video's CRF and preset) or "core" (VAE Decode -> Create Video -> Save Video).
# "accel" since one H200 to itself measured the T2V Queue 13.5 s with core's three nodes and 11.8 s with it
# (bench/results/h200/e2e_lightx2v_033/whole_card_accel_save/). The "core" twins: CORE_SAVE_VARIANTS.
FEWSTEP_SAVE = "accel"
# Accel Save Video's x264 preset in them: the fastest that kept Save Video's quality and file size in
# bench/results/h200/save_video_033_16core/ (its README says how it was chosen).
FEWSTEP_CPU_PRESET = "faster"
# Accel VAE in front of the decode (both the "accel" and the "core" save): its measured Hopper choice
# (accel/vae/measured.py DECODE_DEFAULTS; a test holds the two equal). One H200 to itself measured the shipped T2V Queue
# 10.73 s without it and 10.29 s with it, I2V 10.73 s with it against stock's 20.06 s
# (bench/results/h200/e2e_lightx2v_033/whole_card_output_vae/, i2v_whole_card_output_vae/).
FEWSTEP_VAE = {"fused_norm": True}
# Level-1's inputs in them: prefetch_weights on (exact: the same computations, only earlier; on a card that holds both
# experts it has nothing to do). One H200 to itself as a 16 GB card measured the shipped T2V Queue 13.43 s without it
# and 11.97 s with it against stock's 20.59 s (bench/results/h200/e2e_lightx2v_033/card16_output_vae/); as 16 and
# 24 GB cards it gained 1.3-1.4 s a Queue before, as 8 and 12 GB cards nothing (prefetch_card*/).
FEWSTEP_LEVEL1 = {"prefetch_weights": True}
_FEWSTEP_BODY = """
Wan 2.2 A14B with **LightX2V's 4-step distill LoRAs**: 4 steps instead of 20-40 and **CFG 1** (the LoRAs distil the
guidance in, so only the positive prompt runs; the negative prompt is ignored at CFG 1), **shift 5**, euler /
simple. The **high-noise expert** runs steps 0-2 and the **low-noise expert** steps 2-4, each with its own LoRA
(high / low) loaded by LoraLoaderModelOnly, then **Accel Wan Level-1** (fast attention + per-block compile + TF32).
Changing a LoRA strength recompiles nothing. Level-1's **prefetch_weights** is on: on a card that cannot hold the
experts (ComfyUI then streams their weights), the next block's weights are fetched while a block runs (the same
computations; on a card that holds them it does nothing). On the smaller cards measured it made the whole Queue
faster or changed nothing: the node's help has the measurements. (ComfyUI gives every `fp8_scaled` model its own
layer class, so the low-noise expert's blocks compile once more on the first run; with **Accel Load Diffusion Model
(FP8)** as the loaders, the second expert reuses the first one's compiled code.)

**Why no TeaCache / MagCache here:** a step cache saves time by skipping steps whose output changes little,
which needs many similar steps. With 4 steps every step changes the video a lot and each one is needed: a
skipped step costs visible quality and saves at most 1 of 4 model calls. The caches are for the 20-50 step
workflows.

{save}

Newer LightX2V LoRA versions (e.g. `*_lora_rank64_lightx2v_4step_1217`) are at
[lightx2v/Wan2.2-Distill-Loras](https://huggingface.co/lightx2v/Wan2.2-Distill-Loras); put one into models/loras
and pick it in the two LoRA nodes."""


def _fewstep_body(save: str, accel_vae: bool = True) -> str:
    """The A14B LightX2V note, with how this file decodes and saves (`save`: "accel" or "core"; `accel_vae`: whether
    it decodes through Accel VAE, _fewstep_out)."""
    return _FEWSTEP_BODY.format(save=_FEWSTEP_SAVE_NOTE[save] + ("\n\n" + _FEWSTEP_VAE_NOTE if accel_vae else ""))


_FEWSTEP_VAE_NOTE = """**Accel VAE** in front of the decode: the same VAE weights with channels-last convolutions and a
fused norm + SiLU kernel (`fused_norm`), the choice measured fastest on Hopper within the exact bound: no farther from
a float32 decode than ComfyUI's own bf16 decode (the node's help has the figures). Its report says what ran; where the
fused kernel cannot run (no Triton) it falls back to ComfyUI's norm and says so. To decode with the VAE as ComfyUI
loads it, connect Load VAE straight to the decode."""


_FEWSTEP_SAVE_NOTE = {
    "accel": f"""**Decode and save:** Accel Save Video decodes the latent with the VAE and encodes the MP4 while it
decodes: an H.264 MP4 at Save Video's CRF 23 with the workflow embedded and a new file name each time, on more CPU
cores. Its `encoder` is `cpu` (x264, Save Video's encoder) with `cpu_preset` **{FEWSTEP_CPU_PRESET}** (Save Video's
is medium; {FEWSTEP_CPU_PRESET} encodes about twice as fast at about the same quality: the node's help has the
measurements). `auto` uses NVENC where your GPU has one (NVENC's quality scale is not x264's CRF). To save with
ComfyUI's own nodes, put VAE Decode -> Create Video -> Save Video in its place.""",
    "core": """**Decode and save:** ComfyUI's VAE Decode -> Create Video -> Save Video. **Accel Save Video** in their
place decodes and encodes at the same time (the A14B 4-step workflows use it).""",
}

def _fewstep_experts(f: Flow, kind: str, lora_version: str, level1: dict | None = None) -> dict:
    """Both A14B experts: UNETLoader -> LoraLoaderModelOnly (LightX2V 4-step) -> shift 5 -> Accel Wan Level-1
    (FEWSTEP_LEVEL1's input values, then `level1`'s, e.g. its quality)."""
    out = {}
    for tag in ("high", "low"):
        unet = _unet(f, f"Load Wan 2.2 {kind.upper()} {tag}-noise expert",
                     f"wan2.2_{kind}_{tag}_noise_14B_fp8_scaled.safetensors")
        lora = f.add("LoraLoaderModelOnly", f"LightX2V 4-step LoRA ({tag}-noise)", model=f.out(unet),
                     lora_name=f"wan2.2_{kind}_lightx2v_4steps_lora_{lora_version}_{tag}_noise.safetensors",
                     strength_model=1.0)
        shift = f.add("ModelSamplingSD3", f"Shift 5 ({tag}-noise)", model=f.out(lora), shift=FEWSTEP_SHIFT)
        [l1] = _chain(f, f.out(shift), ["AccelWanLevel1"], f"{tag}-noise",
                      values={"AccelWanLevel1": {**FEWSTEP_LEVEL1, **(level1 or {})}})
        out[tag] = {"unet": unet, "chain": [lora, shift, l1]}
    return out


def _fewstep_samplers(f: Flow, experts: dict, positive: list, negative: list, latent: list) -> tuple[str, str]:
    common = dict(steps=FEWSTEP_STEPS, cfg=1.0, sampler_name="euler", scheduler="simple", positive=positive,
                  negative=negative)
    k1 = f.add("KSamplerAdvanced", f"KSampler (high-noise expert, steps 0-{FEWSTEP_SPLIT})",
               model=f.out(experts["high"]["chain"][-1]), add_noise="enable", noise_seed=42, latent_image=latent,
               start_at_step=0, end_at_step=FEWSTEP_SPLIT, return_with_leftover_noise="enable", **common)
    k2 = f.add("KSamplerAdvanced", f"KSampler (low-noise expert, steps {FEWSTEP_SPLIT}-{FEWSTEP_STEPS})",
               model=f.out(experts["low"]["chain"][-1]), add_noise="disable", noise_seed=0, latent_image=f.out(k1),
               start_at_step=FEWSTEP_SPLIT, end_at_step=10000, return_with_leftover_noise="disable", **common)
    return k1, k2


def _fewstep_columns(f: Flow, note: str, models: list, inputs: list, experts: dict, samplers, outs,
                     level1: str = "Level-1") -> None:
    f.column(("Read me", [note]))
    f.column(("1 · Models", models))
    f.column(*inputs)
    titles = (f"4 · High-noise expert: 4-step LoRA, shift 5, {level1} (comfyui-accel)",
              f"5 · Low-noise expert: 4-step LoRA, shift 5, {level1} (comfyui-accel)")
    f.column((titles[0], experts["high"]["chain"], "row"), (titles[1], experts["low"]["chain"], "row"))
    f.column((f"6 · Sample ({FEWSTEP_STEPS} steps: {FEWSTEP_SPLIT} + {FEWSTEP_STEPS - FEWSTEP_SPLIT}, CFG 1)",
              list(samplers)))
    f.column(("7 · Decode and save", outs))
    for t in titles:
        f.group_colors[t] = ACCEL_GROUP


def _fewstep_files(kind: str, lora_version: str) -> list[str]:
    return [f"wan2.2_{kind}_{e}_noise_14B_fp8_scaled.safetensors" for e in ("high", "low")] + \
        [f"wan2.2_{kind}_lightx2v_4steps_lora_{lora_version}_{e}_noise.safetensors" for e in ("high", "low")]


def _fewstep_out(f: Flow, latent: list, vae: list, prefix: str, save: str) -> list[str]:
    """Accel VAE (FEWSTEP_VAE) between the VAE loader and the decode, then the decode and save (`save`)."""
    fast = f.add("AccelVAE", "Accel VAE (faster decode)", vae=vae, **FEWSTEP_VAE)
    if save == "accel":
        return [fast] + _accel_video_out(f, latent, f.out(fast), prefix, cpu_preset=FEWSTEP_CPU_PRESET)
    return [fast] + _video_out(f, latent, f.out(fast), prefix)


def wan22_a14b_t2v_4step(info, save: str = FEWSTEP_SAVE) -> Flow:
    f = Flow("wan2.2_t2v_A14B_lightx2v_4step_level1", info)
    experts = _fewstep_experts(f, "t2v", "v1.1")
    clip, vae = _wan_encoders(f)
    pos, neg = _prompts(f, f.out(clip))
    lat = _video_latent(f, 81)
    k1, k2 = _fewstep_samplers(f, experts, f.out(pos), f.out(neg), f.out(lat))
    outs = _fewstep_out(f, f.out(k2), f.out(vae), "video/wan2.2_A14B_4step_level1", save)
    f.outputs = {"sampler": k2, "save": outs[-1]}
    n = _about(f, "Wan 2.2 T2V A14B, 4 steps (LightX2V LoRAs) + Level-1", _fewstep_body(save),
               _fewstep_files("t2v", "v1.1") + [_UMT5, _WAN_VAE], size=(500, 560))
    _fewstep_columns(f, n, [experts["high"]["unet"], experts["low"]["unet"], clip, vae],
                     [("2 · Prompt", [pos, neg]), ("3 · Size", [lat])], experts, (k1, k2), outs)
    return f


def wan22_a14b_t2v_4step_720p_sparse(info) -> Flow:
    """The 4-step T2V workflow at 1280x720 with Level-1's opt-in sparse attention (issue #32)."""
    f = Flow("wan2.2_t2v_A14B_lightx2v_4step_720p_sparse", info)
    experts = _fewstep_experts(f, "t2v", "v1.1", level1={"quality": "sparse (radial, opt-in)"})
    clip, vae = _wan_encoders(f)
    pos, neg = _prompts(f, f.out(clip))
    lat = _video_latent(f, 81, 1280, 720)
    k1, k2 = _fewstep_samplers(f, experts, f.out(pos), f.out(neg), f.out(lat))
    outs = _video_out(f, f.out(k2), f.out(vae), "video/wan2.2_A14B_4step_720p_sparse")
    f.outputs = {"sampler": k2, "save": outs[-1]}
    n = _about(f, "Wan 2.2 T2V A14B at 720p, 4 steps (LightX2V LoRAs) + Level-1 sparse",
               _fewstep_body("core", accel_vae=False) + """

**720p with sparse attention (opt-in, not exact).** This is the workflow above at 1280x720: there attention is
most of the time, so both Level-1 nodes use **quality: sparse (radial, opt-in)**: radial attention (Li et al.,
arXiv:2506.19852) computes only the attention between nearby frames and positions, with the first step of the
high-noise expert and the first and last blocks exact, as the method's authors run the 4-step LoRA. The report
under each Level-1 node says how many calls ran sparse and how much attention the pattern kept. Its visual quality
is **not measured** by this pack (the authors report near-identical quality on Wan 2.1 14B): compare with
`quality: exact` on your own prompt before you rely on it. On H100/H200/B200, `pip install flash-attn-4` makes the
sparse kernel about twice as fast (the report says which kernel ran). 121 frames: set the video size's length.""",
               _fewstep_files("t2v", "v1.1") + [_UMT5, _WAN_VAE], size=(500, 640))
    _fewstep_columns(f, n, [experts["high"]["unet"], experts["low"]["unet"], clip, vae],
                     [("2 · Prompt", [pos, neg]), ("3 · Size", [lat])], experts, (k1, k2), outs,
                     level1="Level-1 sparse")
    return f


def wan22_a14b_i2v_4step(info, save: str = FEWSTEP_SAVE) -> Flow:
    f = Flow("wan2.2_i2v_A14B_lightx2v_4step_level1", info)
    experts = _fewstep_experts(f, "i2v", "v1")
    clip, vae = _wan_encoders(f)
    img = f.add("LoadImage", "Start image", image=INPUT_IMAGE)
    pos, neg = _prompts(f, f.out(clip), "The subject turns slowly towards the camera and smiles, gentle wind, "
                                        "natural light, smooth camera push-in.")
    i2v = f.add("WanImageToVideo", "Wan Image to Video (832x480, 81 frames)", positive=f.out(pos), negative=f.out(neg),
                vae=f.out(vae), width=832, height=480, length=81, batch_size=1, start_image=f.out(img))
    k1, k2 = _fewstep_samplers(f, experts, f.out(i2v, 0), f.out(i2v, 1), f.out(i2v, 2))
    outs = _fewstep_out(f, f.out(k2), f.out(vae), "video/wan2.2_i2v_A14B_4step_level1", save)
    f.outputs = {"sampler": k2, "save": outs[-1]}
    n = _about(f, "Wan 2.2 I2V A14B, 4 steps (LightX2V LoRAs) + Level-1",
               _fewstep_body(save) + "\n\nPut your start image into the Load Image node (Wan 2.2 needs no CLIP vision "
                               "model).",
               _fewstep_files("i2v", "v1") + [_UMT5, _WAN_VAE], size=(500, 590))
    _fewstep_columns(f, n, [experts["high"]["unet"], experts["low"]["unet"], clip, vae, img],
                     [("2 · Prompt", [pos, neg]), ("3 · Image conditioning", [i2v])], experts, (k1, k2), outs)
    return f


def wan22_ti2v_5b(info) -> Flow:
    f = Flow("wan2.2_ti2v_5B_level1", info)
    unet = _unet(f, "Load Wan 2.2 TI2V 5B", "wan2.2_ti2v_5B_fp16.safetensors")
    clip = f.add("CLIPLoader", "Load umT5 text encoder", clip_name=_UMT5, type="wan")
    vae = f.add("VAELoader", "Load Wan 2.2 VAE", vae_name="wan2.2_vae.safetensors")
    pos, neg = _prompts(f, f.out(clip))
    lat = f.add("Wan22ImageToVideoLatent", "Video size (1280x704, 121 frames)", vae=f.out(vae), width=1280, height=704,
                length=121, batch_size=1)
    shift = _shift8(f, f.out(unet))
    [l1] = _chain(f, f.out(shift), ["AccelWanLevel1"])
    ks = _ksampler(f, f.out(l1), f.out(pos), f.out(neg), f.out(lat), steps=20, cfg=5.0, sampler="uni_pc")
    outs = _video_out(f, f.out(ks), f.out(vae), "video/wan2.2_ti2v_5B_level1", fps=24)
    f.outputs = {"sampler": ks, "save": outs[-1]}
    n = _about(f, "Wan 2.2 TI2V 5B + Accel Wan Level-1", """
Wan 2.2's 5B model, text to video at 1280x704, 121 frames, 24 fps, with the settings of ComfyUI's template (20
steps, CFG 5, uni_pc, shift 8). **Accel Wan Level-1** = fastest attention kernel for this GPU + torch.compile of
every block + TF32, for this model only; not bit-identical to stock (other kernels round differently).
Image to video: connect a Load Image node to the `start_image` input of the video size node.""",
               ["wan2.2_ti2v_5B_fp16.safetensors", _UMT5, "wan2.2_vae.safetensors"], size=(460, 270))
    _layout(f, n, [unet, clip, vae], [pos, neg], [lat], [shift, l1], [ks], outs)
    return f


# ComfyUI 0.33's newer families (issue 54). Each graph is ComfyUI's own template for the model (loaders, file names,
# sizes, sampler nodes and settings as there, subgraphs flattened), with the pack's chain on the sampler's model:
# - MiniMax-H3: Comfy-Org/workflow_templates video_minimax_h3_t2v.json ("Image to Video (MiniMax H3)"): UNETLoader
#   minimax_h3_fl2va_pruned_int8_convrot, CLIPLoader qwen3vl_32b_minimax_h3_nvfp4_awq (minimax), VAELoader video and
#   audio VAEs, MiniMaxH3ImageToVideo 1344x768 (its duration 5 s -> length 124 on the 17k+5 grid at 24 fps, a Math
#   Expression there: the value here), BasicGuider (no CFG), KSamplerSelect res_multistep, BasicScheduler simple 20
#   (turbo mode off; on: LoraLoaderModelOnly with the turbo LoRA, 4 steps with the 4-step LoRA the template's model
#   links name), RandomNoise, SamplerCustomAdvanced, LTXVSeparateAVLatent, VAEDecode + VAEDecodeAudio, CreateVideo 24
#   fps with the audio, SaveVideo. The pack's chain: Accel MiniMax-H3 Level-1.
# - HunyuanVideo 1.5: video_hunyuan_video_1.5_720p_t2v.json: UNETLoader hunyuanvideo1.5_720p_t2v_fp16, DualCLIPLoader
#   qwen_2.5_vl_7b_fp8_scaled + byt5_small_glyphxl_fp16 (hunyuan_video_15), VAELoader hunyuanvideo15_vae_fp16,
#   EmptyHunyuanVideo15Latent 848x480 121 frames, ModelSamplingSD3 7, CFGGuider 6, euler, BasicScheduler simple 20,
#   SamplerCustomAdvanced, VAEDecode, CreateVideo 24, SaveVideo (its EasyCache node is bypassed there: left out).
# - LTX-2: video_ltx2_t2v.json's first stage at its output size (its second stage, the x2 latent upscaler with the
#   distilled LoRA, is left out): CheckpointLoaderSimple ltx-2-19b-dev-fp8 (model + video VAE), LTXVAudioVAELoader and
#   LTXAVTextEncoderLoader (gemma_3_12B_it_fp4_mixed) on the same checkpoint, LTXVConditioning 24 fps, 1280x704 (its
#   720 on the latent node's multiple of 32) 121 frames (EmptyLTXVLatentVideo + LTXVEmptyLatentAudio ->
# LTXVConcatAVLatent), CFGGuider 4, euler_ancestral,
#   LTXVScheduler 20 (2.05 / 0.95, stretch, terminal 0.1), SamplerCustomAdvanced, LTXVSeparateAVLatent,
#   VAEDecodeTiled 512 / 64 / 4096 / 8, LTXVAudioVAEDecode, CreateVideo 24 fps with the audio, SaveVideo.
# - Flux.2-dev: image_flux2.json without its reference image (an edit template there; here text to image): UNETLoader
#   flux2_dev_fp8mixed, CLIPLoader mistral_3_small_flux2_bf16 (flux2), VAELoader flux2-vae, FluxGuidance 4,
#   BasicGuider, euler, Flux2Scheduler 20 at 1248x832, EmptyFlux2LatentImage 1248x832, SamplerCustomAdvanced,
#   VAEDecode, SaveImage (turbo mode off).
# - Kandinsky 5: video_kandinsky5_t2v.json: UNETLoader kandinsky5lite_t2v_sft_5s, DualCLIPLoader
#   qwen_2.5_vl_7b_fp8_scaled + clip_l (kandinsky5), VAELoader hunyuan_video_vae_bf16, ModelSamplingSD3 5,
#   Kandinsky5ImageToVideo 768x512 121 frames, KSampler 50 steps CFG 5 euler_ancestral / beta, VAEDecode,
#   CreateVideo 24, SaveVideo.
H3_FILES = ["minimax_h3_fl2va_pruned_int8_convrot.safetensors", "qwen3vl_32b_minimax_h3_nvfp4_awq.safetensors",
            "minimax_h3_video_vae_fp16.safetensors", "minimax_h3_audio_vae_fp32.safetensors"]
H3_TURBO_LORA = "minimax_h3_fl2v_turbo_4step_v1.0_768p_comfyui_bf16.safetensors"
H3_PROMPT = (
    "A red fox trots through fresh snow in a birch forest at sunrise, soft golden light, its breath visible in the "
    "cold air; the camera tracks alongside at low height, then the fox stops and looks up as a raven calls.\n\n"
    "Audio: crunching footsteps in the snow, a light wind in the branches, a raven's call midway, a calm piano "
    "melody underneath, fading out over the last second.")
_H3_BODY = """
**Accel MiniMax-H3 Level-1** = the fastest attention kernel for this GPU + torch.compile of every block (video and
audio run through the same blocks) + TF32, for this model only; not bit-identical to stock (other kernels round
differently; the report states what is measured). The graph is ComfyUI's MiniMax-H3 template: 1344x768, five seconds (124
frames) at 24 fps with stereo audio, res_multistep, no CFG. The first run compiles twice (the first step, then the
others). Where it was measured on this model and what it gave: Level-1's report (its `family:` line) and the
pack's docs/nodes.md, "Model families". ComfyUI 0.33 or newer (MiniMax-H3's nodes). Its template loads the INT8 (convrot) file: Level-1 compiles its
blocks with the file's quantized layers (on such layers the report says how they run)."""  # noqa: E501


def _h3(f: Flow, steps: int, lora: bool) -> None:
    unet = _unet(f, "Load MiniMax-H3", H3_FILES[0])
    model = [unet]
    if lora:
        model.append(f.add("LoraLoaderModelOnly", "MiniMax-H3 turbo LoRA (4 steps)", model=f.out(unet),
                           lora_name=H3_TURBO_LORA, strength_model=1.0))
    clip = f.add("CLIPLoader", "Load Qwen3-VL text encoder", clip_name=H3_FILES[1], type="minimax")
    vae = f.add("VAELoader", "Load MiniMax-H3 video VAE", vae_name=H3_FILES[2])
    avae = f.add("VAELoader", "Load MiniMax-H3 audio VAE", vae_name=H3_FILES[3])
    cond = f.add("MiniMaxH3ImageToVideo", "Prompt, size, length (1344x768, 124 frames: five seconds)", clip=f.out(clip),
                 vae=f.out(vae), prompt=H3_PROMPT, width=1344, height=768, length=124)
    f.colors[cond] = POS_COLOR
    [l1] = _chain(f, f.out(model[-1]), ["AccelMiniMaxH3Level1"])
    noise = f.add("RandomNoise", "Random Noise", noise_seed=42)
    guider = f.add("BasicGuider", "Guider (no CFG)", model=f.out(l1), conditioning=f.out(cond, 0))
    sampler = f.add("KSamplerSelect", "Sampler (res_multistep)", sampler_name="res_multistep")
    sigmas = f.add("BasicScheduler", f"Scheduler (simple, {steps} steps)", model=f.out(model[-1]), scheduler="simple",
                   steps=steps, denoise=1.0)
    sca = f.add("SamplerCustomAdvanced", "Sampler Custom Advanced", noise=f.out(noise), guider=f.out(guider),
                sampler=f.out(sampler), sigmas=f.out(sigmas), latent_image=f.out(cond, 1))
    sep = f.add("LTXVSeparateAVLatent", "Split video and audio", av_latent=f.out(sca))
    dec = f.add("VAEDecode", "VAE Decode (video)", samples=f.out(sep, 0), vae=f.out(vae))
    adec = f.add("VAEDecodeAudio", "VAE Decode (audio)", samples=f.out(sep, 1), vae=f.out(avae))
    vid = f.add("CreateVideo", "Create Video (24 fps, with audio)", images=f.out(dec), audio=f.out(adec), fps=24)
    save = f.add("SaveVideo", "Save Video", video=f.out(vid), filename_prefix=f"video/{f.name}", format="auto",
                 codec="auto")
    f.outputs = {"sampler": sca, "save": save}
    turbo = ("\n\n**Turbo (4 steps):** the template's turbo mode with its 4-step LoRA (LoraLoaderModelOnly, strength "
             "1) and 4 steps; Level-1 compiles the blocks with the LoRA applied (a strength change recompiles "
             "nothing).") if lora else ""
    title = "MiniMax-H3, 4-step turbo LoRA + Level-1" if lora else "MiniMax-H3 text to video with audio + Level-1"
    n = _about(f, title, _H3_BODY + turbo, H3_FILES + ([H3_TURBO_LORA] if lora else []), size=(500, 420))
    f.column(("Read me", [n]))
    f.column(("1 · Models", [unet, clip, vae, avae]))
    f.column(("2 · Prompt, size and length", [cond]))
    f.column(("3 · Accelerate (comfyui-accel)", model[1:] + [l1]))
    f.column(("4 · Sample", [noise, sampler, sigmas, guider, sca]))
    f.column(("5 · Decode and save", [sep, dec, adec, vid, save]))
    f.group_colors["3 · Accelerate (comfyui-accel)"] = ACCEL_GROUP


def minimax_h3_t2va(info) -> Flow:
    f = Flow("minimax_h3_t2va_level1", info)
    _h3(f, 20, lora=False)
    return f


def minimax_h3_t2va_turbo(info) -> Flow:
    f = Flow("minimax_h3_t2va_turbo_4step_level1", info)
    _h3(f, 4, lora=True)
    return f


def _custom_sampler(f: Flow, guider: str, sigmas: str, latent: list, sampler: str) -> list[str]:
    """RandomNoise, KSamplerSelect and SamplerCustomAdvanced around a guider and sigmas: [noise, select, sampler]."""
    noise = f.add("RandomNoise", "Random Noise", noise_seed=42)
    select = f.add("KSamplerSelect", f"Sampler ({sampler})", sampler_name=sampler)
    sca = f.add("SamplerCustomAdvanced", "Sampler Custom Advanced", noise=f.out(noise), guider=f.out(guider),
                sampler=f.out(select), sigmas=f.out(sigmas), latent_image=latent)
    return [noise, select, sca]


def hunyuan_video15_t2v(info) -> Flow:
    f = Flow("hunyuan_video15_t2v_attention_compile", info)
    unet = _unet(f, "Load HunyuanVideo 1.5 T2V 720p", "hunyuanvideo1.5_720p_t2v_fp16.safetensors")
    clip = f.add("DualCLIPLoader", "Load Qwen2.5-VL + byT5", clip_name1="qwen_2.5_vl_7b_fp8_scaled.safetensors",
                 clip_name2="byt5_small_glyphxl_fp16.safetensors", type="hunyuan_video_15")
    vae = f.add("VAELoader", "Load HunyuanVideo 1.5 VAE", vae_name="hunyuanvideo15_vae_fp16.safetensors")
    pos, neg = _prompts(f, f.out(clip), WAN_POSITIVE, "")
    lat = f.add("EmptyHunyuanVideo15Latent", "Video size (848x480, 121 frames)", width=848, height=480, length=121,
                batch_size=1)
    shift = f.add("ModelSamplingSD3", "Shift 7", model=f.out(unet), shift=7.0)
    chain = _chain(f, f.out(shift), SHIPPED_CHAIN)
    guider = f.add("CFGGuider", "Guider (CFG 6)", model=f.out(chain[-1]), positive=f.out(pos), negative=f.out(neg),
                   cfg=6.0)
    sigmas = f.add("BasicScheduler", "Scheduler (simple, 20 steps)", model=f.out(unet), scheduler="simple", steps=20,
                   denoise=1.0)
    sample = _custom_sampler(f, guider, sigmas, f.out(lat), "euler")
    outs = _video_out(f, f.out(sample[-1]), f.out(vae), "video/hunyuan_video15_accel", fps=24)
    f.outputs = {"sampler": sample[-1], "save": outs[-1]}
    n = _about(f, "HunyuanVideo 1.5 T2V + CUDA settings, attention, compile", _FAMILY_BODY.format(
        model="HunyuanVideo 1.5") + """

The graph is ComfyUI's HunyuanVideo 1.5 720p T2V template: 848x480, 121 frames, CFG 6, shift 7, 20 steps euler.""",
               ["hunyuanvideo1.5_720p_t2v_fp16.safetensors", "qwen_2.5_vl_7b_fp8_scaled.safetensors",
                "byt5_small_glyphxl_fp16.safetensors", "hunyuanvideo15_vae_fp16.safetensors"], size=(480, 320))
    _layout(f, n, [unet, clip, vae], [pos, neg], [lat], [shift, *chain], [sigmas, guider, *sample], outs)
    return f


def ltx2_t2v(info) -> Flow:
    f = Flow("ltx2_t2v_attention_compile", info)
    ckpt_name = "ltx-2-19b-dev-fp8.safetensors"
    ckpt = f.add("CheckpointLoaderSimple", "Load LTX-2 19B (model + video VAE)", ckpt_name=ckpt_name)
    avae = f.add("LTXVAudioVAELoader", "Load LTX-2 audio VAE", ckpt_name=ckpt_name)
    clip = f.add("LTXAVTextEncoderLoader", "Load Gemma 3 text encoder",
                 text_encoder="gemma_3_12B_it_fp4_mixed.safetensors", ckpt_name=ckpt_name)
    pos, neg = _prompts(f, f.out(clip), LTXV_POSITIVE, LTXV_NEGATIVE)
    cond = f.add("LTXVConditioning", "LTXV Conditioning (24 fps)", positive=f.out(pos), negative=f.out(neg),
                 frame_rate=24.0)
    vlat = f.add("EmptyLTXVLatentVideo", "Video size (1280x704, 121 frames)", width=1280, height=704, length=121,
                 batch_size=1)
    alat = f.add("LTXVEmptyLatentAudio", "Audio length (121 frames at 24 fps)", frames_number=121, frame_rate=24.0,
                 batch_size=1, audio_vae=f.out(avae))
    lat = f.add("LTXVConcatAVLatent", "Video + audio latent", video_latent=f.out(vlat), audio_latent=f.out(alat))
    chain = _chain(f, f.out(ckpt), SHIPPED_CHAIN)
    guider = f.add("CFGGuider", "Guider (CFG 4)", model=f.out(chain[-1]), positive=f.out(cond, 0),
                   negative=f.out(cond, 1), cfg=4.0)
    sigmas = f.add("LTXVScheduler", "LTXV Scheduler (20 steps)", steps=20, max_shift=2.05, base_shift=0.95,
                   stretch=True, terminal=0.1, latent=f.out(lat))
    sample = _custom_sampler(f, guider, sigmas, f.out(lat), "euler_ancestral")
    sep = f.add("LTXVSeparateAVLatent", "Split video and audio", av_latent=f.out(sample[-1]))
    dec = f.add("VAEDecodeTiled", "VAE Decode (tiled)", samples=f.out(sep, 0), vae=f.out(ckpt, 2), tile_size=512,
                overlap=64, temporal_size=4096, temporal_overlap=8)
    adec = f.add("LTXVAudioVAEDecode", "Audio VAE Decode", samples=f.out(sep, 1), audio_vae=f.out(avae))
    vid = f.add("CreateVideo", "Create Video (24 fps, with audio)", images=f.out(dec), audio=f.out(adec), fps=24)
    save = f.add("SaveVideo", "Save Video", video=f.out(vid), filename_prefix="video/ltx2_accel", format="auto",
                 codec="auto")
    f.outputs = {"sampler": sample[-1], "save": save}
    n = _about(f, "LTX-2 T2V with audio + CUDA settings, attention, compile", _FAMILY_BODY.format(model="LTX-2") + """

The graph is the first stage of ComfyUI's LTX-2 T2V template at its output size: 1280x720 (704: the latent node's
multiple of 32), 121 frames at 24 fps with audio, LTXVScheduler 20 steps, euler_ancestral, CFG 4 (the template
then upscales a half-size result to full size with its distilled LoRA). ComfyUI 0.33 or newer (LTX-2's nodes).""",
               [ckpt_name, "gemma_3_12B_it_fp4_mixed.safetensors"], size=(480, 340))
    _layout(f, n, [ckpt, avae, clip], [pos, neg, cond], [vlat, alat, lat], chain, [sigmas, guider, *sample],
            [sep, dec, adec, vid, save])
    return f


def flux2_dev(info) -> Flow:
    f = Flow("flux2_dev_attention_compile", info)
    unet = _unet(f, "Load Flux.2-dev", "flux2_dev_fp8mixed.safetensors")
    clip = f.add("CLIPLoader", "Load Mistral 3 text encoder", clip_name="mistral_3_small_flux2_bf16.safetensors",
                 type="flux2")
    vae = f.add("VAELoader", "Load Flux.2 VAE", vae_name="flux2-vae.safetensors")
    pos = f.add("CLIPTextEncode", "Prompt", text=IMAGE_POSITIVE, clip=f.out(clip))
    guid = f.add("FluxGuidance", "Guidance 4", conditioning=f.out(pos), guidance=4.0)
    f.colors[pos] = POS_COLOR
    lat = f.add("EmptyFlux2LatentImage", "Image size (1248x832)", width=1248, height=832, batch_size=1)
    chain = _chain(f, f.out(unet), SHIPPED_CHAIN, values=RESIDENT_VALUES)
    guider = f.add("BasicGuider", "Guider", model=f.out(chain[-1]), conditioning=f.out(guid))
    sigmas = f.add("Flux2Scheduler", "Flux.2 Scheduler (20 steps)", steps=20, width=1248, height=832)
    sample = _custom_sampler(f, guider, sigmas, f.out(lat), "euler")
    outs = _image_out(f, f.out(sample[-1]), f.out(vae), "flux2_accel")
    f.outputs = {"sampler": sample[-1], "save": outs[-1]}
    n = _about(f, "Flux.2-dev + CUDA settings, attention, compile", _FAMILY_BODY.format(model="Flux.2").replace(
        "the video differs", "the image differs") + """

Accel Compile's `resident_weights` is on here: where the model fits the card, ComfyUI loads it resident instead of
fetching each block's weights at every step (same output; where it does not fit the card it keeps streaming, and
the report's first line says which).

The graph is ComfyUI's Flux.2 template without its reference image (text to image): 1248x832, guidance 4, 20 steps
euler, Flux2Scheduler.""",
               ["flux2_dev_fp8mixed.safetensors", "mistral_3_small_flux2_bf16.safetensors", "flux2-vae.safetensors"],
               size=(480, 300))
    _layout(f, n, [unet, clip, vae], [pos, guid], [lat], chain, [sigmas, guider, *sample], outs)
    return f


def kandinsky5_t2v(info) -> Flow:
    f = Flow("kandinsky5_t2v_attention_compile", info)
    unet = _unet(f, "Load Kandinsky 5 Video Lite", "kandinsky5lite_t2v_sft_5s.safetensors")
    clip = f.add("DualCLIPLoader", "Load Qwen2.5-VL + CLIP-L", clip_name1="qwen_2.5_vl_7b_fp8_scaled.safetensors",
                 clip_name2="clip_l.safetensors", type="kandinsky5")
    vae = f.add("VAELoader", "Load HunyuanVideo VAE", vae_name="hunyuan_video_vae_bf16.safetensors")
    pos, neg = _prompts(f, f.out(clip), WAN_POSITIVE, "")
    i2v = f.add("Kandinsky5ImageToVideo", "Video size (768x512, 121 frames)", positive=f.out(pos), negative=f.out(neg),
                vae=f.out(vae), width=768, height=512, length=121, batch_size=1)
    shift = f.add("ModelSamplingSD3", "Shift 5", model=f.out(unet), shift=5.0)
    chain = _chain(f, f.out(shift), SHIPPED_CHAIN)
    ks = f.add("KSampler", None, model=f.out(chain[-1]), seed=42, steps=50, cfg=5.0, sampler_name="euler_ancestral",
               scheduler="beta", positive=f.out(i2v, 0), negative=f.out(i2v, 1), latent_image=f.out(i2v, 2),
               denoise=1.0)
    outs = _video_out(f, f.out(ks), f.out(vae), "video/kandinsky5_accel", fps=24)
    f.outputs = {"sampler": ks, "save": outs[-1]}
    n = _about(f, "Kandinsky 5 Video Lite T2V + CUDA settings, attention, compile", _FAMILY_BODY.format(
        model="Kandinsky 5") + """

The graph is ComfyUI's Kandinsky 5 T2V template: 768x512, 121 frames, 50 steps euler_ancestral / beta, CFG 5,
shift 5. ComfyUI 0.33 or newer (Kandinsky 5's nodes).""",
               ["kandinsky5lite_t2v_sft_5s.safetensors", "qwen_2.5_vl_7b_fp8_scaled.safetensors", "clip_l.safetensors",
                "hunyuan_video_vae_bf16.safetensors"], size=(480, 320))
    _layout(f, n, [unet, clip, vae], [pos, neg], [i2v], [shift, *chain], [ks], outs)
    return f


def hardware_report(info) -> Flow:
    """What the pack detected and what `auto` picks here; no model. Beside it the test-only random conditioning that
    the demo and the tests sample with, so that the frontend tests see every kind of widget the pack's nodes have."""
    f = Flow("hardware_report", info)
    report = f.add("AccelHardwareReport", "Accel Hardware Report", refresh=False)
    cond = f.add("AccelRandomConditioning", "Accel Random Conditioning (test only)", seed=0, tokens=16, dim=4096,
                 scale=1.0)
    f.outputs = {"report": report}
    f.column(("Accel Hardware Report: queue it to see what the pack detected", [report, cond]))
    f.group_colors["Accel Hardware Report: queue it to see what the pack detected"] = ACCEL_GROUP
    return f


# Workflows that load no model and save nothing (tools); the others are the model workflows users run.
TOOLS = ("hardware_report",)

WORKFLOWS = {
    "hardware_report": hardware_report,
    "wan2.1_t2v_1.3B_level1": wan21_t2v_1_3b_level1,
    "wan2.1_t2v_14B_attention_compile_teacache": wan21_t2v_14b,
    "wan2.1_i2v_480p_level1_teacache": wan21_i2v_480p,
    "wan2.2_t2v_A14B_attention_compile_teacache": wan22_a14b,
    "flux1_dev_fp8_teacache": flux_dev_fp8,
    "qwen_image_attention_compile": qwen_image,
    "wan2.1_t2v_1.3B_before_after": wan21_before_after,
    "wan2.2_t2v_A14B_lightx2v_4step_level1": wan22_a14b_t2v_4step,
    "wan2.2_i2v_A14B_lightx2v_4step_level1": wan22_a14b_i2v_4step,
    "wan2.2_t2v_A14B_lightx2v_4step_720p_sparse": wan22_a14b_t2v_4step_720p_sparse,
    "wan2.2_ti2v_5B_level1": wan22_ti2v_5b,
    "hunyuan_video_t2v_attention_compile": hunyuan_video_t2v,
    "ltxv_t2v_attention_compile": ltxv_t2v,
    "minimax_h3_t2va_level1": minimax_h3_t2va,
    "minimax_h3_t2va_turbo_4step_level1": minimax_h3_t2va_turbo,
    "hunyuan_video15_t2v_attention_compile": hunyuan_video15_t2v,
    "ltx2_t2v_attention_compile": ltx2_t2v,
    "flux2_dev_attention_compile": flux2_dev,
    "kandinsky5_t2v_attention_compile": kandinsky5_t2v,
    "z_image_turbo_attention_compile": z_image_turbo,
    "sdxl_base_refiner_attention_compile": sdxl_base_refiner,
    "flux1_kontext_dev_attention_compile": flux_kontext_dev,
    "qwen_image_edit_attention_compile": qwen_image_edit,
}
# The A14B LightX2V workflows with ComfyUI's own VAE Decode -> Create Video -> Save Video (not written to workflows/;
# bench_e2e.py's with_core_save builds the same graph from the shipped file for its stock and level1 variants).
CORE_SAVE_VARIANTS = {
    "wan2.2_t2v_A14B_lightx2v_4step_level1": lambda info: wan22_a14b_t2v_4step(info, save="core"),
    "wan2.2_i2v_A14B_lightx2v_4step_level1": lambda info: wan22_a14b_i2v_4step(info, save="core"),
}
