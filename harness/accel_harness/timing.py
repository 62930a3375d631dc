"""Timing for the GPU benchmarks: one timer (the pack's own, kernels.attention.autotune.time_call, which
the attention autotuner uses), fair side-by-side rounds on a GPU that heats up, and what the GPU's
clocks, power and temperature were while each candidate ran.

`timed(fn, device, warmup, reps)` -> (median ms, every ms, last result): CUDA events on GPUs.

Timing candidates one after another (eager first, then compiled) lets a GPU that warms up and reaches
its power or thermal limit during the run charge the later candidate for it. `interleaved` alternates
the candidates in mirrored order (A B, B A, A B, ...), so a slow drift costs each the same, and returns
each candidate's median and the median of the per-round ratios. `GpuMonitor` samples `nvidia-smi`
in a thread and files each sample under the candidate running at that moment, so a result can say
"the compiled forward ran at 1410 MHz, eager at 1440 MHz, both power-capped in every sample".

Both run on the CPU too (no nvidia-smi: the monitor records nothing and says so), which is how the
tests check them.
"""
from __future__ import annotations

import shutil
import statistics
import subprocess
import threading


def timed(fn, device, warmup: int = 1, reps: int = 3):
    """(median ms, [ms of each call], result of the last call) of fn(), timed by the pack's time_call."""
    import torch

    from .env import pack_module

    time_call = pack_module("kernels.attention.autotune").time_call
    box = {}

    def call():
        box["out"] = fn()

    times: list = []
    med = time_call(call, torch.device(device), warmup=warmup, reps=reps, times=times)
    return med, times, box.get("out")


def first_call(fn, device):
    """(wall seconds, result) of one call, synchronized before and after: a compile's first call."""
    import time

    import torch

    dev = torch.device(device)

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)

    sync()
    t = time.perf_counter()
    out = fn()
    sync()
    return time.perf_counter() - t, out


FIELDS = ("clocks.sm", "power.draw", "temperature.gpu", "clocks_event_reasons.active")
# nvidia-smi's clock event (throttle) reason bits that slow the SM clock
REASONS = {0x4: "sw_power_cap", 0x8: "hw_slowdown", 0x20: "sw_thermal", 0x40: "hw_thermal", 0x80: "hw_power_brake"}


def parse_sample(line: str) -> dict | None:
    """One `nvidia-smi --query-gpu=<FIELDS> --format=csv,noheader,nounits` line of GPU 0 -> dict."""
    parts = [p.strip() for p in line.strip().split(",")]
    if len(parts) != len(FIELDS):
        return None
    try:
        sm, power, temp = float(parts[0]), float(parts[1]), float(parts[2])
    except ValueError:
        return None
    try:
        reasons = int(parts[3], 16) if parts[3].lower().startswith("0x") else int(parts[3])
    except ValueError:
        reasons = 0
    return {"sm_mhz": sm, "power_w": power, "temp_c": temp, "reasons": reasons}


def summarize(samples: list[dict]) -> dict:
    """Median SM clock / power, max temperature, and the share of samples with each slowdown reason."""
    if not samples:
        return {"samples": 0}
    out = {"samples": len(samples),
           "sm_mhz_median": round(statistics.median(s["sm_mhz"] for s in samples)),
           "sm_mhz_min": round(min(s["sm_mhz"] for s in samples)),
           "power_w_median": round(statistics.median(s["power_w"] for s in samples), 1),
           "temp_c_max": max(s["temp_c"] for s in samples)}
    for bit, name in REASONS.items():
        share = sum(1 for s in samples if s["reasons"] & bit) / len(samples)
        if share:
            out[f"share_{name}"] = round(share, 2)
    return out


