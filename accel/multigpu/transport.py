"""Moving a diffusion model and its inputs between ComfyUI's process and the workers.

A model travels as a small pickle of the module tree whose tensors are replaced by persistent ids,
followed by each tensor's raw bytes (one tensor in flight at a time: no second copy of the model in
RAM, no /dev/shm). Weights are taken as ComfyUI runs them: LoRA patches already applied, and
lowvram per-layer patches (`weight_function`/`bias_function`) evaluated once here. Compile stand-ins
swapped into the tree (Accel Compile's regions, torch's OptimizedModule) travel as the modules they wrap.
"""
from __future__ import annotations

import io
import pickle

import torch

_PATCH_LISTS = ("weight_function", "bias_function")


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
            for attr, pname in zip(_PATCH_LISTS, ("weight", "bias")):
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


def send_model(conn, skeleton: bytes, tensors: list) -> None:
    put(conn, ("model", skeleton, [(str(t.dtype).split(".")[-1], tuple(t.shape), p) for t, p in tensors]))
    for t, _ in tensors:
        flat = t.detach().to("cpu").contiguous().reshape(-1)
        if flat.numel():
            conn.send_bytes(flat.view(torch.uint8).numpy())


def recv_model(conn, device):
    kind, skeleton, metas = get(conn)
    assert kind == "model", kind
    tensors = []
    for dtype, shape, is_param in metas:
        dt = getattr(torch, dtype)
        if any(s == 0 for s in shape):
            t = torch.empty(shape, dtype=dt)
        else:
            t = torch.frombuffer(bytearray(conn.recv_bytes()), dtype=torch.uint8).view(dt).reshape(shape)
        t = t.to(device)
        tensors.append(torch.nn.Parameter(t, requires_grad=False) if is_param else t)

    class _Unpickler(pickle.Unpickler):
        def persistent_load(self, pid):
            return tensors[pid[1]] if pid[0] == "t" else []

    return _Unpickler(io.BytesIO(skeleton)).load()


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
