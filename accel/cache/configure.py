"""The step-cache nodes' entry points: check the inputs, resolve the coefficient set, attach the hooks to a clone
of the MODEL and write the node's report."""
from __future__ import annotations

from ..common import log
from ..common.errors import AccelError, current_title
from ..common.families import family_name
from . import coefficients as cc
from . import schedule as sched
from .adapters import SIGNAL_TEXT, adapter_for_model
from .calibrate import DEFAULT_SIGNAL, KEPT_RUNS, check_same_model, model_fingerprint, read_calibration, run_count
from .hooks import attach, multigpu_lines, new_id
from .report import stats_lines
from .settings import check_inputs, effective_settings, empty_window_text, load_set


def _resolve_set(kind, input_name, model, choice):
    """-> (adapter, family, entry or None (auto at run time), candidates, why)."""
    adapter, fam, reason = adapter_for_model(model)
    supported = cc.supported_text(kind)
    how = ("For other models or step counts (e.g. 4-8-step Lightning LoRAs), run the model once through "
           "'Accel Cache Calibrate' and pick the resulting user:<name> set")
    if adapter is None:
        raise AccelError("model", f"{reason}. Published {kind} sets: {supported}", how)
    if choice == "auto":
        cands, why = cc.auto_candidates(kind, fam)
        if not cands:
            raise AccelError(input_name, f"{why}. Published {kind} sets: {supported}", how)
        bad = [n for n in cands if cc.resolve_named(kind, n).get("signal", DEFAULT_SIGNAL[adapter.name])
               not in adapter.signals] if kind == "teacache" else []
        if bad:
            raise AccelError(input_name, f"sets {bad} need a signal this pack cannot compute", how)
        return adapter, fam, None, cands, why
    entry = load_set(kind, input_name, choice)
    set_adapter = cc.adapter_for_set(entry)
    if set_adapter != adapter.name:
        raise AccelError(input_name, f"set '{choice}' was fitted on {entry.get('family')} "
                         f"{entry.get('variant', '')}, but the model is {fam.name}",
                         f"Use 'auto' or a set for this model family. Published {kind} sets: {supported}")
    if kind == "teacache":
        sig = entry.get("signal") or DEFAULT_SIGNAL[adapter.name]
        if sig not in adapter.signals:
            raise AccelError(input_name, f"set '{choice}' uses signal '{sig}', which this model does not provide",
                             how)
    why = "chosen explicitly"
    other = entry.get("family") and entry["family"] != fam.family
    if other and not (fam.is_wan and entry["family"] in ("wan21", "wan22")):
        why += f" (note: fitted on {family_name(entry['family'])}, the model is {fam.name})"
    elif fam.is_wan and (entry.get("variant"), entry.get("size")) != (fam.variant, fam.size):
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


def _window_lines(title, cfg, eff) -> list:
    text = empty_window_text(eff)
    if not text:
        return []
    log.warning("%s: %s", title, text)
    return [text]


def configure_teacache(model, rel_l1_thresh: float, start_percent: float, end_percent: float,
                       coefficients: str = "auto", cache_device: str = "GPU", node_id=None):
    """Clone `model` with TeaCache. rel_l1_thresh / start_percent -1 mean: the chosen set's recommended value."""
    title = current_title() or "TeaCache"
    check_inputs(start_percent, end_percent, ("rel_l1_thresh", rel_l1_thresh))
    adapter, fam, entry, cands, why = _resolve_set("teacache", "coefficients", model, coefficients)
    cfg = {"mode": "teacache", "id": new_id(node_id), "title": title, "node_id": node_id, "adapter": adapter.name,
           "set": coefficients if entry else "auto", "entry": entry, "candidates": cands,
           "thresh": float(rel_l1_thresh), "start": float(start_percent), "end": float(end_percent),
           "K": -1, "cache_device": cache_device}
    m, replaced = attach(model, cfg)
    lines = [f"{title} on {fam.name}"] + multigpu_lines(model, title)
    lines.append(f"coefficients: {coefficients if entry else 'auto'}")
    lines += _set_lines("teacache", entry if entry else cands, why)
    e0 = entry or cc.resolve_named("teacache", cands[0])
    rec = e0.get("recommended", {})
    eff = effective_settings("teacache", cfg, e0)
    lines.append(f"rel_l1_thresh {_shown(eff, 'thresh')}; start {_shown(eff, 'start', '{:.0%}')}; "
                 f"end {end_percent:.0%}; residual cache on {cache_device}" + _auto_note(entry, cands))
    lines += _window_lines(title, cfg, eff)
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
        lines.append(f"replaced an earlier {replaced.get('title')} on this model")
    lines += stats_lines(node_id)
    report = "\n".join(lines)
    log.info("%s: %s, coefficients %s", title, fam.name, cfg["set"] if entry else "auto " + "/".join(cands))
    return m, report


