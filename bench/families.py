"""Model families of bench_matrix.py --family (and the conditioning / latents bench_cache.py --sweep-family uses).

Per family: the true config's random weights in the published key layout (harness/accel_harness/models.py), written
once to a safetensors file and loaded with ComfyUI's loader; the latent and conditioning its ComfyUI workflow gives
the model (shapes only: random text states, no text encoder); its sampler settings; the pack's shipped chain.

    wan            Wan 2.1 T2V (bench_matrix's own path: --size 1.3B / 14B), the default
    flux           Flux.1-dev 12B, 1024x1024, CFG 1 with FluxGuidance 3.5, euler / simple, T5 256 tokens + CLIP pooled
    qwen_image     Qwen-Image 20B, 1328x1328, CFG 2.5, ModelSamplingAuraFlow shift 3.1, euler / simple, Qwen2.5-VL 3584
    hunyuan_video  HunyuanVideo T2V 13B, 544x960 129 frames, CFG 1 with guidance 6, euler / simple, LLaVA 4096 + pooled
    ltxv           LTX-Video 2B (0.9.x), 768x512 121 frames, CFG 3, euler / simple, T5 128 tokens with mask, 25 fps
    wan_ti2v_5b    Wan 2.2 TI2V-5B, 1280x704 121 frames, 48-channel latent (Wan22ImageToVideoLatent), CFG 5, uni_pc /
                   simple, ModelSamplingSD3 shift 8: workflows/wan2.2_ti2v_5B_level1.json
    z_image        Z-Image Turbo 6B (ComfyUI's Lumina 2 NextDiT, Z-Image config), 1024x1024, 9 steps CFG 1,
                   res_multistep / simple, ModelSamplingAuraFlow shift 3 (ComfyUI's template), Qwen3-4B 2560, 128 tokens
    sdxl           SDXL 1.0 base UNet 2.6B, 1024x1024, 20 steps CFG 7, euler / normal, CLIP-L + CLIP-G 2048 x 77 tokens,
                   pooled CLIP-G 1280 and the size conditioning (1024)
ComfyUI 0.33's newer families (true configs: harness models.TRUE_CONFIGS; sampler settings as ComfyUI's own templates
in Comfy-Org/workflow_templates give them; 16-bit weights, where the templates load quantized files):
    minimax_h3         MiniMax-H3 33B, 1344x768 124 frames + stereo audio (Empty MiniMax H3 AV Latent), 20 steps
                       res_multistep / simple, BasicGuider (no CFG), Qwen3-VL 5120 text: video_minimax_h3_t2v.json
    minimax_h3_turbo   the same template's turbo mode: 4 steps (its 4-step LoRA changes the weights, not the cost)
    hunyuan_video15    HunyuanVideo 1.5 8.3B, 848x480 121 frames, 20 steps euler / simple, CFG 6, shift 7:
                       video_hunyuan_video_1.5_720p_t2v.json
    ltxav              LTX-2 19B, 1280x704 121 frames + audio at 24 fps, 20 steps euler_ancestral (LTXVScheduler:
                       here simple), CFG 4: video_ltx2_t2v.json's first stage at its output size
    flux2              Flux.2-dev 32B, 1248x832, 20 steps euler / simple (Flux2Scheduler: here simple), guidance 4,
                       Mistral-3 15360 text: image_flux2.json without its reference image
    kandinsky5         Kandinsky 5 Video Lite 2B, 768x512 121 frames, 50 steps euler_ancestral / beta, CFG 5, shift 5:
                       video_kandinsky5_t2v.json

Imports no torch at module level (bench_matrix starts ComfyUI the way main.py does before torch is imported).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

# MiniMax-H3: stock, the exact chain (its Level-1 node), the opt-in sparse quality, the FP8 loader's auto -> Level-1,
# ComfyUI's TorchCompileModel, KJNodes' Sage -> TorchCompileModelAdvanced; the other newer families: the exact chain
# against stock and TorchCompileModel, and the FP8 loader's auto (not measured on them yet)
_H3_CHAINS = "stock,shipped,level1_h3_sparse,fp8_auto_shipped,core_compile,kj_sage_compile"
_NEW_CHAINS = "stock,shipped,core_compile,fp8_auto_shipped"


@dataclass(frozen=True)
class Family:
    label: str
    width: int
    height: int
    frames: int  # 1 for image models
    steps: int
    cfg: float
    tokens: int  # text tokens of the conditioning
    dtype: str  # weights in the file (what the published file holds)
    sampler: str = "euler"
    scheduler: str = "simple"
    guidance: float | None = None  # guidance-distilled (Flux, HunyuanVideo): FluxGuidance's value in the conditioning
    shift: tuple | None = None  # (node, kwargs) the shipped workflow puts after the loader, e.g. ModelSamplingSD3
    shipped: str = "cuda_attn_compile"  # the bench_matrix chain the pack ships for this family
    extra: dict = field(default_factory=dict)
    chains: str | None = None  # --chains default (None: default_chains's rule)


FAMILIES = {
    "wan": Family("Wan 2.1 T2V", 832, 480, 81, 2, 5.0, 512, "fp16", shipped="level1"),
    "flux": Family("Flux.1-dev 12B", 1024, 1024, 1, 20, 1.0, 256, "bf16", guidance=3.5),
    "qwen_image": Family("Qwen-Image 20B", 1328, 1328, 1, 20, 2.5, 128, "bf16",
                         shift=("ModelSamplingAuraFlow", {"shift": 3.1})),
    "hunyuan_video": Family("HunyuanVideo T2V 13B", 960, 544, 129, 20, 1.0, 256, "bf16", guidance=6.0),
    "ltxv": Family("LTX-Video 2B", 768, 512, 121, 20, 3.0, 128, "bf16", extra={"frame_rate": 25.0}),
    "wan_ti2v_5b": Family("Wan 2.2 TI2V-5B", 1280, 704, 121, 20, 5.0, 512, "fp16", sampler="uni_pc",
                          shift=("ModelSamplingSD3", {"shift": 8.0}), shipped="level1"),
    "z_image": Family("Z-Image Turbo 6B", 1024, 1024, 1, 9, 1.0, 128, "bf16", sampler="res_multistep",
                      shift=("ModelSamplingAuraFlow", {"shift": 3.0})),
    "sdxl": Family("SDXL 1.0 base", 1024, 1024, 1, 20, 7.0, 77, "fp16", scheduler="normal"),
    # issue #54: MiniMax-H3 (the exact chain is its Level-1 node), then the exact chain vs stock and ComfyUI's
    # TorchCompileModel, and the FP8 loader's `auto`, on the other newer families
    "minimax_h3": Family("MiniMax-H3 33B", 1344, 768, 124, 20, 1.0, 256, "bf16", sampler="res_multistep",
                         shipped="level1_h3", chains=_H3_CHAINS),
    "minimax_h3_turbo": Family("MiniMax-H3 33B turbo", 1344, 768, 124, 4, 1.0, 256, "bf16", sampler="res_multistep",
                               shipped="level1_h3", chains="stock,shipped,level1_h3_sparse,core_compile"),
    "hunyuan_video15": Family("HunyuanVideo 1.5 8.3B", 848, 480, 121, 20, 6.0, 256, "bf16",
                              shift=("ModelSamplingSD3", {"shift": 7.0}), chains=_NEW_CHAINS),
    "ltxav": Family("LTX-2 19B", 1280, 704, 121, 20, 4.0, 256, "bf16", sampler="euler_ancestral",
                    extra={"frame_rate": 24.0}, chains=_NEW_CHAINS),
    "flux2": Family("Flux.2-dev 32B", 1248, 832, 1, 20, 1.0, 512, "bf16", guidance=4.0, chains=_NEW_CHAINS),
    "kandinsky5": Family("Kandinsky 5 Video Lite 2B", 768, 512, 121, 50, 5.0, 256, "bf16", sampler="euler_ancestral",
                         scheduler="beta", shift=("ModelSamplingSD3", {"shift": 5.0}), chains=_NEW_CHAINS),
}
# --chains default for every family but wan (issue #30's matrix); the image families add the CUDA-graph chains
DEFAULT_CHAINS = "stock,attention,shipped,fp8_shipped,core_compile,core_fp8_fast,kj_sage_compile"
IMAGE_FAMILIES = ("flux", "qwen_image", "z_image", "sdxl")
IMAGE_CHAINS = "stock,attention,shipped,shipped_graphs,fp8_shipped,fp8_shipped_graphs,core_compile,kj_sage_compile"
SMOKE = {"frames": {"hunyuan_video": 5, "ltxv": 9, "wan_ti2v_5b": 5, "minimax_h3": 22, "minimax_h3_turbo": 22,
                    "hunyuan_video15": 5, "ltxav": 9, "kandinsky5": 5}, "side": 64, "tokens": 16}
# tiny configs' text widths (harness models.py *_TINY / TINY_CONFIGS; tiny Wan keeps umt5's 4096, Kandinsky 5's
# detection fixes Qwen2.5-VL's 3584 and CLIP-L's 768; HunyuanVideo 1.5's pooled vector is unused: it has no vector
# input, but ComfyUI's conditioning carries one; tiny LTX-2 takes its text as its connectors give it, video + audio,
# twice its caption width: the connectors keep their own width, 30 heads x 128 = Gemma's 3840, unless a file's config
# sets theirs; the true config runs them on Gemma's 3840)
_TINY_CTX = {"flux": (64, 32), "hunyuan_video": (64, 32), "qwen_image": (64, None), "ltxv": (64, None),
             "wan_ti2v_5b": (4096, None), "wan": (4096, None), "z_image": (32, None), "sdxl": (64, 1280),
             "minimax_h3": (64, None), "hunyuan_video15": (64, 768), "ltxav": (128, None), "flux2": (64, None),
             "kandinsky5": (3584, 768)}
_TRUE_CTX = {"flux": (4096, 768), "hunyuan_video": (4096, 768), "qwen_image": (3584, None), "ltxv": (4096, None),
             "wan_ti2v_5b": (4096, None), "wan": (4096, None), "z_image": (2560, None), "sdxl": (2048, 1280),
             "minimax_h3": (5120, None), "hunyuan_video15": (3584, 768), "ltxav": (3840, None), "flux2": (15360, None),
             "kandinsky5": (3584, 768)}
# families of harness models.TRUE_CONFIGS (ComfyUI 0.33's newer ones) -> that table's key
NEW_FAMILIES = {"minimax_h3": "minimax_h3", "minimax_h3_turbo": "minimax_h3", "hunyuan_video15": "hunyuan_video15",
                "ltxav": "ltxav", "flux2": "flux2", "kandinsky5": "kandinsky5"}
# tiny models whose config ComfyUI's detection cannot give back from a file (Flux and Qwen-Image fix hidden size
# 3072 and 24 heads; HunyuanVideo fixes 128-wide heads and rope axes; Z-Image needs dim 3840, SDXL 320 channels and
# context 2048): the smoke builds them in memory
IN_MEMORY_SMOKE = {"flux": "tiny_flux", "qwen_image": "tiny_qwen_image", "hunyuan_video": "tiny_hunyuan_video",
                   "z_image": "tiny_z_image", "sdxl": "tiny_sdxl"}
# config keys that hold a family's depth (transformer blocks), for profiles of fewer blocks at the true widths
# (bench/profile_family.py --layers): flux / hunyuan_video: double blocks, single blocks; qwen_image: blocks
DEPTH_KEYS = {"flux": ("depth", "depth_single_blocks"), "hunyuan_video": ("depth", "depth_single_blocks"),
              "qwen_image": ("num_layers",)}
# chains that only apply to some families: chain prefix -> (families, why not elsewhere)
_ONLY = {"level1_h3": (("minimax_h3", "minimax_h3_turbo"), "Accel MiniMax-H3 Level-1 patches MiniMax-H3 only"),
         "level1": (("wan", "wan_ti2v_5b"), "Accel Wan Level-1 patches Wan models only"),
         "fp8_level1": (("wan", "wan_ti2v_5b"), "Accel Wan Level-1 patches Wan models only"),
         "fp8_keepxattn": (("wan",), "its extra_keep pattern names Wan 2.1 layers"),
         "attention_fp8": (("wan",), "measured on Wan only so far (hybrid schedule defaults are Wan's)")}


def spec(family: str) -> Family:
    if family not in FAMILIES:
        raise SystemExit(f"unknown --family {family!r}; known: {', '.join(FAMILIES)}")
    return FAMILIES[family]


def default_chains(family: str) -> str:
    """--chains default of a family other than wan: its own (Family.chains), else the image families' (with the
    CUDA-graph chains), else DEFAULT_CHAINS."""
    return spec(family).chains or (IMAGE_CHAINS if family in IMAGE_FAMILIES else DEFAULT_CHAINS)


def defaults(a) -> None:
    """Fill the None-valued --steps --cfg --frames --height --width --tokens --dtype of `a` with a.family's (in place);
    --smoke shrinks the shapes to the tiny models'."""
    f = spec(a.family)
    for k in ("steps", "cfg", "frames", "height", "width", "tokens", "dtype"):
        if getattr(a, k, None) is None:
            setattr(a, k, getattr(f, k))
    if a.smoke and a.family != "wan":  # wan's smoke sizes are bench_matrix's own
        a.frames = SMOKE["frames"].get(a.family, 1)
        a.height = a.width = SMOKE["side"]
        a.tokens = SMOKE["tokens"]
        a.steps = 2


