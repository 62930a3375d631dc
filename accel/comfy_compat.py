"""Every probe of a ComfyUI version's features, in one place (features are detected, never versions).

What each probe is for, and the public source it follows (docs/compat.md has the full list, with the commits):

- Attention containers: newer ComfyUI passes q/k/v wrapped in `AttentionTensorContainer`s (single-owner
  holders with `take()`; comfy/ldm/modules/attention.py, also in 0.33.0). ComfyUI's `wrap_attn` unwraps them
  before calling an override that has no `container_function`, which is what the pack's override is; another
  override that chains to ours (core's BlockSparseAttention keeps the previous override) may not.
  `attention_args_unwrap` unwraps exactly as `wrap_attn` does: all three or none (TypeError), `take()` each.
- `preferred_attention`: newer models pass their `ComfyAttention` module (whose config a checkpoint can set,
  e.g. {"attention": "comfy_kitchen_int8"}); `wrap_attn` pops it and uses it only when no override is set.
  `checkpoint_attention_preference` reports what a model's checkpoint asked for.
- The Comfy Compiler (comfy/model_prefetch.py, PR #15861): comfy-aimdo records a block's allocations and
  replays them. Allocations the pack keeps across steps (cache residuals, autotune timings) must happen with
  the recording paused: `pause_malloc_graph()` uses ComfyUI's own `pause_malloc_graph` where it exists, the
  recorder's `pause()/resume()` where only the older `ACTIVE_MALLOC_GRAPHS` form exists, else nothing.
  `comfy_compiler_enabled(model)` says whether the compiler would record this model's calls, and
  `disable_comfy_compiler_for(model)` turns it off for one model's calls (see its docstring for why Accel Compile
  wants that).
- DynamicVRAM (ComfyUI 0.33, `ModelPatcherDynamic`): `patcher_is_dynamic(model)` (the patcher's `is_dynamic()`),
  `clone_can_disable_dynamic(model)` (`clone(disable_dynamic=...)`, what core's TorchCompileModel calls),
  `loader_can_disable_dynamic()` (`comfy.sd.load_diffusion_model_state_dict(..., disable_dynamic=)`),
  `can_reload_patcher(patcher)` (`cached_patcher_init`, which lets ComfyUI re-create a patcher without
  DynamicVRAM), `loads_fp8_files_as_quantized_layers()` (0.33's loader builds quantized-tensor layers from a
  scaled-fp8 file: what the FP8 loader's `auto` hands such a file to, where that measured faster), and
  `block_fetch_support()`: the block-fetch API (comfy/model_prefetch.py, comfy/ops.py cast functions) that Accel
  Compile uses to keep DynamicVRAM on (accel/compile/stream.py).
- Core's BlockSparseAttention node (comfy_extras/nodes_sparse_attention.py) puts its own override on top of any
  existing one, again on every step (ON_PREPARE_STATE), and marks it `_block_sparse_attention_patch`.
  `core_sparse_attention_active` / `core_sparse_attention_installed` find it.
- VAE decode and video save (Accel VAE, Accel Save Video; 0.3.75 and 0.33 differ here): `wan_vae_cache_size(decoder)`
  (the causal-cache length ComfyUI's Wan VAE decode gives its decoder: 0.33's `count_cache_layers`, else
  `count_conv3d`), `vae_free_memory(vae)` (what `VAE.decode` sizes its batches by: the patcher's `get_free_memory`
  under DynamicVRAM), `vae_output_dtype(vae)` (0.33's `vae_output_dtype()`, else float32), `save_video_color()`
  (0.33's Save Video tags BT.709 colour and writes MP4s with `faststart`; 0.3.75's does neither).
- `sdpa_backend_priority()`: the SDPA priority list ComfyUI (0.33+) passes to `sdpa_kernel` around each call
  (Accel CUDA Settings writes its order into it for one model's run); `uncast_bias_weight()`: ComfyUI's
  counterpart of `cast_bias_weight` (0.33), which the FP8 layers call where it exists.
- Scaled weights (what Accel Save FP8 Model reads): `stored_weight(module)` says how a ComfyUI layer keeps a weight
  whose stored values are not its values: 0.3.x's scaled-fp8 layers (`comfy.ops.scaled_fp8_ops`, built for a file
  with the `scaled_fp8` marker: fp8 `weight` + `scale_weight`, and `scale_input`), and `comfy.quant_ops.QuantizedTensor`
  weights (0.3.75's mixed-precision layers: `_layout_type` + `_layout_params`; 0.33's Linear and Embedding:
  comfy-kitchen's `_layout_cls` + `_params`), fp8 layouts read as stored, other formats dequantized.
- Weight streaming (accel/compile/prefetch.py, whose docstring says how ComfyUI moves the weights):
  `vbar_watermark(vbar)` / `vbar_pages(vbar)` read a comfy-aimdo VBAR's watermark, used pages and page residency
  (its `get_watermark`, `get_residency`, `offset`; comfy-aimdo 0.4.x), `vbar_page_end(alloc)` where a layer's VBAR slice
  ends, in pages,
  `dynamic_vbar(base, device)` a model's VBAR (`BaseModel.dynamic_vbars`, set by ModelPatcherDynamic),
  `offload_streams()` how many offload streams `get_offload_stream` rotates (`NUM_STREAMS`), and
  `loaded_dynamic_patchers(device)` ComfyUI's loaded DynamicVRAM models, least recently loaded first.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import sys
import threading

OVERRIDE_KEY = "optimized_attention_override"
BSA_CALLBACK_KEY = "block_sparse_attention"  # core's add_callback_with_key(ON_PREPARE_STATE, "block_sparse_attention",
                                             # ...)
_BSA_MARK = "_block_sparse_attention_patch"
_BSA_PREVIOUS = "_block_sparse_attention_previous"
COMPILER_WRAPPER_KEY = "accel_comfy_compiler_off"

_MISSING = object()
_container_cls = _MISSING  # resolved on first use: ComfyUI's AttentionTensorContainer, or None where it has none


# --- attention: containers and preferences ---------------------------------------------------------------

def attention_container_class():
    """ComfyUI's AttentionTensorContainer class, or None where this ComfyUI has none (0.3.75)."""
    global _container_cls
    if _container_cls is _MISSING:
        try:
            from comfy.ldm.modules.attention import AttentionTensorContainer as cls
        except Exception:  # noqa: BLE001 - older ComfyUI, or outside ComfyUI
            cls = None
        _container_cls = cls
    return _container_cls


