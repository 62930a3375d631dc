"""Family detection on real ComfyUI models built from random weights."""
import pytest


@pytest.mark.parametrize("variant,size,family,name_part", [
    ("t2v", "tiny", "wan21", "T2V"),
    ("i2v", "tiny", "wan21", "I2V"),
    ("ti2v5b", "tiny", "wan22", "TI2V"),
])
def test_wan_families(mod, M, variant, size, family, name_part):
    fam = mod("accel.common.families").detect(M.wan_model(variant, size))
    assert fam.family == family and fam.is_wan
    assert name_part in fam.name
    assert fam.block_keys == [f"diffusion_model.blocks.{i}" for i in range(2)]


def test_flux_family(mod, M):
    fam = mod("accel.common.families").detect(M.tiny_flux())
    assert fam.family == "flux" and not fam.is_wan
    assert fam.block_keys == ["diffusion_model.double_blocks.0", "diffusion_model.single_blocks.0"]


def test_forward_helper_matches_sampling_path(M):
    import torch
    from accel_harness.forward import Forward

    m = M.wan_model("t2v", "tiny")
    x = torch.randn(1, 16, 2, 4, 4)
    ctx = M.conditioning(8)[0][0]
    with Forward(m) as f:
        a = f(x, 0.7, ctx)
        b = f(x, 0.7, ctx)
    assert a.shape == x.shape and torch.isfinite(a).all()
    assert torch.equal(a, b)