# Accel Compile's options a chain name adds to `cuda_attn_compile` / `shipped` / `fp8_shipped`
# (cuda_attn_compile_graphs, shipped_model_scope_static_resident, ...), and the FP8 loader's inputs `fp8_shipped` adds
# (their values as the loader's choices spell them: accel.fp8.options, which checks them)
COMPILE_OPTS = ("graphs", "model_scope", "resident", "sdpa", "static")
_FP8_OPTS = {"keep1": ("keep", "standard + first & last block"),
             "keep2": ("keep", "standard + first 2 & last 2 blocks"),
             "fp32acc": ("activation_scaling", "per-token, fp32 accumulation"),
             "block": ("activation_scaling", "1x128 blocks")}


def chain_options(name: str, prefix: str) -> tuple[set, dict] | None:
    """(Accel Compile options, FP8 loader inputs) of a chain `prefix[_option...]` (None: the name is not one): the
    options in any order, each at most once, FP8 ones only after `fp8_shipped`. E.g. chain_options(
    "fp8_shipped_resident_keep1", "fp8_shipped") == ({"resident"}, {"keep": "standard + first & last block"})."""
    if name != prefix and not name.startswith(prefix + "_"):
        return None
    words = re.findall(r"model_scope|[a-z0-9]+", name[len(prefix):])
    allowed = COMPILE_OPTS + (tuple(_FP8_OPTS) if prefix == "fp8_shipped" else ())
    if any(w not in allowed for w in words) or len(set(words)) != len(words):
        return None
    fp8 = dict(_FP8_OPTS[w] for w in words if w in _FP8_OPTS)
    if len(fp8) != len([w for w in words if w in _FP8_OPTS]):  # two values for one input
        return None
    return {w for w in words if w in COMPILE_OPTS}, fp8