def configure_magcache(model, magcache_thresh: float, magcache_K: int, start_percent: float, end_percent: float,
                       ratios: str = "auto", cache_device: str = "GPU", node_id=None):
    """Clone `model` with MagCache. thresh / K / start -1 mean: the set's recommended value."""
    title = current_title() or "MagCache"
    check_inputs(start_percent, end_percent, ("magcache_thresh", magcache_thresh), int(magcache_K))
    adapter, fam, entry, cands, why = _resolve_set("magcache", "ratios", model, ratios)
    cfg = {"mode": "magcache", "id": new_id(node_id), "title": title, "node_id": node_id, "adapter": adapter.name,
           "set": ratios if entry else "auto", "entry": entry, "candidates": cands,
           "thresh": float(magcache_thresh), "start": float(start_percent), "end": float(end_percent),
           "K": int(magcache_K), "cache_device": cache_device}
    m, replaced = attach(model, cfg)
    e0 = entry or cc.resolve_named("magcache", cands[0])
    lines = [f"{title} on {fam.name}"] + multigpu_lines(model, title) + [f"ratios: {ratios if entry else 'auto'}"]
    lines += _set_lines("magcache", entry if entry else cands, why)
    eff = effective_settings("magcache", cfg, e0)
    lines.append(f"magcache_thresh {_shown(eff, 'thresh')}; K {_shown(eff, 'K', '{}')}; "
                 f"start (retention) {_shown(eff, 'start', '{:.0%}')}; end {end_percent:.0%}; "
                 f"residual cache on {cache_device}" + _auto_note(entry, cands))
    lines += _window_lines(title, cfg, eff)
    rules = sched.mag_rules(e0)
    lines.append(f"one ratio per step: when the step count differs from the set's "
                 f"({len(e0['ratios']['cond'])}), the {rules['lookup']} table entry is used, as the set's source does"
                 + ("; Wan 2.2 A14B expert rule (" + rules["experts"].upper() + "): retention applies again after the "
                    "expert switch" + (" and the high-noise expert is never cached"
                                       if rules["experts"] == "i2v" else "") if rules["experts"] else "")
                 + (f"; table step(s) {rules['never_skip']} are never skipped" if rules["never_skip"] else "")
                 + "; the first step of every run is computed")
    if replaced:
        lines.append(f"replaced an earlier {replaced.get('title')} on this model")
    lines += stats_lines(node_id)
    log.info("%s: %s, ratios %s", title, fam.name, cfg["set"] if entry else "auto " + "/".join(cands))
    return m, "\n".join(lines)


def name_error(name) -> AccelError | None:
    """The error for a calibration name that is not a file name as given (None = fine); the node's
    VALIDATE_INPUTS and configure_calibration both use it."""
    bad = cc.name_problem(name)
    if not bad:
        return None
    return AccelError("name", f"the calibration name {bad}",
                      f"Use only {cc.NAME_RULE}, e.g. '{cc.safe_name(name if isinstance(name, str) else '')}'")


def configure_calibration(model, name: str, node_id=None, overwrite: bool = False):
    """Clone `model` so that its sampling runs record TeaCache/MagCache calibration data (nothing skipped).

    Every completed run is added to the runs already in the file `name` (the file is the history: it survives
    restarts); an interrupted or failed run writes nothing. Refused before sampling: a name that is not a
    file name as given, a file that cannot be extended (damaged, not ours) or that holds another model's runs,
    unless `overwrite` (then the first completed run starts the file again; the old one is kept as a .bak)."""
    title = current_title() or "step cache calibration"
    bad = name_error(name)
    if bad:
        raise bad
    adapter, fam, reason = adapter_for_model(model)
    if adapter is None:
        raise AccelError("model", reason, "Calibration needs a model family the step cache supports: "
                         "Wan 2.1/2.2 (T2V, I2V, TI2V), Flux.1, HunyuanVideo, Qwen-Image")
    cfg = {"mode": "calibrate", "id": new_id(node_id), "title": title, "node_id": node_id, "adapter": adapter.name,
           "set": cc.USER_PREFIX + name, "calib_name": name, "entry": {}, "candidates": [],
           "thresh": 0.0, "start": 0.0, "end": 1.0, "K": 0, "cache_device": "GPU", "overwrite": bool(overwrite),
           "fingerprint": model_fingerprint(model),
           "family": {"family": fam.family, "variant": fam.variant, "size": fam.size, "name": fam.name}}
    path = cc.user_file(name)
    if overwrite:
        try:
            n = run_count(cc.read_user_file(path, str(path)))
            state = f"The file now holds {n} run(s): the first completed run replaces it"
        except FileNotFoundError:
            state = "There is no such file yet"
        except Exception:
            state = "The file now is damaged or not a calibration: the first completed run replaces it"
        state += " (overwrite is on; the old file is kept as a .bak copy next to it), later runs are added."
    else:
        old = read_calibration(name, path)  # raises when the file cannot be extended
        if old is None:
            state = "There is no such file yet: the first completed run creates it."
        else:
            check_same_model(name, path, old, cfg)
            state = (f"The file holds {run_count(old)} run(s) of this model: each completed run is added to them "
                     f"and the fits are redone over them (the records of the newest {KEPT_RUNS} runs are kept).")
            if not old.get("fingerprint"):
                state += (" (It was written by an older version without a model fingerprint: make sure its runs "
                          "are of this model.)")
    m, _ = attach(model, cfg)
    lines = [f"{title} on {fam.name}: every sampling run with this MODEL computes all steps and records, per step "
             f"and per cond/uncond, the rel-L1 change of the cache signal ({', '.join(adapter.signals)}) and of the "
             "transformer-block residual, and the residual magnitude ratio.",
             f"After each completed run the fits (TeaCache polynomial, MagCache ratios) over all runs are written to "
             f"{path}. An interrupted or failed run writes nothing. {state}",
             f"Then choose 'user:{name}' in Accel TeaCache (coefficients) or Accel MagCache (ratios). Calibrate with "
             "the sampler, scheduler and step count you will use; 2-3 prompts/seeds give a steadier fit."]
    lines += multigpu_lines(model, title)
    lines += stats_lines(node_id)
    return m, "\n".join(lines)
