"""Weight prefetch for compiled blocks on cards where ComfyUI streams the weights (`prefetch_weights`).

How ComfyUI moves the weights on such a card (read from ComfyUI 0.33.0, comfy-aimdo 0.4.13's Python side and the
public comfy-aimdo C sources of the same series, ComfyUI 0.3.75 for the legacy path):

DynamicVRAM (0.33's default on NVIDIA: `main.py` makes `ModelPatcherDynamic` the patcher)
- Loading copies nothing. Every ComfyUI layer gets a slice `m._v` of the model's VBAR, a virtual address range backed
  on demand by 32 MiB pages; the slices are laid out small layers first, then large to small. Each load puts the
  model's VBAR at the top of comfy-aimdo's priority list, its watermark back at the top.
- A layer's `cast_bias_weight` (or a block's `comfy.ops.cast_modules_with_vbar`) faults its slice in: pages still
  resident with the same signature are used in place; absent pages below the watermark get memory and the weight is
  copied into them on an offload stream from a pinned host copy (ComfyUI pins it on first use, within its own pin
  budget, reading the file the first time); a LoRA is baked in and requantized there once and stays. A slice that
  ends above the watermark cannot be faulted: the fault returns at once (no page pinned) and the layer is copied at
  every call into the offload stream's cast buffer, its LoRA applied again each time.
- Memory for a fault is taken from the VBAR of lowest priority (the model loaded longest ago), down from its
  watermark, which stays lowered until that model loads again. Every eviction is preceded by `cuCtxSynchronize`,
  a full device sync: the host waits until the GPU has run everything queued. Torch's own allocations pass through
  comfy-aimdo's allocator hooks and evict the same way when they would exceed the budget. Pages are pinned while a
  call uses them; an eviction skips pinned pages but still lowers the watermark past them, and unpinning a page above
  the watermark syncs again.
- Offload streams: `comfy.model_management.get_offload_stream` hands out NUM_STREAMS streams in turn (2 on NVIDIA;
  `--async-offload N`, `--disable-async-offload`), each with its own cast buffer; the compute stream waits for the
  fetch's stream, and a stream handed out again first waits for the compute queued when the next one was handed
  out. So the copy of a layer overlaps the compute before it whenever the host is ahead of the GPU.
- `comfy.model_prefetch.prefetch_queue_pop` (LTX-AV, MiniMax, the Llama / Gemma text encoders; not Wan) fetches a
  block's layers in one `cast_modules_with_vbar` call just before the block runs: one stream sync per block. It does
  not fetch ahead of the block.
What that means for Wan 2.2 A14B on a card that holds less than both experts, as the code reads (bench/bench_e2e.py's
small-card variants measure it): the first step of each expert (each Queue) faults that expert in while evicting the
other, with device syncs that drain the GPU's queue, so those copies have no compute beside them; the later steps
copy only the slices above the watermark, overlapped with compute.

Legacy patcher (ComfyUI 0.3.x; 0.33 with --disable-dynamic-vram or `clone(disable_dynamic=True)`)
- A partial load keeps the modules that fit on the GPU; the others stay in CPU memory, pinned in place within
  ComfyUI's pin budget, flagged `comfy_cast_weights`, a LoRA on them becoming a per-call `LowVramPatch`. It reserves
  VRAM for the largest offloaded module and the next NUM_STREAMS ones. Each layer calls
  `cast_bias_weight(..., offloadable=True)`: copy and LoRA on an offload stream into a per-stream cast buffer,
  compute waits, and `uncast_bias_weight` makes the stream wait for the layer's compute (layer-by-layer double
  buffering).

What the pack's compiled blocks do without this (accel/compile/stream.py `BlockFetcher`): each block's weights are
fetched in one go just before it runs, outside the graph: `cast_modules_with_vbar` for the VBAR layers (ComfyUI's
stream rotation, so the copies overlap the block before when the host is ahead), `cast_bias_weight` on the compute
stream for legacy ones (no overlap at all). Where the model's forward runs ComfyUI's block queue (MiniMax-H3, LTX-2),
the layers the queue fetched are used as it left them, as stock's layers use them. An earlier version fetched them a
second time: as ComfyUI 0.33's code reads, each streamed layer copied twice a call, the second copy on the offload
stream `get_offload_stream` had just made wait for all the compute queued (two calls per block turn its rotation of
two streams around); bench/results/h200/family_033_minimax_h3_turbo/card24_profile measured that version: 4.7 s of
copies a run with no compute beside them on a 24 GB card, against stock's 1.7 s nearly all hidden; this one
(card24_fix/ beside it) copies 1.6 s, 0.15 s of it not hidden, and runs as fast on that card as on the whole card.
There `prefetch_weights` fetches nothing ahead (the queue would fetch it again) and says so.
An earlier version faulted the next block's VBAR layers while a block ran
(reverted; bench/results/h200/wf_lightx2v_033/README.md): their pages stayed pinned while the running block
allocated, evictions passed them, and the host time per call tripled.

Newer ComfyUI (the public sources after 0.33) keeps these functions (`cast_modules_with_vbar`,
`resolve_cast_module_with_vbar`, `cleanup_prefetched_modules`, `get_offload_stream`); pins gain a per-model fast-disk
state, and `comfy.model_prefetch` gains the Comfy Compiler (turned off for compiled models: accel.comfy_compat). Wan
still runs its blocks without the prefetch queue. Everything used here is feature-detected (accel.comfy_compat).

What `prefetch_weights` does (opt-in; exact: ComfyUI's own cast functions compute the same tensors, only earlier):
1. Make room once (DynamicVRAM). At a model call whose VBAR still has absent pages below its watermark (an expert's
   first step after the other ran) and too little free VRAM for them, the other loaded DynamicVRAM models give back
   that much, least recently loaded first, through their patcher's `partially_unload`: what ComfyUI's
   `free_memory` calls, and the pages comfy-aimdo would take back during the step anyway, one fault at a time,
   each behind a device sync. Nothing is loaded; one sync instead of many.
2. Stream ahead (DynamicVRAM). Right after a block is queued, the next block's layers whose slices end above the
   watermark (copied at every call) are fetched with `cast_modules_with_vbar` on the next offload stream: the
   fault returns at once, no page is pinned ahead; the rest of that block is fetched when it runs, as before. Needs
   two offload streams (one would make both fetches share one cast buffer); should the fetch when the block runs land
   on the stream holding its prefetched copies all the same, those are fetched again. No VRAM beyond what the same
   blocks take without prefetch (the two streams' cast buffers).
3. Cast ahead (legacy partial loads). The next block's per-call casts run on a side stream of the pack's with
   ComfyUI's `cast_bias_weight` (LoRA included) while the current block computes, when one block's cast weights fit
   the VRAM budget: ComfyUI's free device memory (`get_free_memory`, less torch's cached part) less its
   `minimum_inference_memory()`. Layers whose host copy ComfyUI did not pin are fetched when their block runs.
Host RAM: none of its own: the copies come from the host memory ComfyUI pinned within its own pin budget.
Exactness: 2. and 3. fetch the same tensors with the same functions, only earlier: the same bits on the CPU tests.
On the GPU no run of that benchmark was bit-reproducible: MiniMax-H3 from a scaled-fp8 file on a 24 GB card gave final
latents 0.353 and 0.350 (max |diff|) from stock's first run with and without prefetch, and stock's own second run
0.292 (bench/results/h200/family_033_minimax_h3_turbo/card24_prefetch), so that run cannot tell. 1. changes only when
the other models' pages are given back; the results depend on that only where ComfyUI's own do: a quantized layer run
on its dequantized weight with a LoRA under DynamicVRAM computes its first call after a fault from the unrounded
patched weight and later calls from the requantized one it stored (the FP8 matmul path and 16-bit weights do not).
After each run the node's report says which path ran: streaming with prefetch, fully resident, or ComfyUI's own
(prefetch off, or fallen back after an error: one log line, then the model streams as without it).
"""
from __future__ import annotations

