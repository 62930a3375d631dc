"""Per model family: where the transformer blocks are, which signal TeaCache measures, what a skipped block
returns (the step cache's adapters)."""
from __future__ import annotations

import torch

from . import coefficients as cc


class _Adapter:
    """How one model family's blocks look through `patches_replace["dit"]`."""

    name = ""
    signals: tuple = ()
    control_outside = False  # does a ControlNet add to block outputs outside the block call?
    inplace_blocks = False  # do the blocks update their input in place (then the input is cloned to cache)?

    def keys(self, dm) -> list:
        raise NotImplementedError

    def first(self, args, call) -> torch.Tensor:
        """The image-token stream entering the first block (records what img_out needs)."""
        return args["img"]

    def skipped(self, index: int, args, new_img=None) -> dict:
        raise NotImplementedError

    def img_out(self, out: dict, call, args=None) -> torch.Tensor:
        """The image tokens of the last block's output (`args`: that block's inputs)."""
        return out["img"]

    def signal(self, name, dm, args, call) -> torch.Tensor:
        raise KeyError(name)


class _WanAdapter(_Adapter):
    name = "wan"
    signals = ("e0", "e")

    def keys(self, dm):
        return [("double_block", i) for i in range(len(dm.blocks))]

    def skipped(self, index, args, new_img=None):
        return {"img": args["img"] if new_img is None else new_img}

    def signal(self, name, dm, args, call):
        if name == "e0":  # what the blocks receive: time_projection(e), (B, 1|T, 6, dim)
            return args["vec"]
        if name == "e":  # the time embedding itself, from the model's own modules
            from comfy.ldm.wan.model import sinusoidal_embedding_1d

            t = call.timestep
            img = args["img"]
            e = dm.time_embedding(sinusoidal_embedding_1d(dm.freq_dim, t.flatten()).to(dtype=img.dtype))
            return e.reshape(t.shape[0], -1, e.shape[-1])
        raise KeyError(name)


class _DualAdapter(_Adapter):
    """Flux / HunyuanVideo: double blocks (img, txt), then single blocks on cat(txt, img) or cat(img, txt)
    (`txt_first`: the order in ComfyUI versions that do not pass `img_slice`)."""

    signals = ("modulated",)
    control_outside = True
    inplace_blocks = True  # Flux/HunyuanVideo DoubleStreamBlock: `img += ...`

    def __init__(self, name, txt_first: bool):
        self.name = name
        self.txt_first = txt_first

    def keys(self, dm):
        return ([("double_block", i) for i in range(len(dm.double_blocks))]
                + [("single_block", i) for i in range(len(getattr(dm, "single_blocks", []) or []))])

    def first(self, args, call):
        call.img_len = args["img"].shape[1]
        call.txt_len = args["txt"].shape[1]
        return args["img"]

    def skipped(self, index, args, new_img=None):
        img = args["img"] if new_img is None else new_img
        return {"img": img, "txt": args["txt"]} if "txt" in args else {"img": img}

    def img_out(self, out, call, args=None):
        x = out["img"]
        if "txt" in out:  # no single blocks: the last double block's image stream
            return x
        # ComfyUI 0.33+ says where the image tokens sit in the joint stream (its HunyuanVideo puts the text
        # first, 0.3.75 put it last); older ComfyUI: the order this family had there.
        sl = ((args or {}).get("transformer_options") or {}).get("img_slice")
        if sl is not None:
            return x[:, sl[0]:sl[1]]
        return x[:, call.txt_len:] if self.txt_first else x[:, :call.img_len]

    def signal(self, name, dm, args, call):
        if name != "modulated":
            raise KeyError(name)
        from comfy.ldm.flux.layers import apply_mod

        blk = dm.double_blocks[0]
        mod1 = blk.img_mod(args["vec"])[0]
        normed = blk.img_norm1(args["img"])
        return apply_mod(normed, 1 + mod1.scale, mod1.shift, args.get("modulation_dims_img"))


class _QwenAdapter(_Adapter):
    name = "qwen_image"
    signals = ("temb",)
    control_outside = True

    def keys(self, dm):
        return [("double_block", i) for i in range(len(dm.transformer_blocks))]

    def skipped(self, index, args, new_img=None):
        return {"img": args["img"] if new_img is None else new_img, "txt": args["txt"]}

    def signal(self, name, dm, args, call):
        if name == "temb":
            return args["vec"]
        raise KeyError(name)


class _LTXVAdapter(_Adapter):
    """LTX-Video: ("double_block", i) entries taking img/txt/vec/pe and returning {"img"} only (no signal: used
    by the coefficient-free cache)."""

    name = "ltxv"
    inplace_blocks = True  # BasicTransformerBlock: `x.addcmul_(...)`, `x += ...`

    def keys(self, dm):
        return [("double_block", i) for i in range(len(dm.transformer_blocks))]

    def skipped(self, index, args, new_img=None):
        return {"img": args["img"] if new_img is None else new_img}


ADAPTERS = {"wan": _WanAdapter(), "flux": _DualAdapter("flux", True),
            "hunyuan_video": _DualAdapter("hunyuan_video", False), "qwen_image": _QwenAdapter(),
            "ltxv": _LTXVAdapter()}
SIGNAL_TEXT = {"e": "time embedding e (TeaCache use_ret_steps=False)",
               "e0": "time projection e0 (TeaCache use_ret_steps=True)",
               "modulated": "modulated input of the first double block", "temb": "timestep embedding"}


def adapter_for_model(model):
    """(adapter or None, Family, reason) for a ModelPatcher."""
    from ..common.families import detect

    fam = detect(model)
    name = cc.ADAPTER_OF_FAMILY.get(fam.family)
    if name is None:
        return None, fam, f"{fam.name} is not supported by the step cache"
    if name == "wan":
        dm = model.get_model_object("diffusion_model")
        if type(dm).__name__ != "WanModel" or fam.variant not in cc.WAN_VARIANTS:
            return None, fam, (f"{fam.name} ({type(dm).__name__}) adds per-block injections outside the block "
                               "call; only Wan T2V, I2V/FLF and TI2V models can be step-cached")
    return ADAPTERS[name], fam, ""
