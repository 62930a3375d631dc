"""Accel Cache Calibrate's side of the step caches: the calibration file (history of recorded runs, validated,
written atomically, refused when it holds another model's runs), the fits (TeaCache polynomial, MagCache per-step
ratios) and the recommended values, chosen by simulating the runtime's own skip rules
(`accel/cache/schedule.py`) on the recorded runs. The recording itself happens in `accel/cache/state.py`.
"""
from __future__ import annotations

import threading
import time

import torch

from ..common.errors import AccelError
from . import coefficients as cc
from . import schedule as sched

# A run's records are a few KB (about 6 KB for 4 steps, more for long schedules) and every run adds to the file: it
# keeps the records of the newest KEPT_RUNS runs (the "runs" count still counts all), and the fits are redone over
# those. The fits settle within a few runs of one schedule (TeaCache: 2 x steps points per run for a degree-4
# polynomial; MagCache: a per-step mean), so older records add nothing a newer run does not.
KEPT_RUNS = 24
_FRESH: set = set()  # calibration config ids (overwrite on) whose first completed run already started the file again
_LOCK = threading.Lock()
DEFAULT_SIGNAL = {"wan": "e0", "flux": "modulated", "hunyuan_video": "modulated", "qwen_image": "temb"}


def model_fingerprint(model) -> str:
    """A short hash of what a calibration depends on besides the schedule: the diffusion model's class, parameter
    names and shapes, a sample of its weights, and its weight patches (LoRAs: keys, strengths, a sample of their
    tensors). '' when it cannot be computed. Reads a few hundred numbers: cheap."""
    import hashlib

    h = hashlib.sha1()

    def sample(t, n):
        try:
            h.update(f"{tuple(t.shape)}".encode())
            h.update(t.detach().reshape(-1)[:n].to("cpu", torch.float32).numpy().tobytes())
        except Exception:
            h.update(b"?")

    def tensors(obj, depth=0):
        if torch.is_tensor(obj):
            yield obj
        elif depth < 3 and isinstance(obj, (tuple, list)):
            for o in obj:
                yield from tensors(o, depth + 1)
        elif depth < 3 and hasattr(obj, "weights"):
            yield from tensors(obj.weights, depth + 1)
    try:
        dm = model.get_model_object("diffusion_model")
        h.update(type(dm).__name__.encode())
        params = list(dm.named_parameters())
        for n, t in params:
            h.update(f"{n}{tuple(t.shape)};".encode())
        for _, t in params[::max(1, len(params) // 16)]:
            sample(t, 64)
        patches = getattr(model, "patches", None) or {}
        for k in sorted(patches):
            for e in patches[k]:
                h.update(f"{k}:{e[0]!r}:{e[2] if len(e) > 2 else ''!r}:{type(e[1]).__name__};".encode())
                for t in list(tensors(e[1]))[:2]:
                    sample(t, 16)
    except Exception:
        return ""
    return h.hexdigest()[:16]


def run_count(data: dict) -> int:
    samples = data.get("samples") or []
    runs = data.get("runs", 0)
    runs = runs if isinstance(runs, int) and not isinstance(runs, bool) and runs > 0 else 0
    return max(runs, len(samples) if isinstance(samples, list) else 0)


def _check_samples(samples, where):
    """The recorded runs of a calibration file (what the fits are redone from): a damaged one is refused, not fitted."""
    if not isinstance(samples, list):
        raise cc.SetError(where, "samples", f"must be a list of runs, not {type(samples).__name__}")
    for i, smp in enumerate(samples):
        key = f"samples[{i}]"
        if not isinstance(smp, dict) or not isinstance(smp.get("records"), list):
            raise cc.SetError(where, key, "must be an object with a 'records' list")
        for j, rec in enumerate(smp["records"]):
            rk = f"{key}.records[{j}]"
            if not isinstance(rec, dict) or not isinstance(rec.get("chunks"), list):
                raise cc.SetError(where, rk, "must be an object with 'p' and a 'chunks' list")
            cc._number(where, f"{rk}.p", rec.get("p"), 0.0, 1.0)
            if "step" in rec:
                cc._number(where, f"{rk}.step", rec["step"], 0, 100000, integer=True)
            for c, ch in enumerate(rec["chunks"]):
                ck = f"{rk}.chunks[{c}]"
                if not isinstance(ch, dict) or ch.get("branch") not in cc.MAG_BRANCHES \
                        or not isinstance(ch.get("signal", {}), dict):
                    raise cc.SetError(where, ck, "must be an object with 'branch' cond/uncond and a 'signal' object")
                for name, v in ch.get("signal", {}).items():
                    cc._number(where, f"{ck}.signal.{name}", v)
                for name in ("residual_rel_l1", "mag_ratio", "cos_dist"):
                    if name in ch:
                        cc._number(where, f"{ck}.{name}", ch[name])


def _overwrite_remedy(path) -> str:
    return (f"Use another name, or set 'overwrite' to true to start {path.name} again (the old file is kept as a "
            ".bak copy next to it)")


def read_calibration(name, path):
    """The calibration file as it is on disk, checked so that runs can be added to it; None when there is none.
    AccelError naming the file and the key when it cannot be extended."""
    where = cc.where_text(name)
    try:
        data = cc.read_user_file(path, where)
        _check_samples(data.get("samples", []), where)
    except FileNotFoundError:
        return None
    except cc.SetError as e:
        raise AccelError("name", f"cannot add runs to {e}", _overwrite_remedy(path)) from None
    return data


def check_same_model(name, path, data, cfg):
    """Refuse to merge two models' runs into one file (same family and size, same fingerprint when recorded)."""
    fam = cfg["family"]
    theirs = (data.get("family", ""), data.get("variant", ""), data.get("size", ""))
    problem = None
    if theirs != (fam["family"], fam["variant"], fam["size"]):
        problem = (f"holds {run_count(data)} run(s) of {data.get('model') or '/'.join(theirs)}, but this model is "
                   f"{fam['name']}")
    elif data.get("fingerprint") and cfg.get("fingerprint") and data["fingerprint"] != cfg["fingerprint"]:
        problem = (f"holds {run_count(data)} run(s) of another {fam['name']} model (different weights or LoRAs: "
                   f"fingerprint {data['fingerprint']}, this model {cfg['fingerprint']})")
    if problem:
        raise AccelError("name", f"{cc.where_text(name)} {problem}; runs of two models must not be fitted "
                         "together", _overwrite_remedy(path))


# ============================================================================ calibration fit + file
def _polyfit(xs, ys, degree):
    import numpy as np

    x = np.asarray(xs, dtype=np.float64)
    y = np.asarray(ys, dtype=np.float64)
    deg = max(1, min(degree, len(set(np.round(x, 12).tolist())) - 1))
    c = np.polyfit(x, y, deg)
    pred = np.polyval(c, x)
    nrmse = float(np.sqrt(np.mean((pred - y) ** 2)) / max(np.mean(np.abs(y)), 1e-12))
    return [float(v) for v in c], deg, nrmse


def _per_step(records) -> list:
    """The records of a run, one per step (the first model call of each step: a 2nd-order sampler calls twice).
    Files written before records had a 'step' count one call per step."""
    out, seen = [], set()
    for j, rec in enumerate(records):
        k = rec.get("step", j)
        if k not in seen:
            seen.add(k)
            out.append(rec)
    return out


def _joint(patterns) -> str:
    """A call is skipped only when every chunk may skip (what the runtime does with a batched cond/uncond)."""
    patterns = [p for p in patterns if p]
    if not patterns:
        return ""
    n = min(len(p) for p in patterns)
    return "".join("." if all(p[j] == "." for p in patterns) else "#" for j in range(n))


def _tea_patterns(samples, sig, coeffs, thresh) -> list:
    """Per recorded run: the skip pattern the runtime's TeaCache rule gives on that run's signal changes."""
    out = []
    for r in samples:
        recs = _per_step(r["records"])
        per_branch = {}
        for call in recs:
            for c in call["chunks"]:
                per_branch.setdefault(c["branch"], []).append(c["signal"].get(sig))
        for xs in per_branch.values():
            if xs:
                xs[0] = None  # the first step has no previous input
        out.append(_joint([sched.simulate_tea(xs, coeffs, thresh) for xs in per_branch.values()]))
    return out


def _fraction(patterns) -> float:
    n = sum(len(p) for p in patterns)
    return sum(p.count(".") for p in patterns) / n if n else 0.0


def _fit(samples, adapter) -> tuple[dict, list]:
    """TeaCache polynomial and MagCache ratios over recorded runs -> ({kind: section}, summary lines). The
    recommended thresholds, and the skip pattern they give on the last recorded run ('expected'), come from the
    runtime's own rules (accel/cache/schedule.py), so that the runtime skips what the file promises."""
    out, summary = {}, []
    # --- TeaCache fit: x = rel-L1 change of the signal, y = rel-L1 change of the block residual
    fits = {}
    for sig in adapter.signals:
        xs, ys = [], []
        for r in samples:
            for call in _per_step(r["records"]):
                for c in call["chunks"]:
                    x = c["signal"].get(sig)
                    if x is not None and "residual_rel_l1" in c:
                        xs.append(x)
                        ys.append(c["residual_rel_l1"])
        if len(xs) >= 2:
            coeffs, deg, nrmse = _polyfit(xs, ys, 4)
            fits[sig] = {"coefficients": coeffs, "degree": deg, "fit_nrmse": nrmse, "points": len(xs)}
    if fits:
        best = min(fits, key=lambda s: (fits[s]["fit_nrmse"], s != DEFAULT_SIGNAL[adapter.name]))
        f = fits[best]
        grid = [round(0.01 * k, 2) for k in range(1, 301)]
        rec = next((t for t in grid if _fraction(_tea_patterns(samples, best, f["coefficients"], t)) >= 0.3),
                   grid[-1])
        pattern = _tea_patterns(samples[-1:], best, f["coefficients"], rec)[0]
        out["teacache"] = {"signal": best, "coefficients": f["coefficients"], "degree": f["degree"],
                           "fit_nrmse": f["fit_nrmse"], "points": f["points"],
                           "recommended": {"rel_l1_thresh": rec, "start_percent": 0.0, "end_percent": 1.0},
                           "recommended_note": "smallest threshold that skips about 30% of the calibrated steps; "
                                               "quality not measured: compare outputs",
                           "expected": {"steps": len(pattern), "pattern": pattern},
                           "alternatives": {s: fits[s] for s in fits if s != best}}
        summary.append(f"TeaCache fit: signal {best}, degree {f['degree']}, {f['points']} points, "
                       f"normalized RMSE {f['fit_nrmse']:.2f}; suggested rel_l1_thresh {rec:g} "
                       f"(on the last run: {pattern}, # computed . skipped)")
    # --- MagCache ratios: one per step, mean over the runs with the step count most runs used (ties: the
    # latest), so that one run with another step count does not replace the ratios of several
    groups: dict = {}
    for i, r in enumerate(samples):
        groups.setdefault(len(_per_step(r["records"])), []).append(i)
    n = max(groups, key=lambda k: (len(groups[k]), groups[k][-1])) if groups else 0
    same = [_per_step(samples[i]["records"]) for i in groups.get(n, [])]
    mag = {"progress": [round(k / n, 6) for k in range(n)] if n else []}
    for branch in cc.MAG_BRANCHES:
        series = []
        for recs_ in same:
            vals = []
            for call in recs_:
                v = [c.get("mag_ratio") for c in call["chunks"] if c["branch"] == branch]
                vals.append(v[0] if v else None)
            if any(v is not None for v in vals):
                series.append(vals)
        if series:
            mean = []
            for j in range(n):
                vs = [s[j] for s in series if s[j] is not None]
                mean.append(round(sum(vs) / len(vs), 5) if vs else 1.0)
            mean[0] = 1.0
            mag[branch] = mean
    if "cond" in mag and n >= 2:
        sec = {"ratios": {b: mag[b] for b in cc.MAG_BRANCHES if b in mag}, "progress": mag["progress"]}

        def pattern(t):
            return _joint([sched.simulate_mag(sec, n, (t, 2, 0.2), branch=b) for b in sec["ratios"]])
        thr = next((t for t in [round(0.01 * k, 2) for k in range(1, 61)] if _fraction([pattern(t)]) >= 0.3), 0.6)
        sec.update({"recommended": {"magcache_thresh": thr, "retention_ratio": 0.2, "magcache_K": 2},
                    "recommended_note": "smallest threshold (K 2, retention 0.2) that skips about 30% of the "
                                        "calibrated steps; quality not measured: compare outputs",
                    "expected": {"steps": n, "pattern": pattern(thr)}})
        out["magcache"] = sec
        summary.append(f"MagCache ratios over {n} steps ({len(same)} of {len(samples)} run(s) with this step count);"
                       f" suggested magcache_thresh {thr:g} ({pattern(thr)})")
    return out, summary


def _atomic_write(path, data: dict):
    """Write `data` as JSON so that a crash leaves either the old file or the new one, never a torn one."""
    import json
    import os
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.stem + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, allow_nan=False)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _backup(path):
    """Copy `path` to a new `<name>.<YYYYmmdd-HHMMSS>[-N].json.bak` next to it and return the copy's path. The name
    is taken with an exclusive create (O_EXCL), so two backups in the same second (two overwrites queued back to
    back, or two ComfyUI processes) get two files: a backup never replaces another one."""
    import os
    import shutil

    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(1, 10000):
        bak = path.with_name(f"{path.stem}.{stamp}{'' if n == 1 else f'-{n}'}.json.bak")
        try:
            fd = os.open(bak, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as dst, open(path, "rb") as src:
                shutil.copyfileobj(src, dst)
                dst.flush()
                os.fsync(dst.fileno())
            shutil.copystat(path, bak)
        except BaseException:
            try:
                os.unlink(bak)
            except OSError:
                pass
            raise
        return bak
    raise OSError(f"no free backup name for {path.name} (9999 backups of {stamp})")


def write_calibration(run):  # run: the run's state (state.Run)
    """Add a completed run to its calibration file and redo the fits over all runs in it. Raises AccelError
    (nothing written) when the run recorded nothing, the file was changed into something that cannot be
    extended meanwhile, the fit gives unusable values, or the write would leave fewer runs than the file
    holds without `overwrite`."""
    cfg = run.cfg
    name = cfg["calib_name"]
    recs = [r for r in run.records if r.get("chunks")]
    if not recs:
        raise AccelError("model", "the run recorded nothing (the transformer blocks never went through the "
                         "calibration hooks: another node replaced the model's forward?); nothing written",
                         "Put Accel Cache Calibrate directly before the sampler, without nodes that replace the "
                         "forward")
    path = cc.user_file(name)
    where = cc.where_text(name)
    try:
        _check_samples([{"records": recs}], "this run")
    except cc.SetError as e:
        raise AccelError("model", f"the run recorded unusable values ({e}): the model's output is not finite; "
                         "nothing written, the file is unchanged", "Fix the model (NaN/inf outputs) and run "
                         "again") from None
    with _LOCK:
        fresh = bool(cfg.get("overwrite")) and cfg["id"] not in _FRESH
        old = None if fresh else read_calibration(name, path)
        if old is not None:
            check_same_model(name, path, old, cfg)
        prior = list(old.get("samples") or []) if old else []
        prior_runs = run_count(old) if old else 0
        samples = prior + [{"steps": run.steps, "records": recs, "created": time.strftime("%Y-%m-%d %H:%M:%S")}]
        dropped = max(0, len(samples) - KEPT_RUNS)
        samples = samples[dropped:]  # the newest KEPT_RUNS runs' records; "runs" still counts every run
        n_runs = prior_runs + 1
        fam = cfg["family"]
        out = {"format": cc.USER_FORMAT, "name": name, "family": fam["family"], "variant": fam["variant"],
               "size": fam["size"], "model": fam["name"], "fingerprint": cfg.get("fingerprint", ""), "runs": n_runs,
               "fitted_on": f"{fam['name']}, {run.steps} steps, calibrated on this machine ({n_runs} run(s))",
               "created": time.strftime("%Y-%m-%d %H:%M:%S")}
        sections, summary = _fit(samples, run.adapter)
        for kind, sec in sections.items():
            try:
                cc.validate_set(kind, sec, where)
            except cc.SetError as e:
                raise AccelError("model", f"the {kind} fit gave unusable values ({e}); nothing written, the "
                                 "file is unchanged", "Check that the model's output is finite (no NaN) and "
                                 "calibrate with at least 3 steps") from None
        out.update(sections)
        out["samples"] = samples
        # the last guard before replacing: never fewer runs than the file holds now, unless asked (overwrite)
        try:
            on_disk = run_count(cc.read_user_file(path, where))
        except FileNotFoundError:
            on_disk = 0
        except cc.SetError:
            on_disk = None  # damaged: only reachable with overwrite (else read_calibration refused above)
        if not fresh and (on_disk is None or on_disk >= n_runs):
            raise AccelError("name", f"{where} holds {on_disk if on_disk is not None else 'unreadable'} "
                             f"run(s) now; writing {n_runs} would lose runs; nothing written", _overwrite_remedy(path))
        backup = _backup(path) if fresh and path.is_file() else None  # (a FIFO or device there is replaced, not read)
        _atomic_write(path, out)
        _FRESH.add(cfg["id"])
    kept = ""
    if len(samples) != n_runs:
        kept = f", the newest {len(samples)} with their records (the fits use these"
        kept += (f"; {dropped} older run(s)' records dropped: the file keeps at most {KEPT_RUNS})" if dropped else ")")
    summary.append(f"{n_runs} run(s) in the file{kept}")
    if backup is not None:
        summary.append(f"the replaced file is kept as {backup.name}")
    return path, "; ".join(summary) if sections else ("; ".join(summary) + "; not enough steps to fit anything "
                                                      "(need at least 3 steps)")
