"""Load a diffusion model file or state dict (any supported FP8 or high-precision form) as an FP8 model, and its
report."""
from __future__ import annotations

import os
from dataclasses import dataclass

import torch

from ...kernels import fp8_linear as kfp8
from .. import comfy_compat
from ..common import defaults, families, figures, gains, keys, log
from ..common.errors import AccelError, current_title, oom_cause, out_of_memory, titled
from ..common.report import join_details
from . import formats
from .finalize import Stats, check_keys, finalize, nonfinite_text, unused_text
from .ops import FP8Runtime, drop_lora_caches, make_operations
from .options import ACT_INPUT, COMPUTE_AUTO, FORMAT_AUTO, KEEP_AUTO, FP8LoadOptions, measured_deviation
from .plan import (
    AutoFormat,
    Plan,
    comfy_fp8_layout,
    plan_layers,
    resolve_activation,
    resolve_auto_format,
    resolve_compute,
    resolve_stored_format,
    unmatched_text,
)


@dataclass
class LoadResult:
    patcher: object
    report: str
    stats: Stats
    plan: Plan
    normalized: object
    compute: str
    family: object
    runtime: FP8Runtime
    auto_16bit: bool = False  # `auto` kept the 16-bit weights: ComfyUI's own model, nothing quantized
    comfy_layers: bool = False  # `auto` loaded an FP8 file as ComfyUI does: its own FP8 layers, nothing converted


def format_bytes(n) -> str:
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.1f} MiB"


def _dtype_name(dt) -> str:
    return str(dt).replace("torch.", "")


def _detect_config(sd):
    """ComfyUI's model config for a (canonical) state dict, or None."""
    import comfy.model_detection as md
    import comfy.utils

    try:
        prefix = md.unet_prefix_from_state_dict(sd)
        # state_dict_prefix_replace pops the keys it moves, even with filter_keys: work on a copy
        tmp = comfy.utils.state_dict_prefix_replace(dict(sd), {prefix: ""}, filter_keys=True) or dict(sd)
        return md.model_config_from_unet(tmp, "", metadata=None)
    except Exception:
        return None