import collections
from dataclasses import dataclass, field

import torch

from .. import comfy_compat
from ..common import log
from ..common.errors import AccelError, oom_cause
from ..common.policy import Policy

PATH_PREFETCH = "streaming with prefetch"
PATH_RESIDENT = "fully resident"
PATH_COMFY = "ComfyUI's own streaming"

SKIP_BUDGET = "over the VRAM budget"
SKIP_UNPINNED = "host copy not pinned by ComfyUI"
SKIP_STREAMS = "fewer than two offload streams"
SKIP_OOM = "out of memory while fetching ahead"
SKIP_QUEUE = "fetched by ComfyUI's own block queue (this model's forward runs it)"

# the two halves of prefetch_weights, for A/B runs of one of them (bench/bench_matrix.py --switch prefetch_room=off,
# prefetch_ahead=off): 1. of the module docstring, and 2. / 3.
MAKE_ROOM = True
FETCH_AHEAD = True


@dataclass(frozen=True)
class PrefetchSettings:
    """What a node asked for (`CompileConfig.prefetch`; part of its status key). `budget_bytes`: VRAM one block cast
    ahead may take (legacy partial loads); None = ComfyUI's accounting (`vram_budget`)."""

    policy: Policy = Policy.FALL_BACK
    budget_bytes: int | None = None
    title: str | None = None


