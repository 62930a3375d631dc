"""Accel Save Video: the video Create Video -> Save Video writes, with the encoding overlapped with the VAE decode, the
frames converted where they are decoded, and a GPU encoder where one opens here.

Layout: ``save`` (the contract: `SaveVideoOptions`, `save(options, frames, context)`), ``encoder`` (which encoder and
its settings, the GPU probe), ``writer`` (the file, written by a thread while frames arrive).
"""
