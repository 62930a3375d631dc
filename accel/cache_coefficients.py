"""THE table of step-cache coefficient sets: published TeaCache polynomials and MagCache magnitude ratios
(`accel/data/cache_coefficients.json`, every set with its source repo + file), plus the sets users
calibrate themselves (JSON files under ComfyUI's user directory, `accel/cache_coefficients/`).

Also the `auto` policy: which published set fits a detected model family (`accel.families.detect`).
Imports nothing from ComfyUI at module level.
"""
from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path

DATA_FILE = Path(__file__).resolve().parent / "data" / "cache_coefficients.json"
USER_PREFIX = "user:"
USER_FORMAT = "comfyui-accel cache calibration v1"

# Which step-cache adapter (accel/stepcache.py) serves a model family, and which set families it accepts.
ADAPTER_OF_FAMILY = {"wan21": "wan", "wan22": "wan", "flux": "flux", "hunyuan_video": "hunyuan_video",
                     "qwen_image": "qwen_image"}
WAN_VARIANTS = ("t2v", "i2v", "ti2v")  # VACE/S2V/Animate inject per block outside the block call: not cacheable here

# Latent pixels (H*W after the VAE) between Wan 480p (60x104) and 720p (90x160): above it, I2V uses the 720p set.
I2V_720P_MIN_LATENT_PIXELS = (60 * 104 + 90 * 160) // 2


@lru_cache(maxsize=1)
def table() -> dict:
    with open(DATA_FILE, encoding="utf-8") as f:
        return json.load(f)


def published(kind: str) -> dict:
    """kind 'teacache' | 'magcache' -> {set name: entry}."""
    return table()[kind]


def source_text(entry: dict) -> str:
    src = entry.get("source") or {}
    if not src:
        return "calibrated on this machine"
    where = f"{src.get('repo')}@{src.get('commit')} {src.get('file')}"
    if src.get("line"):
        where += f":{src['line']}"
    return where


def adapter_for_set(entry: dict) -> str | None:
    fam = entry.get("family", "")
    if fam in ("wan21", "wan22") and entry.get("variant") not in WAN_VARIANTS:
        return None
    return ADAPTER_OF_FAMILY.get(fam)


def supported_text(kind: str) -> str:
    """One line per supported set (an adapter exists), for error messages and tooltips."""
    names = [n for n, e in published(kind).items() if adapter_for_set(e)]
    return ", ".join(names)


# ---------------------------------------------------------------- user (calibrated) sets
def user_dir() -> Path:
    import folder_paths  # ComfyUI

    return Path(folder_paths.get_user_directory()) / "accel" / "cache_coefficients"


def safe_name(name: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", (name or "").strip()).strip("._")
    return name[:80] or "calibration"


def user_sets(kind: str | None = None) -> list[str]:
    """Names ('user:<stem>') of calibration files that hold a `kind` section (or any, if None)."""
    try:
        d = user_dir()
    except Exception:
        return []
    if not d.is_dir():
        return []
    out = []
    for p in sorted(d.glob("*.json")):
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except Exception:
            continue
        if data.get("format") != USER_FORMAT:
            continue
        if kind is None or data.get(kind):
            out.append(USER_PREFIX + p.stem)
    return out


def user_file(name: str) -> Path:
    return user_dir() / f"{safe_name(name[len(USER_PREFIX):] if name.startswith(USER_PREFIX) else name)}.json"


def load_user(name: str) -> dict:
    p = user_file(name)
    return json.loads(p.read_text(encoding="utf-8"))


def user_mtime(name: str) -> float:
    try:
        return os.path.getmtime(user_file(name))
    except OSError:
        return 0.0


def resolve_named(kind: str, name: str) -> dict:
    """A set by name -> an entry dict (published or calibrated). Raises KeyError."""
    if name.startswith(USER_PREFIX):
        data = load_user(name)
        sec = data.get(kind)
        if not sec:
            raise KeyError(f"{name} has no {kind} data")
        entry = dict(sec)
        entry.update({"family": data.get("family", ""), "variant": data.get("variant", ""), "size": data.get("size", ""),
                      "fitted_on": data.get("fitted_on", ""), "source": {}, "user_file": str(user_file(name))})
        return entry
    return dict(published(kind)[name])


# ---------------------------------------------------------------- auto
def auto_candidates(kind: str, fam) -> tuple[list[str], str]:
    """The published sets `auto` may use for a detected family (`accel.families.Family`), and why.

    Several candidates mean the choice is finished at run time (I2V 480p vs 720p from the latent size,
    Flux vs Kontext from reference latents, Wan 2.2 TI2V text vs image mode). [] means none is published.
    """
    f, v, s = fam.family, fam.variant, fam.size
    tea = kind == "teacache"
    if f in ("wan21", "wan22"):
        if v == "ti2v" and s == "5B":
            if tea:
                return ["wan2.2_ti2v_5B"], "Wan 2.2 TI2V-5B (LightX2V's set, time-embedding signal)"
            return ["wan2.2_ti2v_5B", "wan2.2_ti2v_5B_i2v"], "Wan 2.2 TI2V-5B (text or image mode, from the timesteps)"
        suffix = "_ret_mode" if tea else ""
        why14 = ("Wan 2.1 14B and Wan 2.2 A14B experts are structurally identical (weights cannot tell them apart), "
                 "so the Wan 2.1 14B set is used")
        if v == "t2v" and s == "1.3B":
            return [f"wan2.1_t2v_1.3B{suffix}"], "Wan 2.1 T2V 1.3B"
        if v == "t2v" and s == "14B":
            return [f"wan2.1_t2v_14B{suffix}"], why14 + ("" if tea else "; pick wan2.2_t2v_14B for a Wan 2.2 A14B expert")
        if v == "i2v" and s == "14B":
            return ([f"wan2.1_i2v_480p_14B{suffix}", f"wan2.1_i2v_720p_14B{suffix}"],
                    why14 + ("" if tea else "; pick wan2.2_i2v_14B for a Wan 2.2 A14B expert")
                    + "; 480p or 720p set chosen per run from the latent size")
        return [], f"no published {kind} set for Wan {v.upper()} {s}"
    if f == "flux":
        return (["flux", "flux-kontext"] if tea else ["flux", "flux_kontext"]), \
            "Flux.1; the Kontext set is used when the run has reference latents"
    if f == "hunyuan_video":
        return ["hunyuan_video"], "HunyuanVideo"
    if f == "qwen_image" and not tea:
        return ["qwen_image"], "Qwen-Image"
    return [], f"no published {kind} set for {fam.name}"


def pick_auto(candidates: list[str], *, latent_hw: int = 0, has_ref: bool = False, per_token_t: bool = False) -> str:
    """Finish an `auto` choice at run time (see `auto_candidates`)."""
    if len(candidates) == 1:
        return candidates[0]
    names = set(candidates)
    if any("i2v_720p" in n for n in names):
        want = "720p" if latent_hw >= I2V_720P_MIN_LATENT_PIXELS else "480p"
        return next(n for n in candidates if want in n)
    if any("kontext" in n for n in names):
        return next(n for n in candidates if ("kontext" in n) == bool(has_ref))
    if "wan2.2_ti2v_5B_i2v" in names:
        return "wan2.2_ti2v_5B_i2v" if per_token_t else "wan2.2_ti2v_5B"
    return candidates[0]
