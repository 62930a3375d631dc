"""Block-sparse attention for long video (issue #32): a training-free, video-structured pattern (radial
attention, restated from its published code), the policy that keeps the first steps and blocks dense, and
one call `sparse_attention(q, k, v, pattern)` over several kernels (a dense masked reference, torch
flex_attention, FlashAttention-4's block sparsity). Knows nothing of ComfyUI; see docs/sparse_attention.md."""
from .ops import BACKENDS, backend_status, reference_attention, sparse_attention  # noqa: F401
from .pattern import WAN_480P_81F, WAN_720P_81F, DensePolicy, RadialPattern, VideoGrid  # noqa: F401
