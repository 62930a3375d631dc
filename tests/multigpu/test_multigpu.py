"""Accel Multi-GPU on CPU: 2 worker processes over gloo, tiny random Wan 2.1 (fp32) inside the real ComfyUI.

The workers are real (the same entry script, process group, yunchang all-to-all and model transport a
GPU run uses); only the device (cpu) and backend (gloo) differ from NCCL on GPUs.
Tolerance: sequence-parallel vs one process, fp32: max |a-b| <= 1e-5 * max(1, max|b|). Measured on
2-core CPU: 8.1e-7 (L=9, padded) and 0.0 (L=24): only BLAS blocking over fewer rows differs.
"""
import os
import threading
import time

import pytest
import torch

import accel_harness as H

pytest.importorskip("yunchang", reason="yunchang not installed (scripts/setup_testbed.sh installs it)")

TOL = 1e-5
TIMEOUT = 120  # no test may hang: pytest-timeout per test


def _close(a, b, tol=TOL):
    scale = max(1.0, float(b.abs().max()))
    return float((a - b).abs().max()) <= tol * scale, float((a - b).abs().max()) / scale


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purposes
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="module")
def MG(mod):
    P = mod("accel.multigpu.pool")
    yield mod("accel.multigpu.patch")
    P.shutdown_all()


@pytest.fixture(scope="module")
def P(mod):
    return mod("accel.multigpu.pool")


def wan(M, heads=2, seed=0):
    import comfy.sd

    sd = M.wan_state_dict("t2v", "tiny", seed, torch.float32, dim=128 * heads, ffn_dim=256)
    return comfy.sd.load_diffusion_model_state_dict(sd, model_options={})


def run(M, model, frames=1, size=48, steps=2, cfg=3.0):
    pos, neg = M.conditioning(seed=1), M.conditioning(seed=2)
    return M.sample(model, pos, neg, M.wan_latent(frames, size, size), steps=steps, cfg=cfg, seed=7)


def seq_only(MG, model, gpus=2, **kw):
    """Sequence parallel over all workers (CFG parallel off: with it, 2 workers would each run one whole
    sequence and Ulysses would not be exercised)."""
    return MG.apply_multigpu(model, gpus=gpus, device="cpu", cfg_parallel="off", **kw)[0]


@pytest.mark.timeout(TIMEOUT)
def test_two_workers_equal_one_process(M, MG, P):
    """2 heads, 9 tokens (odd: the sequence is padded to 10 and the pad never acts as a key)."""
    model = wan(M, heads=2)
    ref = run(M, model)
    m, report = MG.apply_multigpu(model, gpus=2, device="cpu", cfg_parallel="off")
    assert "2 cpu worker" in report and "CFG parallel: off" in report
    out = run(M, m)
    assert MG.runtime_of(m).last_split == (1, "cfg_parallel is off")
    ok, err = _close(out, ref)
    assert ok, f"sequence parallel differs from one process: {err:.2e}"
    pool = P.current_pool()
    assert pool is not None and pool.alive() and len(pool.pids) == 2
    # a second, different model (seed) reloads the workers; a longer video (3 latent frames) too
    model2 = wan(M, heads=2, seed=3)
    ref2 = run(M, model2, frames=9, size=32)
    out2 = run(M, seq_only(MG, model2), frames=9, size=32)
    ok, err = _close(out2, ref2)
    assert ok, err
    assert not torch.allclose(out2, run(M, m, frames=9, size=32), atol=1e-3), "workers kept the first model's weights"