def attention_args_unwrap(args: tuple, container_cls=_MISSING) -> tuple:
    """`args` with container-passed q/k/v replaced by their tensors, as ComfyUI's wrap_attn does: q, k and v are
    all containers or none is (else TypeError, wrap_attn's own message), and each is taken (emptied) once.
    Returns `args` itself when nothing is wrapped. `container_cls`: for tests (a stand-in class)."""
    cls = attention_container_class() if container_cls is _MISSING else container_cls
    if cls is None or len(args) < 3 or not isinstance(args[0], cls):
        return args
    if not isinstance(args[1], cls) or not isinstance(args[2], cls):
        raise TypeError("q, k, and v must all be attention tensor containers")
    return tuple(c.take() for c in args[:3]) + tuple(args[3:])


def _comfy_attention_modules(model):
    """The ComfyAttention modules of a ModelPatcher's diffusion model (class name and its two attributes: the
    class is absent before it was added, so it is recognised by shape, not imported)."""
    try:
        dm = model.get_model_object("diffusion_model")
    except Exception:  # noqa: BLE001 - not a diffusion ModelPatcher
        dm = getattr(getattr(model, "model", None), "diffusion_model", None)
    if dm is None or not hasattr(dm, "modules"):
        return []
    return [m for m in dm.modules()
            if type(m).__name__ == "ComfyAttention" and hasattr(m, "config") and hasattr(m, "function")]


def checkpoint_attention_preference(model) -> dict:
    """What the loaded checkpoint asked for as attention: {method: {"layers": n, "available": m}} over the model's
    ComfyAttention modules whose config the checkpoint set (`available`: layers where ComfyUI found the function,
    i.e. it would run it when no override is set). {} for a checkpoint that sets none, or a ComfyUI without them."""
    out: dict = {}
    for m in _comfy_attention_modules(model):
        cfg = m.config
        if not cfg:
            continue
        method = str(cfg.get("attention", "?")) if isinstance(cfg, dict) else "?"
        entry = out.setdefault(method, {"layers": 0, "available": 0})
        entry["layers"] += 1
        entry["available"] += int(m.function is not None)
    return out


def checkpoint_attention_lines(model, ours: str) -> list:
    """Report lines saying that the checkpoint's attention preference is replaced by `ours` (an override runs
    before a checkpoint's preference in ComfyUI's wrap_attn), and how to keep it. [] when there is none."""
    pref = checkpoint_attention_preference(model)
    lines = []
    for method, e in sorted(pref.items()):
        avail = ("ComfyUI can run it here" if e["available"] == e["layers"] else
                 "ComfyUI cannot run it here" if not e["available"] else
                 f"ComfyUI can run it in {e['available']} of them here")
        lines.append(f"checkpoint attention: the checkpoint asks for '{method}' attention in {e['layers']} attention "
                     f"layer(s) ({avail}); {ours} replaces it on this model. To keep the checkpoint's choice, leave "
                     "Accel Attention out for this model" + (" or choose backend comfy_kitchen_int8"
                                                             if method == "comfy_kitchen_int8" else ""))
    return lines


