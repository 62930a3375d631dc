"""Failures predictable before compiling (no triton, no C compiler, fp8 on GPUs without it): found in seconds
instead of after minutes in a compile that is bound to fail."""
from __future__ import annotations

import torch

from ..common import log
from ..common.errors import AccelError
from ..common.policy import Policy
from .config import CompileConfig, CompileStatus
from .dynamo_compat import guard_filter_supported


def preflight_problem(model, cfg: CompileConfig) -> str | None:
    from ..common import hardware

    try:
        prof = hardware.profile()
    except Exception:
        return None
    dev = getattr(model, "load_device", None)
    kind = getattr(dev, "type", None) or prof.device_kind
    if cfg.backend == "inductor":
        if kind == "cuda" and not prof.triton:
            return ("triton is not installed, so inductor cannot build GPU kernels (install triton on Linux, "
                    "triton-windows on Windows)")
        if kind == "cpu" and not prof.c_compiler:
            return "no C/C++ compiler found for inductor's CPU backend (install gcc or clang)"
        if kind == "cuda" and prof.device_kind == "cuda" and prof.sm is not None and prof.sm < (8, 9):
            dm = getattr(model.model, "diffusion_model", None)
            if dm is not None and _has_dtype(dm, getattr(torch, "float8_e4m3fn", None)):
                return (f"the weights are float8_e4m3fn and Triton cannot compile fp8e4nv on sm{prof.sm_int} "
                        "(needs SM >= 8.9); load the model as fp8_e5m2 or bf16 to compile it")
    elif cfg.backend == "cudagraphs" and kind != "cuda":
        return f"the cudagraphs backend needs a CUDA device (this model runs on {kind})"
    if not guard_filter_supported():
        log.warn_once(("compile", "noguardfilter"),
                      "compile: this torch (%s) has no guard_filter_fn; LoRA or attention changes may recompile",
                      torch.__version__)
    return None


def _has_dtype(module, dtype) -> bool:
    if dtype is None:
        return False
    return any(p.dtype == dtype for p in module.parameters())


def fail_preflight(status: CompileStatus, cfg: CompileConfig, problem: str) -> None:
    if cfg.policy is Policy.ERROR:
        raise AccelError("backend", f"torch.compile cannot work here: {problem}",
                         "set on_failure to 'fall back' to run without compile, or fix the cause", title=cfg.title)
    status.fell_back = True
    status.reason = problem
    status.failures.append((cfg.chain[0], problem))
    log.warning("compile: running eager (%s)", problem)
