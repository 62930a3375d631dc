"""Step caching for diffusion transformers (TeaCache, MagCache, and calibration of both) built only from
ComfyUI's sanctioned hooks: no model forward code is copied, nothing global is patched.

Design
------
Three wrappers, registered under one key (``accel_stepcache``) on a *clone* of the MODEL, like core's
EasyCache (``comfy_extras/nodes_easycache.py``):

* ``OUTER_SAMPLE`` — once per sampling run. Builds the run's state (``_Run``: per cond/uncond chunk
  accumulators and residual caches, statistics) *inside* the run, so nothing heavy lives in
  ``model_options`` (ComfyUI 0.3.75's ``clone()`` deep-copies it: only a small config dict is stored there).
  In the guider's per-run copy of ``model_options`` it then installs one ``patches_replace["dit"]``
  entry per transformer block that *chains* to whatever entry another node put there (any node order:
  it looks at the final set of patches when sampling starts). A replace patch set at node time with
  ``set_model_patch_replace`` would be a single slot per block: it would overwrite, or be overwritten by,
  the patch of any other node applied later. At the end it logs the statistics.
* ``CALC_COND_BATCH`` — brackets one model evaluation (cond + uncond) for the step statistics.
* ``DIFFUSION_MODEL`` — opens a call context (chunk keys from ``cond_or_uncond`` + ``uuids``, in whatever
  order ComfyUI batched them; sigma → schedule percent; first/last step; the timestep) for the block hooks.

The skip/compute decision happens in the hook of the first block, with the block's own arguments:
embeddings and the head/unpatchify always run (so the head sees this step's timestep modulation, as in
the reference TeaCache), and only the transformer blocks are skipped:

* skip: the first block returns ``img + cached residual`` (per chunk), every other block passes its input
  through;
* compute: every block runs through the chain (other nodes' block patches, then ComfyUI's block, which is
  the ``torch.compile``d one while the compile node's APPLY_MODEL wrapper has swapped it in), and the last
  block stores ``residual = img_out - img_in`` per chunk. Attention overrides
  (``transformer_options["optimized_attention_override"]``) are untouched and apply on every computed
  step.

Signals: Wan uses the timestep embedding as TeaCache does for Wan (``e0`` = the projection the blocks get,
for the ``*_ret_mode`` sets; ``e`` = the time embedding, recomputed from the timestep with the model's own
``time_embedding`` module, for the others). Flux/HunyuanVideo use the modulated input of the first double
block (computed with that block's own ``img_mod``/``img_norm1`` modules). MagCache needs no signal:
it accumulates the published per-step magnitude ratios, one table entry per step.

Which steps may be skipped, and how the accumulators evolve, follows the reference implementations' rules,
restated with citations in ``accel/stepcache_schedule.py``; the runtime measures the TeaCache signal and applies
those rules per cond/uncond chunk (a batched call is skipped only when every chunk may skip).

The step of a call is its sigma's index in the run's sigmas; a KSamplerAdvanced partial run (``sample_sigmas``
is sliced: Wan 2.2 A14B high/low-noise experts, denoise < 1) is placed in the whole schedule from the schedule
percents of its first and last sigma (read through the model's ``model_sampling``), so the start/end inputs and
the published tables refer to the whole schedule.

Not cacheable with this mechanism (refused at the node or computed normally with one warning): models whose
forward adds per-block injections outside the block call (Wan VACE/S2V/Animate, ControlNet residuals,
post-block ``patches["double_block"]``), multi-GPU clones (one state per device would be needed).
"""
from __future__ import annotations

import inspect
import math
import threading
import time
import uuid
from dataclasses import dataclass, field

import torch

from . import cache_coefficients as cc
from . import log
from . import stepcache_agnostic as agn
from . import stepcache_schedule as sched
from .errors import AccelError
from .stepcache_calibrate import (DEFAULT_SIGNAL, _check_same_model, _read_calibration, _run_count,
                                  _write_calibration, model_fingerprint)

KEY = "accel_stepcache"  # config dict in model_options["transformer_options"] (small: survives deepcopy)
RUN_KEY = "accel_stepcache_run"  # the _Run object, only in a sampling run's own model_options copy
WRAPPER_KEY = "accel_stepcache"

MODES = ("teacache", "magcache", "calibrate", "agnostic")  # agnostic: accel/stepcache_agnostic.py
LOW_STEPS = 8
_LAST: dict = {}  # config id -> RunStats of the last finished run (bounded)
_NODE_LAST: dict = {}  # ComfyUI node id -> RunStats of the last run of a MODEL that node produced
_RUNS: dict = {}  # config id -> number of finished runs
_LOCK = threading.Lock()


# ============================================================================ adapters
class _Adapter:
    """How one model family's blocks look through `patches_replace["dit"]`."""

    name = ""
    signals: tuple = ()
    control_outside = False  # does a ControlNet add to block outputs outside the block call?
    inplace_blocks = False  # do the blocks update their input in place (then the input is cloned to cache)?

    def keys(self, dm) -> list:
        raise NotImplementedError

    def first(self, args, call) -> torch.Tensor:
        """The image-token stream entering the first block (records what img_out needs)."""
        return args["img"]

    def skipped(self, index: int, args, new_img=None) -> dict:
        raise NotImplementedError

    def img_out(self, out: dict, call) -> torch.Tensor:
        return out["img"]

    def signal(self, name, dm, args, call) -> torch.Tensor:
        raise KeyError(name)


class _WanAdapter(_Adapter):
    name = "wan"
    signals = ("e0", "e")

    def keys(self, dm):
        return [("double_block", i) for i in range(len(dm.blocks))]

    def skipped(self, index, args, new_img=None):
        return {"img": args["img"] if new_img is None else new_img}

    def signal(self, name, dm, args, call):
        if name == "e0":  # what the blocks receive: time_projection(e), (B, 1|T, 6, dim)
            return args["vec"]
        if name == "e":  # the time embedding itself, from the model's own modules
            from comfy.ldm.wan.model import sinusoidal_embedding_1d

            t = call.timestep
            img = args["img"]
            e = dm.time_embedding(sinusoidal_embedding_1d(dm.freq_dim, t.flatten()).to(dtype=img.dtype))
            return e.reshape(t.shape[0], -1, e.shape[-1])
        raise KeyError(name)