# --- core's BlockSparseAttention ---------------------------------------------------------------------------

def _override_chain(override):
    seen = set()
    while override is not None and id(override) not in seen:
        seen.add(id(override))
        yield override
        override = getattr(override, _BSA_PREVIOUS, None)


def core_sparse_attention_active(transformer_options) -> object | None:
    """The patch object of core's BlockSparseAttention override on the hook now (anywhere in its chain), else None."""
    ov = (transformer_options or {}).get(OVERRIDE_KEY)
    for o in _override_chain(ov):
        patch = getattr(o, _BSA_MARK, None)
        if patch is not None:
            return patch
    return None


def core_sparse_attention_installed(model) -> bool:
    """True when core's BlockSparseAttention is on this ModelPatcher: its override is on the hook, or its
    ON_PREPARE_STATE callback will put it there (on top of whatever override is set) on the next step."""
    to = (getattr(model, "model_options", None) or {}).get("transformer_options") or {}
    if core_sparse_attention_active(to) is not None:
        return True
    try:
        import comfy.patcher_extension as pe

        cbs = getattr(model, "callbacks", {}).get(pe.CallbacksMP.ON_PREPARE_STATE, {})
    except Exception:  # noqa: BLE001
        return False
    return BSA_CALLBACK_KEY in cbs


def describe_override(override) -> str:
    """A short name for an attention override already on a model (for reports)."""
    if getattr(override, _BSA_MARK, None) is not None:
        return "core's Model Sparse Attention (BlockSparseAttention)"
    return getattr(override, "__qualname__", None) or getattr(override, "__name__", None) or type(override).__name__


def core_sparse_attention_lines(model, ours_low_precision: bool) -> list:
    """Report lines for Accel Attention on a model that core's BlockSparseAttention patches (else [])."""
    if not core_sparse_attention_installed(model):
        return []
    lines = ["core's Model Sparse Attention (BlockSparseAttention) is on this model: it puts its override on top of "
             "this one at every step, so its sparse pattern runs where it applies and this backend serves only the "
             "calls it keeps dense (masked calls, outside its start/end, dense_blocks, short sequences, ineligible "
             "tensors). One sparse pattern applies: core's."]
    if ours_low_precision:
        lines.append("  note: this backend is low-precision; its deviation adds to the sparse pattern's on the dense "
                     "calls")
    return lines


# --- the Comfy Compiler (comfy-aimdo malloc graph) ----------------------------------------------------------

def _prefetch_module(module=None):
    """comfy.model_prefetch if it is loaded (a recording can only be active once ComfyUI imported it)."""
    return module if module is not None else sys.modules.get("comfy.model_prefetch")


def _active_graph(mp):
    """The malloc graph recording on this thread, or None (both public forms of comfy/model_prefetch.py)."""
    tid = threading.get_ident()
    graphs = getattr(mp, "MALLOC_GRAPHS", None)
    if isinstance(graphs, dict):  # later form: per-thread graph with _comfy_active
        g = graphs.get(tid)
        return g if g is not None and getattr(g, "_comfy_active", False) else None
    graphs = getattr(mp, "ACTIVE_MALLOC_GRAPHS", None)
    if isinstance(graphs, dict):  # first form: the active graph of this thread
        return graphs.get(tid)
    return None


def malloc_graph_recording(module=None) -> bool:
    """True while ComfyUI's compiler records allocations on this thread."""
    mp = _prefetch_module(module)
    return mp is not None and _active_graph(mp) is not None


@contextlib.contextmanager
def _pause_graph(graph, sync):
    graph.pause(sync=sync) if sync else graph.pause()
    try:
        yield
    finally:
        graph.resume(sync=sync) if sync else graph.resume()


def pause_malloc_graph(sync: bool = False, module=None):
    """A context in which allocations stay out of the Comfy Compiler's recording: ComfyUI's own
    `comfy.model_prefetch.pause_malloc_graph` where it exists; the recording graph's pause()/resume() (what
    model_prefetch itself does around its BLAS workspace) where only the earlier form exists; a no-op where
    neither does or nothing records. `module`: for tests (a stand-in of comfy.model_prefetch)."""
    mp = _prefetch_module(module)
    if mp is None:
        return contextlib.nullcontext()
    fn = getattr(mp, "pause_malloc_graph", None)
    if fn is not None:
        return fn(sync=sync)
    graph = _active_graph(mp)
    if graph is None or not hasattr(graph, "pause"):
        return contextlib.nullcontext()
    return _pause_graph(graph, sync)


