"""One small policy per step-cache mode (`keys.MODES`): what a sampling run (`state.Run`) asks of its mode -- the set
and values it runs with, which steps it may skip, what one model call decides and records, what the run adds to its
statistics at the end -- so that the run itself holds no mode branches. `POLICIES[mode](run)` makes a run's policy;
it keeps the mode's own state for that run (TeaCache's polynomial, MagCache's tables, the calibration records)."""
from __future__ import annotations

import torch

from ..common import log
from ..common.errors import AccelError, titled
from . import any_model_rule as agn
from . import coefficients as cc
from . import schedule as sched
from .calibrate import DEFAULT_SIGNAL, write_calibration
from .keys import LOW_STEPS, MODES
from .settings import effective_settings, empty_window_text

_REFIT = ", or calibrate it on this step count with Accel Cache Calibrate and pick the user:<name> set"


def _branch(key) -> str:
    return "uncond" if key[0] == 1 else "cond"


class Policy:
    """What every mode shares; a mode overrides what it does differently."""

    skips = True  # False: the run records and never skips (calibration)
    unfinished = ""  # added to the note of a run that did not finish
    few_step_why = ("the set was fitted on many more steps", _REFIT)

    def __init__(self, run):
        self.run = run

    # ---------------------------------------------------------------- the run's values (first call)
    def resolve(self, x, named) -> None:
        """Set the run's entry, thresh / start / end / K and notes."""
        self.run.entry = {}

    def may_skip(self, step: int, total: int) -> bool:
        """Whether the start/end rule lets `step` be skipped (its accumulators decide whether it is)."""
        return True

    def calibrated_on(self, total: int) -> bool:
        """The run's set was calibrated on this step count (Accel Cache Calibrate): few-step caching stays on."""
        e = self.run.entry
        return bool(e.get("user_file")) and (e.get("expected") or {}).get("steps") == total

    def check_few_steps(self) -> None:
        """Distilled few-step schedules (LightX2V / Lightning 4- and 8-step LoRAs): every step is a large jump, and
        the published sets were fitted on 40-50 steps, so a skipped step reuses a residual that no longer fits and
        ruins the result. At <= LOW_STEPS steps nothing is skipped, and the report says why, unless the set was
        calibrated on this very step count (Accel Cache Calibrate with the distilled model)."""
        run = self.run
        total = run.total or run.steps
        if not total or total > LOW_STEPS:
            return
        if self.calibrated_on(total):
            run.stats.notes.append(f"{total}-step schedule: the set was calibrated on {total} steps, so caching "
                                   "stays on")
            return
        run.few_step = True
        why, how = self.few_step_why
        text = (f"{total}-step schedule (a distilled few-step model, e.g. a LightX2V/Lightning 4- or 8-step LoRA?): "
                f"caching cannot help at {LOW_STEPS} steps or fewer (each step is a large jump; {why}), so every "
                f"step was computed. Remove the cache node for this model{how}")
        run.stats.notes.append(text)
        log.warn_once(("stepcache-fewsteps", run.cfg["id"]), "%s: %s", run.cfg.get("title"), text)

    # ---------------------------------------------------------------- one model call
    def decide(self, args, call, img, chunks, per) -> list:
        """Per chunk of the call: may it skip?"""
        return [False] * len(chunks)

    def skipped(self, call) -> None:
        """The call was skipped."""

    def recorded(self, call, img_out) -> bool:
        """After the last block: True when the mode took the blocks' output itself (nothing is cached)."""
        return False

    def stored(self, call, res, per) -> None:
        """After a computed call's residual was cached."""

    # ---------------------------------------------------------------- end of run
    def finish(self, completed: bool) -> AccelError | None:
        """Notes of a finished (or interrupted) run; an AccelError to raise, or None."""
        return None


