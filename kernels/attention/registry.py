"""The attention backend registry: one record per backend, the single source of truth for what
each backend needs (library, devices, SM range, dtypes, head dims, masks) and how to install it.

This module imports no attention library; `available()` reads a `HardwareProfile`, and for backends that
are attention functions ComfyUI itself registers (`comfy_function`, e.g. comfy-kitchen's INT8 attention on
ComfyUI 0.33) the registry of the ComfyUI module already imported (nothing is imported here).

Low-precision backends (`low_precision=True`: they quantize Q/K and/or P/V, or, with `sparse=True`, skip attention
by a pattern) are only ever used when chosen by name; `auto` (accel.common.defaults) never picks one.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

ALL_DEVICES = ("cuda", "rocm", "mps", "cpu")


@dataclass(frozen=True)
class BackendSpec:
    name: str
    description: str
    libraries: tuple[str, ...] = ()  # hardware.ATTENTION_LIBRARIES keys, any one suffices; () = torch
    kernel: str | None = None  # function exported by the library (SageAttention kernels)
    devices: tuple[str, ...] = ("cuda",)
    min_sm: int | None = None  # inclusive, e.g. 80; CUDA only
    max_sm: int | None = None  # inclusive, e.g. 90
    min_torch: tuple[int, int] | None = None
    dtypes: tuple[str, ...] = ("float16", "bfloat16")
    head_dims: tuple[int, ...] | None = None  # exact set, or None with max_head_dim
    max_head_dim: int = 256
    supports_mask: bool = False
    low_precision: bool = False  # quantizes Q/K (or P/V): skipped where a model asks for exact attention
    install: str = ""
    comfy_function: str | None = None  # an attention function ComfyUI registers under this name (no library)
    sparse: bool = False  # skips attention by a pattern (not exact; never chosen by auto, never autotuned against)

    def supports_head_dim(self, d: int) -> bool:
        if self.head_dims is not None:
            return d in self.head_dims
        return d <= self.max_head_dim and d % 8 == 0


# FA3's FP8 kernels: head sizes that are multiples of 16 (e4m3 tiles), up to 256
FP8_HEAD_DIMS = tuple(range(16, 257, 16))

_SAGE_INSTALL = "pip install sageattention (2.x CUDA kernels: build from github.com/thu-ml/SageAttention)"

BACKENDS: dict[str, BackendSpec] = {
    s.name: s
    for s in (
        BackendSpec("sdpa", "PyTorch scaled_dot_product_attention, PyTorch picks the kernel",
                    devices=ALL_DEVICES, dtypes=("float16", "bfloat16", "float32"), max_head_dim=1 << 16,
                    supports_mask=True),
        BackendSpec("sdpa_cudnn", "PyTorch SDPA pinned to the cuDNN fused-attention kernel",
                    devices=("cuda",), min_sm=80, min_torch=(2, 5), max_head_dim=128,
                    install="a PyTorch >= 2.5 CUDA build (cuDNN 9)"),
        BackendSpec("sdpa_flash", "PyTorch SDPA pinned to its FlashAttention-2 kernel",
                    devices=("cuda", "rocm"), min_sm=80, max_head_dim=256),
        BackendSpec("sdpa_efficient", "PyTorch SDPA pinned to the memory-efficient (xformers-derived) kernel",
                    devices=("cuda", "rocm"), min_sm=50, dtypes=("float16", "bfloat16", "float32"),
                    max_head_dim=1 << 16, supports_mask=True),
        BackendSpec("sdpa_math", "PyTorch SDPA pinned to the math (reference) kernel",
                    devices=ALL_DEVICES, dtypes=("float16", "bfloat16", "float32"), max_head_dim=1 << 16,
                    supports_mask=True),
        BackendSpec("flash_attn_2", "FlashAttention-2 (flash_attn.flash_attn_func)",
                    libraries=("flash_attn",), devices=("cuda", "rocm"), min_sm=80,
                    install="pip install flash-attn --no-build-isolation (or a prebuilt wheel for your torch/CUDA)"),
        BackendSpec("flash_attn_3",
                    "FlashAttention-3 for Hopper (flash_attn_interface, or the PyPI forward-only fa3-fwd)",
                    libraries=("flash_attn_interface", "fa3_fwd_interface"), devices=("cuda",), min_sm=90, max_sm=90,
                    install="pip install fa3-fwd (forward-only FA3 wheel) or build flash-attention's hopper/ "
                            "directory"),
        BackendSpec("flash_attn_4", "FlashAttention-4 (CuTe DSL, flash_attn.cute) for Hopper and Blackwell",
                    libraries=("flash_attn_cute",), devices=("cuda",), min_sm=90, max_sm=103, max_head_dim=128,
                    install="pip install flash-attn-4"),
        BackendSpec("sage", "SageAttention auto dispatcher (sageattn): INT8 Q/K, kernel chosen by SageAttention per "
                            "GPU",
                    libraries=("sageattention",), kernel="sageattn", devices=("cuda",), min_sm=75,
                    head_dims=(64, 96, 128), low_precision=True, install=_SAGE_INSTALL),
        BackendSpec("sageattn_qk_int8_pv_fp16_triton", "SageAttention INT8 Q/K, FP16 P/V, Triton kernel",
                    libraries=("sageattention",), kernel="sageattn_qk_int8_pv_fp16_triton", devices=("cuda",),
                    min_sm=75, head_dims=(64, 96, 128), low_precision=True, install=_SAGE_INSTALL),
        BackendSpec("sageattn_qk_int8_pv_fp16_cuda", "SageAttention2 INT8 Q/K, FP16 P/V, CUDA kernel",
                    libraries=("sageattention",), kernel="sageattn_qk_int8_pv_fp16_cuda", devices=("cuda",),
                    min_sm=80, head_dims=(64, 96, 128), low_precision=True, install=_SAGE_INSTALL),
        BackendSpec("sageattn_qk_int8_pv_fp8_cuda", "SageAttention2 INT8 Q/K, FP8 P/V, CUDA kernel (Ada+)",
                    libraries=("sageattention",), kernel="sageattn_qk_int8_pv_fp8_cuda", devices=("cuda",),
                    min_sm=89, head_dims=(64, 96, 128), low_precision=True, install=_SAGE_INSTALL),
        BackendSpec("sageattn_qk_int8_pv_fp8_cuda_sm90", "SageAttention2 INT8 Q/K, FP8 P/V, Hopper kernel",
                    libraries=("sageattention",), kernel="sageattn_qk_int8_pv_fp8_cuda_sm90", devices=("cuda",),
                    min_sm=90, max_sm=90, head_dims=(64, 96, 128), low_precision=True, install=_SAGE_INSTALL),
        BackendSpec("sage3", "SageAttention3 FP4 microscaling attention for Blackwell (sageattn3_blackwell)",
                    libraries=("sageattn3",), kernel="sageattn3_blackwell", devices=("cuda",), min_sm=100,
                    max_head_dim=128, low_precision=True,
                    install="build SageAttention3 (sageattn3) from github.com/thu-ml/SageAttention for Blackwell"),
        BackendSpec("flash_attn_3_fp8", "FlashAttention-3 FP8 forward for Hopper: q/k/v quantized to e4m3 (one scale "
                    "per batch and head, K smoothed) by a fused Triton pass; not exact",
                    libraries=("flash_attn_interface", "fa3_fwd_interface"), devices=("cuda",), min_sm=90, max_sm=90,
                    head_dims=FP8_HEAD_DIMS, low_precision=True,
                    install="pip install fa3-fwd (built with FP8) or build flash-attention's hopper/ directory"),
        BackendSpec("comfy_kitchen_int8", "ComfyUI's comfy-kitchen INT8 attention (what --use-ck-attention uses; "
                    "Q/K/V and P in INT8): not exact",
                    comfy_function="comfy_kitchen_int8", devices=("cuda", "rocm"), supports_mask=True,
                    low_precision=True,
                    install="a ComfyUI with comfy-kitchen INT8 attention (0.33+, a comfy-kitchen build with attention "
                            "support: ComfyUI registers it as 'comfy_kitchen_int8')"),
        BackendSpec("radial_sparse", "radial sparse attention for long video (Wan, HunyuanVideo, LTX-Video; "
                    "radial-attention's pattern on torch flex_attention, FlashAttention-4 block-sparse where "
                    "importable); exact dense attention on the first steps, first/last blocks and every other call: "
                    "not exact",
                    devices=("cuda",), min_sm=80, min_torch=(2, 6), dtypes=("float16", "bfloat16", "float32"),
                    low_precision=True, sparse=True, supports_mask=True,
                    install="a PyTorch >= 2.6 CUDA build (torch.nn.attention.flex_attention) on an sm80+ GPU"),
        BackendSpec("xformers", "xFormers memory_efficient_attention",
                    libraries=("xformers",), devices=("cuda", "rocm"), min_sm=50,
                    dtypes=("float16", "bfloat16", "float32"), supports_mask=True,
                    install="pip install xformers (a build matching your torch)"),
    )
}


def _torch_tuple(version: str) -> tuple[int, int]:
    try:
        a, b = version.split("+")[0].split(".")[:2]
        return int(a), int(b)
    except (ValueError, IndexError):
        return (0, 0)


def available(name: str, profile) -> tuple[bool, str]:
    """Can backend `name` run on `profile`? Returns (ok, reason). Pure: reads the profile only."""
    spec = BACKENDS.get(name)
    if spec is None:
        return False, f"unknown backend '{name}' (known: {', '.join(BACKENDS)})"
    if profile.device_kind not in spec.devices:
        return False, f"{name} does not run on {profile.device_kind} (needs {'/'.join(spec.devices)})"
    if profile.device_kind == "cuda" and profile.sm_int is not None:
        if spec.min_sm is not None and profile.sm_int < spec.min_sm:
            return False, f"{name} needs SM >= {spec.min_sm / 10:.1f}; this GPU is sm{profile.sm_int}"
        if spec.max_sm is not None and profile.sm_int > spec.max_sm:
            return False, f"{name} supports SM <= {spec.max_sm / 10:.1f}; this GPU is sm{profile.sm_int}"
    if spec.min_torch is not None and _torch_tuple(profile.torch_version) < spec.min_torch:
        return False, f"{name} needs torch >= {spec.min_torch[0]}.{spec.min_torch[1]} (have {profile.torch_version})"
    if spec.comfy_function and comfy_function(spec.comfy_function) is None:
        return False, (f"{name} is not available: the running ComfyUI has not registered an attention function "
                       f"'{spec.comfy_function}'; needs: {spec.install}")
    if spec.libraries:
        infos = [profile.lib(k) for k in spec.libraries]
        usable = [i for i in infos if i.available and (spec.kernel is None or spec.kernel in i.kernels)]
        if not usable:
            why = "; ".join(i.describe() for i in infos)
            if any(i.available for i in infos) and spec.kernel:
                why = f"the installed {spec.libraries[0]} has no {spec.kernel}"
            return False, f"{name} is not installed ({why}); install: {spec.install}"
    return True, "ok"


COMFY_ATTENTION_MODULE = "comfy.ldm.modules.attention"


def comfy_function(name: str):
    """The attention function ComfyUI registered under `name` (register_attention_function), or None.
    Reads the ComfyUI module only if it is already imported (always, inside ComfyUI); imports nothing."""
    mod = sys.modules.get(COMFY_ATTENTION_MODULE)
    table = getattr(mod, "REGISTERED_ATTENTION_FUNCTIONS", None)
    if not isinstance(table, dict):
        return None
    return table.get(name)


def library_for(name: str, profile) -> str | None:
    """Which of the backend's libraries to use on this profile (the first that is available)."""
    spec = BACKENDS[name]
    for key in spec.libraries:
        info = profile.lib(key)
        if info.available and (spec.kernel is None or spec.kernel in info.kernels):
            return key
    return None
