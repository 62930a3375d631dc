"""Random-weight models in the official key layout, built through ComfyUI's own classes.

No weights are downloaded anywhere: tiny configs for CPU tests, true configs (Wan 1.3B / 14B, ...) for
GPU benchmarks. Values are seeded and scaled like a trained network's (fan-in scaled linears, unit
norms, small modulation), so activations stay finite through sampling.
"""
from __future__ import annotations

import contextlib
import math
from pathlib import Path

import torch

# name -> (dim, ffn_dim, num_layers). Heads are dim // 128 (ComfyUI's detection rule).
WAN_SIZES = {
    "tiny": (128, 256, 2),
    "small": (256, 512, 3),
    "1.3B": (1536, 8960, 30),
    "14B": (5120, 13824, 40),
    "5B": (3072, 14336, 30),
}
# variant -> (model_type, in_dim, out_dim)
WAN_VARIANTS = {
    "t2v": ("t2v", 16, 16),  # Wan 2.1 T2V, Wan 2.2 A14B T2V experts
    "i2v": ("i2v", 36, 16),  # Wan 2.1 I2V / FLF, Wan 2.2 A14B I2V experts
    "ti2v5b": ("t2v", 48, 48),  # Wan 2.2 TI2V-5B (Wan 2.2 VAE, 48 channels)
}


def _fill_(name: str, t: torch.Tensor, gen: torch.Generator) -> None:
    """Initialise one tensor in place like a trained layer would look (seeded)."""
    shape = t.shape
    leaf = name.rsplit(".", 1)[-1]
    if t.ndim == 0 or t.numel() == 0:
        t.zero_()
        return
    if "modulation" in name:
        t.copy_(torch.randn(shape, generator=gen, device=t.device, dtype=torch.float32) * (0.5 / math.sqrt(shape[-1])))
    elif leaf in ("weight", "scale") and ("norm" in name) and t.ndim == 1:
        t.copy_(1.0 + 0.05 * torch.randn(shape, generator=gen, device=t.device, dtype=torch.float32))
    elif leaf == "bias" or t.ndim == 1:
        t.copy_(0.02 * torch.randn(shape, generator=gen, device=t.device, dtype=torch.float32))
    else:
        fan_in = max(1, t[0].numel())
        t.copy_(torch.randn(shape, generator=gen, device=t.device, dtype=torch.float32) / math.sqrt(fan_in))


def _random_state(module: torch.nn.Module, seed: int, dtype, device="cpu", fill=_fill_) -> dict:
    """A seeded state dict with `module`'s keys and shapes (the module may live on the meta device), each
    tensor made on `device` in fp32 and stored in `dtype` (one at a time: peak memory is the result)."""
    gen = torch.Generator(device=device).manual_seed(seed)
    sd = {}
    for name, t in sorted(module.state_dict().items()):
        out = torch.empty(t.shape, dtype=torch.float32, device=device)
        fill(name, out, gen)
        sd[name] = out.to(dtype)
    return sd


def randomize_(module: torch.nn.Module, seed: int = 0) -> torch.nn.Module:
    """Fill every parameter and buffer of an (uninitialised) module with seeded values."""
    params = dict(module.named_parameters())
    params.update(dict(module.named_buffers()))
    dev = next(iter(params.values())).device if params else torch.device("cpu")
    gen = torch.Generator(device=dev).manual_seed(seed)
    with torch.no_grad():
        for name in sorted(params):
            t = params[name]
            if t.is_floating_point():
                tmp = torch.empty(t.shape, dtype=torch.float32, device=t.device)
                _fill_(name, tmp, gen)
                t.copy_(tmp.to(t.dtype))
    return module


@contextlib.contextmanager
def _plain_parameters():
    """Layers with real parameters while the key names are read. With DynamicVRAM on (ComfyUI 0.33 started
    like main.py), comfy.ops layers defer creating their weights to load time, so a model built outside a
    loader would have an empty state dict."""
    try:
        import comfy.memory_management as cmm
    except ImportError:
        yield
        return
    prev = getattr(cmm, "aimdo_enabled", None)
    if prev:
        cmm.aimdo_enabled = False
    try:
        yield
    finally:
        if prev:
            cmm.aimdo_enabled = prev


def wan_state_dict(variant: str = "t2v", size: str = "tiny", seed: int = 0, dtype=torch.bfloat16,
                   device="cpu", dim=None, ffn_dim=None, num_layers=None) -> dict:
    """A Wan state dict in the official checkpoint key layout (what UNETLoader detects)."""
    import comfy.ops
    from comfy.ldm.wan.model import WanModel

    d, f, n = WAN_SIZES[size]
    d, f, n = dim or d, ffn_dim or f, num_layers or n
    model_type, in_dim, out_dim = WAN_VARIANTS[variant]
    with torch.device("meta"), _plain_parameters():
        m = WanModel(model_type=model_type, in_dim=in_dim, out_dim=out_dim, dim=d, ffn_dim=f,
                     num_heads=d // 128, num_layers=n, text_len=512, dtype=dtype,
                     operations=comfy.ops.disable_weight_init)
    # ComfyUI keeps patch_embedding fp32 at run time; checkpoints ship it in the model dtype.
    return _random_state(m, seed, dtype, device)


def save_safetensors(sd: dict, path, metadata: dict | None = None) -> Path:
    from safetensors.torch import save_file

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous().cpu() for k, v in sd.items()}, str(path), metadata=metadata)
    return path


def write_wan(path, variant: str = "t2v", size: str = "tiny", seed: int = 0, dtype=torch.bfloat16) -> Path:
    return save_safetensors(wan_state_dict(variant, size, seed, dtype), path)


def comfy_quant_int8(sd: dict) -> dict:
    """`sd` (a Wan state dict) as a ComfyUI 0.33+ mixed-precision checkpoint in the int8_tensorwise format: every 2-D
    block weight as int8 with a per-tensor fp32 `weight_scale` (amax / 127) and its per-layer `comfy_quant` entry
    (JSON bytes, the layout ComfyUI's comfy.ops._load_quantized_module reads). In place."""
    import json

    conf = torch.tensor(list(json.dumps({"format": "int8_tensorwise"}).encode()), dtype=torch.uint8)
    for k in [k for k, v in sd.items() if k.startswith("blocks.") and k.endswith(".weight") and v.ndim == 2]:
        w = sd[k].float()
        scale = (w.abs().amax() / 127.0).clamp_min(1e-12)
        sd[k] = (w / scale).round().clamp(-127, 127).to(torch.int8)
        layer = k[: -len(".weight")]
        sd[layer + ".weight_scale"] = scale.reshape(())
        sd[layer + ".comfy_quant"] = conf.clone()
    return sd


def comfy_quant_layers(sd: dict, fmt: str, pre_quant_scale: bool = False, seed: int = 0) -> dict:
    """`sd` (a Wan state dict) as a ComfyUI 0.33+ mixed-precision checkpoint in format `fmt` (a
    `comfy.quant_ops.QUANT_ALGOS`
    name: float8_e5m2, mxfp8, nvfp4, ...), written by ComfyUI's own quantizer (comfy-kitchen's
    `QuantizedTensor.from_float`
    and its state-dict keys) for every 2-D block weight, with its `comfy_quant` entry; `pre_quant_scale`: also an AWQ
    input scale per layer (random, in [0.5, 1.5)), which 0.33 multiplies into the layer's input. In place."""
    import json

    from comfy.quant_ops import QUANT_ALGOS, QuantizedTensor

    layout = QUANT_ALGOS[fmt]["comfy_tensor_layout"]
    conf = torch.tensor(list(json.dumps({"format": fmt}).encode()), dtype=torch.uint8)
    gen = torch.Generator().manual_seed(seed)
    for k in [k for k, v in sd.items() if k.startswith("blocks.") and k.endswith(".weight") and v.ndim == 2]:
        layer, in_features = k[: -len(".weight")], sd[k].shape[1]
        sd.update(QuantizedTensor.from_float(sd[k].to(torch.bfloat16), layout).state_dict(k))
        sd[layer + ".comfy_quant"] = conf.clone()
        if pre_quant_scale:
            sd[layer + ".pre_quant_scale"] = torch.rand(in_features, generator=gen) + 0.5
    return sd