def _compiler_args():
    """ComfyUI's parsed CLI args if they have the compiler's switch, else None."""
    try:
        from comfy.cli_args import args
    except Exception:  # noqa: BLE001
        return None
    return args if hasattr(args, "disable_comfy_compiler") else None


def comfy_compiler_available() -> bool:
    """This ComfyUI has the Comfy Compiler (the --disable-comfy-compiler switch and
    model_prefetch.malloc_graph_enabled)."""
    if _compiler_args() is None:
        return False
    try:
        import comfy.model_prefetch as mp
    except Exception:  # noqa: BLE001
        return False
    return callable(getattr(mp, "malloc_graph_enabled", None))


def comfy_compiler_enabled(model) -> bool:
    """Whether the Comfy Compiler would record this model's calls now (not disabled, comfy-aimdo on, CUDA device),
    answered by ComfyUI's own `malloc_graph_enabled(device)`. False on a ComfyUI without the compiler."""
    if not comfy_compiler_available():
        return False
    import comfy.model_prefetch as mp

    device = getattr(model, "load_device", None)
    try:
        return bool(mp.malloc_graph_enabled(device))
    except Exception:  # noqa: BLE001 - a device it cannot judge: it would not record either
        return False


_switch_lock = threading.Lock()
_switch_depth = 0
_switch_saved = None


@contextlib.contextmanager
def comfy_compiler_off():
    """`args.disable_comfy_compiler = True` for the duration, put back after (nesting and concurrent model calls
    counted: the value before the first enter is restored by the last exit). ComfyUI reads the switch at every
    malloc_graph_begin, so a model call inside runs without the compiler. No-op where the switch does not exist."""
    global _switch_depth, _switch_saved
    args = _compiler_args()
    if args is None:
        yield
        return
    with _switch_lock:
        if _switch_depth == 0:
            _switch_saved = args.disable_comfy_compiler
            args.disable_comfy_compiler = True
        _switch_depth += 1
    try:
        yield
    finally:
        with _switch_lock:
            _switch_depth -= 1
            if _switch_depth == 0:
                args.disable_comfy_compiler = _switch_saved
                _switch_saved = None


def _compiler_off_wrapper(executor, *args, **kwargs):
    with comfy_compiler_off():
        return executor(*args, **kwargs)


def is_compiler_off_wrapper(fn) -> bool:
    """`fn` is the APPLY_MODEL wrapper `disable_comfy_compiler_for` puts on a model (it only flips the switch)."""
    return fn is _compiler_off_wrapper


def disable_comfy_compiler_for(model, key: str = COMPILER_WRAPPER_KEY) -> str | None:
    """Turn the Comfy Compiler off for this ModelPatcher's model calls (an APPLY_MODEL wrapper that holds
    `comfy_compiler_off()` around each call) — patch a clone, as every pack patch does. Returns the report line,
    or None where this ComfyUI has no compiler (nothing is attached).

    Why Accel Compile wants it (read from comfy/model_prefetch.py and the models that call malloc_graph_begin): the
    compiler records the allocations between malloc_graph_begin/end once and then expects every later call to
    allocate the same sequence per block scope. A torch.compile'd block does not: its first calls compile and
    autotune (workspaces, benchmark buffers), a recompile (new shape, guard failure) allocates again, Inductor's
    CUDA-graph modes capture into their own pool — each counted as a compiler graph break, or raised under
    --assert-graph-breaks. What the compiler offers a diffusion model is allocation replay (its per-block CUDA
    graphs need the caller's `core=`, which no diffusion model in the public sources passes), and an Inductor
    graph already plans its buffers. So with Accel Compile owning the blocks the compiler has little to add and
    something to break: off, for that model only. The switch is process-wide while a call runs (other threads
    then run without the compiler for that time too); it is restored after each call."""
    if not comfy_compiler_available():
        return None
    import comfy.patcher_extension as pe

    model.remove_wrappers_with_key(pe.WrappersMP.APPLY_MODEL, key)
    model.add_wrapper_with_key(pe.WrappersMP.APPLY_MODEL, key, _compiler_off_wrapper)
    return ("Comfy Compiler: off for this model's calls (Accel Compile owns the blocks; the compiler's recorded "
            "allocations do not hold across compiles and recompiles)")


__all__ = ["attention_container_class", "attention_args_unwrap", "checkpoint_attention_preference",
           "checkpoint_attention_lines", "core_sparse_attention_active", "core_sparse_attention_installed",
           "core_sparse_attention_lines", "describe_override", "pause_malloc_graph", "malloc_graph_recording",
           "comfy_compiler_available", "comfy_compiler_enabled", "comfy_compiler_off", "disable_comfy_compiler_for",
           "is_compiler_off_wrapper",
           "OVERRIDE_KEY", "BSA_CALLBACK_KEY", "COMPILER_WRAPPER_KEY"]