def load_state_dict(sd: dict, metadata: dict | None = None, source: str = "(state dict)",
                    options: FP8LoadOptions | None = None) -> LoadResult:
    """Load a diffusion model state dict (any supported form) as an FP8 model, as `options` say (FP8LoadOptions;
    None: the defaults). `sd` is consumed. Errors name `options.input_name`; policy ERROR raises where FALL_BACK would
    pick a slower compute path. `auto` on a 16-bit file follows the measured per-family rule
    (`plan.resolve_auto_format`; `auto_16bit` pins its outcome). `auto` on a file stored in ComfyUI's own FP8 layout
    follows `plan.resolve_stored_format`: where ComfyUI's own FP8 layers measured faster, the file is loaded as
    ComfyUI's Load Diffusion Model loads it."""
    import comfy.model_management as mm
    import comfy.utils

    from ..common import hardware

    o = options if options is not None else FP8LoadOptions()
    weight_format, compute, keep, input_name, policy = o.weight_format, o.compute, o.keep, o.input_name, o.policy
    profile = o.profile or hardware.profile()
    path, path_reason = resolve_compute(compute, profile, policy)
    path, fast_accum, act_note = resolve_activation(o.activation_scaling, path, mm.get_torch_device(), policy)
    use_fast_accum = o.use_fast_accum and fast_accum

    norm = formats.normalize(sd, metadata, source, input_name)  # a new dict: `sd` keeps the file's own layout
    cfg = _detect_config(norm.sd)
    stored = resolve_stored_format(families.family_of_config(cfg), profile, o.explicit,
                                   comfy_fp8_layout(norm.forms, norm.fp8_layers, norm.marker_full_precision),
                                   comfy_compat.loads_fp8_files_as_quantized_layers())
    kwargs = {}
    if o.disable_dynamic is not None and comfy_compat.loader_can_disable_dynamic():
        kwargs["disable_dynamic"] = o.disable_dynamic
    if stored.comfy_layers:
        norm.sd = {}
        patcher = _build(sd, {}, metadata, source, input_name, kwargs)  # as Load Diffusion Model: the file's layout
        sd.clear()
        res = _comfy_layers_result(patcher, source, norm, keep, stored.note, input_name, policy)
        res.report = _first_screen(res.report, (0, 3), res.family, profile, gains.EXACT)
        return res
    sd.clear()
    params = comfy.utils.calculate_parameters(norm.sd)
    hp = norm.hp_dtype if norm.hp_dtype in (torch.float16, torch.bfloat16, torch.float32) else torch.bfloat16
    supported = (list(cfg.supported_inference_dtypes) if cfg is not None
                 else [torch.float16, torch.bfloat16, torch.float32])
    keep_dtype = mm.unet_dtype(model_params=params, supported_dtypes=supported, weight_dtype=hp)
    comfy_dtype = o.compute_dtype or keep_dtype  # what ComfyUI's own loader would store the weights in
    weights16 = params * torch.tensor([], dtype=comfy_dtype).element_size()
    room = int(mm.minimum_inference_memory() + defaults.SAMPLING_ROOM_FRACTION * weights16)
    auto = resolve_auto_format(families.family_of_config(cfg), profile, weight_format, compute, norm.is_quantized,
                               weights16, room, hardware.free_vram(profile))
    if o.auto_16bit is not None and o.auto_16bit != auto.keep_16bit:
        auto = AutoFormat(o.auto_16bit, "as decided when this file was first loaded")
    if path in ("scaled_mm_rowwise", kfp8.BLOCK_MODE) and getattr(mm.get_torch_device(), "type", "cpu") == "cuda":
        kfp8.rowwise_out_dtypes(mm.get_torch_device())  # probe now, in eager mode (compiled code reads it)
        if path == kfp8.BLOCK_MODE:
            kfp8.block_out_dtypes(mm.get_torch_device())
    keep_dtype, dtype_note = activation_dtype(keep_dtype, path, supported, o.compute_dtype)

    rt = FP8Runtime(source=source, input_name=input_name, mode=path, fast=path != "dequant",
                    use_fast_accum=use_fast_accum, policy=policy)
    if rt.fast and profile.is_gpu and (not profile.triton or kfp8.triton_error() is not None):
        log.warn_once(("fp8", "no_triton"), "triton is not available: FP8 activations are quantized with PyTorch ops "
                                            "(slower); install triton (Linux) or triton-windows")
    # ComfyUI's own rule (pick_operations): manual casting only when weights and compute dtypes differ
    manual = mm.unet_manual_cast(keep_dtype, mm.get_torch_device(), supported) is not None
    model_options = {"dtype": keep_dtype, "custom_operations": make_operations(rt, manual_cast=manual)}
    if auto.keep_16bit:  # ComfyUI's own model: its own dtype choice and operations, nothing of ours in the layers
        model_options = {"dtype": o.compute_dtype} if o.compute_dtype is not None else {}
    patcher = _build(norm.sd, model_options, norm.metadata or None, source, input_name, kwargs)
    norm.sd = {}
    dm = patcher.model.diffusion_model
    ignored = check_keys(dm, rt, source, type(patcher.model).__name__, input_name)
    # a scaled fp8 weight the model reads without its scale (it is not one of the model's linear layers) would
    # load wrong values; one the model does not have at all is ignored like any other unused tensor
    unused = sorted(u for u in norm.scaled_layers if u not in rt.loaded and _strip_prefix(u) not in rt.loaded
                    and _strip_prefix(u) + ".weight" not in ignored)
    if unused:
        raise AccelError(input_name,
                         f"'{source}': scaled fp8 tensor '{unused[0]}.weight' belongs to a layer that is not a linear "
                         f"layer of the detected model ({len(unused)} such layers), so its scale cannot be applied",
                         "Use the original checkpoint")
    family = families.detect(patcher)
    if auto.keep_16bit:
        if getattr(patcher, "size", 0):
            patcher.size = 0
        text = _report_16bit(source, norm, family, dm, auto.note)
        log.info(text.splitlines()[0] + " | " + " | ".join(line.strip() for line in text.splitlines()[1:4]))
        text = _first_screen(text, (0, 3), family, profile, gains.EXACT)
        return LoadResult(patcher, text, Stats(), Plan({}, keep, "nothing quantized: auto kept the 16-bit weights", {}),
                          norm, "16-bit", family, rt, auto_16bit=True)
    if not norm.is_quantized:  # the note names the family as detected from the built model
        after = resolve_auto_format(family.family, profile, weight_format, compute, False, weights16, room,
                                    hardware.free_vram(profile))
        auto = AutoFormat(False, auto.note if after.keep_16bit else after.note)
    plan = plan_layers(dm, family, keep, o.extra_keep)
    try:
        stats = finalize(dm, plan, weight_format, norm.is_quantized, keep_dtype)
    except Exception as e:
        if oom_cause(e) is None:
            raise
        raise _out_of_memory(e, f"while converting the weights of '{source}' to FP8 (each linear layer is quantized "
                                      f"on {mm.get_torch_device()})") from e
    if getattr(patcher, "size", 0):
        patcher.size = 0  # recomputed from the finalized weights
    if any(k.startswith("e5m2") for k in stats.formats) and rt.fast:
        log.info(f"{source}: e5m2 layers dequantize per layer (FP8 matmul uses e4m3fn weights)")
    _free_lora_factors_on_unload(patcher)
    res = LoadResult(patcher, "", stats, plan, norm, path, family, rt)
    text, loaded = _report(res, keep_dtype, path_reason, weight_format, auto.note)
    if stats.nonfinite:
        log.warn_once(("fp8", "nonfinite", source), f"{source}: {nonfinite_text(stats.nonfinite)}")
    if plan.unmatched:
        note = unmatched_text(plan.unmatched, next((k for k, q in plan.quantize.items() if q), "blocks.0.self_attn.q"))
        text += f"\n  warning: {note}"
        log.warn_once(("fp8", "unmatched", source, tuple(plan.unmatched)), f"{source}: {note}")
    if ignored:
        note = unused_text(ignored, type(patcher.model).__name__)
        text += f"\n  warning: {note}"
        log.warn_once(("fp8", "unused", source), f"{source}: {note}")
    if dtype_note:
        text += f"\n  activations: {dtype_note}"
    if act_note and stats.formats:
        text += f"\n  {ACT_INPUT}: {o.activation_scaling} -> {act_note}"
    log.info(text.splitlines()[0] + " | " + " | ".join(line.strip() for line in text.splitlines()[1:4]))
    res.report = _first_screen(text, (0,), family, profile, gains.FP8 if stats.formats else gains.EXACT, loaded)
    return res


