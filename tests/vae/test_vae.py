"""Accel VAE (accel/vae/decode.py, nodes/vae.py, kernels/vae_norm.py): decodes equal ComfyUI's stock decode within the
stated tolerance (tiny random Wan 2.1 VAE and the Flux KL VAE, built through comfy.sd.VAE(sd=...)), the user's
VAE object is never modified, every torch flag and module hook is gone after the decode, unknown VAE types
follow on_failure, and the fused RMSNorm+SiLU Triton kernel matches the torch reference (Triton interpreter)."""
import subprocess
import sys

import pytest
import torch

import accel_harness as H
from accel_harness.interp import run_interpreted

TOL = 1e-5  # fp32 CPU: exact options (channels_last, cudnn.benchmark) are float reassociation only


@pytest.fixture(scope="module")
def V(mod):
    return mod("accel.vae.decode")


@pytest.fixture(scope="module")
def Opts(mod):
    return mod("accel.vae.options")


@pytest.fixture(scope="module")
def kl_vae(M):
    return M.vae_from_state_dict(M.kl_vae_state_dict("flux", seed=0), dtype=torch.float32)


def wan_latent(t=3, h=4, w=6, seed=1):
    return torch.randn(1, 16, t, h, w, generator=torch.Generator().manual_seed(seed))


def node(vae, **kw):
    out = H.call_node("AccelVAE", vae, **kw)
    return out["result"][0], out["result"][1]


def hooks_and_attrs(vae):
    """Forward pre-hooks and instance-level `forward` overrides anywhere in the VAE's model."""
    mods = list(vae.first_stage_model.modules())
    return sum(len(m._forward_pre_hooks) for m in mods), sum("forward" in m.__dict__ for m in mods)


def layouts_seen(vae):
    """Record, per conv call, whether its input was channels_last(_3d) (forward hooks see the args after the
    pre-hooks ran)."""
    seen = []

    def hook(m, args, out):
        x = args[0]
        fmt = torch.channels_last_3d if x.ndim == 5 else torch.channels_last
        seen.append(x.is_contiguous(memory_format=fmt) and not x.is_contiguous())

    handles = [m.register_forward_hook(hook) for m in vae.first_stage_model.decoder.modules()
               if isinstance(m, (torch.nn.Conv2d, torch.nn.Conv3d))]
    return seen, handles


def decode_seeing_benchmark(vae, acc, z):
    """(acc.decode(z), cudnn.benchmark as the decoder's last layer saw it on each call)."""
    flags = []
    probe = vae.first_stage_model.decoder.head[-1].register_forward_pre_hook(
        lambda m, a: flags.append(torch.backends.cudnn.benchmark))
    try:
        return acc.decode(z), flags
    finally:
        probe.remove()


@torch.inference_mode()
def test_wan_default_matches_stock_and_leaves_the_input_vae_alone(wan_vae, V):
    z = wan_latent()
    ref = wan_vae.decode(z)
    before_cls, before_dict = type(wan_vae), dict(wan_vae.__dict__)
    bench = torch.backends.cudnn.benchmark
    acc, report = node(wan_vae)
    assert acc is not wan_vae and isinstance(acc, before_cls)
    assert acc.first_stage_model is wan_vae.first_stage_model and acc.patcher is wan_vae.patcher  # no weight copy
    seen, handles = layouts_seen(wan_vae)
    try:
        out, flags = decode_seeing_benchmark(wan_vae, acc, z)
    finally:
        for h in handles:
            h.remove()
    assert out.shape == ref.shape and out.is_contiguous()
    assert (out - ref).abs().max().item() <= TOL
    assert seen and all(seen), "the decoder's convolutions did not get channels_last inputs"
    # cudnn.benchmark is opt-in (its search makes the first decode ~5x slower): left as it was
    assert flags and all(f == bench for f in flags) and torch.backends.cudnn.benchmark == bench
    # the input VAE: same class, same attributes, no hooks left, decodes bit-identically to before
    assert type(wan_vae) is before_cls and wan_vae.__dict__ == before_dict and "_accel_vae" not in wan_vae.__dict__
    assert hooks_and_attrs(wan_vae) == (0, 0)
    assert torch.equal(wan_vae.decode(z), ref)
    assert "on: channels_last" in report
    assert "off: cudnn_benchmark, tf32, fused_norm, compile, tiled" in report and "Wan 2.1 VAE" in report
    assert "exact up to float reassociation" in report


