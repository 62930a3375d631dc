"""The worker loop: one process per GPU (rank r of N), started and owned by `pool.WorkerPool`.

Messages from ComfyUI's process (one Connection each): ("load", key, inner, compile_cfg, compute dtype, keep) followed
by the model (transport.send_model; the models not in `keep` are dropped first), ("inner", key, override),
("run", key, kwargs, split, method), ("info",), ("stop",). Replies: ("ready", rank), ("loaded", key, repr of the
attention override, memory), ("ok", repr of the override), ("out", tensor) from the first rank of each of the `split`
groups / ("done",) from the others, ("info", rank, dict), ("error", rank, text). A worker holds several models
(the two experts of Wan 2.2 A14B) while ComfyUI's process keeps them (see pool.WorkerPool.load).
CFG parallel: `split` = 2 divides the ranks into two halves (ranks 0..N/2-1 and N/2..N-1), each with its
own process group (created at start, when N is even); each half runs the batch slice it was sent with
sequence parallelism over its N/2 ranks. `split` = 1: all N ranks share one sequence. A worker exits when
told to, when its connection closes, or when its parent process is gone (watchdog thread).
"""
from __future__ import annotations

import os
import threading
import time
import traceback
from datetime import timedelta


def _watch_parent(ppid: int) -> None:
    while True:
        time.sleep(1.0)
        if os.getppid() != ppid:
            os._exit(3)


class _Executor:
    """What Accel Compile's APPLY_MODEL wrapper expects of ComfyUI's executor: `class_obj` (the module
    holding `diffusion_model`) and a call that runs the model."""

    def __init__(self, fn, base):
        self.fn, self.class_obj = fn, base

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


def _inner(inner):
    from .transport import AttentionRecipe

    return inner.build() if isinstance(inner, AttentionRecipe) else inner


def _compiler(dm, compile_cfg):
    """Accel Compile's wrapper on the worker's copy (the same config as in ComfyUI's process), or None."""
    if compile_cfg is None:
        return None
    import torch

    from ..compile.wrapper import CompileWrapper

    base = torch.nn.Module()
    base.diffusion_model = dm
    w = CompileWrapper(compile_cfg)
    w.base = base
    return w


def cast_like_comfy(dm, compute_dtype) -> int:
    """Turn ComfyUI's per-call weight cast on for the cast layers whose stored dtype is not the compute dtype (a bf16
    Wan file run in fp16). In the main process the model patcher decides per layer whether that cast runs (on ComfyUI
    0.33 with DynamicVRAM it turns it on for every layer it loads), so a worker's copy may run the stored weights as
    they are ("mat1 and mat2 must have the same dtype", seen on two H100s). Casting the weights once instead is wrong:
    some layers are called in another dtype on purpose (Wan's patch embedding, kept in fp32, gets `x.float()`).
    Returns the number of layers turned on."""
    import torch

    if not compute_dtype:
        return 0
    dt = getattr(torch, str(compute_dtype).replace("torch.", ""), None)
    if not isinstance(dt, torch.dtype) or not dt.is_floating_point:
        return 0
    n = 0
    for m in dm.modules():
        if getattr(m, "comfy_cast_weights", True):
            continue  # not a cast layer, or its cast is on already
        if any(isinstance(t, torch.Tensor) and t.dtype != dt
               for t in (getattr(m, "weight", None), getattr(m, "bias", None))):
            m.comfy_cast_weights = True
            n += 1
    return n


class _Loaded:
    """One model a worker holds: its copy, the transformer_options that make a forward sequence parallel, the
    sequence-parallel state, Accel Compile's wrapper (or None)."""

    def __init__(self, dm, options, state, compiler):
        self.dm, self.options, self.state, self.compiler = dm, options, state, compiler


def memory(device) -> dict:
    """Bytes this worker's device can still give to torch (free on the device plus what torch caches unused) and
    its total."""
    import torch

    if device.type == "cuda":
        free, total = torch.cuda.mem_get_info(device)
        return {"available": free + torch.cuda.memory_reserved(device) - torch.cuda.memory_allocated(device),
                "total": total}
    size = os.sysconf("SC_PAGE_SIZE")
    return {"available": host_available() or os.sysconf("SC_AVPHYS_PAGES") * size,
            "total": os.sysconf("SC_PHYS_PAGES") * size}


