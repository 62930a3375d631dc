"""Accel Compile on layers that fetch their weights through their own `cast_bias_weight` method: ComfyUI-GGUF's
layers (city96's pack: `GGMLLayer`, weights stored as packed GGML blocks in a `GGMLTensor`, `comfy_cast_weights =
True`, dequantized and LoRA-patched per call by the layer's own `cast_bias_weight(input, dtype, device, bias_dtype)`,
which its `forward_comfy_cast_weights` calls before `F.linear`). ComfyUI's module-level `cast_bias_weight` would cast
the packed bytes as if they were the weight.

ComfyUI-GGUF is on no package registry, so its code is not used here: a stand-in layer with the same interface
(packed int8 storage of another shape, its own scale, the same method and forward) plays its part on a tiny Wan. The
oracle is the layer's own eager path (what stock ComfyUI runs)."""
import pytest
import torch
import torch.nn.functional as F

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


class _PackedMixin:
    """GGUF-style layer: weight stored packed (int8, flat, per-row scale beside it), dequantized by its own method."""

    comfy_cast_weights = True

    def cast_bias_weight(self, input=None, dtype=None, device=None, bias_dtype=None):
        if input is not None:
            dtype = dtype or input.dtype
            device = device or input.device
        w = self.weight.to(device).float().reshape(self.logical_shape) * self.packed_scale.to(device)
        b = None if self.bias is None else self.bias.to(device=device, dtype=bias_dtype or dtype)
        return w.to(dtype), b

    def forward_comfy_cast_weights(self, input, *args, **kwargs):
        w, b = self.cast_bias_weight(input)
        return F.linear(input, w, b)


def _pack(model):
    """Every Linear of the blocks becomes a packed layer (its weight rounded to int8 per row: the model changes, the
    eager path of the packed model is the reference)."""
    n = 0
    for m in model.model.diffusion_model.blocks.modules():
        if isinstance(m, torch.nn.Linear):
            w = m.weight.detach().float()
            scale = w.abs().amax(dim=1, keepdim=True).clamp(min=1e-8) / 127
            q = torch.round(w / scale).to(torch.int8)
            m.__class__ = type("PackedLinear", (_PackedMixin, type(m)), {})
            m.logical_shape = tuple(w.shape)
            m.packed_scale = scale
            m.weight = torch.nn.Parameter(q.flatten(), requires_grad=False)  # not the weight's shape, not float
            n += 1
    return n


def _inputs():
    g = torch.Generator().manual_seed(0)
    return torch.randn(1, 16, 1, 4, 4, generator=g), torch.randn(1, 8, 4096, generator=g)


def _forward(patcher, x, ctx):
    from accel_harness.forward import Forward

    with Forward(patcher) as f:
        return f(x, 0.7, ctx).float()


def test_layers_with_their_own_cast_compile_and_match_their_eager_path(M, mod):
    from comfy.ldm.modules.attention import attention_pytorch

    C = mod("accel.compile")
    model = M.wan_model(dtype=torch.float32, seed=1)
    model.model_options.setdefault("transformer_options", {})["optimized_attention_override"] = \
        lambda func, *a, **k: attention_pytorch(*a, **k)
    assert _pack(model) > 0
    x, ctx = _inputs()
    ref = _forward(model, x, ctx)  # the packed layers' own path, as stock ComfyUI runs them
    policy = mod("accel.common.policy").Policy
    compiled, _ = C.apply_compile(model, backend="inductor", policy=policy.ERROR)  # a fallback would raise
    out = _forward(compiled, x, ctx)
    st = C.compile_status(compiled)
    assert not st["fell_back"] and st["graphs"] >= 1 and st["streamed_regions"] > 0, st
    scale = max(1.0, float(ref.abs().max()))
    assert float((out - ref).abs().max()) <= 1e-4 * scale
    # the layers got their own state back: packed int8 weight, their own cast path
    lin = next(m for m in model.model.diffusion_model.blocks.modules() if isinstance(m, _PackedMixin))
    assert lin.weight.dtype == torch.int8 and lin.comfy_cast_weights is True


class _Carried(torch.Tensor):
    """GGMLTensor-style subclass (ComfyUI-GGUF keeps a model's unquantized tensors in one): Python attributes and a
    Python `to` that keeps them, torch's default `__torch_function__` (which re-wraps every result in the class)."""

    def to(self, *args, **kwargs):
        new = super().to(*args, **kwargs)
        new.tensor_type = getattr(self, "tensor_type", None)
        return new


def _carry(model):
    """The model's parameters that are not packed weights (the patch and text embeddings, Wan's modulation, norm
    weights, biases) become `_Carried` parameters, as ComfyUI-GGUF's loader leaves them: the blocks get activations of
    that class from the embeddings too."""
    n = 0
    for m in model.model.diffusion_model.modules():
        for name, t in list(m._parameters.items()):
            if t is None or (isinstance(m, _PackedMixin) and name == "weight"):
                continue
            c = torch.nn.Parameter(t.detach().as_subclass(_Carried), requires_grad=False)
            c.tensor_type = "F32"
            m._parameters[name] = c
            n += 1
    return n


def test_block_tensors_of_a_python_subclass_reach_the_graph_as_plain_tensors(M, mod):
    """ComfyUI-GGUF's unquantized tensors (a tensor subclass with Python attributes) in and before a compiled block: the
    graph gets them, and the activations computed from them, as plain tensors (on the H100 the class spread to every
    activation: torch 2.11's dynamo failed on `Tensor.unflatten` in the attention override, then guarded on the
    class's attributes and recompiled per block until its limit) -- as many graphs as the same model without the
    subclass,
    the same output as the eager path, and the model keeps its own parameters afterwards."""
    from comfy.ldm.modules.attention import attention_pytorch
    from torch._dynamo.backends.registry import _COMPILER_FNS, register_backend

    seen = []

    def recording(gm, example_inputs, **kw):
        seen.extend(type(t) for t in example_inputs if isinstance(t, torch.Tensor))
        return gm.forward

    register_backend(recording, name="accel_test_recording")
    C = mod("accel.compile")
    policy = mod("accel.common.policy").Policy
    x, ctx = _inputs()

    def run(carried):
        torch._dynamo.reset()
        seen.clear()
        model = M.wan_model(dtype=torch.float32, seed=1)
        model.model_options.setdefault("transformer_options", {})["optimized_attention_override"] = \
            lambda func, *a, **k: attention_pytorch(*a, **k)
        assert _pack(model) > 0 and (not carried or _carry(model) > 0)
        ref = _forward(model, x, ctx)
        compiled, _ = C.apply_compile(model, backend="accel_test_recording", policy=policy.ERROR)
        out = _forward(compiled, x, ctx)
        st = C.compile_status(compiled)
        assert not st["fell_back"] and st["graphs"] >= 1, st
        assert float((out - ref).abs().max()) <= 1e-4 * max(1.0, float(ref.abs().max()))
        return model, st["graphs"]

    try:
        _, plain_graphs = run(False)
        model, graphs = run(True)
        assert seen and _Carried not in seen, seen
        assert graphs == plain_graphs
        block = model.model.diffusion_model.blocks[0]
        assert type(block.modulation) is _Carried and block.modulation.tensor_type == "F32"
    finally:
        _COMPILER_FNS.pop("accel_test_recording", None)
