"""Whether torch.compile is tracing right now: kernels pick traceable plain ops (fused by inductor) or
skip per-call Python state while it is, and run their fast eager paths otherwise."""
import torch

if hasattr(torch, "compiler") and hasattr(torch.compiler, "is_compiling"):
    is_compiling = torch.compiler.is_compiling
else:  # torch < 2.3 has no torch.compiler.is_compiling: the private torch._dynamo one; without either, False
    def is_compiling() -> bool:
        try:
            return bool(torch._dynamo.is_compiling())
        except Exception:
            return False
