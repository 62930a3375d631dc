"""Model-family detection for a ComfyUI MODEL (ModelPatcher): one place that says what a model is.

Used by the Level-1 presets (Wan, MiniMax-H3), TeaCache (coefficient choice), compile (block lists) and
reports. Reads ComfyUI objects but imports nothing from ComfyUI.

A model of a family with no entry here still gets the generic path: its transformer blocks are found in the
module lists ComfyUI builds them in (`BLOCK_LISTS`; a family's own: `FAMILY_BLOCK_LISTS`), and `measured_text` says
truthfully that the pack's exact chain was not measured on it. `MEASURED` is the family table: where the exact chain was
measured, per family (and Wan
variant), with the figure of each run (accel.common.figures).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .figures import fig
from .figures import text as _fig

# BaseModel class name -> family id
_BASE_FAMILIES = {
    "WAN21": "wan21", "WAN22": "wan22", "WAN21_Vace": "wan21", "WAN21_Camera": "wan21", "WAN22_Camera": "wan22",
    "WAN22_S2V": "wan22", "WAN21_HuMo": "wan21", "WAN22_Animate": "wan22",
    "Flux": "flux", "Flux2": "flux2", "Chroma": "chroma", "ChromaRadiance": "chroma", "FluxInpaint": "flux",
    "QwenImage": "qwen_image", "HunyuanVideo": "hunyuan_video", "HunyuanVideoI2V": "hunyuan_video",
    "HunyuanVideoSkyreelsI2V": "hunyuan_video", "HunyuanVideo15": "hunyuan_video15", "LTXV": "ltxv", "LTXAV": "ltxav",
    "SD3": "sd3", "SDXL": "sdxl", "SDXLRefiner": "sdxl", "BaseModel": "sd1", "Lumina2": "lumina2",  # Z-Image: below
    "HiDream": "hidream", "CosmosVideo": "cosmos", "CosmosPredict2": "cosmos",
    # ComfyUI 0.33's newer families and Wan classes
    "MiniMaxH3": "minimax_h3", "Kandinsky5": "kandinsky5", "Kandinsky5Image": "kandinsky5",
    "HunyuanVideo15_SR_Distilled": "hunyuan_video15", "WAN21_CausalAR": "wan21", "WAN_Animate2": "wan22",
    "WAN21_FlowRVS": "wan21", "WAN21_SCAIL": "wan21", "WAN21_SCAIL2": "wan21", "WAN22_WanDancer": "wan22",
}

_NAMES = {
    "wan21": "Wan 2.1", "wan22": "Wan 2.2", "flux": "Flux.1", "flux2": "Flux.2", "chroma": "Chroma",
    "qwen_image": "Qwen-Image", "hunyuan_video": "HunyuanVideo", "hunyuan_video15": "HunyuanVideo 1.5",
    "ltxv": "LTX-Video", "sd3": "SD3", "sdxl": "SDXL", "sd1": "SD1.x/2.x", "lumina2": "Lumina 2", "z_image": "Z-Image",
    "hidream": "HiDream", "cosmos": "Cosmos", "minimax_h3": "MiniMax-H3", "ltxav": "LTX-2 (audio-video)",
    "kandinsky5": "Kandinsky 5", "unknown": "unknown model",
}

# Attribute names of per-block ModuleLists inside the diffusion model, in forward order: the lists ComfyUI builds its
# transformer blocks in (Kandinsky 5: its visual blocks; its two text blocks run once per step on the text only).
BLOCK_LISTS = ("blocks", "double_blocks", "single_blocks", "transformer_blocks", "joint_blocks", "layers",
               "visual_transformer_blocks")
# Families whose blocks are other lists, in forward order: Lumina 2's NextDiT (Z-Image): the caption refiner (and
# Z-Image Omni's SigLIP refiner), the image refiner, then the main layers; every one a JointTransformerBlock called
# as a module.
FAMILY_BLOCK_LISTS = {"z_image": ("context_refiner", "siglip_refiner", "noise_refiner", "layers"),
                      "lumina2": ("context_refiner", "siglip_refiner", "noise_refiner", "layers")}
# UNets (SDXL, SD1.x/2.x): their blocks are containers ComfyUI's forward walks layer by layer, calling each layer with
# arguments chosen by its type (`forward_timestep_embed`). The layers compiled are each block's attention
# (SpatialTransformer) and residual (ResBlock) layers, each stood in for by a region of its own class so that walk still
# recognises it; equal layers share one graph. A new resolution recompiles those layers once, in seconds; one region
# over the whole UNet (scope model) recompiled for more than three minutes (bench/results/h200/family_033_sdxl/).
UNET = {"sdxl": "SDXL is a UNet", "sd1": "SD1.x/2.x is a UNet"}
# What scope model gave over the layers where the size stays (Accel Compile's first screen, scope blocks)
UNET_MODEL_SCOPE = {"sdxl": (f"scope model ran SDXL's whole UNet as one region in "
                             f"{_fig('sdxlsdpa.h200.model_scope.time')} a 20-step 1024x1024 run against the layers' "
                             f"{_fig('sdxlsdpa.h200.layers.time')} (H200); it compiles the whole UNet again for each "
                             "new size")}
UNET_CONTAINERS = ("input_blocks", "middle_block", "output_blocks")
UNET_LAYERS = {"SpatialTransformer": "attention", "SpatialVideoTransformer": "attention", "ResBlock": "residual",
               "VideoResBlock": "residual"}

# Wan variants told apart by ComfyUI's BaseModel class (the diffusion model class alone does not: FlowRVS runs the
# plain WanModel) -> (variant id, display name)
_WAN_CLASS_VARIANTS = {
    "WAN21_CausalAR": ("causal_ar", "causal AR"), "WAN21_Vace": ("vace", "VACE"), "WAN21_Camera": ("camera", "Camera"),
    "WAN21_HuMo": ("humo", "HuMo"), "WAN22_S2V": ("s2v", "S2V"), "WAN22_Animate": ("animate", "Animate"),
    "WAN_Animate2": ("animate2", "Animate 2"), "WAN21_FlowRVS": ("flowrvs", "FlowRVS"),
    "WAN21_SCAIL": ("scail", "SCAIL"),
    "WAN21_SCAIL2": ("scail2", "SCAIL 2"), "WAN22_WanDancer": ("wandancer", "WanDancer"),
}
_WAN_VARIANT_NAMES = {v: n for v, n in _WAN_CLASS_VARIANTS.values()}

_WAN_SIZES = {1536: "1.3B", 5120: "14B", 3072: "5B"}


@dataclass
class Family:
    family: str  # "wan21", "wan22", "flux", "qwen_image", ... or "unknown"
    base_class: str  # ComfyUI BaseModel class name
    variant: str = ""  # Wan: "t2v", "i2v", "ti2v", "vace", ...
    size: str = ""  # Wan: "1.3B", "14B", "5B"
    dims: dict = field(default_factory=dict)
    block_keys: list = field(default_factory=list)  # e.g. ["diffusion_model.blocks.0", ...]

    @property
    def is_wan(self) -> bool:
        return self.family in ("wan21", "wan22")

    @property
    def name(self) -> str:
        text = _NAMES.get(self.family, self.family)
        if self.is_wan:
            if self.family == "wan21" and self.size == "14B" and self.variant in ("t2v", "i2v"):
                text = "Wan 2.1 / 2.2 A14B"
            text += f" {_WAN_VARIANT_NAMES.get(self.variant, self.variant.upper())}" if self.variant else ""
            text += f" {self.size}" if self.size else ""
        elif self.family == "unknown":
            text += f" ({self.base_class})"
        return text


# ComfyUI's detected `unet_config["image_model"]` -> family id, for deciding before a model is built (the FP8
# loader's measured `auto`). Only ids that name one family; "wan2.1" covers Wan 2.1 and 2.2, told apart after the
# build (`detect`).
_IMAGE_MODEL_FAMILIES = {"flux": "flux", "flux2": "flux2", "chroma": "chroma", "chroma_radiance": "chroma",
                         "qwen_image": "qwen_image", "ltxv": "ltxv", "lumina2": "lumina2", "hidream": "hidream",
                         "minimax_h3": "minimax_h3", "ltxav": "ltxav", "kandinsky5": "kandinsky5"}


# ComfyUI's detected model config classes (`comfy.supported_models`) whose class tells the family before the build
# where `image_model` does not: the plain Wan text/image-to-video configs ("wan2.1" is also Wan 2.2 TI2V-5B's
# image_model; WAN21_T2V / WAN21_I2V build the WAN21 model, as the Wan 2.2 A14B experts do, WAN22_T2V the 5B's WAN22)
# and HunyuanVideo's ("hunyuan_video" is also the image_model of HunyuanVideo 1.5 and HunyuanImage 2.1, whose config
# classes subclass it: the exact class name tells them apart).
_CONFIG_FAMILIES = {"WAN21_T2V": "wan21", "WAN21_I2V": "wan21", "WAN22_T2V": "wan22", "HunyuanVideo": "hunyuan_video",
                    "HunyuanVideoI2V": "hunyuan_video", "HunyuanVideoSkyreelsI2V": "hunyuan_video",
                    "HunyuanVideo15": "hunyuan_video15", "HunyuanVideo15_SR_Distilled": "hunyuan_video15",
                    "ZImage": "z_image"}  # Z-Image: image_model "lumina2" with Z-Image's config (dim 3840)


def family_of_config(model_config) -> str | None:
    """The family id a model built from ComfyUI's detected model config (`comfy.supported_models` instance) will
    have, where the config alone tells (see `_IMAGE_MODEL_FAMILIES`, `_CONFIG_FAMILIES`: the config class first, it
    is the more specific); None otherwise."""
    unet = getattr(model_config, "unet_config", None) or {}
    return (_CONFIG_FAMILIES.get(type(model_config).__name__ if model_config is not None else None)
            or _IMAGE_MODEL_FAMILIES.get(unet.get("image_model")))


@dataclass(frozen=True)
class Measured:
    """Where the pack's exact chain was measured against stock sampling on one family (Wan: one variant)."""
    gpus: tuple  # GPU names, e.g. ("H100", "H200")
    chain: str  # what ran
    evidence: str  # the runs, figures from accel.common.figures
    figures: tuple = ()  # their figure ids (tests check each is a row)

    def text(self) -> str:
        return f"{self.chain} measured on {' and '.join(self.gpus)}: {self.evidence}"