# --- DynamicVRAM (ModelPatcherDynamic) -----------------------------------------------------------------------
def patcher_is_dynamic(patcher) -> bool:
    """Whether `patcher` is a DynamicVRAM patcher (ComfyUI 0.33's `ModelPatcherDynamic.is_dynamic()`)."""
    fn = getattr(patcher, "is_dynamic", None)
    return bool(callable(fn) and fn())


def clone_can_disable_dynamic(patcher) -> bool:
    """Whether `patcher.clone()` takes `disable_dynamic` (ComfyUI 0.33: a plain clone of a DynamicVRAM patcher)."""
    try:
        return "disable_dynamic" in inspect.signature(patcher.clone).parameters
    except (TypeError, ValueError):
        return False


def loader_can_disable_dynamic() -> bool:
    """Whether `comfy.sd.load_diffusion_model_state_dict` takes `disable_dynamic` (ComfyUI 0.33)."""
    import comfy.sd

    return "disable_dynamic" in inspect.signature(comfy.sd.load_diffusion_model_state_dict).parameters


def loads_fp8_files_as_quantized_layers() -> bool:
    """Whether this ComfyUI's own diffusion-model loader turns a file stored in its FP8 layouts (the legacy
    `scaled_fp8` marker + `scale_weight`, `comfy_quant`, `_quantization_metadata`) into quantized-tensor layers:
    `comfy.quant_ops.QuantizedTensor` and `comfy.utils.convert_old_quants` (0.33, which
    `load_diffusion_model_state_dict`
    calls when no custom operations are given). ComfyUI 0.3.x reads such files with its scaled-fp8 operations. Where
    comfy-kitchen failed to import, comfy.quant_ops defines `QuantizedTensor` as an empty stand-in class ("fp8 and fp4
    support will not be available"): only comfy-kitchen's tensor subclass counts."""
    import torch

    try:
        import comfy.quant_ops as qo
        import comfy.utils as cu
    except Exception:  # noqa: BLE001 - a ComfyUI without comfy.quant_ops
        return False
    qt = getattr(qo, "QuantizedTensor", None)
    return (isinstance(qt, type) and issubclass(qt, torch.Tensor)
            and callable(getattr(cu, "convert_old_quants", None)))


def can_reload_patcher(patcher) -> bool:
    """Whether this ComfyUI lets a loader register how to re-create `patcher` (`cached_patcher_init`, 0.33): what
    `clone(disable_dynamic=True)` and ComfyUI's device selector need for a DynamicVRAM patcher."""
    return hasattr(patcher, "cached_patcher_init")


def legacy_load_rounds(patcher) -> tuple[int, str] | None:
    """(tensors, dtype name): how many of `patcher`'s diffusion-model tensors ComfyUI's legacy load would store
    narrower than the model holds them now, where its weight dtype is a float8 one; else None. ComfyUI 0.33 loads a
    DynamicVRAM model's tensors as its file stores them (`load_model_weights(assign=True)`); the legacy patcher
    (`clone(disable_dynamic=True)`: resident loading, CUDA graphs, core's TorchCompileModel) copies them into layers
    built in the model's weight dtype (`assign=False`). A plain `*_fp8_e4m3fn` file whose biases, norms or outer layers
    are 16-bit then loses them to float8 with no scale: another model than the one stock samples. The layers' built
    dtypes come from the diffusion model's class built again on the meta device with the model's config (layers a model
    builds in another dtype, e.g. Wan's float32 patch embedding, round nothing); where that cannot be built, every
    wider tensor of a ComfyUI layer counts. Quantized-tensor models (`quant_config`: each layer keeps its own dtype)
    and 16- or 32-bit weight dtypes: None."""
    import torch

    base = getattr(patcher, "model", None)
    dm = getattr(base, "diffusion_model", None)
    get = getattr(base, "get_dtype", None)
    if dm is None or not callable(get):
        return None
    if getattr(getattr(base, "model_config", None), "quant_config", None):
        return None
    try:
        dtype = get()
    except Exception:  # noqa: BLE001 - a model class without a weight dtype
        return None
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point or dtype.itemsize != 1:
        return None
    built = _built_dtypes(base, dm)
    rounded = 0
    for prefix, m in dm.named_modules():
        if not hasattr(m, "comfy_cast_weights"):
            continue
        if is_quantized_layer(m):
            return None
        for name, t in m.named_parameters(recurse=False):
            into = built.get(f"{prefix}.{name}" if prefix else name, dtype)
            if t.is_floating_point() and into.itemsize < t.dtype.itemsize:
                rounded += 1
    return (rounded, str(dtype).replace("torch.", "")) if rounded else None


