"""Compiled blocks that keep ComfyUI's weight streaming: DynamicVRAM (0.33+) and partial loads.

Under DynamicVRAM (ComfyUI 0.33's default on NVIDIA, `ModelPatcherDynamic`) a Linear's weights are not
parameters on the GPU: every `comfy.ops` layer fetches them at call time through `cast_bias_weight`
(comfy-aimdo's virtual VRAM buffer: resident pages, or a copy into a cast buffer), and LoRA is applied
there too (`weight_lowvram_function`). The same holds for the legacy patcher's partial loads (lowvram:
`comfy_cast_weights`, LoRA as `LowVramPatch` weight functions). None of that can be traced by dynamo:
core's TorchCompileModel therefore turns DynamicVRAM off for the model (`clone(disable_dynamic=True)`),
which makes the whole model resident, or partially loaded with recompiles on a card where it does not fit.

What we do instead: just before a compiled block runs, its weights are fetched EAGERLY, the way
ComfyUI's own block prefetcher (`comfy.model_prefetch`) does it — `comfy.ops.cast_modules_with_vbar`
for all streamed layers of the block at once (one cast buffer, one stream sync), then
`resolve_cast_module_with_vbar` per layer (LoRA and weight wrappers applied there) — and handed to the
compiled block as plain on-device parameters for the duration of that call; afterwards the layers get
their own state back and the prefetch state is released (`cleanup_prefetched_modules`). Layers that are
not vbar-backed but still cast per call (legacy partial loads, small force-loaded layers with weight
functions) are fetched with `comfy.ops.cast_bias_weight`, or with the layer's own `cast_bias_weight` method where
its class has one (ComfyUI-GGUF's layers: packed GGML weights dequantized and LoRA-patched by the layer). The
compiled graph therefore only ever sees resident tensors: one graph for every block, no guard on LoRA objects, no
graph break per layer, and ComfyUI keeps deciding what stays in VRAM. The pack's FP8 Linears with a plain low-rank LoRA
are fetched as stored
(fp8) and get the LoRA factors as `accel_lora` for the call: the graph runs the FP8 matmul plus the low-rank term
(accel.fp8.ops); other weight patches on them are applied to the dequantized weight and requantized here.

Only one block's streamed weights are materialised at a time, like stock ComfyUI's per-layer casting
(a 14B Wan block is ~0.7 GB in fp16). Everything is feature-detected; where the running ComfyUI lacks
the cast API, `comfy_compat.block_fetch_support()` says why and the caller turns DynamicVRAM off for the model instead.
Where the model's forward fetches each block itself before calling it (ComfyUI's block queue, `comfy.model_prefetch`:
MiniMax-H3, LTX-2), its layers arrive with ComfyUI's fetch state on them; those are used as they are, as stock's
`cast_bias_weight` uses them, and released by the queue, not fetched a second time.
"""
from __future__ import annotations

import time
import weakref

import torch

from .. import comfy_compat
from . import quantized

_LOWVRAM_ATTRS = ("weight_lowvram_function", "bias_lowvram_function")


