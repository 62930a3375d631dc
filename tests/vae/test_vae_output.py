"""accel.vae.output: the decoded video converted where it was decoded and copied to pinned host memory. On the CPU
the path is left to ComfyUI (and the reason given); its choices (which VAE object the decode runs on, what makes it
step aside) are checked with the device named as CUDA and the decode run on the CPU; the copy itself and its bitwise
equality with ComfyUI's decode need a CUDA GPU (the last test, skipped without one)."""
import pytest
import torch


@pytest.fixture(scope="module")
def VO(mod):
    return mod("accel.vae.output")


def latent(seed=1):
    return torch.randn(1, 16, 3, 4, 6, generator=torch.Generator().manual_seed(seed))


def test_cpu_vae_is_left_to_comfyui(VO, wan_vae):
    z = latent()
    with torch.inference_mode():
        ref = wan_vae.decode(z)
        out, why = VO.decode_to_host(wan_vae, z)
    assert "not a CUDA GPU" in why and torch.equal(out, ref)
    assert VO.report_line(why, wan_vae.device).startswith("output: left to ComfyUI's own conversion")


@pytest.fixture(scope="module")
def CC(mod):
    return mod("accel.comfy_compat")


def _as_cuda(vae, monkeypatch, CC, free):
    """A shallow copy of `vae` that says it decodes on CUDA (nothing runs there: the tests pass `run`), with `free`
    bytes of free memory by ComfyUI's figure."""
    import copy

    v = copy.copy(vae)
    v.device = torch.device("cuda", 0)
    monkeypatch.setattr(CC, "vae_free_memory", lambda _vae: free)
    return v


def test_decode_runs_on_a_copy_pointed_at_the_gpu(VO, CC, wan_vae, monkeypatch):
    v = _as_cuda(wan_vae, monkeypatch, CC, free=64 * 2**30)
    z = latent()
    seen = []

    def run(target):
        seen.append((target, target.output_device))
        with torch.inference_mode():
            return wan_vae.decode(z)  # a decode that left its output on the CPU: nothing to copy

    out, why = VO.decode_to_host(v, z, run=run)
    assert why is None and len(seen) == 1
    target, where = seen[0]
    assert target is not v and where == torch.device("cuda", 0)
    assert v.output_device == wan_vae.output_device == torch.device("cpu")  # the user's VAE object is unchanged
    assert out.device.type == "cpu" and out.shape[-1] == 3
    assert "pinned memory" in VO.report_line(why, v.device)


def test_steps_aside_without_room_or_with_gpu_outputs(VO, CC, wan_vae, monkeypatch):
    z = latent()
    v = _as_cuda(wan_vae, monkeypatch, CC, free=2**20)
    why = VO.plan(v, z)
    assert why is not None and "free memory" in why and "GiB" in why
    seen = []
    out, why2 = VO.decode_to_host(v, z, run=lambda t: seen.append(t) or torch.zeros(1))
    assert why2 == why and seen == [v]  # ComfyUI's decode on the VAE as it is
    v = _as_cuda(wan_vae, monkeypatch, CC, free=64 * 2**30)
    assert VO.on_cpu_from_gpu(v) and not VO.on_cpu_from_gpu(wan_vae)
    v.output_device = torch.device("cuda", 0)
    assert "--gpu-only" in VO.plan(v, z) and not VO.on_cpu_from_gpu(v)
    v = _as_cuda(wan_vae, monkeypatch, CC, free=64 * 2**30)
    v.first_stage_model = type("Chunked", (), {"comfy_has_chunked_io": True})()
    assert "chunked output" in VO.plan(v, z)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the pinned copy needs a CUDA GPU")
def test_gpu_output_is_comfyuis_bit_for_bit(VO, M):
    vae = M.vae_from_state_dict(M.wan21_vae_state_dict("tiny", seed=0), dtype=torch.bfloat16, device="cuda")
    z = latent()
    with torch.inference_mode():
        ref = vae.decode(z)
        out, why = VO.decode_to_host(vae, z)
    assert why is None and out.is_pinned() and out.stride() == ref.stride()
    assert torch.equal(out, ref)


def test_accel_vae_report_says_where_the_output_is_converted(mod, wan_vae):
    Opts = mod("accel.vae.options")
    _, report = Opts.apply(wan_vae, Opts.VAEOptions())
    assert "output: ComfyUI's own conversion (the VAE decodes on cpu, not a CUDA GPU)" in report.render()
    v = __import__("copy").copy(wan_vae)
    v.device = torch.device("cuda", 0)
    assert "copied to the CPU through pinned memory" in mod("accel.vae.output").node_line(v, tiled=False)
    assert "tiled decodes" in mod("accel.vae.output").node_line(v, tiled=True)
