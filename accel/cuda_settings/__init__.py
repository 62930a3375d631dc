"""Accel CUDA Settings: torch's process-global flags (TF32, cudnn.benchmark, fp16 accumulation, SDPA backend
priority) set only while one MODEL samples. Layout: ``options`` (the contract: `CudaSettingsOptions`,
`apply(model, options)`), ``flags`` (the settings, the ON_PRE_RUN / ON_CLEANUP callbacks, `scoped` for code outside
a sampling run)."""