class _Published(Policy):
    """A mode that skips with a coefficient set (published or calibrated) and the node's values."""

    kind = ""  # the coefficient-set kind (accel.cache.coefficients)

    def resolve(self, x, named):
        run, cfg = self.run, self.run.cfg
        if cfg.get("entry") is not None:
            run.entry = cfg["entry"]
        else:
            ref = named.get("ref_latents")
            t = named.get("timestep")
            name = cc.pick_auto(cfg["candidates"], latent_hw=int(x.shape[-1] * x.shape[-2]),
                                has_ref=ref is not None and len(ref) > 0, steps=run.total,
                                per_token_t=bool(t is not None and t.ndim >= 2 and t.shape[-1] > 1),
                                has_image=named.get("clip_fea") is not None)
            run.set_name = name
            run.entry = cc.resolve_named(self.kind, name)
        run.stats.set_name = run.set_name
        eff = effective_settings(self.kind, cfg, run.entry)
        self.check_few_steps()
        run.thresh, run.start, run.end, run.K = eff["thresh"], eff["start"], eff["end"], eff["K"]
        self.prepare()
        run.stats.notes.insert(0, f"set {run.set_name}: {self.values_text()}, start {run.start:.0%}, "
                                  f"end {run.end:.0%}")
        empty = empty_window_text(eff, run.window_steps())
        if empty:
            run.stats.notes.append(empty)
            log.warn_once(("stepcache-empty", cfg["id"], run.set_name), "%s: %s", cfg.get("title"), empty)

    def prepare(self) -> None:
        """The mode's own values from the resolved set."""

    def values_text(self) -> str:
        return ""


class TeaCache(_Published):
    """The input change of a signal, mapped by the set's polynomial, accumulated per chunk (schedule.tea_update)."""

    kind = "teacache"

    def prepare(self):
        e = self.run.entry
        self.coeffs = [float(c) for c in e["coefficients"]]
        self.signal_name = e.get("signal") or DEFAULT_SIGNAL[self.run.adapter.name]
        self.compute_last = bool(e.get("compute_last"))

    def values_text(self):
        return f"rel_l1_thresh {self.run.thresh:g}"

    def may_skip(self, step, total):
        run = self.run
        return sched.tea_enabled(step, total, run.start, run.end, self.compute_last)

    def decide(self, args, call, img, chunks, per):
        run = self.run
        sig = run.adapter.signal(self.signal_name, call.dm, args, call).float()
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
        enabled = self.may_skip(call.step, run.total)
        wants, trace = [], {}
        for i, (key, st) in enumerate(zip(call.keys, chunks, strict=True)):
            if rels[i] is None:  # no previous input: compute (the accumulator starts at 0)
                wants.append(False)
                continue
            x = next(vals)
            trace[_branch(key)] = x
            # outside start/end (or on a last step the set computes) the accumulator resets, as the reference
            st.acc, w = sched.tea_update(st.acc, x, self.coeffs, run.thresh, enabled)
            wants.append(w)
        run.stats.trace.append((call.step, trace))
        return wants


class MagCache(_Published):
    """The set's magnitude ratios, one table entry per step, accumulated per chunk (schedule.mag_update)."""

    kind = "magcache"

    def prepare(self):
        run = self.run
        self.rules = sched.mag_rules(run.entry)
        self.tables = {b: [float(v) for v in r] for b, r in run.entry["ratios"].items()}
        self.starts = {}  # branch -> accumulators at this run's first step (see sched.mag_walk)
        for b in ("cond", "uncond"):
            st = [1.0, 0, 0.0]
            for _ in sched.mag_walk(run.entry, run.total, self.values(), b, run.offset, run.split, st):
                pass
            self.starts[b] = st

    def values(self):
        run = self.run
        return sched.MagValues(run.thresh, run.K, run.start, run.end)

    def values_text(self):
        return f"magcache_thresh {self.run.thresh:g}, K {self.run.K}"

    def may_skip(self, step, total):
        run = self.run
        return any(sched.mag_enabled(step, total, run.start, run.end, b, self.rules["experts"], run.split)
                   for b in (0, 1))

    def calibrated_on(self, total):
        e = self.run.entry
        return super().calibrated_on(total) or bool(e.get("user_file")) and len(e["ratios"]["cond"]) == total

    def decide(self, args, call, img, chunks, per):
        """One table entry per step; accumulators only touched on enabled steps."""
        run = self.run
        wants = []
        for key, st in zip(call.keys, chunks, strict=True):
            branch = _branch(key)
            if st.mag is None:
                st.mag = list(self.starts[branch])
            table = self.tables.get(branch) or self.tables["cond"]
            t = sched.mag_table_index(call.step, run.total, len(table), self.rules["lookup"])
            ok = sched.mag_enabled(call.step, run.total, run.start, run.end, int(branch == "uncond"),
                                   self.rules["experts"], run.split) and t not in self.rules["never_skip"]
            wants.append(sched.mag_update(st.mag, table[t], run.thresh, run.K, self.rules["inclusive"])
                         if ok else False)
        run.stats.trace.append((call.step, {}))
        return wants