def _built_dtypes(base, dm) -> dict:
    """{parameter name: dtype} of `dm` as the legacy load builds its class from the model's config (on the meta device:
    no memory); {} where this model cannot be built that way."""
    import torch

    try:
        import comfy.ops

        with torch.device("meta"):
            fresh = type(dm)(**base.model_config.unet_config, device="meta", operations=comfy.ops.disable_weight_init)
    except Exception:  # noqa: BLE001 - a model class built another way than from its config
        return {}
    return {n: t.dtype for n, t in fresh.named_parameters()}


def block_fetch_support() -> str | None:
    """None when the running ComfyUI has the block-fetch API Accel Compile uses under DynamicVRAM, else why not."""
    try:
        import comfy.model_prefetch as mp
        import comfy.ops as ops
    except Exception as e:  # noqa: BLE001 - ComfyUI < 0.33 or a trimmed tree
        return f"this ComfyUI has no comfy.model_prefetch ({type(e).__name__})"
    missing = [n for n, mod in (("cast_modules_with_vbar", ops), ("resolve_cast_module_with_vbar", ops),
                                 ("cleanup_prefetched_modules", mp)) if not hasattr(mod, n)]
    if missing:
        return "this ComfyUI lacks " + ", ".join(missing)
    return None


# --- what ComfyUI's validation checks (nodes/_inputs.py) ----------------------------------------------------------
@functools.lru_cache(maxsize=1)
def checks_v3_combo_values() -> bool:
    """Whether ComfyUI's prompt validation (`execution.validate_inputs`) checks a V3 node's COMBO value against its
    options, as it checks V1 list inputs (0.33: `input_type == io.Combo.io_type`; 0.3.75 does not). Read from its
    source; False where that cannot be read (the pack then checks them itself)."""
    try:
        import execution

        return "Combo.io_type" in inspect.getsource(execution.validate_inputs)
    except Exception:  # noqa: BLE001 - no source (a frozen build) or no such function
        return False


# --- weight functions (the FP8 loader's layers, Accel Compile's block fetch) ------------------------------
def apply_weight_fn(f, w):
    """Run a per-forward weight function on the dequantized (true-valued) weight. ComfyUI's
    LowVramPatch is applied through comfy.lora.calculate_weight directly: its 0.3.75 form would convert
    and requantize the weight itself (it expects the raw stored values), its 0.33 form does not."""
    patches = getattr(f, "patches", None)
    key = getattr(f, "key", None)
    if isinstance(patches, dict) and key is not None and key in patches:
        import comfy.lora

        prepared = getattr(f, "prepared_patches", None)
        return comfy.lora.calculate_weight(prepared if prepared is not None else patches[key], w, key,
                                           intermediate_dtype=w.dtype)
    return f(w)


# --- the running prompt's outputs (accel.common.live_report) --------------------------------------------------
def add_running_output(node_id, output: dict) -> bool:
    """Put `output` among the ui outputs ComfyUI's executor collects for the prompt running now, as node `node_id`'s
    (what that prompt's `/history` entry shows under `outputs`). ComfyUI puts a node's output there when it executes
    the node; a node whose output is cached from an earlier prompt is not executed again, though the model it returned
    runs in the later prompt. The executor keeps them in its `execute` function's `ui_outputs` (0.3.75 and 0.33):
    found on the stack, from the node that runs now. False where they are not found (then the prompt's history has no
    entry for the node, as ComfyUI has none for a cached node)."""
    code = getattr(getattr(sys.modules.get("execution"), "execute", None), "__code__", None)
    frame = sys._getframe(1) if code is not None else None
    while frame is not None and frame.f_code is not code:
        frame = frame.f_back
    outputs = frame.f_locals.get("ui_outputs") if frame is not None else None
    if not isinstance(outputs, dict):
        return False
    outputs[node_id] = {"meta": {"node_id": node_id, "display_node": node_id, "parent_node": None,
                                 "real_node_id": node_id}, "output": output}
    return True


# --- SDPA backend priority (Accel CUDA Settings) -------------------------------------------------------------
def sdpa_backend_priority():
    """The SDPA priority list ComfyUI itself passes to `sdpa_kernel(..., set_priority=True)` around each call
    (0.33+: `comfy.ops.SDPA_BACKEND_PRIORITY`, FlashAttention-2 first). That inner context overrides the
    process order, so an order Accel CUDA Settings sets must also be written into this list (in place: ComfyUI
    reads it at call time), for that model's run only. None where ComfyUI has no such list."""
    ops = sys.modules.get("comfy.ops")
    lst = getattr(ops, "SDPA_BACKEND_PRIORITY", None) if ops is not None else None
    return lst if isinstance(lst, list) else None