def _free_lora_factors_on_unload(patcher) -> None:
    """When ComfyUI unloads this model (or a clone: LoRA loaders clone it, callbacks and all), the LoRA factors our
    layers cached on the device go too (accel.fp8.ops.drop_lora_caches): ComfyUI does not count them, and 0.33's
    DynamicVRAM keeps the weight functions that would otherwise release them through an unload."""
    import comfy.patcher_extension as pe

    def on_detach(p, _unpatch_all):
        drop_lora_caches(p.model)

    patcher.add_callback_with_key(pe.CallbacksMP.ON_DETACH, keys.FP8, on_detach)


def _first_screen(text: str, picks: tuple, family, profile, chain: str, loaded: str = "") -> str:
    """The loader's report with its first screen: the lines of `text` at `picks` (its first line: the file) and
    `loaded`, the measured gain of `chain` on this kind of model and GPU, and what to chain after the loader (the gain
    is measured with it); the rest of `text` as details."""
    lines = text.splitlines()
    after = ("Accel Wan Level-1" if family.is_wan else "Accel MiniMax-H3 Level-1" if family.family == "minimax_h3"
             else "Accel Attention and Accel Compile")
    first = [lines[i] for i in picks] + ([loaded] if loaded else [])
    first += [gains.gain_line(chain, family, profile), f"for more: chain {after} after this loader"]
    return join_details(first, "\n".join(line for i, line in enumerate(lines) if i not in picks))


def _build(sd, model_options, metadata, source, input_name, kwargs):
    """ComfyUI's `load_diffusion_model_state_dict`, its failures as errors that name the input."""
    import comfy.sd

    try:
        patcher = comfy.sd.load_diffusion_model_state_dict(sd, model_options=model_options, metadata=metadata, **kwargs)
    except AccelError:
        raise
    except KeyError as e:  # ComfyUI's model detection reads a tensor the file lacks
        raise AccelError(input_name, f"'{source}': tensor {e} is missing from the file (ComfyUI reads it to "
                                           f"detect the model)",
                         "The file is incomplete or damaged: download it again, or use the original checkpoint") from e
    except Exception as e:
        if oom_cause(e) is not None:  # not a damaged file: memory ran out (issue #29)
            raise _out_of_memory(e, f"while ComfyUI built the model from '{source}'") from e
        raise AccelError(input_name, f"'{source}' could not be loaded as a diffusion model ({type(e).__name__}: {e})",
                         "Check that the file is a diffusion model (not a text encoder, VAE or LoRA) and not "
                         "damaged") from e
    if patcher is None:
        raise AccelError(input_name,
                         f"'{source}' is not a diffusion model ComfyUI recognizes (no known model layout in its "
                         "tensors)",
                         "Pick a diffusion model file (a text encoder, VAE, CLIP vision model or LoRA cannot be loaded "
                         "here)")
    return patcher


