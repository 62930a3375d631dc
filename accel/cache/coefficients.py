"""THE table of step-cache coefficient sets: published TeaCache polynomials and MagCache magnitude ratios
(`accel/cache/coefficients.json`, every set with its source repo + file), plus the sets users
calibrate themselves (JSON files under ComfyUI's user directory, `accel/cache_coefficients/`).

Also THE validation of a set (`validate_set`: numbers finite, lengths and ranges right, keys known), used by
the loader (nodes' VALIDATE_INPUTS, run time) and by the calibration writer, with errors naming the file and
the key; and the `auto` policy: which published set fits a detected model family (`accel.common.families.detect`).
Imports nothing from ComfyUI at module level.
"""
from __future__ import annotations

import copy
import json
import math
import os
import re
import stat
import threading
from functools import lru_cache
from pathlib import Path

from ..common import log

DATA_FILE = Path(__file__).resolve().parent / "coefficients.json"
USER_PREFIX = "user:"
USER_FORMAT = "comfyui-accel cache calibration v1"

# Which step-cache adapter (accel/cache/adapters.py) serves a model family, and which set families it accepts.
ADAPTER_OF_FAMILY = {"wan21": "wan", "wan22": "wan", "flux": "flux", "hunyuan_video": "hunyuan_video",
                     "hunyuan_video15": "hunyuan_video", "qwen_image": "qwen_image"}
WAN_VARIANTS = ("t2v", "i2v", "ti2v")  # VACE/S2V/Animate inject per block outside the block call: not cacheable here

# Latent pixels (H*W after the VAE) between Wan 480p (60x104) and 720p (90x160): above it, I2V uses the 720p set.
I2V_720P_MIN_LATENT_PIXELS = (60 * 104 + 90 * 160) // 2
# HunyuanVideo latent pixels between 544p (68x120) and 720p (90x160): above it, the 720p MagCache set.
HV_720P_MIN_LATENT_PIXELS = (68 * 120 + 90 * 160) // 2
# HunyuanVideo 1.5 latent pixels (its VAE: 16x spatial) between 480p (30x53) and 720p (45x80): above it, 720p sets.
HV15_720P_MIN_LATENT_PIXELS = (30 * 53 + 45 * 80) // 2


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


# ---------------------------------------------------------------- validation (one rule set)
# The values the step cache uses when a set recommends none (one source for the runtime and the report).
DEFAULT_RECOMMENDED = {"teacache": {"rel_l1_thresh": 0.2, "start_percent": 0.0, "end_percent": 1.0},
                       "magcache": {"magcache_thresh": 0.12, "retention_ratio": 0.2, "magcache_K": 2}}
# recommended key -> (lowest, highest, integer?): the ranges of the matching node inputs
RECOMMENDED_RANGE = {"teacache": {"rel_l1_thresh": (0.0, 10.0, False), "start_percent": (0.0, 1.0, False),
                                  "end_percent": (0.0, 1.0, False)},
                     "magcache": {"magcache_thresh": (0.0, 1.0, False), "retention_ratio": (0.0, 1.0, False),
                                  "magcache_K": (0, 10, True)}}
MAG_BRANCHES = ("cond", "uncond")
MAG_LOOKUPS = ("floor", "nearest")  # table entry of a step when the step count differs from the table's
MAG_EXPERTS = ("", "t2v", "i2v")  # Wan 2.2 A14B expert-switch rules
TEA_MAX_COEFFICIENTS = 10  # a polynomial of degree <= 9


class SetError(ValueError):
    """A coefficient set (a user file or a table entry) that cannot be used: names the set/file and the key."""

    def __init__(self, where: str, key: str, problem: str):
        self.where, self.key, self.problem = where, key, problem
        super().__init__(f"{where}: {key}: {problem}" if key else f"{where}: {problem}")


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _number(where, key, v, lo=None, hi=None, integer=False, positive=False) -> float:
    if not _is_number(v):
        raise SetError(where, key, f"{json.dumps(v)[:40]} is not a number")
    if not math.isfinite(v):
        raise SetError(where, key, f"{v} is not a finite number")
    if integer and v != int(v):
        raise SetError(where, key, f"{v} is not a whole number")
    if positive and v <= 0:
        raise SetError(where, key, f"{v} must be greater than 0")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise SetError(where, key, f"{v} is outside {lo:g}..{hi:g}")
    return v


