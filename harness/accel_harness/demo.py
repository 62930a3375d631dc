"""The before/after demo workflow: one loaded Wan model, a stock branch and an accelerated branch, same seed.

    UNETLoader ─┬──────────────────────────────► KSampler (stock) ──► SaveLatent accel_demo/stock
                └─► [accel chain from /object_info] ► KSampler (accel) ─► SaveLatent accel_demo/accel
    AccelRandomConditioning ×2, EmptyHunyuanLatentVideo feed both; AccelLatentDiff compares the two;
    AccelHardwareReport shows what the automatic modes picked.

`build(info, ...)` composes the accelerated branch from the accel nodes the server reports (DEFAULT_CHAIN,
in order; a node that is missing or needs inputs the demo cannot give is skipped with the reason). Node
ids are stable, so `subgraph(prompt, [id])` parts share ComfyUI's cache (the model loads once).
`python scripts/demo.py --write-workflow` regenerates workflows/api/demo_before_after.json from a live server.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .workflow import ApiGraph, Unsatisfiable, link_inputs, output_index, subgraph, widget_inputs

DEMO_MODEL = "accel_demo_wan.safetensors"
STATIC_WORKFLOW = "workflows/api/demo_before_after.json"

# The accelerated branch, in order. Each must take a MODEL and give a MODEL. Caches (TeaCache/MagCache)
# trade accuracy for speed on purpose, so they are not in the default; add them with --chain.
DEFAULT_CHAIN = ("AccelCUDASettings", "AccelAttention", "AccelCompile")
# Preferred widget values where a node's own default is not what the demo wants ("auto" is already preferred).
CHAIN_VALUES: dict[str, dict] = {}
# What the demo leaves out on the CPU by default, and why (the user can force it with --chain).
CPU_SKIP = {
    "AccelCompile": "torch.compile on a 2-core CPU spends minutes in the inductor C++ build and cannot speed "
                    "up a tiny model",
}

# Run settings: a tiny model on the CPU (about a second per run), the true Wan 2.1 1.3B on a GPU.
PRESETS = {
    "tiny": dict(size="tiny", width=64, height=64, length=1, steps=4, cfg=3.0, tokens=16),
    "small": dict(size="small", width=128, height=128, length=5, steps=4, cfg=3.0, tokens=64),
    "1.3B": dict(size="1.3B", width=832, height=480, length=33, steps=10, cfg=5.0, tokens=512),
}


@dataclass
class DemoWorkflow:
    prompt: dict
    ids: dict            # role -> node id: loader, stock_sampler, accel_sampler, stock_save, accel_save, diff, report
    used: list = field(default_factory=list)       # accel chain nodes composed in
    skipped: dict = field(default_factory=dict)    # chain node -> reason it is not in

    def part(self, *roles) -> dict:
        """The sub-prompt the given output roles need (same node ids as the whole)."""
        return subgraph(self.prompt, [self.ids[r] for r in roles if r in self.ids])

    def with_seed(self, seed: int) -> DemoWorkflow:
        import copy

        p = copy.deepcopy(self.prompt)
        for r in ("stock_sampler", "accel_sampler"):
            p[self.ids[r]]["inputs"]["seed"] = int(seed)
        return DemoWorkflow(p, dict(self.ids), list(self.used), dict(self.skipped))


def compose_chain(info: dict, g: ApiGraph, model_link: list, chain, skip: dict | None = None):
    """Append each available chain node after `model_link`; returns (model_link, used, skipped)."""
    used, skipped = [], {}
    for name in chain:
        if skip and name in skip:
            skipped[name] = skip[name]
            continue
        spec = info.get(name)
        if spec is None:
            skipped[name] = "not available on this server (not installed or not merged yet)"
            continue
        links = link_inputs(spec)
        model_in = [n for n, t in links.items() if t == "MODEL"]
        other = {n: t for n, t in links.items() if t != "MODEL"}
        mi = output_index(spec, "MODEL")
        if len(model_in) != 1 or mi is None or other:
            skipped[name] = (f"cannot be chained MODEL->MODEL (model inputs {model_in}, model output "
                             f"{mi}, other link inputs {other})")
            continue
        try:
            inputs = widget_inputs(spec, {**CHAIN_VALUES.get(name, {}), model_in[0]: model_link})
        except Unsatisfiable as e:
            skipped[name] = str(e)
            continue
        nid = g.add(name, None, **inputs)
        model_link = g.out(nid, mi)
        used.append(name)
    return model_link, used, skipped


def build(info: dict, preset: str = "tiny", chain=DEFAULT_CHAIN, seed: int = 42, skip: dict | None = None,
          model_name: str = DEMO_MODEL, **overrides) -> DemoWorkflow:
    """The whole before/after prompt for the node set in `info` (a server's /object_info)."""
    cfg = dict(PRESETS[preset])
    cfg.update({k: v for k, v in overrides.items() if v is not None})
    g = ApiGraph()
    ids = {}
    ids["loader"] = g.add("UNETLoader", "Load Wan (random weights)", unet_name=model_name, weight_dtype="default")
    model = g.out(ids["loader"])
    pos = g.add("AccelRandomConditioning", "Positive (random, no text encoder)", seed=1, tokens=cfg["tokens"],
                dim=4096, scale=1.0)
    neg = g.add("AccelRandomConditioning", "Negative (random, no text encoder)", seed=2, tokens=cfg["tokens"],
                dim=4096, scale=1.0)
    lat = g.add("EmptyHunyuanLatentVideo", "Empty Wan latent", width=cfg["width"], height=cfg["height"],
                length=cfg["length"], batch_size=1)
    common = dict(seed=seed, steps=cfg["steps"], cfg=cfg["cfg"], sampler_name="euler", scheduler="simple",
                  positive=g.out(pos), negative=g.out(neg), latent_image=g.out(lat), denoise=1.0)
    ids["stock_sampler"] = g.add("KSampler", "KSampler (stock)", model=model, **common)
    ids["stock_save"] = g.add("SaveLatent", "Save stock latent", samples=g.out(ids["stock_sampler"]),
                              filename_prefix="accel_demo/stock")
    accel_model, used, skipped = compose_chain(info, g, model, chain, skip)
    ids["accel_sampler"] = g.add("KSampler", "KSampler (accelerated)", model=accel_model, **common)
    ids["accel_save"] = g.add("SaveLatent", "Save accelerated latent", samples=g.out(ids["accel_sampler"]),
                              filename_prefix="accel_demo/accel")
    if "AccelLatentDiff" in info:
        ids["diff"] = g.add("AccelLatentDiff", "Accelerated vs stock", latent_a=g.out(ids["accel_sampler"]),
                            latent_b=g.out(ids["stock_sampler"]), label="accelerated vs stock")
    if "AccelHardwareReport" in info:
        ids["report"] = g.add("AccelHardwareReport", "Hardware report", refresh=False)
    return DemoWorkflow(g.prompt(), ids, used, skipped)


def static_workflow(info: dict) -> DemoWorkflow:
    """What workflows/api/demo_before_after.json holds: the GPU preset with every chain node available."""
    return build(info, preset="1.3B", chain=DEFAULT_CHAIN)