@pytest.mark.timeout(TIMEOUT)
def test_weights_stored_in_another_dtype_than_the_compute(M, MG):
    """A bf16 file (as Comfy-Org publishes Wan) that ComfyUI computes in another dtype (fp16 on a GPU, fp32 on the
    CPU): its layers cast each weight to the input's dtype. On two H100s the workers ran the weights as stored and
    failed ("mat1 and mat2 must have the same dtype, but got Half and BFloat16", bench/results/h100x2/reliability)."""
    import comfy.sd

    sd = M.wan_state_dict("t2v", "tiny", 11, torch.bfloat16, dim=256, ffn_dim=256)
    # kept in bf16 as a GPU keeps it (the CPU would convert it to fp32 on load); the CPU computes it in fp32
    model = comfy.sd.load_diffusion_model_state_dict(sd, model_options={"dtype": torch.bfloat16})
    # computed in fp16 as on a GPU (the input is cast to it; Wan's fp32 patch embedding still gets `x.float()`)
    model.model.manual_cast_dtype = torch.float16
    assert model.model.get_dtype() == torch.bfloat16 and model.model.manual_cast_dtype not in (None, torch.bfloat16), (
        "the test needs ComfyUI to compute this bf16 model in another dtype", model.model.manual_cast_dtype)
    ref = run(M, model, frames=1, size=32, steps=1)
    # what the workers received on the GPUs: layers whose per-call cast is off (on 0.33 the model patcher turns it on
    # per layer when it loads the layer); the main process only sends the model, it computes nothing itself
    for m in model.model.diffusion_model.modules():
        if hasattr(m, "comfy_cast_weights"):
            m.comfy_cast_weights = False
    out = run(M, seq_only(MG, model), frames=1, size=32, steps=1)
    ok, err = _close(out, ref)
    assert ok, err


@pytest.mark.timeout(TIMEOUT)
def test_heads_not_a_multiple_of_gpus(M, MG):
    """1 head over 2 workers: padded with a zero head, dropped after attention."""
    model = wan(M, heads=1, seed=5)
    ref = run(M, model, frames=5, size=32, steps=1)
    out = run(M, seq_only(MG, model), frames=5, size=32, steps=1)
    ok, err = _close(out, ref)
    assert ok, err


@pytest.mark.timeout(TIMEOUT)
def test_cfg_parallel_two_workers(M, MG, monkeypatch):
    """CFG 3: cond on worker 0, uncond on worker 1. CFG 1 and cond/uncond in separate batches (ComfyUI's
    memory estimate says they do not fit together): sequence parallel over both, same result."""
    import comfy.model_base

    model = wan(M, heads=2, seed=4)
    m, report = MG.apply_multigpu(model, gpus=2, device="cpu")
    assert "CFG parallel: cond and uncond on separate halves (1 GPU(s) each" in report
    rt = MG.runtime_of(m)
    ok, err = _close(run(M, m), run(M, model))
    assert ok, err
    assert rt.last_split == (2, "")
    ok, err = _close(run(M, m, cfg=1.0), run(M, model, cfg=1.0))
    assert ok, err
    assert rt.last_split[0] == 1 and "only cond or only uncond" in rt.last_split[1]
    monkeypatch.setattr(comfy.model_base.BaseModel, "memory_required", lambda self, *a, **k: 1e30)
    ref = run(M, model, steps=1)
    rt.last_split = None
    ok, err = _close(run(M, m, steps=1), ref)
    assert ok, err
    assert rt.last_split[0] == 1 and "separate" in rt.last_split[1]


def test_cfg_split_rules(MG):
    split = MG.cfg_split
    assert split("on", 2, [1, 0], 2) == (2, "")
    assert split("on", 4, [1, 0, 0, 1], 4) == (2, "")
    assert split("off", 2, [1, 0], 2)[0] == 1
    assert split("on", 3, [1, 0], 2) == (1, "gpus=3 is odd")
    assert "not an even number" in split("on", 2, [1, 0, 0], 3)[1]
    assert split("on", 2, [0], 1)[0] == 1
    x = torch.arange(4).reshape(2, 2)
    parts = [MG._split_batch({"x": x, "l": [x], "t": torch.ones(1), "n": 3}, 2, 2, i) for i in range(2)]
    assert torch.equal(parts[1]["x"], x[1:]) and torch.equal(parts[0]["l"][0], x[:1])
    assert parts[0]["t"].shape == (1,) and parts[1]["n"] == 3


def _ctx(seed, tokens=7, **extra):
    g = torch.Generator().manual_seed(seed)
    return [[torch.randn(1, tokens, 64, generator=g), dict(extra)]]


def joint_case(M, name):
    """(model, positive, negative, latent): 5 x 3 = 15 image tokens (odd: padded), 7 text tokens."""
    if name == "flux":
        def pooled(seed):
            return _ctx(seed, pooled_output=torch.randn(1, 32, generator=torch.Generator().manual_seed(seed + 10)),
                        guidance=3.5)
        return M.tiny_flux(seed=3), pooled(1), pooled(2), {"samples": torch.zeros(1, 16, 10, 6)}
    # Qwen-Image with a text mask (ComfyUI 0.33 turns it into a key mask over text + image tokens)
    mask = torch.tensor([[1, 1, 1, 1, 1, 0, 0]])
    return (M.tiny_qwen_image(seed=3), _ctx(1, attention_mask=mask), _ctx(2, attention_mask=mask),
            {"samples": torch.zeros(1, 16, 1, 10, 6)})


