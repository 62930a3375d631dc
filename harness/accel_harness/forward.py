"""One diffusion-model forward run exactly as ComfyUI sampling runs it: the patcher loaded and
patched, ON_PRE_RUN/ON_CLEANUP callbacks, wrappers and callbacks merged into transformer_options,
cond_or_uncond / sigmas / sample_sigmas set. Used by tests and GPU benchmarks to time a forward.
"""
from __future__ import annotations

import copy

import torch


class Forward:
    """with Forward(model_patcher) as f: out = f(x, sigma, context)"""

    def __init__(self, patcher, sample_sigmas=None):
        self.patcher = patcher
        self.sample_sigmas = sample_sigmas

    def __enter__(self):
        import comfy.model_management as mm
        import comfy.patcher_extension as pe

        mm.load_models_gpu([self.patcher])
        self.patcher.pre_run()
        mo = copy.copy(self.patcher.model_options)
        to = dict(mo.get("transformer_options", {}))
        to["wrappers"] = pe.merge_nested_dicts(dict(to.get("wrappers", {})), self.patcher.wrappers, copy_dict1=False)
        to["callbacks"] = pe.merge_nested_dicts(dict(to.get("callbacks", {})), self.patcher.callbacks, copy_dict1=False)
        self.transformer_options = to
        self.device = self.patcher.load_device
        return self

    @torch.inference_mode()
    def __call__(self, x, sigma, context, cond_or_uncond=None, **extra):
        """Inference mode, as ComfyUI's executor runs sampling (no autograd graph is kept)."""
        base = self.patcher.model
        x = x.to(self.device)
        sigma = torch.as_tensor(sigma, dtype=torch.float32, device=self.device).reshape(-1).expand(x.shape[0])
        to = dict(self.transformer_options)
        to["cond_or_uncond"] = list(cond_or_uncond) if cond_or_uncond is not None else [0] * x.shape[0]
        to["uuids"] = [None] * len(to["cond_or_uncond"])
        to["sigmas"] = sigma
        if self.sample_sigmas is not None:
            to["sample_sigmas"] = torch.as_tensor(self.sample_sigmas, device=self.device)
        context = context.to(self.device)
        return base.apply_model(x, sigma, c_crossattn=context, transformer_options=to, **extra)

    def __exit__(self, *exc):
        self.patcher.cleanup()
        return False


@torch.inference_mode()
def lowvram_apply(p, x, ctx, check=None):
    """One model call of `p` loaded with nothing resident (lowvram_model_memory=1: every layer casts its weights per
    call and a LoRA stays a per-call weight function, as under ComfyUI 0.33's DynamicVRAM, which needs CUDA), at
    sigma 0.7, then unpatched. `check(p)`: run on the loaded model first (asserts of the case under test)."""
    import comfy.model_management as mm
    import comfy.patcher_extension as pe

    mm.unload_all_models()
    p.patch_model(p.load_device, lowvram_model_memory=1)
    try:
        if check is not None:
            check(p)
        to = copy.copy(p.model_options.get("transformer_options", {}))
        to["wrappers"] = pe.merge_nested_dicts({}, p.wrappers, copy_dict1=False)
        to["cond_or_uncond"], to["sigmas"] = [0], torch.tensor([0.7])
        return p.model.apply_model(x, torch.tensor([0.7]), c_crossattn=ctx, transformer_options=to).float()
    finally:
        p.unpatch_model(p.offload_device)