class GpuMonitor:
    """with GpuMonitor() as mon: mon.phase("eager"); ...; mon.phase(None); mon.summary() -> {label: {...}}"""

    def __init__(self, interval_s: float = 0.1, gpu: int = 0, command: list[str] | None = None):
        self.interval_s = interval_s
        self.command = command or ["nvidia-smi", "-i", str(gpu), "--query-gpu=" + ",".join(FIELDS),
                                   "--format=csv,noheader,nounits"]
        self.available = command is not None or shutil.which("nvidia-smi") is not None
        self.error = None if self.available else "nvidia-smi not found"
        self._label = None
        self._samples: dict[str, list[dict]] = {}
        self._stop = threading.Event()
        self._thread = None

    def phase(self, label: str | None) -> None:
        self._label = label

    def _poll(self):
        while not self._stop.is_set():
            label = self._label
            if label is not None:
                try:
                    p = subprocess.run(self.command, capture_output=True, text=True, timeout=5)
                    s = parse_sample(p.stdout.splitlines()[0]) if p.returncode == 0 and p.stdout else None
                    if s is None:
                        self.error = self.error or f"unreadable nvidia-smi output: {(p.stdout or p.stderr)[:200]!r}"
                    elif self._label == label:  # still the same phase once the reading came back
                        self._samples.setdefault(label, []).append(s)
                except Exception as e:  # noqa: BLE001 - a monitor must never break the benchmark
                    self.error = f"{type(e).__name__}: {e}"
            self._stop.wait(self.interval_s)

    def __enter__(self):
        if self.available:
            self._thread = threading.Thread(target=self._poll, name="accel-gpumon", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        return False

    def summary(self) -> dict:
        out = {label: summarize(s) for label, s in self._samples.items()}
        if self.error:
            out["_error"] = self.error
        return out


def interleaved(fns: dict, rounds: int, reps: int, timer, monitor: GpuMonitor | None = None) -> dict:
    """Time candidates in alternating, mirrored order. fns: {label: what timer takes (a callable, a
    model patcher, ...)}; the first label is the baseline. timer(fns[label], reps) -> median ms of reps
    calls (e.g. the pack's kernels.attention.autotune.time_call).

    Returns {"rounds": [{label: ms}], "median_ms": {label: ms}, "speedup": {label: median over rounds of
    baseline_ms / label_ms}, "order": [[labels in the order they ran]]}."""
    if rounds < 1 or reps < 1 or len(fns) < 2:
        raise ValueError("interleaved: needs >= 2 candidates, rounds >= 1 and reps >= 1")
    labels = list(fns)
    base = labels[0]
    per_round, order = [], []
    for i in range(rounds):
        seq = labels if i % 2 == 0 else labels[::-1]
        row = {}
        for label in seq:
            if monitor is not None:
                monitor.phase(label)
            try:
                row[label] = round(float(timer(fns[label], reps)), 3)
            finally:
                if monitor is not None:
                    monitor.phase(None)
        per_round.append(row)
        order.append(list(seq))
    med = {k: round(statistics.median(r[k] for r in per_round), 3) for k in labels}
    speed = {k: round(statistics.median(r[base] / r[k] for r in per_round), 4) for k in labels if k != base}
    return {"rounds": per_round, "median_ms": med, "speedup": speed, "order": order}



def ab_forwards(patchers: dict, x, context, sigma, device, rounds: int = 4, reps: int = 3) -> dict:
    """Whole diffusion-model forwards of several MODELs (ModelPatchers; the first is the baseline) in
    interleaved rounds, each round the median of `reps` forwards after one warm-up, with nvidia-smi
    sampled per candidate. Returns interleaved()'s dict plus "gpu": {label: clock/power summary}."""
    from .forward import Forward

    def timer(patcher, n):
        with Forward(patcher) as f:
            return timed(lambda: f(x, sigma, context), device, warmup=1, reps=n)[0]

    with GpuMonitor() as mon:
        r = interleaved(patchers, rounds=rounds, reps=reps, timer=timer, monitor=mon)
    r["gpu"] = mon.summary()
    return r


def ab_markdown(rows: list[tuple[str, str, dict]]) -> list[str]:
    """Markdown lines for [(model, candidate label, ab_forwards() result)]: the table the benchmarks print."""
    if not rows:
        return []
    lines = ["Interleaved: the baseline and the candidate alternate in mirrored order (B C, C B, ...), each round "
             "the median of a few forwards after one warm-up; speedup = median over rounds of baseline/candidate "
             "(range in brackets). GPU columns: nvidia-smi samples while each ran (SM clock median, power median, "
             "max temperature, share of samples with the software power cap active).", "",
             "| model | candidate | rounds | baseline ms | candidate ms | speedup (range) | SM MHz base / cand | "
             "power W base / cand | max temp C | power-capped base / cand |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    errs = set()
    for model, name, r in rows:
        base = next(iter(r["median_ms"]))
        g = r.get("gpu", {})
        gb, gc = g.get(base, {}), g.get(name, {})
        ratios = [row[base] / row[name] for row in r["rounds"]]
        pair = lambda k, gb=gb, gc=gc: f"{gb.get(k, '-')} / {gc.get(k, '-')}"  # noqa: E731
        lines.append(f"| {model} | {name} (vs {base}) | {len(r['rounds'])} | {r['median_ms'][base]} | "
                     f"{r['median_ms'][name]} | {r['speedup'][name]} ({min(ratios):.3f}-{max(ratios):.3f}) | "
                     f"{pair('sm_mhz_median')} | {pair('power_w_median')} | "
                     f"{max(gb.get('temp_c_max', 0), gc.get('temp_c_max', 0)) or '-'} | {pair('share_sw_power_cap')} |")
        if g.get("_error"):
            errs.add(g["_error"])
    if errs:
        lines += ["", f"GPU monitor: {'; '.join(sorted(errs))}"]
    return lines
