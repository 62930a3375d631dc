"""The shipped workflows, each defined ONCE here; writes workflows/<name>.json (UI) and workflows/api/<name>.json (API).

    .testbed/venv/bin/python scripts/workflows.py --write [NAME ...]   # regenerate (ComfyUI server + real frontend)
    .testbed/venv/bin/python scripts/workflows.py --check              # files current? (no browser; exit 1 if not)
    .testbed/venv/bin/python scripts/workflows.py --list

How one definition becomes two files:
1. A builder below composes the API prompt with `Flow.add(class_type, title, **inputs)`: every widget the
   node has (required and optional) comes from the given value or the node's declared default in
   /object_info, exactly what a fresh node in the UI would send. That prompt, with `_meta.title` on each
   node, is written as workflows/api/<name>.json (the "Save (API)" format).
2. --write opens the REAL ComfyUI frontend (headless Chromium, harness/accel_harness/browser.py) on a server
   with this checkout loaded, loads the prompt with the app's own API loader (app.loadApiJson), adds the
   notes, serializes the graph, then lays it out (columns of groups, left to right, from the builder's
   `columns`), adds model download links to the loaders and writes workflows/<name>.json. Before writing,
   it loads the result back and checks that the frontend's own graphToPrompt() gives the API prompt.
3. --check (and tests/test_workflows.py) rebuild each API prompt from the node specs of the ComfyUI in this
   process and compare it with workflows/api/<name>.json, and convert workflows/<name>.json back to API
   (accel_harness.uiformat.ui_to_api) and compare that too: editing one file without the other, or a node
   gaining an input, fails until the files are regenerated. The files are written with ComfyUI 0.3.75 (CI's);
   checked on a newer ComfyUI, inputs its core nodes gained that neither file has are taken at their defaults
   (as the frontend does) and printed as notes, so the same files serve both. Write them with the 0.3.75 test
   bed: files written on a newer ComfyUI carry its new inputs, which an older one rejects.

Model file names are those of ComfyUI's own workflow templates (Comfy-Org/workflow_templates), so the files
a user downloaded for the templates just work; loaders carry the templates' download links.
"""
from __future__ import annotations

import argparse
import json
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "harness"))

from accel_harness import uiformat as U  # noqa: E402
from accel_harness.demo import CHAIN_VALUES, DEFAULT_CHAIN  # noqa: E402
from accel_harness.workflow import ApiGraph  # noqa: E402

UI_DIR = REPO / "workflows"
API_DIR = REPO / "workflows" / "api"