def _number_list(where, key, v, min_len, max_len=None, **kw) -> list:
    if not isinstance(v, list):
        raise SetError(where, key, f"must be a list of numbers, not {type(v).__name__}")
    if len(v) < min_len or (max_len is not None and len(v) > max_len):
        want = f"{min_len}..{max_len}" if max_len is not None else f"at least {min_len}"
        raise SetError(where, key, f"has {len(v)} values, needs {want}")
    return [_number(where, f"{key}[{i}]", x, **kw) for i, x in enumerate(v)]


def validate_set(kind: str, sec, where: str) -> dict:
    """THE check of one coefficient set section (`teacache` or `magcache`), used by the loader (nodes, run time)
    and by the calibration writer. Raises SetError naming `where` and the key; returns `sec` unchanged."""
    if not isinstance(sec, dict) or not sec:
        raise SetError(where, kind, f"must be a non-empty object, not {json.dumps(sec)[:40]}")
    if kind == "teacache":
        _number_list(where, "teacache.coefficients", sec.get("coefficients"), 2, TEA_MAX_COEFFICIENTS)
        sig = sec.get("signal")
        if sig is not None and (not isinstance(sig, str) or not sig):
            raise SetError(where, "teacache.signal", f"{json.dumps(sig)[:40]} is not a signal name")
        if not isinstance(sec.get("compute_last", False), bool):
            raise SetError(where, "teacache.compute_last", "must be true or false")
    elif kind == "magcache":
        ratios = sec.get("ratios")
        if not isinstance(ratios, dict) or "cond" not in ratios:
            raise SetError(where, "magcache.ratios", "must be an object with a 'cond' list (and optionally "
                           f"'uncond'), not {json.dumps(ratios)[:40]}")
        extra = sorted(set(ratios) - set(MAG_BRANCHES))
        if extra:
            raise SetError(where, "magcache.ratios", f"unknown branch(es) {extra}; only {list(MAG_BRANCHES)}")
        lens = {}
        for b in MAG_BRANCHES:
            if b in ratios:
                lens[b] = len(_number_list(where, f"magcache.ratios.{b}", ratios[b], 2, positive=True))
        if len(set(lens.values())) > 1:
            raise SetError(where, "magcache.ratios", f"cond has {lens['cond']} values but uncond {lens['uncond']}")
        prog = sec.get("progress")
        if prog is not None:
            vals = _number_list(where, "magcache.progress", prog, lens["cond"], lens["cond"], lo=0.0, hi=1.0)
            if any(b < a for a, b in zip(vals, vals[1:], strict=False)):
                raise SetError(where, "magcache.progress", "must not decrease")
        # schedule rules of the set's reference (accel/cache/schedule.py)
        if sec.get("lookup", "floor") not in MAG_LOOKUPS:
            raise SetError(where, "magcache.lookup",
                           f"{json.dumps(sec.get('lookup'))[:40]} is not one of {MAG_LOOKUPS}")
        if sec.get("experts", "") not in MAG_EXPERTS:
            raise SetError(where, "magcache.experts",
                           f"{json.dumps(sec.get('experts'))[:40]} is not one of {MAG_EXPERTS}")
        _number_list(where, "magcache.never_skip_steps", sec.get("never_skip_steps", []), 0, lo=0, hi=10000,
                     integer=True)
    else:
        raise SetError(where, kind, "unknown kind")
    rec = sec.get("recommended", {})
    if not isinstance(rec, dict):
        raise SetError(where, f"{kind}.recommended", f"must be an object, not {json.dumps(rec)[:40]}")
    ranges = RECOMMENDED_RANGE[kind]
    for k, v in rec.items():
        if k not in ranges:
            raise SetError(where, f"{kind}.recommended.{k}", f"unknown key; known: {', '.join(ranges)}")
        lo, hi, integer = ranges[k]
        _number(where, f"{kind}.recommended.{k}", v, lo, hi, integer)
    if kind == "teacache" and rec.get("start_percent", 0.0) > rec.get("end_percent", 1.0):
        raise SetError(where, "teacache.recommended.start_percent",
                       f"{rec['start_percent']} is after end_percent {rec.get('end_percent', 1.0)}")
    return sec