def compile_chain(opts: set, prefix: str = "cuda_attn_compile") -> str:
    """The `prefix[_option...]` chain name of a set of Accel Compile options (in COMPILE_OPTS order)."""
    return "_".join([prefix, *[o for o in COMPILE_OPTS if o in opts]])


_OPT_INPUT = {"graphs": "cuda_graphs", "model_scope": "scope", "resident": "resident_weights",
              "sdpa": "attention backend", "static": "dynamic"}


def not_applicable(family: str, chain: str) -> str | None:
    """Why `chain` is not measured on `family` (None: it is). The longest rule that names the chain decides
    (level1_h3 is MiniMax-H3's, not a Wan level1 chain)."""
    for prefix in ("shipped", "fp8_shipped"):
        opts = chain_options(chain, prefix)
        if opts and opts[0] and spec(family).shipped != "cuda_attn_compile":  # a preset: no Accel Compile inputs
            names = ", ".join(_OPT_INPUT[o] for o in COMPILE_OPTS if o in opts[0])
            return f"the family's shipped chain ({spec(family).shipped}) has no {names} input"
    rules = [p for p in _ONLY if chain == p or chain.startswith(p + "_")]
    if not rules:
        return None
    fams, why = _ONLY[max(rules, key=len)]
    return None if family in fams else why