@dataclass
class PrefetchStats:
    """Counted over a model's life (per compile status); `path` is the last call's."""

    calls: int = 0
    streamed_blocks: int = 0  # block calls whose weights were copied or cast per call
    ahead_blocks: int = 0  # of those, fetched while the block before ran
    skipped: collections.Counter = field(default_factory=collections.Counter)  # reason -> blocks not fetched ahead
    room_bytes: int = 0  # freed from other models by "make room"
    room_calls: int = 0
    fell_back: str = ""  # why prefetch is off for this model (an error), else ""
    path: str = ""
    last_call: tuple = ()  # the last call's (path, streamed, ahead, skipped, room bytes): logged when it changes

    def as_dict(self) -> dict:
        return {"path": self.path, "calls": self.calls, "streamed_blocks": self.streamed_blocks,
                "ahead_blocks": self.ahead_blocks, "skipped": dict(self.skipped), "room_mib": self.room_bytes >> 20,
                "room_calls": self.room_calls, "fell_back": self.fell_back}

    def line(self) -> str:
        """The report line: which path ran, and how much was fetched ahead."""
        if self.fell_back:
            return f"weights: {PATH_COMFY} (prefetch fell back: {self.fell_back})"
        if not self.calls:
            return ""
        if self.path == PATH_RESIDENT and not self.streamed_blocks:
            return f"weights: {PATH_RESIDENT} (nothing to prefetch)"
        text = (f"weights: {self.path} ({self.ahead_blocks} of {self.streamed_blocks} streamed block calls fetched "
                "ahead")
        if self.skipped:
            text += "; not ahead: " + ", ".join(f"{n} {why}" for why, n in self.skipped.most_common())
        if self.room_calls:
            text += (f"; room made {self.room_calls} time(s): {self.room_bytes / 2**30:.1f} GiB of other models' "
                     "weights given back at once")
        return text + ")"


# --- decisions (plain data: tests/compile/test_prefetch.py) ----------------------------------------------------

def streamed_layers(layers) -> list:
    """The VBAR layers whose slice ends above their VBAR's watermark: ComfyUI copies them at every call (their fault
    returns at once and pins nothing), so their copy can start ahead. None where the VBAR cannot be read."""
    out = []
    marks: dict = {}
    for m in layers:
        vbar = m._v[0]
        mark = marks.get(id(vbar))
        if mark is None:
            mark = marks[id(vbar)] = comfy_compat.vbar_watermark(vbar)
            if mark is None:
                return None
        if comfy_compat.vbar_page_end(m._v) > mark:
            out.append(m)
    return out


def absent_bytes(watermark: int, used: int, residency) -> int:
    """Bytes of a VBAR's pages below its watermark that hold layers and are not resident: what its next call faults
    in (each fault evicting pages of other models behind a device sync when VRAM is full)."""
    end = min(watermark, used, len(residency))
    return sum(1 for p in range(end) if not residency[p] & 1) * comfy_compat.VBAR_PAGE_BYTES


