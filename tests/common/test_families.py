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


@pytest.mark.parametrize("builder,family,name,lists", [
    ("tiny_z_image", "z_image", "Z-Image", ["context_refiner.0", "noise_refiner.0", "layers.0", "layers.1"]),
    ("tiny_flux2", "flux2", "Flux.2", ["double_blocks.0", "single_blocks.0"]),
    ("tiny_qwen_image", "qwen_image", "Qwen-Image", ["transformer_blocks.0", "transformer_blocks.1"]),
    ("tiny_sdxl", "sdxl", "SDXL", ["input_blocks.1.0", "input_blocks.3.0", "input_blocks.3.1", "middle_block.0",
                                   "middle_block.1", "middle_block.2", "output_blocks.0.0", "output_blocks.0.1",
                                   "output_blocks.1.0", "output_blocks.1.1", "output_blocks.2.0",
                                   "output_blocks.3.0"]),
])
def test_image_families(mod, M, builder, family, name, lists):
    """Z-Image is its own family (ComfyUI builds it as a Lumina 2 model): its blocks are the caption and image
    refiners, then the main layers, in forward order. SDXL's UNet: its blocks' attention and residual layers, in
    forward order (tests/compile/test_unet_layers.py compiles them)."""
    families = mod("accel.common.families")
    fam = families.detect(getattr(M, builder)())
    assert (fam.family, fam.name) == (family, name)
    assert fam.block_keys == [f"diffusion_model.{k}" for k in lists]
    assert (family in families.UNET) == (family == "sdxl")


def test_z_image_from_its_config_before_the_build(mod, M):
    """The FP8 loader's `auto` decides before the model is built: ComfyUI's ZImage config says Z-Image, a Lumina 2
    config (dim 2304) says Lumina 2."""
    import comfy.supported_models as sm

    families = mod("accel.common.families")
    assert families.family_of_config(sm.ZImage(dict(M.Z_IMAGE_TINY))) == "z_image"
    assert families.family_of_config(sm.Lumina2({"image_model": "lumina2", "dim": 2304})) == "lumina2"
    assert families.family_name("z_image") == "Z-Image"


def test_sdxl_compiles_its_layers(mod, M):
    m, report = mod("accel.compile").apply_compile(M.tiny_sdxl(), backend="eager")
    assert "scope 12 layers of SDXL (4 attention, 8 residual" in report
    assert "no transformer block list" not in report and "whole diffusion model" not in report


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