_HF = "https://huggingface.co"
_WAN21 = f"{_HF}/Comfy-Org/Wan_2.1_ComfyUI_repackaged/resolve/main/split_files"
_WAN22 = f"{_HF}/Comfy-Org/Wan_2.2_ComfyUI_Repackaged/resolve/main/split_files"
_QWEN = f"{_HF}/Comfy-Org/Qwen-Image_ComfyUI/resolve/main/split_files"
# file name -> (models/ folder, download link), as in ComfyUI's own templates.
MODELS = {
    "wan2.1_t2v_1.3B_fp16.safetensors": ("diffusion_models", f"{_WAN21}/diffusion_models/wan2.1_t2v_1.3B_fp16.safetensors"),
    "wan2.1_t2v_14B_fp16.safetensors": ("diffusion_models", f"{_WAN21}/diffusion_models/wan2.1_t2v_14B_fp16.safetensors"),
    "wan2.1_i2v_480p_14B_fp16.safetensors": ("diffusion_models", f"{_WAN21}/diffusion_models/wan2.1_i2v_480p_14B_fp16.safetensors"),
    "wan2.2_t2v_high_noise_14B_fp8_scaled.safetensors": (
        "diffusion_models", f"{_WAN22}/diffusion_models/wan2.2_t2v_high_noise_14B_fp8_scaled.safetensors"),
    "wan2.2_t2v_low_noise_14B_fp8_scaled.safetensors": (
        "diffusion_models", f"{_WAN22}/diffusion_models/wan2.2_t2v_low_noise_14B_fp8_scaled.safetensors"),
    "wan2.2_i2v_high_noise_14B_fp8_scaled.safetensors": (
        "diffusion_models", f"{_WAN22}/diffusion_models/wan2.2_i2v_high_noise_14B_fp8_scaled.safetensors"),
    "wan2.2_i2v_low_noise_14B_fp8_scaled.safetensors": (
        "diffusion_models", f"{_WAN22}/diffusion_models/wan2.2_i2v_low_noise_14B_fp8_scaled.safetensors"),
    "wan2.2_ti2v_5B_fp16.safetensors": ("diffusion_models", f"{_WAN22}/diffusion_models/wan2.2_ti2v_5B_fp16.safetensors"),
    "wan2.2_vae.safetensors": ("vae", f"{_WAN22}/vae/wan2.2_vae.safetensors"),
    # LightX2V's 4-step distill LoRAs (rank 64) as Comfy-Org repackaged them for ComfyUI's Wan 2.2 templates
    # (renamed from LightX2V's Seko V1 / V1.1 files)
    **{f"wan2.2_{k}_lightx2v_4steps_lora_{v}_{e}_noise.safetensors": (
        "loras", f"{_WAN22}/loras/wan2.2_{k}_lightx2v_4steps_lora_{v}_{e}_noise.safetensors")
       for k, v in (("t2v", "v1.1"), ("i2v", "v1")) for e in ("high", "low")},
    "umt5_xxl_fp8_e4m3fn_scaled.safetensors": ("text_encoders", f"{_WAN21}/text_encoders/umt5_xxl_fp8_e4m3fn_scaled.safetensors"),
    "wan_2.1_vae.safetensors": ("vae", f"{_WAN21}/vae/wan_2.1_vae.safetensors"),
    "clip_vision_h.safetensors": ("clip_vision", f"{_WAN21}/clip_vision/clip_vision_h.safetensors"),
    "flux1-dev.safetensors": ("diffusion_models", f"{_HF}/Comfy-Org/flux1-dev/resolve/main/flux1-dev.safetensors"),
    "clip_l.safetensors": ("text_encoders", f"{_HF}/comfyanonymous/flux_text_encoders/resolve/main/clip_l.safetensors"),
    "t5xxl_fp16.safetensors": ("text_encoders", f"{_HF}/comfyanonymous/flux_text_encoders/resolve/main/t5xxl_fp16.safetensors"),
    "ae.safetensors": ("vae", f"{_HF}/Comfy-Org/Lumina_Image_2.0_Repackaged/resolve/main/split_files/vae/ae.safetensors"),
    "qwen_image_fp8_e4m3fn.safetensors": ("diffusion_models", f"{_QWEN}/diffusion_models/qwen_image_fp8_e4m3fn.safetensors"),
    "qwen_2.5_vl_7b_fp8_scaled.safetensors": ("text_encoders", f"{_QWEN}/text_encoders/qwen_2.5_vl_7b_fp8_scaled.safetensors"),
    "qwen_image_vae.safetensors": ("vae", f"{_QWEN}/vae/qwen_image_vae.safetensors"),
}
# The loader inputs that name model files.
MODEL_INPUTS = {"UNETLoader": ("unet_name",), "AccelLoadDiffusionModelFP8": ("unet_name",), "CLIPLoader": ("clip_name",),
                "DualCLIPLoader": ("clip_name1", "clip_name2"), "VAELoader": ("vae_name",),
                "CLIPVisionLoader": ("clip_name",), "LoraLoaderModelOnly": ("lora_name",)}
INPUT_IMAGE = "example.png"  # ships in ComfyUI/input/

WAN_POSITIVE = ("A red fox trotting through fresh snow in a birch forest at sunrise, soft golden light, breath "
                "visible in the cold air, the camera tracking alongside at low height, cinematic, detailed fur.")
# Wan's recommended negative prompt (as in ComfyUI's Wan templates).
WAN_NEGATIVE = ("色调艳丽，过曝，静态，细节模糊不清，字幕，风格，作品，画作，画面，静止，整体发灰，最差质量，低质量，JPEG压缩残留，丑陋的，"
                "残缺的，多余的手指，画得不好的手部，画得不好的脸部，畸形的，毁容的，形态畸形的肢体，手指融合，静止不动的画面，杂乱的背景，"
                "三条腿，背景人很多，倒着走")
IMAGE_POSITIVE = ("A cozy bookshop café on a rainy evening, warm lamps, a cat asleep on a stack of old books, a "
                  "chalkboard sign reading \"OPEN LATE\", steam rising from a cup of tea, photorealistic.")
IMAGE_NEGATIVE = "low quality, blurry, distorted text, extra limbs"

POS_COLOR, NEG_COLOR = ("#232", "#353"), ("#322", "#533")
ACCEL_GROUP = "#8A8"  # the groups with comfyui-accel nodes


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
        """Add a node with every widget filled (given value, else the node's default) and the given links."""
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
            title = (n.get("_meta") or {}).get("title") or self.info[n["class_type"]].get("display_name") or n["class_type"]
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


