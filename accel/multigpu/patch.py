"""`apply_multigpu(model, gpus, device)`: a MODEL clone whose diffusion-model forward runs on N workers
(Wan 2.1/2.2, Flux, Qwen-Image: the families sp.FAMILIES knows).

Two wrappers on the clone (the pack's pattern, no global patching):
  - OUTER_SAMPLE remembers which ModelPatcher samples (its `patches_uuid` keys the weights the
    workers hold: a LoRA added later is a new key, so the workers reload);
  - DIFFUSION_MODEL replaces the local forward: its arguments go to the workers, rank 0's output
    comes back. transformer_options are not sent (callbacks, patchers); the attention override in
    them is, when it can be pickled (the workers run it per rank, inside Ulysses).
"""
from __future__ import annotations

import inspect
import pickle

from .. import comfy_compat
from ..common import keys, log
from ..common.errors import AccelError, current_title
from ..common.report import Report, Section

KEY = keys.MULTIGPU
DEVICES = ("cuda", "cpu")
CFG_PARALLEL = ("on", "off")
# Host memory of one idle worker process: a fresh Python that imports torch, ComfyUI's model code, torch.distributed
# and yunchang (measured 0.6 GB RSS, torch 2.x, Linux) before any weights arrive. That, not the model, is what 16 CPU
# workers of a 4 MB test model spend (9.9 GB). CPU workers exist for tests and debugging: more of them than
# cpu_workers_max() only cost memory (the cores are shared), so more are refused.
WORKER_BASE_GB = 0.6


def cpu_workers_max() -> int:
    import os

    return max(4, min(8, os.cpu_count() or 1))


def yunchang_available() -> bool:
    try:
        import yunchang.comm.all_to_all  # noqa: F401
        return True
    except Exception:
        return False


def _heads(dm) -> int:
    name = type(dm).__name__
    if name == "WanModel":
        return dm.blocks[0].self_attn.num_heads if len(dm.blocks) else 0
    if name == "Flux":
        return dm.num_heads
    return dm.transformer_blocks[0].attn.heads if len(dm.transformer_blocks) else 0


def _describe(dm) -> str:
    name = type(dm).__name__
    if name == "WanModel":
        return f"Wan dim {dm.dim}, {len(dm.blocks)} blocks"
    if name == "Flux":
        return f"Flux hidden {dm.hidden_size}, {len(dm.double_blocks)} double + {len(dm.single_blocks)} single blocks"
    return f"Qwen-Image dim {dm.inner_dim}, {len(dm.transformer_blocks)} blocks"