class _DualAdapter(_Adapter):
    """Flux / HunyuanVideo: double blocks (img, txt), then single blocks on cat(txt, img) or cat(img, txt)."""

    signals = ("modulated",)
    control_outside = True
    inplace_blocks = True  # Flux/HunyuanVideo DoubleStreamBlock: `img += ...`

    def __init__(self, name, txt_first: bool):
        self.name = name
        self.txt_first = txt_first

    def keys(self, dm):
        return ([("double_block", i) for i in range(len(dm.double_blocks))]
                + [("single_block", i) for i in range(len(getattr(dm, "single_blocks", []) or []))])

    def first(self, args, call):
        call.img_len = args["img"].shape[1]
        call.txt_len = args["txt"].shape[1]
        return args["img"]

    def skipped(self, index, args, new_img=None):
        img = args["img"] if new_img is None else new_img
        return {"img": img, "txt": args["txt"]} if "txt" in args else {"img": img}

    def img_out(self, out, call):
        x = out["img"]
        if "txt" in out:  # no single blocks: the last double block's image stream
            return x
        return x[:, call.txt_len:] if self.txt_first else x[:, :call.img_len]

    def signal(self, name, dm, args, call):
        if name != "modulated":
            raise KeyError(name)
        from comfy.ldm.flux.layers import apply_mod

        blk = dm.double_blocks[0]
        mod1 = blk.img_mod(args["vec"])[0]
        normed = blk.img_norm1(args["img"])
        return apply_mod(normed, 1 + mod1.scale, mod1.shift, args.get("modulation_dims_img"))


class _QwenAdapter(_Adapter):
    name = "qwen_image"
    signals = ("temb",)
    control_outside = True

    def keys(self, dm):
        return [("double_block", i) for i in range(len(dm.transformer_blocks))]

    def skipped(self, index, args, new_img=None):
        return {"img": args["img"] if new_img is None else new_img, "txt": args["txt"]}

    def signal(self, name, dm, args, call):
        if name == "temb":
            return args["vec"]
        raise KeyError(name)


class _LTXVAdapter(_Adapter):
    """LTX-Video: ("double_block", i) entries taking img/txt/vec/pe and returning {"img"} only (no signal: used
    by the coefficient-free cache)."""

    name = "ltxv"
    inplace_blocks = True  # BasicTransformerBlock: `x.addcmul_(...)`, `x += ...`

    def keys(self, dm):
        return [("double_block", i) for i in range(len(dm.transformer_blocks))]

    def skipped(self, index, args, new_img=None):
        return {"img": args["img"] if new_img is None else new_img}


ADAPTERS = {"wan": _WanAdapter(), "flux": _DualAdapter("flux", True),
            "hunyuan_video": _DualAdapter("hunyuan_video", False), "qwen_image": _QwenAdapter(),
            "ltxv": _LTXVAdapter()}
SIGNAL_TEXT = {"e": "time embedding e (TeaCache use_ret_steps=False)",
               "e0": "time projection e0 (TeaCache use_ret_steps=True)",
               "modulated": "modulated input of the first double block", "temb": "timestep embedding"}


def adapter_for_model(model):
    """(adapter or None, Family, reason) for a ModelPatcher."""
    from .families import detect

    fam = detect(model)
    name = cc.ADAPTER_OF_FAMILY.get(fam.family)
    if name is None:
        return None, fam, f"{fam.name} is not supported by the step cache"
    if name == "wan":
        dm = model.get_model_object("diffusion_model")
        if type(dm).__name__ != "WanModel" or fam.variant not in cc.WAN_VARIANTS:
            return None, fam, (f"{fam.name} ({type(dm).__name__}) adds per-block injections outside the block "
                               "call; only Wan T2V, I2V/FLF and TI2V models can be step-cached")
    return ADAPTERS[name], fam, ""


# ============================================================================ statistics
@dataclass
class RunStats:
    mode: str
    set_name: str
    node: str
    evaluations: int = 0
    computed: int = 0
    skipped: int = 0
    steps: int = 0
    seconds: float = 0.0
    pattern: str = ""
    notes: list = field(default_factory=list)
    run_index: int = 0
    trace: list = field(default_factory=list)  # per model call: (schedule step, {branch: TeaCache input change})
    measures: dict = field(default_factory=dict)  # agnostic mode: estimated / measured residual change

    @property
    def speedup(self) -> float:
        return self.evaluations / self.computed if self.computed else 1.0

    def text(self) -> str:
        if self.mode == "calibrate":
            head = (f"{self.node} run {self.run_index}: recorded {self.evaluations} model evaluations "
                    f"({self.steps} steps, nothing skipped) in {self.seconds:.1f} s")
        else:
            head = (f"{self.node} run {self.run_index}: computed {self.computed}/{self.evaluations} model evaluations, "
                    f"skipped {self.skipped} ({self.steps} steps, {self.seconds:.1f} s incl. model loading); "
                    f"estimated speed-up of the transformer blocks {self.speedup:.2f}x "
                    f"(embeddings, head, VAE and text encoder are not skipped, so end-to-end is less)")
        lines = [head]
        if self.pattern:
            lines.append(f"  steps: {self.pattern}  (# computed, . skipped)")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def last_stats(model_or_id):
    """RunStats of the last finished run of a cache node's MODEL (or its config id); None before any run."""
    cid = model_or_id
    if not isinstance(model_or_id, str):
        cfg = model_or_id.model_options.get("transformer_options", {}).get(KEY)
        cid = cfg and cfg.get("id")
    return _LAST.get(cid)


def _node_stats(node_id) -> RunStats | None:
    return None if node_id is None else _NODE_LAST.get(str(node_id))


# ============================================================================ per-run state
class _Chunk:
    """Per cond/uncond (and per conditioning uuid) state inside one run."""

    __slots__ = ("prev_signal", "acc", "residual", "mag", "cal_prev_signal", "cal_prev_residual", "agn")

    def __init__(self):
        self.prev_signal = None
        self.acc = 0.0  # TeaCache accumulated estimate
        self.residual = None
        self.mag = None  # MagCache accumulated ratio, steps, error (set on the chunk's first call)
        self.cal_prev_signal = {}
        self.cal_prev_residual = None
        self.agn = None  # agnostic mode: stepcache_agnostic.ChunkState


class _Call:
    __slots__ = ("dm", "keys", "timestep", "p", "sigma", "step", "active", "force", "decided", "skip", "x_in",
                 "x_version", "img_len", "txt_len", "to", "first_seen", "record", "blocker", "agn")

    def __init__(self):
        self.decided = self.skip = self.record = self.first_seen = False
        self.force = None
        self.blocker = None
        self.x_in = self.agn = None
        self.img_len = self.txt_len = 0


_SIG_CACHE: dict = {}


def _version(t):
    """The tensor's in-place version counter, or None for an inference tensor (ComfyUI samples under
    torch.inference_mode, where tensors do not track versions)."""
    return None if t.is_inference() else t._version


def _named_args(dm, args, kwargs) -> dict:
    """Arguments of the diffusion model's forward by name (positions differ per model family)."""
    cls = type(dm)
    sig = _SIG_CACHE.get(cls)
    if sig is None:
        try:
            sig = inspect.signature(cls.forward)
        except (TypeError, ValueError):
            sig = False
        _SIG_CACHE[cls] = sig
    if not sig:
        return dict(kwargs)
    try:
        bound = sig.bind_partial(dm, *args, **kwargs).arguments
    except TypeError:
        return dict(kwargs)
    out = dict(bound.pop("kwargs", {}) or {})
    out.update(bound)
    return out


