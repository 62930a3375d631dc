"""Hardware profile: what this machine has, probed once. No ComfyUI import.

`detect()` returns a frozen `HardwareProfile`: device kind (cuda / rocm / mps / cpu), GPU name, SM,
VRAM, torch / CUDA / HIP / cuDNN / triton versions, which attention libraries import (with versions
and kernels), FP8 and TF32 support. Tests build `HardwareProfile` objects by hand to simulate GPUs;
`accel.common.defaults.choose()` maps a profile to the pack's automatic choices.
"""
from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
import shutil
import threading
from dataclasses import dataclass, field

# Each attention library we know, as (key, module to import, distribution names for the version).
# The key is what the backend registry (kernels/attention) refers to.
ATTENTION_LIBRARIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("flash_attn", "flash_attn", ("flash-attn", "flash_attn")),
    ("flash_attn_interface", "flash_attn_interface", ("flash-attn-3", "flash_attn_3", "flashattn-hopper")),
    ("fa3_fwd_interface", "fa3_fwd_interface", ("fa3-fwd", "fa3_fwd")),
    ("flash_attn_cute", "flash_attn.cute", ("flash-attn-4", "flash_attn_4", "flash-attn-cute")),
    ("sageattention", "sageattention", ("sageattention",)),
    ("sageattn3", "sageattn3", ("sageattn3", "sageattention3")),
    ("xformers", "xformers.ops", ("xformers",)),
)

# Kernels a SageAttention install may export; which exist depends on its version and build.
SAGE_KERNELS = (
    "sageattn",
    "sageattn_qk_int8_pv_fp16_triton",
    "sageattn_qk_int8_pv_fp16_cuda",
    "sageattn_qk_int8_pv_fp8_cuda",
    "sageattn_qk_int8_pv_fp8_cuda_sm90",
)


@dataclass(frozen=True)
class LibraryInfo:
    """One attention library: did it import, which version, which kernels, and why not."""

    key: str
    available: bool
    version: str | None = None
    kernels: tuple[str, ...] = ()
    error: str | None = None

    def describe(self) -> str:
        if not self.available:
            return f"{self.key}: not available ({self.error or 'not installed'})"
        text = f"{self.key} {self.version or '(version unknown)'}"
        if self.kernels:
            text += " [" + ", ".join(self.kernels) + "]"
        return text


@dataclass(frozen=True)
class HardwareProfile:
    device_kind: str  # "cuda" | "rocm" | "mps" | "cpu"
    gpu_name: str | None = None
    sm: tuple[int, int] | None = None  # CUDA compute capability; None elsewhere
    gcn_arch: str | None = None  # ROCm architecture name, e.g. "gfx942"
    vram_bytes: int | None = None
    torch_version: str = ""
    cuda_version: str | None = None
    hip_version: str | None = None
    cudnn_version: int | None = None
    triton_version: str | None = None
    c_compiler: str | None = None
    libraries: dict = field(default_factory=dict)  # key -> LibraryInfo

    # --- derived facts -------------------------------------------------------------------------
    @property
    def sm_int(self) -> int | None:
        """Compute capability as an int: (8, 9) -> 89, (9, 0) -> 90, (12, 0) -> 120."""
        return None if self.sm is None else self.sm[0] * 10 + self.sm[1]

    @property
    def is_gpu(self) -> bool:
        return self.device_kind in ("cuda", "rocm")

    @property
    def vram_gb(self) -> float | None:
        return None if self.vram_bytes is None else self.vram_bytes / 2**30

    @property
    def fp8_compute(self) -> bool:
        """FP8 tensor-core matmuls: NVIDIA SM >= 8.9; AMD CDNA3+/RDNA4 (gfx94x, gfx95x, gfx12xx)."""
        if self.device_kind == "cuda":
            return self.sm is not None and self.sm >= (8, 9) and _torch_at_least(self.torch_version, 2, 3)
        if self.device_kind == "rocm":
            return bool(self.gcn_arch) and self.gcn_arch.startswith(("gfx94", "gfx95", "gfx12"))
        return False

    @property
    def fp8_rowwise(self) -> bool:
        """Row-wise scaled `torch._scaled_mm` (per-token x per-channel): SM 9.0 and 10.x with torch >= 2.5."""
        return (
            self.device_kind == "cuda"
            and self.sm is not None
            and (9, 0) <= self.sm < (11, 0)
            and _torch_at_least(self.torch_version, 2, 5)
        )

    @property
    def tf32(self) -> bool:
        """TF32 tensor cores exist from Ampere (SM 8.0) on."""
        return self.device_kind == "cuda" and self.sm is not None and self.sm >= (8, 0)

    @property
    def triton(self) -> bool:
        return self.triton_version is not None

    def lib(self, key: str) -> LibraryInfo:
        return self.libraries.get(key) or LibraryInfo(key, False, error="not probed")

    def has(self, key: str) -> bool:
        return self.lib(key).available

    def gpu_class(self) -> str:
        """A human name for the row of the defaults table this profile falls in."""
        if self.device_kind == "cuda":
            sm = self.sm_int or 0
            if sm >= 120:
                return f"Blackwell consumer (sm{sm})"
            if sm >= 100:
                return f"Blackwell datacenter (sm{sm})"
            if sm == 90:
                return "Hopper (sm90)"
            if sm == 89:
                return "Ada (sm89)"
            if sm in (86, 87):
                return f"Ampere consumer (sm{sm})"
            if sm == 80:
                return "Ampere datacenter (sm80)"
            return f"pre-Ampere (sm{sm})"
        if self.device_kind == "rocm":
            return f"AMD ROCm ({self.gcn_arch or 'unknown arch'})"
        if self.device_kind == "mps":
            return "Apple MPS"
        return "CPU"

    def summary_lines(self) -> list[str]:
        lines = []
        if self.is_gpu:
            vram = f"{self.vram_gb:.1f} GiB" if self.vram_gb is not None else "unknown VRAM"
            arch = f"sm{self.sm_int}" if self.sm else (self.gcn_arch or "")
            lines.append(f"device: {self.device_kind} {self.gpu_name or '?'} ({arch}, {vram}) - {self.gpu_class()}")
        else:
            lines.append(f"device: {self.device_kind} - {self.gpu_class()}")
        lines.append(
            "software: torch "
            + self.torch_version
            + (f", CUDA {self.cuda_version}" if self.cuda_version else "")
            + (f", HIP {self.hip_version}" if self.hip_version else "")
            + (f", cuDNN {self.cudnn_version}" if self.cudnn_version else "")
            + f", triton {self.triton_version or 'not installed'}"
            + f", C compiler {self.c_compiler or 'not found'}"
        )
        lines.append(f"fp8 compute: {'yes' if self.fp8_compute else 'no'}"
                     + (" (row-wise scaled_mm)" if self.fp8_rowwise else "")
                     + f"; tf32: {'yes' if self.tf32 else 'no'}")
        for key, _mod, _dist in ATTENTION_LIBRARIES:
            lines.append("  " + self.lib(key).describe())
        return lines

    def cache_key(self) -> str:
        """Identifies the GPU + software for on-disk caches (autotune results)."""
        name = (self.gpu_name or self.device_kind).replace(" ", "_")
        return f"{name}-sm{self.sm_int}-torch{self.torch_version}"

    def replace(self, **changes) -> HardwareProfile:
        return dataclasses.replace(self, **changes)