# --- FP8 layers ----------------------------------------------------------------------------------------------
def uncast_bias_weight():
    """ComfyUI's `comfy.ops.uncast_bias_weight` (0.33: hands back a weight `cast_bias_weight` fetched, e.g. under
    DynamicVRAM), or None where this ComfyUI has none (0.3.75: nothing to hand back)."""
    import comfy.ops as ops

    return getattr(ops, "uncast_bias_weight", None)


# --- scaled weights (Accel Save FP8 Model) -------------------------------------------------------------------
# Quantized-tensor layouts whose data are fp8 values with one scale per tensor -> their fp8 dtype (0.3.75 has one
# layout for e4m3fn; 0.33 one per dtype)
FP8_LAYOUTS = {"TensorCoreFP8Layout": "float8_e4m3fn", "TensorCoreFP8E4M3Layout": "float8_e4m3fn",
               "TensorCoreFP8E5M2Layout": "float8_e5m2"}


@functools.lru_cache(maxsize=1)
def quantized_tensor_class():
    """comfy.quant_ops.QuantizedTensor (0.3.75's own class; 0.33: comfy-kitchen's tensor subclass), else None: no
    comfy.quant_ops, or comfy-kitchen missing (0.33 then defines an empty stand-in class, not a tensor)."""
    import torch

    try:
        import comfy.quant_ops as qo
    except Exception:  # noqa: BLE001 - a ComfyUI without comfy.quant_ops
        return None
    cls = getattr(qo, "QuantizedTensor", None)
    return cls if isinstance(cls, type) and issubclass(cls, torch.Tensor) else None


def is_quantized_layer(m) -> bool:
    """A Linear of ComfyUI's mixed-precision operations holding a QuantizedTensor weight (not its MoE banks)."""
    qt = quantized_tensor_class()
    w = m._parameters.get("weight")
    return (qt is not None and isinstance(w, qt) and type(m).__name__ == "Linear"
            and isinstance(getattr(m, "in_features", None), int))


def stored_weight(module):
    """How a ComfyUI layer holds a weight whose stored values are not its values, else None (the weight is its values):
    - ("fp8", data, scale): fp8 values as stored and their scale, for 0.3.x's scaled-fp8 layers (`scale_weight`) and
      2-D quantized-tensor weights in a per-tensor FP8 layout;
    - ("values", weight): the weight's values (float32) for a quantized-tensor weight in another format (int8, mxfp8,
      nvfp4, the 4-bit ones; comfy-kitchen's dequantize), with the AWQ `pre_quant_scale` that 0.33 multiplies into a
      Linear's input folded into its columns.
    The layer's other tensors (its input scale, `comfy_quant` tag, second-level scales) are not part of the values."""
    import torch

    w = module._parameters.get("weight") if isinstance(module, torch.nn.Module) else None
    if w is None:
        return None
    qt = quantized_tensor_class()
    if qt is None or not isinstance(w, qt):
        scale = getattr(module, "scale_weight", None)  # comfy.ops.scaled_fp8_ops: values = weight * scale_weight
        return ("fp8", w.detach(), scale.detach()) if isinstance(scale, torch.Tensor) else None
    pre = getattr(module, "pre_quant_scale", None)
    layout = getattr(w, "_layout_cls", None) or getattr(w, "_layout_type", None)
    params = getattr(w, "_params", None)
    scale = params.scale if params is not None else (getattr(w, "_layout_params", None) or {}).get("scale")
    data = getattr(w, "_qdata", None)
    if (pre is None and layout in FP8_LAYOUTS and isinstance(data, torch.Tensor) and isinstance(scale, torch.Tensor)
            and data.dtype == getattr(torch, FP8_LAYOUTS[layout]) and data.ndim == 2 and scale.numel() == 1
            and tuple(data.shape) == tuple(w.shape) and not getattr(params, "transposed", False)):
        return "fp8", data.detach(), scale.detach()
    values = w.dequantize().float()
    if pre is not None and values.ndim == 2:
        values = values * pre.detach().to(device=values.device, dtype=torch.float32).reshape(1, -1)
    return "values", values


# --- VAE decode and video save ------------------------------------------------------------------------------
def wan_vae_cache_size(decoder) -> int:
    """How many causal-cache slots ComfyUI's Wan VAE `decode` gives `decoder`: the module's `count_cache_layers`
    (0.33's Wan 2.1 VAE: convolutions and temporal downsamplers) where it has one, else its `count_conv3d` (0.3.75,
    and the Wan 2.2 VAE)."""
    module = sys.modules[type(decoder).__module__]
    count = getattr(module, "count_cache_layers", None) or module.count_conv3d
    return count(decoder)