def _find_to(args, kwargs):
    for a in reversed(args):
        if isinstance(a, dict) and "cond_or_uncond" in a:
            return a
    to = kwargs.get("transformer_options")
    return to if isinstance(to, dict) else None


class _Run:
    def __init__(self, cfg: dict, patcher, sigmas):
        self.cfg = cfg
        self.mode = cfg["mode"]
        self.adapter = ADAPTERS[cfg["adapter"]]
        self.chunks: dict = {}
        self.call: _Call | None = None
        self.ms = patcher.get_model_object("model_sampling")
        self._pcache: dict = {}
        s = [float(v) for v in sigmas.flatten().tolist()] if sigmas is not None else []
        self.sigmas = s
        self.steps = max(0, len(s) - 1)
        # where this run lies in the whole schedule (KSamplerAdvanced slices: Wan 2.2 A14B experts, denoise < 1)
        self.offset, self.total = sched.run_position(self.steps, self.percent(s[0]), self.percent(s[-1])) \
            if self.steps else (0, 0)
        self.split = (self.offset if self.offset > 0 else self.offset + self.steps
                      if self.offset + self.steps < self.total else None)
        self.entry = None  # resolved coefficient set
        self.set_name = cfg.get("set") or ""
        self.thresh = self.start = self.end = None
        self.K = None
        self.eval_open = False
        self.eval_flags = [0, 0]
        self.stats = RunStats(self.mode, self.set_name, cfg.get("node", "Accel cache"))
        self.t0 = time.perf_counter()
        self.records = []  # calibration: per call
        self.clone_input = self.adapter.inplace_blocks
        self.few_step = False  # a distilled few-step schedule: decided once the set is known (resolve)

    # ---------------------------------------------------------------- schedule
    def percent(self, sigma: float) -> float:
        p = self._pcache.get(sigma)
        if p is None:
            lo, hi = 0.0, 1.0
            for _ in range(40):
                mid = 0.5 * (lo + hi)
                if float(self.ms.percent_to_sigma(mid)) > sigma:
                    lo = mid
                else:
                    hi = mid
            p = 0.5 * (lo + hi)
            self._pcache[sigma] = p
        return p

    # ---------------------------------------------------------------- set resolution (first call)
    def resolve(self, x, named):
        cfg = self.cfg
        kind = "teacache" if self.mode == "teacache" else "magcache"
        if self.mode == "calibrate":
            self.entry = {}
            return
        if self.mode == "agnostic":  # no set: the node's inputs are the run's values
            self.entry = {}
            self.thresh, self.start, self.end = cfg["thresh"], cfg["start"], cfg["end"]
            self._check_few_steps()
            self.stats.notes.insert(0, f"threshold {self.thresh:g}, start {self.start:.0%}, end {self.end:.0%}")
            return
        if cfg.get("entry") is not None:
            self.entry = cfg["entry"]
        else:
            ref = named.get("ref_latents")
            t = named.get("timestep")
            name = cc.pick_auto(cfg["candidates"], latent_hw=int(x.shape[-1] * x.shape[-2]),
                                has_ref=ref is not None and len(ref) > 0, steps=self.total,
                                per_token_t=bool(t is not None and t.ndim >= 2 and t.shape[-1] > 1))
            self.set_name = name
            self.entry = cc.resolve_named(kind, name)
        self.stats.set_name = self.set_name
        eff = effective_settings(kind, cfg, self.entry)
        self._check_few_steps()
        self.thresh, self.start, self.end, self.K = eff["thresh"], eff["start"], eff["end"], eff["K"]
        if self.mode == "teacache":
            self.coeffs = [float(c) for c in self.entry["coefficients"]]
            self.signal_name = self.entry.get("signal") or DEFAULT_SIGNAL[self.adapter.name]
            self.compute_last = bool(self.entry.get("compute_last"))
        else:
            self.rules = sched.mag_rules(self.entry)
            self.tables = {b: [float(v) for v in r] for b, r in self.entry["ratios"].items()}
            self._mag_start = {}  # branch -> accumulators at this run's first step (see sched.mag_walk)
            for b in ("cond", "uncond"):
                st = [1.0, 0, 0.0]
                for _ in sched.mag_walk(self.entry, self.total, self.thresh, self.K, self.start, self.end, b,
                                        self.offset, self.split, st):
                    pass
                self._mag_start[b] = st
        self.stats.notes.insert(0, f"set {self.set_name}: " + (
            f"rel_l1_thresh {self.thresh:g}" if self.mode == "teacache" else f"magcache_thresh {self.thresh:g}, K {self.K}")
            + f", start {self.start:.0%}, end {self.end:.0%}")
        empty = empty_window_text(eff)
        if empty:
            self.stats.notes.append(empty)
            log.warn_once(("stepcache-empty", cfg["id"], self.set_name), "%s: %s", cfg.get("node"), empty)

    def _check_few_steps(self):
        """Distilled few-step schedules (LightX2V / Lightning 4- and 8-step LoRAs): every step is a large jump, and
        the published sets were fitted on 40-50 steps, so a skipped step reuses a residual that no longer fits and
        ruins the result. At <= LOW_STEPS steps nothing is skipped, and the report says why, unless the set was
        calibrated on this very step count (Accel Cache Calibrate with the distilled model)."""
        total = self.total or self.steps
        if not total or total > LOW_STEPS:
            return
        calibrated = (self.entry.get("expected") or {}).get("steps") if self.entry.get("user_file") else None
        if calibrated == total or (self.mode == "magcache" and self.entry.get("user_file")
                                   and len(self.entry["ratios"]["cond"]) == total):
            self.stats.notes.append(f"{total}-step schedule: the set was calibrated on {total} steps, so caching "
                                    "stays on")
            return
        self.few_step = True
        why, how = (("the set was fitted on many more steps", ", or calibrate it on this step count with Accel Cache "
                     "Calibrate and pick the user:<name> set") if self.mode != "agnostic" else
                    ("the change rate needs two computed steps, so little would be left to skip", ""))
        text = (f"{total}-step schedule (a distilled few-step model, e.g. a LightX2V/Lightning 4- or 8-step LoRA?): "
                f"caching cannot help at {LOW_STEPS} steps or fewer (each step is a large jump; {why}), so every "
                f"step was computed. Remove the cache node for this model{how}")
        self.stats.notes.append(text)
        log.warn_once(("stepcache-fewsteps", self.cfg["id"]), "%s: %s", self.cfg.get("node"), text)

    # ---------------------------------------------------------------- evaluation / call brackets
    def begin_eval(self):
        self.eval_open = True
        self.eval_flags = [0, 0]

    def end_eval(self):
        if not self.eval_open:
            return
        self.eval_open = False
        self._count(*self.eval_flags)

    def _count(self, computed, skipped):
        if not (computed or skipped):
            return
        self.stats.evaluations += 1
        if computed:
            self.stats.computed += 1
            self.stats.pattern += "#"
        else:
            self.stats.skipped += 1
            self.stats.pattern += "."

    def begin_call(self, dm, args, kwargs, to):
        call = _Call()
        call.dm = dm
        call.to = to
        named = _named_args(dm, args, kwargs)
        x = args[0]
        if self.entry is None:
            self.resolve(x, named)
        call.timestep = named.get("timestep", args[1] if len(args) > 1 else None)
        cou = list(to.get("cond_or_uncond") or [0])
        uuids = list(to.get("uuids") or [None] * len(cou))
        if len(uuids) != len(cou):
            uuids = [None] * len(cou)
        call.keys = list(zip(cou, uuids))
        sig = to.get("sigmas")
        call.sigma = float(sig.flatten()[0]) if isinstance(sig, torch.Tensor) else float(sig or 0.0)
        call.p = self.percent(call.sigma)
        call.step = self.offset + sched.step_index(call.sigma, self.sigmas) if self.sigmas else 0
        if self.mode != "calibrate":
            if self.adapter.control_outside and named.get("control") is not None:
                call.blocker = "a ControlNet adds to block outputs outside the blocks"
            elif (to.get("patches") or {}).get("double_block"):
                call.blocker = "post-block patches (transformer_options['patches']['double_block']) are present"
            elif to.get("multigpu_thread_device") is not None:
                call.blocker = "multi-GPU clones"
            if call.blocker:
                call.force = "blocked"
                if log.warn_once(("stepcache-blocked", self.cfg["id"], call.blocker),
                                 "%s: %s, so every step is computed (no caching)", self.cfg.get("node"), call.blocker):
                    self.stats.notes.append(f"caching disabled: {call.blocker}")
            elif self.few_step:
                call.force = "few-step schedule"
            elif self.thresh <= 0:
                call.force = "threshold 0"
        self.call = call

    def end_call(self):
        call, self.call = self.call, None
        if call is None:
            return
        if not call.first_seen:
            if log.warn_once(("stepcache-nohook", self.cfg["id"]),
                             "%s: the transformer blocks did not go through patches_replace['dit'] (another node "
                             "replaced the forward?); this step cache had no effect", self.cfg.get("node")):
                self.stats.notes.append("the block hooks were never called: no caching happened")
            return
        flags = (0, 1) if call.skip else (1, 0)
        if self.eval_open:
            self.eval_flags[0] |= flags[0]
            self.eval_flags[1] |= flags[1]
        else:
            self._count(*flags)

    def chunk(self, key) -> _Chunk:
        st = self.chunks.get(key)
        if st is None:
            st = self.chunks[key] = _Chunk()
        return st

    # ---------------------------------------------------------------- decision (first block)
    def decide(self, args) -> bool:
        """True = skip the blocks of this call."""
        call = self.call
        img = self.adapter.first(args, call)
        call.first_seen = True
        call.decided = True
        n = len(call.keys)
        per = img.shape[0] // n if n and img.shape[0] % n == 0 else None
        if per is None:
            call.force = call.force or "batch does not split into cond/uncond chunks"
            n, per, call.keys = 1, img.shape[0], [("all", None)]
        chunks = [self.chunk(k) for k in call.keys]
        if self.mode == "calibrate":
            self._calib_signals(args, call, chunks, per)
            call.record = True
            return False
        wants = []
        if self.mode == "teacache":
            sig = self.adapter.signal(self.signal_name, call.dm, args, call)
            sig = sig.float()
            rels = []
            for i, st in enumerate(chunks):
                s = sig[i * per:(i + 1) * per]
                prev = st.prev_signal
                if prev is not None and prev.shape == s.shape:
                    rels.append((s - prev).abs().mean() / prev.abs().mean().clamp_min(1e-12))
                else:
                    rels.append(None)
                st.prev_signal = s.detach()
            known = [r for r in rels if r is not None]
            vals = iter(torch.stack(known).tolist() if known else [])  # one device sync per call
            enabled = sched.tea_enabled(call.step, self.total, self.start, self.end, self.compute_last)
            trace = {}
            for i, (key, st) in enumerate(zip(call.keys, chunks)):
                if rels[i] is None:  # no previous input: compute (the accumulator starts at 0)
                    wants.append(False)
                    continue
                x = next(vals)
                trace["uncond" if key[0] == 1 else "cond"] = x
                # updated on every call, also outside start/end (which only force computing), as the reference
                st.acc, w = sched.tea_update(st.acc, x, self.coeffs, self.thresh)
                wants.append(w and enabled)
            self.stats.trace.append((call.step, trace))
        elif self.mode == "agnostic":  # measured input change x measured rate (accel/stepcache_agnostic.py)
            wants = agn.decide(self, call, img, chunks, per)
        else:  # magcache: one table entry per step; accumulators only touched on enabled steps
            for key, st in zip(call.keys, chunks):
                branch = "uncond" if key[0] == 1 else "cond"
                if st.mag is None:
                    st.mag = list(self._mag_start[branch])
                table = self.tables.get(branch) or self.tables["cond"]
                t = sched.mag_table_index(call.step, self.total, len(table), self.rules["lookup"])
                ok = sched.mag_enabled(call.step, self.total, self.start, self.end, int(branch == "uncond"),
                                       self.rules["experts"], self.split) and t not in self.rules["never_skip"]
                wants.append(sched.mag_update(st.mag, table[t], self.thresh, self.K) if ok else False)
            self.stats.trace.append((call.step, {}))
        per_shape = (per,) + tuple(img.shape[1:])
        have = all(st.residual is not None and tuple(st.residual.shape) == per_shape for st in chunks)
        skip = call.force is None and have and all(wants)
        if skip:
            call.skip = True
            if self.mode == "agnostic":
                agn.skipped(self, call)
            return True
        call.record = True
        # An inference tensor cannot reveal an in-place change: keep a copy of the block input then.
        call.x_in = img.clone() if (self.clone_input or img.is_inference()) else img
        call.x_version = _version(call.x_in)
        return False

    def skip_output(self, args):
        img = args["img"]
        chunks = [self.chunk(k) for k in self.call.keys]
        delta = torch.cat([st.residual.to(device=img.device, dtype=img.dtype) for st in chunks], dim=0)
        return self.adapter.skipped(0, args, img + delta)

    # ---------------------------------------------------------------- after the last block
    def store(self, out: dict):
        call = self.call
        img_out = self.adapter.img_out(out, call)
        if self.mode == "calibrate":
            self._calib_residual(img_out, call)
            return
        x_in = call.x_in
        if x_in is None or _version(x_in) != call.x_version or img_out.shape != x_in.shape:
            if x_in is not None and _version(x_in) != call.x_version:
                self.clone_input = True  # from the next step on, keep a copy of the block input
            if log.warn_once(("stepcache-inplace", self.cfg["id"]),
                             "%s: the block input was modified in place or changed shape; residual not cached "
                             "for this step (the input is copied from now on)", self.cfg.get("node")):
                self.stats.notes.append("block input modified in place: copied from then on")
            for k in call.keys:
                self.chunk(k).residual = None
            return
        res = img_out - x_in
        n = len(call.keys)
        per = res.shape[0] // n
        dev = self.cfg.get("cache_device") == "CPU"
        for i, k in enumerate(call.keys):
            r = res[i * per:(i + 1) * per]
            self.chunk(k).residual = r.to("cpu") if dev else r
        if self.mode == "agnostic" and call.agn is not None:
            agn.store(self, call, res, per)

    # ---------------------------------------------------------------- calibration records
    def _calib_signals(self, args, call, chunks, per):
        call.x_in = self.adapter.first(args, call)
        if self.clone_input or call.x_in.is_inference():
            call.x_in = call.x_in.clone()
        call.x_version = _version(call.x_in)
        sigs = {}
        for name in self.adapter.signals:
            try:
                sigs[name] = self.adapter.signal(name, call.dm, args, call).float()
            except Exception as e:  # a signal this model variant cannot give
                log.warn_once(("stepcache-calsig", name), "calibration: signal %s unavailable (%s)", name, e)
        call_rec = {"p": call.p, "sigma": call.sigma, "step": call.step, "chunks": []}
        for i, (key, st) in enumerate(zip(call.keys, chunks)):
            rec = {"branch": "uncond" if key[0] == 1 else "cond", "signal": {}}
            for name, s in sigs.items():
                s = s[i * per:(i + 1) * per]
                prev = st.cal_prev_signal.get(name)
                if prev is not None and prev.shape == s.shape:
                    rec["signal"][name] = float((s - prev).abs().mean() / prev.abs().mean().clamp_min(1e-12))
                st.cal_prev_signal[name] = s.detach()
            call_rec["chunks"].append(rec)
        self.records.append(call_rec)
        call.record = True

    def _calib_residual(self, img_out, call):
        res = (img_out - call.x_in).float()
        n = len(call.keys)
        per = res.shape[0] // n
        rec = self.records[-1]
        for i, k in enumerate(call.keys):
            r = res[i * per:(i + 1) * per]
            st = self.chunk(k)
            prev = st.cal_prev_residual
            c = rec["chunks"][i]
            if prev is not None and prev.shape == r.shape:
                c["residual_rel_l1"] = float((r - prev).abs().mean() / prev.abs().mean().clamp_min(1e-12))
                c["mag_ratio"] = float((r.norm(dim=-1) / prev.norm(dim=-1).clamp_min(1e-12)).mean())
                c["cos_dist"] = float(1 - torch.nn.functional.cosine_similarity(r.flatten(1), prev.flatten(1)).mean())
            st.cal_prev_residual = r.detach()

    # ---------------------------------------------------------------- end of run
    def finish(self, completed: bool):
        """End of a sampling run. `completed` = the sampler returned normally; an interrupted or failed run
        writes no calibration (its partial records would damage the fit) and says so. Returns an AccelError
        to raise when a completed calibration run could not be written (None otherwise)."""
        self.stats.seconds = time.perf_counter() - self.t0
        self.stats.steps = self.steps
        error = None
        if not completed:
            self.stats.notes.append(f"the run did not finish (interrupted or failed) after {self.stats.evaluations} "
                                    "model evaluations" + (": nothing written, the calibration file is unchanged"
                                                           if self.mode == "calibrate" else ""))
        if self.mode == "agnostic":
            self.stats.notes += agn.summary(self)
        if completed and self.mode == "calibrate":
            try:
                path, summary = _write_calibration(self)
                self.stats.notes.append(summary)
                self.stats.notes.append(f"written to {path}")
            except AccelError as e:
                error = e
            except Exception as e:  # disk full, permissions, ...: the file on disk is untouched (atomic write)
                error = AccelError(self.cfg.get("node", "Accel Cache Calibrate"), "name",
                                   f"calibration not written ({type(e).__name__}: {e}); the file on disk is unchanged",
                                   "Check the folder's free space and permissions, then run again")
            if error is not None:
                self.stats.notes.append(f"calibration not written: {error}")
                log.warning("%s", error)
        with _LOCK:
            cid = self.cfg["id"]
            _RUNS[cid] = self.stats.run_index = _RUNS.get(cid, 0) + 1
            _LAST.pop(cid, None)
            _LAST[cid] = self.stats
            if self.cfg.get("node_id") is not None:
                _NODE_LAST[str(self.cfg["node_id"])] = self.stats
            while len(_LAST) > 256:
                _LAST.pop(next(iter(_LAST)))
        text = self.stats.text()
        log.info("%s", text)
        node_id = self.cfg.get("node_id")
        if node_id is not None:
            try:  # show the post-run statistics on the node (frontend progress text); harmless headless
                from server import PromptServer

                PromptServer.instance.send_progress_text(text, node_id)
            except Exception:
                pass
        return error


