"""Wan Level-1: one call that applies the exact-math speedups (attention, compile, CUDA settings) to a Wan MODEL.
Layout: ``preset`` (`WanLevel1Options`, `apply(model, options)`: the chain of the other features' Options, the
report made of their Report sections, and the fidelity statement)."""