@pytest.mark.timeout(TIMEOUT)
@pytest.mark.parametrize("name", ["flux", "qwen_image"])
def test_joint_attention_models(M, MG, name):
    """Flux / Qwen-Image: text tokens whole on every worker, image tokens split; sequence parallel alone and
    with CFG parallel equal one process."""
    model, pos, neg, lat = joint_case(M, name)

    def go(m, cfg):
        return M.sample(m, pos, neg, lat, steps=2, cfg=cfg, seed=7)

    ref = go(model, 2.0)
    for cfgp in ("off", "on"):
        m, report = MG.apply_multigpu(model, gpus=2, device="cpu", cfg_parallel=cfgp)
        assert ("Flux hidden" if name == "flux" else "Qwen-Image dim") in report
        ok, err = _close(go(m, 2.0), ref)
        assert ok, f"{name} cfg_parallel={cfgp}: {err:.2e}"
        assert MG.runtime_of(m).last_split[0] == (2 if cfgp == "on" else 1)


@pytest.mark.timeout(TIMEOUT)
def test_pack_attention_and_compile_reach_the_workers(M, MG, P, mod):
    """Accel Attention's override runs per rank inside Ulysses; Accel Compile's config goes to the workers,
    which compile their own copy (backend eager on the CPU); the compile regions swapped in while ComfyUI
    runs the model do not travel (the weights do)."""
    A, C = mod("accel.attention.override"), mod("accel.compile")
    model = wan(M, heads=2, seed=8)
    ref = run(M, model, steps=1)
    patched, _ = A.apply_attention(model)
    compiled, _ = C.apply_compile(patched, backend="eager")
    m = seq_only(MG, compiled)
    ok, err = _close(run(M, m, steps=1), ref)
    assert ok, err
    pool = P.current_pool()
    assert pool.worker_inner == "<accel attention override sdpa>", pool.worker_inner  # built in the worker
    assert pool.compile_cfg is not None and pool.compile_cfg.backend == "eager"
    assert MG.compile_config(compiled) is pool.compile_cfg


def test_comfy_process_keeps_no_gpu_copy(M, MG, monkeypatch):
    """With device cuda, the MODEL ComfyUI samples loads to the CPU (worker 0 holds the GPU 0 copy); the input
    MODEL is unchanged. (Before: the clone kept load_device cuda:0, i.e. a second copy on GPU 0.)"""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    model = wan(M, heads=2).clone()
    model.load_device = torch.device("cuda", 0)
    m, report = MG.apply_multigpu(model, gpus=2, device="cuda")
    assert m.load_device.type == "cpu" and m.offload_device.type == "cpu"
    assert model.load_device == torch.device("cuda", 0)
    assert "loads this model to the CPU instead of cuda:0" in report


def test_comfy_process_copy_says_where_it_rounds_the_file(M, MG, mod, monkeypatch):
    """A DynamicVRAM model made plain for ComfyUI's process (loaded to the CPU, sent to the workers from there):
    where its file mixes float8 with wider tensors, ComfyUI's plain load rounds those to float8
    (comfy_compat.legacy_load_rounds, tested on ComfyUI's loader in tests/compile), and the report says the image
    differs from a single-GPU run's."""
    import inspect

    model = wan(M, heads=2).clone()
    if "disable_dynamic" not in inspect.signature(model.clone).parameters:
        pytest.skip("this ComfyUI has no DynamicVRAM patchers (clone() takes no disable_dynamic)")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    model.load_device = torch.device("cuda", 0)
    compat, recreated = mod("accel.comfy_compat"), []
    monkeypatch.setattr(compat, "legacy_load_rounds", lambda p: (5, "float8_e4m3fn"))
    m, report = MG.apply_multigpu(M.as_dynamic(model, recreated), gpus=2, device="cuda")
    assert recreated == [True] and m.load_device.type == "cpu"
    assert "that plain copy rounds 5 of them to float8_e4m3fn (the image differs from a single-GPU run's" in report
    monkeypatch.setattr(compat, "legacy_load_rounds", lambda p: None)
    m, report = MG.apply_multigpu(M.as_dynamic(model, recreated), gpus=2, device="cuda")
    assert "rounds" not in report and "loads this model to the CPU instead of cuda:0" in report