def comfy_scaled_fp8(sd: dict, prefixes: tuple = ("blocks.",), skip: str | None = None) -> dict:
    """`sd` (a Wan state dict; another model's with the `prefixes` of its block lists) in ComfyUI's own scaled-fp8
    layout, the one of the `*_fp8_scaled.safetensors` files Comfy-Org publishes and the shipped workflows load with
    Load Diffusion Model: every 2-D weight under `prefixes` (but those whose key holds `skip`) as float8_e4m3fn with a
    per-tensor fp32 `scale_weight` (amax / 448), the rest as it was, and the `scaled_fp8` marker tensor (empty,
    float8_e4m3fn: ComfyUI 0.3.x reads its dtype as the fp8 type). ComfyUI 0.3.x reads it with its scaled-fp8 ops,
    0.33 converts it to quantized-tensor layers. Converts in place, on the device the tensors live on (the file of a
    14B model is written from GPU tensors without a second copy)."""
    e4m3 = torch.float8_e4m3fn
    for k in _block_weights(sd, prefixes, skip):
        w = sd[k]
        scale = (w.abs().amax().float() / torch.finfo(e4m3).max).clamp_min(1e-12)
        sd[k] = (w.float() / scale).clamp(-448, 448).to(e4m3)
        sd[k[: -len("weight")] + "scale_weight"] = scale.reshape(())
    sd["scaled_fp8"] = torch.empty((0,), dtype=e4m3, device=next(iter(sd.values())).device)
    return sd


def comfy_plain_fp8(sd: dict, prefixes: tuple = ("blocks.",)) -> dict:
    """`sd` in the layout of the plain `*_fp8_e4m3fn.safetensors` diffusion models Comfy-Org publishes (Qwen-Image's
    and Qwen-Image-Edit's, which the shipped workflows load): every 2-D weight under `prefixes` (the model's block
    lists) cast to float8_e4m3fn, saturated at +-448, with no scale and no `scaled_fp8` marker; the rest as it was.
    ComfyUI takes the dtype holding most of the file's numbers (comfy.utils.weight_dtype) as the model's storage
    dtype and, on a GPU, casts each layer's weight to the compute dtype per call. Converts in place, on the tensors'
    device."""
    for k in _block_weights(sd, prefixes):
        sd[k] = sd[k].float().clamp(-448, 448).to(torch.float8_e4m3fn)
    return sd


def _block_weights(sd: dict, prefixes: tuple, skip: str | None = None) -> list:
    """The 2-D weights' keys under `prefixes` (but those holding `skip`): what ComfyUI's fp8 files store as fp8."""
    return [k for k, v in sd.items() if k.startswith(prefixes) and k.endswith(".weight") and v.ndim == 2
            and not (skip and skip in k)]


def comfy_scaled_fp8_text_encoder(sd: dict, prefix: str = "encoder.block.") -> dict:
    """`sd` (a T5 / umt5 encoder state dict, e.g. umt5-xxl's) in ComfyUI's scaled-fp8 layout for text encoders, the
    one of the `*_fp8_e4m3fn_scaled.safetensors` text encoders Comfy-Org publishes (umt5_xxl_fp8_e4m3fn_scaled: 168
    `scale_weight` = 24 blocks x 7 Linears): every 2-D Linear weight under `prefix` (q, k, v, o, wi_0, wi_1, wo);
    the embeddings (`shared`, each block's `relative_attention_bias`), the norms and anything else as they were."""
    return comfy_scaled_fp8(sd, (prefix,), skip="relative_attention_bias")

# The Linear layers of one Wan block: name -> (out, in) as multiples of (dim, ffn_dim).
_WAN_BLOCK_LINEARS = {**{f"self_attn.{x}": ("d", "d") for x in "qkvo"},
                      **{f"cross_attn.{x}": ("d", "d") for x in "qkvo"},
                      "ffn.0": ("f", "d"), "ffn.2": ("d", "f")}


def wan_lora(size: str = "tiny", rank: int = 4, seed: int = 3, layout: str = "lightx2v", modules=None,
             scale: float = 0.3, alpha: float | None = None, bias_diffs: bool = True, num_layers: int | None = None,
             dtype=torch.float32) -> dict:
    """A random LoRA state dict for a Wan model of `size`, in one of the key layouts ComfyUI's comfy/lora.py
    reads through its generic `diffusion_model.<module>` keys:

    - "lightx2v": `diffusion_model.blocks.N.<module>.lora_down.weight` / `.lora_up.weight` / `.alpha` (the
      LightX2V / Wan2.2-Lightning distill LoRAs; scale alpha/rank), and with `bias_diffs` a `.diff_b` (bias
      delta) on each block's ffn.2 and a `.diff` (full weight delta) on each block's norm3, as those files carry;
    - "diffusers": `diffusion_model.<module>.lora_A.weight` / `.lora_B.weight` (no alpha, no diffs).

    `modules`: module paths under diffusion_model (e.g. "blocks.0.self_attn.q"); default every Linear of every
    block. Each down/up factor is N(0, 1) x `scale`; alpha defaults to `rank` (scale 1)."""
    d, f, n = WAN_SIZES[size]
    n = num_layers or n
    dims = {"d": d, "f": f}
    if modules is None:
        modules = [f"blocks.{i}.{name}" for i in range(n) for name in _WAN_BLOCK_LINEARS]
    g = torch.Generator().manual_seed(seed)
    sd = {}
    for name in modules:
        out_k, in_k = _WAN_BLOCK_LINEARS[name.split(".", 2)[2]]
        out_f, in_f = dims[out_k], dims[in_k]
        down = torch.randn(rank, in_f, generator=g) * scale
        up = torch.randn(out_f, rank, generator=g) * scale
        if layout == "diffusers":
            sd[f"diffusion_model.{name}.lora_A.weight"], sd[f"diffusion_model.{name}.lora_B.weight"] = down, up
        elif layout == "lightx2v":
            sd[f"diffusion_model.{name}.lora_down.weight"], sd[f"diffusion_model.{name}.lora_up.weight"] = down, up
            sd[f"diffusion_model.{name}.alpha"] = torch.tensor(float(rank if alpha is None else alpha))
        else:
            raise ValueError(f"unknown LoRA layout {layout!r}")
    if layout == "lightx2v" and bias_diffs:
        for i in sorted({int(m.split(".")[1]) for m in modules}):
            sd[f"diffusion_model.blocks.{i}.ffn.2.diff_b"] = 0.05 * torch.randn(d, generator=g)
            sd[f"diffusion_model.blocks.{i}.norm3.diff"] = 0.05 * torch.randn(d, generator=g)
    return {k: v.to(dtype) for k, v in sd.items()}