def smoke_in_memory(family: str, smoke: bool) -> bool:
    return smoke and family in IN_MEMORY_SMOKE


def weights_name(a, depth: dict | None = None) -> str:
    """The random-weight file's name; `depth` (reduced_depth's) names a file of fewer blocks."""
    size = "tiny" if a.smoke else "true"
    if depth:
        size += "_" + "x".join(str(v) for v in depth.values())
    # one file per model: minimax_h3 and minimax_h3_turbo load the same weights
    stored = f"_{a.stored}" if getattr(a, "stored", "") else ""  # fp8_scaled, fp8_e4m3fn
    return f"{NEW_FAMILIES.get(a.family, a.family)}_{size}_{a.dtype}{stored}_seed{{seed}}.safetensors"


def reduced_depth(family: str, layers: int, single_layers: int | None = None) -> dict:
    """The depth keys (DEPTH_KEYS) of `family`'s true config cut to `layers` blocks: Flux and HunyuanVideo get `layers`
    double blocks and `single_layers` single blocks (default: twice `layers`, the published 19 + 38 and 20 + 40 ratio),
    never more than the published depth."""
    from accel_harness import models as M

    if family not in DEPTH_KEYS:
        raise SystemExit(f"--layers: no depth keys known for family {family!r}; known: {', '.join(DEPTH_KEYS)}")
    if layers < 1 or (single_layers is not None and single_layers < 0):
        raise SystemExit(f"--layers {layers} / --single-layers {single_layers}: give at least one block")
    true = M.true_unet_config(family)
    keys = DEPTH_KEYS[family]
    want = [layers] + ([2 * layers if single_layers is None else single_layers] if len(keys) > 1 else [])
    return {k: min(n, true[k]) for k, n in zip(keys, want, strict=True)}


