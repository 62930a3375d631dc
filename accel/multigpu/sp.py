"""Sequence parallelism for one forward, run inside each worker process (rank r of a group of N).

Families (`FAMILIES`): Wan 2.1/2.2, Flux, Qwen-Image. The image/video tokens are split after the
patch embedding: the replacement for the first block pads them to a multiple of N and keeps this
rank's slice; every block then runs on L/N of them (modulation, FFN, Wan's cross-attention: no
communication). Text tokens of the joint-attention models (Flux, Qwen-Image: text first, then image)
stay whole on every rank. Self-attention is Ulysses: yunchang's all-to-all turns the image part
(B, L/N, H, D) into (B, L, H/N, D), the text part keeps its H/N heads of this rank, the local attention
(ComfyUI's, or the model's override such as the pack's backend) runs on whole sequences for H/N heads,
the reverse all-to-all restores (B, L/N, H, D) for the image and an all-gather over heads gives every
rank the whole text output. The replacement for the last block all-gathers the image slices, so the
head sees the full sequence. Pad tokens are cut off before attention (they never act as keys), pad
heads (H not a multiple of N) are zero and dropped after it: the result is exact for any L and H.

Hooks are ComfyUI's own: `patches_replace["dit"][("double_block" | "single_block", i)]` and
`optimized_attention_override`, set in the worker's transformer_options. Wan's self-attention is told
apart from its cross-attention by forward hooks on the worker's own `block.self_attn`; in Flux and
Qwen-Image every attention inside a block is the joint self-attention.
Attention layouts: (B, L, H*D) with `heads` (Wan) and (B, H, L, D) with `skip_reshape=True` (Flux,
Qwen-Image), `skip_output_reshape`, and key masks that broadcast over queries (Qwen-Image's text mask).
"""
from __future__ import annotations

import torch
import torch.distributed as dist

# class name -> (block lists in call order as (attribute, patches_replace kind), joint text+image, pe dim)
FAMILIES = {
    "WanModel": ((("blocks", "double_block"),), False, 1),
    "Flux": ((("double_blocks", "double_block"), ("single_blocks", "single_block")), True, 2),
    "QwenImageTransformer2DModel": ((("transformer_blocks", "double_block"),), True, 2),
}


def family(diffusion_model) -> str | None:
    name = type(diffusion_model).__name__
    return name if name in FAMILIES else None


def _all_to_all_4d(x, scatter_idx, gather_idx, group):
    from yunchang.comm.all_to_all import all_to_all_4D

    return all_to_all_4D(x, scatter_idx, gather_idx, group=group)


