"""Moving a diffusion model and its inputs between ComfyUI's process and the workers.

A model travels as a small pickle of the module tree whose tensors are replaced by persistent ids, sent
to every worker, and each tensor's raw bytes, written to worker 0 only, straight on its socket (no
pickling, no second copy of the model in RAM, no /dev/shm); worker 0 copies them to its device and
broadcasts each tensor to the other workers over the process group (NCCL: GPU to GPU), so ComfyUI's
process sends the weights once whatever the number of GPUs. Weights are taken as ComfyUI runs them: LoRA patches already
applied, and
lowvram per-layer patches (`weight_function`/`bias_function`) evaluated once here. Compile stand-ins
swapped into the tree (Accel Compile's regions, torch's OptimizedModule) travel as the modules they wrap.
"""
from __future__ import annotations

import io
import os
import pickle
import socket

import torch

_PATCH_LISTS = ("weight_function", "bias_function")
CHUNK = 64 << 20  # bytes staged at a time in pinned host memory on the way to the GPU


def put(conn, obj) -> None:
    """Send with plain pickle (Connection.send uses multiprocessing's ForkingPickler, for which torch
    registers fd-sharing reductions that only work between multiprocessing-spawned processes)."""
    conn.send_bytes(pickle.dumps(obj, protocol=4))


def get(conn):
    return pickle.loads(conn.recv_bytes())


def _same(module):
    return module


class _ModelPickler(pickle.Pickler):
    def __init__(self, f, overrides: dict, emptied: set):
        super().__init__(f, protocol=4)
        self.overrides, self.emptied = overrides, emptied
        self.tensors: list = []
        self._index: dict = {}

    def persistent_id(self, obj):
        if isinstance(obj, torch.Tensor):
            i = self._index.get(id(obj))
            if i is None:
                t = self.overrides.get(id(obj), obj)
                i = self._index[id(obj)] = len(self.tensors)
                self.tensors.append((t, isinstance(obj, torch.nn.Parameter)))
            return ("t", i)
        if id(obj) in self.emptied:
            return ("list",)
        return None

    def reducer_override(self, obj):
        # a stand-in that wraps a module while ComfyUI runs (the pack's compile _Region, torch's
        # OptimizedModule): the worker gets the module itself and compiles it there
        if isinstance(obj, torch.nn.Module) and "_orig_mod" in obj.__dict__.get("_modules", {}):
            return _same, (obj._modules["_orig_mod"],)
        return NotImplemented


def snapshot(module: torch.nn.Module):
    """(skeleton bytes, [(tensor, is_parameter)]). Raises pickle errors for layer classes that cannot
    be imported by name in another process (classes built at run time)."""
    overrides, emptied = {}, set()
    with torch.no_grad():
        for m in module.modules():
            for attr, pname in zip(_PATCH_LISTS, ("weight", "bias"), strict=True):
                fns = getattr(m, attr, None)
                if isinstance(fns, list):
                    emptied.add(id(fns))
                    p = getattr(m, pname, None)
                    if fns and p is not None:
                        w = p
                        for f in fns:
                            w = f(w)
                        overrides[id(p)] = w
    buf = io.BytesIO()
    pk = _ModelPickler(buf, overrides, emptied)
    pk.dump(module)
    return buf.getvalue(), pk.tensors


def _raw(conn) -> socket.socket:
    """A socket on (a duplicate of) the connection's descriptor: tensor bytes go through it unframed, each side
    knowing the sizes from the metadata message sent before them."""
    return socket.socket(fileno=os.dup(conn.fileno()))


def nbytes(tensors: list) -> int:
    return sum(t.numel() * t.element_size() for t, _ in tensors)