@torch.inference_mode()
def test_cudnn_benchmark_is_set_for_the_decode_only(wan_vae):
    z = wan_latent()
    ref = wan_vae.decode(z)
    bench = torch.backends.cudnn.benchmark
    acc, report = node(wan_vae, cudnn_benchmark=True)
    out, flags = decode_seeing_benchmark(wan_vae, acc, z)
    assert flags and all(flags) and torch.backends.cudnn.benchmark == bench  # on for the decode, restored after
    assert (out - ref).abs().max().item() <= TOL
    on = [line.split(":")[1].strip() for line in report.splitlines() if line.startswith("on: ")]
    assert "channels_last" in on and "cudnn_benchmark" in on, on
    assert "cudnn.benchmark has no effect on cpu" in report


@torch.inference_mode()
def test_kl_default_matches_stock(kl_vae):
    z = torch.randn(1, 16, 4, 4, generator=torch.Generator().manual_seed(2))
    ref = kl_vae.decode(z)
    acc, report = node(kl_vae)
    out = acc.decode(z)
    assert out.shape == ref.shape == (1, 32, 32, 3)
    assert (out - ref).abs().max().item() <= TOL
    assert "KL image VAE" in report
    assert hooks_and_attrs(kl_vae) == (0, 0)
    # measured slower on KL VAEs (accel/vae/decode.py KL_LAYOUT_MEASURED): not applied, and the report says so
    assert not acc._accel_vae.options.channels_last and not acc._accel_vae.options.cudnn_benchmark
    assert "not applied to KL VAEs" in report


@torch.inference_mode()
def test_tiled_is_comfyuis_tiled_decode(wan_vae):
    z = wan_latent(t=2, h=16, w=20, seed=3)  # 128x160 px: several 64 px tiles
    acc, report = node(wan_vae, channels_last=False, tiled=True, tile_size=64, overlap=32, temporal_size=8,
                       temporal_overlap=4)
    out = acc.decode(z)
    # what VAE Decode (Tiled) does with the same settings (ComfyUI's own node)
    import nodes

    ref = nodes.VAEDecodeTiled().decode(wan_vae, {"samples": z}, 64, 32, 8, 4)[0]
    assert torch.equal(out.reshape(ref.shape), ref)
    assert (out - wan_vae.decode(z)).abs().max().item() > 0  # really tiled (seams blended), not a full decode
    assert "on: tiled" in report and "tiles: 64 px, overlap 32 px" in report and "not bit-exact" in report


@torch.inference_mode()
def test_fused_norm_and_compile_are_wired_to_every_block(wan_vae, V, Opts, mod, monkeypatch):
    z = wan_latent(seed=4)
    ref = wan_vae.decode(z)
    vn = mod("kernels.vae_norm")
    calls = []
    real = vn.rms_norm_silu
    monkeypatch.setattr(vn, "rms_norm_silu", lambda x, g, b=None, **kw: calls.append(x.shape) or real(x, g, b, **kw))
    opts = Opts.VAEOptions(channels_last=False, fused_norm=True, compile=True, compile_backend="eager")
    acc, report = Opts.apply(wan_vae, opts)
    report = report.render()
    out = acc.decode(z)
    assert (out - ref).abs().max().item() <= TOL  # CPU: the reference path inside, eager backend
    pairs = V.norm_silu_pairs(wan_vae.first_stage_model.decoder)
    assert len(pairs) == 2 * 14 + 1  # two per decoder residual block, one in the head
    assert len(calls) >= len(pairs)
    import comfy.ldm.wan.vae as wv

    blocks = [m for m in wan_vae.first_stage_model.decoder.modules() if isinstance(m, wv.ResidualBlock)]
    assert set(acc._accel_vae.compiled) == set(blocks) and acc._accel_vae.compile_failed is None
    assert hooks_and_attrs(wan_vae) == (0, 0)
    assert "on: fused_norm" in report and "on: compile" in report and "RMSNorm+SiLU pairs" in report