class BlockFetcher:
    """Per compiled model: fetches one block's weights outside the graph (see the module docstring)."""

    def __init__(self):
        self._layers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._slots: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.streamed = 0  # block calls of the current model call whose weights were fetched here
        self.plans: dict = {}  # quantized layers of the current model call per plan (accel.compile.quantized)
        self.host_s = 0.0  # host seconds of the current model call spent fetching and restoring weights here
        self.ahead = None  # the current call's Prefetcher (accel.compile.prefetch), None without prefetch_weights

    def layers(self, block):
        got = self._layers.get(block)
        if got is None:
            got = tuple(m for m in block.modules() if hasattr(m, "comfy_cast_weights"))
            self._layers[block] = got
        return got

    def subclass_slots(self, block):
        """(module, parameter name) of the block's parameters that are tensor subclasses `plain` unwraps (ComfyUI-GGUF
        keeps a block's unquantized tensors, e.g. Wan's `modulation` and its norms' weights, as `GGMLTensor`), found
        once per block; each call hands them to the compiled block as plain tensors."""
        got = self._slots.get(block)
        if got is None:
            got = tuple((m, n) for m in block.modules() for n, t in m._parameters.items()
                        if t is not None and plain(t) is not t)
            self._slots[block] = got
        return got

    def pending(self, block):
        """The layers of `block` that would cast their weights per call right now."""
        out = []
        for m in self.layers(block):
            if m._parameters.get("weight") is None:
                continue  # e.g. LayerNorm without affine: nothing to fetch, its cast path is a no-op
            if comfy_compat.is_quantized_layer(m):
                out.append(m)  # its own forward does not trace: always fetched and swapped (accel.compile.quantized)
                continue
            if not (m.comfy_cast_weights or m.weight_function or m.bias_function or getattr(m, "_v", None) is not None):
                continue
            if stored_scaled(m) and _has_functions(m) and not _is_pack_fp8(m):
                continue  # ComfyUI 0.3.x scaled-fp8 weight with LoRA: its own cast path patches the true values
            out.append(m)
        return out

    @staticmethod
    def casts_per_call(m) -> bool:
        """The layer's weight is patched at every call (a LoRA or weight wrapper applied by its cast path)."""
        return _has_functions(m)

    def run(self, block, fn, args, kwargs):
        args, kwargs = _plain_args(args, kwargs)
        slots = self.subclass_slots(block)
        x = _first_float(args, kwargs)
        pf = self.ahead if x is not None else None
        got = pf.take(block) if pf is not None else None  # a fetch started while the block before ran
        f = None
        if got is not None and got.kind == "cast":
            f = got.fetched
            pf.ready(got)
        else:
            layers = self.pending(block)
            if layers and x is not None:
                f = self.fetch(block, layers, x, got)
            elif got is not None:
                pf.drop(got)
        if f is not None:
            self.streamed += 1
            if pf is not None:
                pf.note(f.copied, got is not None)
                pf.comfy_queue = pf.comfy_queue or bool(f.queued)
        try:
            out = _with_plain(slots, fn, block, args, kwargs)
        finally:
            if f is not None:
                self.release(f)
        if pf is not None:
            pf.start_next(block, x)  # the block is queued: start fetching the next one (accel.compile.prefetch)
        return out

    def fetch(self, block, layers, x, ahead=None) -> Fetched:
        """Fetch `layers` of `block` for one call on x's device and dtype and hand them to the layers (see the module
        docstring); `release` puts everything back. `ahead`: the block's VBAR layers whose copies were started while
        the block before ran (accel.compile.prefetch), not fetched again unless the fetch of the others landed on
        the same offload stream (both would have written its cast buffer)."""
        import comfy.model_management as mm
        import comfy.ops as ops

        dtype, device = x.dtype, x.device
        t0 = time.perf_counter()
        f = Fetched(block, device, layers)
        try:
            nb = mm.device_supports_non_blocking(device)
            done = list(ahead.layers) if ahead is not None else []
            if done:
                f.vbar += done
                f.streams.append(ahead.stream)
            started = set(map(id, done))
            rest = [m for m in layers if getattr(m, "_v", None) is not None and m.weight.device != device
                    and id(m) not in started]
            # fetched for this call by ComfyUI's own block queue (comfy.model_prefetch, which MiniMax-H3's and LTX-2's
            # forwards run before each block): used as stock's cast_bias_weight uses them, not fetched again (a
            # second copy of each streamed layer, on a stream rotation that makes it wait for the block before) and
            # left to the queue to release at its next block
            f.queued = [m for m in rest if hasattr(m, "_prefetch")]
            if f.queued:
                rest = [m for m in rest if not hasattr(m, "_prefetch")]
            if rest:
                f.vbar += rest
                stream = ops.cast_modules_with_vbar(rest, dtype, device, dtype, nb)
                f.streams.append(stream)
                if done and stream is not None and stream is ahead.stream:
                    import comfy.model_prefetch as mp

                    mp.cleanup_prefetched_modules(block, done)
                    f.streams.append(ops.cast_modules_with_vbar(done, dtype, device, dtype, nb))
            f.copied = any(not getattr(m, "_prefetch", {}).get("resident", True) for m in f.vbar + f.queued) or any(
                getattr(m, "_v", None) is None and (m.weight.device != device or self.casts_per_call(m))
                for m in layers)
            for stream in f.streams:
                mm.sync_stream(device, stream)
            vset = set(map(id, f.vbar + f.queued))
            saved = f.saved
            for m in layers:
                if comfy_compat.is_quantized_layer(m):
                    plan, w, b, scales = quantized.fetch(m, x, id(m) in vset)
                    saved.append((quantized.restore, quantized.swap_in(m, plan, w, b, scales)))
                    self.plans[plan] = self.plans.get(plan, 0) + 1
                    continue
                if _is_pack_fp8(m) and _has_functions(m):
                    stored, lr = _pack_fp8_lowrank(m, x)
                    if stored:  # plain LoRA (or bias patches only): the stored fp8 weight, the LoRA beside it
                        saved.append((_restore_lowrank,
                                      _swap_in_lowrank(m, lr, *_fetch_stored_fp8(m, x, id(m) in vset))))
                        continue
                    saved.append((_restore_fp8, _swap_in_fp8(m, *_fetch_patched_fp8(m, x, id(m) in vset))))
                    continue
                own = None if id(m) in vset else _own_cast(m)
                if own is not None:  # e.g. ComfyUI-GGUF: the layer dequantizes (and patches) its own weight
                    w, b = own(None, dtype=dtype, device=device, bias_dtype=dtype)
                    saved.append((_restore, _swap_in(m, w, b, False)))
                    continue
                keep = stored_scaled(m)  # pre-scaled low-precision weights stay as stored
                wdtype = m.weight.dtype if keep else dtype
                if id(m) in vset:
                    w, b = ops.resolve_cast_module_with_vbar(m, wdtype, device, dtype, None, False)
                else:
                    w, b = ops.cast_bias_weight(m, None, dtype=wdtype, device=device, bias_dtype=dtype)
                saved.append((_restore, _swap_in(m, w, b, keep)))
        except BaseException:
            self.release(f)
            raise
        self.host_s += time.perf_counter() - t0
        return f

    def release(self, f: Fetched):
        """Put back what `fetch` handed to the layers, release ComfyUI's fetch state (VBAR pages unpinned) and make
        the offload streams wait for the block's compute (their cast buffers are reused by later fetches)."""
        t0 = time.perf_counter()
        for undo, item in reversed(f.saved):
            undo(item)
        f.saved = []
        if f.vbar:
            import comfy.model_prefetch as mp

            mp.cleanup_prefetched_modules(f.block, f.vbar)
        streams = [st for st in dict.fromkeys(f.streams) if st is not None]
        if streams:
            import comfy.model_management as mm

            cur = mm.current_stream(f.device)
            for stream in streams:
                stream.wait_stream(cur)
        self.host_s += time.perf_counter() - t0


