"""Accel VAE: a faster decode for the Wan 2.1/2.2 VAE (also Qwen-Image's) and the KL VAEs (Flux, SDXL, SD3).

Layout: ``options`` (the contract: `VAEOptions`, `apply(vae, options)`), ``decode`` (the VAE copy and the scope each
decode runs in), ``measured`` (the default options measured per GPU class), ``stream`` (a decode that hands its
frames out chunk by chunk while it runs: Accel Save Video's encoder consumes them).
"""
