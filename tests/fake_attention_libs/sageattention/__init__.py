"""Fake SageAttention 2.x (tests only): the auto dispatcher and four kernels, both layouts,
head_dim 64/96/128. Like SageAttention 1.x, smooth_k=True subtracts the K mean IN PLACE: the
adapter must never let it touch the caller's tensor."""
import torch  # noqa: F401 - the real library imports torch when it is imported
from _fake_common import attend, check

__version__ = "2.2.0"


def _make(name):
    def kernel(q, k, v, tensor_layout="HND", is_causal=False, sm_scale=None, smooth_k=True, **kwargs):
        assert not is_causal
        assert q.is_cuda or q.device.type == "cpu"
        check(name, q, k, v, head_dims=(64, 96, 128))
        if smooth_k:
            k -= k.mean(dim=1 if tensor_layout == "NHD" else 2, keepdim=True)
        return attend(q, k, v, tensor_layout, sm_scale, name=name, smooth_k=smooth_k)
    kernel.__name__ = name
    return kernel


sageattn = _make("sageattn")
sageattn_qk_int8_pv_fp16_triton = _make("sageattn_qk_int8_pv_fp16_triton")
sageattn_qk_int8_pv_fp16_cuda = _make("sageattn_qk_int8_pv_fp16_cuda")
sageattn_qk_int8_pv_fp8_cuda = _make("sageattn_qk_int8_pv_fp8_cuda")
sageattn_qk_int8_pv_fp8_cuda_sm90 = _make("sageattn_qk_int8_pv_fp8_cuda_sm90")