class Fetched:
    """One block's weights fetched for one call: the layers, what to put back (`saved`), the VBAR layers holding
    ComfyUI's fetch state (`vbar`: fetched here, released here; `queued`: fetched by ComfyUI's block queue, released
    by it), the offload streams their copies ran on, and whether anything was copied or cast per call
    (`copied`: the block streams, for the report)."""

    __slots__ = ("block", "device", "layers", "saved", "vbar", "queued", "streams", "copied")

    def __init__(self, block, device, layers):
        self.block, self.device, self.layers = block, device, list(layers)
        self.saved, self.vbar, self.queued, self.streams, self.copied = [], [], [], [], False


def _own_cast(m):
    """The layer's own `cast_bias_weight(input, dtype, device, bias_dtype)` method where its class defines one
    (ComfyUI's
    layers use the module-level `comfy.ops.cast_bias_weight`; ComfyUI-GGUF's `GGMLLayer` defines its own, which
    dequantizes the packed GGML weight and applies LoRA patches), else None. ComfyUI's function would cast such a
    layer's packed storage as if it were the weight; the layer's own method returns the weight its forward uses."""
    fn = getattr(type(m), "cast_bias_weight", None)
    return m.cast_bias_weight if callable(fn) else None


def _has_functions(m) -> bool:
    return bool(m.weight_function or m.bias_function or any(getattr(m, a, None) for a in _LOWVRAM_ATTRS))


def _is_pack_fp8(m) -> bool:
    return getattr(m, "accel_fp8_runtime", None) is not None and getattr(m, "weight_scale", None) is not None


def _pack_fp8_lowrank(m, x):
    """(fetch the stored weight?, LoRA factors or None) for a pack FP8 layer with patches: the factors when its
    weight patches are all plain low-rank LoRAs (counted as such in its model's runtime), the stored weight without
    factors when only its bias is patched, else (False, None): the dense path (counted, its reason logged once by
    accel.fp8.ops)."""
    fns = m._weight_fns()
    if not fns:
        return True, None
    lr = m.lowrank_for(fns, x.device, x.dtype)
    if lr is None:
        return False, None
    m.accel_fp8_runtime.calls["lora_lowrank"] += 1
    return True, lr


