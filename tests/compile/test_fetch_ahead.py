"""Accel Compile's block fetcher starts the copy of the next block's streamed weights while a block runs
(accel.compile.stream: `_fetch_ahead`, `cancel`), as ComfyUI's own block prefetcher does
(`comfy.model_prefetch.prefetch_queue_pop`: the next block's `cast_modules_with_vbar` is issued before the current
block's compute).

DynamicVRAM's streamed weights exist only on a CUDA GPU with comfy-aimdo, so ComfyUI's vbar functions are played by
stand-ins with their contract: `cast_modules_with_vbar` starts the copies on an offload stream and leaves a `_prefetch`
state on each layer, `resolve_cast_module_with_vbar` reads that state, `cleanup_prefetched_modules` removes it, and
ComfyUI's eager cast path would take a `_prefetch` it finds as its own (so none may be left behind). What is checked:
each block's weights are fetched once, the next block's fetch starts before the current block computes and is used
by that block, a fetch for a block the model does not call next is released (the current stream made to wait for
its copies), and none is started with fewer than two offload streams (one cast buffer: the running block's)."""
import sys
import types

import pytest
import torch


class _Layer(torch.nn.Linear):
    """A comfy.ops Linear whose weight DynamicVRAM streams: not on the compute device (meta here), `_v` set."""

    comfy_cast_weights = True

    def __init__(self, seed):
        super().__init__(4, 4, device="meta")
        self.weight_function, self.bias_function = [], []
        self._v = object()
        g = torch.Generator().manual_seed(seed)
        self.true_w, self.true_b = torch.randn(4, 4, generator=g), torch.randn(4, generator=g)


class _Block(torch.nn.Module):
    def __init__(self, seed):
        super().__init__()
        self.lin = _Layer(seed)


class _Stream:
    def __init__(self, n):
        self.n = n

    def wait_stream(self, other):
        pass


@pytest.fixture
def vbar(comfy, monkeypatch):
    """ComfyUI's vbar functions as stand-ins; `events` records what ran in which order."""
    import comfy.model_management as mm
    import comfy.ops as ops

    events = []
    streams = iter(range(1000))

    def cast_modules_with_vbar(layers, dtype, device, bias_dtype, non_blocking):
        s = _Stream(next(streams))
        for m in layers:
            assert not hasattr(m, "_prefetch"), "a layer fetched twice"
            m._prefetch = {"stream": s}
        events.append(("cast", tuple(layers), s.n))
        return s

    def resolve_cast_module_with_vbar(m, dtype, device, bias_dtype, compute_dtype, want_requant):
        assert hasattr(m, "_prefetch"), "resolved without a started fetch"
        return m.true_w.to(dtype), m.true_b.to(dtype)

    def cleanup_prefetched_modules(block, layers):
        for m in layers:
            if hasattr(m, "_prefetch"):
                del m._prefetch
        events.append(("cleanup", block))

    monkeypatch.setattr(ops, "cast_modules_with_vbar", cast_modules_with_vbar, raising=False)
    monkeypatch.setattr(ops, "resolve_cast_module_with_vbar", resolve_cast_module_with_vbar, raising=False)
    monkeypatch.setattr(mm, "NUM_STREAMS", 2, raising=False)
    monkeypatch.setattr(mm, "sync_stream", lambda device, s: events.append(("wait", s.n)), raising=False)
    monkeypatch.setattr(mm, "current_stream", lambda device: _Stream(-1), raising=False)
    monkeypatch.setattr(mm, "device_supports_non_blocking", lambda device: True, raising=False)
    mp = types.ModuleType("comfy.model_prefetch")  # ComfyUI 0.33+; the CI test bed (0.3.75) has none
    mp.cleanup_prefetched_modules = cleanup_prefetched_modules
    monkeypatch.setitem(sys.modules, "comfy.model_prefetch", mp)
    return mm, events


def _run_blocks(mod, blocks, order, events):
    fetcher = mod("accel.compile.stream").BlockFetcher()
    fetcher.set_order(blocks)
    x = torch.randn(2, 4)
    outs = []

    def fn(block, x):
        events.append(("compute", block))
        return block.lin(x)

    for i in order:
        outs.append(fetcher.run(blocks[i], fn, (x,), {}))
    return fetcher, x, outs