def _runs(*pairs) -> str:
    """"1.47x (H100), 1.50x (H200)" from (GPU, figure id) pairs."""
    return ", ".join(f"{_fig(fid)} ({gpu})" for gpu, fid in pairs)


def _measured(chain: str, what: str, *pairs) -> Measured:
    gpus = tuple(dict.fromkeys(gpu for gpu, _ in pairs))
    files = sorted({f"bench/results/{fig(fid).file.split('/')[0]}/{fig(fid).file.split('/')[1]}" for _, fid in pairs})
    return Measured(gpus, chain, f"{what} {_runs(*pairs)} stock sampling ({', '.join(files)})",
                    tuple(fid for _, fid in pairs))


_EXACT = "the exact chain (Accel CUDA Settings -> Attention -> Compile)"
_LEVEL1 = "Accel Wan Level-1"
_LEVEL1_H3 = "Accel MiniMax-H3 Level-1"
# The family table: (family id, Wan variant or "") -> where the exact chain was measured. A family or variant not
# here runs the same generic path, "not measured here" (measured_text).
MEASURED = {
    ("wan21", "t2v"): _measured(_LEVEL1, "Wan 2.1 T2V 14B 480p 81 frames:", ("H100", "matrix.h100.80.level1.speedup"),
                                ("H200", "matrix.h200.140.level1.speedup")),
    ("wan21", "i2v"): Measured(("H100", "H200"), _LEVEL1, (
        f"the Wan 2.2 I2V A14B 4-step workflow, a whole Queue {_fig('e2e_i2v.h100.stock.q2.total')} -> "
        f"{_fig('e2e_i2v.h100.level1.q2.total')} (H100), {_fig('e2e_i2v.h200.stock.q2.total')} -> "
        f"{_fig('e2e_i2v.h200.level1.q2.total')} (H200) (bench/results/h100/e2e_lightx2v_033, "
        "bench/results/h200/e2e_lightx2v_033)"),
        ("e2e_i2v.h100.stock.q2.total", "e2e_i2v.h100.level1.q2.total", "e2e_i2v.h200.stock.q2.total",
         "e2e_i2v.h200.level1.q2.total")),
    ("wan22", "ti2v"): _measured(_LEVEL1, "Wan 2.2 TI2V-5B 1280x704 121 frames:",
                                 ("H100", "family.h100.ti2v.shipped.speedup"),
                                 ("H200", "fp8auto.h200.ti2v.shipped.speedup")),
    ("flux", ""): _measured(_EXACT, "Flux.1-dev 1024px 20 steps:", ("H100", "family.h100.flux.run2.shipped.speedup"),
                            ("H200", "fp8auto.h200.flux.shipped.speedup")),
    ("qwen_image", ""): _measured(_EXACT, "Qwen-Image 1328px:", ("H100", "family.h100.qwen.fix.shipped.speedup"),
                                  ("H200", "fp8auto.h200.qwen.shipped.speedup")),
    ("hunyuan_video",
     ""): _measured(_EXACT, "HunyuanVideo 13B 960x544 33 frames:", ("H100", "family.h100.hv.shipped.speedup"),
                                     ("H200", "fp8auto.h200.hv.shipped.speedup")),
    ("ltxv", ""): _measured(_EXACT, "LTX-Video 2B 768x512 121 frames:", ("H100", "family.h100.ltxv.shipped.speedup"),
                            ("H200", "fp8auto.h200.ltxv.shipped.speedup")),
    ("minimax_h3", ""): Measured(("H200",), _LEVEL1_H3, (
        f"MiniMax-H3 33B fp8_scaled, 1344x768 124 frames: {_fig('family.h200.minimax_h3.shipped.speedup')} with the "
        f"standard template's 20 steps, {_fig('family.h200.minimax_h3_turbo.shipped.speedup')} with the turbo "
        "template's 4 (H200) stock sampling (bench/results/h200/family_033_minimax_h3, "
        "bench/results/h200/family_033_minimax_h3_turbo)"),
        ("family.h200.minimax_h3.shipped.speedup", "family.h200.minimax_h3_turbo.shipped.speedup")),
    ("hunyuan_video15", ""): _measured(_EXACT, "HunyuanVideo 1.5 8.3B 848x480 121 frames, 2 of the template's 20 "
                                               "steps:",
                                       ("H200", "family.h200.hunyuan_video15_2steps.shipped.speedup")),
    ("ltxav", ""): Measured(("H200",), _EXACT, (
        f"LTX-2 19B fp8_scaled 1280x704 121 frames with audio: {_fig('ltx2_20.h200.shipped.speedup')} with the "
        f"template's 20 steps, {_fig('family.h200.ltx2_4steps.shipped.speedup')} with 4 of them (H200) stock sampling "
        "(bench/results/h200/family_033_ltx2_4steps)"),
        ("ltx2_20.h200.shipped.speedup", "family.h200.ltx2_4steps.shipped.speedup")),
    ("flux2", ""): Measured(("H200",), _EXACT, (
        f"Flux.2-dev 32B fp8_scaled 1248x832, 8 of the template's 20 steps: "
        f"{_fig('family.h200.flux2_8steps.shipped.speedup')} (H200) stock sampling; with Accel Compile's "
        f"resident_weights on {_fig('flux2res.h200.shipped_resident.speedup')} (H200, a later run), "
        f"{_fig('flux2_20.h200.shipped_resident.speedup')} with all 20 steps (H200, a later run) "
        "(bench/results/h200/family_033_flux2_8steps)"),
        ("family.h200.flux2_8steps.shipped.speedup", "flux2res.h200.shipped_resident.speedup",
         "flux2_20.h200.shipped_resident.speedup")),
    ("kandinsky5", ""): _measured(_EXACT, "Kandinsky 5 Video Lite 2B 768x512 121 frames, 2 of the template's 50 steps:",
                                  ("H200", "family.h200.kandinsky5_2steps.shipped.speedup")),
    ("sdxl", ""): Measured(("H200",), _EXACT, (
        f"SDXL 1.0 base 1024px 20 steps, the UNet loaded resident: its attention and residual layers compiled "
        f"{_fig('sdxlsdpa.h200.layers.speedup')} (H200), the whole UNet one region (scope model) "
        f"{_fig('sdxlkept.h200.model_scope.speedup')} (H200) stock sampling (bench/results/h200/family_033_sdxl)"),
        ("sdxlsdpa.h200.layers.speedup", "sdxlkept.h200.model_scope.speedup")),
    ("z_image", ""): Measured(("H200",), _EXACT, (
        f"Z-Image Turbo 6B 1024px 9 steps: {_fig('fp8auto.h200.zimage.shipped.speedup')} (H200) stock sampling, "
        f"{_fig('family.h200.zimage_resident.shipped_resident.speedup')} (H200) with Accel Compile's resident_weights "
        "on (bench/results/h200/fp8_auto_033_interleaved, bench/results/h200/family_033_z_image_peers)"),
        ("fp8auto.h200.zimage.shipped.speedup", "family.h200.zimage_resident.shipped_resident.speedup")),
}