def test_one_gpu_is_stock(M, MG, P):
    model = wan(M, heads=2, seed=1)
    m, report = MG.apply_multigpu(model, gpus=1, device="cpu")
    assert "stock" in report and not m.wrappers.get("outer_sample", {}).get(MG.KEY)
    assert torch.equal(run(M, m, steps=1), run(M, model, steps=1))


def test_errors_before_sampling(M, MG, monkeypatch):
    AccelError = MG.AccelError
    model = wan(M, heads=2)
    with pytest.raises(AccelError, match="input 'gpus'.*this machine has .*Set gpus to"):
        MG.apply_multigpu(model, gpus=64, device="cuda")
    with pytest.raises(AccelError, match="input 'model'.*Wan.*Flux.*Qwen-Image; this model is HunyuanVideo"):
        MG.apply_multigpu(M.tiny_hunyuan_video(), gpus=2, device="cpu")
    with pytest.raises(AccelError, match="input 'cfg_parallel'.*Pick on or off"):
        MG.apply_multigpu(model, gpus=2, device="cpu", cfg_parallel="yes")
    monkeypatch.setattr(MG, "yunchang_available", lambda: False)
    with pytest.raises(AccelError, match="input 'gpus'.*yunchang.*pip install yunchang"):
        MG.apply_multigpu(model, gpus=2, device="cpu")


def test_step_cache_under_multigpu_is_reported(M, MG, mod):
    """The step caches wrap ComfyUI's process's forward, the workers run the blocks: a cache under Accel Multi-GPU
    skipped nothing without a word (issue #29). Either order now says so in the report."""
    agn = mod("accel.cache.any_model")
    titled = mod("accel.common.errors").titled  # the titles the node boundary sets
    model = wan(M, heads=2)
    with titled("Accel Cache (any model)"):
        cached, _ = agn.configure(model)
    with titled("Accel Multi-GPU"):
        _, report = MG.apply_multigpu(cached, gpus=2, device="cpu")  # the documented order: Multi-GPU last
    assert "warning: the step cache on this model (Accel Cache (any model)) does nothing under Accel Multi-GPU" \
        in report, report
    assert "does nothing" not in MG.apply_multigpu(model, gpus=2, device="cpu")[1]
    multi, _ = MG.apply_multigpu(model, gpus=2, device="cpu")
    with titled("Accel Cache (any model)"):
        _, report = agn.configure(multi)  # the cache after Multi-GPU
    assert "warning: Accel Cache (any model) does nothing on this model: it samples through Accel Multi-GPU" \
        in report, report


def test_cpu_workers_are_limited_and_their_memory_is_reported(M, MG):
    """16 CPU workers of a 4 MB model used 9.9 GB: each worker is a Python process importing torch and ComfyUI
    (about 0.6 GB). CPU workers are for tests and debugging: more than cpu_workers_max() are refused, naming gpus,
    and the report states the memory the workers take."""
    model = wan(M, heads=2)
    limit = MG.cpu_workers_max()
    assert 4 <= limit <= 8
    with pytest.raises(MG.AccelError, match=rf"input 'gpus': 16 CPU workers asked for; at most {limit}.*0.6 GB"):
        MG.apply_multigpu(model, gpus=16, device="cpu")
    _, report = MG.apply_multigpu(model, gpus=2, device="cpu")
    assert "CPU workers: each is a Python process importing torch and ComfyUI" in report and "about 1.2 GB" in report


def test_cpu_worker_memory_counts_the_page_cache(mod, tmp_path):
    """A CPU worker's available memory is the kernel's MemAvailable (free pages plus the page cache it can drop), not
    the free pages alone: after large files were read the free pages are few, and the workers then dropped the models
    they were meant to keep (an A14B run sent its experts again)."""
    W = mod("accel.multigpu.worker")
    info = tmp_path / "meminfo"
    info.write_text("MemTotal:       24000000 kB\nMemFree:         1000000 kB\nMemAvailable:   20000000 kB\n")
    assert W.host_available(str(info)) == 20000000 * 1024
    info.write_text("MemTotal:       24000000 kB\nMemFree:         1000000 kB\n")
    assert W.host_available(str(info)) is None and W.host_available(str(tmp_path / "absent")) is None
    got = W.memory(torch.device("cpu"))
    if W.host_available() is not None:  # Linux
        assert got["available"] >= os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") * 0.9, got


