"""bench/runner.py, the one runner every bench script uses: compare() against hand-computed values, the result
writer and error capture, and every bench/*.py on it (its --help shows the shared flags), so a new script cannot
drift back to its own CLI, metadata and cosine."""
import importlib.util
import json
import math
import re
import subprocess
import sys

import pytest

import accel_harness as H

BENCH = H.REPO_ROOT / "bench"
# scripts without --smoke, each saying why in a "# no --smoke:" comment: they measure the CUDA GPU itself
NO_SMOKE = {"gpu_check", "attention_layout"}


def _runner():
    spec = importlib.util.spec_from_file_location("bench_runner_under_test", BENCH / "runner.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# modules the scripts import, and the lab's own tools that measure nothing (the figure table, its check, the
# results page generator)
LIBRARIES = {"runner.py", "families.py", "figures.py", "figure_check.py", "results_doc.py"}


def _scripts():
    return sorted(p for p in BENCH.glob("*.py") if p.name not in LIBRARIES)


def test_compare_hand_computed(comfy):
    import torch

    R = _runner()
    a, b = torch.tensor([1.0, 2.0, 2.0]), torch.tensor([2.0, 2.0, 1.0])
    # <a, b> = 2 + 4 + 2 = 8, |a| = |b| = 3; a - b = (-1, 0, 1): max 1, |a - b| = sqrt(2); mse = 2/3, range(b) = 1
    c = R.compare(a, b, psnr=True)
    assert c["cosine"] == pytest.approx(8 / 9, abs=1e-15)
    assert c["max_abs_diff"] == 1.0
    assert c["rel_l2"] == pytest.approx(math.sqrt(2) / 3, abs=1e-15)
    assert c["psnr_db"] == pytest.approx(10 * math.log10(1.5), abs=1e-12)  # 20 log10(1) - 10 log10(2/3)
    assert set(R.compare(a, b)) == {"cosine", "max_abs_diff", "rel_l2"}  # PSNR only when asked
    # any dtype and shape in, float64 math: bf16 holds these values exactly
    c16 = R.compare(a.to(torch.bfloat16).view(3, 1), b.to(torch.bfloat16))
    assert c16["cosine"] == pytest.approx(8 / 9, abs=1e-15) and isinstance(c16["cosine"], float)
    # equal tensors: exactly 1.0 (float32 sums of 10^7 elements overshoot 1.0; float64 and the equality check not)
    big = torch.randn(10**6, generator=torch.Generator().manual_seed(0))
    same = R.compare(big, big.clone(), psnr=True)
    assert same == {"cosine": 1.0, "max_abs_diff": 0.0, "rel_l2": 0.0, "psnr_db": math.inf}
    assert R.compare(-a, a)["cosine"] == -1.0
    assert R.compare(torch.zeros(3), b)["cosine"] == 0.0 and R.compare(torch.zeros(3), b)["rel_l2"] == 1.0
    with pytest.raises(ValueError, match=r"3 vs 4 elements"):
        R.compare(a, torch.ones(4))


def test_write_and_captured_keep_a_failed_step(tmp_path):
    R = _runner()
    res = {"errors": []}
    with R.captured(res, "model 14B"):
        raise RuntimeError("out of memory")
    with R.captured(res, "micro"):
        pass
    assert len(res["errors"]) == 1 and res["errors"][0].startswith("model 14B: Traceback")
    assert "RuntimeError: out of memory" in res["errors"][0]
    as_dict = {"errors": {}}
    with R.captured(as_dict, "warmup"):
        raise ValueError("bad")
    assert list(as_dict["errors"]) == ["warmup"] and "ValueError: bad" in as_dict["errors"]["warmup"]
    with pytest.raises(KeyboardInterrupt):  # only Exception is captured: Ctrl-C still stops the run
        with R.captured(res, "x"):
            raise KeyboardInterrupt
    path = R.write(tmp_path / "out", "foo", {"a": 1, "p": tmp_path}, ["# Foo", "", "| a |"])
    assert json.loads(path.read_text()) == {"a": 1, "p": str(tmp_path)}
    assert (tmp_path / "out" / "foo.md").read_text() == "# Foo\n\n| a |\n"


def test_metadata_names_versions_command_and_host_sharing(comfy, monkeypatch):
    R = _runner()
    monkeypatch.delenv(R.SHARED_HOST_ENV, raising=False)
    m = R.metadata("cpu")
    import torch

    assert m["torch"] == torch.__version__ and m["comfyui"] == H.comfy_version() != "unknown"
    assert {"gpu", "triton", "fa3", "sage", "command", "date", "host"} <= set(m)
    assert m["shared_host"].startswith("no") and re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", m["date"])
    monkeypatch.setenv(R.SHARED_HOST_ENV, "list 0 of 2")
    assert R.metadata("cpu")["shared_host"] == "list 0 of 2"
    md = R.meta_markdown(R.metadata("cpu"))
    assert any(f"ComfyUI {m['comfyui']}" in line for line in md) and any("list 0 of 2" in line for line in md)
    assert R.meta_markdown(None) == []  # result files written before run_meta existed (--rerender) render as before


def test_every_bench_script_uses_the_shared_runner():
    """Each bench/*.py imports runner and builds its CLI with runner.parser: --help shows the shared epilog, --out and
    (but for the GPU-only NO_SMOKE scripts, which say why) --smoke with the shared text; none computes its own
    cosine."""
    R = _runner()
    scripts = _scripts()
    assert len(scripts) >= 14, [p.name for p in scripts]
    smoke_words = " ".join(R.SMOKE_HELP.split()[:8])
    for path in scripts:
        src = path.read_text()
        assert re.search(r"^import runner\b", src, re.M), f"{path.name}: does not import bench/runner.py"
        assert "runner.parser(" in src and "argparse.ArgumentParser(" not in src, f"{path.name}: own ArgumentParser"
        assert "cosine_similarity" not in src, f"{path.name}: computes cosine itself; use runner.compare"
        r = subprocess.run([sys.executable, str(path), "--help"], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, (path.name, r.stderr[-2000:])
        text = " ".join(r.stdout.split())
        assert "Shared flags (bench/runner.py)" in text and "--out OUT" in text, (path.name, text[:500])
        if path.stem in NO_SMOKE:
            assert "--smoke" not in r.stdout.split("Shared flags")[0] and "# no --smoke:" in src, path.name
        else:
            assert "[--smoke]" in text and smoke_words in text, (path.name, text[:800])


def _bench_matrix():
    """bench/bench_matrix.py as a module (its imports of runner.py and families.py from bench/)."""
    spec = importlib.util.spec_from_file_location("bench_matrix_under_test", BENCH / "bench_matrix.py")
    bm = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(BENCH))
    try:
        spec.loader.exec_module(bm)
    finally:
        sys.path.remove(str(BENCH))
    return bm


def test_matrix_marks_a_chain_whose_timed_runs_differ_more_than_twice_as_unstable(tmp_path):
    """A Qwen-Image run with every chain's model in one process (they did not all fit an 80 GB card) timed stock at
    5.4 s and 65.8 s: DynamicVRAM reloaded weights between chains. Such a row must say it is no speed measurement."""
    bm = _bench_matrix()
    res = {"command": "bench_matrix.py --family qwen_image", "errors": [], "meta": {"family": "wan"},
           "chains": {"stock": {"what": "stock", "times_s": [5.362, 65.774]},
                      "attention": {"what": "attention", "times_s": [4.64, 6.09]}}}
    (tmp_path / "matrix.json").write_text(json.dumps(res))
    bm.rerender(tmp_path)
    out = json.loads((tmp_path / "matrix.json").read_text())["chains"]
    assert "unstable" in out["stock"] and "unstable" not in out["attention"]
    assert out["attention"]["speedup"] == round(65.774 / 6.09, 3)  # the median of two is the slower run
    md = (tmp_path / "matrix.md").read_text()
    assert "Unstable, not a speed measurement**: stock:" in md and "attention:" not in md.split("Unstable")[1]


def test_matrix_clocks_file_each_chains_samples_under_its_runs(tmp_path):
    """--clocks: a chain's timed runs and its profiled run get the samples taken while they ran, and matrix.md a row
    each; samples taken between runs belong to none; no nvidia-smi reading gives a row that says so."""
    import time

    from accel_harness.timing import GpuMonitor

    bm = _bench_matrix()
    assert bm.monitor_gpu_index({"CUDA_VISIBLE_DEVICES": "1,0"}) == 1 and bm.monitor_gpu_index({}) == 0
    assert bm.monitor_gpu_index({"CUDA_VISIBLE_DEVICES": "GPU-6a1b"}) == 0

    m = bm.Matrix.__new__(bm.Matrix)  # the clocks helper needs only the monitor
    fake = [sys.executable, "-c", "print('1650, 690.5, 70, 0x4')"]
    with GpuMonitor(interval_s=0.01, command=fake) as m.mon:
        r = {}
        time.sleep(0.2)  # between runs: filed under no chain
        with m.clocks("shipped", r, "clocks"):
            deadline = time.time() + 20
            while not m.mon._samples.get("shipped") and time.time() < deadline:
                time.sleep(0.05)
        assert r["clocks"]["sm_mhz_median"] == 1650 and r["clocks"]["share_sw_power_cap"] == 1.0
        assert set(m.mon.summary()) == {"shipped"}
    m.mon = None
    with m.clocks("stock", r, "clocks_profiled"):  # no --clocks: nothing recorded
        pass
    assert "clocks_profiled" not in r
    lines = bm.clock_lines({"shipped": r, "stock": {"clocks": {"samples": 0, "error": "nvidia-smi not found"}}})
    md = "\n".join(lines)
    assert "| shipped | timed runs |" in md and "| 1650 | 1650 | 690.5 | 70.0 | sw_power_cap 1.0 |" in md
    assert "| stock | timed runs | 0 |" in md and "nvidia-smi not found" in md
    assert bm.clock_lines({"stock": {"times_s": [1.0]}}) == []


def test_matrix_skips_graph_chains_that_would_record_no_graph():
    """Under cudaMallocAsync (ComfyUI's default) Accel Compile records no CUDA graph, so a `_graphs` chain would time
    the compiled blocks under a graphs label: it is skipped with the flag that measures it; the native allocator and
    the other chains run."""
    bm = _bench_matrix()
    why = bm.graphs_chain_problem("shipped_graphs", "cudaMallocAsync")
    assert why and "--comfy-args=--disable-cuda-malloc" in why
    assert bm.graphs_chain_problem("fp8_shipped_graphs", "cudaMallocAsync")
    assert bm.graphs_chain_problem("shipped_graphs", "native") is None
    assert bm.graphs_chain_problem("shipped", "cudaMallocAsync") is None
    assert bm.graphs_chain_problem("shipped_graphs", None) is None


def test_kernel_summary_sorts_kernels_into_categories():
    """Kernel names as an H100 profile of the users' workflow shows them (bench/results/h100/wf_lightx2v_033/
    sequential_80GB_profile/matrix.md): FA3, cuBLAS, comfy-kitchen's quantizer, inductor's fused kernels."""
    R = _runner()
    kern = {"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<": 30.0,
            "nvjet_sm90_qqhsh_128x152_128x6_2x1_v_bz_coopA_algo2_bias_TNT": 40.0,
            "void comfy::(anonymous namespace)::quantize_fp8_tensor_kernel<__half, __nv_fp8_e4m3>": 5.0,
            "triton_red_fused__scaled_mm__to_copy_abs_amax_clamp_clamp_min_clone_div_expand_t_view_5": 3.0,
            "triton_poi_fused__to_copy_flash_attn_3_fa3_fwd_interface_view_2": 4.0,
            "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda": 1.0,
            "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::Half": 2.0}
    s = R.kernel_summary(kern, top=3)
    assert s["category_ms"] == {"matmul": 40.0, "attention": 30.0, "fp8 quantize": 8.0, "triton": 4.0,
                                "other elementwise": 2.0, "copy/cast": 1.0}
    assert s["kernel_total_ms"] == 85.0
    assert s["top"][0] == ("nvjet_sm90_qqhsh_128x152_128x6_2x1_v_bz_coopA_algo2_bias_TNT", 40.0, "matmul")
    assert len(s["top"]) == 3


def test_profile_kernels_names_the_host_side_ops():
    """profile_kernels' `host_top` (bench/runner.py host_ops): what the host did, op by op, with call counts: a
    function that runs 7 matmuls and one 50 ms sleep shows aten::mm with 7 calls and the sleeping annotation with its
    50 ms."""
    import time

    import torch

    R = _runner()
    a = torch.randn(64, 64)

    def fn():
        with torch.profiler.record_function("host_sleep"):
            time.sleep(0.05)
        for _ in range(7):
            torch.mm(a, a)
        return 1

    s, out = R.profile_kernels(fn, top=20)
    assert out == 1
    rows = {name: (n, ms) for name, n, ms in s["host_top"]}
    assert rows["aten::mm"][0] == 7
    assert rows["host_sleep"][0] == 1 and rows["host_sleep"][1] >= 45.0  # (the order depends on the CPU's load)


def test_call_spans_split_a_profiled_run_by_model_call():
    """runner.call_spans / span_split: a clone whose model calls (ComfyUI's model_function_wrapper) each run in a
    profiler range of their own, numbered over the clones sharing a counter and named after their model; a profiled
    run then lists each call with its host time, in the order they ran (the device window needs a GPU). A model with a
    wrapper of its own is left as it is."""
    import time

    import torch

    R = _runner()

    class Patcher:  # the part of ComfyUI's ModelPatcher call_spans uses
        def __init__(self, options=None):
            self.model_options = dict(options or {})

        def clone(self):
            return Patcher(self.model_options)

        def set_model_unet_function_wrapper(self, fn):
            self.model_options["model_function_wrapper"] = fn

    def apply_model(x, t, c_crossattn=None):
        time.sleep(0.02 if t.item() > 0.5 else 0.0)
        return x + c_crossattn

    n = [0]
    base = Patcher()
    high, low = R.call_spans(base, "high-noise", n), R.call_spans(base, "low-noise", n)
    assert "model_function_wrapper" not in base.model_options  # a clone was patched
    x = torch.zeros(2)

    def sample():  # what the sampler does: two calls of each expert
        for m, t in ((high, 0.9), (high, 0.7), (low, 0.4), (low, 0.2)):
            m.model_options["model_function_wrapper"](
                apply_model, {"input": x, "timestep": torch.tensor(t), "c": {"c_crossattn": x}})

    s, _ = R.profile_kernels(sample, top=5)
    assert [c["name"] for c in s["calls"]] == ["model call 1 (high-noise)", "model call 2 (high-noise)",
                                               "model call 3 (low-noise)", "model call 4 (low-noise)"]
    assert all(c["host_ms"] >= 15.0 for c in s["calls"][:2]) and all(c["host_ms"] < 15.0 for c in s["calls"][2:])
    assert "window_ms" not in s["calls"][0]  # no GPU here
    own = Patcher({"model_function_wrapper": lambda f, a: f(a["input"], a["timestep"], **a["c"])})
    assert R.call_spans(own, "x", n) is own


def test_sync_sites_groups_the_hosts_waits_by_python_frames(monkeypatch):
    """runner.sync_sites: with torch's sync debug mode on, every wait warns ("called a synchronizing CUDA operation");
    the warnings are grouped by the Python frames that led there. On the CPU the mode itself is stood in for (it needs
    CUDA): the function under test warns as torch does, 5 times from one helper and twice from another."""
    import warnings

    import torch

    R = _runner()
    modes = []
    monkeypatch.setattr(torch.cuda, "get_sync_debug_mode", lambda: 0)
    monkeypatch.setattr(torch.cuda, "set_sync_debug_mode", modes.append)

    def read_back():
        warnings.warn("called a synchronizing CUDA operation", stacklevel=2)

    def other():
        warnings.warn("called a synchronizing CUDA operation", stacklevel=2)

    def fn():
        warnings.warn("an unrelated warning", stacklevel=2)  # not a wait: not counted
        for _ in range(5):
            read_back()
        for _ in range(2):
            other()
        return 3

    rows, out = R.sync_sites(fn)
    assert out == 3 and modes == ["warn", 0]
    assert [n for n, _ in rows] == [5, 2], rows
    assert rows[0][1][0].endswith(": read_back") and "test_bench_runner.py" in rows[0][1][0]
    assert rows[0][1][1].endswith(": fn") and rows[1][1][0].endswith(": other")


def test_host_profile_names_the_python_functions_that_cost_host_time():
    """runner.host_profile: cProfile over one run, functions by own time with call counts: a helper that loops 300k
    times in Python, called 3 times, leads the table; a cheap one called 50 times is counted."""

    R = _runner()

    def slow():
        x = 0
        for i in range(300_000):  # pure Python: all of it the function's own time
            x += i
        return x

    def cheap():
        return 1

    def fn():
        for _ in range(3):
            slow()
        return sum(cheap() for _ in range(50))

    rows, out = R.host_profile(fn)
    assert out == 50
    assert rows[0][0].endswith(": slow") and rows[0][1] == 3 and rows[0][2] > 1.0 and rows[0][3] >= rows[0][2], rows[:3]
    assert [r[1] for r in rows if r[0].endswith(": cheap")] == [50]
    tables, out = R.host_profile_tables(fn)  # by cumulative time: fn (slow's caller) above slow
    names = [r[0].rsplit(": ", 1)[1] for r in tables["cumulative"]]
    assert out == 50 and names.index("fn") < names.index("slow"), names



def test_bench_matrix_switches_are_checked_before_anything_starts():
    """--switch NAME=on|off names one of the pack's switches (set in the process for A/B runs, read back into its
    files: tests/benchmarks/test_bench_scripts.py, the Flux smoke run); anything else stops at the command line."""
    bm = _bench_matrix()
    assert bm.parse(["--switch", "rope_trace=off"]).switches == {"rope_trace": False}
    assert bm.parse(["--switch", "rope_trace=off,fa3_direct=on"]).switches == {"rope_trace": False, "fa3_direct": True}
    for bad in ("rope=off", "rope_trace=no", "rope_trace"):
        with pytest.raises(SystemExit):
            bm.parse(["--switch", bad])


def test_failed_entry_keeps_the_error_and_the_run_going():
    """runner.failed_entry, inside an `except`: the entry holds the error and its traceback, res["errors"] and the log
    get the error, and the results keep what was measured before."""
    R = _runner()
    res, logged = {"runs": {"a": 1.0}}, []
    try:
        raise ValueError("out of luck")
    except ValueError as e:
        entry = R.failed_entry(res, "b", e, logged.append)
    assert entry["error"] == "b: ValueError: out of luck" and "raise ValueError" in entry["traceback"]
    assert res == {"runs": {"a": 1.0}, "errors": ["b: ValueError: out of luck"]}
    assert logged == ["FAILED " + entry["error"]]