def lora_for(model, modules, rank: int = 4, seed: int = 3, scale: float = 0.3, dtype=torch.float32) -> dict:
    """A random LoRA in the diffusers-style key layout (`diffusion_model.<module>.lora_A.weight` / `.lora_B.weight`,
    which ComfyUI's comfy/lora.py maps through its generic `diffusion_model.<module>` keys) for the Linear layers
    `modules` (paths under the diffusion model) of `model` (a ModelPatcher), shaped from the layers themselves."""
    dm = model.model.diffusion_model
    g = torch.Generator().manual_seed(seed)
    sd = {}
    for name in modules:
        out_f, in_f = dm.get_submodule(name).weight.shape
        sd[f"diffusion_model.{name}.lora_A.weight"] = (torch.randn(rank, in_f, generator=g) * scale).to(dtype)
        sd[f"diffusion_model.{name}.lora_B.weight"] = (torch.randn(out_f, rank, generator=g) * scale).to(dtype)
    return sd


def linear_teacache_set(coefficients_module, name: str, slope: float = 0.1, family: str = "wan21",
                        variant: str = "t2v", rel_l1_thresh: float = 0.3) -> Path:
    """Write a user TeaCache coefficient set (`name`, e.g. "user:tiny_wan_linear") in the pack's user-file format
    (`coefficients_module`: the loaded pack's accel.cache.coefficients) whose polynomial is linear: estimate =
    `slope` x the measured change. On random weights no published fit applies; a linear set drives the cache's skip
    mechanism predictably instead. Returns the file's path."""
    import json

    cc = coefficients_module
    path = cc.user_file(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": cc.USER_FORMAT, "name": name.split(":", 1)[-1], "family": family,
                                "variant": variant, "size": "",
                                "teacache": {"signal": "e0", "coefficients": [slope, 0.0],
                                             "recommended": {"rel_l1_thresh": rel_l1_thresh}}}))
    return path


def load_diffusion_model(path, model_options: dict | None = None):
    """ComfyUI's own loader (what UNETLoader calls): returns a ModelPatcher."""
    import comfy.sd

    return comfy.sd.load_diffusion_model(str(path), model_options=model_options or {})


def wan_model(variant: str = "t2v", size: str = "tiny", seed: int = 0, dtype=torch.bfloat16, device="cpu",
              model_options: dict | None = None, num_layers: int | None = None):
    """Build a Wan ModelPatcher from an in-memory state dict (no file), through ComfyUI's detection.
    `num_layers` keeps a size's block shapes with fewer blocks (per-block profiling)."""
    import comfy.sd

    sd = wan_state_dict(variant, size, seed, dtype, device=device, num_layers=num_layers)
    m = comfy.sd.load_diffusion_model_state_dict(sd, model_options=model_options or {})
    if m is None:
        raise RuntimeError(f"ComfyUI did not detect the random Wan {variant}/{size} state dict")
    return m


FLUX_TINY = {
    "image_model": "flux", "in_channels": 16, "out_channels": 16, "vec_in_dim": 32, "context_in_dim": 64,
    "hidden_size": 128, "mlp_ratio": 2.0, "num_heads": 2, "depth": 1, "depth_single_blocks": 1,
    "axes_dim": [8, 28, 28], "theta": 10000, "patch_size": 2, "qkv_bias": True, "guidance_embed": True,
}


def tiny_model_from_config(unet_config: dict, seed: int = 0, dtype=torch.float32, config_class: str | None = None):
    """A random-weight ModelPatcher for any family ComfyUI's `model_config_from_unet_config` matches
    (Flux's detection fixes hidden size 3072, so tiny Flux must be built from a config). `config_class`: the name of
    ComfyUI's model config class (`comfy.supported_models`) to build instead of the one matched, for families whose
    config is matched by a true width (Z-Image: dim 3840; SDXL: 320 channels, context 2048)."""
    import comfy.model_detection
    import comfy.model_management
    import comfy.model_patcher
    import comfy.supported_models

    if config_class is not None:
        cfg = getattr(comfy.supported_models, config_class)(dict(unet_config))
    else:
        cfg = comfy.model_detection.model_config_from_unet_config(dict(unet_config))
    if cfg is None:
        raise RuntimeError(f"no ComfyUI model config matches {unet_config}")
    cfg.set_inference_dtype(dtype, None)
    model = cfg.get_model({}, device="cpu")
    model.diffusion_model.to(dtype)
    randomize_(model.diffusion_model, seed)
    load = comfy.model_management.get_torch_device()
    return comfy.model_patcher.ModelPatcher(model, load_device=load,
                                            offload_device=comfy.model_management.unet_offload_device())


def _with_required_fields(config: dict, params_cls, extra: dict) -> dict:
    """Add the `extra` keys that this ComfyUI's params dataclass declares (newer ComfyUI, e.g. 0.33, made
    some fields required that older versions lack; passing them to an older version would fail)."""
    import dataclasses

    names = {f.name for f in dataclasses.fields(params_cls)}
    return {**config, **{k: v for k, v in extra.items() if k in names}}


def tiny_flux(seed: int = 0, dtype=torch.float32):
    import comfy.ldm.flux.model

    # 0.33 detection sets txt_ids_dims=[] for Flux.1 (model_detection.py)
    cfg = _with_required_fields(FLUX_TINY, comfy.ldm.flux.model.FluxParams, {"txt_ids_dims": []})
    return tiny_model_from_config(cfg, seed, dtype)


# Z-Image (Turbo) as ComfyUI builds it: its Lumina 2 NextDiT (comfy/ldm/lumina/model.py) with the config
# `comfy.supported_models.ZImage` detects from a dim-3840 file (z_image_modulation, time scale 1000, rope theta 256,
# pad tokens to a multiple of 32); small widths, so built with the ZImage config class itself (detection needs dim
# 3840; its modulation needs dim >= 256). Context: Qwen3-4B text states, here 32 wide (true 2560). Latent
# (B, 16, H/8, W/8) as Flux's.
Z_IMAGE_TINY = {
    "image_model": "lumina2", "patch_size": 2, "in_channels": 16, "dim": 256, "cap_feat_dim": 32, "n_layers": 2,
    "n_refiner_layers": 1, "qk_norm": True, "n_heads": 2, "n_kv_heads": 2, "axes_dims": [32, 48, 48],
    "axes_lens": [1536, 512, 512], "rope_theta": 256.0, "ffn_dim_multiplier": 8.0 / 3.0, "z_image_modulation": True,
    "time_scale": 1000.0, "pad_tokens_multiple": 32,
}


def tiny_z_image(seed: int = 0, dtype=torch.float32):
    """Z-Image at a tiny config (ComfyUI's ZImage config class, Lumina2 model): context (B, tokens, 32)."""
    return tiny_model_from_config(Z_IMAGE_TINY, seed, dtype, config_class="ZImage")


# SDXL's UNet as ComfyUI builds it (comfy/ldm/modules/diffusionmodules/openaimodel.py), tiny widths: 32 base
# channels, two levels, one transformer block at the second; context 64 wide (true 2048 = CLIP-L + CLIP-G), the ADM
# vector SDXL's encode_adm builds (pooled CLIP-G 1280 + six 256-wide size embeddings = 2816) as in the true model.
SDXL_TINY = {
    "use_checkpoint": False, "image_size": 32, "out_channels": 4, "use_spatial_transformer": True, "legacy": False,
    "num_classes": "sequential", "adm_in_channels": 2816, "in_channels": 4, "model_channels": 32,
    "num_res_blocks": [1, 1], "transformer_depth": [0, 1], "channel_mult": [1, 2], "transformer_depth_middle": 1,
    "use_linear_in_transformer": True, "context_dim": 64, "num_head_channels": 16,
    "transformer_depth_output": [0, 0, 1, 1], "use_temporal_attention": False, "use_temporal_resblock": False,
}


def tiny_sdxl(seed: int = 0, dtype=torch.float32):
    """SDXL (base) at a tiny config (ComfyUI's SDXL config class and model): context (B, 77, 64) with
    `pooled_output` (B, 1280) in the conditioning, latent (B, 4, H/8, W/8)."""
    return tiny_model_from_config(SDXL_TINY, seed, dtype, config_class="SDXL")