@pytest.mark.timeout(TIMEOUT)
def test_node_in_a_prompt(M, MG, mod):
    """The node through ComfyUI's node class: report and errors name the node."""
    pack = H.load_pack()
    cls = pack.nodes.NODE_CLASS_MAPPINGS["AccelMultiGPU"]
    res = H.call_node(cls, wan(M, heads=2), 2, "cpu")
    assert "sequence parallel" in res["result"][1]
    with pytest.raises(MG.AccelError, match=r"\[Accel Multi-GPU\] input 'gpus'"):
        H.call_node(cls, wan(M, heads=2), 99, "cuda")


# Attention overrides the workers run per rank (pickled by reference: the workers get the parent's sys.path,
# so they import this test module). They also show that the user's override reaches the workers.
def slow_attention(func, *args, **kwargs):
    time.sleep(0.5)
    return func(*args, **kwargs)


def failing_attention(func, *args, **kwargs):
    import torch.distributed as dist

    if dist.is_initialized() and dist.get_rank() == 1:
        raise RuntimeError("boom on rank 1")
    return func(*args, **kwargs)


def oom_on_rank_1(func, *args, **kwargs):
    import torch.distributed as dist

    if dist.is_initialized() and dist.get_rank() == 1:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB (raised by the test on rank 1)")
    return func(*args, **kwargs)


def with_override(model, fn):
    m = model.clone()
    m.model_options["transformer_options"]["optimized_attention_override"] = fn
    return m


def interrupt_when_busy(P, after=0.3):
    import comfy.model_management as mm

    def go():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            p = P.current_pool()
            if p is not None and p.busy:
                time.sleep(after)
                mm.interrupt_current_processing(True)
                return
            time.sleep(0.02)

    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t


@pytest.mark.timeout(TIMEOUT)
def test_interrupt_finishes_the_step_and_keeps_workers(M, MG, P):
    """Interrupt during a worker step (4 slow attention calls, ~2 s): the step ends, the prompt stops with
    ComfyUI's interrupt, the workers stay for the next prompt."""
    import comfy.model_management as mm

    model = wan(M, heads=2, seed=2)
    m = seq_only(MG, with_override(model, slow_attention), interrupt_grace_s=60)
    run(M, m, steps=1)
    pids = P.current_pool().pids
    t = interrupt_when_busy(P)
    t0 = time.monotonic()
    try:
        with pytest.raises(mm.InterruptProcessingException):
            run(M, m, steps=3)
    finally:
        mm.interrupt_current_processing(False)
        t.join(5)
    assert time.monotonic() - t0 < 6, "the interrupt did not stop the prompt after the step"
    pool = P.current_pool()
    assert pool.alive() and pool.pids == pids, "an interrupt answered in time must keep the workers"


@pytest.mark.timeout(TIMEOUT)
def test_unanswered_interrupt_stops_workers(M, MG, P):
    """Workers that do not finish the step within interrupt_grace_s are stopped; the prompt ends, no hang."""
    import comfy.model_management as mm

    model = wan(M, heads=2, seed=2)
    m = seq_only(MG, with_override(model, slow_attention), interrupt_grace_s=0.2)
    run(M, m, steps=1)
    pids = P.current_pool().pids
    t = interrupt_when_busy(P, after=0.1)
    t0 = time.monotonic()
    try:
        with pytest.raises(mm.InterruptProcessingException):
            run(M, m, steps=1)
    finally:
        mm.interrupt_current_processing(False)
        t.join(5)
    assert time.monotonic() - t0 < 1.9, "the prompt waited for the whole step"
    assert not any(_alive(p) for p in pids), "workers still running after an unanswered interrupt"