def room_plan(short: int, others) -> list:
    """How much each other model gives back so that `short` bytes are free: `others` = [(key, resident bytes)],
    least recently loaded first (comfy-aimdo's eviction order); never more than a model holds, never more than
    needed in all. Returns [(key, bytes)]."""
    plan = []
    for key, held in others:
        if short <= 0:
            break
        take = min(short, held)
        if take > 0:
            plan.append((key, take))
            short -= take
    return plan


def vram_budget(device) -> int:
    """VRAM a block cast ahead may take, by ComfyUI's accounting: free device memory (`get_free_memory`, less the part
    torch keeps cached for its own streams, which another stream cannot take) less `minimum_inference_memory()`,
    what ComfyUI keeps free for inference."""
    import comfy.model_management as mm

    return _device_free(device) - int(mm.minimum_inference_memory())


def cast_bytes(layers, dtype) -> int:
    """An upper bound of what casting `layers` allocates: each weight and bias at the larger of its stored and the
    compute dtype's size."""
    n = 0
    for m in layers:
        for t in (m._parameters.get("weight"), m._parameters.get("bias")):
            if t is not None:
                numel = 1
                for d in t.shape:
                    numel *= int(d)
                n += numel * max(t.element_size(), dtype.itemsize)
    return n


# --- the run ------------------------------------------------------------------------------------------------------

class _Ahead:
    """A fetch started while the block before ran: `kind` "vbar" (copies of `layers` under way on ComfyUI's
    offload `stream`) or "cast" (`fetched`, the whole block cast on the pack's side `stream`)."""

    __slots__ = ("block", "kind", "layers", "stream", "fetched")

    def __init__(self, block, kind, layers=(), stream=None, fetched=None):
        self.block, self.kind, self.layers, self.stream, self.fetched = block, kind, list(layers), stream, fetched


_SIDE_STREAMS: dict = {}  # device -> the pack's side stream for casts ahead (legacy partial loads)


