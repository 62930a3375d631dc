"""Accel VAE: a faster decode for the Wan 2.1/2.2 VAE (also Qwen-Image's) and the KL VAEs (Flux, SDXL, SD3).
Layout: ``decode`` (the options, the wrapped decode and its scope, the report)."""
