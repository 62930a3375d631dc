"""Compute that knows nothing of ComfyUI: attention backend adapters, FP8 matmul, Triton kernels.

Every kernel here has a plain-torch reference beside it and imports its library lazily.
"""
