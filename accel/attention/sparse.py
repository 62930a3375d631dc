"""The `radial_sparse` backend on a ComfyUI MODEL: radial sparse attention on Wan's video self-attention
(kernels/attention/sparse), exact dense attention on everything else (issue #32, docs/sparse_attention.md).

`setup(m, kern, ...)` runs inside `apply_attention` for a sparse kernel: it builds the `RadialRun` (settings, the
exact dense kernel `auto` picks here, measurements), picks the sparse kernel (FlashAttention-4 block-sparse where
it imports and passes a probe against the masked reference here, else torch flex_attention), and puts a
`SparseWrapper` on the clone's APPLY_MODEL wrappers (key accel.attention). Per model call the wrapper finds
- the latent grid and the model's sequence layout (`video_layout`): the input latent's frames x height x width
  divided by the diffusion model's patch size (Wan and HunyuanVideo pad to the patch, so the division rounds up;
  LTX-Video's patch is 1); Wan: video tokens only, key frame 0 an attention sink (the published "wan" rule);
  HunyuanVideo: its joint attention also holds the text, before the video in ComfyUI 0.33's model and after it in
  older ones (read from the model: a double block's `flipped_img_txt`), no sink (the published "hunyuan" rule);
  LTX-Video: video tokens only, the "hunyuan" rule (no published setting: our extension, said in the report); any
  other model has none;
- the sampling step (hybrid.StepClock: the sigma's index in the sampler's sigmas, a KSamplerAdvanced slice counts
  its own) and whether it is one of the dense steps (with dense_steps -1, a run that starts from a partly denoised
  latent, e.g. Wan 2.2's second expert, has none: the dense steps are the first steps from pure noise);
- the number of transformer blocks (Wan's blocks, HunyuanVideo's double + single blocks, LTX-Video's transformer
  blocks; video self-attention calls are counted per model call, so the first / last dense blocks are the first /
  last such calls);
- core's BlockSparseAttention on the hook (its override on top of ours): then every call of ours runs dense,
  so one sparse pattern applies;
builds the pattern and its block mask for the grid (outside any block: attention calls allocate nothing that
stays) and opens the run's frame for the call. The attention calls decide inside the custom op at run time.
"""
from __future__ import annotations

from .. import comfy_compat
from ..common import families, keys, log
from ..common.errors import AccelError
from ..common.figures import text as _fig
from ..common.policy import Policy
from .hybrid import StepClock, apply_model_wrappers

CORE_SPARSE = "core's BlockSparseAttention is on the hook (one sparse pattern at a time: core's)"
NOT_VIDEO = ("not a video model the radial pattern knows (Wan, HunyuanVideo, LTX-Video, MiniMax-H3: frame-major token "
             "grids), or not a video latent")
REF_LATENT = ("reference-latent tokens sit before the video in this ComfyUI's HunyuanVideo sequence, the text after "
              "it: the pattern's layout does not hold")
LTXV_NOTE = ("LTX-Video has no published radial setting: the published rule without an attention sink (as for "
             "HunyuanVideo) is applied to its frame-major grid, our extension")
H3_NOTE = ("MiniMax-H3 has no published radial setting: the published rule without an attention sink (as for "
           "HunyuanVideo) is applied to its video's frame-major grid, our extension; its text, audio and condition "
           "tokens pack before the video and stay dense rows and columns, so the audio path is exact")
PAPER = ("Radial Attention, Li et al., arXiv:2506.19852 (NeurIPS 2025); pattern restated from "
         "github.com/mit-han-lab/radial-attention radial_attn/attn_mask.py @72788d4f")
PUBLISHED_PRACTICE = ("the authors' scripts keep 12 of 50 steps (Wan 2.1 14B), 11 of 40 (Wan 2.2 A14B) and 1 of 4 "
                      "(LightX2V 4-step) dense, plus the first block")

# What stands for the deviation from stock where the pattern is on (Report.deviation of the sparse quality): what is
# measured, and what a random-weight comparison cannot say.
DEVIATION = ("radial sparse attention is not exact: outside its dense steps and blocks it skips the attention outside "
             "the pattern. Measured: the sparse kernel equals the dense masked reference (attention restricted to the "
             "pattern) within the tolerance of tests/attention/test_sparse_backend.py (and, through Wan Level-1, "
             "tests/level1/test_level1_sparse.py), and the pattern's sparsity and "
             "the attention mass it keeps, per shape on each run (the lines after the run). A final-latent deviation "
             "from stock on random weights means little for sparse attention (random weights make attention nearly "
             "uniform, unlike a trained video model's), so none is stated; visual quality is not measured here "
             "(docs/sparse_attention.md cites the method's published quality numbers)")