def _video_latent(f: Flow, frames: int) -> str:
    return f.add("EmptyHunyuanLatentVideo", f"Video size (832x480, {frames} frames)", width=832, height=480,
                 length=frames, batch_size=1)


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
    save = f.add("SaveVideo", f"Save Video{suffix}", video=f.out(vid), filename_prefix=prefix, format="auto", codec="auto")
    return [dec, vid, save]


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
    for t in ("4 · Accelerate the high-noise expert (comfyui-accel)", "5 · Accelerate the low-noise expert (comfyui-accel)"):
        f.group_colors[t] = ACCEL_GROUP
    return f


def flux_dev_fp8(info) -> Flow:
    f = Flow("flux1_dev_fp8_teacache", info)
    unet = f.add("AccelLoadDiffusionModelFP8", "Load FLUX.1-dev as FP8 (Accel)", unet_name="flux1-dev.safetensors")
    clip = f.add("DualCLIPLoader", "Load CLIP-L + T5-XXL", clip_name1="clip_l.safetensors", clip_name2="t5xxl_fp16.safetensors",
                 type="flux")
    vae = f.add("VAELoader", "Load FLUX VAE", vae_name="ae.safetensors")
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


def qwen_image(info) -> Flow:
    f = Flow("qwen_image_attention_compile", info)
    unet = _unet(f, "Load Qwen-Image", "qwen_image_fp8_e4m3fn.safetensors")
    clip = f.add("CLIPLoader", "Load Qwen2.5-VL text encoder", clip_name="qwen_2.5_vl_7b_fp8_scaled.safetensors",
                 type="qwen_image")
    vae = f.add("VAELoader", "Load Qwen-Image VAE", vae_name="qwen_image_vae.safetensors")
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
               ["qwen_image_fp8_e4m3fn.safetensors", "qwen_2.5_vl_7b_fp8_scaled.safetensors", "qwen_image_vae.safetensors"])
    _layout(f, n, [unet, clip, vae], [pos, neg], [lat], [shift, att, comp], [ks], outs)
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
    f.column(("7a · Decode and save (stock)", out_stock, "row"), ("7b · Decode and save (accelerated)", out_fast, "row"),
             ("8 · Compare", [diff]))
    f.group_colors["5 · Accelerate (comfyui-accel)"] = ACCEL_GROUP
    return f


# Wan 2.2 A14B with LightX2V's 4-step distill LoRAs (docs: huggingface.co/lightx2v/Wan2.2-Distill-Loras; the
# ComfyUI templates load Comfy-Org's repackaged copies): CFG 1, shift 5, 4 steps, steps 0-2 on the high-noise
# expert and 2-4 on the low-noise one (LightX2V switches experts at step 2 of its 4-step schedule).
FEWSTEP_STEPS, FEWSTEP_SPLIT, FEWSTEP_SHIFT = 4, 2, 5.0
_FEWSTEP_BODY = """
Wan 2.2 A14B with **LightX2V's 4-step distill LoRAs**: 4 steps instead of 20-40 and **CFG 1** (the LoRAs distil
the guidance in, so only the positive prompt runs; the negative prompt is ignored at CFG 1), **shift 5**,
euler / simple. The **high-noise expert** runs steps 0-2 and the **low-noise expert** steps 2-4, each with its
own LoRA (high / low) loaded by LoraLoaderModelOnly, then **Accel Wan Level-1** (fast attention + per-block
compile + TF32). Changing a LoRA strength recompiles nothing. (ComfyUI gives every `fp8_scaled` model its own
layer class, so the low-noise expert's blocks compile once more on the first run; with **Accel Load Diffusion
Model (FP8)** as the loaders, the second expert reuses the first one's compiled code.)

**Why no TeaCache / MagCache here:** a step cache saves time by skipping steps whose output changes little,
which needs many similar steps. With 4 steps every step changes the video a lot and each one is needed: a
skipped step costs visible quality and saves at most 1 of 4 model calls. The caches are for the 20-50 step
workflows.

Newer LightX2V LoRA versions (e.g. `*_lora_rank64_lightx2v_4step_1217`) are at
[lightx2v/Wan2.2-Distill-Loras](https://huggingface.co/lightx2v/Wan2.2-Distill-Loras); put one into models/loras
and pick it in the two LoRA nodes."""