def host_available(meminfo: str = "/proc/meminfo") -> int | None:
    """The kernel's estimate of the memory new allocations can have without swapping (MemAvailable: free pages plus
    the page cache and reclaimable slabs it can drop), in bytes; None where the file does not say (not Linux). The
    free pages alone (SC_AVPHYS_PAGES) leave out the page cache, which fills after any large file is read."""
    try:
        with open(meminfo) as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def info(device, models: dict) -> dict:
    """What runs in this worker (benchmarks, tests): its device and memory, the models it holds, each one's attention
    override and compile status."""
    import torch

    out = {"pid": os.getpid(), "device": str(device), "models": {}}
    if device.type == "cuda":
        gib = 2 ** 30
        out.update(name=torch.cuda.get_device_name(device),
                   peak_allocated_gib=round(torch.cuda.max_memory_allocated(device) / gib, 2),
                   peak_reserved_gib=round(torch.cuda.max_memory_reserved(device) / gib, 2),
                   allocated_gib=round(torch.cuda.memory_allocated(device) / gib, 2))
    out.update(memory(device))
    for key, held in models.items():
        m = {"attention": repr(held.state.inner), "compile": None}
        if held.compiler is not None:
            st = held.compiler.status(held.compiler.base)
            m["compile"] = {k: getattr(st, k) for k in ("backend", "scope", "graphs", "compiles", "calls", "fell_back",
                                                         "reason", "compile_seconds")}
        out["models"][key] = m
    return out


def main(cfg: dict) -> None:
    from multiprocessing.connection import Client

    import torch
    import torch.distributed as dist

    from . import sp, transport

    rank, world = cfg["rank"], cfg["world"]
    threading.Thread(target=_watch_parent, args=(cfg["parent_pid"],), daemon=True).start()
    conn = Client(tuple(cfg["address"]), authkey=bytes.fromhex(os.environ["ACCEL_MG_AUTHKEY"]))
    try:
        if cfg["device"] == "cuda":
            torch.cuda.set_device(cfg["gpu_ids"][rank])
            device = torch.device("cuda", torch.cuda.current_device())
        else:
            torch.set_num_threads(1)
            device = torch.device("cpu")
        dist.init_process_group(cfg["backend"], init_method=f"tcp://127.0.0.1:{cfg['port']}", rank=rank,
                                world_size=world, timeout=timedelta(seconds=cfg["timeout_s"]))
        groups = {1: [None]}  # split -> process group per part (None: the default group, all ranks)
        if world % 2 == 0 and world > 1:
            half = world // 2
            groups[2] = [dist.new_group(list(range(g * half, (g + 1) * half))) for g in range(2)]
        transport.put(conn, ("ready", rank))
        models: dict = {}  # key -> _Loaded, in load order
        while True:
            try:
                msg = transport.get(conn)
            except (EOFError, OSError):
                break
            try:
                if msg[0] == "stop":
                    break
                if msg[0] == "load":
                    _, key, inner, compile_cfg, compute_dtype, keep = msg
                    for k in [k for k in models if k not in keep or k == key]:
                        del models[k]
                    if device.type == "cuda":
                        torch.cuda.empty_cache()
                    dm = transport.recv_model(conn, device, rank, world).eval()
                    cast_like_comfy(dm, compute_dtype)
                    state = sp.SPState(rank, world)
                    state.inner = _inner(inner)
                    models[key] = _Loaded(dm, sp.install(dm, state), state, _compiler(dm, compile_cfg))
                    transport.put(conn, ("loaded", key, repr(state.inner), memory(device)))
                elif msg[0] == "inner":
                    held = models.get(msg[1])
                    if held is not None:
                        held.state.inner = _inner(msg[2])
                    transport.put(conn, ("ok", repr(held.state.inner) if held is not None else None))
                elif msg[0] == "info":
                    transport.put(conn, ("info", rank, info(device, models)))
                elif msg[0] == "run":
                    _, key, kwargs, split, method = msg
                    held = models.get(key)
                    if held is None:
                        raise RuntimeError(f"run for model {key} but the worker holds {list(models)}")
                    size = world // split
                    state = held.state
                    state.rank, state.world, state.group = rank % size, size, groups[split][rank // size]
                    kwargs = transport.to_device(kwargs, device)
                    with torch.no_grad():
                        fn = getattr(held.dm, method)
                        if held.compiler is None:
                            out = fn(transformer_options=dict(held.options), **kwargs)
                        else:
                            out = held.compiler(_Executor(fn, held.compiler.base),
                                                transformer_options=dict(held.options), **kwargs)
                    if state.rank == 0:
                        transport.put(conn, ("out", out.to("cpu")))
                    else:
                        transport.put(conn, ("done",))
            except Exception:
                transport.put(conn, ("error", rank, traceback.format_exc()))
    finally:
        try:
            if dist.is_initialized():
                dist.destroy_process_group()
        finally:
            conn.close()
