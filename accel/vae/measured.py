"""Accel VAE's default options per GPU class, read from a measurement: among the combinations of options whose decode
is no farther from a float32 decode of the same weights than stock ComfyUI's own bf16 decode (max |diff| and PSNR on
the same latents) and whose first decode stays within 20 s of stock's, the one changing fewest of the node's own
defaults among those near the fastest, as bench/bench_vae.py's `pick` finds it (its `choice` section prints the entry
to paste here; tests/vae/test_vae.py checks each entry against its file).

The node's inputs take these as their defaults (nodes/vae.py reads `options.node_defaults()` when ComfyUI asks for
the node list); a saved workflow keeps the values it stored. A GPU class without a measured entry keeps VAEOptions()'s
own defaults (channels_last on, the rest off).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..common import figures

NOT_MEASURED = "not measured"


@dataclass(frozen=True)
class DecodeChoice:
    """options: the VAEOptions fields the measurement chose (the others keep VAEOptions()'s defaults); file: the
    result file under bench/results/ it was read from; what: GPU, ComfyUI, VAE and size measured; speedup: the figure
    id (accel/common/figures.py, in `file`) of the choice's speed-up over stock's decode, "" where none is quoted."""

    options: dict
    file: str
    what: str
    speedup: str = ""

    def describe(self) -> str:
        if not self.speedup:
            return f"{self.what}; {self.file}"
        return f"{self.what}: {figures.text(self.speedup)} stock's decode; {self.file}"


# GPU class (the name of its accel.common.defaults.ROWS row) -> DecodeChoice, or NOT_MEASURED.
# To fill: `python3 bench/bench_vae.py --vaes wan2.1 --variants combos --rounds 3` on the GPU (bench/bench_vae.py), then
# the entry its markdown's "choice" section prints for the Wan 2.1 VAE (the VAE of the Wan 2.2 A14B workflows).
DECODE_DEFAULTS: dict = {
    # every combination, 3 interleaved rounds on an H200 that ran nothing else (bench/results/h200/vae_033_rounds)
    "Hopper (sm90)": DecodeChoice({"fused_norm": True}, "bench/results/h200/vae_033_rounds/vae.json",
                                  "wan2.1 VAE, 81 frames 832x480, NVIDIA H200, ComfyUI 0.33.0",
                                  "vae.h200.rounds.cl_fn.speedup"),
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
    return values, f"{row}: measured, the fewest changes among the fastest within the exact bound ({entry.describe()})"