def _fewstep_experts(f: Flow, kind: str, lora_version: str) -> dict:
    """Both A14B experts: UNETLoader -> LoraLoaderModelOnly (LightX2V 4-step) -> shift 5 -> Accel Wan Level-1."""
    out = {}
    for tag in ("high", "low"):
        unet = _unet(f, f"Load Wan 2.2 {kind.upper()} {tag}-noise expert", f"wan2.2_{kind}_{tag}_noise_14B_fp8_scaled.safetensors")
        lora = f.add("LoraLoaderModelOnly", f"LightX2V 4-step LoRA ({tag}-noise)", model=f.out(unet),
                     lora_name=f"wan2.2_{kind}_lightx2v_4steps_lora_{lora_version}_{tag}_noise.safetensors",
                     strength_model=1.0)
        shift = f.add("ModelSamplingSD3", f"Shift 5 ({tag}-noise)", model=f.out(lora), shift=FEWSTEP_SHIFT)
        [l1] = _chain(f, f.out(shift), ["AccelWanLevel1"], f"{tag}-noise")
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


def _fewstep_columns(f: Flow, note: str, models: list, inputs: list, experts: dict, samplers, outs) -> None:
    f.column(("Read me", [note]))
    f.column(("1 · Models", models))
    f.column(*inputs)
    titles = ("4 · High-noise expert: 4-step LoRA, shift 5, Level-1 (comfyui-accel)",
              "5 · Low-noise expert: 4-step LoRA, shift 5, Level-1 (comfyui-accel)")
    f.column((titles[0], experts["high"]["chain"], "row"), (titles[1], experts["low"]["chain"], "row"))
    f.column((f"6 · Sample ({FEWSTEP_STEPS} steps: {FEWSTEP_SPLIT} + {FEWSTEP_STEPS - FEWSTEP_SPLIT}, CFG 1)", list(samplers)))
    f.column(("7 · Decode and save", outs))
    for t in titles:
        f.group_colors[t] = ACCEL_GROUP


def _fewstep_files(kind: str, lora_version: str) -> list[str]:
    return [f"wan2.2_{kind}_{e}_noise_14B_fp8_scaled.safetensors" for e in ("high", "low")] + \
        [f"wan2.2_{kind}_lightx2v_4steps_lora_{lora_version}_{e}_noise.safetensors" for e in ("high", "low")]


def wan22_a14b_t2v_4step(info) -> Flow:
    f = Flow("wan2.2_t2v_A14B_lightx2v_4step_level1", info)
    experts = _fewstep_experts(f, "t2v", "v1.1")
    clip, vae = _wan_encoders(f)
    pos, neg = _prompts(f, f.out(clip))
    lat = _video_latent(f, 81)
    k1, k2 = _fewstep_samplers(f, experts, f.out(pos), f.out(neg), f.out(lat))
    outs = _video_out(f, f.out(k2), f.out(vae), "video/wan2.2_A14B_4step_level1")
    f.outputs = {"sampler": k2, "save": outs[-1]}
    n = _about(f, "Wan 2.2 T2V A14B, 4 steps (LightX2V LoRAs) + Level-1", _FEWSTEP_BODY,
               _fewstep_files("t2v", "v1.1") + [_UMT5, _WAN_VAE], size=(500, 470))
    _fewstep_columns(f, n, [experts["high"]["unet"], experts["low"]["unet"], clip, vae],
                     [("2 · Prompt", [pos, neg]), ("3 · Size", [lat])], experts, (k1, k2), outs)
    return f


def wan22_a14b_i2v_4step(info) -> Flow:
    f = Flow("wan2.2_i2v_A14B_lightx2v_4step_level1", info)
    experts = _fewstep_experts(f, "i2v", "v1")
    clip, vae = _wan_encoders(f)
    img = f.add("LoadImage", "Start image", image=INPUT_IMAGE)
    pos, neg = _prompts(f, f.out(clip), "The subject turns slowly towards the camera and smiles, gentle wind, "
                                        "natural light, smooth camera push-in.")
    i2v = f.add("WanImageToVideo", "Wan Image to Video (832x480, 81 frames)", positive=f.out(pos), negative=f.out(neg),
                vae=f.out(vae), width=832, height=480, length=81, batch_size=1, start_image=f.out(img))
    k1, k2 = _fewstep_samplers(f, experts, f.out(i2v, 0), f.out(i2v, 1), f.out(i2v, 2))
    outs = _video_out(f, f.out(k2), f.out(vae), "video/wan2.2_i2v_A14B_4step_level1")
    f.outputs = {"sampler": k2, "save": outs[-1]}
    n = _about(f, "Wan 2.2 I2V A14B, 4 steps (LightX2V LoRAs) + Level-1",
               _FEWSTEP_BODY + "\n\nPut your start image into the Load Image node (Wan 2.2 needs no CLIP vision model).",
               _fewstep_files("i2v", "v1") + [_UMT5, _WAN_VAE], size=(500, 500))
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


