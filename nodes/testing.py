"""Test-only nodes for demos and tests (category accel/testing): NOT needed to accelerate anything.

- Accel Random Conditioning: a seeded random CONDITIONING tensor, so a diffusion model can be sampled
  with no text encoder (the demo and tests use random-weight models and no downloads).
- Accel Latent Diff: how far two LATENTs are apart (max/mean abs, rel L2, cosine), e.g. the stock and the
  accelerated output of the same seed.

Both are flagged dev-only where ComfyUI supports it (hidden from the node search unless dev mode is on).
"""
from __future__ import annotations

from comfy_api.latest import io

from ._common import CATEGORY_TESTING, AccelNode, report_output, schema, with_report
from ._inputs import checked


class AccelRandomConditioning(AccelNode):
    @classmethod
    def define_schema(cls):
        return schema(
            node_id="AccelRandomConditioning",
            display_name="Accel Random Conditioning (test)",
            category=CATEGORY_TESTING,
            description="FOR DEMOS AND TESTS ONLY. A seeded random CONDITIONING standing in for a text encoder's "
                        "output, so a model can be sampled without one. It carries no meaning: use a real text "
                        "encoder for real prompts.",
            is_dev_only=True,
            inputs=[
                io.Int.Input("seed", default=0, min=0, max=0xFFFFFFFF,
                             tooltip="Seed of the random values: the same seed gives the same conditioning."),
                io.Int.Input("tokens", default=16, min=1, max=4096,
                             tooltip="Sequence length (number of text tokens). Wan uses up to 512."),
                io.Int.Input("dim", default=4096, min=1, max=16384,
                             tooltip="Width of each token: 4096 for Wan (umT5-XXL), 4096 for Flux (T5-XXL)."),
                io.Float.Input("scale", default=1.0, min=0.0, max=100.0, step=0.01,
                               tooltip="Multiplier on the standard-normal values."),
            ],
            outputs=[io.Conditioning.Output(display_name="conditioning", tooltip=(
                "Random conditioning [[tensor(1, tokens, dim), {}]] on the CPU, float32."))],
        )

    @classmethod
    @checked
    def execute(cls, seed, tokens, dim, scale=1.0):
        import torch

        g = torch.Generator().manual_seed(int(seed))
        t = torch.randn(1, int(tokens), int(dim), generator=g) * float(scale)
        return io.NodeOutput([[t, {}]])


class AccelLatentDiff(AccelNode):
    @classmethod
    def define_schema(cls):
        return schema(
            node_id="AccelLatentDiff",
            display_name="Accel Latent Diff (test)",
            category=CATEGORY_TESTING,
            description="FOR DEMOS AND TESTS. Compares two LATENTs of the same shape (e.g. the stock and the "
                        "accelerated output of one seed): max and mean absolute difference, relative L2 error and "
                        "cosine similarity, shown under the node.",
            is_output_node=True,
            is_dev_only=True,
            inputs=[
                io.Latent.Input("latent_a", tooltip="The result to check, e.g. the accelerated branch's latent."),
                io.Latent.Input("latent_b", tooltip="The reference, e.g. the stock branch's latent of the same seed."),
                io.String.Input("label", default="accelerated vs stock", optional=True,
                                tooltip="Names the comparison in the report."),
            ],
            outputs=[report_output("The comparison as text."),
                     io.Float.Output(display_name="max_abs", tooltip="Largest absolute difference of any element."),
                     io.Float.Output(display_name="cosine",
                                     tooltip="Cosine similarity of the flattened latents (1.0 = same direction).")],
        )

    @classmethod
    @checked
    def execute(cls, latent_a, latent_b, label="accelerated vs stock"):
        from ..accel.common.compare import latent_diff_report

        text, max_abs, cosine = latent_diff_report(latent_a["samples"], latent_b["samples"], label)
        return with_report(text, max_abs, cosine, report=text)


NODES = [AccelRandomConditioning, AccelLatentDiff]