def recommended(kind: str, entry: dict) -> dict:
    """The set's recommended values, completed with the defaults (what the step cache runs with)."""
    out = dict(DEFAULT_RECOMMENDED[kind])
    out.update((entry or {}).get("recommended") or {})
    return out


# ---------------------------------------------------------------- user (calibrated) sets
NAME_RULE = "letters, digits, '.', '_' and '-' (at most 80, not starting or ending with '.')"


def user_dir() -> Path:
    import folder_paths  # ComfyUI

    return Path(folder_paths.get_user_directory()) / "accel" / "cache_coefficients"


def safe_name(name: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", (name or "").strip()).strip("._")
    return name[:80] or "calibration"


def name_problem(name) -> str | None:
    """Why `name` cannot be a calibration file name as given (None = fine). Names are never changed silently:
    two names that sanitise to one file (`my model`, `my/model`) would merge two models' runs."""
    if not isinstance(name, str) or not name.strip():
        return "is empty"
    if safe_name(name) != name:
        return (f"'{name}' would have to be changed to '{safe_name(name)}' to be a file name (allowed: {NAME_RULE}); "
                "names are not changed silently, as two names would then share one file")
    return None


def _stem(name: str) -> str:
    return name[len(USER_PREFIX):] if name.startswith(USER_PREFIX) else name


def user_file(name: str) -> Path:
    """'user:<stem>' or '<stem>' -> its file. Raises SetError for a stem that is not a valid name."""
    stem = _stem(name)
    bad = name_problem(stem)
    if bad:
        raise SetError(USER_PREFIX + str(stem), "", f"the name {bad}")
    return user_dir() / f"{stem}.json"


def where_text(name: str) -> str:
    try:
        return f"{USER_PREFIX}{_stem(name)} ({user_file(name)})"
    except Exception:
        return f"{USER_PREFIX}{_stem(name)}"


# Bounds of a calibration file: the files Accel Cache Calibrate writes (24 runs' records at most) stay far below both
MAX_FILE_BYTES = 16 * 2**20
MAX_DEPTH = 32  # nesting of objects and lists (a calibration file has 8)


class NotAFileError(SetError):
    """A calibration path that is not a regular file (a FIFO, a device, a folder): never opened, never listed."""


def _file_kind(mode: int) -> str:
    for test, what in ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a folder"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def _check_stat(st, where: str) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise NotAFileError(where, "", f"is {_file_kind(st.st_mode)}, not a file; it was not opened")
    if st.st_size > MAX_FILE_BYTES:
        raise SetError(where, "", f"is {st.st_size / 2**20:.1f} MiB; a calibration file is at most "
                       f"{MAX_FILE_BYTES // 2**20} MiB (Accel Cache Calibrate writes far less), so it was not read")


def _read_bounded(path: Path, where: str) -> bytes:
    """The bytes of a regular file of at most MAX_FILE_BYTES. Anything else is refused before it is read: a FIFO or a
    device is never opened for reading in a way that can block (the stat comes first, the open does not block, and the
    opened file is checked again)."""
    try:
        _check_stat(os.stat(path), where)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise
    except OSError as e:
        raise SetError(where, "", f"cannot be read ({type(e).__name__}: {e})") from None
    with os.fdopen(fd, "rb") as f:
        _check_stat(os.fstat(f.fileno()), where)  # the file opened: it may have been replaced since the stat
        try:
            raw = f.read(MAX_FILE_BYTES + 1)
        except OSError as e:
            raise SetError(where, "", f"cannot be read ({type(e).__name__}: {e})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise SetError(where, "", f"grew beyond {MAX_FILE_BYTES // 2**20} MiB while it was read")
    return raw


def _depth(value) -> int:
    """How deeply `value` nests lists and objects, walked without recursion."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, (dict, list)):
            deepest = max(deepest, d)
            if d <= MAX_DEPTH:
                todo.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return deepest


def _parse(path: Path, where: str) -> dict:
    """A calibration file's JSON object (read by `_read_bounded`). JSON nested deeper than Python's json can parse
    (RecursionError) is a damaged file like any other."""
    raw = _read_bounded(path, where)
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise SetError(where, "", f"cannot be read ({type(e).__name__}: {e})") from None
    except RecursionError:
        raise SetError(where, "", f"nests lists or objects deeper than {MAX_DEPTH} levels") from None
    except ValueError as e:  # JSONDecodeError, or a number of more digits than Python converts
        raise SetError(where, "", f"is not valid JSON ({str(e)[:200]})") from None
    if not isinstance(data, dict):
        raise SetError(where, "", f"must hold a JSON object at the top level, not {type(data).__name__}")
    return data


def _check_top(data: dict, where: str) -> dict:
    """The checks of a calibration file's top level: nesting at most MAX_DEPTH deep, our format, family strings."""
    if _depth(data) > MAX_DEPTH:
        raise SetError(where, "", f"nests lists or objects deeper than {MAX_DEPTH} levels")
    if data.get("format") != USER_FORMAT:
        raise SetError(where, "format", f"{json.dumps(data.get('format'))[:60]} is not '{USER_FORMAT}' "
                       "(not a file written by Accel Cache Calibrate)")
    for k in ("family", "variant", "size"):
        if not isinstance(data.get(k, ""), str):
            raise SetError(where, k, f"{json.dumps(data.get(k))[:40]} is not a string")
    return data


def read_user_file(path: Path, where: str) -> dict:
    """A calibration file, whole and checked (a regular file within MAX_FILE_BYTES, JSON nesting at most MAX_DEPTH
    deep, a dict in our format, family strings): what Accel Cache Calibrate extends. Raises SetError (NotAFileError
    for a FIFO, device or folder) or FileNotFoundError."""
    return _check_top(_parse(path, where), where)


# The top-level keys the set lists and the caches use (the recorded runs, `samples`, are Accel Cache Calibrate's)
_SUMMARY_KEYS = ("format", "name", "family", "variant", "size", "model", "fitted_on", "runs", "teacache", "magcache")
_SUMMARIES: dict = {}  # path -> ((device, inode, size, mtime), summary dict or SetError)
_SUMMARIES_LOCK = threading.Lock()
_IN_BACKGROUND: set = set()  # paths being parsed in a background thread for the set lists
INLINE_BYTES = 256 * 2**10  # the set lists parse a changed file larger than this in a background thread


def _summary(path: Path, where: str, wait: bool = True) -> dict | None:
    """A calibration file without its recorded runs, checked as `read_user_file` checks it, and cached by (device,
    inode, size, mtime): the set lists are built inside ComfyUI's HTTP server (/object_info, a prompt's input check),
    so a file is parsed once after each change, not on every request. `wait=False` (the lists): a changed file larger
    than INLINE_BYTES is parsed in a background thread and None returned meanwhile. Raises as `read_user_file` does."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise
    except OSError as e:
        raise SetError(where, "", f"cannot be read ({type(e).__name__}: {e})") from None
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    with _SUMMARIES_LOCK:
        hit = _SUMMARIES.get(str(path))
        fresh = hit is not None and hit[0] == key
        later = not (wait or fresh) and stat.S_ISREG(st.st_mode) and INLINE_BYTES < st.st_size <= MAX_FILE_BYTES
        if later and str(path) not in _IN_BACKGROUND:
            _IN_BACKGROUND.add(str(path))
            threading.Thread(target=_summarize_in_background, args=(path,), daemon=True,
                             name="accel-calibration-file").start()
    if later:
        return None
    if fresh:
        found = hit[1]
    else:
        try:
            data = _parse(path, where)
            found = _check_top({k: data[k] for k in _SUMMARY_KEYS if k in data}, where)
        except SetError as e:
            found = e
        with _SUMMARIES_LOCK:
            _SUMMARIES[str(path)] = (key, found)
    if isinstance(found, SetError):
        raise type(found)(where, found.key, found.problem)
    return copy.deepcopy(found)  # (nested at most MAX_DEPTH deep)


def _summarize_in_background(path: Path) -> None:
    try:
        _summary(path, str(path))
    except Exception:  # noqa: BLE001 - cached (a SetError) or reported by the next list
        pass
    finally:
        with _SUMMARIES_LOCK:
            _IN_BACKGROUND.discard(str(path))


def load_user(name: str, kind: str | None = None) -> dict:
    """A calibration file's sets, validated (its `kind` section must exist and be valid; without `kind`, every
    section present), without its recorded runs. Raises SetError naming the file and key; FileNotFoundError if it
    does not exist."""
    where = where_text(name)
    data = _summary(user_file(name), where)
    kinds = [kind] if kind else [k for k in ("teacache", "magcache") if k in data]
    for k in kinds:
        if k not in data:
            raise SetError(where, k, "missing: the file holds no " + k + " set")
        validate_set(k, data[k], where)
    return data


def user_sets(kind: str | None = None) -> list[str]:
    """Names ('user:<stem>') of the files in the calibration folder that a `kind` node may list: those with a
    `kind` section (or any, if None) and also damaged ones (invalid JSON, too large or too deeply nested, wrong top
    level), so that picking one explains what is wrong instead of the name silently missing from the list. What is not
    a file (a FIFO, a device, a folder named *.json) is skipped with a warning naming it, never opened. Never raises:
    the nodes' input lists are built from it."""
    try:
        d = user_dir()
        paths = sorted(d.glob("*.json")) if d.is_dir() else []
    except Exception as e:  # noqa: BLE001 - an unreadable folder lists no user set
        log.warn_once(("cc-dir", str(e)), "calibration folder not listed (%s: %s)", type(e).__name__, e)
        return []
    out = []
    for p in paths:
        if name_problem(p.stem):
            log.warn_once(("cc-badname", str(p)), "calibration file %s not listed: its name is not %s", p, NAME_RULE)
            continue
        try:
            data = _summary(p, str(p), wait=False)
        except FileNotFoundError:
            continue
        except NotAFileError as e:
            log.warn_once(("cc-bad", str(p), str(e)), "calibration file %s; not listed", e)
            continue
        except SetError as e:
            log.warn_once(("cc-bad", str(p), str(e)), "calibration file %s", e)
            if e.key != "format":  # some other JSON file: not ours
                out.append(USER_PREFIX + p.stem)
            continue
        except Exception as e:  # noqa: BLE001 - one file never takes the nodes off the list
            log.warn_once(("cc-bad", str(p), str(e)), "calibration file %s not listed (%s: %s)", p, type(e).__name__, e)
            continue
        if data is None or kind is None or kind in data:  # (None: a large file being read, listed meanwhile)
            out.append(USER_PREFIX + p.stem)
    return out


def user_mtime(name: str) -> float:
    try:
        return os.path.getmtime(user_file(name))
    except (OSError, SetError):
        return 0.0


def resolve_named(kind: str, name: str) -> dict:
    """A set by name -> an entry dict (published or calibrated), validated. Raises KeyError (unknown published
    name), FileNotFoundError (no such user file) or SetError (naming the file and the key)."""
    if name.startswith(USER_PREFIX):
        data = load_user(name, kind)
        entry = dict(data[kind])
        entry.update({"family": data.get("family", ""), "variant": data.get("variant", ""),
                      "size": data.get("size", ""),
                      "fitted_on": data.get("fitted_on", ""), "source": {}, "user_file": str(user_file(name))})
        return entry
    entry = dict(published(kind)[name])
    validate_set(kind, entry, f"{name} ({DATA_FILE})")
    return entry


# ---------------------------------------------------------------- auto
def auto_candidates(kind: str, fam) -> tuple[list[str], str]:
    """The published sets `auto` may use for a detected family (`accel.common.families.Family`), and why.

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
            return [f"wan2.1_t2v_14B{suffix}"], why14 + (
                "" if tea else "; pick wan2.2_t2v_14B for a Wan 2.2 A14B expert")
        if v == "i2v" and s == "14B":
            return ([f"wan2.1_i2v_480p_14B{suffix}", f"wan2.1_i2v_720p_14B{suffix}"],
                    why14 + ("" if tea else "; pick wan2.2_i2v_14B for a Wan 2.2 A14B expert")
                    + "; 480p or 720p set chosen per run from the latent size")
        return [], f"no published {kind} set for Wan {v.upper()} {s}"
    if f == "flux":
        return (["flux", "flux-kontext"] if tea else ["flux", "flux_kontext", "flux_kontext_28steps"]), \
            "Flux.1; the Kontext set is used when the run has reference latents" + (
                "" if tea else " (its 20- or 28-step table, whichever is nearer the run's step count)")
    if f == "hunyuan_video":
        return (["hunyuan_video"], "HunyuanVideo") if tea else (
            ["hunyuan_video", "hunyuan_video_544p"], "HunyuanVideo; the 544p or 720p table from the latent size")
    if f == "hunyuan_video15":
        if tea:
            return ([f"hunyuan_video1.5_{v}_{r}" for v in ("t2v", "i2v") for r in ("480p", "720p")],
                    "HunyuanVideo 1.5; T2V or I2V (CLIP-vision input present) and 480p or 720p from the run")
        return (["hunyuan_video1.5", "hunyuan_video1.5_40steps", "hunyuan_video1.5_i2v_480p"],
                "HunyuanVideo 1.5; the I2V set when the run has a CLIP-vision input (fitted at 480p), else the "
                "T2V 20- or 40-step table nearer the run's step count")
    if f == "qwen_image" and not tea:
        return ["qwen_image", "qwen_image_50steps"], "Qwen-Image (the 40- or 50-step table nearer the run's step count)"
    return [], f"no published {kind} set for {fam.name}"


def _table_len(name: str) -> int:
    e = published("magcache").get(name) or published("teacache").get(name) or {}
    r = e.get("ratios") or {}
    return len(r.get("cond") or [])


def pick_auto(candidates: list[str], *, latent_hw: int = 0, has_ref: bool = False, per_token_t: bool = False,
              steps: int = 0, has_image: bool = False) -> str:
    """Finish an `auto` choice at run time (see `auto_candidates`): by the run's content (I2V 480p/720p and
    HunyuanVideo 544p/720p from the latent size, Kontext from reference latents, TI2V mode from the timesteps,
    HunyuanVideo 1.5 T2V/I2V from a CLIP-vision input), then, among MagCache tables of one model, the one whose
    step count is nearest the run's (ties: the first)."""
    if len(candidates) == 1:
        return candidates[0]
    names = list(candidates)
    if any(n.startswith("hunyuan_video1.5") for n in names):
        names = [n for n in names if ("_i2v" in n) == has_image] or names
        if len({r for n in names for r in ("480p", "720p") if n.endswith(r)}) > 1:
            want = "720p" if latent_hw >= HV15_720P_MIN_LATENT_PIXELS else "480p"
            names = [n for n in names if want in n] or names
    elif any("i2v_720p" in n for n in names):
        want = "720p" if latent_hw >= I2V_720P_MIN_LATENT_PIXELS else "480p"
        names = [n for n in names if want in n] or names
    if any("kontext" in n for n in names):
        names = [n for n in names if ("kontext" in n) == bool(has_ref)] or names
    if "wan2.2_ti2v_5B_i2v" in names:
        names = ["wan2.2_ti2v_5B_i2v" if per_token_t else "wan2.2_ti2v_5B"]
    if "hunyuan_video_544p" in names:
        names = ["hunyuan_video_544p" if latent_hw < HV_720P_MIN_LATENT_PIXELS else "hunyuan_video"]
    if len(names) > 1 and steps:
        names = sorted(names, key=lambda n: (abs(_table_len(n) - steps) if _table_len(n) else 0, names.index(n)))
    return names[0]