WORKFLOWS = {
    "wan2.1_t2v_1.3B_level1": wan21_t2v_1_3b_level1,
    "wan2.1_t2v_14B_attention_compile_teacache": wan21_t2v_14b,
    "wan2.1_i2v_480p_level1_teacache": wan21_i2v_480p,
    "wan2.2_t2v_A14B_attention_compile_teacache": wan22_a14b,
    "flux1_dev_fp8_teacache": flux_dev_fp8,
    "qwen_image_attention_compile": qwen_image,
    "wan2.1_t2v_1.3B_before_after": wan21_before_after,
    "wan2.2_t2v_A14B_lightx2v_4step_level1": wan22_a14b_t2v_4step,
    "wan2.2_i2v_A14B_lightx2v_4step_level1": wan22_a14b_i2v_4step,
    "wan2.2_ti2v_5B_level1": wan22_ti2v_5b,
}


def build(name: str, info: dict) -> Flow:
    f = WORKFLOWS[name](info)
    assert f.name == name, (f.name, name)
    return f


def model_files(prompt: dict) -> dict[str, set]:
    """models/ folder -> file names a prompt's loaders name."""
    out: dict[str, set] = {}
    for n in prompt.values():
        for inp in MODEL_INPUTS.get(n["class_type"], ()):
            fname = n["inputs"][inp]
            out.setdefault(MODELS[fname][0] if fname in MODELS else "?", set()).add(fname)
    return out


# ------------------------------------------------------------------------------------------ UI file

def finish_ui(ui: dict, f: Flow, note_ids: dict) -> dict:
    """Layout, groups, colors, model links and a stable id on the serialized frontend graph."""
    ids = lambda xs: [note_ids[x[5:]] if isinstance(x, str) and x.startswith("note:") else int(x) for x in xs]  # noqa: E731
    columns = [[(t, ids(members), d) for t, members, d in col] for col in f.columns]
    U.layout(ui, columns, colors=f.group_colors)
    by_id = {n["id"]: n for n in ui["nodes"]}
    for nid, (color, bg) in f.colors.items():
        by_id[int(nid)]["color"], by_id[int(nid)]["bgcolor"] = color, bg
    for n in ui["nodes"]:
        files = [n["widgets_values"][0]] if n["type"] in MODEL_INPUTS else []
        if n["type"] == "DualCLIPLoader":
            files = n["widgets_values"][:2]
        models = [{"name": x, "url": MODELS[x][1], "directory": MODELS[x][0]} for x in files if x in MODELS]
        if models:
            n.setdefault("properties", {})["models"] = models
    xs = [n["pos"][0] for n in ui["nodes"]]
    ys = [n["pos"][1] - U.NODE_TITLE_H for n in ui["nodes"]]
    right = max(n["pos"][0] + n["size"][0] for n in ui["nodes"])
    # Open at a zoom where node text still renders (the canvas draws low-detail boxes below ~0.6), showing the
    # graph from its left edge (read me, models, prompt); wide graphs scroll to the right.
    scale = round(max(0.7, min(1.0, 1500.0 / max(1.0, right - min(xs)))), 3)
    ui.setdefault("extra", {})["ds"] = {"scale": scale, "offset": [round(80 / scale - min(xs) + U.GROUP_PAD, 1),
                                                                   round(140 / scale - min(ys) + U.GROUP_TITLE_H, 1)]}
    ui["id"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"https://github.com/comfyui-accel/comfyui-accel/workflows/{f.name}"))
    return ui