@pytest.mark.timeout(TIMEOUT)
def test_worker_failure_is_an_error_and_shutdown_leaves_nothing(M, MG, P, caplog, mod):
    import logging
    import signal

    model = wan(M, heads=2)
    m = MG.apply_multigpu(model, gpus=2, device="cpu")[0]
    run(M, m, steps=1)
    pids = P.current_pool().pids
    # a worker killed between prompts: the next prompt starts fresh workers, and the log says why (issue #29)
    caplog.set_level(logging.WARNING, logger="comfyui-accel")
    os.kill(pids[1], signal.SIGKILL)
    time.sleep(0.3)
    ok, _ = _close(run(M, m, steps=1), run(M, model, steps=1))
    assert ok
    lines = [r.getMessage() for r in caplog.records if "exited since the last step" in r.getMessage()]
    assert len(lines) == 1 and str(pids[1]) in lines[0] and "-9" in lines[0] and "2 new cpu workers" in lines[0], lines
    pids2 = P.current_pool().pids
    assert set(pids2).isdisjoint(pids) and not any(_alive(p) for p in pids)
    # a worker failing inside a step: an AccelError naming the node, every worker stopped
    with mod("accel.common.errors").titled("Accel Multi-GPU"):
        bad = seq_only(MG, with_override(model, failing_attention))
    with pytest.raises(MG.AccelError, match=r"\[Accel Multi-GPU\] input 'model': a worker failed.*boom on rank 1"):
        run(M, bad, steps=1)
    assert not any(_alive(p) for p in pids2), "a failed pool must not leave workers behind"
    run(M, m, steps=1)
    new = P.current_pool().pids
    P.shutdown_all()
    deadline = time.monotonic() + 15
    while any(_alive(p) for p in new) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in new), "workers still running after shutdown_all()"
    assert P.current_pool() is None


@pytest.mark.timeout(TIMEOUT)
def test_worker_killed_mid_step_names_it_and_the_next_prompt_runs(M, MG, P, mod):
    """A worker lost inside a step (SIGKILL while the workers compute; on GPUs: a crash or the OOM killer): the prompt
    fails with an error naming the node, the dead worker, its pid and the signal (it named the survivor's broken
    connection, or printed a dict of exit codes); every worker is gone; the next prompt starts new workers and runs
    (issue #29 item 6)."""
    import signal

    model = wan(M, heads=2, seed=2)
    # the title the node boundary sets (the runtime keeps it)
    with mod("accel.common.errors").titled("Accel Multi-GPU"):
        m = seq_only(MG, with_override(model, slow_attention))
    run(M, m, steps=1)
    pids = P.current_pool().pids
    deadline = time.monotonic() + 60

    def kill():
        while not P.current_pool().busy and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)  # inside the step: each worker is in its first slow attention call
        os.kill(pids[1], signal.SIGKILL)

    t = threading.Thread(target=kill, daemon=True)
    t.start()
    with pytest.raises(MG.AccelError) as e:
        run(M, m, steps=2)
    t.join(5)
    msg = str(e.value)
    assert msg.startswith("[Accel Multi-GPU] input 'model': a worker failed while sampling: "
                          f"worker 1 (pid {pids[1]}) was killed by SIGKILL"), msg
    assert "queue again and new workers start" in msg, msg
    gone = time.monotonic() + 15
    while any(_alive(p) for p in pids) and time.monotonic() < gone:
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids), "a worker of the failed pool is still running"
    ok, err = _close(run(M, m, steps=1), run(M, model, steps=1))
    assert ok, err
    assert set(P.current_pool().pids).isdisjoint(pids)


@pytest.mark.timeout(TIMEOUT)
def test_four_workers_cfg_and_sequence(M, MG, P):
    """4 workers: CFG 3 runs 2 x 2 (cond on workers 0-1, uncond on 2-3, sequence parallel within each pair);
    CFG 1 runs sequence parallel over all 4 (2 heads: padded to 4)."""
    model = wan(M, heads=2, seed=6)
    m, report = MG.apply_multigpu(model, gpus=4, device="cpu")
    assert "2 GPU(s) each" in report
    rt = MG.runtime_of(m)
    ok, err = _close(run(M, m, frames=5, size=32, steps=1), run(M, model, frames=5, size=32, steps=1))
    assert ok, err
    assert rt.last_split == (2, "") and len(P.current_pool().pids) == 4
    ok, err = _close(run(M, m, frames=5, size=32, steps=1, cfg=1.0), run(M, model, frames=5, size=32, steps=1, cfg=1.0))
    assert ok, err
    assert rt.last_split[0] == 1
    P.shutdown_all()


