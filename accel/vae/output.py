"""The decoded video's way to the host. ComfyUI's `VAE.decode` moves the decoder's output to `vae.output_device`
(the CPU unless ComfyUI runs with --gpu-only) through pageable memory and converts it there: to float32 and
`process_output` ((x + 1) / 2 clamped to [0, 1]) on the CPU. For the Wan 2.1 VAE's 81 frames at 832x480 on an H200
that copy alone is 152 ms of a 1.78 s decode, and the CPU-side conversion most of the 218 ms with no kernel running
(bench/results/h200/vae_033_profile/).

`decode_to_host(vae, run)` runs ComfyUI's own decode on a shallow copy of the VAE whose `output_device` is the VAE's
own device, so the same conversion and `process_output` run where the video was decoded, then copies the result in
one transfer into pinned host memory with the same shape and strides. The operations are the same IEEE float32
operations (a bf16 -> float32 widening, an add of 1, a division by 2, a clamp), so the pixels are the same bits as
ComfyUI's. The user's VAE object is not changed.

Where this does not apply, ComfyUI's decode runs as it is and the reason comes back (the caller reports it): the VAE
is not on a CUDA device, ComfyUI already keeps outputs on the GPU (--gpu-only), the VAE writes its decoded chunks
straight into a preallocated output (ComfyUI's `comfy_has_chunked_io`: LTX-Video, MiniMax-H3; holding the whole
float32 video on the GPU would undo what that is for), or the device's free memory (ComfyUI's own figure for a VAE
decode) does not hold ComfyUI's estimate of the decode plus the float32 video.
"""
from __future__ import annotations

import copy
import math


def _not_gpu_to_cpu(vae) -> str | None:
    """None where ComfyUI's decode of `vae` runs on a CUDA GPU and hands its images out on the CPU (what this module
    changes), else why not."""
    import torch

    device = getattr(vae, "device", None)
    if not isinstance(device, torch.device) or device.type != "cuda":
        return f"the VAE decodes on {device}, not a CUDA GPU"
    out_dev = getattr(vae, "output_device", None)
    if out_dev is None:
        return "this ComfyUI's VAE has no output device to point at the GPU"
    if torch.device(out_dev).type != "cpu":
        return "ComfyUI keeps decoded images on the GPU here (--gpu-only)"
    return None


def on_cpu_from_gpu(vae) -> bool:
    """Whether ComfyUI's own decode of `vae` decodes on a CUDA GPU and hands its images out on the CPU; False e.g.
    inside another caller's `decode_to_host`, which pointed the output at the GPU already."""
    return _not_gpu_to_cpu(vae) is None


def plan(vae, samples) -> str | None:
    """None where `decode_to_host` converts on the VAE's device, else why it leaves ComfyUI's decode as it is."""
    from .. import comfy_compat

    why = _not_gpu_to_cpu(vae)
    if why is not None:
        return why
    if getattr(getattr(vae, "first_stage_model", None), "comfy_has_chunked_io", False):
        return "this VAE writes each decoded chunk straight into ComfyUI's output (its chunked output)"
    shape = tuple(samples.shape)
    comp = vae.spacial_compression_decode()
    frames = shape[0]
    if len(shape) == 5:
        tc = vae.temporal_compression_decode() or 1
        frames = shape[0] * (1 + (shape[2] - 1) * tc)
    out_bytes = frames * shape[-2] * comp * shape[-1] * comp * getattr(vae, "output_channels", 3) * \
        comfy_compat.vae_output_dtype(vae).itemsize
    need = vae.memory_used_decode(shape, vae.vae_dtype) + out_bytes
    free = comfy_compat.vae_free_memory(vae)
    if free < need:
        return (f"the GPU's free memory ({free / 2**30:.1f} GiB) does not hold the decode and the float32 video "
                f"({math.ceil(need / 2**27) / 8:.1f} GiB)")
    return None


def decode_to_host(vae, samples, run=None, contiguous: bool = False):
    """(images, None): `run(v)` (default `v.decode(samples)`) on a copy of `vae` that keeps the output on the VAE's
    device, copied to pinned host memory (with the decode's strides, or contiguous); (images, why not) where `plan`
    says no: `run(vae)` as it is."""
    import torch

    run = run or (lambda v: v.decode(samples))
    why = plan(vae, samples)
    if why is not None:
        return run(vae), why
    on_device = copy.copy(vae)
    on_device.output_device = vae.device
    images = run(on_device)
    if images.device.type == "cpu":  # a decode that ignored output_device: nothing to copy
        return images, None
    if contiguous:
        host = torch.empty(images.shape, dtype=images.dtype, device="cpu", pin_memory=True)
    else:
        host = torch.empty_strided(images.shape, images.stride(), dtype=images.dtype, device="cpu", pin_memory=True)
    host.copy_(images)  # into pinned memory: one DMA transfer at the link's speed, returns when it is done
    return host, None


def report_line(why: str | None, device) -> str:
    """The report's line for what `decode_to_host` did (`why`: its second value)."""
    if why is None:
        return (f"output: converted to float32 on {device} and copied to the CPU through pinned memory (the same "
                "pixels as VAE Decode's output)")
    return f"output: left to ComfyUI's own conversion, as in VAE Decode ({why})"


def node_line(vae, tiled: bool) -> str:
    """Accel VAE's report line (made before any decode runs: whether the GPU has room is decided per decode)."""
    why = _not_gpu_to_cpu(vae)
    if why is not None:
        return f"output: ComfyUI's own conversion ({why})"
    if tiled:
        return "output: ComfyUI's own conversion (tiled decodes)"
    return (f"output: converted to float32 on {vae.device} and copied to the CPU through pinned memory (the same "
            "pixels as VAE Decode's), where the GPU has room for it when the decode runs, else ComfyUI's way (logged "
            "once)")