def measured(fam: Family) -> Measured | None:
    """The family table's entry for a detected model (Wan: its variant), None where it is not measured."""
    return MEASURED.get((fam.family, fam.variant if fam.is_wan else ""))


def measured_text(fam: Family) -> str:
    """One report line: where the exact chain was measured on this model's family, or that it was not (the generic
    path: the blocks found in BLOCK_LISTS or the family's FAMILY_BLOCK_LISTS, else the whole model; attention through
    ComfyUI's hook)."""
    m = measured(fam)
    if m is not None:
        return f"family: {fam.name}: {m.text()}"
    lists = sorted({k.rsplit(".", 1)[0].split(".", 1)[-1] for k in fam.block_keys})
    where = (unet_layers_text(fam) if fam.family in UNET and fam.block_keys else
             f"its {len(fam.block_keys)} blocks ({', '.join(lists)})" if lists else
             "the whole diffusion model (no block list)")
    return (f"family: {fam.name}: not measured here (no GPU run of this family or variant yet); the generic path: "
            f"{where} compiled, attention through ComfyUI's hook")


def family_name(family: str) -> str:
    """The display name of a family key ("hunyuan_video15" -> "HunyuanVideo 1.5")."""
    return _NAMES.get(family, family)


def detect(model) -> Family:
    """`model` is a ComfyUI ModelPatcher (MODEL) or a BaseModel."""
    base = getattr(model, "model", model)
    cls = type(base).__name__
    fam = _BASE_FAMILIES.get(cls)
    dm = getattr(base, "diffusion_model", None)
    if fam is None:
        # Subclasses of known classes (new ComfyUI variants) map to their nearest known ancestor.
        for k in type(base).__mro__[1:]:
            if k.__name__ in _BASE_FAMILIES and k.__name__ != "BaseModel":
                fam = _BASE_FAMILIES[k.__name__]
                break
    if fam is None and dm is not None and type(dm).__name__.startswith("WanModel"):
        fam = "wan21"
    fam = fam or "unknown"
    if fam == "lumina2" and _is_z_image(base):
        fam = "z_image"
    info = Family(fam, cls)
    if dm is not None and fam in UNET:
        info.block_keys, info.dims = _unet_layer_keys(dm)
    elif dm is not None:
        for attr in FAMILY_BLOCK_LISTS.get(fam, BLOCK_LISTS):
            blocks = getattr(dm, attr, None)
            if blocks is not None and hasattr(blocks, "__len__") and len(blocks) and hasattr(blocks, "__getitem__"):
                info.block_keys += [f"diffusion_model.{attr}.{i}" for i in range(len(blocks))]
    if info.is_wan and dm is not None:
        dim = int(getattr(dm, "dim", 0) or 0)
        info.dims = {"dim": dim, "num_heads": int(getattr(dm, "num_heads", 0) or 0),
                     "num_layers": len(getattr(dm, "blocks", [])), "in_dim": _in_dim(dm),
                     "out_dim": int(getattr(dm, "out_dim", 0) or 0)}
        info.size = _WAN_SIZES.get(dim, f"dim{dim}")
        mt = getattr(dm, "model_type", "t2v")
        dm_cls = type(dm).__name__
        by_class = next((_WAN_CLASS_VARIANTS[k.__name__][0] for k in type(base).__mro__
                         if k.__name__ in _WAN_CLASS_VARIANTS), None)
        if by_class:
            info.variant = by_class
        elif dm_cls != "WanModel":
            info.variant = dm_cls.replace("WanModel", "").strip("_").lower() or mt
        elif info.dims["out_dim"] == 48:
            info.variant = "ti2v"
            info.family = "wan22"
        else:
            info.variant = mt
    return info


