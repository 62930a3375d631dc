"""One Wan sample across the GPUs of this machine: sequence parallelism in worker processes.

Engine choice (read from the package registry, PyPI, for issue #16):
  - yunchang 0.6.4 (USP: Ulysses + ring attention): a pure-Python wheel whose only hard dependency is
    torch (flash-attn is the optional extra "flash"); `import yunchang` works on a CPU-only machine
    (it try-imports flash_attn, flash_attn_interface, flashinfer, sageattention, torch_npu), and its
    Ulysses all-to-all (`yunchang.comm.all_to_all.all_to_all_4D`, on `torch.distributed.all_to_all_single`)
    runs with the gloo backend on CPU tensors. Chosen: its all-to-all does the resharding, while the
    local attention stays ComfyUI's (or the pack's backend, e.g. FA3 per rank) instead of yunchang's own
    kernel table (`UlyssesAttention` only calls its listed kernels with (B, L, H, D) flash-attn arguments).
  - xfuser 0.7.0 (xDiT): hard-depends on diffusers, accelerate, transformers, peft, distvae, yunchang and
    drives diffusers pipelines, not ComfyUI's models; its sequence parallel is yunchang's.
  - para-attn 0.3.38: source-only (sdist), its Ulysses/ring attention is a TorchFunctionMode over
    `F.scaled_dot_product_attention` plus torch's private `_templated_ring_attention`; a global function
    mode does not fit the pack's per-MODEL attention override.
The split/gather of tokens around the blocks uses torch.distributed's all_gather (sp.py).

Modules: patch (the MODEL clone and its wrappers, ComfyUI's process), pool (worker processes),
transport (model and inputs to the workers), worker (the per-GPU loop), sp (the Ulysses forward).
Importing this package imports neither torch.distributed work nor yunchang: yunchang is optional for
the pack to load and required (AccelError with the remedy) when gpus > 1.
"""