class AnyModel(Policy):
    """Accel Cache (any model): the measured input change x the measured rate (accel/cache/any_model_rule.py)."""

    few_step_why = ("the change rate needs two computed steps, so little would be left to skip", "")

    def resolve(self, x, named):
        run, cfg = self.run, self.run.cfg
        run.entry = {}  # no set: the node's inputs are the run's values
        run.thresh, run.start, run.end = cfg["thresh"], cfg["start"], cfg["end"]
        self.check_few_steps()
        run.stats.notes.insert(0, f"threshold {run.thresh:g}, start {run.start:.0%}, end {run.end:.0%}")

    def decide(self, args, call, img, chunks, per):
        return agn.decide(self.run, call, img, chunks, per)

    def skipped(self, call):
        agn.skipped(self.run, call)

    def stored(self, call, res, per):
        if call.agn is not None:
            agn.store(self.run, call, res, per)

    def finish(self, completed):
        self.run.stats.notes += agn.summary(self.run)
        return None


class Calibrate(Policy):
    """Accel Cache Calibrate: records, per call and chunk, every signal's change and the residual's; never skips."""

    skips = False
    unfinished = ": nothing written, the calibration file is unchanged"

    def __init__(self, run):
        super().__init__(run)
        run.stats.recording = True

    def decide(self, args, call, img, chunks, per):
        run = self.run
        sigs = {}
        for name in run.adapter.signals:
            try:
                sigs[name] = run.adapter.signal(name, call.dm, args, call).float()
            except Exception as e:  # a signal this model variant cannot give
                log.warn_once(("stepcache-calsig", name), "calibration: signal %s unavailable (%s)", name, e)
        call_rec = {"p": call.p, "sigma": call.sigma, "step": call.step, "chunks": []}
        for i, (key, st) in enumerate(zip(call.keys, chunks, strict=True)):
            rec = {"branch": _branch(key), "signal": {}}
            for name, s in sigs.items():
                s = s[i * per:(i + 1) * per]
                prev = st.cal_prev_signal.get(name)
                if prev is not None and prev.shape == s.shape:
                    rec["signal"][name] = float((s - prev).abs().mean() / prev.abs().mean().clamp_min(1e-12))
                st.cal_prev_signal[name] = s.detach()
            call_rec["chunks"].append(rec)
        run.records.append(call_rec)
        return [False] * len(chunks)

    def recorded(self, call, img_out):
        run = self.run
        res = (img_out - call.x_in).float()
        per = res.shape[0] // len(call.keys)
        rec = run.records[-1]
        for i, k in enumerate(call.keys):
            r = res[i * per:(i + 1) * per]
            st = run.chunk(k)
            prev = st.cal_prev_residual
            c = rec["chunks"][i]
            if prev is not None and prev.shape == r.shape:
                c["residual_rel_l1"] = float((r - prev).abs().mean() / prev.abs().mean().clamp_min(1e-12))
                c["mag_ratio"] = float((r.norm(dim=-1) / prev.norm(dim=-1).clamp_min(1e-12)).mean())
                c["cos_dist"] = float(1 - torch.nn.functional.cosine_similarity(r.flatten(1), prev.flatten(1)).mean())
            st.cal_prev_residual = r.detach()
        return True

    def finish(self, completed):
        """A completed run is written to its calibration file; an AccelError when it could not be."""
        if not completed:
            return None
        run = self.run
        error = None
        try:
            with titled(run.cfg.get("title")):  # after the node ran: its errors name it
                path, summary = write_calibration(run)
            run.stats.notes.append(summary)
            run.stats.notes.append(f"written to {path}")
        except AccelError as e:
            error = e
        except Exception as e:  # disk full, permissions, ...: the file on disk is untouched (atomic write)
            error = AccelError("name", f"calibration not written ({type(e).__name__}: {e}); the file on disk is "
                               "unchanged", "Check the folder's free space and permissions, then run again",
                               title=run.cfg.get("title"))
        if error is not None:
            run.stats.notes.append(f"calibration not written: {error}")
            log.warning("%s", error)
        return error


POLICIES = {"teacache": TeaCache, "magcache": MagCache, "any_model": AnyModel, "calibrate": Calibrate}
assert set(POLICIES) == set(MODES)