def _comfy_layers_result(patcher, source, norm, keep, note, input_name, policy) -> LoadResult:
    """The result of `auto` handing an FP8 file to ComfyUI's own loader (plan.resolve_stored_format), and its report."""
    dm = patcher.model.diffusion_model
    family = families.detect(patcher)
    n = sum(1 for m in dm.modules() if comfy_compat.is_quantized_layer(m))
    lines = [f"Accel FP8 loader: {source}",
             f"  model: {family.name} ({family.base_class})",
             f"  stored: {norm.describe()}, {format_bytes(norm.stored_bytes)} on disk",
             f"  weight_format: auto -> loaded as ComfyUI's own Load Diffusion Model loads it: {n} of its FP8 linear "
             "layers with the file's scales, nothing converted",
             f"  auto: {note}",
             "  compute: ComfyUI's own FP8 layers (Accel Compile and Wan Level-1 run their FP8 matmuls inside the "
             "compiled graph)"]
    if n != len(norm.fp8_layers):
        warn = (f"ComfyUI built {n} FP8 layers of the file's {len(norm.fp8_layers)}: the others run as ComfyUI runs "
                "them")
        lines.append(f"  warning: {warn}")
        log.warn_once(("fp8", "comfy_layers", source), f"{source}: {warn}")
    text = "\n".join(lines)
    log.info(text.splitlines()[0] + " | " + " | ".join(line.strip() for line in text.splitlines()[1:4]))
    rt = FP8Runtime(source=source, input_name=input_name, fast=False, policy=policy)  # no layer of ours uses it
    return LoadResult(patcher, text, Stats(), Plan({}, keep, "nothing converted: ComfyUI's own FP8 layers", {}), norm,
                      "comfy", family, rt, comfy_layers=True)


def _out_of_memory(err, during: str):
    """The loader's out-of-memory error (accel.common.errors.out_of_memory): on the GPU (the layers are quantized there)
    an error of torch's out-of-memory class, so ComfyUI unloads its models and queueing again finds the VRAM free."""
    import comfy.model_management as mm

    gpu = isinstance(oom_cause(err), getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError)
    device = mm.get_torch_device() if gpu else "cpu"
    remedies = ["queue the prompt again once other models are unloaded (ComfyUI unloads them after this error)"
                if gpu else "close other programs or enlarge the swap / page file",
                "save the model once as FP8 with 'Accel Save FP8 Model' (or use a published *_fp8_scaled file) and "
                "load that file: nothing is quantized on load and it reads half the bytes of a bf16 file",
                "or load it with ComfyUI's Load Diffusion Model, weight_dtype fp8_e4m3fn"]
    return out_of_memory(err, during, device, remedies)


def _cli_forces_unet_dtype() -> bool:
    try:
        from comfy.cli_args import args
    except Exception:
        return False
    return any(getattr(args, f, False) for f in ("fp32_unet", "fp64_unet", "bf16_unet", "fp16_unet",
                                                  "fp8_e4m3fn_unet", "fp8_e5m2_unet", "fp8_e8m0fnu_unet"))


def activation_dtype(model_dtype, path: str, supported, requested=None) -> tuple:
    """The dtype the non-FP8 layers and activations use: ComfyUI's choice (`model_dtype`), except that
    the row-wise FP8 matmul on a torch that writes only bf16 makes an fp16 model pay a conversion pass
    after every FP8 layer (~0.2-0.5 ms per Wan 14B linear); there, bf16 is used when the model supports
    it and no --*-unet launch flag fixes the dtype. Returns (dtype, note for the report or "")."""
    if requested is not None:
        return requested, f"{_dtype_name(requested)} (requested)"
    if (path in ("scaled_mm_rowwise", kfp8.BLOCK_MODE) and model_dtype == torch.float16 and torch.bfloat16 in supported
            and not _cli_forces_unet_dtype()):
        import comfy.model_management as mm

        dev = mm.get_torch_device()
        probe = kfp8.block_out_dtypes if path == kfp8.BLOCK_MODE else kfp8.rowwise_out_dtypes
        if getattr(dev, "type", "cpu") == "cuda" and torch.float16 not in probe(dev):
            kind = "1x128 blockwise" if path == kfp8.BLOCK_MODE else "row-wise"
            return torch.bfloat16, (f"bfloat16 instead of ComfyUI's float16: this PyTorch's {kind} FP8 matmul "
                                    "writes bfloat16 only, so float16 would add a conversion after every FP8 layer")
    return model_dtype, ""