def check_inputs(model, gpus: int, device: str, cfg_parallel: str = "on") -> str:
    """All checks that can fail, before any sampling. Returns a one-line description of the model."""
    from . import sp

    if device not in DEVICES:
        raise AccelError("device", f"{device!r} is not one of {DEVICES}", "Pick cuda (or cpu for tests)")
    if cfg_parallel not in CFG_PARALLEL:
        raise AccelError("cfg_parallel", f"{cfg_parallel!r} is not one of {CFG_PARALLEL}", "Pick on or off")
    dm = getattr(getattr(model, "model", None), "diffusion_model", None)
    if dm is None or sp.family(dm) is None:
        kind = type(dm).__name__ if dm is not None else type(model).__name__
        raise AccelError("model", f"sequence parallel supports Wan 2.1/2.2 (WanModel), Flux and Qwen-Image; this "
                         f"model is {kind}",
                         "Connect a Wan 2.1/2.2 T2V/I2V/TI2V, Flux or Qwen-Image model (VACE, camera, S2V, "
                         "HunyuanVideo and other families are not supported yet), or remove this node")
    if type(dm).__name__ == "Flux" and (not len(dm.double_blocks)
                                        or any(getattr(b, "flipped_img_txt", False) for b in dm.double_blocks)):
        raise AccelError("model", "this Flux variant has no double blocks or puts image tokens before text",
                         "Use a Flux.1/Flux.2 model, or set gpus to 1")
    if gpus < 1:
        raise AccelError("gpus", f"{gpus} is below 1", "Set gpus to the number of GPUs to use (2-8)")
    if device == "cpu" and gpus > cpu_workers_max():
        raise AccelError("gpus", f"{gpus} CPU workers asked for; at most {cpu_workers_max()} on this machine "
                         f"({os_cpus()} CPU cores): each worker is a Python process importing torch and ComfyUI (about "
                         f"{WORKER_BASE_GB:g} GB of memory each before the model) and CPU workers share the cores",
                         f"Set gpus to {cpu_workers_max()} or less (CPU workers are for tests and debugging)")
    if gpus > 1:
        if not yunchang_available():
            raise AccelError("gpus", "the sequence-parallel engine yunchang is not installed",
                             "Install it into ComfyUI's Python: python -m pip install yunchang (it needs only torch), "
                             "or set gpus to 1")
        if device == "cuda":
            import torch

            have = torch.cuda.device_count() if torch.cuda.is_available() else 0
            if have < gpus:
                raise AccelError("gpus", f"{gpus} GPUs asked for, this machine has {have} visible",
                                 f"Set gpus to {max(1, have)} or less (CUDA_VISIBLE_DEVICES limits what is visible)")
        heads = _heads(dm)
        if heads % gpus:
            log.info("multigpu: %d heads are not a multiple of %d GPUs: padded to %d (some GPU work is wasted)",
                     heads, gpus, -(-heads // gpus) * gpus)
    return _describe(dm)


def os_cpus() -> int:
    import os

    return os.cpu_count() or 1


def check_call(dm, call: dict, title: str | None = None) -> None:
    """What sequence parallel cannot split, found on the first step (before the workers compute)."""
    if call.get("control") is not None:
        raise AccelError("model", "ControlNet inputs are not supported with multi-GPU sampling yet",
                         "Remove the ControlNet, or set gpus to 1", title=title)
    if call.get("ref_latents") is not None:
        params = getattr(dm, "params", dm)
        method = call.get("ref_latents_method") or getattr(params, "default_ref_method", None)
        if method == "index_timestep_zero":
            raise AccelError("model", "reference latents with the 'index_timestep_zero' method (timestep 0 for "
                             "the reference tokens) are not supported with multi-GPU sampling yet",
                             "Use another reference latents method, or set gpus to 1", title=title)


def _split_batch(obj, batch: int, parts: int, i: int):
    """Part i of `parts` of every tensor whose first dimension is the batch (ComfyUI concatenates the
    cond/uncond chunks of x, timestep and every conditioning along dim 0); other values whole."""
    import torch

    if isinstance(obj, torch.Tensor):
        if obj.dim() and obj.shape[0] == batch:
            n = batch // parts
            return obj[i * n:(i + 1) * n]
        return obj
    if isinstance(obj, dict):
        return {k: _split_batch(v, batch, parts, i) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_split_batch(v, batch, parts, i) for v in obj)
    return obj


def cfg_split(cfg_parallel: str, gpus: int, cond_or_uncond, batch: int):
    """(parts, reason): how many rank groups share this forward's batch. 2 when CFG parallel is on, the
    GPUs are even and the batch holds an even number of ComfyUI's cond/uncond chunks; else 1 and why."""
    if cfg_parallel != "on":
        return 1, "cfg_parallel is off"
    if gpus % 2:
        return 1, f"gpus={gpus} is odd"
    chunks = len(cond_or_uncond or ())
    if chunks < 2:
        return 1, ("this forward carries only cond or only uncond (CFG 1, or ComfyUI ran cond and uncond as separate "
                   "batches, e.g. when it estimated too little free memory to batch them)")
    if chunks % 2 or batch % 2:
        return 1, f"this forward's batch has {chunks} cond/uncond chunks, not an even number"
    return 2, ""


class MultiGPURuntime:
    """The clone's wrappers' shared state. Not deep-copied by clone() (wrapper functions are shared)."""

    def __init__(self, gpus: int, device: str, cfg_parallel: str = "on", **pool_opts):
        self.gpus, self.device, self.pool_opts = gpus, device, pool_opts
        self.title = current_title()  # errors raised while sampling name the node
        self.cfg_parallel = cfg_parallel
        self.patcher = None
        self.last_split = None  # (parts, reason) of the latest forward (tests, reports)

    def __deepcopy__(self, memo):
        return self

    def outer_sample(self, executor, *args, **kwargs):
        prev, self.patcher = self.patcher, getattr(executor.class_obj, "model_patcher", None)
        try:
            return executor(*args, **kwargs)
        finally:
            self.patcher = prev

    def diffusion_model(self, executor, *args, **kwargs):
        from . import pool as pool_mod

        dm = executor.class_obj
        bound = inspect.signature(executor.original).bind(*args, **kwargs)
        call = {}
        for name, value in bound.arguments.items():
            if bound.signature.parameters[name].kind is inspect.Parameter.VAR_KEYWORD:
                call.update(value)
            else:
                call[name] = value
        to = call.pop("transformer_options", None) or {}
        x = call.get("x", args[0] if args else None)
        check_call(dm, call, self.title)
        try:
            p = pool_mod.get_pool(self.gpus, self.device, **self.pool_opts)
        except pool_mod.WorkerError as e:
            raise AccelError("gpus", f"the {self.gpus} worker processes did not start ({e})",
                             "See the console for the workers' errors; check that the GPUs are free, or lower gpus",
                             title=self.title) from e
        uuid = getattr(self.patcher, "patches_uuid", None)
        ccfg = compile_config(self.patcher)
        dtype = getattr(x, "dtype", None)  # the compute dtype: ComfyUI casts the input to it before the model
        key = f"{id(dm)}:{uuid}:{ccfg.key if ccfg is not None else None}:{dtype}"
        try:
            p.load(key, dm, to.get("optimized_attention_override"), ccfg, compute_dtype=dtype)
        except (pickle.PicklingError, AttributeError, TypeError) as e:
            raise AccelError("model", f"its layers cannot be sent to the worker processes ({type(e).__name__}: {e})",
                             "Layer classes built at run time (some FP8 loaders) are not supported yet: load the model "
                             "in fp16/bf16 for multi-GPU, or set gpus to 1", title=self.title) from e
        except pool_mod.WorkerError as e:
            raise AccelError("model", f"the workers could not load the model: {e}",
                             "Its traceback is in the console (each GPU holds the whole model: out of memory needs a "
                             "smaller model or free GPUs); "
                             "set gpus to 1 to sample without them", title=self.title) from e
        batch = x.shape[0] if x is not None else 0
        split, why = cfg_split(self.cfg_parallel, self.gpus, to.get("cond_or_uncond"), batch)
        self.last_split = (split, why)
        if split == 1 and self.cfg_parallel == "on" and self.gpus % 2 == 0:
            log.info_once(("multigpu", "cfg-fallback", why[:40]),
                          "multigpu: CFG parallel not used for a forward: %s; it ran "
                          "sequence parallel over all %d GPUs", why, self.gpus)
        parts = [call] if split == 1 else [_split_batch(call, batch, split, i) for i in range(split)]
        try:
            out = p.run(parts, check_interrupt=_interrupted, method=getattr(executor.original, "__name__", "forward"))
        except pool_mod.WorkerError as e:
            oom = "OutOfMemoryError" in str(e) or "out of memory" in str(e).lower()
            raise AccelError("model", f"a worker failed while sampling: {e}",
                             ("Each GPU holds the whole model and its share of the activations: lower the resolution, "
                              "the frame count or the batch, or load the model as FP8; " if oom else "")
                             + "Its traceback is in the console; queue again and new workers start; set gpus to 1 to "
                               "sample without them", title=self.title) from e
        import comfy.model_management as mm

        if out is None or _interrupted():
            mm.throw_exception_if_processing_interrupted()
            raise mm.InterruptProcessingException()
        return out.to(device=x.device, dtype=x.dtype) if x is not None else out


def compile_config(patcher):
    """Accel Compile's CompileConfig on the sampling ModelPatcher (its APPLY_MODEL wrapper), or None. The
    workers compile their own copy with it; ComfyUI's process never runs the blocks."""
    if patcher is None:
        return None
    import comfy.patcher_extension as pe

    from ..compile.config import WRAPPER_KEY

    for w in patcher.get_wrappers(pe.WrappersMP.APPLY_MODEL, WRAPPER_KEY):
        cfg = getattr(w, "cfg", None)
        if cfg is not None:
            return cfg
    return None


def runtime_of(model):
    """The MultiGPURuntime on a MODEL patched by apply_multigpu, or None."""
    import comfy.patcher_extension as pe

    for w in model.get_wrappers(pe.WrappersMP.DIFFUSION_MODEL, KEY):
        rt = getattr(w, "__self__", None)
        if isinstance(rt, MultiGPURuntime):
            return rt
    return None


def _interrupted() -> bool:
    import comfy.model_management as mm

    return bool(mm.processing_interrupted())


def _clone_off_gpu(model):
    """(clone, report line). ComfyUI's process never runs the blocks (the workers do), so its clone loads to
    the CPU instead of GPU 0, where worker 0 holds its own copy: one copy of the weights per GPU, not two
    on GPU 0. The weights are read from there when sent to the workers. A dynamic-VRAM patcher (ComfyUI
    0.33) is first turned into a plain one, as ComfyUI's own device selector does for the CPU."""
    import torch

    cpu = torch.device("cpu")
    m = model.clone()
    if getattr(m, "load_device", None) is None or m.load_device.type == "cpu":
        return m, "ComfyUI's process: the weights stay on the CPU (the workers hold one copy per GPU)"
    rounds = None
    if comfy_compat.patcher_is_dynamic(model):  # and so its clone
        rounds = comfy_compat.legacy_load_rounds(model)
        try:
            m = model.clone(disable_dynamic=True)
        except Exception as e:  # no cached_patcher_init (a model not loaded from a file)
            return m, (f"ComfyUI's process: keeps its copy on {m.load_device} as well ({type(e).__name__}: the dynamic "
                       "VRAM patcher could not be made plain); GPU 0 then holds two copies of the weights")
    m.load_device = cpu
    m.offload_device = cpu
    line = (f"ComfyUI's process: loads this model to the CPU instead of {model.load_device} (worker 0 holds the "
            "copy on GPU 0; one copy per GPU)")
    if rounds is not None:
        n, dtype = rounds
        log.warn_once(("multigpu", "legacy_rounds", id(model.model)),
                      "multigpu: the plain copy of this model rounds %d of its tensors to %s", n, dtype)
        line += (f"; NOTE: this file mixes {dtype} with wider tensors, and that plain copy rounds {n} of them to "
                 f"{dtype} (the image differs from a single-GPU run's under DynamicVRAM)")
    return m, line


def apply_multigpu(model, gpus: int = 2, device: str = "cuda", cfg_parallel: str = "on", **pool_opts):
    """Keyword form of the contract (accel.multigpu.options.apply): (patched clone, report text). gpus == 1: an
    unpatched clone (stock sampling)."""
    m, report = patch_model(model, gpus, device, cfg_parallel, **pool_opts)
    return m, report.render()


def patch_model(model, gpus: int, device: str, cfg_parallel: str, **pool_opts) -> tuple:
    """(patched clone, Report); gpus == 1: an unpatched clone. Every check that can fail runs first."""
    import comfy.patcher_extension as pe

    desc = check_inputs(model, gpus, device, cfg_parallel)
    if gpus == 1:
        return model.clone(), _report(f"gpus=1, sampling runs in ComfyUI's process as stock ({desc})", [])
    m, memory_note = _clone_off_gpu(model)
    rt = MultiGPURuntime(gpus, device, cfg_parallel, **pool_opts)
    m.add_wrapper_with_key(pe.WrappersMP.OUTER_SAMPLE, KEY, rt.outer_sample)
    m.add_wrapper_with_key(pe.WrappersMP.DIFFUSION_MODEL, KEY, rt.diffusion_model)
    text = (f"{desc}; sequence parallel (Ulysses all-to-all, yunchang) over {gpus} {device} worker processes; workers "
            "start and load the weights on the first sampling step")
    lines = [memory_note]
    if cfg_parallel == "off":
        lines.append("CFG parallel: off")
    elif gpus % 2:
        lines.append(f"CFG parallel: not used (gpus={gpus} is odd; it needs an even number): sequence parallel only")
    else:
        lines.append(f"CFG parallel: cond and uncond on separate halves ({gpus // 2} GPU(s) each, sequence parallel "
                     f"within a half) when a step batches them; steps with CFG 1 or with cond/uncond in separate "
                     f"batches run sequence parallel over all {gpus} GPUs (logged once)")
    cache = (model.model_options.get("transformer_options") or {}).get(keys.CACHE)
    if isinstance(cache, dict):
        # the step caches wrap ComfyUI's process's forward; the workers run the blocks: they would skip nothing
        warning = (f"warning: the step cache on this model ({cache.get('title') or 'step cache'}) does nothing under "
                   f"{rt.title or 'multi-GPU sampling'}: the worker processes run the transformer blocks, where the "
                   "step cache does not reach (nothing is skipped or recorded). Use the step cache without Accel "
                   "Multi-GPU, or set gpus to 1")
        log.warning("multigpu: %s", warning)
        lines.append(warning)
    if device == "cpu":
        lines.append(f"CPU workers: each is a Python process importing torch and ComfyUI (about {WORKER_BASE_GB:g} GB "
                     f"of memory each, plus its copy of the weights): {gpus} workers need about "
                     f"{gpus * WORKER_BASE_GB:.1f} GB before the model")
    log.info("multigpu: %s", "\n".join([text, *lines]))
    return m, _report(text, lines)


def _report(text: str, lines: list) -> Report:
    return Report([Section(current_title(), text), *(Section(None, line) for line in lines)])