def _runtime():
    from ...kernels.attention.sparse import runtime

    return runtime


def settings_from_inputs(dense_steps=None, dense_blocks=None, decay_factor=None):
    """RadialSettings from the node's inputs (None: accel.common.defaults.SPARSE); AccelError naming the input."""
    from ..common.defaults import SPARSE

    values = {"dense_steps": SPARSE.dense_steps if dense_steps is None else dense_steps,
              "dense_blocks": SPARSE.dense_blocks if dense_blocks is None else dense_blocks,
              "decay_factor": SPARSE.decay_factor if decay_factor is None else decay_factor}
    for name in ("dense_steps", "dense_blocks"):
        v, low = values[name], (-1 if name == "dense_steps" else 0)
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise AccelError(name, f"{name} must be a whole number >= {low} (got {v!r})",
                             f"Set {name} to {SPARSE.dense_steps if name == 'dense_steps' else SPARSE.dense_blocks} "
                             "(the default) or a small count")
    d = values["decay_factor"]
    if isinstance(d, bool) or not isinstance(d, (int, float)) or not d > 0:
        raise AccelError("decay_factor", f"decay_factor must be a number > 0 (got {d!r})",
                         f"Set decay_factor to {SPARSE.decay_factor} (the default; larger keeps more attention)")
    return _runtime().RadialSettings(decay_factor=float(d), dense_steps=values["dense_steps"],
                                     dense_blocks=values["dense_blocks"])


# accel.common.families' family ids -> the pattern's video families
_VIDEO_FAMILIES = {"wan21": "wan", "wan22": "wan", "hunyuan_video": "hunyuan_video", "ltxv": "ltxv",
                   "minimax_h3": "minimax_h3"}


def family(model) -> str | None:
    """"wan", "hunyuan_video", "ltxv" or "minimax_h3" for the video models the pattern knows
    (accel.common.families.detect: a ModelPatcher or a BaseModel), else None."""
    return _VIDEO_FAMILIES.get(families.detect(model).family) if model is not None else None


def _patch(diffusion_model, fam):
    if fam == "ltxv":
        return tuple(getattr(getattr(diffusion_model, "patchifier", None), "patch_size", (1, 1, 1)))
    return getattr(diffusion_model, "patch_size", None)


def hunyuan_text_first(diffusion_model) -> bool:
    """Where ComfyUI's HunyuanVideo puts the text in its joint attention, read from the model: older ComfyUI builds
    the double blocks with flipped_img_txt=True (video, then text, in every block); 0.33's blocks have no such flag
    and always put the text first."""
    blocks = getattr(diffusion_model, "double_blocks", None) or ()
    flipped = getattr(blocks[0], "flipped_img_txt", None) if len(blocks) else None
    return not flipped