def vae_free_memory(vae) -> int:
    """The memory ComfyUI's `VAE.decode` sizes its batches by: the patcher's `get_free_memory` (0.33: torch's free
    memory plus what DynamicVRAM could give back) where it has one, else `model_management.get_free_memory`."""
    import comfy.model_management as mm

    fn = getattr(getattr(vae, "patcher", None), "get_free_memory", None)
    return fn(vae.device) if callable(fn) else mm.get_free_memory(vae.device)


def vae_output_dtype(vae):
    """The dtype ComfyUI's `VAE.decode` hands its pixels out in: `vae_output_dtype()` (0.33: the intermediate dtype)
    where the VAE has it, else float32 (0.3.75 calls `.float()`)."""
    import torch

    fn = getattr(vae, "vae_output_dtype", None)
    return fn() if callable(fn) else torch.float32


def save_video_color():
    """How this ComfyUI's Save Video tags colour: (its `set_video_color_properties`, the BT.709 colorspace number its
    frames are converted to) where Save Video sets BT.709 properties and writes MP4s with `faststart` (0.33), else
    None (0.3.75 does neither)."""
    try:
        from comfy_api.latest._input_impl import video_types
    except ImportError:
        return None
    fn = getattr(video_types, "set_video_color_properties", None)
    bt709 = getattr(video_types, "BT709_NCL", None)
    return (fn, bt709) if callable(fn) and bt709 is not None else None


# --- weight streaming (accel/compile/prefetch.py) -------------------------------------------------------------
# comfy-aimdo's VBAR page (VBAR_PAGE_SIZE in its src/model-vbar.c; comfy_aimdo.model_vbar.ModelVBAR.fault sizes its
# signature with the same 32 MiB): a layer whose slice ends above its VBAR's watermark cannot be faulted in
VBAR_PAGE_BYTES = 32 << 20


def vbar_page_end(alloc) -> int:
    """The page index just past the end of a layer's VBAR slice (`m._v` = (vbar, address, size)): where comfy-aimdo's
    `vbar_fault` compares it with the watermark."""
    vbar, addr, size = alloc
    return (addr - vbar.base_addr + size + VBAR_PAGE_BYTES - 1) // VBAR_PAGE_BYTES


def vbar_watermark(vbar):
    """A comfy-aimdo VBAR's watermark in pages (pages below it can be faulted in), or None where its object has no
    such query."""
    if not (hasattr(vbar, "get_watermark") and hasattr(vbar, "base_addr")):
        return None
    return int(vbar.get_watermark())


def vbar_pages(vbar):
    """(watermark, used pages, residency flags) of a comfy-aimdo VBAR: pages below the watermark can be faulted in,
    `used` pages hold the model's layers (its allocation offset), flag bit 0 = resident. None where this comfy-aimdo's
    VBAR object lacks those queries."""
    mark = vbar_watermark(vbar)
    if mark is None or not (hasattr(vbar, "get_residency") and hasattr(vbar, "offset")):
        return None
    used = (int(vbar.offset) + VBAR_PAGE_BYTES - 1) // VBAR_PAGE_BYTES
    return mark, used, vbar.get_residency()


def dynamic_vbar(base, device):
    """The VBAR of a DynamicVRAM model (ModelPatcherDynamic keeps them per device in `BaseModel.dynamic_vbars`), or
    None (a model loaded the legacy way, or a ComfyUI without DynamicVRAM)."""
    vbars = getattr(base, "dynamic_vbars", None)
    return vbars.get(device) if isinstance(vbars, dict) else None


def offload_streams() -> int:
    """How many offload streams ComfyUI rotates (`NUM_STREAMS`: 2 on NVIDIA unless --async-offload N or
    --disable-async-offload); 0 where it has none."""
    import comfy.model_management as mm

    return int(getattr(mm, "NUM_STREAMS", 0) or 0)


def loaded_dynamic_patchers(device) -> list:
    """ComfyUI's loaded DynamicVRAM models on `device` (`current_loaded_models`, most recently loaded first there),
    least recently loaded first: the order in which comfy-aimdo takes their pages back (lowest priority first)."""
    import comfy.model_management as mm

    out = []
    for lm in reversed(list(getattr(mm, "current_loaded_models", []))):
        p = getattr(lm, "model", None)
        if p is not None and patcher_is_dynamic(p) and getattr(lm, "device", None) == device:
            out.append(p)
    return out