def _strip_prefix(layer: str) -> str:
    for p in ("model.diffusion_model.", "diffusion_model.", "model.", "net."):
        if layer.startswith(p):
            return layer[len(p):]
    return layer


def _linear_bytes(dm):
    lin = other = 0
    for m in dm.modules():
        for p in m.parameters(recurse=False):
            n = p.numel() * p.element_size()
            if isinstance(m, torch.nn.Linear):
                lin += n
            else:
                other += n
    for b in dm.buffers():
        other += b.numel() * b.element_size()
    return lin, other


_ACT_TEXT = {"scaled_mm_rowwise": "per-token", kfp8.BLOCK_MODE: "1x128-block", "scaled_mm_tensorwise": "per-tensor"}


def _report(res: LoadResult, keep_dtype, path_reason: str, weight_format: str, auto_note: str = "") -> tuple:
    """(the report's details, its first screen's line on what was loaded)."""
    norm, family, plan, stats, rt = res.normalized, res.family, res.plan, res.stats, res.runtime
    source, path, dm = rt.source, res.compute, res.patcher.model.diffusion_model
    lin, other = _linear_bytes(dm)
    total = lin + other
    itemsize = torch.tensor([], dtype=keep_dtype).element_size()
    stock = sum(p.numel() for n, p in dm.named_parameters() if not n.endswith("weight_scale")) * itemsize
    lines = [f"Accel FP8 loader: {source}",
             f"  model: {family.name} ({family.base_class})",
             f"  stored: {norm.describe()}, {format_bytes(norm.stored_bytes)} on disk"]
    fmts = ", ".join(f"{n} {k}" for k, n in sorted(stats.formats.items())) or "none"
    action = []
    if stats.quantized:
        action.append(f"{stats.quantized} quantized on load")
    if stats.kept_fp8:
        action.append(f"{stats.kept_fp8} fp8 as stored")
    if stats.requantized:
        action.append(f"{stats.requantized} requantized (double rounding)")
    if stats.dequantized:
        action.append(f"{stats.dequantized} dequantized to {_dtype_name(keep_dtype)}")
    lines.append(f"  weight_format: {weight_format} -> fp8 linear layers: {fmts} ({'; '.join(action) or 'none'})")
    if auto_note:
        lines.append(f"  {'auto' if weight_format == FORMAT_AUTO else 'measured'}: {auto_note}")
    kept = ", ".join(f"{n} {why}" for why, n in sorted(plan.kept.items())) or "none"
    lines.append(f"  kept high precision ({_dtype_name(keep_dtype)}): {stats.high_precision} linear layers [{kept}], "
                 f"and all norms, biases and modulation parameters")
    lines.append(f"  keep rule: {plan.choice} ({plan.reason})")
    lines.append(f"  weights in memory: {format_bytes(total)} (linear {format_bytes(lin)}, other "
                 f"{format_bytes(other)}) vs {format_bytes(stock)} all in {_dtype_name(keep_dtype)} (ComfyUI's own "
                 f"load on this device): saved {format_bytes(max(0, stock - total))} ({total / max(1, stock):.2f}x)")
    if not stats.formats:
        comp = "no fp8 layers: ComfyUI's usual matmuls"
    elif path == "dequant":
        comp = f"dequantize per layer to the compute dtype - {path_reason}"
    else:
        comp = f"{path} (dynamic {_ACT_TEXT.get(path, 'per-tensor')} activation scales" + \
            ("" if rt.use_fast_accum else ", fp32 accumulation") + ")"
        comp += f" - {path_reason}"
        if any(k.startswith("e5m2") for k in stats.formats):
            comp += "; e5m2 layers dequantize (FP8 matmul needs e4m3fn)"
    lines.append(f"  compute: {comp}")
    if stats.formats:
        deviation = measured_deviation(rt.mode, rt.use_fast_accum, gains.model_kind(family))
        lines.append(f"  measured deviation: {deviation}")
    for note in norm.notes:
        lines.append(f"  note: {note}")
    tip = _scaled_fp8_tip(norm, family)
    if tip:
        lines.append(f"  tip: {tip}")
    if stats.nonfinite:
        lines.append(f"  warning: {nonfinite_text(stats.nonfinite)}")
    n_fp8 = sum(stats.formats.values())
    loaded = (f"  {family.name}: {n_fp8} linear layers in FP8, {format_bytes(total)} of weights "
              f"({format_bytes(max(0, stock - total))} less than {_dtype_name(keep_dtype)}), compute "
              f"{'dequantize per layer' if path == 'dequant' or not n_fp8 else path}")
    return "\n".join(lines), loaded