class Prefetcher:
    """One model call's prefetch, made by the compile wrapper when its settings ask for it
    (`CompileConfig.prefetch`). The block fetcher calls `take` when a block runs, `note` once it fetched it,
    `start_next` right after it queued the block; the wrapper calls `set_order` and `begin` before the model runs and
    `finish` after."""

    def __init__(self, settings: PrefetchSettings, fetcher, stats: PrefetchStats):
        self.settings, self.fetcher, self.stats = settings, fetcher, stats
        self.next_of: dict = {}
        self.pending: _Ahead | None = None
        self._start = None  # an event on the compute stream when the model call began (CUDA)
        self.streamed = self.ahead = self.room = 0
        self.skipped: collections.Counter = collections.Counter()
        self.stats.calls += 1
        # the model's forward fetches each block itself (comfy.model_prefetch's queue: MiniMax-H3, LTX-2), seen by the
        # block fetcher: a block fetched ahead here would be fetched again by the queue, so nothing is fetched ahead
        self.comfy_queue = False

    # -- order, room ------------------------------------------------------------------------------------------
    def set_order(self, blocks):
        """The compiled blocks in the order the model calls them (its module order)."""
        self.next_of = {id(a): b for a, b in zip(blocks, blocks[1:], strict=False)}

    def begin(self, base, x):
        """Before the model runs on `x`: mark the start of the call, and 1. of the module docstring."""
        device = x.device
        if device.type == "cuda":
            self._start = torch.cuda.current_stream(device).record_event()  # casts ahead wait for what came before
        vbar = comfy_compat.dynamic_vbar(base, device) if MAKE_ROOM else None
        pages = comfy_compat.vbar_pages(vbar) if vbar is not None else None
        if pages is None:
            return
        need = absent_bytes(*pages)
        if need <= 0:
            return
        with self._guarded("making room"):
            short = need + _working_memory(base, x) - _device_free(device)
            if short <= 0:
                return
            others = [(p, comfy_compat.dynamic_vbar(p.model, device))
                      for p in comfy_compat.loaded_dynamic_patchers(device) if p.model is not base]
            held = [(p, v.loaded_size()) for p, v in others if v is not None]
            freed = 0
            for p, amount in room_plan(short, held):
                freed += int(p.partially_unload(p.offload_device, amount) or 0)
            if freed:
                self.room = freed
                self.stats.room_bytes += freed
                self.stats.room_calls += 1

    # -- per block ------------------------------------------------------------------------------------------
    def take(self, block):
        """The fetch started for `block` while the block before ran, or None (a fetch started for another block
        is released: the model called something else)."""
        got, self.pending = self.pending, None
        if got is not None and got.block is not block:
            self._release(got)
            got = None
        return got

    def note(self, streamed: bool, ahead: bool):
        if streamed:
            self.streamed += 1
            self.stats.streamed_blocks += 1
            if ahead:
                self.ahead += 1
                self.stats.ahead_blocks += 1

    def start_next(self, block, x):
        """2. / 3. of the module docstring for the block after `block`, right after `block` was queued."""
        nxt = self.next_of.get(id(block))
        if nxt is None or self.stats.fell_back or not FETCH_AHEAD:
            return
        if self.comfy_queue:
            self._skip(SKIP_QUEUE)
            return
        layers = self.fetcher.pending(nxt)
        if not layers:
            return
        device = x.device
        vbar = [m for m in layers if getattr(m, "_v", None) is not None and m.weight.device != device]
        with self._guarded("fetching the next block's weights ahead"):
            if vbar:
                self._stream_ahead(nxt, vbar, x)
            else:
                self._cast_ahead(nxt, layers, x)

    def _stream_ahead(self, nxt, vbar, x):
        streamed = streamed_layers(vbar)
        if streamed is None:
            raise RuntimeError("this comfy-aimdo's VBAR has no watermark query (get_watermark)")
        if not streamed:
            return  # every slice can be faulted in: fetched when the block runs (nothing is pinned ahead)
        if comfy_compat.offload_streams() < 2:
            self._skip(SKIP_STREAMS)
            return
        import comfy.model_management as mm
        import comfy.ops as ops

        ahead = _Ahead(nxt, "vbar", streamed)
        self.pending = ahead  # released by take / cancel whatever happens next
        ahead.stream = ops.cast_modules_with_vbar(streamed, x.dtype, x.device, x.dtype,
                                                  mm.device_supports_non_blocking(x.device))

    def _cast_ahead(self, nxt, layers, x):
        device = x.device
        if not any(m.weight.device != device or self.fetcher.casts_per_call(m) for m in layers):
            return  # resident, nothing patched per call: nothing to fetch ahead
        if device.type == "cuda" and any(m.weight.device.type == "cpu" and not _pinned(m.weight) for m in layers):
            self._skip(SKIP_UNPINNED)
            return
        budget = self.settings.budget_bytes if self.settings.budget_bytes is not None else vram_budget(device)
        if cast_bytes(layers, x.dtype) > budget:
            self._skip(SKIP_BUDGET)
            return
        side = _side_stream(device)
        if side is None:
            fetched = self.fetcher.fetch(nxt, layers, x)
        else:
            # what the casts read on the device (LoRA tensors put there at load) was queued before this model call;
            # waiting for the compute stream itself would wait for the block running now
            if self._start is not None:
                side.wait_event(self._start)
            with torch.cuda.stream(side):
                fetched = self.fetcher.fetch(nxt, layers, x)
        self.pending = _Ahead(nxt, "cast", stream=side, fetched=fetched)

    def ready(self, got):
        """The block `got` was fetched ahead for runs now: its compute waits for the side stream, and the tensors
        cast there are marked as used by the compute stream (the allocator keeps them until it is done)."""
        if got.stream is None:
            return
        cur = torch.cuda.current_stream(got.stream.device)
        cur.wait_stream(got.stream)
        for t in _fetched_tensors(got.fetched):
            if t.device.type == "cuda":
                t.record_stream(cur)

    def cancel(self):
        """Release a fetch started ahead that no block used (the call ended or failed)."""
        got, self.pending = self.pending, None
        if got is not None:
            self._release(got)

    def finish(self):
        """The call ended: its path for the report, and one log line when this call went otherwise than the last
        (an expert's first step after the other ran, the steps after it, a fallback)."""
        self.cancel()
        st = self.stats
        st.path = PATH_COMFY if st.fell_back else PATH_PREFETCH if self.streamed else PATH_RESIDENT
        call = (st.path, self.streamed, self.ahead, tuple(sorted(self.skipped.items())), self.room)
        if call != st.last_call and not st.fell_back:
            st.last_call = call
            text = f"{self.ahead} of {self.streamed} streamed block calls fetched ahead"
            if self.skipped:
                text += "; not ahead: " + ", ".join(f"{n} {why}" for why, n in self.skipped.most_common())
            if self.room:
                text += f"; room made at once: other models gave back {self.room / 2**30:.1f} GiB"
            log.info("compile: weights of this model call: %s (%s)", st.path, text)

    def _skip(self, why):
        self.skipped[why] += 1
        self.stats.skipped[why] += 1

    # -- failures ---------------------------------------------------------------------------------------------
    def drop(self, got):
        """Release a fetch started ahead that its block did not use."""
        self._release(got)

    def _release(self, got):
        if got.kind == "cast":
            self.fetcher.release(got.fetched)  # its tensors were only used on the side stream: reused in its order
        elif got.layers:
            import comfy.model_prefetch as mp

            mp.cleanup_prefetched_modules(got.block, got.layers)

    def _guarded(self, what):
        return _Guard(self, what)