def sdxl_inputs(side: int = 64, batch: int = 1, seed: int = 1):
    """(positive, negative, latent) for tiny_sdxl at `side` pixels: context (1, 77, 64) with `pooled_output` and the
    size conditioning, an empty latent (batch, 4, side/8, side/8)."""
    g = torch.Generator().manual_seed(seed)

    def cond():
        return [[torch.randn(1, 77, 64, generator=g), {"pooled_output": torch.randn(1, 1280, generator=g),
                                                          "width": side, "height": side}]]
    return cond(), cond(), {"samples": torch.zeros(batch, 4, side // 8, side // 8)}


def sdpa_override(func, *args, **kwargs):
    """An attention override (`transformer_options["optimized_attention_override"]`) calling ComfyUI's
    attention_pytorch (SDPA): on the CPU ComfyUI's default attention calls psutil, which breaks dynamo's graphs."""
    from comfy.ldm.modules.attention import attention_pytorch

    return attention_pytorch(*args, **kwargs)


def with_sdpa(model):
    """A clone of `model` whose attention runs through `sdpa_override`."""
    m = model.clone()
    m.model_options.setdefault("transformer_options", {})["optimized_attention_override"] = sdpa_override
    return m


def as_dynamic(patcher, recreated: list, reloadable: bool = True):
    """A clone of `patcher` that the pack takes for a DynamicVRAM patcher (ComfyUI 0.33's ModelPatcherDynamic needs a
    GPU to exist): `is_dynamic()` true and, where `reloadable`, the `cached_patcher_init` a core loader registers,
    re-creating a clone of `patcher` and appending the `disable_dynamic` it was asked for to `recreated`."""
    dyn = patcher.clone()
    dyn.is_dynamic = lambda: True
    dyn.cached_patcher_init = ((lambda disable_dynamic=False: recreated.append(disable_dynamic) or patcher.clone(), ())
                               if reloadable else None)
    return dyn


def tiny_flux2(seed: int = 0, dtype=torch.float32):
    """Flux.2 at its tiny config (TINY_CONFIGS, the fields this ComfyUI's FluxParams has), built in memory with
    ComfyUI's Flux2 config and model (0.3.75's detection reads no tiny Flux.2 file back: family_model needs 0.33)."""
    return tiny_model_from_config(family_config("flux2", "tiny"), seed, dtype)


def conditioning(tokens: int = 16, dim: int = 4096, seed: int = 0, **extra):
    """Positive/negative CONDITIONING without a text encoder: [[tensor(1, tokens, dim), {...}]]."""
    g = torch.Generator().manual_seed(seed)
    return [[torch.randn(1, tokens, dim, generator=g), dict(extra)]]


def wan_latent(frames: int = 1, height: int = 16, width: int = 16, channels: int = 16, batch: int = 1):
    """An empty Wan video latent of the pixel size given (like EmptyHunyuanLatentVideo / Wan22ImageToVideoLatent)."""
    t = ((frames - 1) // 4) + 1
    return {"samples": torch.zeros(batch, channels, t, height // 8, width // 8)}


def sample(model, positive, negative, latent, steps: int = 2, cfg: float = 2.0, seed: int = 0,
           sampler: str = "euler", scheduler: str = "simple", denoise: float = 1.0,
           start_step=None, last_step=None, disable_noise: bool = False):
    """Run ComfyUI's own KSampler path (common_ksampler) and return the output latent tensor."""
    import nodes

    out = nodes.common_ksampler(model, seed, steps, cfg, sampler, scheduler, positive, negative, latent,
                                denoise=denoise, disable_noise=disable_noise, start_step=start_step,
                                last_step=last_step, force_full_denoise=True)
    return out[0]["samples"]


HUNYUAN_VIDEO_TINY = {
    "image_model": "hunyuan_video", "in_channels": 16, "out_channels": 16, "patch_size": [1, 2, 2], "vec_in_dim": 32,
    "axes_dim": [8, 28, 28], "meanflow": False, "context_in_dim": 64, "hidden_size": 128, "mlp_ratio": 2.0,
    "num_heads": 2, "depth": 1, "depth_single_blocks": 1, "theta": 256, "qkv_bias": True, "byt5": False,
    "guidance_embed": True, "use_cond_type_embedding": False, "vision_in_dim": None,
}
QWEN_IMAGE_TINY = {
    "image_model": "qwen_image", "in_channels": 64, "out_channels": 16, "num_layers": 2, "attention_head_dim": 64,
    "num_attention_heads": 2, "joint_attention_dim": 64, "axes_dims_rope": (16, 24, 24),
}


def tiny_hunyuan_video(seed: int = 0, dtype=torch.float32):
    """HunyuanVideo (T2V) at a tiny config: context 64, pooled 32, latent (B, 16, T, H, W)."""
    import comfy.ldm.hunyuan_video.model

    # 0.33 detection sets meanflow_sum=False unless the checkpoint is the meanflow-sum variant
    cfg = _with_required_fields(HUNYUAN_VIDEO_TINY, comfy.ldm.hunyuan_video.model.HunyuanVideoParams,
                                {"meanflow_sum": False})
    return tiny_model_from_config(cfg, seed, dtype)


HUNYUAN_VIDEO15_TINY = {  # HunyuanVideo 1.5's layout: double blocks only, 32 latent channels + image + mask in
    **HUNYUAN_VIDEO_TINY, "in_channels": 65, "out_channels": 32, "patch_size": [1, 1, 1], "vec_in_dim": None,
    "guidance_embed": False, "depth": 2, "depth_single_blocks": 0, "use_cond_type_embedding": True,
    "vision_in_dim": 1152,
}


def has_hunyuan_video15() -> bool:
    """ComfyUI knows HunyuanVideo 1.5 (0.3.75 and 0.33 do; older versions do not)."""
    import comfy.model_base

    return hasattr(comfy.model_base, "HunyuanVideo15")


def tiny_hunyuan_video15(seed: int = 0, dtype=torch.float32):
    """HunyuanVideo 1.5 at a tiny config (ComfyUI's HunyuanVideo15 model: latent (B, 32, T, H, W), text context
    64, CLIP-vision features 1152 for I2V as `clip_vision_output`). ComfyUI versions with HunyuanVideo 1.5 only."""
    if not has_hunyuan_video15():
        raise RuntimeError("this ComfyUI has no HunyuanVideo 1.5")
    import comfy.ldm.hunyuan_video.model

    # 0.33 detection sets meanflow_sum with the vision input; 0.3.75's params have no such field
    cfg = _with_required_fields(HUNYUAN_VIDEO15_TINY, comfy.ldm.hunyuan_video.model.HunyuanVideoParams,
                                {"meanflow_sum": True})
    return tiny_model_from_config(cfg, seed, dtype)


def tiny_qwen_image(seed: int = 0, dtype=torch.float32):
    """Qwen-Image at a tiny config: context 64, latent (B, 16, 1, H, W)."""
    return tiny_model_from_config(QWEN_IMAGE_TINY, seed, dtype)


# --- Flux.1-dev and Qwen-Image at their true (published) configs ----------------------------------------------

# The only keys ComfyUI's detection (comfy/model_detection.py detect_unet_config, 0.3.75 and 0.33) reads to tell
# these families apart and size them, with their shapes in the published checkpoints (flux1-dev.safetensors:
# 19 double + 38 single blocks, hidden 3072 = img_in (3072, 16 channels x 2 x 2), T5 context 4096, CLIP pooled
# 768, a guidance embedder = dev, not schnell; qwen_image_bf16.safetensors: 60 blocks, img_in (3072, 64),
# Qwen2.5-VL text 3584, proj_out (64, 3072); HunyuanVideo: below). Everything else of the config (Flux: heads
# 24, axes_dim, mlp ratio, theta, qkv bias; Qwen-Image: heads 24 x 128, rope axes, joint dim) is detection's own
# constants or the model class's defaults, so `true_unet_config` is exactly what UNETLoader gives for those files.
PUBLISHED_KEYS = {
    "flux": {"img_in.weight": (3072, 64), "txt_in.weight": (3072, 4096), "vector_in.in_layer.weight": (3072, 768),
             "guidance_in.in_layer.weight": (3072, 256),
             **{f"double_blocks.{i}.img_attn.norm.key_norm.scale": (128,) for i in range(19)},
             **{f"single_blocks.{i}.norm.key_norm.scale": (128,) for i in range(38)}},
    "qwen_image": {"txt_norm.weight": (3584,), "img_in.weight": (3072, 64), "proj_out.weight": (64, 3072),
                   **{f"transformer_blocks.{i}.attn.norm_q.weight": (128,) for i in range(60)}},
    # hunyuan_video_t2v_720p_bf16.safetensors: 20 double + 40 single blocks, hidden 3072, 16 latent channels in
    # (1, 2, 2) patches, LLaVA-Llama3 text 4096 through the token refiner, CLIP pooled 768, guidance embedder
    "hunyuan_video": {"txt_in.individual_token_refiner.blocks.0.norm1.weight": (3072,),
                      "txt_in.input_embedder.weight": (3072, 4096), "img_in.proj.weight": (3072, 16, 1, 2, 2),
                      "final_layer.linear.weight": (64, 3072), "vector_in.in_layer.weight": (3072, 768),
                      "guidance_in.in_layer.weight": (3072, 256),
                      **{f"double_blocks.{i}.img_attn.norm.key_norm.weight": (128,) for i in range(20)},
                      **{f"single_blocks.{i}.norm.key_norm.weight": (128,) for i in range(40)}},
    # ltx-video-2b-v0.9.x: 28 transformer blocks, cross-attention keys (2048, 2048) = 32 heads x 64; detection reads
    # only these (the files' metadata "config" names the same transformer as LTXVModel's defaults: T5 4096 caption)
    "ltxv": {"adaln_single.emb.timestep_embedder.linear_1.bias": (2048,),
             **{f"transformer_blocks.{i}.attn2.to_k.weight": (2048, 2048) for i in range(28)}},
    # z_image_turbo_bf16.safetensors: Lumina 2's NextDiT at dim 3840 (ComfyUI's Z-Image config: 30 heads of 128),
    # 30 layers, Qwen3-4B text 2560 wide through the caption embedder, pad tokens (multiple of 32)
    "z_image": {"cap_embedder.1.weight": (3840, 2560), "noise_refiner.0.attention.k_norm.weight": (128,),
                "cap_pad_token": (1, 3840), **{f"layers.{i}.ffn_norm1.weight": (3840,) for i in range(30)}},
}
# families whose published file ComfyUI's detection gives another image_model (Z-Image is built as Lumina 2)
_DETECTED_AS = {"z_image": "lumina2"}

# UNets, whose config ComfyUI's detection reads from the whole key layout: the published config (the one of
# ComfyUI's own table for the diffusers layout, comfy/model_detection.py), its layout built on the meta device.
# sd_xl_base_1.0: 320 base channels, three levels (transformer depth 0 / 2 / 10), context 2048 (CLIP-L + CLIP-G),
# ADM 2816 (pooled CLIP-G + size embeddings).
PUBLISHED_CONFIGS = {
    "sdxl": {"use_checkpoint": False, "image_size": 32, "out_channels": 4, "use_spatial_transformer": True,
             "legacy": False, "num_classes": "sequential", "adm_in_channels": 2816, "in_channels": 4,
             "model_channels": 320, "num_res_blocks": [2, 2, 2], "transformer_depth": [0, 0, 2, 2, 10, 10],
             "channel_mult": [1, 2, 4], "transformer_depth_middle": 10, "use_linear_in_transformer": True,
             "context_dim": 2048, "num_head_channels": 64, "transformer_depth_output": [0, 0, 0, 2, 2, 2, 10, 10, 10],
             "use_temporal_attention": False, "use_temporal_resblock": False},
}


def true_unet_config(family: str) -> dict:
    """ComfyUI's detected config for a published checkpoint of `family` ("flux" = Flux.1-dev, "qwen_image",
    "z_image" = Z-Image Turbo, "sdxl" = SDXL 1.0 base, ...), from its key skeleton (meta tensors: nothing is
    allocated): PUBLISHED_KEYS, the layout of PUBLISHED_CONFIGS (UNets), or the keys of the model built from
    TRUE_CONFIGS (ComfyUI 0.33's newer families), which must detect back as that config."""
    import comfy.model_detection

    if family in PUBLISHED_CONFIGS:
        skeleton = meta_diffusion_model(PUBLISHED_CONFIGS[family]).state_dict()
    elif family in PUBLISHED_KEYS:
        skeleton = {k: torch.empty(shape, device="meta") for k, shape in PUBLISHED_KEYS[family].items()}
    else:
        skeleton = meta_diffusion_model(family_config(family, "true")).state_dict()
    cfg = comfy.model_detection.detect_unet_config(skeleton, "")
    if family in PUBLISHED_CONFIGS:
        mc = comfy.model_detection.model_config_from_unet_config(dict(cfg or {}))
        ok = mc is not None and type(mc).__name__ == family.upper()
    elif family in TRUE_CONFIGS:
        ok = bool(cfg) and all(_same(cfg.get(k), v) for k, v in family_config(family, "true").items())
    else:
        ok = bool(cfg) and cfg.get("image_model") == _DETECTED_AS.get(family, family)
    if not ok:
        raise RuntimeError(f"ComfyUI's detection did not read the {family} key skeleton as {family}: {cfg}")
    return cfg


def _same(a, b) -> bool:
    """Config values alike (a tuple and a list of the same items are)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return list(a) == list(b)
    return a == b


def meta_diffusion_model(unet_config: dict) -> torch.nn.Module:
    """The diffusion model ComfyUI builds for `unet_config`, on the meta device (shapes only, no memory)."""
    import comfy.model_detection

    mc = comfy.model_detection.model_config_from_unet_config(dict(unet_config))
    if mc is None:
        raise RuntimeError(f"no ComfyUI model config matches {unet_config}")
    with torch.device("meta"), _plain_parameters():
        return mc.get_model({}).diffusion_model


def true_state_dict(family: str, seed: int = 0, dtype=torch.bfloat16, device="cpu", unet_config=None) -> dict:
    """A random state dict in the official key layout of `family`'s true config (built on `device`)."""
    dm = meta_diffusion_model(unet_config or true_unet_config(family))
    return _random_state(dm, seed, dtype, device)


def _detected_model(family: str, seed, dtype, device, model_options):
    import comfy.sd

    expect = true_unet_config(family)
    sd = true_state_dict(family, seed, dtype, device, expect)
    m = comfy.sd.load_diffusion_model_state_dict(sd, model_options=model_options or {})
    del sd
    if m is None:
        raise RuntimeError(f"ComfyUI did not detect the random {family} state dict")
    got = m.model.model_config.unet_config
    if any(not _same(got.get(k), v) for k, v in expect.items()):
        raise RuntimeError(f"ComfyUI detected the random {family} state dict as {got}, not {expect}")
    return m


def _sized(family: str, tiny, size: str, seed, dtype, device, model_options):
    """size "tiny": `tiny(seed, dtype)` (CPU tests; device and model_options unused); "true": the published config
    of `family` through ComfyUI's loader (`_detected_model`)."""
    if size == "tiny":
        return tiny(seed, dtype)
    if size != "true":
        raise ValueError(f"{family} size {size!r}: use 'true' or 'tiny'")
    return _detected_model(family, seed, dtype, device, model_options)


def flux_model(size: str = "true", seed: int = 0, dtype=torch.bfloat16, device="cpu",
               model_options: dict | None = None):
    """Flux.1-dev ModelPatcher. "true": the published 12B config through ComfyUI's loader (the state dict is
    made on `device`; about 24 GB in bf16); "tiny": `tiny_flux` (CPU tests; `device` and `model_options` unused).
    Inputs: x (B, 16, H/8, W/8), context (B, tokens, 4096), y = pooled CLIP (B, 768), guidance (B,)."""
    return _sized("flux", tiny_flux, size, seed, dtype, device, model_options)


def qwen_image_model(size: str = "true", seed: int = 0, dtype=torch.bfloat16, device="cpu",
                     model_options: dict | None = None):
    """Qwen-Image ModelPatcher. "true": the published 20B config through ComfyUI's loader (about 41 GB in
    bf16); "tiny": `tiny_qwen_image`. Inputs: x (B, 16, 1, H/8, W/8), context (B, tokens, 3584)."""
    return _sized("qwen_image", tiny_qwen_image, size, seed, dtype, device, model_options)


def hunyuan_video_model(size: str = "true", seed: int = 0, dtype=torch.bfloat16, device="cpu",
                        model_options: dict | None = None):
    """HunyuanVideo (T2V) ModelPatcher. "true": the published 13B config through ComfyUI's loader (about 26 GB in
    bf16); "tiny": `tiny_hunyuan_video`. Inputs: x (B, 16, T, H/8, W/8), context (B, tokens, 4096), y = pooled
    CLIP (B, 768), guidance (B,)."""
    return _sized("hunyuan_video", tiny_hunyuan_video, size, seed, dtype, device, model_options)


LTXV_TINY = {
    "image_model": "ltxv", "in_channels": 128, "num_layers": 2, "attention_head_dim": 32, "num_attention_heads": 2,
    "cross_attention_dim": 64, "caption_channels": 64,
}


def tiny_ltxv(seed: int = 0, dtype=torch.float32):
    """LTX-Video at a tiny config: context (B, tokens, 64) with an `attention_mask` (B, tokens) and `frame_rate`
    in the conditioning (what the T5 encoder / LTXVConditioning give), latent (B, 128, T, H, W)."""
    return tiny_model_from_config(LTXV_TINY, seed, dtype)


def ltxv_model(size: str = "true", seed: int = 0, dtype=torch.bfloat16, device="cpu",
               model_options: dict | None = None):
    """LTX-Video ModelPatcher. "true": the published 2B config (ltx-video-2b-v0.9.x) through ComfyUI's loader
    (about 4 GB in bf16); "tiny": `tiny_ltxv`. Inputs: x (B, 128, (frames-1)/8+1, H/32, W/32), context (B, tokens,
    4096) with `attention_mask` (B, tokens) and `frame_rate` in the conditioning."""
    return _sized("ltxv", tiny_ltxv, size, seed, dtype, device, model_options)


# --- VAEs: state dicts in the official key layout, loaded through comfy.sd.VAE(sd=...) ---------------------

# Wan 2.1 VAE: ComfyUI reads `dim` from decoder.head.0.gamma (true 96); z_dim 16, dim_mult [1, 2, 4, 4].
WAN21_VAE_DIMS = {"tiny": 8, "small": 16, "true": 96}
# KL image VAE (Flux / SD3 layout: no post_quant_conv): ComfyUI fixes ch 128, ch_mult [1, 2, 4, 4]; z from the file.
KL_VAE_Z = {"flux": 16, "sdxl": 4}


def _fill_vae_(name: str, t: torch.Tensor, gen: torch.Generator) -> None:
    leaf = name.rsplit(".", 1)[-1]
    if leaf == "gamma" or (leaf == "weight" and "norm" in name and t.ndim == 1):
        t.copy_(1.0 + 0.05 * torch.randn(t.shape, generator=gen, dtype=torch.float32))
    else:
        _fill_(name, t, gen)


def _random_like_state(module: torch.nn.Module, seed: int, dtype) -> dict:
    return _random_state(module, seed, dtype, fill=_fill_vae_)


def wan21_vae_state_dict(size: str = "tiny", seed: int = 0, dtype=torch.float32) -> dict:
    """A random Wan 2.1 VAE (also Qwen-Image's) state dict; size "true" is the real config (dim 96)."""
    import comfy.ldm.wan.vae as wv

    with torch.device("meta"), _plain_parameters():
        m = wv.WanVAE(dim=WAN21_VAE_DIMS[size], z_dim=16, dim_mult=[1, 2, 4, 4], num_res_blocks=2, attn_scales=[],
                      temperal_downsample=[False, True, True], dropout=0.0)
    return _random_like_state(m, seed, dtype)


def _wan22_vae(dim: int, dec_dim: int):
    import comfy.ldm.wan.vae2_2 as w

    return w.WanVAE(dim=dim, dec_dim=dec_dim, z_dim=48, dim_mult=[1, 2, 4, 4], num_res_blocks=2, attn_scales=[],
                    temperal_downsample=[False, True, True], dropout=0.0)


def wan22_vae_state_dict(seed: int = 0, dtype=torch.float32) -> dict:
    """A random Wan 2.2 VAE (TI2V-5B's) state dict at its true config, which ComfyUI fixes (dim 160, decoder dim 256,
    48 latent channels, 16x spatial compression)."""
    with torch.device("meta"), _plain_parameters():
        m = _wan22_vae(160, 256)
    return _random_like_state(m, seed, dtype)


def tiny_wan22_vae_module(seed: int = 0) -> torch.nn.Module:
    """ComfyUI's Wan 2.2 VAE class at a tiny width with random weights (fp32): the module alone, for tests of what
    runs inside its decode (ComfyUI detects the Wan 2.2 VAE at its true width only)."""
    with _plain_parameters():
        m = _wan22_vae(16, 16)
    m.load_state_dict(_random_like_state(m, seed, torch.float32))
    return m.eval()


def kl_vae_state_dict(kind: str = "flux", seed: int = 0, dtype=torch.float32) -> dict:
    """A random KL image VAE state dict at its true config (ComfyUI fixes the channel widths): "flux"
    (16 latent channels, no post_quant_conv: AutoencodingEngine) or "sdxl" (4 channels, AutoencoderKL)."""
    from comfy.ldm.models.autoencoder import AutoencoderKL, AutoencodingEngine

    z = KL_VAE_Z[kind]
    dd = {"double_z": True, "z_channels": z, "resolution": 256, "in_channels": 3, "out_ch": 3, "ch": 128,
          "ch_mult": [1, 2, 4, 4], "num_res_blocks": 2, "attn_resolutions": [], "dropout": 0.0}
    with torch.device("meta"), _plain_parameters():
        if kind == "sdxl":
            m = AutoencoderKL(ddconfig=dd, embed_dim=z)
        else:
            m = AutoencodingEngine(
                regularizer_config={"target": "comfy.ldm.models.autoencoder.DiagonalGaussianRegularizer"},
                encoder_config={"target": "comfy.ldm.modules.diffusionmodules.model.Encoder", "params": dd},
                decoder_config={"target": "comfy.ldm.modules.diffusionmodules.model.Decoder", "params": dd})
    return _random_like_state(m, seed, dtype)


def vae_from_state_dict(sd: dict, device=None, dtype=None):
    """ComfyUI's own VAE class (what VAELoader returns) from a state dict."""
    import comfy.sd

    vae = comfy.sd.VAE(sd=sd, device=device, dtype=dtype)
    if getattr(vae, "first_stage_model", None) is None:
        raise RuntimeError("ComfyUI did not detect the random VAE state dict")
    return vae


def write_wan21_vae(path, size: str = "true", seed: int = 0, dtype=torch.bfloat16) -> Path:
    return save_safetensors(wan21_vae_state_dict(size, seed, dtype), path)


# --- ComfyUI 0.33's newer families: MiniMax-H3, LTX-2 (audio-video), Kandinsky 5, Flux.2, HunyuanVideo 1.5 -----------

# The true configs: what ComfyUI 0.33's detection gives for each published checkpoint. true_unet_config checks that
# the key skeleton of the model built from each is detected back as itself (the detection reads every size from the
# keys; LTX-2's files carry their transformer config in metadata, and its defaults are what LTXAVModel builds):
# MiniMax-H3 33B (minimax_h3_fl2va: 50 blocks of 5376, 56 heads x 128, ffn 14336, Qwen3-VL text 5120, a 2-block token
# refiner; ldm/minimax/model.py's defaults), LTX-2 19B (ltx-2-19b-dev: 48 blocks, video 32 x 128 heads, audio 32 x 64,
# Gemma 3840 caption), Kandinsky 5 Video Lite (kandinsky5lite_t2v_sft_5s: 32 visual blocks of 1792, 2 text blocks),
# Flux.2-dev 32B (flux2_dev: 8 double + 48 single blocks of 6144, Mistral-3 15360 context), HunyuanVideo 1.5 8.3B
# (hunyuanvideo1.5_720p_t2v: 54 double blocks of 2048, Qwen2.5-VL 3584 context, byT5, SigLIP 1152 vision input).
TRUE_CONFIGS = {
    "minimax_h3": {"image_model": "minimax_h3"},
    "ltxav": {"image_model": "ltxav"},
    "kandinsky5": {"image_model": "kandinsky5", "model_dim": 1792, "axes_dims": (16, 24, 24), "time_dim": 512,
                   "ff_dim": 7168, "visual_embed_dim": 132, "num_text_blocks": 2, "num_visual_blocks": 32},
    "flux2": {"image_model": "flux2", "axes_dim": [32, 32, 32, 32], "num_heads": 48, "mlp_ratio": 3.0, "theta": 2000,
              "out_channels": 128, "global_modulation": True, "mlp_silu_act": True, "qkv_bias": False,
              "ops_bias": False,
              "default_ref_method": "index", "ref_index_scale": 10.0, "txt_ids_dims": [3], "patch_size": 1,
              "in_channels": 128, "hidden_size": 6144, "context_in_dim": 15360, "vec_in_dim": None, "depth": 8,
              "depth_single_blocks": 48, "guidance_embed": True},
    "hunyuan_video15": {**HUNYUAN_VIDEO15_TINY, "context_in_dim": 3584, "hidden_size": 2048, "num_heads": 16,
                        "mlp_ratio": 4.0, "depth": 54, "axes_dim": [16, 56, 56], "byt5": True, "meanflow": False,
                        "meanflow_sum": True},
}
# Tiny configs of the same classes, detected from a file by ComfyUI's loader as their family: detection reads every
# width from the keys (MiniMax-H3, Kandinsky 5 but its text widths, Flux.2's heads of 128, HunyuanVideo's heads of 128)
# or from the file's metadata config (LTX-2's head counts: TINY_METADATA).
TINY_CONFIGS = {
    "minimax_h3": {"image_model": "minimax_h3", "hidden_size": 256, "num_layers": 2, "token_refiner_num_layers": 1,
                   "num_attention_heads": 2, "attention_head_dim": 128, "ffn_hidden_size": 256, "text_dim": 64,
                   "timestep_input_dim": 32, "time_embed_hidden_size": 64, "time_embed_dim": 32},
    "ltxav": {"image_model": "ltxav", "num_attention_heads": 2, "attention_head_dim": 32,
              "audio_num_attention_heads": 2,
              "audio_attention_head_dim": 32, "cross_attention_dim": 64, "audio_cross_attention_dim": 64,
              "caption_channels": 64, "num_layers": 2},
    # Kandinsky 5's text widths are fixed by its detection (Qwen2.5-VL 3584, CLIP-L pooled 768)
    "kandinsky5": {"image_model": "kandinsky5", "model_dim": 128, "time_dim": 64, "ff_dim": 256,
                   "visual_embed_dim": 132, "num_text_blocks": 1, "num_visual_blocks": 2},
    "flux2": {**TRUE_CONFIGS["flux2"], "num_heads": 2, "hidden_size": 256, "context_in_dim": 64, "depth": 1,
              "depth_single_blocks": 1},
    "hunyuan_video15": {**HUNYUAN_VIDEO15_TINY, "axes_dim": [16, 56, 56], "hidden_size": 256, "num_heads": 2,
                        "mlp_ratio": 4.0, "meanflow_sum": True},
}
TINY_METADATA = {"ltxav": {k: v for k, v in TINY_CONFIGS["ltxav"].items() if k != "image_model"}}
# ComfyUI's BaseModel class each family builds (a ComfyUI without it cannot load the family: 0.3.75 lacks MiniMaxH3,
# LTXAV and Kandinsky5)
MODEL_CLASSES = {"minimax_h3": "MiniMaxH3", "ltxav": "LTXAV", "kandinsky5": "Kandinsky5", "flux2": "Flux2",
                 "hunyuan_video15": "HunyuanVideo15"}


def lacks_family(family: str, size: str = "tiny") -> str | None:
    """Why this ComfyUI cannot load `family` at `size` from a file: its BaseModel class is missing, or its detection
    does not read the config back from the keys (0.3.75 fixes Flux.2's 48 heads, so a tiny Flux.2 needs 0.33's
    detection); None when it can."""
    import comfy.model_base
    import comfy.model_detection

    cls = MODEL_CLASSES[family]
    if not hasattr(comfy.model_base, cls):
        return (f"this ComfyUI ({_version()}) lacks the model class {cls} (comfy.model_base.{cls}): added in a newer "
                "ComfyUI")
    cfg = family_config(family, size)
    if TINY_METADATA.get(family) and size == "tiny":
        return None  # read from the file's metadata config
    got = comfy.model_detection.detect_unet_config(meta_diffusion_model(cfg).state_dict(), "") or {}
    wrong = {k: got.get(k) for k, v in cfg.items() if k in got and not _same(got.get(k), v)}
    if wrong:
        return (f"this ComfyUI's ({_version()}) detection does not read a {size} {family} file back as its config "
                f"(it gives {wrong}): a newer ComfyUI's detection reads these from the keys")
    return None


def _version() -> str:
    from .env import comfy_version

    return comfy_version()


def _h3_module(cfg: dict, dtype):
    """MiniMax-H3's diffusion model on the meta device, built as its loader builds it in `dtype`: the checkpoint's fp32
    islands (patch projections, output heads, time embedder, rope buffer) stay fp32, as in the published file."""
    import comfy.ops
    from comfy.ldm.minimax.model import MiniMaxH3Model

    with torch.device("meta"), _plain_parameters():
        return MiniMaxH3Model(**{k: v for k, v in cfg.items() if k != "image_model"}, dtype=dtype,
                              operations=comfy.ops.disable_weight_init)


def family_config(family: str, size: str = "tiny") -> dict:
    """TRUE_CONFIGS / TINY_CONFIGS of `family` with only the fields this ComfyUI's model class takes (Flux.2 and
    HunyuanVideo 1.5 pass their config to a params dataclass that gained fields in 0.33: txt_ids_dims, meanflow_sum)."""
    cfg = dict((TRUE_CONFIGS if size == "true" else TINY_CONFIGS)[family])
    if family in ("flux2", "hunyuan_video15"):
        import dataclasses

        import comfy.ldm.flux.model
        import comfy.ldm.hunyuan_video.model

        params = (comfy.ldm.flux.model.FluxParams if family == "flux2"
                  else comfy.ldm.hunyuan_video.model.HunyuanVideoParams)
        names = {f.name for f in dataclasses.fields(params)} | {"image_model"}
        cfg = {k: v for k, v in cfg.items() if k in names}
    return cfg


def family_state_dict(family: str, size: str = "tiny", seed: int = 0, dtype=torch.bfloat16, device="cpu"):
    """(state dict, file metadata or None) of `family` (family_config) in its published key layout."""
    cfg = family_config(family, size)
    meta = TINY_METADATA.get(family) if size == "tiny" else None
    metadata = {"config": __import__("json").dumps({"transformer": meta})} if meta else None
    if family == "minimax_h3":
        m = _h3_module(cfg, dtype)
        gen = torch.Generator(device=device).manual_seed(seed)
        sd = {}
        for name, t in sorted(m.state_dict().items()):
            out = torch.empty(t.shape, dtype=torch.float32, device=device)
            _fill_(name, out, gen)
            sd[name] = out.to(t.dtype)
        return sd, metadata
    return _random_state(meta_diffusion_model(cfg), seed, dtype, device), metadata


def family_model(family: str, size: str = "tiny", seed: int = 0, dtype=torch.bfloat16, device="cpu",
                 model_options: dict | None = None):
    """`family`'s random weights through ComfyUI's own loader (load_diffusion_model_state_dict, what UNETLoader calls
    on a file's tensors and metadata); checks ComfyUI detected the family's class."""
    import comfy.sd

    why = lacks_family(family, size)
    if why:
        raise RuntimeError(why)
    sd, metadata = family_state_dict(family, size, seed, dtype, device)
    m = comfy.sd.load_diffusion_model_state_dict(sd, model_options=model_options or {}, metadata=metadata)
    if m is None or type(m.model).__name__ != MODEL_CLASSES[family]:
        raise RuntimeError(f"ComfyUI detected the random {family} state dict as "
                           f"{type(m.model).__name__ if m is not None else 'nothing'}")
    return m


def write_family(path, family: str, size: str = "tiny", seed: int = 0, dtype=torch.bfloat16) -> Path:
    sd, metadata = family_state_dict(family, size, seed, dtype)
    return save_safetensors(sd, path, metadata=metadata)


def minimax_h3_latent(width: int = 64, height: int = 64, length: int = 22) -> dict:
    """The joint video + audio latent of ComfyUI's own Empty MiniMax H3 AV Latent node (a NestedTensor: video
    (1, 24, T, H/16, W/16), audio (1, 32, 2, T40)); length snaps to the model's 17k+5 frame grid."""
    from comfy_extras.nodes_minimax_h3 import EmptyMiniMaxH3LatentAV

    return EmptyMiniMaxH3LatentAV.execute(width, height, length).args[0]


def ltxav_latent(width: int = 64, height: int = 64, frames: int = 9, frame_rate: float = 24.0) -> dict:
    """LTX-2's joint latent as LTXVConcatAVLatent gives it: EmptyLTXVLatentVideo's (1, 128, (frames-1)/8+1, H/32,
    W/32) and LTXVEmptyLatentAudio's (1, 8, audio latents, 16): 25 audio latents a second (the audio VAE's 16 kHz
    mel frames, hop 160, downsampled 4x)."""
    import comfy.nested_tensor

    video = torch.zeros(1, 128, (frames - 1) // 8 + 1, height // 32, width // 32)
    audio = torch.zeros(1, 8, max(1, round(frames / frame_rate * 25)), 16)
    return {"samples": comfy.nested_tensor.NestedTensor((video, audio))}


# Every Wan class ComfyUI 0.33 builds (supported_models.WAN*): the config its detection gives for a file of that
# variant (tiny widths) and, where the keys alone do not tell the variant, the file's metadata config ComfyUI reads
# (Animate 2, FlowRVS, the causal autoregressive model). Each builds its own BaseModel class (variant -> class).
_WAN_TINY = {"image_model": "wan2.1", "patch_size": (1, 2, 2), "dim": 128, "ffn_dim": 256, "freq_dim": 256,
             "num_heads": 1, "num_layers": 2, "window_size": (-1, -1), "qk_norm": True, "cross_attn_norm": True,
             "eps": 1e-6, "out_dim": 16}
WAN_CLASSES = {
    "t2v": ("WAN21", {"model_type": "t2v", "in_dim": 16}, None),
    "i2v": ("WAN21", {"model_type": "i2v", "in_dim": 36}, None),
    "fun_control": ("WAN21", {"model_type": "i2v", "in_dim": 48}, None),
    "camera": ("WAN21_Camera", {"model_type": "camera", "in_dim": 32}, None),
    "camera_2.2": ("WAN21_Camera", {"model_type": "camera_2.2", "in_dim": 36}, None),
    "vace": ("WAN21_Vace", {"model_type": "vace", "in_dim": 16, "vace_in_dim": 96, "vace_layers": 1}, None),
    "humo": ("WAN21_HuMo", {"model_type": "humo", "in_dim": 16}, None),
    "s2v": ("WAN22_S2V", {"model_type": "s2v", "in_dim": 16}, None),
    # its face adapter fuses every 5th block: 5 blocks are the fewest whose keys detection reads as Animate
    "animate": ("WAN22_Animate", {"model_type": "animate", "in_dim": 36, "num_layers": 5}, None),
    "animate2": ("WAN_Animate2", {"model_type": "animate2", "in_dim": 36}, {"model_type": "animate2"}),
    "ti2v": ("WAN22", {"model_type": "t2v", "in_dim": 48, "out_dim": 48}, None),
    "flowrvs": ("WAN21_FlowRVS", {"model_type": "flow_rvs", "in_dim": 16}, {"model_type": "flow_rvs"}),
    "scail": ("WAN21_SCAIL", {"model_type": "scail", "in_dim": 20}, None),
    "scail2": ("WAN21_SCAIL2", {"model_type": "scail2", "in_dim": 20}, None),
    "wandancer": ("WAN22_WanDancer", {"model_type": "wandancer", "in_dim": 36}, None),
    "causal_ar": ("WAN21_CausalAR", {"model_type": "t2v", "in_dim": 16, "causal_ar": True},
                  {"model_type": "t2v", "causal_ar": True}),
}


def wan_class_model(variant: str, seed: int = 0, dtype=torch.bfloat16):
    """A tiny random Wan of one ComfyUI 0.33 class (WAN_CLASSES) through ComfyUI's loader, checked to build that
    class."""
    import json

    import comfy.model_base
    import comfy.sd

    cls, extra, meta = WAN_CLASSES[variant]
    if not hasattr(comfy.model_base, cls):
        raise RuntimeError(f"this ComfyUI ({_version()}) lacks the Wan class {cls}")
    sd = _random_state(meta_diffusion_model({**_WAN_TINY, **extra}), seed, dtype)
    m = comfy.sd.load_diffusion_model_state_dict(
        sd, metadata={"config": json.dumps({"transformer": meta})} if meta else None)
    if m is None or type(m.model).__name__ != cls:
        raise RuntimeError(f"ComfyUI built {type(m.model).__name__ if m is not None else 'nothing'} for the random Wan "
                           f"{variant}, not {cls}")
    return m