def _torch_at_least(version: str, major: int, minor: int) -> bool:
    try:
        parts = version.split("+")[0].split(".")
        return (int(parts[0]), int(parts[1])) >= (major, minor)
    except (ValueError, IndexError):
        return False


def _dist_version(names: tuple[str, ...]) -> str | None:
    for n in names:
        try:
            return importlib.metadata.version(n)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def probe_library(key: str, module: str, dists: tuple[str, ...]) -> LibraryInfo:
    """Import one library and list what it offers. Never raises."""
    try:
        mod = importlib.import_module(module)
    except Exception as e:  # ImportError, but also OSError/RuntimeError from broken CUDA builds
        msg = f"{type(e).__name__}: {e}".splitlines()[0][:200]
        if isinstance(e, ModuleNotFoundError) and e.name and module.startswith(e.name):
            msg = "not installed"
        return LibraryInfo(key, False, error=msg)
    # the installed distribution's version first: a module's own __version__ can be a placeholder (flash-attn-4's
    # beta wheels say 0.0.0)
    version = _dist_version(dists) or getattr(mod, "__version__", None)
    kernels: tuple[str, ...] = ()
    if key == "sageattention":
        kernels = tuple(k for k in SAGE_KERNELS if callable(getattr(mod, k, None)))
        if not kernels:
            return LibraryInfo(key, False, version, error="imports, but exports no sageattn kernel")
    elif key == "sageattn3":
        kernels = tuple(k for k in ("sageattn3_blackwell",) if callable(getattr(mod, k, None)))
        if not kernels:
            return LibraryInfo(key, False, version, error="imports, but has no sageattn3_blackwell")
    elif key in ("flash_attn", "flash_attn_interface", "fa3_fwd_interface"):
        if not callable(getattr(mod, "flash_attn_func", None)):
            return LibraryInfo(key, False, version, error="imports, but has no flash_attn_func")
        kernels = ("flash_attn_func",)
    elif key == "flash_attn_cute":
        fn = getattr(mod, "flash_attn_func", None)
        if fn is None:
            try:
                fn = importlib.import_module("flash_attn.cute.interface").flash_attn_func
            except Exception as e:
                return LibraryInfo(key, False, version, error=f"no flash_attn_func ({type(e).__name__})")
        kernels = ("flash_attn_func",)
    elif key == "xformers":
        if not callable(getattr(mod, "memory_efficient_attention", None)):
            return LibraryInfo(key, False, version, error="imports, but has no memory_efficient_attention")
        try:
            import xformers  # noqa: F401

            if getattr(xformers, "_has_cpp_library", True) is False:
                return LibraryInfo(key, False, version,
                                   error="its C++/CUDA ops did not load (built for another torch?)")
        except Exception:
            pass
        kernels = ("memory_efficient_attention",)
    return LibraryInfo(key, True, version, kernels)


