"""Wan Level-1: one call that applies the exact-math speedups (attention, compile, CUDA settings) to a Wan MODEL.
Layout: ``preset`` (`apply_level1`: the chain, its report and the fidelity check)."""