def _unet_layer_kind(layer) -> str | None:
    """"attention" or "residual" for a UNet layer the compile path compiles (its class or an ancestor in
    UNET_LAYERS), else None."""
    return next((UNET_LAYERS[k.__name__] for k in type(layer).__mro__ if k.__name__ in UNET_LAYERS), None)


def _unet_layer_keys(dm) -> tuple:
    """(the keys of a UNet's attention and residual layers in forward order: input blocks, middle block, output
    blocks: `diffusion_model.input_blocks.4.1`, `diffusion_model.middle_block.0`, ...; how many of each kind)."""
    out, kinds = [], {"attention": 0, "residual": 0}
    for attr in UNET_CONTAINERS:
        container = getattr(dm, attr, None)
        if container is None:
            continue
        seqs = ([(f"{attr}.{i}", seq) for i, seq in enumerate(container)] if attr != "middle_block"
                else [(attr, container)])
        for prefix, seq in seqs:
            for j, layer in enumerate(seq if hasattr(seq, "__iter__") else ()):
                kind = _unet_layer_kind(layer)
                if kind:
                    out.append(f"diffusion_model.{prefix}.{j}")
                    kinds[kind] += 1
    return out, kinds


def unet_layers_text(fam: Family) -> str:
    """What the compile report says a UNet's regions are: "28 layers of SDXL (11 attention, 17 residual; ...)"."""
    return (f"{len(fam.block_keys)} layers of {fam.name} ({fam.dims.get('attention', 0)} attention, "
            f"{fam.dims.get('residual', 0)} residual; {UNET[fam.family]} whose blocks ComfyUI walks layer by layer)")


def _is_z_image(base) -> bool:
    """A Lumina 2 model built with Z-Image's config: ComfyUI's ZImage config class (or a subclass), or Z-Image's
    modulation in the config (what tells a Z-Image file from a Lumina 2 one besides its width)."""
    cfg = getattr(base, "model_config", None)
    if any(k.__name__ == "ZImage" for k in type(cfg).__mro__):
        return True
    return bool((getattr(cfg, "unet_config", None) or {}).get("z_image_modulation"))


def _in_dim(dm) -> int:
    pe = getattr(dm, "patch_embedding", None)
    w = getattr(pe, "weight", None)
    return int(w.shape[1]) if w is not None and w.ndim >= 2 else 0