def video_grid(x, diffusion_model, fam):
    """The token grid of a video latent x (B, C, T, H, W) for a model of video family `fam` (`family`): each of T,
    H, W divided by the patch size, rounded up (Wan, HunyuanVideo and MiniMax-H3 pad the latent to the patch); None
    for other models or inputs. MiniMax-H3's x is its video latent's shape (the model call's `latent_shapes[0]`:
    the sampler carries video and audio packed in one tensor)."""
    from ...kernels.attention.sparse.pattern import VideoGrid

    patch = _patch(diffusion_model, fam) if fam else None
    shape = tuple(x) if isinstance(x, (tuple, list)) else tuple(getattr(x, "shape", ()))
    if len(shape) != 5 or not isinstance(patch, (tuple, list)) or len(patch) != 3:
        return None
    t, h, w = shape[2:]
    return VideoGrid(-(-t // patch[0]), -(-h // patch[1]), -(-w // patch[2]))


def h3_call(kwargs, grid_tokens: int):
    """(video latent shape, tokens packed before the video) of a MiniMax-H3 model call: the video's shape from the
    call's `latent_shapes`, the rest of its packed sequence (text, condition rows, audio) from the layout ComfyUI
    builds once per sampling run (`minimax_payload`), else the text plus the audio's two stereo rows per latent
    frame; (None, 0) when the call is not one (no packed latent)."""
    shapes = kwargs.get("latent_shapes")
    if not shapes or len(shapes) < 2:
        return None, 0
    layout = (kwargs.get("minimax_payload") or {}).get("layout")
    if layout is not None and grid_tokens:
        return tuple(shapes[0]), max(0, int(layout.seq_len) - grid_tokens)
    ctx = kwargs.get("c_crossattn")
    return tuple(shapes[0]), (int(ctx.shape[1]) if getattr(ctx, "ndim", 0) == 3 else 0) + 2 * int(shapes[1][-1])


def video_layout(diffusion_model, fam):
    """(runtime.Layout, transformer block count) of a model of video family `fam` (`family`), (None, 0) otherwise."""
    rt = _runtime()
    if fam == "wan":
        return rt.WAN, len(getattr(diffusion_model, "blocks", ()) or ())
    if fam == "hunyuan_video":
        n = len(getattr(diffusion_model, "double_blocks", ()) or ()) + len(getattr(diffusion_model, "single_blocks", ())
                                                                            or ())
        return rt.Layout("hunyuan", "first" if hunyuan_text_first(diffusion_model) else "last"), n
    if fam == "ltxv":
        return rt.Layout("hunyuan", None), len(diffusion_model.transformer_blocks)
    if fam == "minimax_h3":  # [text | condition rows | audio | video]: everything before the video as "text"
        return rt.Layout("hunyuan", "first"), len(diffusion_model.blocks)
    return None, 0


class SparseWrapper(StepClock):
    """APPLY_MODEL wrapper (key accel.attention): opens the RadialRun's frame around each model call."""

    __slots__ = ("run", "calls", "_cont_for", "_cont", "_model_for", "_model")

    def __init__(self, run):
        super().__init__()
        self.run = run
        self.calls = None  # (the hybrid schedule's counter; the live report reads report_lines instead)
        self._cont_for, self._cont = None, False
        self._model_for, self._model = None, (None, None, 0)

    def video_model(self, base):
        """(family, runtime.Layout, block count) of BaseModel `base` (`family`, `video_layout`), read once per model
        (not on every model call)."""
        if base is not self._model_for:
            dm = getattr(base, "diffusion_model", None)
            fam = family(base) if dm is not None else None
            self._model_for, self._model = base, (fam, *video_layout(dm, fam))
        return self._model

    def continues(self, executor) -> bool:
        """Whether this sampler run starts from a partly denoised latent: its first sigma is below the model's largest
        (Wan 2.2's second expert after KSamplerAdvanced's split, start_at_step > 0, denoise < 1). Once per run (the
        sigmas StepClock.position converted; sigma_max read once)."""
        if self._sigmas_obj is not self._cont_for:
            self._cont_for = self._sigmas_obj
            ms = getattr(getattr(executor, "class_obj", None), "model_sampling", None)
            try:
                smax = float(ms.sigma_max)
            except Exception:  # noqa: BLE001 - no model sampling: every run counts from its first step
                smax = None
            self._cont = bool(self._sigmas) and smax is not None and self._sigmas[0] < smax * (1 - 1e-3)
        return self._cont

    def report_lines(self) -> list:
        return self.run.summary_lines()

    def __call__(self, executor, *args, **kwargs):
        in_kw = "transformer_options" in kwargs
        to = kwargs["transformer_options"] if in_kw else (args[5] if len(args) > 5 else None)
        x = args[0] if args else kwargs.get("x")
        t = args[1] if len(args) > 1 else kwargs.get("t")
        base = getattr(executor, "class_obj", None)
        to = to if isinstance(to, dict) else {}
        step, n = self.position(t, to)
        grid, why = None, NOT_VIDEO
        fam, layout, blocks = self.video_model(base)
        if comfy_compat.core_sparse_attention_active(to) is not None:
            why = CORE_SPARSE
        elif fam == "minimax_h3":
            shape, _ = h3_call(kwargs, 0)
            grid = video_grid(shape, base.diffusion_model, fam) if shape else None
        elif layout is not None:
            grid = video_grid(x, base.diffusion_model, fam)
            if grid is not None and layout.text == "last" and kwargs.get("ref_latent") is not None:
                grid, why = None, REF_LATENT
        if grid is not None:
            if fam == "minimax_h3":
                text = h3_call(kwargs, grid.tokens)[1]
            else:
                ctx = args[3] if len(args) > 3 else kwargs.get("c_crossattn")
                text = int(ctx.shape[1]) if layout.text is not None and getattr(ctx, "ndim", 0) == 3 else 0
            with comfy_compat.pause_malloc_graph():
                self.run.prepare(grid, x.device, layout, layout.text_tokens(grid.tokens + text, grid) or 0)
        prev = self.run.enter(grid, step, n, blocks, why, continues=step is not None and self.continues(executor),
                              **({"layout": layout} if layout is not None else {}))
        try:
            return executor(*args, **kwargs)
        finally:
            self.run.exit(prev)


def _dense_call(kern):
    """dense(q, k, v, scale) on (B, H, L, D) with the exact kernel `kern` where it serves the call, else SDPA."""
    from ...kernels.attention.base import BHLD, invoke, to_layout

    rt = _runtime()
    if kern is None:
        return rt.sdpa_dense

    def dense(q, k, v, scale):
        if kern.why_not(q, q.shape[-1], False, scale, True) is not None or q.device.type not in kern.device_types:
            return rt.sdpa_dense(q, k, v, scale)
        out, lay = invoke(kern, q, k, v, BHLD, None, scale)
        return to_layout(out, lay, BHLD)
    return dense


def probe_sparse(kernel: str, device, compile_=False) -> str | None:
    """None when `kernel` computes the radial pattern like the masked float32 reference on `device` (a 6x8x16
    grid, 128-token tiles, two frame pairs dropped), else why not."""
    import torch

    from ...kernels.attention.sparse import ops
    from ...kernels.attention.sparse.pattern import RadialPattern, VideoGrid

    try:
        dev = torch.device(device)
        dtype = torch.bfloat16 if dev.type == "cuda" else torch.float32
        pat = RadialPattern(VideoGrid(6, 8, 16), 1.0)
        g = torch.Generator().manual_seed(0)
        q, k, v = (torch.randn(1, 2, pat.tokens, 64, generator=g).to(dev, dtype) for _ in range(3))
        out = ops.sparse_attention(q, k, v, pat, backend=kernel, compile=compile_)
        ref = ops.reference_attention(q, k, v, pat)
        err = float((out.float() - ref.float()).norm() / ref.float().norm())
        if not err < 2e-2:
            return f"probe result differs from the masked reference (relative L2 {err:.3g})"
        return None
    except Exception as e:  # noqa: BLE001 - a kernel that does not run here: report it
        return f"probe failed: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"


FA4_HINT = (f"  what it would give here: at Wan 14B 720p on an H100 one attention call took "
            f"{_fig('sparse_fa4.h100.720p.decay0.2.speedup')} less time than FA3 dense with FlashAttention-4 "
            f"block-sparse against {_fig('sparse_flex.h100.720p.decay0.2.speedup.run2')} with flex_attention "
            "(bench/results/h100/attention_033_fa4); `pip install flash-attn-4` in ComfyUI's Python, then restart")


def _fa4_capable(device) -> bool:
    """An NVIDIA GPU of a generation flash-attn-4 builds for (sm90 Hopper, sm100 Blackwell): where installing it
    is worth saying."""
    import torch

    dev = torch.device(device)
    if dev.type != "cuda" or not torch.cuda.is_available() or getattr(torch.version, "hip", None):
        return False
    return torch.cuda.get_device_capability(dev)[0] in (9, 10)


def pick_kernel(device) -> tuple[str, list]:
    """('fa4' or 'flex', report lines): FA4 block-sparse where it imports and passes the probe, else flex."""
    from ...kernels.attention.sparse import ops

    lines = []
    st = ops.backend_status(device)
    if st.get("fa4") is None:
        why = probe_sparse("fa4", device)
        if why is None:
            return "fa4", ["sparse kernel: FlashAttention-4 block-sparse (flash_attn.cute, block_sparse_tensors): "
                           "passed a probe against the masked reference here; checked against it on an H100 "
                           "(bench/results/h100/attention_033_fa4), not by the CPU tests (it needs the GPU)"]
        lines.append(f"sparse kernel: FlashAttention-4 block-sparse not used: {why}")
    else:
        lines.append(f"sparse kernel: FlashAttention-4 block-sparse not used: {st['fa4']}")
        if _fa4_capable(device):
            lines.append(FA4_HINT)
    if st.get("flex") is not None:
        raise RuntimeError(st["flex"])
    why = probe_sparse("flex", device)
    if why is not None:
        raise RuntimeError(f"flex_attention: {why}")
    import torch

    compiled = "compiled per shape on the first call (torch.compile)" if torch.device(device).type == "cuda" else \
        "eager (not compiled off CUDA)"
    lines.insert(0, f"sparse kernel: torch flex_attention with the pattern's BlockMask, {compiled}; probed against "
                    "the masked reference here (eager)")
    return "flex", lines


def setup(m, kern, settings, exact_kern, exact_label: str, policy: Policy, device, model) -> tuple:
    """Attach the SparseWrapper to clone `m` for sparse kernel `kern`; returns (RadialRun or None, report lines).
    None: core's BlockSparseAttention is on `model` and the policy is FALL_BACK (the caller uses exact attention);
    with policy ERROR that raises AccelError (input 'backend')."""
    if comfy_compat.core_sparse_attention_installed(model):
        if policy is Policy.ERROR:
            raise AccelError("backend", "radial_sparse and core's Model Sparse Attention (BlockSparseAttention) are "
                                        "both on this model; only one sparse pattern may apply",
                             "Remove core's Model Sparse Attention node from this model's chain, choose an exact "
                             "backend (auto), or set fallback to 'fall back' (then core's pattern applies and "
                             f"{exact_label} serves the rest)")
        return None, [f"radial_sparse stood down: core's Model Sparse Attention (BlockSparseAttention) is on this "
                      f"model and only one sparse pattern may apply (fallback 'fall back': core's applies; "
                      f"{exact_label} serves the calls it keeps dense)"]
    rt = _runtime()
    kernel, klines = pick_kernel(device)
    settings = rt.RadialSettings(decay_factor=settings.decay_factor, dense_steps=settings.dense_steps,
                                 dense_blocks=settings.dense_blocks, block_size=settings.block_size, kernel=kernel)

    def on_reason(reason):
        log.info_once(("attention", "radial_sparse", reason), "radial_sparse: some calls run dense: %s (%s; logged "
                      "once)", reason, exact_label)

    run = rt.RadialRun(settings, _dense_call(exact_kern), on_reason)
    m.add_wrapper_with_key(apply_model_wrappers(), keys.ATTENTION, SparseWrapper(run))
    try:
        dm = model.get_model_object("diffusion_model")
    except Exception:  # noqa: BLE001
        dm = None
    fam = family(model) if dm is not None else None
    side = "before" if fam == "hunyuan_video" and hunyuan_text_first(dm) else "after"
    where = {"wan": "Wan's video self-attention (key frame 0 kept whole: the published attention sink)",
             "hunyuan_video": ("HunyuanVideo's joint attention: the video's tokens, the text's tiles dense (text "
                               f"{side} the video in this ComfyUI's model), no attention sink (the published "
                               "HunyuanVideo rule)"),
             "ltxv": f"LTX-Video's video self-attention ({LTXV_NOTE})",
             "minimax_h3": f"MiniMax-H3's joint self-attention ({H3_NOTE})"}.get(fam, "video self-attention")
    lines = [f"sparse pattern: radial attention ({PAPER}), decay_factor {settings.decay_factor:g}, "
             f"{settings.block_size}x{settings.block_size} tiles, on {where}, in calls whose token count equals the "
             "latent's frames x height x width / patch"]
    lines += klines
    lines.append(f"dense (exact, {exact_label}): {settings.describe_steps()} ({PUBLISHED_PRACTICE}); the first "
                 f"{settings.dense_blocks} and last {settings.dense_blocks} transformer block(s) (video self-attention "
                 "calls counted per model call); cross-attention; calls whose token count does not match the grid")
    lines.append("measured after each run (below the report): the pattern's sparsity per shape, and the kept attention "
                 "mass, measured once per shape on the first sparse call from that call's own q/k (64 query rows x "
                 "all heads, full softmax over all keys)")
    lines.append("visual quality is not measured here: random weights cannot show it. The method's published quality "
                 "numbers (arXiv:2506.19852, Table 1) are cited in docs/sparse_attention.md")
    if dm is not None and fam is None:
        lines.append(f"note: this model is {type(dm).__name__}, {NOT_VIDEO}: every call runs dense")
    return run, lines


def _wrapper(patcher):
    """The patcher's sparse wrapper, or None."""
    try:
        ws = patcher.get_wrappers(apply_model_wrappers(), keys.ATTENTION)
    except Exception:  # noqa: BLE001
        return None
    w = ws[-1] if ws else None
    return w if isinstance(w, SparseWrapper) else None


def report_lines(patcher) -> list:
    """The run's measurements (live report after a sampling run), [] without a sparse wrapper."""
    w = _wrapper(patcher)
    return w.report_lines() if w is not None else []


def sparse_kernel(patcher) -> str | None:
    """The sparse kernel the patcher's radial pattern runs ("fa4", "flex": pick_kernel's choice), None without one
    (a preset's gain line quotes that kernel's measurement)."""
    w = _wrapper(patcher)
    return w.run.settings.kernel if w is not None else None