@torch.inference_mode()
def test_compile_failure_follows_on_failure(wan_vae, Opts, AccelError):
    z = wan_latent(t=1, seed=5)
    ref = wan_vae.decode(z)

    def broken(gm, example_inputs):
        raise RuntimeError("no compiler here")

    import torch._dynamo

    torch._dynamo.reset()
    opts = Opts.VAEOptions(channels_last=False, compile=True, compile_backend=broken)
    acc, _ = Opts.apply(wan_vae, opts)
    assert torch.equal(acc.decode(z), ref) and "no compiler here" in acc._accel_vae.compile_failed
    torch._dynamo.reset()
    acc, _ = Opts.apply(wan_vae, Opts.VAEOptions(channels_last=False, compile=True, compile_backend=broken,
                                                 policy="error"))
    with pytest.raises(AccelError, match="compile"):
        acc.decode(z)
    assert hooks_and_attrs(wan_vae) == (0, 0)  # restored after a failed decode too
    torch._dynamo.reset()


def test_unknown_vae_and_inapplicable_options_follow_on_failure(kl_vae, Opts, AccelError):
    import copy

    odd = copy.copy(kl_vae)
    odd.first_stage_model = torch.nn.Identity()
    out, report = node(odd)
    assert out is odd and "not accelerated (fall back)" in report and "torch.nn.modules.linear.Identity" in report
    with pytest.raises(AccelError, match="input 'vae'"):
        node(odd, on_failure="error")
    acc, report = node(kl_vae, fused_norm=True)
    assert "fused_norm: the KL decoder" in report and "skipped" in report and not acc._accel_vae.options.fused_norm
    with pytest.raises(AccelError, match="input 'fused_norm'"):
        node(kl_vae, fused_norm=True, on_failure="error")
    with pytest.raises(AccelError, match="input 'tile_size'"):
        Opts.VAEOptions(tile_size=32)
    with pytest.raises(AccelError, match="input 'temporal_chunk'"):
        Opts.VAEOptions(temporal_chunk=1)
    acc, report = node(kl_vae, temporal_chunk=4)
    assert "temporal_chunk: an image VAE" in report and acc._accel_vae.options.temporal_chunk == 0


def test_a_second_accel_vae_replaces_the_first(wan_vae):
    a, _ = node(wan_vae, channels_last=False)
    b, report = node(a, tiled=True)
    assert type(b) is type(a) and type(b).__mro__[1] is type(wan_vae)  # no subclass of a subclass
    assert b._accel_vae.options.tiled and b._accel_vae.options.channels_last
    assert not a._accel_vae.options.tiled and "replaces the Accel VAE settings" in report


def decoder_calls(vae):
    """(list that grows by one per decoder call, hook handle)."""
    calls = []
    handle = vae.first_stage_model.decoder.register_forward_pre_hook(lambda m, a, kw: calls.append(a[0].shape[2]),
                                                                     with_kwargs=True)
    return calls, handle