class SPState:
    """Per-forward state shared by the block replacements and the attention override of one rank.
    `rank`, `world`, `group` are this rank's place in the group that shares the sequence; the worker
    sets them per forward (all ranks, or one CFG half)."""

    def __init__(self, rank: int, world: int, group=None, joint: bool = False, pe_dim: int = 1, hooked: bool = True):
        self.rank, self.world, self.group = rank, world, group
        self.joint, self.pe_dim, self.hooked = joint, pe_dim, hooked
        self.inner = None           # the model's attention override (or None: ComfyUI's function)
        self.self_attn = False      # Wan: True while a block's self-attention runs
        self.in_block = False       # True while a block runs
        self.full_len = 0           # image tokens of the current forward
        self.txt_len = 0            # text tokens kept whole (joint models)
        self.pad = 0
        self._pe = (None, None)     # (the full pe, this rank's slice)
        self._vec = (None, None)

    # ---- token split / gather
    def shard(self, t: torch.Tensor, dim: int = 1) -> torch.Tensor:
        if self.pad:
            shape = list(t.shape)
            shape[dim] = self.pad
            t = torch.cat([t, t.new_zeros(shape)], dim=dim)
        n = t.shape[dim] // self.world
        return t.narrow(dim, self.rank * n, n)

    def gather(self, x: torch.Tensor, dim: int = 1) -> torch.Tensor:
        if self.world == 1:
            return x.narrow(dim, 0, self.full_len)
        parts = [torch.empty_like(x) for _ in range(self.world)]
        dist.all_gather(parts, x.contiguous(), group=self.group)
        return torch.cat(parts, dim=dim).narrow(dim, 0, self.full_len)

    def pe(self, pe):
        d, t = self.pe_dim, self.txt_len
        if not isinstance(pe, torch.Tensor) or pe.dim() <= d or pe.shape[d] != t + self.full_len:
            return pe
        if self._pe[0] is not pe:
            img = self.shard(pe.narrow(d, t, self.full_len), dim=d)
            self._pe = (pe, torch.cat([pe.narrow(d, 0, t), img], dim=d) if t else img)
        return self._pe[1]

    def vec(self, vec):
        # Wan 2.1/2.2 A14B: (B, 1, 6, C) broadcasts over tokens. TI2V-5B: one row per frame or token.
        if not isinstance(vec, torch.Tensor) or vec.dim() != 4 or vec.shape[1] == 1:
            return vec
        if self._vec[0] is not vec:
            full = vec
            if full.shape[1] != self.full_len:
                full = torch.repeat_interleave(full, self.full_len // full.shape[1], dim=1)
            self._vec = (vec, self.shard(full))
        return self._vec[1]

    # ---- ComfyUI hooks
    def block_replace(self, key, first, last):
        kind = key[0]

        def replace(args, extra):
            args = dict(args)
            if key == first:
                x = args["img"]
                self.txt_len = args["txt"].shape[1] if self.joint and "txt" in args else 0
                self.full_len = x.shape[1]
                self.pad = (-self.full_len) % self.world
                self._pe = self._vec = (None, None)
                args["img"] = self.shard(x)
            args["pe"] = self.pe(args.get("pe"))
            if not self.joint:
                args["vec"] = self.vec(args["vec"])
            self.in_block = True
            try:
                out = extra["original_block"](args)
            finally:
                self.in_block = False
            if key == last:
                out = dict(out)
                img = out["img"]
                if kind == "single_block":  # text first, then this rank's image tokens
                    t = self.txt_len
                    out["img"] = torch.cat([img[:, :t], self.gather(img[:, t:])], dim=1)
                else:
                    out["img"] = self.gather(img)
            return out
        return replace

    def _key_mask(self, mask, s):
        """A key mask over this rank's (text + image slice) -> over (text + all image tokens)."""
        t = self.txt_len
        if mask.shape[-1] != s or (mask.dim() >= 2 and mask.shape[-2] != 1) or (mask.dim() == 4 and mask.shape[1] != 1):
            raise RuntimeError(f"sequence parallel: attention masks of shape {tuple(mask.shape)} are not supported "
                               "(only key masks that broadcast over queries and heads); set gpus to 1 for this model")
        img = self.gather(mask[..., t:].contiguous(), dim=mask.dim() - 1)
        return torch.cat([mask[..., :t], img], dim=-1)

    def attention(self, func, *args, **kwargs):
        """`optimized_attention_override`: Ulysses for self-attention, pass-through for the rest."""
        call = self.inner
        active = self.self_attn if self.hooked else self.in_block
        if not active or self.world == 1 or len(args) < 3:
            return call(func, *args, **kwargs) if call is not None else func(*args, **kwargs)
        args = list(args)
        q, k, v = args[:3]
        heads = kwargs["heads"] if "heads" in kwargs else args[3]
        skip_in = kwargs.get("skip_reshape", False)
        skip_out = kwargs.get("skip_output_reshape", False)
        if skip_in:
            b, _, s, d = q.shape
        else:
            b, s, hd = q.shape
            d = hd // heads
        t, f, w, r = self.txt_len, self.full_len, self.world, self.rank
        hp = -(-heads // w) * w
        local = hp // w

        def scatter(x):
            x = x.transpose(1, 2) if skip_in else x.reshape(b, s, heads, d)  # (B, s, H, D)
            if hp != heads:
                x = torch.cat([x, x.new_zeros(b, s, hp - heads, d)], dim=2)
            img = _all_to_all_4d(x[:, t:].contiguous(), 2, 1, self.group)[:, :f]  # (B, F, H/N, D)
            x = torch.cat([x[:, :t, r * local:(r + 1) * local], img], dim=1) if t else img
            return x.transpose(1, 2) if skip_in else x.reshape(b, t + f, local * d)

        args[0], args[1], args[2] = scatter(q), scatter(k), scatter(v)
        if "heads" in kwargs:
            kwargs["heads"] = local
        else:
            args[3] = local
        if "mask" in kwargs and kwargs["mask"] is not None:
            kwargs["mask"] = self._key_mask(kwargs["mask"], s)
        elif len(args) > 4 and args[4] is not None:
            args[4] = self._key_mask(args[4], s)
        out = call(func, *args, **kwargs) if call is not None else func(*args, **kwargs)
        out = out.transpose(1, 2) if skip_out else out.reshape(b, t + f, local, d)  # (B, T+F, H/N, D)
        img = out[:, t:]
        if self.pad:
            img = torch.cat([img, img.new_zeros(b, self.pad, local, d)], dim=1)
        img = _all_to_all_4d(img.contiguous(), 1, 2, self.group)[:, :, :heads]  # (B, s-T, H, D)
        if t:
            parts = [torch.empty_like(out[:, :t]) for _ in range(w)]
            dist.all_gather(parts, out[:, :t].contiguous(), group=self.group)
            img = torch.cat([torch.cat(parts, dim=2)[:, :, :heads], img], dim=1)
        return img.transpose(1, 2) if skip_out else img.reshape(b, s, heads * d)


def install(diffusion_model, state: SPState) -> dict:
    """Hook the worker's own model copy and return the transformer_options that make one forward
    sequence-parallel."""
    specs, joint, pe_dim = FAMILIES[type(diffusion_model).__name__]
    state.joint, state.pe_dim, state.hooked = joint, pe_dim, not joint
    keys = []
    for attr, kind in specs:
        keys += [(kind, i) for i in range(len(getattr(diffusion_model, attr)))]
    if not joint:
        def enter(*_):
            state.self_attn = True

        def leave(*_):
            state.self_attn = False

        for blk in diffusion_model.blocks:
            blk.self_attn.register_forward_pre_hook(enter)
            blk.self_attn.register_forward_hook(leave)
    replace = {key: state.block_replace(key, keys[0], keys[-1]) for key in keys}
    return {"patches_replace": {"dit": replace}, "optimized_attention_override": state.attention}