# ============================================================================ block hook
class _BlockHook:
    """One `patches_replace["dit"][key]` entry for one run; chains to the entry it replaced."""

    __slots__ = ("run", "index", "last", "prev")

    def __init__(self, run: _Run, index: int, last: bool, prev):
        self.run, self.index, self.last, self.prev = run, index, last, prev

    def _original(self, args, extra):
        if self.prev is not None:
            return self.prev(args, extra)
        return extra["original_block"](args)

    def __call__(self, args, extra):
        run = self.run
        call = run.call
        if call is None:
            return self._original(args, extra)
        if self.index == 0:
            if run.decide(args):
                return run.skip_output(args)
        elif not call.decided:
            return self._original(args, extra)
        elif call.skip:
            return run.adapter.skipped(self.index, args)
        out = self._original(args, extra)
        if self.last and call.record:
            run.store(out)
        return out


# ============================================================================ wrappers
def _outer_sample_wrapper(executor, *args, **kwargs):
    guider = executor.class_obj
    orig = guider.model_options
    cfg = (orig.get("transformer_options") or {}).get(KEY)
    if not cfg:
        return executor(*args, **kwargs)
    import comfy.model_patcher

    guider.model_options = comfy.model_patcher.create_model_options_clone(orig)
    sigmas = args[3] if len(args) > 3 else kwargs.get("sigmas")
    run = _Run(cfg, guider.model_patcher, sigmas)
    to = guider.model_options.setdefault("transformer_options", {})
    to[RUN_KEY] = run
    dm = guider.model_patcher.get_model_object("diffusion_model")
    dit = dict((to.setdefault("patches_replace", {})).get("dit", {}))
    keys = run.adapter.keys(dm)
    for i, k in enumerate(keys):
        dit[k] = _BlockHook(run, i, i == len(keys) - 1, dit.get(k))
    to["patches_replace"] = dict(to["patches_replace"])
    to["patches_replace"]["dit"] = dit
    if "easycache" in to:
        log.warn_once(("stepcache-easycache", cfg["id"]), "%s and EasyCache/LazyCache are both on this model: "
                      "use one step cache", cfg.get("node"))
    try:
        try:
            out = executor(*args, **kwargs)
        except BaseException:
            run.finish(completed=False)  # interrupted or failed: record stats, write nothing
            raise
        error = run.finish(completed=True)
        if error is not None:
            raise error
        return out
    finally:
        guider.model_options = orig