@torch.inference_mode()
@pytest.mark.parametrize("chunk", [2, 3, 5])
def test_temporal_chunk_matches_comfyuis_decode(wan_vae, chunk):
    """The causal cache carried over longer runs of latent frames: ComfyUI's decode within fp32 reassociation, with
    the first frame alone and then runs of `chunk` (the last one shorter)."""
    z = wan_latent(t=6, seed=6)
    ref = wan_vae.decode(z)
    acc, report = node(wan_vae, channels_last=False, temporal_chunk=chunk)
    calls, handle = decoder_calls(wan_vae)
    try:
        out = acc.decode(z)
    finally:
        handle.remove()
    assert out.shape == ref.shape and (out - ref).abs().max().item() <= TOL
    assert calls == [1] + [min(chunk, 5 - i) for i in range(0, 5, chunk)], calls
    assert hooks_and_attrs(wan_vae) == (0, 0) and "decode" not in wan_vae.first_stage_model.__dict__
    assert "on: temporal_chunk" in report and "exact up to float reassociation (all options on are exact)" in report


@torch.inference_mode()
def test_temporal_chunk_on_the_wan22_decoder(V, M):
    """The Wan 2.2 VAE's decoder (ComfyUI's class, tiny width: ComfyUI detects it at its true width only) over runs
    of 2 and 3 latent frames equals its own one-frame-at-a-time decode; its unpatchify per chunk equals the whole
    decode's (what the streaming decode relies on)."""
    import comfy.ldm.wan.vae2_2 as w22

    m = M.tiny_wan22_vae_module(seed=1)
    z = torch.randn(1, 48, 5, 2, 3, generator=torch.Generator().manual_seed(8))
    ref = m.decode(z)
    for chunk in (2, 3):
        out = V.decode_chunked(m, z, chunk, "wan2.2")
        assert out.shape == ref.shape and (out - ref).abs().max().item() <= TOL, chunk
    pieces = []
    handle = m.decoder.register_forward_hook(lambda mod, a, o: pieces.append(w22.unpatchify(o, patch_size=2)))
    try:
        m.decode(z)
    finally:
        handle.remove()
    assert torch.equal(torch.cat(pieces, 2), ref)


