"""The state of one sampling run of a step-cached model (`Run`): per cond/uncond chunk accumulators and residual
caches, the skip decision and statistics. What differs between the cache modes is the run's policy
(accel/cache/policy.py)."""
from __future__ import annotations

import inspect
import time

import torch

from ..common import log
from . import schedule as sched
from .adapters import ADAPTERS
from .policy import POLICIES
from .report import RunStats, record_run


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
        self.agn = None  # any_model mode: agnostic.ChunkState


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
    return None if t.is_inference() else t._version  # Tensor._version: private, in every torch we support


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


def find_to(args, kwargs):
    for a in reversed(args):
        if isinstance(a, dict) and "cond_or_uncond" in a:
            return a
    to = kwargs.get("transformer_options")
    return to if isinstance(to, dict) else None


class Run:
    def __init__(self, cfg: dict, patcher, sigmas):
        self.cfg = cfg
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
        self.stats = RunStats(cfg["mode"], self.set_name, cfg.get("title") or "step cache")
        self.t0 = time.perf_counter()
        self.records = []  # calibration: per call
        self.clone_input = self.adapter.inplace_blocks
        self.few_step = False  # a distilled few-step schedule: decided once the set is known (the policy's resolve)
        self.policy = POLICIES[cfg["mode"]](self)

    # ---------------------------------------------------------------- schedule
    def percent(self, sigma: float) -> float:
        p = self._pcache.get(sigma)
        if p is None:
            p = self._pcache[sigma] = sched.sigma_percent(sigma, self.ms.percent_to_sigma)
        return p

    # ---------------------------------------------------------------- the steps the run may skip
    def window_steps(self) -> list:
        """The steps of this run that the runtime's start/end rule lets be skipped (the run's first step never is:
        there is no cached residual yet)."""
        total = self.total or self.steps
        return [g for g in range(self.offset + 1, self.offset + self.steps) if self.policy.may_skip(g, total)]

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
            self.policy.resolve(x, named)
        call.timestep = named.get("timestep", args[1] if len(args) > 1 else None)
        cou = list(to.get("cond_or_uncond") or [0])
        uuids = list(to.get("uuids") or [None] * len(cou))
        if len(uuids) != len(cou):
            uuids = [None] * len(cou)
        call.keys = list(zip(cou, uuids, strict=True))
        sig = to.get("sigmas")
        call.sigma = float(sig.flatten()[0]) if isinstance(sig, torch.Tensor) else float(sig or 0.0)
        call.p = self.percent(call.sigma)
        call.step = self.offset + sched.step_index(call.sigma, self.sigmas) if self.sigmas else 0
        if self.policy.skips:
            if self.adapter.control_outside and named.get("control") is not None:
                call.blocker = "a ControlNet adds to block outputs outside the blocks"
            elif (to.get("patches") or {}).get("double_block"):
                call.blocker = "post-block patches (transformer_options['patches']['double_block']) are present"
            elif to.get("multigpu_thread_device") is not None:
                call.blocker = "multi-GPU clones"
            if call.blocker:
                call.force = "blocked"
                if log.warn_once(("stepcache-blocked", self.cfg["id"], call.blocker),
                                 "%s: %s, so every step is computed (no caching)", self.cfg.get("title"), call.blocker):
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
                             "replaced the forward?); this step cache had no effect", self.cfg.get("title")):
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
        wants = self.policy.decide(args, call, img, chunks, per)
        per_shape = (per,) + tuple(img.shape[1:])
        have = all(st.residual is not None and tuple(st.residual.shape) == per_shape for st in chunks)
        skip = call.force is None and have and all(wants)
        if skip:
            call.skip = True
            self.policy.skipped(call)
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
    def store(self, out: dict, args=None):
        call = self.call
        img_out = self.adapter.img_out(out, call, args)
        if self.policy.recorded(call, img_out):
            return
        x_in = call.x_in
        if x_in is None or _version(x_in) != call.x_version or img_out.shape != x_in.shape:
            if x_in is not None and _version(x_in) != call.x_version:
                self.clone_input = True  # from the next step on, keep a copy of the block input
            if log.warn_once(("stepcache-inplace", self.cfg["id"]),
                             "%s: the block input was modified in place or changed shape; residual not cached "
                             "for this step (the input is copied from now on)", self.cfg.get("title")):
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
        self.policy.stored(call, res, per)

    # ---------------------------------------------------------------- end of run
    def finish(self, completed: bool):
        """End of a sampling run. `completed` = the sampler returned normally; an interrupted or failed run
        writes no calibration (its partial records would damage the fit) and says so. Returns an AccelError
        to raise when a completed calibration run could not be written (None otherwise)."""
        self.stats.seconds = time.perf_counter() - self.t0
        self.stats.steps = self.steps
        if not completed:
            self.stats.notes.append(f"the run did not finish (interrupted or failed) after {self.stats.evaluations} "
                                    "model evaluations" + self.policy.unfinished)
        error = self.policy.finish(completed)
        record_run(self.cfg["id"], self.cfg.get("node_id"), self.stats)
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