def _calc_cond_batch_wrapper(executor, *args, **kwargs):
    model_options = args[-1] if args and isinstance(args[-1], dict) else kwargs.get("model_options", {})
    run = (model_options.get("transformer_options") or {}).get(RUN_KEY)
    if run is None:
        return executor(*args, **kwargs)
    run.begin_eval()
    try:
        return executor(*args, **kwargs)
    finally:
        run.end_eval()


def _diffusion_model_wrapper(executor, *args, **kwargs):
    to = _find_to(args, kwargs)
    run = to.get(RUN_KEY) if to else None
    if run is None or run.call is not None:  # not ours, or a nested forward: run normally
        return executor(*args, **kwargs)
    run.begin_call(executor.class_obj, args, kwargs, to)
    try:
        return executor(*args, **kwargs)
    finally:
        run.end_call()


# ============================================================================ public API (nodes call these)
def _attach(model, cfg: dict):
    import comfy.patcher_extension as pe

    m = model.clone()
    to = m.model_options.setdefault("transformer_options", {})
    replaced = to.get(KEY)
    to[KEY] = cfg
    for kind, fn in ((pe.WrappersMP.OUTER_SAMPLE, _outer_sample_wrapper),
                     (pe.WrappersMP.CALC_COND_BATCH, _calc_cond_batch_wrapper),
                     (pe.WrappersMP.DIFFUSION_MODEL, _diffusion_model_wrapper)):
        m.remove_wrappers_with_key(kind, WRAPPER_KEY)
        m.add_wrapper_with_key(kind, WRAPPER_KEY, fn)
    return m, replaced


