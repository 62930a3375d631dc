"""What every bench script shares: the command line basics, the metadata block of a result file, the log, writing
JSON + Markdown, capturing an error into the result, and one way to compare two outputs.

A bench script (bench/*.py) starts with

    import runner  # bench/runner.py: shared CLI, metadata, result files, compare()
    ap = runner.parser(__doc__, smoke="tiny Wan on the CPU")   # --out and --smoke, with their help
    ...                                                         # the script's own flags
    a = ap.parse_args(argv)
    log = runner.Log("bench_foo")
    ...                                                         # after accel_harness.bootstrap()
    res = {..., "run_meta": runner.metadata(device)}            # GPU, torch, triton, ComfyUI, fa3, sage, command, date
    with runner.captured(res, "model 14B"):                     # an error lands in res["errors"], the run goes on
        ...
        row.update(runner.compare(out, ref))                    # cosine (float64), max_abs_diff, rel_l2
    runner.write(out_dir, "foo", res, markdown(res))            # foo.json + foo.md, after every step

Each script keeps its own flags, defaults, result file names and JSON keys (files under bench/results/ are read by
the figure tables, bench/figures.py and accel/common/figures.py, and by the --rerender paths); the runner only adds the
`run_meta` block.

The timer is not here: accel_harness.timing (`timed`, `interleaved`, `ab_forwards`) is the one timer, CUDA events on
a GPU. ComfyUI's version comes from accel_harness.comfy_version().
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import textwrap
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "harness") not in sys.path:
    sys.path.insert(0, str(REPO / "harness"))

SMOKE_HELP = ("tiny configs that run on the CPU in seconds to a few minutes (tiny random-weight models, small shapes, "
              "few steps and repeats): checks the script end to end and writes its result files; timings mean "
              "nothing. tests/benchmarks/test_bench_scripts.py and tests/benchmarks/test_bench_e2e.py run it")

EPILOG = """\
Shared flags (bench/runner.py):
  --out DIR   folder for this script's result files (<name>.json with every sample and a run_meta block: GPU,
              torch, triton, ComfyUI, fa3, sage, command, date, host; <name>.md the tables). Default: $OUT or ".".
  --smoke     {smoke}
Run one on your own GPU: bench/README.md, "Run a benchmark"."""
NO_SMOKE_EPILOG = "not in this script: it measures the CUDA GPU itself, there is nothing to run on a CPU."

# set by bench/run_parallel.sh for each command list: results taken while another list ran on the same host say so
SHARED_HOST_ENV = "ACCEL_BENCH_SHARED_HOST"

# distributions whose versions a result names (first installed name wins)
LIBRARIES = {"fa3": ("fa3-fwd", "fa3_fwd", "flash_attn_3", "flash-attn-3"), "sage": ("sageattention",),
             "flash_attn": ("flash-attn", "flash_attn")}


def parser(doc: str | None, smoke: str | None = "", *, full_doc: bool = False,
           out_help: str | None = None) -> argparse.ArgumentParser:
    """An ArgumentParser with the shared flags: --out (default $OUT or ".") and --smoke.

    doc: the script's docstring (its first line is the description, or all of it with full_doc). smoke: what
    --smoke runs in this script ("tiny Wan on the CPU"), prefixed to the shared text; None for a script that has
    no smoke mode (it must say why in a comment)."""
    text = (doc or "").strip()
    desc = text if full_doc else (text.splitlines()[0] if text else None)
    text = SMOKE_HELP + "." if smoke is not None else NO_SMOKE_EPILOG
    epilog = EPILOG.format(smoke=textwrap.fill(text, 112, initial_indent=" " * 14, subsequent_indent=" " * 14).lstrip())
    ap = argparse.ArgumentParser(description=desc, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("OUT", "."),
                    help=out_help or "folder for the result files (default: $OUT or the current folder)")
    if smoke is not None:
        ap.add_argument("--smoke", action="store_true",
                        help=(f"{smoke}. " if smoke else "") + "What every --smoke does: see Shared flags below")
    return ap


class Log:
    """log = Log("bench_foo"); log("msg") prints `[bench_foo   12.3s] msg`, seconds since the Log was made."""

    def __init__(self, name: str):
        self.name, self.t0 = name, time.time()

    def elapsed(self) -> float:
        return time.time() - self.t0

    def __call__(self, msg: str) -> None:
        print(f"[{self.name} {self.elapsed():7.1f}s] {msg}", flush=True)


# peer packs the benchmarks load (never vendored): where each is found, by environment variable and default (the GPU
# machine's carry: bench/prepare_gpu_carry.sh for KJNodes, bench/prepare_gguf_carry.sh for ComfyUI-GGUF)
PEER_PATHS = {"kjnodes": ("KJNODES_PATH", "/tmp/carry/kjnodes"), "gguf": ("GGUF_NODES_PATH", "/tmp/gguf/ComfyUI-GGUF")}


def peer_path(name: str) -> Path:
    """The checkout of peer pack `name` (PEER_PATHS): its environment variable, else the carry's default."""
    var, default = PEER_PATHS[name]
    return Path(os.environ.get(var, default))


