"""Save an FP8 model in the portable format (per-tensor e4m3fn + _quantization_metadata, loadable by ComfyUI's own
loader): the checked, reserved target, the tensors, the write."""
from __future__ import annotations

import os
from dataclasses import dataclass

import torch

from ...kernels import fp8_linear as kfp8
from .. import comfy_compat
from ..common import families, log
from ..common.errors import AccelError, quoted
from . import formats
from .load import format_bytes, load_file
from .ops import is_accel_linear, saturation_text
from .options import COMPUTE_DEQUANT, KEEP_AUTO
from .plan import plan_layers, unmatched_text


def _scaled_weight(m):
    """How a layer keeps a weight whose stored values are not its values (see `comfy_compat.stored_weight`): this pack's
    FP8 layers (`weight_scale`) first, then every layer kind ComfyUI builds; None for a weight that is its values."""
    if is_accel_linear(m) and m.weight_scale is not None:
        return "fp8", m.weight.detach(), m.weight_scale.detach()
    return comfy_compat.stored_weight(m)


def _portable_fp8(kind, w, scale=None):
    """(e4m3fn values, fp32 scalar scale, requantized?) of a scaled weight: as stored when it is e4m3fn with one scale,
    else requantized per tensor from its values."""
    if kind == "fp8":
        if w.dtype == kfp8.E4M3 and scale.numel() == 1:
            return w, scale.reshape(()), False
        s = kfp8.canonical_scale(scale.float(), w.shape[0])
        if s is not None:
            w8, s8 = kfp8.requantize(w, s, kfp8.E4M3, per_channel=False)
            return w8, s8, True
        w = w.float() * scale.float()  # a scale of another shape that broadcasts (the layer multiplies by it)
    w8, s8 = kfp8.quantize_weight(w.float(), kfp8.E4M3, per_channel=False)
    return w8, s8, True


def portable_tensors(patcher, hp_dtype=torch.bfloat16, keep: str = KEEP_AUTO, extra_keep: str = ""):
    """(tensors, quant_layers, notes) of a MODEL in the portable form: every quantized Linear as fp8
    e4m3fn + fp32 scalar weight_scale (per-channel / e5m2 / other formats requantized per tensor; a model
    not loaded by our loader is quantized with the same layer plan), all else in `hp_dtype`.
    Scaled weights are read from every layer kind that keeps one: this pack's FP8 layers, ComfyUI 0.3.x's
    scaled-fp8 layers and ComfyUI's quantized-tensor layers (0.3.75's mixed-precision Linear; 0.33's Linear and
    Embedding). LoRA and other weight patches on the MODEL are baked in."""
    import comfy.model_management as mm

    mm.load_models_gpu([patcher], force_patch_weights=True)
    dm = patcher.model.diffusion_model
    plan = None
    notes, quant_layers, tensors = [], [], {}
    requant = 0
    with torch.no_grad():
        modules = dict(dm.named_modules())
        linears = {name: m for name, m in modules.items()
                   if isinstance(m, torch.nn.Linear) or comfy_compat.is_quantized_layer(m)}
        # a scaled weight's stored values are only right with its scale: 0.3.x's scaled-fp8 layers (Load Diffusion
        # Model on a file with the `scaled_fp8` marker) store them beside `scale_weight`, ComfyUI's quantized layers
        # inside their QuantizedTensor, this pack's layers beside `weight_scale`
        scaled = {name: sw for name, m in modules.items() if (sw := _scaled_weight(m)) is not None}
        if not any(is_accel_linear(m) and m.weight_scale is not None for m in linears.values()):
            plan = plan_layers(dm, families.detect(patcher), keep, extra_keep)
        state = dm.state_dict()
        for key, t in state.items():
            layer, _, leaf = key.rpartition(".")
            m = linears.get(layer)
            sw = scaled.get(layer)
            if sw is not None:
                if leaf == "weight" and m is not None and sw[1].ndim == 2:
                    w8, s8, again = _portable_fp8(*sw)
                    requant += again
                    tensors[key] = w8.cpu()
                    tensors[layer + ".weight_scale"] = s8.to(torch.float32).reshape(()).cpu()
                    quant_layers.append(layer)
                elif leaf == "weight":  # a quantized embedding table (0.33): its values, in high precision
                    values = sw[1].float() * sw[2].float() if sw[0] == "fp8" else sw[1]
                    tensors[key] = values.to(hp_dtype).cpu()
                elif leaf == "bias":  # (0.3.x's scaled-fp8 layers store it in fp8: exact in 16 bits)
                    tensors[key] = t.to(hp_dtype).cpu()
                # its other tensors (scale_weight / weight_scale, scale_input / input_scale, comfy_quant, second-level
                # scales) are carried by the portable weight_scale and metadata, or not needed by the values
                continue
            if m is not None and leaf == "weight" and plan is not None and plan.quantize.get(layer, False):
                # (a stock fp8 model's unscaled weights are their values: upcast before scaling)
                w8, s8 = kfp8.quantize_weight(t.float() if kfp8.is_fp8(t) else t, kfp8.E4M3, per_channel=False)
                tensors[key] = w8.cpu()
                tensors[layer + ".weight_scale"] = s8.to(torch.float32).reshape(()).cpu()
                quant_layers.append(layer)
                continue
            tensors[key] = (t.to(hp_dtype) if t.is_floating_point() else t).cpu()
    if requant:
        notes.append(f"{requant} per-channel/e5m2 (or other quantized) layers requantized to per-tensor e4m3fn (stock "
                     f"ComfyUI 0.3.75 reads scalar scales only)")
    if plan is not None and plan.unmatched:
        example = next((k for k, q in plan.quantize.items() if q), "blocks.0.self_attn.q")
        notes.append("warning: " + unmatched_text(plan.unmatched, example))
    saturated = {}
    patched = set(getattr(patcher, "patches", None) or {})
    for name, m in linears.items():
        rt = getattr(m, "accel_fp8_runtime", None)
        if rt is not None and name in rt.saturated and f"diffusion_model.{name}.weight" in patched:
            saturated[name] = rt.saturated[name]
    if saturated:
        notes.append("warning: baking the weight patches: " + saturation_text(saturated))
    return tensors, quant_layers, notes