@pytest.mark.timeout(300)
def test_bench_multigpu_smoke(tmp_path):
    """bench/bench_multigpu.py --smoke: tiny Wan, 1 process vs 2 CPU workers (CFG parallel on and off), end to end."""
    import json
    import subprocess
    import sys

    out = tmp_path / "mg"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_multigpu.py"), "--smoke", "--out", str(out)],
                       capture_output=True, text=True, timeout=280)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads((out / "multigpu.json").read_text())
    assert set(res["runs"]) == {"1gpu", "2gpu_cfg_on", "2gpu_cfg_off"} and not res["errors"]
    assert res["runs"]["2gpu_cfg_on"]["split"] == [2, ""] and res["runs"]["2gpu_cfg_off"]["split"][0] == 1
    assert all(res["runs"][k]["cosine"] > 0.9999 for k in ("2gpu_cfg_on", "2gpu_cfg_off"))
    assert "| 2gpu_cfg_on | 2 | on |" in (out / "multigpu.md").read_text()


def two_experts(M, high, low, steps=2):
    """The Wan 2.2 A14B split: KSamplerAdvanced high-noise 0 -> half keeping its leftover noise, low-noise half ->
    end."""
    import nodes

    pos, neg, lat = M.conditioning(seed=1), M.conditioning(seed=2), M.wan_latent(1, 32, 32)
    x = nodes.common_ksampler(high, 7, steps, 1.0, "euler", "simple", pos, neg, lat, start_step=0, last_step=steps // 2,
                              force_full_denoise=False)[0]
    return nodes.common_ksampler(low, 7, steps, 1.0, "euler", "simple", pos, neg, x, disable_noise=True,
                                 start_step=steps // 2, last_step=steps, force_full_denoise=True)[0]["samples"]


@pytest.mark.timeout(TIMEOUT)
def test_two_experts_stay_in_the_workers(M, MG, P, monkeypatch):
    """Wan 2.2 A14B samples two experts one after the other in every run. While a worker keeps KEEP_FREE of its memory
    available with both loaded, both stay: a second run sends no weights. Without the room, the older goes and every
    expert switch sends the weights again (what every switch did before). Each expert computes with its own weights."""
    P.shutdown_all()
    high, low = wan(M, heads=2, seed=21), wan(M, heads=2, seed=22)
    ref = two_experts(M, high, low)
    mh, ml = seq_only(MG, high), seq_only(MG, low)
    monkeypatch.setattr(P, "KEEP_FREE", 1.0)  # no room: one model at a time
    ok, err = _close(two_experts(M, mh, ml), ref)
    assert ok, err
    pool = P.current_pool()
    assert len(pool.models) == 1 and len(pool.stats["loads"]) == 2
    two_experts(M, mh, ml)
    assert len(pool.stats["loads"]) == 4 and all(len(w["models"]) == 1 for w in pool.info())
    monkeypatch.setattr(P, "KEEP_FREE", 0.0)  # room for both
    ok, err = _close(two_experts(M, mh, ml), ref)
    assert ok, err
    assert len(pool.stats["loads"]) == 5 and len(pool.models) == 2  # the high-noise expert again, the low one kept
    ok, err = _close(two_experts(M, mh, ml), ref)
    assert ok, err
    assert len(pool.stats["loads"]) == 5, "a run with both experts held sent weights"
    info = pool.info()
    assert [len(w["models"]) for w in info] == [2, 2] and all(w["available"] > 0 and w["total"] > 0 for w in info)
    assert pool.stats["start_s"] > 0 and all(b > 0 for _, b, _ in pool.stats["loads"])


@pytest.mark.timeout(TIMEOUT)
def test_worker_out_of_memory_is_an_error_with_the_remedy(M, MG, P, mod):
    """A worker running out of memory inside a step: the prompt fails naming the node, the worker, torch's error and
    what to lower; no worker is left running."""
    model = wan(M, heads=2, seed=4)
    run(M, seq_only(MG, model), steps=1)
    pids = P.current_pool().pids
    with mod("accel.common.errors").titled("Accel Multi-GPU"):
        m = seq_only(MG, with_override(model, oom_on_rank_1))
    with pytest.raises(MG.AccelError) as e:
        run(M, m, steps=1)
    msg = str(e.value)
    assert msg.startswith("[Accel Multi-GPU] input 'model': a worker failed while sampling: worker 1 failed (forward): "
                          "torch.OutOfMemoryError: CUDA out of memory"), msg
    assert "lower the resolution, the frame count or the batch" in msg, msg
    gone = time.monotonic() + 15
    while any(_alive(p) for p in pids) and time.monotonic() < gone:
        time.sleep(0.1)
    assert pids and not any(_alive(p) for p in pids), "a worker of the failed pool is still running"
