"""Start ComfyUI inside this process the way its `main.py` starts it, for GPU benchmarks.

A script that only imports `comfy.*` runs the legacy ModelPatcher with torch's default allocator. What
users get from `python main.py` on ComfyUI 0.33 + NVIDIA is different: command-line arguments parsed,
the cudaMallocAsync allocator chosen by `cuda_malloc.py`, comfy-aimdo initialised BEFORE torch touches
CUDA, and `ModelPatcherDynamic` swapped in as `CoreModelPatcher` (DynamicVRAM). `start()` repeats those
steps, feature-detected, so the same code runs on 0.3.75 (no aimdo: nothing to do) and 0.33.

    from accel_harness import mainlike
    info = mainlike.start(["--reserve-vram", "56"])   # before anything imports torch
    H.bootstrap(cpu=False); H.load_pack()

`simulate_card_args(total_gib, card_gib)` gives the `--reserve-vram` that leaves a card of `card_gib`.
"""
from __future__ import annotations

import importlib.util
import logging
import os
import sys

from . import env


def simulate_card_args(total_gib: float, card_gib: float) -> list:
    """ComfyUI arguments under which a GPU of `total_gib` behaves like one of `card_gib` (--reserve-vram)."""
    return [] if card_gib >= total_gib else ["--reserve-vram", f"{total_gib - card_gib:.2f}"]


def start(argv=(), dynamic_vram: bool | None = None) -> dict:
    """Parse `argv` as ComfyUI's command line and initialise memory management like main.py. Returns a
    dict saying what was done (dynamic_vram, cuda_malloc, reserve_vram, comfyui version)."""
    if "torch" in sys.modules and dynamic_vram is not False:
        logging.warning("mainlike.start: torch was imported first; comfy-aimdo may not see every allocation")
    root = env.comfy_root()
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    saved = sys.argv
    sys.argv = ["main.py", *argv]
    try:
        import comfy.options

        comfy.options.enable_args_parsing()
        from comfy.cli_args import args
    finally:
        sys.argv = saved
    info = {"argv": list(argv), "reserve_vram": getattr(args, "reserve_vram", None)}
    try:
        import cuda_malloc  # noqa: F401  sets PYTORCH_CUDA_ALLOC_CONF exactly as main.py does
        info["cuda_malloc"] = bool(getattr(args, "cuda_malloc", False))
    except Exception as e:  # noqa: BLE001
        info["cuda_malloc"] = f"not set ({type(e).__name__}: {e})"
    info["alloc_conf"] = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    wants = dynamic_vram
    enables = None
    try:
        from comfy.cli_args import enables_dynamic_vram as enables
    except ImportError:
        pass
    if enables is None or importlib.util.find_spec("comfy_aimdo") is None:
        info["dynamic_vram"] = "not in this ComfyUI"
        return _finish(info, False)
    if wants is None:
        wants = enables()
    if wants:
        import comfy_aimdo.control as ctl

        headroom = None if args.reserve_vram is None else int(args.reserve_vram * 1024 ** 3)
        for kw in ({"simple_vram_headroom": headroom,
                    "nvml_pressure": not getattr(args, "disable_nvml_pressure", False)},
                   {"simple_vram_headroom": headroom}, {}):
            try:
                ctl.init(**kw)
                break
            except TypeError:
                continue
    return _finish(info, wants)


def console_log_level(args) -> str:
    """The console log level main.py derives from `--verbose` (a list of (level, file) on 0.33, a level before)."""
    try:
        from comfy.cli_args import get_console_log_level
    except ImportError:
        get_console_log_level = None
    verbose = getattr(args, "verbose", None)
    if get_console_log_level is not None and isinstance(verbose, (list, tuple)):
        return get_console_log_level(verbose)
    return verbose if isinstance(verbose, str) and verbose else "INFO"


def set_aimdo_log_level(ctl, level: str) -> str:
    """Set comfy-aimdo's native log level from ComfyUI's console level, as main.py does after init_devices.

    Without it the native library keeps its own default and hands every message to Python's logging through a
    ctypes callback: about 93,000 calls (0.6 s of host time) in one run of the A14B workflow on a simulated 24 GB
    card (`bench/results/h100/wf_lightx2v_033/sequential_24GB_occupied_host_profile/`), which `python main.py`
    never pays. Returns the setter used ("" where this comfy-aimdo has none)."""
    names = {"DEBUG": ("set_log_debug",), "DETAIL": ("set_log_detail", "set_log_info"),
             "CRITICAL": ("set_log_critical",), "ERROR": ("set_log_error",), "WARNING": ("set_log_warning",)}
    for name in names.get(level, ("set_log_info",)):
        fn = getattr(ctl, name, None)
        if fn is not None:
            fn()
            return name
    return ""


def _finish(info, wants):
    import comfy.model_management as mm
    import comfy.model_patcher as mp
    from comfy.cli_args import args

    if wants:
        import comfy.memory_management
        import comfy_aimdo.control as ctl

        supported = mm.is_nvidia() or (mm.is_amd() and getattr(mm, "rocm_version", (0, 0)) >= (7, 14))
        ok = False
        if supported and mm.torch_version_numeric >= (2, 8):
            devs = mm.get_all_torch_devices()
            try:
                ok = ctl.init_devices((d.index, int(getattr(args, "vram_headroom", 0) * 1024 ** 3)) for d in devs)
            except TypeError:
                ok = ctl.init_devices(d.index for d in devs)
        if ok:
            mp.CoreModelPatcher = mp.ModelPatcherDynamic
            comfy.memory_management.aimdo_enabled = True
            info["dynamic_vram"] = "on"
            info["aimdo_log"] = set_aimdo_log_level(ctl, console_log_level(args))
        else:
            info["dynamic_vram"] = "off (comfy-aimdo did not initialise)"
    elif "dynamic_vram" not in info:
        info["dynamic_vram"] = "off"
    info["comfyui"] = env.comfy_version()
    return info
