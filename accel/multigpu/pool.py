"""Worker processes owned by ComfyUI's process: start, load a model once, run forwards, shut down.

One pool is alive at a time (the GPUs are exclusive); a request for another size or device shuts the
old one down first. Pools end on ComfyUI exit (atexit), on `shutdown_all()`, when a worker fails
(the others may be stuck in a collective: all are killed), and when an interrupt is not answered
within `interrupt_grace_s`. Workers also exit by themselves when ComfyUI's process is gone.
"""
from __future__ import annotations

import atexit
import json
import os
import pickle
import secrets
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Listener, wait
from pathlib import Path

import torch

from ..common import log
from . import transport

# A worker keeps the models it holds while this share of its memory stays available with the next one loaded too:
# room for the activations of a 720p video forward (the largest Wan 14B ones: a few GB per GPU at 4 GPUs; the whole
# sequence on one GPU at 1).
KEEP_FREE = 0.3


class WorkerError(RuntimeError):
    """A worker failed (its traceback is in the message) or did not start."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pack_identity():
    """(module name ComfyUI gave this pack, pack root folder)."""
    pkg = __name__.rsplit(".accel.multigpu.pool", 1)[0]
    return pkg, str(Path(__file__).resolve().parents[2])


class WorkerPool:
    def __init__(self, world: int, device: str = "cuda", gpu_ids=None, start_timeout_s: float = 300.0,
                 collective_timeout_s: float = 600.0, interrupt_grace_s: float = 60.0):
        self.world, self.device = world, device
        self.gpu_ids = list(gpu_ids if gpu_ids is not None else range(world))
        self.start_timeout_s, self.collective_timeout_s = start_timeout_s, collective_timeout_s
        self.interrupt_grace_s = interrupt_grace_s
        self.procs: list = []
        self.conns: list = []
        self.model_key = None  # the model of the latest forward
        self.models: dict = {}  # key -> {"bytes", "inner", "compile_cfg"} of the models every worker holds, oldest
                                # first
        self.memory = None  # the workers' smallest {"available", "total"} bytes after the latest load
        self.inner = None
        self.compile_cfg = None
        self.worker_inner = None  # repr of the attention override the workers run
        self.busy = False  # a forward is in flight (tests wait on it)
        self.stats = {"start_s": None, "loads": []}  # seconds to start; per model sent: (key, bytes, seconds)
        self.lock = threading.Lock()

    # ------------------------------------------------------------------ lifecycle
    @property
    def pids(self) -> list:
        return [p.pid for p in self.procs]

    def alive(self) -> bool:
        return bool(self.procs) and all(p.poll() is None for p in self.procs)

    def start(self) -> WorkerPool:
        t0 = time.monotonic()
        authkey = secrets.token_bytes(16)
        listener = Listener(("127.0.0.1", 0), authkey=authkey)
        name, root = _pack_identity()
        cfg = {"world": self.world, "device": self.device, "gpu_ids": self.gpu_ids,
               "backend": "nccl" if self.device == "cuda" else "gloo", "port": _free_port(),
               "address": list(listener.address), "parent_pid": os.getpid(), "timeout_s": self.collective_timeout_s,
               "sys_path": list(sys.path), "pack_name": name, "pack_root": root}
        entry = str(Path(__file__).with_name("_entry.py"))
        accepted: list = []

        def accept():
            try:
                for _ in range(self.world):
                    accepted.append(listener.accept())
            except OSError:
                pass

        t = threading.Thread(target=accept, daemon=True)
        t.start()
        for r in range(self.world):
            env = dict(os.environ, ACCEL_MG_AUTHKEY=authkey.hex(), ACCEL_MG_CONFIG=json.dumps(dict(cfg, rank=r)))
            self.procs.append(subprocess.Popen([sys.executable, entry], env=env))
        deadline = time.monotonic() + self.start_timeout_s
        while t.is_alive() and time.monotonic() < deadline and all(p.poll() is None for p in self.procs):
            t.join(0.1)
        listener.close()
        if len(accepted) != self.world:
            self.shutdown(0)
            raise WorkerError(f"{len(accepted)} of {self.world} workers connected within {self.start_timeout_s:.0f} s")
        # connections arrive in any order: each worker says its rank first
        by_rank = {}
        for c in accepted:
            if not c.poll(self.start_timeout_s):
                self.shutdown(0)
                raise WorkerError("a worker connected but did not join the process group")
            msg = transport.get(c)
            by_rank[msg[1]] = c
        self.conns = [by_rank[r] for r in range(self.world)]
        self.stats["start_s"] = round(time.monotonic() - t0, 1)
        log.info("multigpu: %d %s workers ready (pids %s)", self.world, self.device, self.pids)
        return self

    def shutdown(self, grace_s: float = 10.0) -> None:
        for c in self.conns:
            try:
                transport.put(c, ("stop",))
            except Exception:
                pass
        deadline = time.monotonic() + grace_s
        for p in self.procs:
            try:
                p.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait(10)
        for c in self.conns:
            try:
                c.close()
            except Exception:
                pass
        self.procs, self.conns, self.model_key, self.models, self.memory = [], [], None, {}, None

    # ------------------------------------------------------------------ work
    def _collect(self, expect: str, check_interrupt=None) -> list:
        """One reply per rank; raises WorkerError on a worker error or death (pool shut down)."""
        replies = [None] * self.world
        pending = dict(enumerate(self.conns))
        interrupted_at = None
        while pending:
            ready = wait(list(pending.values()), timeout=0.1)
            for c in ready:
                r = next(k for k, v in pending.items() if v is c)
                try:
                    msg = transport.get(c)
                except (EOFError, OSError):
                    msg = ("error", r, "connection closed")
                if msg[0] == "error":
                    # a worker that died mid-step shows up first as its closed connection or as a peer's failed
                    # collective (gloo: connection reset; NCCL hangs until the poll below): name the dead one
                    died = self._died(1.0)
                    log.warning("multigpu: worker %s failed (%s):\n%s", msg[1], expect, msg[2])
                    self.shutdown(1.0)
                    if died:
                        raise WorkerError(f"{died} while computing ({expect}); the other workers were stopped")
                    last = msg[2].strip().splitlines()[-1] if msg[2].strip() else "no traceback"
                    raise WorkerError(f"worker {msg[1]} failed ({expect}): {last}")
                replies[r] = msg
                del pending[r]
            if pending and not ready:
                died = self._died(0.0)
                if died:
                    self.shutdown(1.0)
                    raise WorkerError(f"{died} while computing ({expect}); the other workers were stopped")
                if check_interrupt is not None and interrupted_at is None and check_interrupt():
                    interrupted_at = time.monotonic()
                if interrupted_at is not None and time.monotonic() - interrupted_at > self.interrupt_grace_s:
                    log.warning("multigpu: interrupted, workers did not finish the step within %.0f s: stopping them",
                                self.interrupt_grace_s)
                    self.shutdown(0)
                    return None
        return replies

    def _died(self, wait_s: float) -> str:
        """'' while every worker runs (waiting up to `wait_s` for one to exit), else which exited and how."""
        deadline = time.monotonic() + wait_s
        while True:
            dead = [(r, p) for r, p in enumerate(self.procs) if p.poll() is not None]
            if dead or time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        return "; ".join(f"worker {r} (pid {p.pid}) {exit_text(p.returncode)}" for r, p in dead)

    def load(self, key, module, inner=None, compile_cfg=None, compute_dtype=None) -> None:
        """Make the workers hold `module`'s weights (sent when `key` is not held) and run `inner` (the user's
        attention override, sent when it changes) inside their Ulysses attention; `compile_cfg` (Accel
        Compile's CompileConfig, part of `key`) makes them compile their copy the same way. The models held
        before stay while every worker keeps KEEP_FREE of its memory free with the new one loaded too (the two
        experts of Wan 2.2 A14B, sampled one after the other in every run); the oldest go first."""
        with self.lock:
            inner = transport.AttentionRecipe.of(inner)
            try:
                pickle.dumps(inner)
            except Exception:
                log.warn_once(("multigpu", "inner", type(inner).__name__),
                              "multigpu: the attention override %r cannot be sent to the workers; they use ComfyUI's "
                              "attention",
                              inner)
                inner = None
            held = self.models.get(key)
            if held is not None:
                self.models[key] = self.models.pop(key)  # the newest now
                if repr(inner) != repr(held["inner"]):
                    for c in self.conns:
                        transport.put(c, ("inner", key, inner))
                    self.worker_inner = self._collect("inner")[0][1]
                    held["inner"] = inner
                self.model_key, self.inner, self.compile_cfg = key, inner, held["compile_cfg"]
                return
            t0 = time.monotonic()
            skeleton, tensors = transport.snapshot(module)
            need = transport.nbytes(tensors)
            keep = self._keep(need)
            for c in self.conns:
                transport.put(c, ("load", key, inner, compile_cfg, str(compute_dtype) if compute_dtype else None, keep))
            self.models = {k: v for k, v in self.models.items() if k in keep}
            failed = []

            def send():
                try:
                    transport.send_model(self.conns, skeleton, tensors)
                except OSError as e:  # a worker failed or died: _collect says which, and stops them all
                    failed.append(e)

            sender = threading.Thread(target=send, daemon=True)
            sender.start()
            replies = self._collect("load")
            sender.join()
            if failed:
                raise WorkerError(f"sending the model to the workers failed: {failed[0]}")
            self.worker_inner = replies[0][2]
            self.memory = min((r[3] for r in replies), key=lambda m: m["available"])
            self.models[key] = {"bytes": need, "inner": inner, "compile_cfg": compile_cfg}
            self.stats["loads"].append((key, need, round(time.monotonic() - t0, 1)))
            self.model_key, self.inner, self.compile_cfg = key, inner, compile_cfg
            if len(self.models) > 1:
                log.info("multigpu: the workers hold %d models (%.1f GB each GPU); %.1f GB of %.1f GB left",
                         len(self.models), sum(m["bytes"] for m in self.models.values()) / 1e9,
                         self.memory["available"] / 1e9, self.memory["total"] / 1e9)

    def _keep(self, need: int) -> list:
        """The held models that stay when one of `need` bytes comes: newest first, while every worker keeps
        KEEP_FREE of its memory available with the new one loaded."""
        if self.memory is None:
            return []
        available, floor = self.memory["available"] - need, KEEP_FREE * self.memory["total"]
        dropped = []
        for k in self.models:  # oldest first
            if available >= floor:
                break
            available += self.models[k]["bytes"]
            dropped.append(k)
        return [k for k in self.models if k not in dropped] if available >= floor else []

    def info(self) -> list:
        """Per worker: device, memory (peak included), the models held with their attention and compile status."""
        with self.lock:
            for c in self.conns:
                transport.put(c, ("info",))
            return [r[2] for r in self._collect("info")]

    def run(self, parts: list, check_interrupt=None, method: str = "forward"):
        """`method`: the diffusion model's method to call with keyword arguments (the one ComfyUI's
        DIFFUSION_MODEL executor wraps, e.g. `_forward`, whose names the arguments use).
        `parts`: one kwargs dict per group of ranks (1: all ranks share the sequence; 2: CFG parallel,
        ranks 0..N/2-1 get parts[0], the others parts[1]). The groups' outputs (CPU) concatenated along
        the batch, or None when an interrupt stopped the pool."""
        split = len(parts)
        if self.world % split:
            raise ValueError(f"{split} parts for {self.world} workers")
        size = self.world // split
        with self.lock:
            payloads = [pickle.dumps(("run", self.model_key, transport.to_cpu(p), split, method),
                                     protocol=4) for p in parts]
            for r, c in enumerate(self.conns):
                c.send_bytes(payloads[r // size])
            self.busy = True
            try:
                replies = self._collect("forward", check_interrupt)
            finally:
                self.busy = False
            if replies is None:
                return None
            outs = [replies[g * size][1] for g in range(split)]
            return outs[0] if split == 1 else torch.cat(outs, dim=0)


def exit_text(code) -> str:
    """How a worker process ended, in words (a negative code is the signal that ended it)."""
    if code is not None and code < 0:
        import signal

        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        why = " (out of host memory, or killed by hand)" if name == "SIGKILL" else ""
        return f"was killed by {name}{why}"
    return f"exited with code {code}"


_POOL: dict = {}
_POOL_LOCK = threading.Lock()


def get_pool(world: int, device: str, **opts) -> WorkerPool:
    """The live pool for (world, device), starting it (and stopping another) when needed."""
    with _POOL_LOCK:
        p = _POOL.get("pool")
        if p is not None and (p.world, p.device) == (world, device) and p.alive():
            for k, v in opts.items():  # timeouts of the newest MODEL apply
                setattr(p, k, v)
            return p
        if p is not None:
            dead = {pid: proc.returncode for pid, proc in zip(p.pids, p.procs, strict=True) if proc.poll() is not None}
            if dead and (p.world, p.device) == (world, device):
                log.warning("multigpu: worker process(es) %s exited since the last step (exit codes %s: killed, out "
                            "of memory or crashed; their console output says why); stopping the pool and starting "
                            "%d new %s workers", sorted(dead), sorted(set(dead.values()), key=str), world, device)
            p.shutdown()
        _POOL["pool"] = None
        p = WorkerPool(world, device, **opts).start()
        _POOL["pool"] = p
        return p


def current_pool():
    return _POOL.get("pool")


def shutdown_all() -> None:
    with _POOL_LOCK:
        p = _POOL.pop("pool", None)
        if p is not None:
            p.shutdown()


atexit.register(shutdown_all)