@torch.inference_mode()
def test_tiles_sized_to_the_free_memory(wan_vae, monkeypatch):
    """tile_size 0: a full decode (stock's output) where ComfyUI's estimate of the decode fits the free memory, tiles
    sized down until one fits where it does not."""
    import comfy.model_management as mm

    z = wan_latent(t=2, h=32, w=40, seed=9)  # 256x320 px
    ref = wan_vae.decode(z)
    acc, report = node(wan_vae, channels_last=False, tiled=True, tile_size=0)
    assert "tiles: sized to the free memory" in report
    monkeypatch.setattr(mm, "get_free_memory", lambda *a, **k: 1 << 50)
    assert torch.equal(acc.decode(z), ref) and acc._accel_vae.last_tiles is None
    need = wan_vae.memory_used_decode(tuple(z.shape), wan_vae.vae_dtype)
    monkeypatch.setattr(mm, "get_free_memory", lambda *a, **k: need // 3)
    out = acc.decode(z)
    tiles = acc._accel_vae.last_tiles
    assert tiles is not None and tiles["tile_x"] == 32 == tiles["tile_y"]  # 40 -> 20 fits a third; ComfyUI's minimum 32
    assert out.shape == ref.shape and (out - ref).abs().max().item() > 0  # really tiled
    monkeypatch.setattr(mm, "get_free_memory", lambda *a, **k: need)
    acc.decode(z)
    assert acc._accel_vae.last_tiles is None


def test_node_defaults_come_from_the_measured_table(mod, monkeypatch):
    """The node's option inputs default to the measured choice of this GPU class (accel/vae/measured.py), and to
    VAEOptions()'s own defaults where the class is not measured: the code reads the table."""
    ms, opts, nodes_vae = mod("accel.vae.measured"), mod("accel.vae.options"), mod("nodes.vae")
    row = mod("accel.common.defaults").row_for(mod("accel.common.hardware").profile()).name

    def defaults():
        return {i.id: i.default for i in nodes_vae.AccelVAE.define_schema().inputs if i.id != "vae"}

    monkeypatch.setitem(ms.DECODE_DEFAULTS, row, ms.NOT_MEASURED)
    base = opts.VAEOptions()
    assert {k: v for k, v in defaults().items() if k != "on_failure"} == {
        k: getattr(base, k) for k in defaults() if k != "on_failure"}
    assert "not measured" in opts.measured_defaults()[1]
    monkeypatch.setitem(ms.DECODE_DEFAULTS, row, ms.DecodeChoice({"fused_norm": True, "temporal_chunk": 4}, "f.json",
                                                                 "a test"))
    d = defaults()
    assert d["fused_norm"] is True and d["temporal_chunk"] == 4 and d["channels_last"] is True
    assert ("measured, the fewest changes among the fastest within the exact bound (a test; f.json)"
            in opts.measured_defaults()[1])
    monkeypatch.setitem(ms.DECODE_DEFAULTS, row, ms.DecodeChoice({"no_such_option": 1}, "f.json", "a test"))
    with pytest.raises(ValueError, match="no_such_option"):
        opts.measured_defaults()


def test_a_measured_default_that_a_kl_vae_cannot_use_is_skipped_not_an_error(kl_vae, mod, monkeypatch):
    """A measured default made for the Wan VAEs (fused_norm, temporal_chunk) on a Flux VAE with on_failure error:
    skipped with a line; the same option set by hand where it is not the default still stops with an error."""
    ms = mod("accel.vae.measured")
    row = mod("accel.common.defaults").row_for(mod("accel.common.hardware").profile()).name
    monkeypatch.setitem(ms.DECODE_DEFAULTS, row, ms.DecodeChoice({"fused_norm": True, "temporal_chunk": 4}, "f.json",
                                                                 "a test"))
    acc, report = node(kl_vae, fused_norm=True, temporal_chunk=4, on_failure="error")
    assert "fused_norm: the KL decoder" in report and "skipped (the default here)" in report
    assert not acc._accel_vae.options.fused_norm and acc._accel_vae.options.temporal_chunk == 0
    with pytest.raises(mod("accel.common.errors").AccelError, match="input 'temporal_chunk'"):
        node(kl_vae, fused_norm=True, temporal_chunk=2, on_failure="error")


def test_shipped_table_restates_its_files(mod):
    """Every measured entry is what bench_vae.py's rule picks from the file it names: the same options changed from
    VAEOptions()'s defaults, and the speed-up it quotes, from a run whose variants were timed in 3 or more interleaved
    rounds; a class without such a run says `not measured`."""
    import json

    ms, opts, figures = mod("accel.vae.measured"), mod("accel.vae.options"), mod("accel.common.figures")
    bv = H.lab_module("bench_vae_for_tests", "bench/bench_vae.py")
    assert all(v == ms.NOT_MEASURED or isinstance(v, ms.DecodeChoice) for v in ms.DECODE_DEFAULTS.values())
    entries = {k: v for k, v in ms.DECODE_DEFAULTS.items() if v != ms.NOT_MEASURED}
    for row, entry in entries.items():
        data = json.loads((H.REPO_ROOT / entry.file).read_text())
        rows = [r for r in data["rows"] if r["vae"] == "wan2.1" and "error" not in r]
        best, _, _ = bv.pick(rows, vars(opts.VAEOptions()))
        assert entry.options == bv.changed_options(best["options"], vars(opts.VAEOptions())), row
        speedup = figures.fig(entry.speedup)
        assert f"{figures.RESULTS}/{speedup.file}" == entry.file and speedup.value == best["speedup"], row
        assert data["meta"].get("rounds", 0) >= 3 and best.get("interleaved_rounds", 0) >= 3, row
        assert data["meta"]["comfyui"] in entry.what and data["meta"]["gpu"] in entry.what, row


def _vae_row(variant, time_s, first_s, within=True, **options):
    return {"vae": "wan2.1", "variant": variant, "time_s": time_s, "first_s": first_s, "within_bound": within,
            "options": options}


def test_the_choice_rule_counts_a_compile_cold_and_prefers_fewer_changes():
    """bench_vae.pick on rows shaped like an H200 combos run: the second compiling variant's short first decode
    (caches warmed by the first) does not let it in; among variants within 3.5% of the fastest the one changing fewest
    defaults wins; a variant outside the bound never wins however fast."""
    bv = H.lab_module("bench_vae_for_tests", "bench/bench_vae.py")
    base = {"channels_last": True, "cudnn_benchmark": False, "fused_norm": False, "compile": False,
            "temporal_chunk": 0, "tiled": False}
    rows = [dict(_vae_row("stock", 1.73, 2.1), options=None),
            _vae_row("cl+cb+co", 1.34, 57.8, channels_last=True, cudnn_benchmark=True, compile=True),
            _vae_row("cl+cb+fn+co", 1.28, 16.3, channels_last=True, cudnn_benchmark=True, fused_norm=True,
                     compile=True),
            _vae_row("cl+fn+tc4", 1.378, 1.36, channels_last=True, fused_norm=True, temporal_chunk=4),
            _vae_row("cl+fn", 1.398, 2.15, channels_last=True, fused_norm=True),
            _vae_row("cl+fn+far", 1.0, 1.0, within=False, channels_last=True, fused_norm=True, tiled=False),
            _vae_row("tilefit", 0.9, 1.0, channels_last=True, tiled=True)]
    best, n, why = bv.pick(rows, base)
    assert best["variant"] == "cl+fn" and n == 2 and "fewest changes" in why
    assert bv.changed_options(best["options"], base) == {"fused_norm": True}
    rows[1]["first_s"] = 16.0  # both compiles within the limit: the compiled one is fastest by more than 3.5%
    best, n, why = bv.pick(rows, base)
    assert best["variant"] == "cl+cb+fn+co" and n == 4 and why.startswith("fastest of 4")
    best, n, why = bv.pick([rows[0], _vae_row("cl", 1.9, 2.0, channels_last=True)], base)
    assert best["variant"] == "stock" and "not faster than stock" in why


def test_triton_rms_norm_silu_matches_the_reference_in_the_interpreter():
    pytest.importorskip("triton")
    ok, err = run_interpreted("""
        import accel_kernels.vae_norm as V
        assert V.kernel() is not None, V._state
        g = torch.Generator().manual_seed(0)
        cases = [((1, 24, 2, 5, 7), False, False, torch.float32), ((2, 40, 1, 3, 4), True, True, torch.float32),
                 ((1, 3, 3, 2, 2), False, True, torch.float32), ((1, 96, 2, 3, 3), True, False, torch.bfloat16),
                 ((1, 16, 4, 4), False, False, torch.float32)]
        for shape, cl, bias, dt in cases:
            C = shape[1]
            x = (3 * torch.randn(*shape, generator=g)).to(dt)
            if cl:
                x = x.contiguous(memory_format=torch.channels_last_3d)
            gam = (1 + 0.1 * torch.randn(C, *[1] * (len(shape) - 2), generator=g)).to(dt)
            b = (0.1 * torch.randn(C, *[1] * (len(shape) - 2), generator=g)).to(dt) if bias else None
            y = V.rms_norm_silu(x, gam, b, allow_cpu=True)
            ref32 = V.rms_norm_silu_reference(x.float(), gam.float(), None if b is None else b.float())
            assert y.dtype == dt and y.shape == x.shape and y.stride() == x.stride(), (y.stride(), x.stride())
            err = (y.float() - ref32).abs().max().item()
            # fp32: reassociation only; bf16: one rounding of the fp32 result (half a bf16 ulp of |y| <= ~8)
            assert err <= (1e-5 if dt == torch.float32 else 0.04), (shape, dt, err)
            if dt == torch.bfloat16:  # stock (five roundings) is no closer to the fp32 truth than the kernel
                stock = (V.rms_norm_silu_reference(x, gam, b).float() - ref32).abs().max().item()
                assert err <= stock + 1e-6, (err, stock)
        x = torch.randn(1, 8, 4, 4, 4, generator=g)[:, :, :, ::2]  # strides the kernel cannot walk: reference
        assert V.layout(x) is None and V.usable(x, allow_cpu=True)
        print("OK")
    """)
    assert ok, err


# every candidate once (alone or combined), legacy names too, not every combination the GPU run compares
SMOKE_VARIANTS = ("stock,default,cudnn_benchmark,channels_last,fused_norm_nocl,fused_norm+compile,tiled,cl+fn+tc3,"
                  "tilefit,output")


def test_bench_vae_smoke(tmp_path):
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, str(H.REPO_ROOT / "bench" / "bench_vae.py"), "--smoke", "--out", str(out),
                        "--variants", SMOKE_VARIANTS, "--rounds", "2", "--profile"], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    import json

    data = json.loads((out / "vae.json").read_text())
    rows = {(x["vae"], x["variant"]): x for x in data["rows"]}
    assert not data["errors"], data["errors"]
    assert {v for _, v in rows} == set(SMOKE_VARIANTS.split(","))
    assert ("wan2.1", "stock") in rows and ("wan2.1", "default") in rows and ("kl_flux", "default") in rows
    assert rows[("wan2.1", "default")]["max_abs_diff"] <= TOL
    assert rows[("wan2.1", "output")]["max_abs_diff"] == 0  # every option off: stock's decode bit for bit
    assert rows[("wan2.1", "tiled")]["max_abs_diff"] > 0
    for variant in ("channels_last", "fused_norm_nocl", "cl+fn+tc3"):  # exact up to reassociation on the CPU
        assert "error" not in rows[("wan2.1", variant)] and rows[("wan2.1", variant)]["max_abs_diff"] <= TOL, variant
    assert rows[("wan2.1", "cl+fn+tc3")]["options"]["temporal_chunk"] == 3
    assert ("kl_flux", "fused_norm_nocl") not in rows and ("kl_flux", "cl+fn+tc3") not in rows  # Wan only
    # every row against the float32 reference (stock's own decode on the CPU), and one choice per VAE
    assert all("psnr_vs_fp32" in r and "within_bound" in r for r in rows.values())
    assert rows[("wan2.1", "stock")]["within_bound"] and set(data["choice"]) == {"wan2.1", "kl_flux"}
    # --rounds 2: every variant decoded twice more, interleaved with the others; its median over all its decodes
    reps = data["meta"]["repeats"]
    for r in rows.values():
        assert r["interleaved_rounds"] == 2 and len(r["times_s"]) == reps + 2, r["variant"]
        assert r["time_s"] == sorted(r["times_s"])[len(r["times_s"]) // 2], r["variant"]
    stock = rows[("wan2.1", "stock")]
    assert all(r["speedup"] == round(stock["time_s"] / r["time_s"], 3) for (v, _), r in rows.items() if v == "wan2.1")
    md = (out / "vae.md").read_text()
    assert "| wan2.1 | default |" in md and "torch" in md and "## Choice" in md
    # --profile: one profiled decode per variant, its time by category (the CPU's op times on the smoke), in the
    # JSON and the Markdown's own section
    for r in rows.values():
        p = r["profile"]
        assert p["kernel_total_ms"] > 0 and p["wall_ms"] > 0 and p["top"], r["variant"]
        assert abs(sum(p["category_ms"].values()) - p["kernel_total_ms"]) < 0.05 * p["kernel_total_ms"] + 0.1
    assert rows[("wan2.1", "stock")]["profile"]["category_ms"].get("convolution", 0) > 0
    assert "## Where the decode's time goes" in md and "| wan2.1 | stock |" in md.split("## Where")[1]
