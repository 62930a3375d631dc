"""Every FP8 checkpoint form users have, read into one canonical state dict; and the portable writer.

Forms read (`detect_forms` names them):
  high_precision  bf16 / fp16 / fp32 weights (quantized on load by accel.fp8)
  scaled_fp8      ComfyUI's legacy form: marker tensor `scaled_fp8` (its dtype = the fp8 format,
                  fp32 meaning e4m3fn) + `<layer>.scale_weight` (+ optional `<layer>.scale_input`)
  quant_metadata  safetensors metadata `_quantization_metadata` = {"format_version", "layers":
                  {layer: {"format": "float8_e4m3fn"}}} + `<layer>.weight_scale` (+ `input_scale`)
  comfy_quant     ComfyUI 0.33's per-layer `<layer>.comfy_quant` (uint8 JSON bytes) + `weight_scale`
  weight_scale    `<layer>.weight_scale` without metadata: per-channel (N,1)/(N,) as LightX2V and
                  KJ write them, or per-tensor
  plain_fp8       fp8 weights without any scale (unit scale, what UNETLoader's fp8 options store)

Canonical form (what accel.fp8's operations load): every 2-D fp8 `<layer>.weight` has an fp32
`<layer>.weight_scale` of shape () or (N, 1); markers, `comfy_quant` tensors and static input scales
are removed (activations are scaled per token at run time). Everything else passes through.

Portable form (`portable_metadata` / `write_portable`): fp8 e4m3fn weight + fp32 scalar
`<layer>.weight_scale` + metadata `_quantization_metadata` with dict values: stock UNETLoader of
ComfyUI 0.3.75 loads it directly, 0.33 converts it with `convert_old_quants`. Per-channel scales are
not portable to 0.3.75 (its TensorCoreFP8Layout takes a scalar), so the writer takes per-tensor only.
"""
from __future__ import annotations

import errno
import json
import os
import struct
from dataclasses import dataclass, field

import torch

from ...kernels import fp8_linear as kfp8
from ..common.errors import AccelError, oom_cause, out_of_memory

