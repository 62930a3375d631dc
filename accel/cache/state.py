"""The state of one sampling run of a step-cached model (`Run`): per cond/uncond chunk accumulators and residual
caches, the skip decision, calibration recording, statistics."""
from __future__ import annotations

import inspect
import time

import torch

from . import coefficients as cc
from ..common import log
from ..common.errors import AccelError, titled
from . import any_model_rule as agn
from . import schedule as sched
from .adapters import ADAPTERS
from .calibrate import DEFAULT_SIGNAL, write_calibration
from .keys import LOW_STEPS
from .report import RunStats, record_run
from .settings import effective_settings, empty_window_text


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
        self.stats = RunStats(self.mode, self.set_name, cfg.get("title") or "step cache")
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
        if self.mode == "any_model":  # no set: the node's inputs are the run's values
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
                                per_token_t=bool(t is not None and t.ndim >= 2 and t.shape[-1] > 1),
                                has_image=named.get("clip_fea") is not None)
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
        empty = empty_window_text(eff, self._window_steps())
        if empty:
            self.stats.notes.append(empty)
            log.warn_once(("stepcache-empty", cfg["id"], self.set_name), "%s: %s", cfg.get("title"), empty)

    def _window_steps(self) -> list:
        """The steps of this run that the runtime's start/end rule lets be skipped (the run's first step never is:
        there is no cached residual yet)."""
        total = self.total or self.steps
        run = range(self.offset + 1, self.offset + self.steps)
        if self.mode == "teacache":
            return [g for g in run if sched.tea_enabled(g, total, self.start, self.end, self.compute_last)]
        return [g for g in run if any(sched.mag_enabled(g, total, self.start, self.end, b, self.rules["experts"],
                                                        self.split) for b in (0, 1))]

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
                     "Calibrate and pick the user:<name> set") if self.mode != "any_model" else
                    ("the change rate needs two computed steps, so little would be left to skip", ""))
        text = (f"{total}-step schedule (a distilled few-step model, e.g. a LightX2V/Lightning 4- or 8-step LoRA?): "
                f"caching cannot help at {LOW_STEPS} steps or fewer (each step is a large jump; {why}), so every "
                f"step was computed. Remove the cache node for this model{how}")
        self.stats.notes.append(text)
        log.warn_once(("stepcache-fewsteps", self.cfg["id"]), "%s: %s", self.cfg.get("title"), text)

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
                # outside start/end (or on a last step the set computes) the accumulator resets, as the reference
                st.acc, w = sched.tea_update(st.acc, x, self.coeffs, self.thresh, enabled)
                wants.append(w)
            self.stats.trace.append((call.step, trace))
        elif self.mode == "any_model":  # measured input change x measured rate (accel/cache/any_model_rule.py)
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
                wants.append(sched.mag_update(st.mag, table[t], self.thresh, self.K, self.rules["inclusive"])
                             if ok else False)
            self.stats.trace.append((call.step, {}))
        per_shape = (per,) + tuple(img.shape[1:])
        have = all(st.residual is not None and tuple(st.residual.shape) == per_shape for st in chunks)
        skip = call.force is None and have and all(wants)
        if skip:
            call.skip = True
            if self.mode == "any_model":
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
    def store(self, out: dict, args=None):
        call = self.call
        img_out = self.adapter.img_out(out, call, args)
        if self.mode == "calibrate":
            self._calib_residual(img_out, call)
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
        if self.mode == "any_model" and call.agn is not None:
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
        if self.mode == "any_model":
            self.stats.notes += agn.summary(self)
        if completed and self.mode == "calibrate":
            try:
                with titled(self.cfg.get("title")):  # after the node ran: its errors name it
                    path, summary = write_calibration(self)
                self.stats.notes.append(summary)
                self.stats.notes.append(f"written to {path}")
            except AccelError as e:
                error = e
            except Exception as e:  # disk full, permissions, ...: the file on disk is untouched (atomic write)
                error = AccelError("name",
                                   f"calibration not written ({type(e).__name__}: {e}); the file on disk is unchanged",
                                   "Check the folder's free space and permissions, then run again",
                                   title=self.cfg.get("title"))
            if error is not None:
                self.stats.notes.append(f"calibration not written: {error}")
                log.warning("%s", error)
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