def probe_libraries() -> dict:
    return {key: probe_library(key, mod, dists) for key, mod, dists in ATTENTION_LIBRARIES}


def _device_facts(device) -> dict:
    import torch

    dev = torch.device(device) if device is not None else None
    facts: dict = {"torch_version": torch.__version__}
    use_cuda = torch.cuda.is_available() and (dev is None or dev.type == "cuda")
    if use_cuda:
        idx = dev.index if (dev is not None and dev.index is not None) else torch.cuda.current_device()
        props = torch.cuda.get_device_properties(idx)
        facts["gpu_name"] = props.name
        facts["vram_bytes"] = int(props.total_memory)
        if torch.version.hip:
            facts["device_kind"] = "rocm"
            facts["hip_version"] = torch.version.hip
            facts["gcn_arch"] = getattr(props, "gcnArchName", None)
        else:
            facts["device_kind"] = "cuda"
            facts["sm"] = (int(props.major), int(props.minor))
            facts["cuda_version"] = torch.version.cuda
        try:
            facts["cudnn_version"] = torch.backends.cudnn.version()
        except Exception:
            facts["cudnn_version"] = None
    elif (dev is None or dev.type == "mps") and getattr(torch.backends, "mps",
                                                        None) and torch.backends.mps.is_available():
        facts["device_kind"] = "mps"
        facts["gpu_name"] = "Apple MPS"
    else:
        facts["device_kind"] = "cpu"
    return facts


_cache: dict = {}
_cache_lock = threading.Lock()


def detect(device=None, refresh: bool = False) -> HardwareProfile:
    """Probe this machine (once per device; `refresh=True` probes again)."""
    key = str(device) if device is not None else None
    with _cache_lock:
        if not refresh and key in _cache:
            return _cache[key]
    facts = _device_facts(device)
    triton_version = _dist_version(("triton", "pytorch-triton", "pytorch-triton-rocm", "triton-windows"))
    cc = None
    for name in ("cc", "gcc", "clang", "cl"):
        if shutil.which(name):
            cc = name
            break
    profile = HardwareProfile(
        triton_version=triton_version,
        c_compiler=cc,
        libraries=probe_libraries(),
        **facts,
    )
    with _cache_lock:
        _cache[key] = profile
    return profile


def forget() -> None:
    """Drop cached profiles (tests; after installing a library without restarting)."""
    with _cache_lock:
        _cache.clear()


def comfy_device():
    """ComfyUI's torch device, or None when ComfyUI is not importable (pure-library use)."""
    try:
        import comfy.model_management as mm

        return mm.get_torch_device()
    except Exception:
        return None


def free_vram(profile) -> int | None:
    """Bytes free for a model on the device ComfyUI samples on, counting the memory of the models it has loaded
    there (it unloads them to make room). A simulated GPU profile on a CPU-only ComfyUI (tests): the profile's VRAM.
    None: unknown."""
    from . import log

    try:
        import comfy.model_management as mm
    except Exception:  # noqa: BLE001 - pure-library use: unknown
        return None
    dev = mm.get_torch_device()
    if getattr(dev, "type", "cpu") == "cuda":
        try:
            free = mm.get_free_memory(dev)
            for lm in list(getattr(mm, "current_loaded_models", [])):
                if getattr(lm, "device", None) == dev:
                    free += lm.model_loaded_memory()
            return int(free)
        except Exception as e:  # noqa: BLE001 - a ComfyUI without these functions: unknown
            log.warn_once(("hardware", "free_vram"), f"free VRAM could not be read ({type(e).__name__}: {e})")
            return None
    return profile.vram_bytes if profile.is_gpu else None


def profile(refresh: bool = False) -> HardwareProfile:
    """The hardware profile of ComfyUI's device (cached; `refresh` probes again)."""
    return detect(comfy_device(), refresh=refresh)


def hardware_report(refresh: bool = False) -> str:
    """The text of Accel Hardware Report: this machine's profile and the defaults chosen from it. Its first screen:
    the device, what the automatic modes pick, what to install for more; then the software, the attention libraries
    and each choice's reason."""
    from . import defaults, gains
    from .report import join_details

    p = profile(refresh)
    d = defaults.choose(p)
    device, *rest = p.summary_lines()
    picks = (f"attention auto -> {d.attention}, compile mode -> {d.compile_mode}, fp8 compute -> {d.fp8_compute}, "
             f"tf32 -> {'on' if d.tf32 else 'off'}")
    first = ["comfyui-accel hardware report", device, picks, *gains.install_hints(d.attention_skipped)]
    return join_details(first, "\n".join(rest + d.report_lines()))
