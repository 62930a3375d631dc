"""Sequence parallelism for one Wan forward, run inside each worker process (rank r of N).

The tokens are split after the patch embedding: the replacement for block 0 pads the sequence to a
multiple of N and keeps this rank's slice; every block then runs on L/N tokens (modulation, FFN,
cross-attention: no communication), and self-attention is Ulysses: yunchang's all-to-all turns
(B, L/N, H, D) into (B, L, H/N, D), the local attention (ComfyUI's, or the user's override such as the
pack's FA3 backend) runs on whole sequences for H/N heads, and the reverse all-to-all restores
(B, L/N, H, D). The replacement for the last block all-gathers the slices, so the head and unpatchify
see the full sequence. Pad tokens are cut off before attention (they never act as keys), pad heads
(H not a multiple of N) are zero and dropped after it: the result is exact for any L and H.

Hooks are ComfyUI's own: `patches_replace["dit"][("double_block", i)]` and
`optimized_attention_override`, set in the worker's transformer_options; self-attention is told
apart from cross-attention by forward hooks on the worker's own copy of `block.self_attn`.
"""
from __future__ import annotations

import torch
import torch.distributed as dist


def _all_to_all_4d(x, scatter_idx, gather_idx, group):
    from yunchang.comm.all_to_all import all_to_all_4D

    return all_to_all_4D(x, scatter_idx, gather_idx, group=group)


class SPState:
    """Per-forward state shared by the block replacements and the attention override of one rank."""

    def __init__(self, rank: int, world: int, group=None):
        self.rank, self.world, self.group = rank, world, group
        self.inner = None           # the user's attention override (or None: ComfyUI's function)
        self.self_attn = False      # True while a block's self-attention runs
        self.full_len = 0           # L of the current forward
        self.pad = 0
        self._pe = (None, None)     # (id of the full freqs, this rank's slice)
        self._vec = (None, None)

    # ---- token split / gather
    def shard(self, t: torch.Tensor, dim: int = 1) -> torch.Tensor:
        if self.pad:
            shape = list(t.shape)
            shape[dim] = self.pad
            t = torch.cat([t, t.new_zeros(shape)], dim=dim)
        n = t.shape[dim] // self.world
        return t.narrow(dim, self.rank * n, n)

    def gather(self, x: torch.Tensor) -> torch.Tensor:
        parts = [torch.empty_like(x) for _ in range(self.world)]
        dist.all_gather(parts, x.contiguous(), group=self.group)
        return torch.cat(parts, dim=1)[:, :self.full_len]

    def pe(self, pe):
        if pe is None or pe.dim() < 2 or pe.shape[1] != self.full_len:
            return pe
        if self._pe[0] is not pe:
            self._pe = (pe, self.shard(pe))
        return self._pe[1]

    def vec(self, vec):
        # Wan 2.1/2.2 A14B: (B, 1, 6, C) broadcasts over tokens. TI2V-5B: one row per frame or token.
        if vec is None or vec.dim() != 4 or vec.shape[1] == 1:
            return vec
        if self._vec[0] is not vec:
            full = vec
            if full.shape[1] != self.full_len:
                full = torch.repeat_interleave(full, self.full_len // full.shape[1], dim=1)
            self._vec = (vec, self.shard(full))
        return self._vec[1]

    # ---- ComfyUI hooks
    def block_replace(self, index: int, last: int):
        def replace(args, extra):
            args = dict(args)
            if index == 0:
                x = args["img"]
                self.full_len = x.shape[1]
                self.pad = (-self.full_len) % self.world
                self._pe = self._vec = (None, None)
                args["img"] = self.shard(x)
            args["pe"] = self.pe(args["pe"])
            args["vec"] = self.vec(args["vec"])
            out = extra["original_block"](args)
            if index == last:
                out = dict(out)
                out["img"] = self.gather(out["img"])
            return out
        return replace

    def attention(self, func, *args, **kwargs):
        """`optimized_attention_override`: Ulysses for self-attention, pass-through for the rest."""
        call = self.inner
        if not self.self_attn or self.world == 1 or kwargs.get("skip_reshape") or len(args) < 3:
            return call(func, *args, **kwargs) if call is not None else func(*args, **kwargs)
        q, k, v = args[:3]
        heads = kwargs["heads"] if "heads" in kwargs else args[3]
        b, s, hd = q.shape
        d = hd // heads
        hp = -(-heads // self.world) * self.world

        def scatter_heads(t):
            t = t.reshape(b, s, heads, d)
            if hp != heads:
                t = torch.cat([t, t.new_zeros(b, s, hp - heads, d)], dim=2)
            t = _all_to_all_4d(t, 2, 1, self.group)  # (B, Lp, Hp/N, D)
            return t[:, :self.full_len].reshape(b, self.full_len, -1)

        q, k, v = scatter_heads(q), scatter_heads(k), scatter_heads(v)
        local = hp // self.world
        if "heads" in kwargs:
            args, kwargs = (q, k, v) + tuple(args[3:]), dict(kwargs, heads=local)
        else:
            args = (q, k, v, local) + tuple(args[4:])
        out = call(func, *args, **kwargs) if call is not None else func(*args, **kwargs)
        out = out.reshape(b, self.full_len, local, d)
        if self.pad:
            out = torch.cat([out, out.new_zeros(b, self.pad, local, d)], dim=1)
        out = _all_to_all_4d(out.contiguous(), 1, 2, self.group)  # (B, Lp/N, Hp, D)
        return out[:, :, :heads].reshape(b, s, heads * d)


def install(diffusion_model, state: SPState) -> dict:
    """Hook the worker's own Wan copy (forward hooks on its self-attention modules) and return the
    transformer_options that make one forward sequence-parallel."""
    blocks = list(diffusion_model.blocks)

    def enter(*_):
        state.self_attn = True

    def leave(*_):
        state.self_attn = False

    for blk in blocks:
        blk.self_attn.register_forward_pre_hook(enter)
        blk.self_attn.register_forward_hook(leave)
    last = len(blocks) - 1
    replace = {("double_block", i): state.block_replace(i, last) for i in range(len(blocks))}
    return {"patches_replace": {"dit": replace}, "optimized_attention_override": state.attention}