def test_next_block_fetched_while_one_runs(mod, vbar):
    mm, events = vbar
    blocks = [_Block(i) for i in range(3)]
    fetcher, x, outs = _run_blocks(mod, blocks, [0, 1, 2], events)
    for b, y in zip(blocks, outs):  # each block computed with its own weights
        torch.testing.assert_close(y, torch.nn.functional.linear(x, b.lin.true_w, b.lin.true_b))
    casts = [e for e in events if e[0] == "cast"]
    assert [c[1][0] for c in casts] == [b.lin for b in blocks]  # one fetch per block, in order
    kinds = [(e[0], e[1] if e[0] != "cast" else e[1][0]) for e in events if e[0] in ("cast", "compute")]
    assert kinds == [("cast", blocks[0].lin), ("cast", blocks[1].lin), ("compute", blocks[0]),
                     ("cast", blocks[2].lin), ("compute", blocks[1]), ("compute", blocks[2])]
    assert fetcher.prefetched == 2 and fetcher.streamed == 3
    # block 1 waited for the stream its fetch was started on, not for a new one
    assert ("wait", casts[1][2]) in events[events.index(("compute", blocks[0])):events.index(("compute", blocks[1]))]
    assert not any(hasattr(b.lin, "_prefetch") for b in blocks)
    assert blocks[0].lin.weight.device.type == "meta"  # each layer got its own state back


def test_fetch_for_a_block_not_called_is_released(mod, vbar):
    mm, events = vbar
    blocks = [_Block(i) for i in range(3)]
    fetcher, x, outs = _run_blocks(mod, blocks, [0, 2], events)  # block 1 skipped (e.g. a cache or a patch)
    assert ("cleanup", blocks[1]) in events and not hasattr(blocks[1].lin, "_prefetch")
    casts = [e for e in events if e[0] == "cast"]
    assert ("wait", casts[1][2]) in events  # work queued after the release runs after block 1's started copies
    torch.testing.assert_close(outs[1], torch.nn.functional.linear(x, blocks[2].lin.true_w, blocks[2].lin.true_b))
    assert fetcher.prefetched == 0

    events.clear()
    fetcher, _, _ = _run_blocks(mod, blocks, [0], events)  # the model call ends after block 0
    assert hasattr(blocks[1].lin, "_prefetch")
    fetcher.cancel()
    assert not hasattr(blocks[1].lin, "_prefetch") and ("cleanup", blocks[1]) in events


def test_no_fetch_ahead_with_one_offload_stream(mod, vbar, monkeypatch):
    mm, events = vbar
    monkeypatch.setattr(mm, "NUM_STREAMS", 1)
    blocks = [_Block(i) for i in range(2)]
    fetcher, _, _ = _run_blocks(mod, blocks, [0, 1], events)
    kinds = [e[0] for e in events if e[0] in ("cast", "compute")]
    assert kinds == ["cast", "compute", "cast", "compute"] and fetcher.prefetched == 0


def test_model_call_releases_a_fetch_left_ahead(mod, vbar):
    """The compile wrapper releases a started fetch when the model call ends, also when it fails (its eager re-run
    would otherwise take the layers' `_prefetch` state)."""
    mm, events = vbar
    wrapper = mod("accel.compile.wrapper")
    cs = wrapper._CallState()
    cs.targets = []
    blk = _Block(0)
    import comfy.ops as ops

    stream = ops.cast_modules_with_vbar([blk.lin], torch.float32, torch.device("cpu"), torch.float32, True)
    cs.fetcher._ahead = (blk, [blk.lin], stream, torch.device("cpu"))

    def failing(*a, **k):
        raise RuntimeError("the sampler failed")

    with pytest.raises(RuntimeError, match="the sampler failed"):
        wrapper.CompileWrapper._run_swapped(failing, cs, (), {})
    assert not hasattr(blk.lin, "_prefetch") and cs.fetcher._ahead is None