def _new_id(node_id) -> str:
    return f"{node_id if node_id is not None else 'x'}/{uuid.uuid4().hex[:8]}"


RECOMMENDED = -1  # the sentinel of the threshold / K / start_percent inputs: "the set's recommended value"


def _is_recommended(v) -> bool:
    return abs(float(v) - RECOMMENDED) < 1e-6


def _check_inputs(node, start, end, thresh=None, K=None):
    """Node inputs, checked before anything runs: NaN or a negative value other than -1 is an error naming the
    input (ComfyUI's min/max check lets NaN and -0.5 through; they used to disable caching silently)."""
    for name, v in (("start_percent", start), ("end_percent", end)) + ((thresh,) if thresh else ()):
        if not math.isfinite(float(v)):
            raise AccelError(node, name, f"{v} is not a number", f"Set {name} to -1 (recommended) or a value >= 0")
    if start < 0 and not _is_recommended(start):
        raise AccelError(node, "start_percent", f"{start:g} is negative; the only value below 0 is -1, which means "
                         "the set's recommended start", "Set start_percent to -1 or to a value in 0..1")
    if start > 1 or not (0.0 <= end <= 1.0):
        raise AccelError(node, "start_percent" if start > 1 else "end_percent",
                         f"start {start:g} / end {end:g} must lie in 0..1 (start -1 = recommended)",
                         "Set start_percent between 0 and 1 (or -1) and end_percent between 0 and 1")
    if start >= 0 and start > end:
        raise AccelError(node, "start_percent", f"start_percent {start} is after end_percent {end}",
                         "Make start_percent smaller than end_percent")
    if thresh and thresh[1] < 0 and not _is_recommended(thresh[1]):
        raise AccelError(node, thresh[0], f"{thresh[1]:g} is negative; the only value below 0 is -1 (recommended)",
                         f"Set {thresh[0]} to -1 or to a value >= 0 (0 = never skip)")
    if K is not None and K < 0 and K != RECOMMENDED:
        raise AccelError(node, "magcache_K", f"{K} is negative; the only value below 0 is -1 (recommended)",
                         "Set magcache_K to -1 or to a value >= 0")


def effective_settings(kind: str, cfg: dict, entry: dict) -> dict:
    """What a run uses: the node's inputs, -1 replaced by the set's recommended value (or the default when the
    set recommends none). THE one place for both the run and the node's report. Values: thresh, start, end, K,
    and `src` {name: 'input' | 'recommended' | 'default'}."""
    rec = (entry or {}).get("recommended") or {}
    full = cc.recommended(kind, entry)
    keys = ({"thresh": "rel_l1_thresh", "start": "start_percent"} if kind == "teacache"
            else {"thresh": "magcache_thresh", "start": "retention_ratio", "K": "magcache_K"})
    out, src = {"end": float(cfg["end"]), "K": None}, {"end": "input"}
    for k, rk in keys.items():
        v = cfg.get(k, RECOMMENDED)
        if v is not None and not _is_recommended(v):
            out[k], src[k] = v, "input"
        else:
            out[k], src[k] = full[rk], ("recommended" if rk in rec else "default")
    out["thresh"], out["start"] = float(out["thresh"]), float(out["start"])
    if out["K"] is not None:
        out["K"] = int(out["K"])
    out["src"] = src
    return out


def empty_window_text(eff: dict) -> str:
    """A warning when the schedule window in which steps may be skipped is empty ('' when it is not)."""
    if eff["start"] < eff["end"]:
        return ""
    how = "the set's recommended " if eff["src"].get("start") != "input" else ""
    return (f"warning: nothing will be skipped: {how}start {eff['start']:.0%} is not before end_percent "
            f"{eff['end']:.0%}, so the window in which steps may be skipped is empty (raise end_percent or set "
            "start_percent explicitly)")


def load_set(node, kind, input_name, choice) -> dict:
    """A named set, validated, or an AccelError naming the input, the file and the key, and what to do."""
    try:
        return cc.resolve_named(kind, choice)
    except cc.SetError as e:
        raise AccelError(node, input_name, f"coefficient set {e}",
                         "Fix or delete that file (or run Accel Cache Calibrate again under a new name), or pick "
                         "another set") from None
    except FileNotFoundError:
        raise AccelError(node, input_name, f"coefficient set {cc.where_text(choice)} does not exist",
                         "Calibrate it with Accel Cache Calibrate, or pick another set") from None
    except KeyError:
        raise AccelError(node, input_name, f"unknown coefficient set '{choice}'",
                         f"Pick 'auto', a user:<name> set or one of: {cc.supported_text(kind)}") from None