def command() -> str:
    """The command line that started this process, as results record it."""
    return " ".join([sys.executable] + sys.argv)


def library_version(key: str) -> str | None:
    """Installed version of LIBRARIES[key] (fa3, sage, flash_attn), None if none is installed."""
    from importlib import metadata as md

    for dist in LIBRARIES.get(key, (key,)):
        try:
            return md.version(dist)
        except md.PackageNotFoundError:
            continue
    return None


def metadata(device=None) -> dict:
    """The block every result file carries (key `run_meta`): GPU name (or the CPU), torch, CUDA, cuDNN, triton,
    ComfyUI (accel_harness.comfy_version(), so call it after bootstrap), fa3 / sage / flash_attn versions, Python,
    command line, date (UTC), host and whether another benchmark shared the host (bench/run_parallel.sh)."""
    import torch

    import accel_harness as H

    dev = torch.device(device) if device is not None else torch.device("cuda" if torch.cuda.is_available() else "cpu")
    cuda = dev.type == "cuda"
    try:
        import triton

        triton_v = triton.__version__
    except Exception:  # noqa: BLE001 - no triton (CPU machines): recorded as None
        triton_v = None
    shared = os.environ.get(SHARED_HOST_ENV)
    return {
        "gpu": torch.cuda.get_device_name(dev) if cuda else (platform.processor() or "cpu"),
        "device": str(dev),
        "torch": torch.__version__, "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if cuda else None,
        "triton": triton_v, "comfyui": H.comfy_version(),
        **{k: library_version(k) for k in LIBRARIES},
        "python": platform.python_version(), "command": command(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "host": platform.node(),
        "shared_host": shared or "no (not started by bench/run_parallel.sh)",
    }


def meta_markdown(meta: dict | None) -> list[str]:
    """Markdown lines for a metadata() block (nothing for a result written before the runner had one)."""
    if not meta:
        return []
    libs = ", ".join(f"{k} {meta.get(k)}" for k in LIBRARIES if meta.get(k)) or "no fa3 / sage / flash_attn"
    return [f"- {meta.get('gpu')}: torch {meta.get('torch')}, CUDA {meta.get('cuda')}, triton {meta.get('triton')}, "
            f"ComfyUI {meta.get('comfyui')}, {libs}",
            f"- command: `{meta.get('command')}`",
            f"- {meta.get('date')} on {meta.get('host')}; shared host: {meta.get('shared_host')}"]


def write(out: str | os.PathLike, name: str, res: dict, markdown: str | list[str] | None = None,
          indent: int = 1) -> Path:
    """out/<name>.json (res, non-JSON values as str) and out/<name>.md (markdown, if given); returns the JSON path.
    Scripts call it after every step, so a run stopped by a time limit keeps what it measured."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    path.write_text(json.dumps(res, indent=indent, default=str))
    if markdown is not None:
        text = "\n".join(markdown) + "\n" if isinstance(markdown, list) else markdown
        (out / f"{name}.md").write_text(text)
    return path


@contextlib.contextmanager
def captured(res: dict, label: str, limit: int | None = None, log=None):
    """with captured(res, "model 14B"): ... - an exception inside goes into res["errors"] (a list gets
    "label: traceback", a dict gets {label: traceback}) and the run goes on with the next step."""
    try:
        yield
    except Exception:  # noqa: BLE001 - the point: one failed measurement must not lose the others
        tb = traceback.format_exc(limit=limit)
        errs = res.setdefault("errors", [])
        if isinstance(errs, dict):
            errs[label] = tb
        else:
            errs.append(f"{label}: {tb}")
        if log is not None:
            log(f"{label} FAILED: {tb.strip().splitlines()[-1]}")


def failed_entry(res: dict, label: str, e: BaseException, log=None) -> dict:
    """The result entry of a measurement that raised (call it inside the `except`): {"error", "traceback"}; the error
    also goes into res["errors"] and the log, and the run goes on with the next measurement."""
    err = f"{label}: {type(e).__name__}: {e}"
    res.setdefault("errors", []).append(err)
    if log is not None:
        log("FAILED " + err)
    return {"error": err, "traceback": traceback.format_exc()[-3000:]}


def compare(a, b, *, psnr: bool = False) -> dict:
    """a (candidate) vs b (reference), both flattened, in float64 (float32 sums overshoot 1.0 on 10^7 elements):

    cosine = <a, b> / (|a| |b|) (1.0 for equal tensors, 0.0 when one is all zeros), max_abs_diff = max |a - b|,
    rel_l2 = |a - b| / |b|, and with psnr=True psnr_db = 20 log10(max(b) - min(b)) - 10 log10(mean((a - b)^2))
    (inf for equal tensors; the peak is the reference's range). Plain floats, unrounded: scripts round as their
    result files always did."""
    import torch

    x = a.detach().flatten().to(torch.float64)
    y = b.detach().flatten().to(torch.float64).to(x.device)
    if x.shape != y.shape:
        raise ValueError(f"compare: {tuple(a.shape)} vs {tuple(b.shape)} differ in size ({x.numel()} vs {y.numel()} "
                         "elements); compare outputs of the same shape")
    # dot products, not elementwise products: at 10^8-element outputs every float64 temporary is GiBs
    na, nb, xy = float(torch.dot(x, x)), float(torch.dot(y, y)), float(torch.dot(x, y))
    equal = torch.equal(x, y)
    d = x - y
    del x
    nd2 = float(torch.dot(d, d))
    if equal:
        cos = 1.0
    elif na == 0.0 or nb == 0.0:
        cos = 0.0
    else:
        cos = max(-1.0, min(1.0, xy / math.sqrt(na * nb)))
    nd = math.sqrt(nd2)
    out = {"cosine": cos, "max_abs_diff": float(d.abs_().max()) if d.numel() else 0.0,
           "rel_l2": nd / math.sqrt(nb) if nb > 0 else (0.0 if nd == 0.0 else math.inf)}
    if psnr:
        mse = nd2 / d.numel() if d.numel() else 0.0
        peak = float(y.max() - y.min()) if y.numel() else 0.0
        out["psnr_db"] = (20 * math.log10(peak) - 10 * math.log10(mse)) if mse > 0 and peak > 0 else (
            math.inf if mse == 0 else -math.inf)
    return out


# --- where the GPU time goes ---------------------------------------------------------------------------------

KERNEL_CATEGORIES = (
    ("attention", ("flash", "fmha", "attention", "attn", "cudnn_generated_fort_native_sdpa", "sdpa")),
    # cuDNN's convolutions (implicit-GEMM forward kernels are named fprop; attention's fprop is caught above)
    ("convolution", ("fprop", "implicit_gemm", "convolve", "convolution", "conv2d", "conv3d", "conv_depthwise",
                     "winograd")),
    ("matmul",
     ("gemm", "xmma", "cutlass", "nvjet", "sm90_", "sm80_", "ampere_", "mm_", "_mm", "matmul", "f8f8", "addmm",
                "aten::mm", "bmm")),
    # FP8 activation quantization and scaling: kernels.fp8_linear_triton's kernels, torch's float8 casts (the
    # dequantize path's weight casts included); inductor's fused kernels that take an amax (see category())
    ("fp8 quantize", ("_quant_", "quantize", "float8", "e4m3", "e5m2", "fp8")),
    ("triton", ("triton",)),
    ("copy/cast", ("copy", "convert", "cast", "to_copy", "memcpy", "memset")),
)


def kernel_category(name: str) -> str:
    """A kernel's category by its name. Inductor's kernels (`triton_...`) are named after the ops they fused, so one
    that feeds attention mentions it: they count as `triton`, or `fp8 quantize` where they take an amax or clamp a
    division (kernels.fp8_linear's quantization, traced under compile and fused into the op that produces the
    activation); inductor's templates (`triton_tem_...`) are matmuls, or attention for flex attention's."""
    low = name.lower()
    if low.startswith("triton_tem"):
        return "attention" if "flex" in low else "matmul"
    if low.startswith("triton_"):
        return "fp8 quantize" if "amax" in low or ("clamp" in low and "div" in low) else "triton"
    for cat, keys in KERNEL_CATEGORIES:
        if any(k in low for k in keys):
            return cat
    return "other elementwise"


def kernel_times(prof, cuda: bool) -> dict:
    """{kernel name: ms} of one torch.profiler run: device self time per kernel on a GPU; on the CPU (smoke) every op's
    self CPU time, so the script runs end to end (those figures mean nothing). GPU-side ranges of user annotations
    (record_function, e.g. a compiled region's) span kernels and gaps: not kernels, left out as torch's own table
    does."""
    kern = {}
    for e in prof.key_averages():
        if getattr(e, "is_user_annotation", False):
            continue
        t_us = getattr(e, "self_device_time_total", None)
        if t_us is None:
            t_us = getattr(e, "self_cuda_time_total", 0)
        if not cuda:
            t_us = e.self_cpu_time_total
        if t_us and t_us > 0 and (not cuda or getattr(e, "device_type", None) is None or "CUDA" in str(e.device_type)):
            kern[e.key] = kern.get(e.key, 0.0) + t_us / 1000.0
    return kern


def host_ops(prof, top: int) -> list:
    """[(name, calls, self CPU ms)] of the `top` host-side events by self CPU time: torch ops, CUDA runtime calls
    (`cudaStreamSynchronize`, `cudaMemcpyAsync`, launches) and user annotations, longest first. Where the GPU idles
    between kernels this names what the host was doing (a synchronizing copy, launch overhead, Python-side work
    shows as the gap these do not cover)."""
    rows = []
    for e in prof.key_averages():
        if "CUDA" in str(getattr(e, "device_type", "")):
            continue
        t_us = getattr(e, "self_cpu_time_total", 0) or 0
        if t_us > 0:
            rows.append((e.key[:90], int(e.count), round(t_us / 1000.0, 2)))
    return sorted(rows, key=lambda r: -r[2])[:top]


def kernel_summary(kern: dict, top: int) -> dict:
    """category_ms, kernel_total_ms and the `top` kernels ((name, ms, category), longest first) of kernel_times()."""
    cats = {}
    for k, t_ms in kern.items():
        c = kernel_category(k)
        cats[c] = cats.get(c, 0.0) + t_ms
    return {"category_ms": {k: round(t, 2) for k, t in sorted(cats.items(), key=lambda kv: -kv[1])},
            "kernel_total_ms": round(sum(kern.values()), 2),
            "top": [(k[:110], round(t, 2),
                     kernel_category(k)) for k, t in sorted(kern.items(), key=lambda kv: -kv[1])[:top]]}


def device_intervals(prof, kind: str = "all") -> list:
    """[(start_us, end_us)] of every GPU kernel / memcpy / memset of a torch.profiler run ([] on the CPU); user
    annotations' GPU-side ranges (record_function regions) are not kernels and are left out. `kind`: "all", "copy"
    (the memcpys: weight transfers of a streamed model) or "compute" (everything else)."""
    out = []
    for e in prof.events():
        if getattr(e, "is_user_annotation", False):
            continue
        if "CUDA" in str(getattr(e, "device_type", "")) and getattr(e, "time_range", None) is not None:
            if kind != "all" and is_copy_event(e.name) != (kind == "copy"):
                continue
            out.append((float(e.time_range.start), float(e.time_range.end)))
    return out


def is_copy_event(name: str) -> bool:
    """A device event that moves memory between host and device or between buffers (torch.profiler names them
    `Memcpy HtoD (Pinned -> Device)` and the like), not a compute kernel."""
    return name.startswith("Memcpy")


def copy_overlap(copy: list, compute: list) -> dict:
    """How the copies of a run sat against its compute (both [(start_us, end_us)]): copy ms, compute-busy ms, and the
    copy ms during which no compute ran (the GPU waited on the transfer: a streamed model's weights fetched without
    overlap)."""
    c, k = busy_ms(copy), busy_ms(compute)
    alone = busy_ms(copy + compute) - k
    return {"copy_ms": round(c, 1), "compute_busy_ms": round(k, 1), "copy_alone_ms": round(alone, 1)}


def busy_ms(intervals) -> float:
    """Milliseconds covered by the union of [start_us, end_us) intervals (kernels of two streams overlapping count
    once)."""
    total, end = 0.0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total / 1000.0


def _short_path(path: str, width: int) -> str:
    """A source path as the host tables print it: from the carried site-packages / ComfyUI tree / custom node on."""
    return path.split("/site/")[-1].split("/comfy033/")[-1].split("/custom_nodes/")[-1][-width:]


def sync_sites(fn, top: int = 10, keep: int = 6) -> tuple[list, object]:
    """Run fn() once with torch's CUDA sync debug mode on (`torch.cuda.set_sync_debug_mode("warn")`: every call that
    makes the host wait for the GPU — a stream synchronize, a value read back, a copy from pageable memory — warns)
    and group those waits by the Python frames that led there. Returns ([(calls, [frames, innermost first])], fn's
    result). A profile shows the GPU idling between kernels; this names the lines that made it idle."""
    import traceback
    import warnings

    import torch

    groups: dict = {}

    def show(message, category, filename, lineno, file=None, line=None):
        if "synchroniz" not in str(message):
            return
        frames = []
        for fs in reversed(traceback.extract_stack()[:-1]):
            f = fs.filename
            if f.endswith("warnings.py") or "/torch/" in f:
                continue
            frames.append(f"{_short_path(f, 80)}({fs.lineno}): {fs.name}")
            if len(frames) == keep:
                break
        k = tuple(frames)
        groups[k] = groups.get(k, 0) + 1

    old = torch.cuda.get_sync_debug_mode()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        torch.cuda.set_sync_debug_mode("warn")
        try:
            out = fn()
        finally:
            torch.cuda.set_sync_debug_mode(old)
    return [[c, list(f)] for f, c in sorted(groups.items(), key=lambda kv: -kv[1])[:top]], out


def host_profile(fn, top: int = 25) -> tuple[list, object]:
    """Run fn() once under Python's cProfile: [(function 'path(line): name', calls, own ms, cumulative ms)] of the `top`
    functions by own time (Python time spent in the function itself, C calls it makes included), then fn's result.
    Where a chain is host-bound (GPU-busy share well below 1, host time per forward near its GPU time) this names the
    Python functions that cost the time. cProfile slows Python code (every call is traced): compare the functions'
    shares, not the absolute times, with unprofiled runs. `host_profile_tables` gives the same run by cumulative time
    too."""
    tables, out = host_profile_tables(fn, top)
    return tables["own"], out


def host_profile_tables(fn, top: int = 25) -> tuple[dict, object]:
    """As `host_profile`, with two tables of the one cProfile run: {"own": by own time, "cumulative": by cumulative
    time (a function and everything it calls: which layer of the call stack holds the time)}."""
    import cProfile
    import pstats

    pr = cProfile.Profile()
    out = pr.runcall(fn)
    st = pstats.Stats(pr)
    rows = []
    for (path, line, name), (_cc, nc, tt, ct, _callers) in st.stats.items():
        rows.append((f"{_short_path(path, 70)}({line}): {name}", int(nc), round(tt * 1e3, 2), round(ct * 1e3, 2)))
    own = sorted(rows, key=lambda r: -r[2])[:top]
    cum = sorted(rows, key=lambda r: -r[3])[:top]
    return {"own": [list(r) for r in own], "cumulative": [list(r) for r in cum]}, out


SPAN_PREFIX = "model call"


def call_spans(model, label: str, counter: list):
    """A clone of the ModelPatcher `model` whose every model call (ComfyUI's `model_function_wrapper`, around
    `apply_model` in the sampler) runs inside a torch.profiler range `model call N (label)`, N counting up over the
    clones sharing `counter` (a one-item list): a profiled run then splits by model call (`span_split`). `model` itself
    where it has a `model_function_wrapper` already (its own wrapper stays in charge; no split)."""
    if model.model_options.get("model_function_wrapper") is not None:
        return model

    def wrapper(apply_model, args):
        import torch

        counter[0] += 1
        with torch.profiler.record_function(f"{SPAN_PREFIX} {counter[0]} ({label})"):
            return apply_model(args["input"], args["timestep"], **args["c"])

    m = model.clone()
    m.set_model_unet_function_wrapper(wrapper)
    return m


def span_split(prof, copies: list, compute: list) -> list:
    """Per `call_spans` range of a profiled run, in the order they ran: {name, host_ms} (the host's time in the call:
    it may return before the GPU finishes), and on a GPU the call's device window (the range's GPU side, from its
    first kernel to its last): window_ms, busy_ms (kernels and copies), copy_ms, copy_alone_ms (copies with no compute
    beside them: weights fetched without overlap, `copy_overlap`) and idle_ms (the window less busy: the GPU waited on
    the host). `copies`, `compute`: the run's `device_intervals` ([] on the CPU). [] where the run had no such
    ranges."""
    host, dev = {}, {}
    for e in prof.events():
        if not e.name.startswith(SPAN_PREFIX) or getattr(e, "time_range", None) is None:
            continue
        on_gpu = "CUDA" in str(getattr(e, "device_type", ""))
        (dev if on_gpu else host).setdefault(e.name, (float(e.time_range.start), float(e.time_range.end)))
    spans = []
    for name, (s0, s1) in sorted(host.items(), key=lambda kv: kv[1][0]):
        row = {"name": name, "host_ms": round((s1 - s0) / 1000.0, 1)}
        if name in dev:
            w0, w1 = dev[name]
            cp = [(max(a, w0), min(b, w1)) for a, b in copies if b > w0 and a < w1]
            co = [(max(a, w0), min(b, w1)) for a, b in compute if b > w0 and a < w1]
            busy = busy_ms(cp + co)
            row.update({"window_ms": round((w1 - w0) / 1000.0, 1), "busy_ms": round(busy, 1), **copy_overlap(cp, co),
                        "idle_ms": round((w1 - w0) / 1000.0 - busy, 1)})
        spans.append(row)
    return spans


def profile_kernels(fn, top: int = 12) -> tuple[dict, object]:
    """Run fn() once under torch.profiler (CPU + CUDA activity): wall ms, GPU kernel ms (`kernel_times`) by category
    (`kernel_summary`), the `top` kernels, `gpu_busy` = busy ms (the union of the kernel intervals, `busy_ms`) /
    wall ms (the rest: launch overhead, host work, waits), and on a GPU `copy_overlap`'s copy / compute split.
    Returns (summary, fn's result). Profiling adds host overhead: compare categories and kernels, not the wall time,
    with unprofiled runs. On the CPU (smoke) torch ops stand in for kernels."""
    import time

    import torch
    from torch.profiler import ProfilerActivity, profile

    cuda = torch.cuda.is_available()
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    sync()
    with profile(activities=[ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])) as prof:
        t0 = time.perf_counter()
        out = fn()
        sync()
        wall = (time.perf_counter() - t0) * 1e3
    s = kernel_summary(kernel_times(prof, cuda), top)
    split, busy, copies, compute = {}, s["kernel_total_ms"], [], []
    if cuda:
        copies, compute = device_intervals(prof, "copy"), device_intervals(prof, "compute")
        split, busy = copy_overlap(copies, compute), busy_ms(copies + compute)
    out_s = {"wall_ms": round(wall, 1), "kernel_ms": round(s["kernel_total_ms"], 1), "busy_ms": round(busy, 1),
             "gpu_busy": round(busy / wall, 3) if wall > 0 else None, **split,
             "by_category_ms": {k: round(v, 1) for k, v in s["category_ms"].items()},
             "top": [[n, round(ms, 1), c] for n, ms, c in s["top"]],
             "host_top": [list(r) for r in host_ops(prof, top)]}
    calls = span_split(prof, copies, compute)
    if calls:
        out_s["calls"] = calls
    return out_s, out


# --- a simulated small card ----------------------------------------------------------------------------------

def gpu_total_gib() -> float | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.total", "--format=csv,noheader,nounits", "-i", "0"],
                             capture_output=True, text=True, timeout=20).stdout.strip()
        return float(out.splitlines()[0]) / 1024
    except Exception:  # noqa: BLE001
        return None


def gpu_free_gib(gpu: int = 0) -> float | None:
    """Free memory of GPU `gpu` (nvidia-smi's index), None without nvidia-smi."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.free", "--format=csv,noheader,nounits", "-i", str(gpu)],
                             capture_output=True, text=True, timeout=20).stdout.strip()
        return float(out.splitlines()[0]) / 1024
    except Exception:  # noqa: BLE001
        return None


def occupy(card_gib: float, total_gib: float, log=print, gpu: int | None = None):
    """A simulated small card (`--card N --occupy`): a child process holding (total - card) GiB of the GPU (a plain
    allocation through torch) until `release`d, started before ComfyUI so that every allocator sees only N GiB.
    `gpu`: that GPU's index instead of the first visible one."""
    n = int((total_gib - card_gib) * 2 ** 30)
    if n <= 0:
        return None
    # Where (total - card) no longer fits once this process's own CUDA context is made (total_gib given as the free
    # memory, not the card's size), it holds what leaves card_gib free instead.
    keep = int(card_gib * 2 ** 30)
    code = ("import torch, sys\n"
            f"try:\n    x = torch.empty({n}, dtype=torch.uint8, device='cuda')\n"
            "except torch.OutOfMemoryError:\n"
            f"    x = torch.empty(torch.cuda.mem_get_info()[0] - {keep}, dtype=torch.uint8, device='cuda')\n"
            "print('occupied', flush=True); sys.stdin.read()")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(gpu)) if gpu is not None else None
    p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         env=env)
    line = p.stdout.readline().strip()
    if line != "occupied":
        p.kill()
        raise RuntimeError(f"could not occupy {n / 2 ** 30:.1f} GiB of the GPU")
    log(f"occupied {n / 2 ** 30:.1f} GiB of {total_gib:.1f} GiB in process {p.pid}: a {card_gib:g} GiB card remains")
    return p


def release(occupier) -> None:
    """End an `occupy` child (None: nothing to do)."""
    if occupier is None:
        return
    occupier.stdin.close()
    try:
        occupier.wait(timeout=30)
    except Exception:  # noqa: BLE001 - it did not exit: kill it
        occupier.kill()
