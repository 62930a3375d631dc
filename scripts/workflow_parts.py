"""The pieces the shipped workflows are built from: the model files with their download links (as in
ComfyUI's own templates), the prompts, the `Flow` builder and the building blocks the definitions in
scripts/workflow_defs.py share. scripts/workflows.py generates the files."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))

from accel_harness import uiformat as U  # noqa: E402
from accel_harness.workflow import ApiGraph  # noqa: E402

_HF = "https://huggingface.co"
_WAN21 = f"{_HF}/Comfy-Org/Wan_2.1_ComfyUI_repackaged/resolve/main/split_files"
_WAN22 = f"{_HF}/Comfy-Org/Wan_2.2_ComfyUI_Repackaged/resolve/main/split_files"
_QWEN = f"{_HF}/Comfy-Org/Qwen-Image_ComfyUI/resolve/main/split_files"
_HUNYUAN = f"{_HF}/Comfy-Org/HunyuanVideo_repackaged/resolve/main/split_files"
_ZIMAGE = f"{_HF}/Comfy-Org/z_image_turbo/resolve/main/split_files"
_SDXL = f"{_HF}/stabilityai"
_H3 = f"{_HF}/Comfy-Org/MiniMax-H3/resolve/main"
_HV15 = f"{_HF}/Comfy-Org/HunyuanVideo_1.5_repackaged/resolve/main/split_files"
_FLUX2 = f"{_HF}/Comfy-Org/flux2-dev/resolve/main/split_files"
# file name -> (models/ folder, download link), as in ComfyUI's own templates.
MODELS = {
    "wan2.1_t2v_1.3B_fp16.safetensors": ("diffusion_models",
                                         f"{_WAN21}/diffusion_models/wan2.1_t2v_1.3B_fp16.safetensors"),
    "wan2.1_t2v_14B_fp16.safetensors": ("diffusion_models",
                                        f"{_WAN21}/diffusion_models/wan2.1_t2v_14B_fp16.safetensors"),
    "wan2.1_i2v_480p_14B_fp16.safetensors": ("diffusion_models",
                                             f"{_WAN21}/diffusion_models/wan2.1_i2v_480p_14B_fp16.safetensors"),
    "wan2.2_t2v_high_noise_14B_fp8_scaled.safetensors": (
        "diffusion_models", f"{_WAN22}/diffusion_models/wan2.2_t2v_high_noise_14B_fp8_scaled.safetensors"),
    "wan2.2_t2v_low_noise_14B_fp8_scaled.safetensors": (
        "diffusion_models", f"{_WAN22}/diffusion_models/wan2.2_t2v_low_noise_14B_fp8_scaled.safetensors"),
    "wan2.2_i2v_high_noise_14B_fp8_scaled.safetensors": (
        "diffusion_models", f"{_WAN22}/diffusion_models/wan2.2_i2v_high_noise_14B_fp8_scaled.safetensors"),
    "wan2.2_i2v_low_noise_14B_fp8_scaled.safetensors": (
        "diffusion_models", f"{_WAN22}/diffusion_models/wan2.2_i2v_low_noise_14B_fp8_scaled.safetensors"),
    "wan2.2_ti2v_5B_fp16.safetensors": ("diffusion_models",
                                        f"{_WAN22}/diffusion_models/wan2.2_ti2v_5B_fp16.safetensors"),
    "wan2.2_vae.safetensors": ("vae", f"{_WAN22}/vae/wan2.2_vae.safetensors"),
    # LightX2V's 4-step distill LoRAs (rank 64) as Comfy-Org repackaged them for ComfyUI's Wan 2.2 templates
    # (renamed from LightX2V's Seko V1 / V1.1 files)
    **{f"wan2.2_{k}_lightx2v_4steps_lora_{v}_{e}_noise.safetensors": (
        "loras", f"{_WAN22}/loras/wan2.2_{k}_lightx2v_4steps_lora_{v}_{e}_noise.safetensors")
       for k, v in (("t2v", "v1.1"), ("i2v", "v1")) for e in ("high", "low")},
    "umt5_xxl_fp8_e4m3fn_scaled.safetensors": ("text_encoders",
                                               f"{_WAN21}/text_encoders/umt5_xxl_fp8_e4m3fn_scaled.safetensors"),
    "wan_2.1_vae.safetensors": ("vae", f"{_WAN21}/vae/wan_2.1_vae.safetensors"),
    "clip_vision_h.safetensors": ("clip_vision", f"{_WAN21}/clip_vision/clip_vision_h.safetensors"),
    "flux1-dev.safetensors": ("diffusion_models", f"{_HF}/Comfy-Org/flux1-dev/resolve/main/flux1-dev.safetensors"),
    "clip_l.safetensors": ("text_encoders", f"{_HF}/comfyanonymous/flux_text_encoders/resolve/main/clip_l.safetensors"),
    "t5xxl_fp16.safetensors": ("text_encoders",
                               f"{_HF}/comfyanonymous/flux_text_encoders/resolve/main/t5xxl_fp16.safetensors"),
    "ae.safetensors": ("vae",
                       f"{_HF}/Comfy-Org/Lumina_Image_2.0_Repackaged/resolve/main/split_files/vae/ae.safetensors"),
    "qwen_image_fp8_e4m3fn.safetensors": ("diffusion_models",
                                          f"{_QWEN}/diffusion_models/qwen_image_fp8_e4m3fn.safetensors"),
    "qwen_2.5_vl_7b_fp8_scaled.safetensors": ("text_encoders",
                                              f"{_QWEN}/text_encoders/qwen_2.5_vl_7b_fp8_scaled.safetensors"),
    "qwen_image_vae.safetensors": ("vae", f"{_QWEN}/vae/qwen_image_vae.safetensors"),
    # HunyuanVideo T2V as ComfyUI's example and docs link it (Comfy-Org/HunyuanVideo_repackaged); clip_l above
    "hunyuan_video_t2v_720p_bf16.safetensors": (
        "diffusion_models", f"{_HUNYUAN}/diffusion_models/hunyuan_video_t2v_720p_bf16.safetensors"),
    "llava_llama3_fp8_scaled.safetensors": ("text_encoders",
                                            f"{_HUNYUAN}/text_encoders/llava_llama3_fp8_scaled.safetensors"),
    "hunyuan_video_vae_bf16.safetensors": ("vae", f"{_HUNYUAN}/vae/hunyuan_video_vae_bf16.safetensors"),
    # LTX-Video 0.9.5: a checkpoint with its VAE, as ComfyUI's example and docs (docs.comfy.org tutorials/video/ltxv)
    # load it; Comfy-Org has no repackaged copy, they link Lightricks' own file. Its text encoder: t5xxl_fp16 above.
    "ltx-video-2b-v0.9.5.safetensors": ("checkpoints",
                                        f"{_HF}/Lightricks/LTX-Video/resolve/main/ltx-video-2b-v0.9.5.safetensors"),
    # FLUX.1 Kontext dev as ComfyUI's template (flux_kontext_dev_basic) links it; its VAE is ae.safetensors above
    "flux1-dev-kontext_fp8_scaled.safetensors": (
        "diffusion_models",
        f"{_HF}/Comfy-Org/flux1-kontext-dev_ComfyUI/resolve/main/split_files/diffusion_models/"
        "flux1-dev-kontext_fp8_scaled.safetensors"),
    "t5xxl_fp8_e4m3fn_scaled.safetensors": (
        "text_encoders", f"{_HF}/comfyanonymous/flux_text_encoders/resolve/main/t5xxl_fp8_e4m3fn_scaled.safetensors"),
    # Qwen-Image-Edit as ComfyUI's template (image_qwen_image_edit) links it; text encoder and VAE: Qwen-Image's
    "qwen_image_edit_fp8_e4m3fn.safetensors": (
        "diffusion_models",
        f"{_HF}/Comfy-Org/Qwen-Image-Edit_ComfyUI/resolve/main/split_files/diffusion_models/"
        "qwen_image_edit_fp8_e4m3fn.safetensors"),
    # Z-Image Turbo as ComfyUI's template (image_z_image_turbo) links it; its VAE is ae.safetensors above
    "z_image_turbo_bf16.safetensors": ("diffusion_models",
                                       f"{_ZIMAGE}/diffusion_models/z_image_turbo_bf16.safetensors"),
    "qwen_3_4b.safetensors": ("text_encoders", f"{_ZIMAGE}/text_encoders/qwen_3_4b.safetensors"),
    # SDXL 1.0 base and refiner checkpoints (model + CLIP + VAE), as ComfyUI's SDXL template (sdxl_simple_example)
    "sd_xl_base_1.0.safetensors": (
        "checkpoints", f"{_SDXL}/stable-diffusion-xl-base-1.0/resolve/main/sd_xl_base_1.0.safetensors"),
    "sd_xl_refiner_1.0.safetensors": (
        "checkpoints", f"{_SDXL}/stable-diffusion-xl-refiner-1.0/resolve/main/sd_xl_refiner_1.0.safetensors"),
    # ComfyUI 0.33's newer families, as their templates (Comfy-Org/workflow_templates) name and link them:
    # MiniMax-H3 (video_minimax_h3_t2v.json: Comfy-Org/MiniMax-H3; the turbo LoRAs there and at lightx2v)
    "minimax_h3_fl2va_pruned_int8_convrot.safetensors": (
        "diffusion_models", f"{_H3}/diffusion_models/minimax_h3_fl2va_pruned_int8_convrot.safetensors"),
    "qwen3vl_32b_minimax_h3_nvfp4_awq.safetensors": (
        "text_encoders", f"{_H3}/text_encoders/qwen3vl_32b_minimax_h3_nvfp4_awq.safetensors"),
    "minimax_h3_video_vae_fp16.safetensors": ("vae", f"{_H3}/vae/minimax_h3_video_vae_fp16.safetensors"),
    "minimax_h3_audio_vae_fp32.safetensors": ("vae", f"{_H3}/vae/minimax_h3_audio_vae_fp32.safetensors"),
    "minimax_h3_fl2v_turbo_4step_v1.0_768p_comfyui_bf16.safetensors": (
        "loras", f"{_H3}/loras/minimax_h3_fl2v_turbo_4step_v1.0_768p_comfyui_bf16.safetensors"),
    # HunyuanVideo 1.5 (video_hunyuan_video_1.5_720p_t2v.json; its Qwen2.5-VL text encoder: the file above)
    "hunyuanvideo1.5_720p_t2v_fp16.safetensors": (
        "diffusion_models", f"{_HV15}/diffusion_models/hunyuanvideo1.5_720p_t2v_fp16.safetensors"),
    "byt5_small_glyphxl_fp16.safetensors": ("text_encoders",
                                            f"{_HV15}/text_encoders/byt5_small_glyphxl_fp16.safetensors"),
    "hunyuanvideo15_vae_fp16.safetensors": ("vae", f"{_HV15}/vae/hunyuanvideo15_vae_fp16.safetensors"),
    # LTX-2 (video_ltx2_t2v.json: Lightricks' checkpoint with its video and audio VAEs, Comfy-Org's Gemma 3)
    "ltx-2-19b-dev-fp8.safetensors": ("checkpoints",
                                      f"{_HF}/Lightricks/LTX-2/resolve/main/ltx-2-19b-dev-fp8.safetensors"),
    "gemma_3_12B_it_fp4_mixed.safetensors": (
        "text_encoders",
        f"{_HF}/Comfy-Org/ltx-2/resolve/main/split_files/text_encoders/gemma_3_12B_it_fp4_mixed.safetensors"),
    # Flux.2-dev (image_flux2.json)
    "flux2_dev_fp8mixed.safetensors": ("diffusion_models", f"{_FLUX2}/diffusion_models/flux2_dev_fp8mixed.safetensors"),
    "mistral_3_small_flux2_bf16.safetensors": ("text_encoders",
                                               f"{_FLUX2}/text_encoders/mistral_3_small_flux2_bf16.safetensors"),
    "flux2-vae.safetensors": ("vae", f"{_FLUX2}/vae/flux2-vae.safetensors"),
    # Kandinsky 5 Video Lite (video_kandinsky5_t2v.json; its text encoders and VAE: the files above)
    "kandinsky5lite_t2v_sft_5s.safetensors": (
        "diffusion_models",
        f"{_HF}/kandinskylab/Kandinsky-5.0-T2V-Lite-sft-5s/resolve/main/model/kandinsky5lite_t2v_sft_5s.safetensors"),
}
# The loader inputs that name model files.
MODEL_INPUTS = {"UNETLoader": ("unet_name",), "CheckpointLoaderSimple": ("ckpt_name",),
                "AccelLoadDiffusionModelFP8": ("unet_name",), "CLIPLoader": ("clip_name",),
                "DualCLIPLoader": ("clip_name1", "clip_name2"), "VAELoader": ("vae_name",),
                "CLIPVisionLoader": ("clip_name",), "LoraLoaderModelOnly": ("lora_name",),
                "LTXAVTextEncoderLoader": ("text_encoder", "ckpt_name"), "LTXVAudioVAELoader": ("ckpt_name",)}
INPUT_IMAGE = "example.png"  # ships in ComfyUI/input/

WAN_POSITIVE = ("A red fox trotting through fresh snow in a birch forest at sunrise, soft golden light, breath "
                "visible in the cold air, the camera tracking alongside at low height, cinematic, detailed fur.")
# Wan's recommended negative prompt (as in ComfyUI's Wan templates).
WAN_NEGATIVE = ("色调艳丽，过曝，静态，细节模糊不清，字幕，风格，作品，画作，画面，静止，整体发灰，"
                "最差质量，低质量，JPEG压缩残留，丑陋的，残缺的，多余的手指，画得不好的手部，画得不好的脸部，"
                "畸形的，毁容的，形态畸形的肢体，手指融合，静止不动的画面，杂乱的背景，三条腿，背景人很多，倒着走")
IMAGE_POSITIVE = ("A cozy bookshop café on a rainy evening, warm lamps, a cat asleep on a stack of old books, a "
                  "chalkboard sign reading \"OPEN LATE\", steam rising from a cup of tea, photorealistic.")
IMAGE_NEGATIVE = "low quality, blurry, distorted text, extra limbs"

POS_COLOR, NEG_COLOR = ("#232", "#353"), ("#322", "#533")
ACCEL_GROUP = "#8A8"  # the groups with comfyui-accel nodes


class MissingNode(Exception):
    """A workflow names a node this ComfyUI does not have (e.g. MiniMax-H3's, ComfyUI 0.33+): it cannot be built or
    checked here."""

    def __init__(self, node: str):
        super().__init__(node)
        self.node = node


@dataclass
class Flow:
    """One workflow: the API prompt (ApiGraph) plus what only the UI file has (layout, notes, colors)."""

    name: str
    info: dict
    g: ApiGraph = field(default_factory=ApiGraph)
    columns: list = field(default_factory=list)   # [[(group title or None, [node ids / note keys], "column"|"row")]]
    notes: dict = field(default_factory=dict)     # note key -> (title, markdown, (w, h))
    colors: dict = field(default_factory=dict)    # node id -> (color, bgcolor)
    group_colors: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)   # role -> node id (for tests: samplers, saves)

    def add(self, class_type: str, title: str | None = None, **inputs) -> str:
        """Add a node with every widget filled (given value, else the node's default) and the given links.
        MissingNode where this ComfyUI lacks the node (a workflow for a newer ComfyUI's model)."""
        if class_type not in self.info:
            raise MissingNode(class_type)
        return self.g.add(class_type, title, **U.full_inputs(self.info, class_type, **inputs))

    out = staticmethod(ApiGraph.out)

    def note(self, key: str, title: str, text: str, size=(460, 240)) -> str:
        self.notes[key] = (title, text.strip(), size)
        return f"note:{key}"

    def column(self, *groups) -> None:
        """One column of the layout: groups (title, [ids], direction="column") stacked top to bottom."""
        self.columns.append([(g[0], g[1], g[2] if len(g) > 2 else "column") for g in groups])

    def api(self) -> dict:
        """The API prompt as "Save (API)" writes it: inputs, class_type, _meta.title (display name by default)."""
        out = {}
        for nid, n in self.g.prompt().items():
            title = ((n.get("_meta") or {}).get("title") or self.info[n["class_type"]].get("display_name")
                     or n["class_type"])
            out[nid] = {"inputs": n["inputs"], "class_type": n["class_type"], "_meta": {"title": title}}
        return out


# ------------------------------------------------------------------------------------------ shared pieces

_UMT5 = "umt5_xxl_fp8_e4m3fn_scaled.safetensors"  # Wan's text encoder
_WAN_VAE = "wan_2.1_vae.safetensors"               # Wan's VAE (Wan 2.1 and the Wan 2.2 A14B experts)
# Widget values the workflows give accel nodes (others keep the node's default); see _chain.
_ACCEL_VALUES = {"AccelAttention": {"backend": "auto"}, "AccelTeaCache": {"coefficients": "auto"}}
_ACCEL = "4 · Accelerate (comfyui-accel)"  # the accel group of _layout
_ACCEL_TIPS = ("The first run compiles (a minute or more; cached on disk for restarts). Each accel node shows a "
               "report under it: what it applied and why. Remove the accel nodes to get stock ComfyUI.")


def _unet(f: Flow, title: str, unet_name: str) -> str:
    return f.add("UNETLoader", title, unet_name=unet_name, weight_dtype="default")


def _wan_encoders(f: Flow) -> tuple[str, str]:
    """Wan's umT5 text encoder and VAE loaders."""
    clip = f.add("CLIPLoader", "Load umT5 text encoder", clip_name=_UMT5, type="wan")
    vae = f.add("VAELoader", "Load Wan VAE", vae_name=_WAN_VAE)
    return clip, vae


def _prompts(f: Flow, clip: list, positive: str = WAN_POSITIVE, negative: str = WAN_NEGATIVE) -> tuple[str, str]:
    pos = f.add("CLIPTextEncode", "Positive prompt", text=positive, clip=clip)
    neg = f.add("CLIPTextEncode", "Negative prompt", text=negative, clip=clip)
    f.colors[pos], f.colors[neg] = POS_COLOR, NEG_COLOR
    return pos, neg


def _video_latent(f: Flow, frames: int, width: int = 832, height: int = 480) -> str:
    return f.add("EmptyHunyuanLatentVideo", f"Video size ({width}x{height}, {frames} frames)", width=width,
                 height=height, length=frames, batch_size=1)


def _shift8(f: Flow, model: list, title: str = "Shift 8") -> str:
    return f.add("ModelSamplingSD3", title, model=model, shift=8.0)


def _wan_t2v(f: Flow, unet_title: str, unet_name: str, frames: int) -> tuple[str, ...]:
    """The Wan 2.1 T2V front: (unet, clip, vae, pos, neg, lat, shift) = loaders, prompts, video size, shift 8."""
    unet = _unet(f, unet_title, unet_name)
    clip, vae = _wan_encoders(f)
    pos, neg = _prompts(f, f.out(clip))
    lat = _video_latent(f, frames)
    return unet, clip, vae, pos, neg, lat, _shift8(f, f.out(unet))


def _chain(f: Flow, model: list, class_types, tag: str | None = None, values: dict = _ACCEL_VALUES) -> list[str]:
    """Model-patching nodes in a row, each taking the previous one's MODEL, with `values`; titled
    "<display name> (<tag>)" when a tag is given."""
    ids = []
    for name in class_types:
        title = f"{f.info[name]['display_name']} ({tag})" if tag else None
        ids.append(f.add(name, title, model=model, **values.get(name, {})))
        model = f.out(ids[-1])
    return ids


def _ksampler(f: Flow, model: list, positive: list, negative: list, latent: list, steps: int, cfg: float,
              sampler: str, title: str | None = None) -> str:
    return f.add("KSampler", title, model=model, seed=42, steps=steps, cfg=cfg, sampler_name=sampler,
                 scheduler="simple", positive=positive, negative=negative, latent_image=latent, denoise=1.0)


def _video_out(f: Flow, latent: list, vae: list, prefix: str, suffix: str = "", fps: int = 16) -> list[str]:
    dec = f.add("VAEDecode", f"VAE Decode{suffix}", samples=latent, vae=vae)
    vid = f.add("CreateVideo", f"Create Video{suffix}", images=f.out(dec), fps=fps)
    save = f.add("SaveVideo", f"Save Video{suffix}", video=f.out(vid), filename_prefix=prefix, format="auto",
                 codec="auto")
    return [dec, vid, save]


def _accel_video_out(f: Flow, latent: list, vae: list, prefix: str, fps: int = 16,
                     cpu_preset: str = "medium") -> list[str]:
    """Accel Save Video in place of _video_out's three nodes: it decodes the latent and saves an MP4 as Save Video
    does (the CPU encoder at Save Video's CRF, x264's `cpu_preset`: medium is Save Video's; `auto` would take NVENC
    where it opens, another quality scale)."""
    return [f.add("AccelSaveVideo", "Decode and save (Accel Save Video)", samples=latent, vae=vae, fps=fps,
                  filename_prefix=prefix, format="auto", codec="auto", encoder="cpu", cpu_preset=cpu_preset)]


def _image_out(f: Flow, latent: list, vae: list, prefix: str) -> list[str]:
    dec = f.add("VAEDecode", None, samples=latent, vae=vae)
    save = f.add("SaveImage", None, images=f.out(dec), filename_prefix=prefix)
    return [dec, save]


def _files_note(files: list[str]) -> str:
    rows = "\n".join(f"- `models/{MODELS[x][0]}/` [{x}]({MODELS[x][1]})" for x in files)
    return f"**Model files** (the names ComfyUI's own templates use):\n{rows}"


def _about(f: Flow, title: str, body: str, files: list[str], tail: str = _ACCEL_TIPS, size=(460, 240)) -> str:
    """The "Read me" note: what the workflow does, the model files it needs (with links), then `tail`."""
    return f.note("about", title, "\n\n".join(x for x in (body.strip(), _files_note(files), tail) if x), size)


def _layout(f: Flow, note: str, models: list, prompt: list, size: list, accel: list, sample: list, save: list,
            accel_direction: str = "column", models_title: str = "1 · Models") -> None:
    """The usual columns: read me | models | prompt, size | accelerate | sample | decode and save."""
    f.column(("Read me", [note]))
    f.column((models_title, models))
    f.column(("2 · Prompt", prompt), ("3 · Size", size))
    f.column((_ACCEL, accel, accel_direction))
    f.column(("5 · Sample", sample))
    f.column(("6 · Decode and save", save))
    f.group_colors[_ACCEL] = ACCEL_GROUP


# ------------------------------------------------------------------------------------------ the workflows