def check_choice(node, kind, input_name, choice) -> str | None:
    """For a node's VALIDATE_INPUTS (before the prompt runs): the error text for a set choice, or None."""
    if not isinstance(choice, str) or choice == "auto":
        return None
    if not choice.startswith(cc.USER_PREFIX):
        e = cc.published(kind).get(choice)
        if e is None or not cc.adapter_for_set(e):
            return str(AccelError(node, input_name, f"'{choice}' is not a {kind} set this pack can use",
                                  f"Pick 'auto', a user:<name> set or one of: {cc.supported_text(kind)}"))
    try:
        load_set(node, kind, input_name, choice)
    except AccelError as e:
        return str(e)
    return None


def _resolve_set(node, kind, input_name, model, choice):
    """-> (adapter, family, entry or None (auto at run time), candidates, why)."""
    adapter, fam, reason = adapter_for_model(model)
    supported = cc.supported_text(kind)
    how = ("For other models or step counts (e.g. 4-8-step Lightning LoRAs), run the model once through "
           "'Accel Cache Calibrate' and pick the resulting user:<name> set")
    if adapter is None:
        raise AccelError(node, "model", f"{reason}. Published {kind} sets: {supported}", how)
    if choice == "auto":
        cands, why = cc.auto_candidates(kind, fam)
        if not cands:
            raise AccelError(node, input_name, f"{why}. Published {kind} sets: {supported}", how)
        bad = [n for n in cands if cc.resolve_named(kind, n).get("signal", DEFAULT_SIGNAL[adapter.name])
               not in adapter.signals] if kind == "teacache" else []
        if bad:
            raise AccelError(node, input_name, f"sets {bad} need a signal this pack cannot compute", how)
        return adapter, fam, None, cands, why
    entry = load_set(node, kind, input_name, choice)
    set_adapter = cc.adapter_for_set(entry)
    if set_adapter != adapter.name:
        raise AccelError(node, input_name, f"set '{choice}' was fitted on {entry.get('family')} "
                         f"{entry.get('variant', '')}, but the model is {fam.name}",
                         f"Use 'auto' or a set for this model family. Published {kind} sets: {supported}")
    if kind == "teacache":
        sig = entry.get("signal") or DEFAULT_SIGNAL[adapter.name]
        if sig not in adapter.signals:
            raise AccelError(node, input_name, f"set '{choice}' uses signal '{sig}', which this model does not provide",
                             how)
    why = "chosen explicitly"
    if fam.is_wan and (entry.get("variant"), entry.get("size")) != (fam.variant, fam.size):
        why += (f" (note: fitted on {entry.get('variant', '').upper()} {entry.get('size', '')}, the model is "
                f"{fam.variant.upper()} {fam.size})")
    return adapter, fam, entry, [choice], why


def _set_lines(kind, entry_or_names, why):
    if isinstance(entry_or_names, dict):
        e = entry_or_names
        return [f"  fitted on {e.get('fitted_on') or '?'}; source {cc.source_text(e)}"]
    lines = [f"  auto: {why}"]
    for n in entry_or_names:
        e = cc.resolve_named(kind, n)
        rec = e.get("recommended", {})
        recs = ", ".join(f"{k} {v:g}" for k, v in rec.items())
        lines.append(f"  - {n}: fitted on {e.get('fitted_on')}; recommended {recs}; source {cc.source_text(e)}")
    return lines


def _shown(eff, key, fmt="{:g}") -> str:
    """A run value for the report, with where it comes from (the value shown is the value used)."""
    src = eff["src"][key]
    return fmt.format(eff[key]) + {"input": "", "recommended": " (recommended for the set)",
                                   "default": " (default; the set recommends none)"}[src]


def _auto_note(entry, cands) -> str:
    return "" if entry or len(cands) < 2 else f" (values of {cands[0]}; the set chosen per run may recommend others)"


def _window_lines(node, cfg, eff) -> list:
    text = empty_window_text(eff)
    if not text:
        return []
    log.warning("%s: %s", node, text)
    return [text]


def _stats_lines(node_id, cfg_id=None):
    prev = _node_stats(node_id)
    lines = ["Statistics are measured during sampling, after this text is produced: each run logs a line "
             "'accel: <node> run N: computed X/Y ...' and sends it to the frontend as this node's progress "
             "text; this report shows the last run of this node when the node executes again (changed inputs)."]
    lines.append("Last run of this node: " + (prev.text() if prev else "none yet in this session"))
    return lines


def configure_teacache(model, rel_l1_thresh: float, start_percent: float, end_percent: float,
                       coefficients: str = "auto", cache_device: str = "GPU", node_id=None,
                       node: str = "Accel TeaCache"):
    """Clone `model` with TeaCache. rel_l1_thresh / start_percent -1 mean: the chosen set's recommended value."""
    _check_inputs(node, start_percent, end_percent, ("rel_l1_thresh", rel_l1_thresh))
    adapter, fam, entry, cands, why = _resolve_set(node, "teacache", "coefficients", model, coefficients)
    cfg = {"mode": "teacache", "id": _new_id(node_id), "node": node, "node_id": node_id, "adapter": adapter.name,
           "set": coefficients if entry else "auto", "entry": entry, "candidates": cands,
           "thresh": float(rel_l1_thresh), "start": float(start_percent), "end": float(end_percent),
           "K": -1, "cache_device": cache_device}
    m, replaced = _attach(model, cfg)
    lines = [f"{node} on {fam.name}"]
    lines.append(f"coefficients: {coefficients if entry else 'auto'}")
    lines += _set_lines("teacache", entry if entry else cands, why)
    e0 = entry or cc.resolve_named("teacache", cands[0])
    rec = e0.get("recommended", {})
    eff = effective_settings("teacache", cfg, e0)
    lines.append(f"rel_l1_thresh {_shown(eff, 'thresh')}; start {_shown(eff, 'start', '{:.0%}')}; "
                 f"end {end_percent:.0%}; residual cache on {cache_device}" + _auto_note(entry, cands))
    lines += _window_lines(node, cfg, eff)
    if eff["src"]["thresh"] == "input" and rec.get("rel_l1_thresh"):
        ratio = rel_l1_thresh / rec["rel_l1_thresh"]
        if rel_l1_thresh == 0:
            lines.append("threshold 0: nothing is skipped (output identical to no cache)")
        elif ratio > 2 or ratio < 0.25:
            lines.append(f"warning: threshold is {ratio:.1f}x the recommended {rec['rel_l1_thresh']:g}; thresholds "
                         "are specific to each coefficient set (their scales differ up to 10x)")
    sig = e0.get("signal") or DEFAULT_SIGNAL[adapter.name]
    lines.append(f"signal: {SIGNAL_TEXT.get(sig, sig)}; the first step of every run is computed"
                 + ("" if not e0.get("compute_last") else ", and the last (as the set's source, LightX2V, does)")
                 + "; a change beyond the polynomial's fitted range is computed, not skipped")
    if replaced:
        lines.append(f"replaced an earlier {replaced.get('node')} on this model")
    lines += _stats_lines(node_id)
    report = "\n".join(lines)
    log.info("%s: %s, coefficients %s", node, fam.name, cfg["set"] if entry else "auto " + "/".join(cands))
    return m, report