def _fetch_stored_fp8(m, x, vbar: bool):
    """The pack's FP8 Linear whose LoRA runs beside its FP8 matmul: the weight as stored (fp8, its own scale), the
    bias with its patches (`diff_b`) applied as ComfyUI applies them."""
    import comfy.ops as ops

    device, dtype = x.device, x.dtype
    saved = (m.weight_function, {a: m.__dict__[a] for a in _LOWVRAM_ATTRS[:1] if a in m.__dict__})
    m.__dict__["weight_function"] = []  # a plain attribute: see _swap_in
    for a in saved[1]:
        m.__dict__[a] = None
    try:
        if vbar:
            return ops.resolve_cast_module_with_vbar(m, m.weight.dtype, device, dtype, None, False)
        return ops.cast_bias_weight(m, None, dtype=m.weight.dtype, device=device, bias_dtype=dtype)
    finally:
        m.__dict__["weight_function"] = saved[0]
        for a, v in saved[1].items():
            m.__dict__[a] = v


def _swap_in_lowrank(m, lr, w8, b):
    item = _swap_in(m, w8, b, True)
    m.__dict__["accel_lora"] = lr
    return item


def _restore_lowrank(item):
    item[0].__dict__.pop("accel_lora", None)
    _restore(item)


def _fetch_patched_fp8(m, x, vbar: bool):
    """The pack's FP8 Linear with weight patches that are not plain low-rank LoRAs (those run beside the FP8 matmul:
    `_pack_fp8_lowrank`), e.g. a full `diff`, LoHa, LoKr or DoRA (Accel Load Diffusion Model (FP8) -> LoraLoader): its
    stored fp8 weight is fetched as stored (ComfyUI's own cast path would apply the functions to the unscaled fp8
    values), dequantized with its scale, patched (LoRA on the true values, as the layer's eager path does), and
    requantized with a fresh scale of the same granularity (a LoRA that grows the weight does not saturate), all
    outside the graph. The compiled block then runs the layer's plain FP8 matmul: one graph for every block and
    LoRA strength, where tracing the weight functions compiled one graph per block (40 on Wan 14B). Costs one
    dequantize-patch-requantize pass over the block's weights per call (memory-bound; stock ComfyUI patches its
    own fp8 layers per call too)."""
    import comfy.ops as ops

    from ...kernels import fp8_linear as kfp8

    device, dtype = x.device, x.dtype
    wf, bf = list(m.weight_function), list(m.bias_function)
    lowvram = {a: m.__dict__[a] for a in _LOWVRAM_ATTRS if a in m.__dict__}
    m.weight_function, m.bias_function = [], []
    for a in lowvram:
        m.__dict__[a] = None
    try:
        if vbar:
            w8, b = ops.resolve_cast_module_with_vbar(m, m.weight.dtype, device, dtype, None, False)
        else:
            w8, b = ops.cast_bias_weight(m, None, dtype=m.weight.dtype, device=device, bias_dtype=dtype)
    finally:
        m.weight_function, m.bias_function = wf, bf
        for a, v in lowvram.items():
            m.__dict__[a] = v
    w = kfp8.dequantize(w8, m.weight_scale, dtype)
    for f in [lowvram.get("weight_lowvram_function")] + wf:
        if f is not None:
            w = comfy_compat.apply_weight_fn(f, w)
    if b is not None and (lowvram.get("bias_lowvram_function") is not None or bf):
        b = b.clone()  # fetched as stored (no copy): ComfyUI's patch functions add to their input in place
        for f in [lowvram.get("bias_lowvram_function")] + bf:
            if f is not None:
                b = f(b)
    w8, scale = kfp8.quantize_weight(w, m.weight.dtype, per_channel=m.weight_scale.numel() > 1)
    return w8, b, scale


def _swap_in_fp8(m, w8, b, scale):
    item = _swap_in(m, w8, b, True)
    old = m._parameters.get("weight_scale")
    m._parameters["weight_scale"] = torch.nn.Parameter(scale, requires_grad=False)
    return item, old


def _restore_fp8(entry):
    item, old = entry
    _restore(item)
    item[0]._parameters["weight_scale"] = old


def stored_scaled(m) -> bool:
    """The layer stores a scaled low-precision weight and applies the scale in its own cast path: the pack's
    FP8 Linear (`weight_scale`) and ComfyUI's scaled-fp8 Linear (`scale_weight`: comfy.ops.scaled_fp8_ops, what
    UNETLoader uses for the `*_fp8_scaled` files on ComfyUI 0.3.x; 0.33 loads those as QuantizedTensor weights,
    which cast_bias_weight dequantizes). Such a weight cast to the compute dtype is NOT the layer's true weight
    (the scale is missing), so it is fetched as stored and the layer keeps its own cast path."""
    return getattr(m, "weight_scale", None) is not None or getattr(m, "scale_weight", None) is not None


def _first_float(args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, torch.Tensor) and a.is_floating_point():
            return a
    return None


