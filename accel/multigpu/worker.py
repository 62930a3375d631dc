"""The worker loop: one process per GPU (rank r of N), started and owned by `pool.WorkerPool`.

Messages from ComfyUI's process (one Connection each): ("load", key, inner, compile_cfg, compute dtype) followed by the model
(transport.send_model), ("inner", override), ("run", key, kwargs, split, method), ("stop",). Replies: ("ready", rank),
("loaded", key, repr of the attention override), ("out", tensor) from the first rank of each of the `split` groups / ("done",) from the
others, ("error", rank, text).
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
        if any(isinstance(t, torch.Tensor) and t.dtype != dt for t in (getattr(m, "weight", None), getattr(m, "bias", None))):
            m.comfy_cast_weights = True
            n += 1
    return n


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
        loaded = None  # (key, diffusion model, transformer_options, state)
        while True:
            try:
                msg = transport.get(conn)
            except (EOFError, OSError):
                break
            try:
                if msg[0] == "stop":
                    break
                if msg[0] == "load":
                    _, key, inner, compile_cfg, compute_dtype = msg
                    loaded = None
                    if device.type == "cuda":
                        torch.cuda.empty_cache()
                    dm = transport.recv_model(conn, device).eval()
                    cast_like_comfy(dm, compute_dtype)
                    state = sp.SPState(rank, world)
                    state.inner = _inner(inner)
                    loaded = (key, dm, sp.install(dm, state), state, _compiler(dm, compile_cfg))
                    transport.put(conn, ("loaded", key, repr(state.inner)))
                elif msg[0] == "inner":
                    if loaded is not None:
                        loaded[3].inner = _inner(msg[1])
                    transport.put(conn, ("ok",))
                elif msg[0] == "run":
                    _, key, kwargs, split, method = msg
                    if loaded is None or loaded[0] != key:
                        raise RuntimeError(f"run for model {key} but {loaded and loaded[0]} is loaded")
                    size = world // split
                    state = loaded[3]
                    state.rank, state.world, state.group = rank % size, size, groups[split][rank // size]
                    kwargs = transport.to_device(kwargs, device)
                    with torch.no_grad():
                        fn = getattr(loaded[1], method)
                        if loaded[4] is None:
                            out = fn(transformer_options=dict(loaded[2]), **kwargs)
                        else:
                            out = loaded[4](_Executor(fn, loaded[4].base), transformer_options=dict(loaded[2]), **kwargs)
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