def _scaled_fp8_tip(norm, family) -> str:
    """For a Wan file in ComfyUI's scaled-fp8 layout (the `*_fp8_scaled` files the Wan 2.2 workflows load): ComfyUI's
    own loader runs it in FP8 too, and with the LightX2V LoRA Level-1 on that loader measured faster than this loader
    (bench/results/h200/fp8_stored_033_interleaved/README.md). Else ""."""
    if ("scaled_fp8" not in norm.forms or not family.is_wan
            or any(dt != kfp8.E4M3 for dt, _ in norm.fp8_layers.values())):
        return ""  # (the measured files are e4m3fn, as Comfy-Org publishes them)
    return ("ComfyUI's own Load Diffusion Model runs this scaled-fp8 file in FP8 too (ComfyUI 0.33+); on the Wan 2.2 "
            "A14B LightX2V workflow (a LoRA on each expert) Accel Wan Level-1 on ComfyUI's loader measured faster than "
            f"this loader: {figures.text('fp8stored.h200.wf.level1.speedup')} vs "
            f"{figures.text('fp8stored.h200.wf.fp8own_level1.speedup')} stock on an H200 "
            f"({figures.RESULTS}/{figures.fig('fp8stored.h200.wf.level1.speedup').file})")


def _report_16bit(source, norm, family, dm, note) -> str:
    params = list(dm.parameters()) + list(dm.buffers())
    total = sum(p.numel() * p.element_size() for p in params)
    dtypes = sorted({_dtype_name(p.dtype) for p in dm.parameters()})
    return "\n".join([f"Accel FP8 loader: {source}",
                      f"  model: {family.name} ({family.base_class})",
                      f"  stored: {norm.describe()}, {format_bytes(norm.stored_bytes)} on disk",
                      f"  weight_format: auto -> {note}",
                      f"  weights in memory: {format_bytes(total)} ({', '.join(dtypes)}), as ComfyUI's own loader "
                      "loads them",
                      "  compute: ComfyUI's own layers and matmuls (no FP8)"])


def load(path: str, options: FP8LoadOptions | None = None) -> LoadResult:
    """Read and load a safetensors diffusion model file as `options` say (see `load_state_dict`)."""
    o = options if options is not None else FP8LoadOptions()  # checked before a large file is read
    source = os.path.basename(path)
    sd, metadata = formats.read_file(path, o.input_name)
    res = load_state_dict(sd, metadata, source, o)
    p = res.patcher
    if res.comfy_layers and comfy_compat.can_reload_patcher(p):
        import comfy.sd

        # ComfyUI's own model: re-created as its Load Diffusion Model registers it (the decision stays made)
        p.cached_patcher_init = (comfy.sd.load_diffusion_model, (path, {}))
    elif comfy_compat.can_reload_patcher(p):  # ComfyUI 0.33: lets clone(disable_dynamic=True) / multi-GPU re-create it
        # plain values (the policy's word, the node title its errors name): the reload runs outside the node
        settings = dict(o.plain(), auto_16bit=res.auto_16bit)
        p.cached_patcher_init = (_reload_patcher, (path, settings, current_title()))
    return res


def load_file(path: str, weight_format: str = FORMAT_AUTO, compute: str = COMPUTE_AUTO, keep: str = KEEP_AUTO,
              extra_keep: str = "", **options) -> LoadResult:
    """As `load(path, FP8LoadOptions(weight_format=..., compute=..., keep=..., extra_keep=..., **options))`: the other
    fields of FP8LoadOptions (policy, activation_scaling, input_name, profile, ...) as keyword arguments."""
    return load(path, FP8LoadOptions(weight_format=weight_format, compute=compute, keep=keep, extra_keep=extra_keep,
                                     **options))


def _reload_patcher(path, settings: dict, title=None, disable_dynamic=False):
    """ComfyUI's `cached_patcher_init` of a model this loader loaded: the same file with the same `settings`
    (FP8LoadOptions.plain(), with the first load's `auto` decision: free VRAM differs while the model is loaded)."""
    with titled(title):
        return load(path, FP8LoadOptions(**settings, disable_dynamic=disable_dynamic)).patcher
