"""Measured backend choice per call shape: time the candidate kernels on the first real call of a
shape, keep the fastest whose result agrees with the primary kernel, remember it in memory and in a
JSON file (keyed by GPU + software + candidate set + shape) so later runs do not time again.
"""
from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path

from .base import BHLD, invoke, to_layout

_disk_lock = threading.Lock()
_warned: set = set()  # cache files already reported as ignored (one log line per file and process)
_warn_lock = threading.Lock()


def _ignored(path, why: str) -> None:
    with _warn_lock:
        if str(path) in _warned:
            return
        _warned.add(str(path))
    logging.getLogger("comfyui-accel").warning(
        "accel: attention autotune cache %s ignored (%s); the shapes it held are timed again and the file is rewritten",
        path, why)


def valid_entry(entry, names) -> str | None:
    """Why a cache entry cannot be used (None: it can): a dict whose `winner` names one of `names`,
    with optional `times_ms` {name: number} and `rejected` {name: text}."""
    if not isinstance(entry, dict):
        return f"an entry is {type(entry).__name__}, not an object"
    winner = entry.get("winner")
    if not isinstance(winner, str):
        return f"a winner is {type(winner).__name__}, not a backend name"
    if winner not in names:
        return f"winner '{winner[:60]}' is not one of the backends compared here ({', '.join(sorted(names))})"
    times = entry.get("times_ms", {})
    if not isinstance(times, dict) or not all(
            isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool) for k, v in times.items()):
        return "times_ms is not an object of numbers"
    rejected = entry.get("rejected", {})
    if not isinstance(rejected,
                      dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in rejected.items()):
        return "rejected is not an object of texts"
    return None


def _sync(device):
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_call(fn, device, warmup: int = 1, reps: int = 3, times: list | None = None) -> float:
    """Median milliseconds of fn() (CUDA events on GPUs, perf_counter elsewhere). `times`, when given,
    receives every call's milliseconds in call order."""
    import torch

    for _ in range(warmup):
        fn()
    times = [] if times is None else times
    start = len(times)
    if device.type == "cuda":
        for _ in range(reps):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e))
    else:
        for _ in range(reps):
            _sync(device)
            t = time.perf_counter()
            fn()
            _sync(device)
            times.append((time.perf_counter() - t) * 1000.0)
    mine = sorted(times[start:])
    return mine[len(mine) // 2]


class Tuner:
    """Holds the candidates of one patched model. `pick(key, ...)` returns the kernel to use for a
    call shape, timing the candidates the first time a key is seen (in this process and on disk)."""

    def __init__(self, primary, candidates, path: str | os.PathLike | None, device_key: str,
                 tolerance: float = 0.03, warmup: int = 1, reps: int = 3):
        self.primary = primary
        self.candidates = [primary] + [c for c in candidates if c is not primary]
        self.by_name = {c.name: c for c in self.candidates}
        self.path = Path(path) if path else None
        self.prefix = device_key + "|" + ",".join(sorted(self.by_name))
        self.tolerance = tolerance
        self.warmup, self.reps = warmup, reps
        self.memo: dict = {}  # call key -> Kernel
        self.last: dict = {}  # call key -> {"winner", "times_ms", "rejected"}
        self._lock = threading.Lock()

    # --- disk cache -------------------------------------------------------------------------
    def _load(self) -> dict:
        """The cache file's object ({} if absent). A file that is unreadable or not a JSON object is
        ignored with one log line; entries are checked where they are used (`valid_entry`)."""
        if self.path is None or not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except Exception as e:
            _ignored(self.path, f"{type(e).__name__}: {e}".splitlines()[0][:200])
            return {}
        if not isinstance(data, dict):
            _ignored(self.path, f"it holds a JSON {type(data).__name__}, not an object")
            return {}
        return data

    def _save(self, key: str, entry: dict) -> None:
        if self.path is None:
            return
        with _disk_lock:
            data = self._load()
            data[key] = entry
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                tmp = self.path.with_suffix(f".tmp{os.getpid()}")
                tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
                os.replace(tmp, self.path)
            except OSError:
                pass  # a read-only user dir only costs re-tuning next run

    def disk_key(self, call_key: tuple) -> str:
        return self.prefix + "|" + "x".join(str(x) for x in call_key)

    # --- choice -----------------------------------------------------------------------------
    def pick(self, call_key: tuple, q, k, v, layout: str, mask, scale, head_dim: int, exact: bool):
        kern = self.memo.get(call_key)
        if kern is not None:
            return kern
        with self._lock:
            kern = self.memo.get(call_key)
            if kern is not None:
                return kern
            dkey = self.disk_key(call_key)
            entry = self._load().get(dkey)
            why = None if entry is None else valid_entry(entry, self.by_name)
            if why is not None:
                _ignored(self.path, why)
            if entry is not None and why is None:
                kern = self.by_name[entry["winner"]]
                self.last[call_key] = dict(entry, source="disk")
            else:
                kern, entry = self._measure(q, k, v, layout, mask, scale, head_dim, exact)
                self.last[call_key] = dict(entry, source="measured")
                self._save(dkey, entry)
            self.memo[call_key] = kern
            return kern

    def _measure(self, q, k, v, layout, mask, scale, head_dim, exact):
        device = q.device
        usable = [c for c in self.candidates if c.why_not(q, head_dim, mask is not None, scale, exact) is None]
        if len(usable) <= 1:
            only = usable[0] if usable else self.primary
            return only, {"winner": only.name, "times_ms": {}, "rejected": {}}
        ref = None
        times, rejected = {}, {}
        for cand in usable:
            try:
                out, lay = invoke(cand, q, k, v, layout, mask if cand.supports_mask else None, scale)
                out = to_layout(out, lay, layout)
                if ref is None:
                    ref = out.float()
                    norm = ref.norm().clamp_min(1e-12)
                else:
                    err = float((out.float() - ref).norm() / norm)
                    if not err == err or err > self.tolerance:
                        rejected[cand.name] = f"result differs from {usable[0].name} (relative error {err:.3g})"
                        continue
                del out
                ms = time_call(lambda cand=cand: invoke(cand, q, k, v, layout,
                                                        mask if cand.supports_mask else None, scale),
                               device, self.warmup, self.reps)
                times[cand.name] = round(ms, 4)
            except Exception as e:
                rejected[cand.name] = f"{type(e).__name__}: {e}".splitlines()[0][:200]
        winner = min(times, key=times.get) if times else self.primary.name
        return self.by_name[winner], {"winner": winner, "times_ms": times, "rejected": rejected}


def call_key(b, h, hkv, lq, lk, d, dtype, layout: str, has_mask: bool, scale) -> tuple:
    return (b, h, hkv, lq, lk, d, str(dtype).replace("torch.", ""), layout, int(has_mask),
            "s" if scale is None else f"{scale:.6g}")


__all__ = ["Tuner", "call_key", "time_call", "BHLD"]