class _Guard:
    """Errors while prefetching: out of memory skips this block; ComfyUI's interrupt passes; anything else turns
    prefetch off for the model (one log line, the report says so), or raises an AccelError with on_failure error."""

    def __init__(self, pf: Prefetcher, what: str):
        self.pf, self.what = pf, what

    def __enter__(self):
        return self

    def __exit__(self, typ, e, tb):
        if e is None or not isinstance(e, Exception):
            return False
        pf = self.pf
        pf.cancel()
        if _is_interrupt(e):
            return False
        if oom_cause(e) is not None:
            pf._skip(SKIP_OOM)
            return True
        reason = f"{type(e).__name__}: {e}"[:300]
        if pf.settings.policy is Policy.ERROR:
            raise AccelError("prefetch_weights", f"{self.what} failed ({reason})",
                             "turn prefetch_weights off (ComfyUI then streams the weights itself), or set on_failure "
                             "to 'fall back'", title=pf.settings.title) from e
        pf.stats.fell_back = reason
        log.warning("compile: weight prefetch failed while %s (%s); this model's weights stream as without it from now "
                    "on", self.what, reason)
        return True


def _is_interrupt(e) -> bool:
    try:
        import comfy.model_management as mm
    except Exception:  # noqa: BLE001
        return False
    return isinstance(e, mm.InterruptProcessingException)


def _device_free(device) -> int:
    """Free device memory by ComfyUI's accounting, less what torch keeps cached for its own streams (comfy-aimdo's
    pages cannot take that)."""
    import comfy.model_management as mm

    total, cached = mm.get_free_memory(device, torch_free_too=True)
    return int(total - cached)


def _working_memory(base, x) -> int:
    """What the model call needs besides its weights: ComfyUI's own estimate for this input (`memory_required`, what
    it loads models with), at least its `minimum_inference_memory()`."""
    import comfy.model_management as mm

    floor = int(mm.minimum_inference_memory())
    try:
        return max(floor, int(base.memory_required(input_shape=x.shape)))
    except Exception:  # noqa: BLE001 - a model class without the estimate
        return floor


def _pinned(t) -> bool:
    try:
        return bool(getattr(t, "_qdata", t).is_pinned())
    except Exception:  # noqa: BLE001 - a tensor subclass that cannot say: treat as not pinned
        return False


def _side_stream(device):
    if device.type != "cuda":
        return None  # the CPU runs the cast in order (the decisions are the same; tests)
    s = _SIDE_STREAMS.get(device)
    if s is None:
        s = _SIDE_STREAMS[device] = torch.cuda.Stream(device=device)
    return s


def _fetched_tensors(fetched):
    """The tensors a block fetch swapped into its layers (weights, biases, scales, LoRA factors)."""
    for m in fetched.layers:
        yield from (t for t in m._parameters.values() if t is not None)
        yield from (t for t in m._buffers.values() if t is not None)
        lr = m.__dict__.get("accel_lora")
        if isinstance(lr, (tuple, list)):
            yield from (t for t in lr if isinstance(t, torch.Tensor))
