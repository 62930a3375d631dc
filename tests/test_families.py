"""Family detection on real ComfyUI models built from random weights."""
import pytest


@pytest.mark.parametrize("variant,size,family,name_part", [
    ("t2v", "tiny", "wan21", "T2V"),
    ("i2v", "tiny", "wan21", "I2V"),
    ("ti2v5b", "tiny", "wan22", "TI2V"),
])
def test_wan_families(mod, M, variant, size, family, name_part):
    fam = mod("accel.families").detect(M.wan_model(variant, size))
    assert fam.family == family and fam.is_wan
    assert name_part in fam.name
    assert fam.block_keys == [f"diffusion_model.blocks.{i}" for i in range(2)]


def test_flux_family(mod, M):
    fam = mod("accel.families").detect(M.tiny_flux())
    assert fam.family == "flux" and not fam.is_wan
    assert fam.block_keys == ["diffusion_model.double_blocks.0", "diffusion_model.single_blocks.0"]