_DEFAULT_PREFIX = "accel_fp8"
_PREFIX_REMEDY = "Use a plain name or a sub-folder such as 'wan/my_model'"
_NUMBERED = "_00001.safetensors.partial"  # the longest name a save writes (the temporary file)


def _save_error(problem: str, remedy: str = _PREFIX_REMEDY) -> AccelError:
    return AccelError("filename_prefix", problem, remedy)


def _save_base() -> str:
    import folder_paths

    dirs = folder_paths.get_folder_paths("diffusion_models")
    base = next((d for d in dirs if os.path.basename(os.path.normpath(d)) == "diffusion_models"), dirs[0])
    return os.path.abspath(base)


def _limit(folder: str, name: str, default: int) -> int:
    """The filesystem's name/path length limit at `folder` (its nearest existing ancestor)."""
    while folder and not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    try:
        return int(os.pathconf(folder, name))
    except (AttributeError, OSError, ValueError, TypeError):
        return default


def _inside(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # another drive (Windows)
        return False


def _check_prefix(filename_prefix) -> tuple[str, str, str]:
    """(base, folder, stem) of a save, checked without writing anything: inside models/diffusion_models (also after
    following the folder links on the way), a real file name (not '.', './', 'sub/..'), no NUL/control characters,
    every name within the filesystem's length limit, no existing file where a folder is needed, the folder writable."""
    shown = quoted(filename_prefix)
    prefix = str(filename_prefix if filename_prefix is not None else "").strip() or _DEFAULT_PREFIX
    if "\x00" in prefix:
        raise _save_error(f"{shown} contains a NUL byte, which no file name may contain", "Remove it")
    if any(ord(c) < 32 for c in prefix):
        raise _save_error(f"{shown} contains a control character (newline, tab, ...)", "Remove it")
    prefix = prefix.replace("\\", "/")
    if prefix.lower().endswith(".safetensors"):
        prefix = prefix[: -len(".safetensors")]
    base = _save_base()
    full = os.path.abspath(os.path.join(base, prefix))
    if not _inside(full, base):
        raise _save_error(f"{shown} points outside models/diffusion_models")
    if full == base:
        raise _save_error(f"{shown} does not name a file inside models/diffusion_models (it is the folder itself)")
    real = os.path.realpath(os.path.dirname(full))
    if not _inside(real, os.path.realpath(base)):  # a folder link inside it that leads elsewhere
        raise _save_error(f"{shown} points outside models/diffusion_models: a folder link on the way leads to "
                          f"'{real}'", "Use a plain name or a sub-folder that is not a link")
    parts = os.path.relpath(full, base).split(os.sep)
    name_max = _limit(base, "PC_NAME_MAX", 255)
    for i, part in enumerate(parts):
        n = len(os.fsencode(part)) + (len(_NUMBERED) if i == len(parts) - 1 else 0)
        if n > name_max:
            what = "file name" if i == len(parts) - 1 else f"folder name '{part[:40]}...'"
            raise _save_error(f"{shown}: the {what} is too long ({n} bytes with the number and extension; this "
                              f"filesystem allows {name_max})", "Use a shorter name")
    if len(os.fsencode(full)) + len(_NUMBERED) >= _limit(base, "PC_PATH_MAX", 4096):
        raise _save_error(f"{shown}: the path is too long for this filesystem",
                          "Use a shorter name or fewer sub-folders")
    folder, stem = os.path.split(full)
    existing = folder
    while not os.path.lexists(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise _save_error(f"{shown}: '{os.path.relpath(existing, os.path.dirname(base))}' is a file, not a folder",
                          "Use another name (existing files are never replaced)")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise _save_error(f"{shown}: the folder '{existing}' is not writable",
                          "Check its permissions, or point models/diffusion_models elsewhere (extra_model_paths.yaml)")
    return base, folder, stem


def _candidates(folder: str, stem: str):
    i = 1
    while True:
        path = os.path.join(folder, f"{stem}_{i:05d}.safetensors")
        if not os.path.lexists(path) and not os.path.lexists(path + ".partial"):
            yield path
        i += 1


def output_path(filename_prefix: str) -> str:
    """The next free file for `filename_prefix` under models/diffusion_models (checked, nothing created)."""
    _, folder, stem = _check_prefix(filename_prefix)
    return next(_candidates(folder, stem))


@dataclass
class SaveTarget:
    """A reserved save: `tmp` (`<path>.partial`) was created empty and exclusively before any long work;
    `created` lists the folders made for it. `discard` undoes both."""

    prefix: str
    path: str
    tmp: str
    created: list

    def discard(self) -> None:
        try:
            if os.path.isfile(self.tmp) and not os.path.islink(self.tmp):
                os.unlink(self.tmp)
        except OSError:
            pass
        for d in reversed(self.created):
            try:
                os.rmdir(d)  # only if empty
            except OSError:
                break

    def write_error(self, err: Exception) -> AccelError:
        if isinstance(err, FileExistsError):
            return _save_error(f"'{self.prefix}': '{os.path.basename(self.path)}' appeared in its folder while the "
                               "model was being quantized; it was left as it is and nothing was saved",
                               "Run the node again: it picks the next free number")
        return _save_error(f"'{self.prefix}': could not write '{self.path}' ({type(err).__name__}: {err}); nothing was "
                           "saved",
                           "Check free disk space and the folder's permissions, or choose another filename_prefix")


def reserve_target(filename_prefix: str) -> SaveTarget:
    """Check `filename_prefix` and reserve the next free `<stem>_NNNNN.safetensors` (its `.partial`
    temporary created exclusively): run before loading or quantizing anything."""
    _, folder, stem = _check_prefix(filename_prefix)
    created = []
    try:
        missing = []
        d = folder
        while not os.path.isdir(d):
            missing.append(d)
            d = os.path.dirname(d)
        for d in reversed(missing):
            os.mkdir(d)
            created.append(d)
        for path in _candidates(folder, stem):
            try:
                fd = os.open(path + ".partial", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                continue  # taken between the check and now: the next number
            os.close(fd)
            return SaveTarget(str(filename_prefix), path, path + ".partial", created)
    except OSError as e:
        SaveTarget(str(filename_prefix), "", "", created).discard()
        raise _save_error(f"'{filename_prefix}': cannot create a file in '{folder}' ({type(e).__name__}: {e})",
                          "Check the folder's permissions and free disk space, or choose another "
                          "filename_prefix") from e


def save_portable(patcher, filename_prefix: str, source: str = "MODEL", keep: str = KEEP_AUTO, extra_keep: str = "",
                  target: SaveTarget | None = None) -> str:
    """Save `patcher` in the portable format; returns the report text. The target is checked and
    reserved first (`reserve_target`); an existing file is never replaced; on any failure nothing is left."""
    target = target or reserve_target(filename_prefix)
    try:
        tensors, layers, notes = portable_tensors(patcher, keep=keep, extra_keep=extra_keep)
        if not layers:
            raise AccelError("model", f"{source} has no linear layer to quantize",
                             "Connect a diffusion model (e.g. from Accel Load Diffusion Model (FP8))")
        size = sum(t.numel() * t.element_size() for t in tensors.values())
        try:
            formats.write_portable(target.path, tensors, layers, {"accel_source": source}, tmp=target.tmp)
        except Exception as e:
            raise target.write_error(e) from e
    except BaseException:
        target.discard()
        raise
    path = target.path
    lines = [f"Accel Save FP8 Model: {path}",
             f"  {len(layers)} linear layers fp8 e4m3fn + fp32 scalar weight_scale, metadata _quantization_metadata "
             f"(format 1.0); other tensors bf16; {format_bytes(size)}",
             "  loads with the stock Load Diffusion Model (UNETLoader) of ComfyUI 0.3.75 and 0.33, and with the Accel "
             "FP8 loader; per-channel scales are not portable, so this file is per-tensor"]
    lines += [f"  {n}" if n.startswith("warning:") else f"  note: {n}" for n in notes]
    text = "\n".join(lines)
    log.info(text.splitlines()[0])
    return text


def convert_file(path: str, filename_prefix: str, keep: str = KEEP_AUTO, extra_keep: str = "") -> str:
    """File -> portable file: load through our loader (per-tensor e4m3fn, dequant compute), then save.
    The target is checked and reserved before the file is read."""
    target = reserve_target(filename_prefix)
    try:
        res = load_file(path, "fp8_e4m3fn per-tensor scaled", COMPUTE_DEQUANT, keep, extra_keep,
                        input_name="source_file")
    except BaseException:
        target.discard()
        raise
    return save_portable(res.patcher, filename_prefix, source=os.path.basename(path), target=target)


NO_SOURCE_FILE = "(none)"  # Accel Save FP8 Model's source_file when a MODEL is connected instead


def model_path(input_name: str, name: str, folders: str = "models/diffusion_models") -> str:
    """The full path of a file picked in a diffusion-model list; AccelError naming the input when it is not there."""
    import folder_paths

    path = folder_paths.get_full_path("diffusion_models", name)
    if path is None:
        raise AccelError(input_name, f"'{name}' is not in {folders}",
                         "Refresh the node list (press R) and pick an existing file")
    return path


def save_from_inputs(filename_prefix: str, model=None, source_file: str = NO_SOURCE_FILE,
                     keep: str = KEEP_AUTO) -> str:
    """Accel Save FP8 Model: a connected MODEL or a source_file (exactly one) into the portable format; the report."""
    has_file = bool(source_file) and source_file != NO_SOURCE_FILE
    if model is None and not has_file:
        raise AccelError("model", "nothing to save", "Connect a MODEL or pick a source_file")
    if model is not None and has_file:
        raise AccelError("source_file", "both a MODEL and a source_file are given",
                         "Disconnect the model or set source_file to (none)")
    if has_file:
        return convert_file(model_path("source_file", source_file), filename_prefix, keep)
    return save_portable(model, filename_prefix, keep=keep)