def state_dict(family: str, smoke: bool, seed: int, dtype, device,
               depth: dict | None = None) -> tuple[dict, dict | None]:
    """(state dict, file metadata) of `family`'s random weights in the published key layout: the true config, or in
    the smoke the tiny one (ltxv: its config in the file's metadata, as LTX-Video files carry it). `depth`
    (reduced_depth's): the true config with fewer blocks (ComfyUI's detection counts the blocks in the file)."""
    from accel_harness import models as M

    if depth:
        if smoke or family not in DEPTH_KEYS:
            raise RuntimeError(f"a reduced depth applies to the true config of {', '.join(DEPTH_KEYS)}, not {family}"
                               + (" in the smoke" if smoke else ""))
        return M.true_state_dict(family, seed, dtype, device, unet_config={**M.true_unet_config(family), **depth}), None

    if family == "wan_ti2v_5b":
        return M.wan_state_dict("ti2v5b", "tiny" if smoke else "5B", seed=seed, dtype=dtype, device=device), None
    if family in NEW_FAMILIES:  # MiniMax-H3 keeps the published file's float32 layers float32
        return M.family_state_dict(NEW_FAMILIES[family], "tiny" if smoke else "true", seed, dtype, device)
    if family in IN_MEMORY_SMOKE and smoke:
        raise RuntimeError(f"tiny {family} cannot be loaded from a file ({IN_MEMORY_SMOKE[family]} is built in memory)")
    if family == "ltxv" and smoke:
        cfg = dict(M.LTXV_TINY)
        meta = {"config": json.dumps({"transformer": {k: v for k, v in cfg.items() if k != "image_model"}})}
        return M.true_state_dict("ltxv", seed, dtype, device, unet_config=cfg), meta
    return M.true_state_dict(family, seed, dtype, device), None


def tiny_model(family: str):
    """The smoke's in-memory tiny model (families in IN_MEMORY_SMOKE), fp32."""
    from accel_harness import models as M

    return getattr(M, IN_MEMORY_SMOKE[family])()