SAFETENSORS_DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
    "F8_E4M3": torch.float8_e4m3fn, "F8_E5M2": torch.float8_e5m2,
    "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
    "BOOL": torch.bool,
}
# Dtypes a weight may have. Anything else (int8, uint8 packed fp4, e8m0, fnuz fp8, ...) is refused.
WEIGHT_DTYPES = (torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.float8_e4m3fn, torch.float8_e5m2)
QUANT_FORMATS = {"float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2}
MARKER = "scaled_fp8"
SCALE_SUFFIXES = (".weight_scale", ".scale_weight")
INPUT_SCALE_SUFFIXES = (".input_scale", ".scale_input")
OTHER_QUANT_SUFFIXES = (".weight_scale_2",)  # nvfp4 second-level scales: only with an nvfp4 format
MAX_HEADER = 100 * 1024 * 1024

PORTABLE_FORMAT_VERSION = "1.0"


def _name(path) -> str:
    return os.path.basename(str(path))


@dataclass
class Normalized:
    """Result of `normalize`: the canonical state dict and what was found."""

    sd: dict
    metadata: dict
    forms: list = field(default_factory=list)  # e.g. ["scaled_fp8"], ["high_precision"]
    fp8_layers: dict = field(default_factory=dict)  # layer -> (dtype, "tensor"|"channel")
    notes: list = field(default_factory=list)
    hp_dtype: torch.dtype | None = None  # most common high-precision float dtype (by elements)
    stored_bytes: int = 0
    scaled_layers: set = field(default_factory=set)  # fp8 layers whose scale is not 1
    # a `scaled_fp8` marker of two elements: ComfyUI then runs the layers' matmuls in 16 bits (convert_old_quants)
    marker_full_precision: bool = False

    @property
    def is_quantized(self) -> bool:
        return bool(self.fp8_layers)

    def describe(self) -> str:
        forms = " + ".join(self.forms) or "empty"
        if not self.fp8_layers:
            return f"{forms} ({_dtype_name(self.hp_dtype)})"
        kinds = {}
        for dt, gran in self.fp8_layers.values():
            key = f"{_dtype_name(dt)} per-{gran}"
            kinds[key] = kinds.get(key, 0) + 1
        parts = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
        return f"{forms}: {parts} layers"


def _dtype_name(dt) -> str:
    return str(dt).replace("torch.", "") if dt is not None else "?"


# --- reading -------------------------------------------------------------------------------------

def check_safetensors(path, input_name: str) -> dict:
    """Validate a safetensors file's header before loading it; return the parsed header.

    Raises AccelError naming the file (and the tensor) for: not a file, not safetensors, truncated.
    """
    name = _name(path)
    remedy_dl = "Download the file again (a partial download or a full disk leaves it truncated)"
    if not os.path.isfile(path):
        raise AccelError(input_name, f"'{name}' does not exist ({path})", "Pick a file from the list")
    size = os.path.getsize(path)
    lower = name.lower()
    if lower.endswith(".gguf"):
        raise AccelError(input_name, f"'{name}' is a GGUF file, not safetensors",
                         "Load GGUF models with ComfyUI-GGUF's Unet Loader (GGUF)")
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise AccelError(input_name, f"'{name}' is not a safetensors file: it is only {size} bytes long", remedy_dl)
        (n,) = struct.unpack("<Q", head)
        if n < 2 or n > MAX_HEADER:
            hint = ""
            if head[:2] == b"PK" or head[:1] == b"\x80":
                hint = " (it looks like a PyTorch pickle/zip checkpoint)"
            raise AccelError(input_name, f"'{name}' is not a safetensors file{hint}",
                             "This loader reads .safetensors files only; convert the checkpoint to safetensors or use "
                             "ComfyUI's own loader")
        if 8 + n > size:
            raise AccelError(input_name,
                             f"'{name}' is truncated: its header needs {8 + n} bytes but the file has {size}",
                             remedy_dl)
        raw = f.read(n)
    try:
        header = json.loads(raw.decode("utf-8"))
        if not isinstance(header, dict):
            raise ValueError("header is not a JSON object")
    except Exception as e:
        raise AccelError(input_name, f"'{name}' is not a safetensors file (unreadable header: {e})",
                         "This loader reads .safetensors files only") from None
    data_len = size - 8 - n
    for key, info in header.items():
        if key == "__metadata__":
            continue
        try:
            start, end = info["data_offsets"]
            dtype = info["dtype"]
        except Exception:
            raise AccelError(input_name, f"'{name}': tensor '{key}' has a malformed header entry",
                             remedy_dl) from None
        if end > data_len or start > end:
            raise AccelError(input_name,
                             f"'{name}' is truncated: tensor '{key}' needs bytes {start}..{end} of the data section "
                             f"but only {data_len} bytes are present", remedy_dl)
        if dtype not in SAFETENSORS_DTYPES:
            raise AccelError(input_name,
                             f"'{name}': tensor '{key}' has dtype {dtype}, which this loader does not support",
                             "Supported: F32, F16, BF16, F8_E4M3, F8_E5M2 weights (plus U8 comfy_quant tags)")
    return header


def read_file(path, input_name: str):
    """(state_dict, metadata) of a safetensors file, validated first (see `check_safetensors`)."""
    check_safetensors(path, input_name)
    import comfy.utils

    try:
        sd, metadata = comfy.utils.load_torch_file(str(path), safe_load=True, return_metadata=True)
    except Exception as e:
        if oom_cause(e) is not None:  # the file is fine: host memory ran out (issue #29)
            raise out_of_memory(e, f"while reading '{_name(path)}' ({os.path.getsize(path) / 2**30:.2f} GiB)", "cpu",
                                ["close other programs or enlarge the swap / page file",
                                 "use an FP8 file of the model (Accel Save FP8 Model, or a published *_fp8_scaled "
                                 "file): half the bytes of a bf16 file"]) from e
        raise AccelError(input_name, f"'{_name(path)}' could not be read ({type(e).__name__}: {e})",
                         "Download the file again") from None
    return sd, dict(metadata or {})


# --- normalizing ---------------------------------------------------------------------------------

def _parse_comfy_quant(t: torch.Tensor, key: str, src: str, input_name: str) -> dict:
    try:
        conf = json.loads(bytes(t.to(torch.uint8).flatten().tolist()).decode("utf-8"))
        if not isinstance(conf, dict):
            raise ValueError("not a JSON object")
        return conf
    except Exception as e:
        raise AccelError(input_name, f"'{src}': tensor '{key}' is not a valid comfy_quant tag ({e})",
                         "The file is damaged or written by an incompatible tool") from None


def _parse_quant_metadata(raw, src: str, input_name: str) -> dict:
    try:
        data = json.loads(raw) if isinstance(raw, str) else raw
        layers = data["layers"]
        if not isinstance(layers, dict):
            raise ValueError("'layers' is not an object")
    except Exception as e:
        raise AccelError(input_name, f"'{src}': safetensors metadata '_quantization_metadata' is invalid ({e})",
                         "The file is damaged or written by an incompatible tool") from None
    out = {}
    for layer, conf in layers.items():
        if isinstance(conf, str):  # the bare-string form of ComfyUI's QUANTIZATION.md (stock 0.3.75 crashes on it)
            conf = {"format": conf}
        if not isinstance(conf, dict):
            raise AccelError(input_name,
                             f"'{src}': '_quantization_metadata' entry for layer '{layer}' is not an object",
                             "The file is damaged or written by an incompatible tool")
        out[layer] = conf
    return out


def _check_format(fmt, layer: str, where: str, src: str, input_name: str):
    if fmt in QUANT_FORMATS:
        return QUANT_FORMATS[fmt]
    raise AccelError(input_name,
                     f"'{src}': layer '{layer}' uses quantization format '{fmt}' ({where}), which this loader does not "
                     "read",
                     "This loader reads float8_e4m3fn / float8_e5m2 layers; load this file with ComfyUI's stock "
                     "Load Diffusion Model node (ComfyUI >= 0.33 reads nvfp4/mxfp8/int8 formats)")


def normalize(sd: dict, metadata: dict | None, src: str, input_name: str) -> Normalized:
    """Bring any supported form into the canonical one (see module doc). Validates as it goes."""
    metadata = dict(metadata or {})
    forms: list = []
    notes: list = []

    layer_conf: dict = {}  # layer -> conf dict (from metadata or comfy_quant)
    raw_meta = metadata.pop("_quantization_metadata", None)
    if raw_meta is not None:
        forms.append("quant_metadata")
        for layer, conf in _parse_quant_metadata(raw_meta, src, input_name).items():
            layer_conf[layer] = (conf, "_quantization_metadata")

    marker_keys = [k for k in sd if k == MARKER or k.endswith("." + MARKER)]
    marker_dtype, marker_full_precision = None, False
    for k in marker_keys:
        marker_dtype = sd[k].dtype
        marker_full_precision = marker_full_precision or sd[k].numel() == 2
        if "scaled_fp8" not in forms:
            forms.append("scaled_fp8")

    cq_keys = [k for k in sd if k.endswith(".comfy_quant")]
    if cq_keys:
        forms.append("comfy_quant")
    for k in cq_keys:
        layer = k[: -len(".comfy_quant")]
        layer_conf.setdefault(layer, (_parse_comfy_quant(sd[k], k, src, input_name), "comfy_quant"))

    # Resolve metadata layer names that lack the checkpoint's key prefix (e.g. model.diffusion_model.)
    weight_layers = {k[: -len(".weight")] for k in sd if k.endswith(".weight")}
    resolved_conf = {}
    for layer, val in layer_conf.items():
        if layer in weight_layers:
            resolved_conf[layer] = val
            continue
        matches = [w for w in weight_layers if w.endswith("." + layer)]
        if len(matches) == 1:
            resolved_conf[matches[0]] = val
        else:
            raise AccelError(input_name,
                             f"'{src}': layer '{layer}' is listed as quantized ({val[1]}) but the file has no tensor "
                             f"'{layer}.weight'",
                             "The file is damaged or its quantization metadata belongs to another model")
    layer_conf = resolved_conf

    scale_keys = {}
    for k in sd:
        for suf in SCALE_SUFFIXES:
            if k.endswith(suf):
                scale_keys[k[: -len(suf)]] = k
    dropped_inputs = [k for k in sd if k.endswith(INPUT_SCALE_SUFFIXES)]
    if scale_keys and not forms:
        forms.append("weight_scale")

    out: dict = {}
    fp8_layers: dict = {}
    scaled_layers: set = set()
    hp_counts: dict = {}
    stored = 0
    skip = set(marker_keys) | set(cq_keys) | set(dropped_inputs) | set(scale_keys.values())
    for k, t in sd.items():
        stored += t.numel() * t.element_size()
        if k in skip:
            continue
        if k.endswith(OTHER_QUANT_SUFFIXES):
            layer = k.rsplit(".", 1)[0]
            fmt = layer_conf.get(layer, ({"format": "nvfp4"}, "weight_scale_2"))[0].get("format")
            _check_format(fmt, layer, "has a second-level weight_scale_2", src, input_name)
        is_weight = k.endswith(".weight")
        layer = k[: -len(".weight")] if is_weight else None
        if t.is_floating_point() and t.dtype not in kfp8.FP8_DTYPES and t.dtype in WEIGHT_DTYPES:
            hp_counts[t.dtype] = hp_counts.get(t.dtype, 0) + t.numel()
        if not is_weight:
            out[k] = t
            continue
        conf = layer_conf.get(layer)
        if t.dtype not in WEIGHT_DTYPES:
            if conf is not None:
                _check_format(conf[0].get("format"), layer, conf[1], src, input_name)
            raise AccelError(input_name,
                             f"'{src}': tensor '{k}' has dtype {_dtype_name(t.dtype)}, which this loader does not "
                             "support",
                             "Supported weight dtypes: float32, float16, bfloat16, float8_e4m3fn, float8_e5m2 "
                             "(int8/fp4 checkpoints need the loader they were made for)")
        scale_key = scale_keys.get(layer)
        if conf is not None:
            want = _check_format(conf[0].get("format"), layer, conf[1], src, input_name)
            if t.dtype != want:
                raise AccelError(input_name,
                                 f"'{src}': tensor '{k}' is {_dtype_name(t.dtype)} but {conf[1]} lists layer '{layer}' "
                                 f"as {conf[0].get('format')}",
                                 "The file is damaged or its quantization metadata belongs to another model")
            if scale_key is None:
                raise AccelError(input_name,
                                 f"'{src}': missing scale: layer '{layer}' is quantized ({conf[1]}) but the file has "
                                 f"no '{layer}.weight_scale'",
                                 "The file is incomplete; download it again or use the bf16 original")
        if not kfp8.is_fp8(t):
            out[k] = t
            if scale_key is not None:
                s = sd[scale_key]
                if s.numel() == 1 and float(s.float().reshape(())) == 1.0:
                    continue
                raise AccelError(input_name,
                                 f"'{src}': tensor '{scale_key}' scales '{k}', which is {_dtype_name(t.dtype)} and not "
                                 "fp8",
                                 "The file mixes formats in a way this loader cannot interpret; use the original "
                                 "checkpoint")
            continue
        # fp8 weight
        if t.ndim != 2:
            out[k] = t  # fp8 conv/other weights: ComfyUI casts them as stored (unit scale)
            if scale_key is not None:
                raise AccelError(input_name,
                                 f"'{src}': tensor '{scale_key}' scales '{k}' of shape {tuple(t.shape)}; only 2-D "
                                 "(linear) weights can be scaled",
                                 "Use the original checkpoint")
            continue
        if scale_key is None:
            if conf is not None or marker_keys or scale_keys:
                form = conf[1] if conf is not None else ("scaled_fp8" if marker_keys else "weight_scale")
                raise AccelError(input_name,
                                 f"'{src}': missing scale: tensor '{k}' is {_dtype_name(t.dtype)} but the file has no "
                                 f"'{layer}.scale_weight' / '{layer}.weight_scale' although it is a scaled ({form}) "
                                 "checkpoint",
                                 "The file is incomplete; download it again or use the bf16 original")
            out[k] = t  # plain fp8: unit scale (the Linear assumes 1 when no scale is given)
            fp8_layers[layer] = (t.dtype, "tensor")
            continue
        else:
            s = sd[scale_key]
            if not s.is_floating_point() or kfp8.is_fp8(s):
                raise AccelError(input_name,
                                 f"'{src}': scale '{scale_key}' has dtype {_dtype_name(s.dtype)}; scales must be "
                                 "float32/16",
                                 "The file is damaged or written by an incompatible tool")
            scale = kfp8.canonical_scale(s, t.shape[0])
            if scale is None:
                raise AccelError(input_name,
                                 f"'{src}': scale of the wrong shape: '{scale_key}' has shape {tuple(s.shape)} but "
                                 f"weight '{k}' {tuple(t.shape)} needs a scalar (per-tensor) or ({t.shape[0]}, 1) "
                                 "(per-channel) scale",
                                 "The file is damaged or its scales belong to another model")
            if not torch.isfinite(scale).all() or (scale <= 0).any():
                raise AccelError(input_name,
                                 f"'{src}': scale '{scale_key}' has non-positive or non-finite values",
                                 "The file is damaged; download it again")
        out[k] = t
        out[layer + ".weight_scale"] = scale
        fp8_layers[layer] = (t.dtype, "tensor" if scale.ndim == 0 else "channel")
        if not (scale.numel() == 1 and float(scale) == 1.0):
            scaled_layers.add(layer)

    orphan = [layer for layer in scale_keys if layer + ".weight" not in sd]
    if orphan:
        raise AccelError(input_name,
                         f"'{src}': scale '{scale_keys[orphan[0]]}' has no weight tensor '{orphan[0]}.weight'",
                         "The file is damaged or mixes two models")
    if fp8_layers and not forms:
        forms.append("plain_fp8")
        notes.append("plain fp8 without scales: unit scale")
    if any(fp8_layers) and marker_dtype is not None and marker_dtype not in (torch.float32,) + kfp8.FP8_DTYPES:
        notes.append(f"scaled_fp8 marker has dtype {_dtype_name(marker_dtype)}; weights read as stored")
    if dropped_inputs:
        notes.append(f"{len(dropped_inputs)} static input scales ignored (activations are scaled per token at run "
                     "time)")
    hp_counts_nonfp8 = {k: v for k, v in hp_counts.items() if k != torch.float64}
    hp = max(hp_counts_nonfp8, key=hp_counts_nonfp8.get) if hp_counts_nonfp8 else None
    if not fp8_layers and not forms:
        forms.append("high_precision")
    return Normalized(out, metadata, forms, fp8_layers, notes, hp, stored, scaled_layers, marker_full_precision)


# --- writing -------------------------------------------------------------------------------------

def portable_metadata(quant_layers, fmt: str = "float8_e4m3fn", extra: dict | None = None) -> dict:
    """safetensors metadata both ComfyUI 0.3.75 and 0.33 read: dict values (not bare strings)."""
    meta = {"_quantization_metadata": json.dumps(
        {"format_version": PORTABLE_FORMAT_VERSION,
         "layers": {layer: {"format": fmt} for layer in sorted(quant_layers)}})}
    for k, v in (extra or {}).items():
        meta[str(k)] = str(v)
    return meta


def _save_file(tensors: dict, filename: str, metadata: dict | None = None) -> None:
    """safetensors' writer (one name, so tests can make it fail like a full disk)."""
    from safetensors.torch import save_file

    save_file(tensors, filename, metadata=metadata)


def publish(tmp: str, path: str) -> None:
    """Give the finished `tmp` file its final name without ever replacing a file at `path` (one that
    appeared while the model was being quantized): a hard link fails if `path` exists; where the
    filesystem has no hard links, `path` is checked just before the rename. Raises FileExistsError."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:  # no hard links here (some network/FUSE/FAT filesystems)
        if os.path.lexists(path):
            raise FileExistsError(errno.EEXIST, "a file of this name appeared during the save", path) from None
        os.replace(tmp, path)
        return
    os.unlink(tmp)


def write_portable(path, tensors: dict, quant_layers, extra_metadata: dict | None = None,
                   tmp: str | None = None) -> str:
    """Write `tensors` (fp8 weights + fp32 scalar `<layer>.weight_scale` for each of `quant_layers`)
    with the portable metadata: into `tmp` (default `<path>.partial`), then renamed to `path`, which is
    never replaced (FileExistsError). Checks the invariants the stock loaders rely on first."""
    for layer in quant_layers:
        w = tensors[layer + ".weight"]
        s = tensors[layer + ".weight_scale"]
        if w.dtype != torch.float8_e4m3fn or s.dtype != torch.float32 or s.numel() != 1:
            raise ValueError(f"layer {layer}: portable format needs an e4m3fn weight and an fp32 scalar scale")
    path = str(path)
    if os.path.lexists(path):
        raise FileExistsError(errno.EEXIST, "the target file exists", path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = tmp or path + ".partial"
    out = {k: v.detach().contiguous().cpu() for k, v in tensors.items()}
    # An empty `scaled_fp8` marker: stock ComfyUI 0.3.75 otherwise picks fp8 as the model dtype for
    # such a file on FP8-capable GPUs (weight_dtype = the most common dtype) and stores the norms and
    # modulation in fp8 too; with the marker it picks bf16/fp16 for them (0.33 ignores it).
    out[MARKER] = torch.empty((0,), dtype=torch.float8_e4m3fn)
    _save_file(out, tmp, metadata=portable_metadata(quant_layers, extra=extra_metadata))
    publish(tmp, path)
    return path