def send_model(conns: list, skeleton: bytes, tensors: list) -> None:
    """The skeleton and the tensors' metadata to every worker; the tensors' bytes to the first (worker 0), which
    broadcasts them to the others (`recv_model`)."""
    meta = ("model", skeleton, [(str(t.dtype).split(".")[-1], tuple(t.shape), p) for t, p in tensors])
    for c in conns:
        put(c, meta)
    with _raw(conns[0]) as s:
        for t, _ in tensors:
            flat = t.detach().to("cpu").contiguous().reshape(-1)
            if flat.numel():
                s.sendall(memoryview(flat.view(torch.uint8).numpy()))


def _recv_into(sock, buf: torch.Tensor, staging) -> None:
    """Fill the uint8 tensor `buf` from the socket: directly (CPU), or through the pinned `staging` tensor (GPU)."""
    if staging is None:
        view, n, pos = memoryview(buf.numpy()), buf.numel(), 0
        while pos < n:
            got = sock.recv_into(view[pos:], n - pos)
            if not got:
                raise EOFError("ComfyUI's process closed the connection while sending the model")
            pos += got
        return
    for off in range(0, buf.numel(), staging.numel()):
        k = min(staging.numel(), buf.numel() - off)
        _recv_into(sock, staging[:k], None)
        buf[off:off + k].copy_(staging[:k])


def recv_model(conn, device, rank: int = 0, world: int = 1):
    """The model `send_model` sends: worker 0 reads the bytes, every worker of the default process group gets each
    tensor by a broadcast from worker 0 (all workers call this together)."""
    import torch.distributed as dist

    kind, skeleton, metas = get(conn)
    assert kind == "model", kind
    device = torch.device(device)
    sock = _raw(conn) if rank == 0 else None
    staging = None
    if sock is not None and device.type == "cuda":
        staging = torch.empty(min(CHUNK, max([_size(d, s) for d, s, _ in metas] + [1])), dtype=torch.uint8,
                              pin_memory=True)
    tensors = []
    try:
        for dtype, shape, is_param in metas:
            dt = getattr(torch, dtype)
            buf = torch.empty(_size(dtype, shape), dtype=torch.uint8, device=device)
            if buf.numel():
                if sock is not None:
                    _recv_into(sock, buf, staging)
                if world > 1:
                    dist.broadcast(buf, src=0)
            t = buf.view(dt).reshape(shape)
            tensors.append(torch.nn.Parameter(t, requires_grad=False) if is_param else t)
    finally:
        if sock is not None:
            sock.close()

    class _Unpickler(pickle.Unpickler):
        def persistent_load(self, pid):
            return tensors[pid[1]] if pid[0] == "t" else []

    return _Unpickler(io.BytesIO(skeleton)).load()


def _size(dtype: str, shape) -> int:
    n = getattr(torch, dtype).itemsize
    for s in shape:
        n *= s
    return n


def to_cpu(obj):
    if isinstance(obj, torch.Tensor):
        return obj.detach().to("cpu")
    if isinstance(obj, dict):
        return {k: to_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_cpu(v) for v in obj)
    return obj


def to_device(obj, device):
    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, dict):
        return {k: to_device(v, device) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(v, device) for v in obj)
    return obj


class AttentionRecipe:
    """Accel Attention's override as it travels to a worker: its kernel objects hold library functions
    that do not pickle, so the worker resolves the same backend by name on its own GPU (autotune off)."""

    def __init__(self, backend: str, policy, title: str | None):
        self.backend, self.policy, self.title = backend, policy, title

    @classmethod
    def of(cls, override):
        if type(override).__name__ == "AttentionOverride" and hasattr(override, "backend"):
            return cls(override.backend, override.policy.value, override.title)  # plain strings: they pickle
        return override

    def build(self):
        from ..attention import override as attention
        from ..common import hardware
        from ..common.errors import titled

        with titled(self.title):
            kern, _, _ = attention._resolve(hardware.profile(), self.backend, self.policy, (), attention._device())
        return attention.AttentionOverride(kern, self.policy, title=self.title) if kern is not None else None

    def __repr__(self):
        return f"<attention {self.backend}, resolved in the worker>"
