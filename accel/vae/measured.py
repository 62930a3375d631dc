"""Accel VAE's default options per GPU class, read from a measurement: the fastest combination of options whose decode
is no farther from a float32 decode of the same weights than stock ComfyUI's own bf16 decode (max |diff| and PSNR on
the same latents), as bench/bench_vae.py finds it (its `choice` section prints the entry to paste here).

The node's inputs take these as their defaults (nodes/vae.py reads `options.node_defaults()` when ComfyUI asks for
the node list); a saved workflow keeps the values it stored. A GPU class without a measured entry keeps VAEOptions()'s
own
defaults (channels_last on, the rest off).
"""
from __future__ import annotations

from dataclasses import dataclass

NOT_MEASURED = "not measured"


@dataclass(frozen=True)
class DecodeChoice:
    """options: the VAEOptions fields the measurement chose (the others keep VAEOptions()'s defaults); file: the
    result file under bench/results/ it was read from; what: GPU, ComfyUI, VAE and size measured."""

    options: dict
    file: str
    what: str


# GPU class (the name of its accel.common.defaults.ROWS row) -> DecodeChoice, or NOT_MEASURED.
# To fill: `python3 bench/bench_vae.py --vaes wan2.1 --variants combos` on the GPU (see bench/bench_vae.py), then
# the entry its markdown's "choice" section prints for the Wan 2.1 VAE (the VAE of the Wan 2.2 A14B workflows).
DECODE_DEFAULTS: dict = {
    "Hopper (sm90)": NOT_MEASURED,
}


def choice(base: dict, profile=None) -> tuple:
    """(option values: `base`, VAEOptions()'s own defaults, with this machine's GPU class's measured entry; where they
    come from)."""
    from ..common import defaults, hardware

    prof = profile if profile is not None else hardware.profile()
    row = defaults.row_for(prof).name
    values = dict(base)
    entry = DECODE_DEFAULTS.get(row, NOT_MEASURED)
    if not isinstance(entry, DecodeChoice):
        return values, f"{row}: {NOT_MEASURED}; the node's own defaults"
    unknown = set(entry.options) - set(values)
    if unknown:
        raise ValueError(f"DECODE_DEFAULTS[{row!r}] names unknown options: {sorted(unknown)}")
    values.update(entry.options)
    return values, f"{row}: measured fastest within the exact bound ({entry.what}; {entry.file})"