def latent(family: str, frames: int, height: int, width: int) -> dict:
    """The empty latent ComfyUI's latent node gives `family` at this pixel size."""
    import torch

    if family in ("flux", "z_image"):  # EmptySD3LatentImage
        return {"samples": torch.zeros(1, 16, height // 8, width // 8)}
    if family == "sdxl":  # EmptyLatentImage
        return {"samples": torch.zeros(1, 4, height // 8, width // 8)}
    if family == "qwen_image":
        return {"samples": torch.zeros(1, 16, 1, height // 8, width // 8)}
    if family == "ltxv":  # EmptyLTXVLatentVideo
        return {"samples": torch.zeros(1, 128, (frames - 1) // 8 + 1, height // 32, width // 32)}
    if family == "wan_ti2v_5b":  # Wan22ImageToVideoLatent without a start image
        return {"samples": torch.zeros(1, 48, (frames - 1) // 4 + 1, height // 16, width // 16)}
    if family in ("minimax_h3", "minimax_h3_turbo"):  # Empty MiniMax H3 AV Latent (ComfyUI's own node)
        from accel_harness import models as M

        return M.minimax_h3_latent(width, height, frames)
    if family == "ltxav":  # EmptyLTXVLatentVideo + LTXVEmptyLatentAudio -> LTXVConcatAVLatent
        from accel_harness import models as M

        return M.ltxav_latent(width, height, frames, FAMILIES["ltxav"].extra["frame_rate"])
    if family == "hunyuan_video15":  # EmptyHunyuanVideo15Latent
        return {"samples": torch.zeros(1, 32, (frames - 1) // 4 + 1, height // 16, width // 16)}
    if family == "flux2":  # EmptyFlux2LatentImage
        return {"samples": torch.zeros(1, 128, height // 16, width // 16)}
    # hunyuan_video (EmptyHunyuanLatentVideo), wan (EmptyHunyuanLatentVideo / Wan's), kandinsky5
    # (Kandinsky5ImageToVideo)
    return {"samples": torch.zeros(1, 16, (frames - 1) // 4 + 1, height // 8, width // 8)}


def conditioning(family: str, tokens: int, gen, tiny: bool, guidance: float | None = None, **extra) -> list:
    """One CONDITIONING as `family`'s text encoder (+ FluxGuidance / LTXVConditioning) gives it, random text states
    drawn from `gen`: context (1, tokens, width) and, for Flux / HunyuanVideo / SDXL, the pooled CLIP vector and
    guidance; LTX-Video: the T5 attention mask and `frame_rate` (extra); SDXL: the size conditioning (extra)."""
    import torch

    ctx, vec = (_TINY_CTX if tiny else _TRUE_CTX)[NEW_FAMILIES.get(family, family)]
    opts = {}
    states = torch.randn(1, tokens, ctx, generator=gen)
    if vec:
        opts["pooled_output"] = torch.randn(1, vec, generator=gen)
    if guidance is not None:
        opts["guidance"] = guidance
    if family == "ltxv":
        opts["attention_mask"] = torch.ones(1, tokens, dtype=torch.long)
    opts.update(extra)
    return [[states, opts]]


# image-edit runs (bench_matrix.py --edit): family -> (the edit model it stands for, whether the negative carries the
# reference too). The edit models share their family's architecture and weight layout; what changes the cost is the
# reference image's latent tokens, which join the image tokens in every attention call (ReferenceLatent for FLUX.1
# Kontext and Flux.2, TextEncodeQwenImageEdit for Qwen-Image-Edit, whose negative encodes the image as well)
EDIT_FAMILIES = {"flux": ("FLUX.1 Kontext dev", False), "qwen_image": ("Qwen-Image-Edit", True),
                 "flux2": ("Flux.2 with one reference image", False)}


def inputs(a, seed_pos: int = 1, seed_neg: int = 2):
    """(positive, negative, latent) of bench_matrix for a.family at a's shapes (seeded: every chain gets the same).
    With a.edit: one random reference latent of the output's shape in the conditioning (EDIT_FAMILIES)."""
    import torch

    f = spec(a.family)
    tiny = a.smoke

    extra = dict(f.extra)
    if a.family == "sdxl":  # CLIPTextEncodeSDXL's size conditioning at the sampled size
        extra.update(width=a.width, height=a.height, target_width=a.width, target_height=a.height)
    lat = latent(a.family, a.frames, a.height, a.width)
    ref = {}
    if getattr(a, "edit", False):
        ref = {"reference_latents": [torch.randn(lat["samples"].shape, generator=torch.Generator().manual_seed(3))]}

    def cond(seed, with_ref):
        return conditioning(a.family, a.tokens, torch.Generator().manual_seed(seed), tiny, f.guidance,
                            **extra, **(ref if with_ref else {}))

    negative_ref = bool(ref) and EDIT_FAMILIES[a.family][1]
    return cond(seed_pos, True), cond(seed_neg, negative_ref), lat


def title(meta: dict) -> str:
    """The matrix.md heading of a --family run from its result's meta block."""
    f = spec(meta["family"])
    shape = f"{meta.get('frames')}f " if f.frames > 1 else ""
    guid = f", guidance {f.guidance:g}" if f.guidance is not None else ""
    shift = f", {f.shift[0]} {next(iter(f.shift[1].values())):g}" if f.shift else ""
    size = "tiny (smoke)" if meta.get("smoke") else "true config"
    stored = {"fp8_scaled": " stored fp8_scaled (ComfyUI's scaled-fp8 layout)",
              "fp8_e4m3fn": " stored fp8_e4m3fn (plain fp8 weights, no scale)"}.get(meta.get("stored"), "")
    edit = f" as {EDIT_FAMILIES[meta['family']][0]} (one reference latent)" if meta.get("edit") else ""
    return (f"{f.label}{edit} {size} {meta.get('dtype')}{stored}, {shape}{meta.get('height')}x{meta.get('width')}, "
            f"{meta.get('steps')} steps CFG {meta.get('cfg')}{guid}, {f.sampler}/{f.scheduler}{shift}, "
            f"{meta.get('tokens')} text tokens")