def plain(t):
    """`t` as a plain tensor (the same storage, no copy) where it is an instance of a tensor subclass that only adds
    Python attributes and methods -- no `__torch_function__` or `__torch_dispatch__` of its own -- and reports its
    storage's shape: ComfyUI-GGUF's `GGMLTensor` holding an unquantized (F32/F16) tensor. Else `t` itself (plain
    tensors, ComfyUI's QuantizedTensor, a packed GGML weight whose `shape` is the unpacked one).

    torch's default `__torch_function__` re-wraps every result computed from such a tensor in its class, so one
    norm weight makes every activation after it a `GGMLTensor`: dynamo then traces each op through the subclass
    (torch 2.11 fails on some, e.g. `Tensor.unflatten`, and breaks the graph or recompiles on others:
    bench/results/h100/wf_lightx2v_033/README.md, `gguf_*`). The op computes the same on the plain tensor."""
    cls = type(t)
    if cls is torch.Tensor or cls is torch.nn.Parameter or not isinstance(t, torch.Tensor):
        return t
    tf = getattr(cls.__torch_function__, "__func__", None)
    if tf is not _DEFAULT_TF or cls.__torch_dispatch__ is not _DEFAULT_TD:
        return t
    with torch._C.DisableTorchFunctionSubclass():
        out = t.as_subclass(torch.Tensor)
    return out if tuple(t.shape) == tuple(out.shape) else t


_DEFAULT_TF = torch.Tensor.__torch_function__.__func__
_DEFAULT_TD = torch.Tensor.__torch_dispatch__


def _plain_args(args, kwargs):
    """The block's tensor arguments as plain tensors (`plain`): a model whose embedding layers hold such a subclass
    (ComfyUI-GGUF: Wan's patch embedding) hands every block activations of that class, on which dynamo guards on the
    subclass's Python attributes -- one recompile per block until its limit, then eager (a Wan 14B GGUF expert on the
    H100: bench/results/h100/wf_lightx2v_033/README.md). Only the top level is looked at (the tensors a block is called
    with)."""
    if any(type(a) is not torch.Tensor and isinstance(a, torch.Tensor) for a in args):
        args = tuple(plain(a) for a in args)
    if any(type(v) is not torch.Tensor and isinstance(v, torch.Tensor) for v in kwargs.values()):
        kwargs = {k: plain(v) for k, v in kwargs.items()}
    return args, kwargs


def _with_plain(slots, fn, block, args, kwargs):
    """Run the block with the parameters in `slots` as plain tensors (`plain`), then put the originals back."""
    if not slots:
        return fn(block, *args, **kwargs)
    saved = []
    try:
        for m, n in slots:
            t = m._parameters.get(n)
            u = plain(t) if t is not None else None
            if u is not t:
                saved.append((m, n, t))
                m._parameters[n] = torch.nn.Parameter(u, requires_grad=False)
        return fn(block, *args, **kwargs)
    finally:
        for m, n, t in reversed(saved):
            m._parameters[n] = t


def _param(t):
    if t is None:
        return t
    u = plain(t)
    if u is t and isinstance(t, torch.nn.Parameter):
        return t
    return torch.nn.Parameter(u, requires_grad=False)


def _swap_in(m, w, b, keep_cast):
    p = m._parameters
    item = (m, p.get("weight"), "bias" in p, p.get("bias"), m.comfy_cast_weights, m.weight_function, m.bias_function,
            {a: m.__dict__[a] for a in _LOWVRAM_ATTRS if a in m.__dict__})
    p["weight"] = _param(w)
    if b is not None:
        p["bias"] = _param(b)
    # Plain attributes (class defaults in comfy.ops, never parameters, buffers or modules) are written to the
    # instance dict directly: what nn.Module.__setattr__ ends up doing for them, without its checks (it ran tens of
    # thousands of times a Flux run: bench/results/h200/family_033_README.md).
    d = m.__dict__
    # the fetched tensors already carry LoRA / weight wrappers: the layer must not apply them again
    d["weight_function"], d["bias_function"] = [], []
    for a in item[7]:
        d[a] = None
    # plain comfy layers run as ordinary Linear/Norm on the fetched tensors; layers that quantize or
    # dequantize in their own cast path (e.g. the pack's FP8 Linear) keep it, on tensors now on device
    d["comfy_cast_weights"] = keep_cast
    return item


def _restore(item):
    m, w, had_bias, b, ccw, wf, bf, lowvram = item
    p = m._parameters
    p["weight"] = w
    if had_bias:
        p["bias"] = b
    d = m.__dict__
    d["comfy_cast_weights"], d["weight_function"], d["bias_function"] = ccw, wf, bf
    for a, v in lowvram.items():
        d[a] = v