def write(names, work: Path | None = None) -> int:
    import tempfile

    from accel_harness.browser import FRONTEND_SETTINGS, Browser, available
    from accel_harness.server import ComfyServer

    ok, why = available()
    if not ok:
        raise SystemExit(f"cannot write UI workflows: {why}")
    work = work or Path(tempfile.mkdtemp(prefix="accel-flows-"))
    with ComfyServer(work, cpu=True, settings=FRONTEND_SETTINGS) as srv, Browser() as b:
        info = srv.object_info()
        b.open_app(srv.url)
        for name in names:
            f = build(name, info)
            api = f.api()
            b.api_to_ui(api, name=f"{name}.json")
            note_ids = {k: b.add_note(text, title, size) for k, (title, text, size) in f.notes.items()}
            ui = finish_ui(b.serialize(), f, note_ids)
            problems = U.geometry_problems(ui)
            if problems:
                raise SystemExit(f"{name}: layout problems: {problems}")
            # The file as written must load back into the frontend and queue exactly the API prompt.
            b.load_workflow(ui, f"{name}.json")
            missing = b.missing_nodes_notice()
            if missing:
                raise SystemExit(f"{name}: {missing}")
            diff = U.prompt_diff(api, b.graph_to_prompt(), ("api", "frontend")) + \
                U.prompt_diff(api, U.ui_to_api(ui, info), ("api", "ui_to_api"))
            if diff:
                raise SystemExit(f"{name}: the UI workflow does not give the API prompt:\n  " + "\n  ".join(diff))
            API_DIR.mkdir(parents=True, exist_ok=True)
            (API_DIR / f"{name}.json").write_text(json.dumps(api, indent=2, ensure_ascii=False) + "\n")
            (UI_DIR / f"{name}.json").write_text(json.dumps(ui, indent=2, ensure_ascii=False) + "\n")
            print(f"wrote workflows/{name}.json ({len(ui['nodes'])} nodes, {len(ui['groups'])} groups) and "
                  f"workflows/api/{name}.json ({len(api)} nodes)")
    return 0


# ------------------------------------------------------------------------------------------ check

def check(info: dict, names=None, notes: list | None = None) -> list[str]:
    """Problems with the checked-in files for these node specs (empty list = current).

    On a ComfyUI newer than the one the files were written with, core nodes may have gained inputs (0.33:
    CreateVideo.bit_depth, SaveVideo's format.codec). Where neither file has such an input, both twins are
    taken with its default, as the frontend does (uiformat.fill_new_inputs / ui_to_api), and a line per node
    goes to `notes`; any other difference is a problem.
    """
    probs = []
    for name in names or WORKFLOWS:
        api_p, ui_p = API_DIR / f"{name}.json", UI_DIR / f"{name}.json"
        if not api_p.exists() or not ui_p.exists():
            probs.append(f"{name}: missing {'workflows/api/' if not api_p.exists() else 'workflows/'}{name}.json")
            continue
        want = build(name, info).api()
        ui = json.loads(ui_p.read_text())
        added: list[str] = []
        have = U.fill_new_inputs(json.loads(api_p.read_text()), ui, info, added)
        probs += [f"{name}: workflows/api/ is stale: {d}" for d in U.prompt_diff(want, have, ("definition", "file"))]
        try:
            conv = U.ui_to_api(ui, info, added)
        except U.ConversionError as e:
            probs.append(f"{name}: workflows/{name}.json: {e}")
            continue
        probs += [f"{name}: UI and API twins differ: {d}" for d in U.prompt_diff(have, conv, ("api file", "ui file"))]
        probs += [f"{name}: layout: {p}" for p in U.geometry_problems(ui)]
        if notes is not None:
            notes += [f"{name}: {a}" for a in added]
    extra = sorted({p.stem for p in API_DIR.glob("*.json")} - set(WORKFLOWS) - {"demo_before_after"})
    probs += [f"workflows/api/{x}.json is not defined in scripts/workflows.py" for x in extra]
    return probs


def local_info() -> dict:
    import accel_harness as H

    H.bootstrap()
    H.load_pack()
    return U.local_object_info()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help="regenerate the files (server + headless frontend)")
    g.add_argument("--check", action="store_true", help="exit 1 if a file is missing, stale or its twin differs")
    g.add_argument("--list", action="store_true")
    ap.add_argument("names", nargs="*", help=f"workflows (default all): {', '.join(WORKFLOWS)}")
    a = ap.parse_args(argv)
    bad = [n for n in a.names if n not in WORKFLOWS]
    if bad:
        ap.error(f"unknown workflows {bad}")
    names = a.names or list(WORKFLOWS)
    if a.list:
        for n in names:
            print(n)
        return 0
    if a.write:
        return write(names)
    notes: list[str] = []
    probs = check(local_info(), names, notes)
    for n in notes:
        print(f"note: {n}")
    for p in probs:
        print(p)
    print("workflows: OK" if not probs else f"workflows: {len(probs)} problem(s); regenerate with "
          "`.testbed/venv/bin/python scripts/workflows.py --write`")
    return 1 if probs else 0


if __name__ == "__main__":
    sys.exit(main())
