"""Fixtures of the VAE tests."""
import pytest
import torch


@pytest.fixture(scope="module")
def wan_vae(M):
    """A tiny random Wan 2.1 VAE (float32) built through ComfyUI's comfy.sd.VAE."""
    return M.vae_from_state_dict(M.wan21_vae_state_dict("tiny", seed=0), dtype=torch.float32)
