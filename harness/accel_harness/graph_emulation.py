"""A stand-in for torch.cuda.CUDAGraph on the CPU: the tests of Accel Compile's CUDA-graph path
(accel.compile.graphs) run it through a real ComfyUI with tiny models, where no GPU can capture.

It keeps what makes a replay right or wrong, so that a missing key component or a missing invalidation shows as a
wrong output instead of passing unnoticed:
- a replay computes on the static inputs the graph was captured with (the pack must copy each call's tensors into
  them) and with the arguments of the captured call (a `transformer_options` value or any other Python argument that
  changed and is not in the key is replayed as it was at capture);
- a replay reads the model's tensors that were there at capture: every parameter and buffer object, and its storage,
  as captured (a weight ComfyUI replaced or moved since is not seen, as a real graph would read the old address);
- the captured call's output tensors are static: each replay writes into them.
What it cannot show: host syncs and ops a real capture refuses, and the memory a graph pool holds (the GPU check,
bench/graph_check.py, runs the same scenarios with real graphs).

Install: `mod("accel.compile.graphs").TEST_BACKEND = EmulatedGraphs()`; put None back after the test.
"""
from __future__ import annotations

import contextlib

import torch
from torch.utils._python_dispatch import TorchDispatchMode


def _tensors(obj, out: list) -> list:
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            _tensors(x, out)
    elif isinstance(obj, dict):
        for x in obj.values():
            _tensors(x, out)
    return out


class _Graph:
    def __init__(self, fn, out, model):
        self.fn, self.out = fn, out
        # every parameter / buffer slot of the model: (owner dict, name, tensor object, its storage at capture)
        self.reads = [(d, n, t, t.data) for m in model.modules() for d in (m._parameters, m._buffers)
                      for n, t in d.items() if t is not None]

    @contextlib.contextmanager
    def as_captured(self):
        """The model's tensors as they were at capture, for the duration (put back after)."""
        undo = []
        try:
            for d, n, t, data in self.reads:
                cur = d.get(n)
                if cur is not t:
                    undo.append(("slot", d, n, cur))
                    d[n] = t
                if t.data_ptr() != data.data_ptr():
                    undo.append(("data", t, t.data))
                    t.data = data
            yield
        finally:
            for item in reversed(undo):
                if item[0] == "slot":
                    item[1][item[2]] = item[3]
                else:
                    item[1].data = item[2]


class _Refuse(TorchDispatchMode):
    """Raises `error` at the first call of `op` (an aten overload packet) inside the capture: the model's own line
    that called it is where the capture failed, as when a GPU refuses a host copy inside a model's forward."""

    def __init__(self, op, error):
        super().__init__()
        self.op, self.error = op, error

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.overloadpacket is self.op:
            raise self.error
        return func(*args, **(kwargs or {}))


class EmulatedGraphs:
    """The backend interface of accel.compile.graphs (supports, new_pool, side_stream, capture, replay, release),
    computing eagerly on the CPU. `fail`: an exception every capture raises (a capture a real GPU refuses);
    `refuse`: (aten op, exception): the capture raises it where the model's call first runs that op; `allocator`: the
    CUDA allocator backend the process would run with."""

    name = "emulated CUDA graphs (CPU tests)"

    def __init__(self, fail: Exception | None = None, refuse: tuple | None = None, allocator: str = "native"):
        self.fail, self.refuse, self._allocator = fail, refuse, allocator
        self.captures = self.replays = self.releases = 0

    @staticmethod
    def supports(device) -> bool:
        return True

    def allocator(self) -> str:
        """The allocator backend the process runs with (`allocator=`: "native" or "cudaMallocAsync")."""
        return self._allocator

    @staticmethod
    def new_pool(device):
        return object()

    @staticmethod
    def side_stream(device):
        return contextlib.nullcontext()

    def capture(self, fn, pool, device, model):
        if self.fail is not None:
            raise self.fail
        if self.refuse is not None:
            with _Refuse(*self.refuse):
                fn()
        out = fn()
        self.captures += 1
        return _Graph(fn, out, model), out

    def replay(self, graph) -> None:
        with graph.as_captured():
            fresh = graph.fn()
        for static, new in zip(_tensors(graph.out, []), _tensors(fresh, []), strict=True):
            static.copy_(new)
        self.replays += 1

    def release(self, graph) -> None:
        graph.fn = graph.reads = None
        self.releases += 1