def configure_magcache(model, magcache_thresh: float, magcache_K: int, start_percent: float, end_percent: float,
                       ratios: str = "auto", cache_device: str = "GPU", node_id=None, node: str = "Accel MagCache"):
    """Clone `model` with MagCache. thresh / K / start -1 mean: the set's recommended value."""
    _check_inputs(node, start_percent, end_percent, ("magcache_thresh", magcache_thresh), int(magcache_K))
    adapter, fam, entry, cands, why = _resolve_set(node, "magcache", "ratios", model, ratios)
    cfg = {"mode": "magcache", "id": _new_id(node_id), "node": node, "node_id": node_id, "adapter": adapter.name,
           "set": ratios if entry else "auto", "entry": entry, "candidates": cands,
           "thresh": float(magcache_thresh), "start": float(start_percent), "end": float(end_percent),
           "K": int(magcache_K), "cache_device": cache_device}
    m, replaced = _attach(model, cfg)
    e0 = entry or cc.resolve_named("magcache", cands[0])
    lines = [f"{node} on {fam.name}", f"ratios: {ratios if entry else 'auto'}"]
    lines += _set_lines("magcache", entry if entry else cands, why)
    eff = effective_settings("magcache", cfg, e0)
    lines.append(f"magcache_thresh {_shown(eff, 'thresh')}; K {_shown(eff, 'K', '{}')}; "
                 f"start (retention) {_shown(eff, 'start', '{:.0%}')}; end {end_percent:.0%}; "
                 f"residual cache on {cache_device}" + _auto_note(entry, cands))
    lines += _window_lines(node, cfg, eff)
    rules = sched.mag_rules(e0)
    lines.append(f"one ratio per step: when the step count differs from the set's "
                 f"({len(e0['ratios']['cond'])}), the {rules['lookup']} table entry is used, as the set's source does"
                 + ("; Wan 2.2 A14B expert rule (" + rules["experts"].upper() + "): retention applies again after the "
                    "expert switch" + (" and the high-noise expert is never cached"
                                       if rules["experts"] == "i2v" else "") if rules["experts"] else "")
                 + (f"; table step(s) {rules['never_skip']} are never skipped" if rules["never_skip"] else "")
                 + "; the first step of every run is computed")
    if replaced:
        lines.append(f"replaced an earlier {replaced.get('node')} on this model")
    lines += _stats_lines(node_id)
    log.info("%s: %s, ratios %s", node, fam.name, cfg["set"] if entry else "auto " + "/".join(cands))
    return m, "\n".join(lines)


def name_error(node, name) -> AccelError | None:
    """The error for a calibration name that is not a file name as given (None = fine); the node's
    VALIDATE_INPUTS and configure_calibration both use it."""
    bad = cc.name_problem(name)
    if not bad:
        return None
    return AccelError(node, "name", f"the calibration name {bad}",
                      f"Use only {cc.NAME_RULE}, e.g. '{cc.safe_name(name if isinstance(name, str) else '')}'")


def configure_calibration(model, name: str, node_id=None, node: str = "Accel Cache Calibrate", overwrite: bool = False):
    """Clone `model` so that its sampling runs record TeaCache/MagCache calibration data (nothing skipped).

    Every completed run is added to the runs already in the file `name` (the file is the history: it survives
    restarts); an interrupted or failed run writes nothing. Refused before sampling: a name that is not a
    file name as given, a file that cannot be extended (damaged, not ours) or that holds another model's runs,
    unless `overwrite` (then the first completed run starts the file again; the old one is kept as a .bak)."""
    bad = name_error(node, name)
    if bad:
        raise bad
    adapter, fam, reason = adapter_for_model(model)
    if adapter is None:
        raise AccelError(node, "model", reason, "Calibration needs a model family the step cache supports: "
                         "Wan 2.1/2.2 (T2V, I2V, TI2V), Flux.1, HunyuanVideo, Qwen-Image")
    cfg = {"mode": "calibrate", "id": _new_id(node_id), "node": node, "node_id": node_id, "adapter": adapter.name,
           "set": cc.USER_PREFIX + name, "calib_name": name, "entry": {}, "candidates": [],
           "thresh": 0.0, "start": 0.0, "end": 1.0, "K": 0, "cache_device": "GPU", "overwrite": bool(overwrite),
           "fingerprint": model_fingerprint(model),
           "family": {"family": fam.family, "variant": fam.variant, "size": fam.size, "name": fam.name}}
    path = cc.user_file(name)
    if overwrite:
        try:
            n = _run_count(cc.read_user_file(path, str(path)))
            state = f"The file now holds {n} run(s): the first completed run replaces it"
        except FileNotFoundError:
            state = "There is no such file yet"
        except Exception:
            state = "The file now is damaged or not a calibration: the first completed run replaces it"
        state += " (overwrite is on; the old file is kept as a .bak copy next to it), later runs are added."
    else:
        old = _read_calibration(node, name, path)  # raises when the file cannot be extended
        if old is None:
            state = "There is no such file yet: the first completed run creates it."
        else:
            _check_same_model(node, name, path, old, cfg)
            state = (f"The file holds {_run_count(old)} run(s) of this model: each completed run is added to them "
                     "and the fits are redone over all runs.")
            if not old.get("fingerprint"):
                state += (" (It was written by an older version without a model fingerprint: make sure its runs "
                          "are of this model.)")
    m, _ = _attach(model, cfg)
    lines = [f"{node} on {fam.name}: every sampling run with this MODEL computes all steps and records, per step "
             f"and per cond/uncond, the rel-L1 change of the cache signal ({', '.join(adapter.signals)}) and of the "
             "transformer-block residual, and the residual magnitude ratio.",
             f"After each completed run the fits (TeaCache polynomial, MagCache ratios) over all runs are written to "
             f"{path}. An interrupted or failed run writes nothing. {state}",
             f"Then choose 'user:{name}' in Accel TeaCache (coefficients) or Accel MagCache (ratios). Calibrate with "
             "the sampler, scheduler and step count you will use; 2-3 prompts/seeds give a steadier fit."]
    lines += _stats_lines(node_id)
    return m, "\n".join(lines)
