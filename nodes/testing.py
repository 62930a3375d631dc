"""Test-only nodes for demos and tests (category accel/testing): NOT needed to accelerate anything.

- Accel Random Conditioning: a seeded random CONDITIONING tensor, so a diffusion model can be sampled
  with no text encoder (the demo and tests use random-weight models and no downloads).
- Accel Latent Diff: how far two LATENTs are apart (max/mean abs, rel L2, cosine), e.g. the stock and the
  accelerated output of the same seed.
"""
from __future__ import annotations

from ..accel.errors import AccelError
from ._common import CATEGORY_TESTING, report_ui


class AccelRandomConditioning:
    DESCRIPTION = ("FOR DEMOS AND TESTS ONLY. A seeded random CONDITIONING (tokens x dim, standard normal), "
                   "standing in for a text encoder's output so a model can be sampled without one. It carries "
                   "no meaning: use a real text encoder (CLIPTextEncode) for real prompts.")
    CATEGORY = CATEGORY_TESTING
    FUNCTION = "make"
    RETURN_TYPES = ("CONDITIONING",)
    RETURN_NAMES = ("conditioning",)
    OUTPUT_TOOLTIPS = ("Random conditioning [[tensor(1, tokens, dim), {}]] on the CPU, float32.",)

    @classmethod
    def INPUT_TYPES(cls):
        return {
            "required": {
                "seed": ("INT", {"default": 0, "min": 0, "max": 0xFFFFFFFF,
                                 "tooltip": "Seed of the random values: the same seed gives the same conditioning."}),
                "tokens": ("INT", {"default": 16, "min": 1, "max": 4096,
                                   "tooltip": "Sequence length (number of text tokens). Wan uses up to 512."}),
                "dim": ("INT", {"default": 4096, "min": 1, "max": 16384,
                                "tooltip": "Width of each token: 4096 for Wan (umT5-XXL), 4096 for Flux (T5-XXL)."}),
                "scale": ("FLOAT", {"default": 1.0, "min": 0.0, "max": 100.0, "step": 0.01,
                                    "tooltip": "Multiplier on the standard-normal values."}),
            }
        }

    def make(self, seed, tokens, dim, scale=1.0):
        import torch

        g = torch.Generator().manual_seed(int(seed))
        t = torch.randn(1, int(tokens), int(dim), generator=g) * float(scale)
        return ([[t, {}]],)


class AccelLatentDiff:
    DESCRIPTION = ("FOR DEMOS AND TESTS. Compares two LATENTs of the same shape (e.g. the stock and the "
                   "accelerated output of one seed) and reports max and mean absolute difference, relative "
                   "L2 error and cosine similarity. Shows the report under the node.")
    CATEGORY = CATEGORY_TESTING
    FUNCTION = "compare"
    OUTPUT_NODE = True
    RETURN_TYPES = ("STRING", "FLOAT", "FLOAT")
    RETURN_NAMES = ("report", "max_abs", "cosine")
    OUTPUT_TOOLTIPS = ("The comparison as text.",
                       "Largest absolute difference of any element.",
                       "Cosine similarity of the flattened latents (1.0 = same direction).")

    @classmethod
    def INPUT_TYPES(cls):
        return {
            "required": {
                "latent_a": ("LATENT", {"tooltip": "The result to check, e.g. the accelerated branch's latent."}),
                "latent_b": ("LATENT", {"tooltip": "The reference, e.g. the stock branch's latent of the same seed."}),
            },
            "optional": {
                "label": ("STRING", {"default": "accelerated vs stock",
                                     "tooltip": "Names the comparison in the report."}),
            },
        }

    def compare(self, latent_a, latent_b, label="accelerated vs stock"):
        from ..accel.compare import format_diff, tensor_diff

        a, b = latent_a["samples"], latent_b["samples"]
        try:
            d = tensor_diff(a, b)
        except ValueError as e:
            raise AccelError("Accel Latent Diff", "latent_b", str(e),
                             "Connect two latents of the same size (same width, height, length and batch)") from None
        names = (label or "a vs b").split(" vs ", 1)
        text = format_diff(d, *(names if len(names) == 2 else (label, "reference")))
        return {"ui": report_ui(text), "result": (text, d["max_abs"], d["cosine"])}


NODE_CLASS_MAPPINGS = {
    "AccelRandomConditioning": AccelRandomConditioning,
    "AccelLatentDiff": AccelLatentDiff,
}
NODE_DISPLAY_NAME_MAPPINGS = {
    "AccelRandomConditioning": "Accel Random Conditioning (test)",
    "AccelLatentDiff": "Accel Latent Diff (test)",
}
