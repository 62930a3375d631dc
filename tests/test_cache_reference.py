"""The step caches skip what the reference implementations skip (issue #14).

Each `oracle_*` below is a small re-statement of one reference's rule, written from its source (repo, file and
line cited; commits as in accel/data/cache_coefficients.json): it is independent of the pack's code and is compared
with the pack's schedule functions (every published set, at 20/30/40/50 steps) and with the runtime (real ComfyUI
sampling of tiny models: the pattern of computed/skipped steps it records).
"""
import pytest
import torch

import accel_harness as H


@pytest.fixture(scope="module")
def sched(mod):
    return mod("accel.cache.schedule")


# ============================================================================ oracles
def oracle_comfy_magcache(table, steps, thresh, K, retention, flux_rule=False):
    """Zehong-Ma/ComfyUI-MagCache@47bdd2a nodes.py: step index = position in sample_sigmas (1180-1189);
    enabled iff index >= int(steps * retention_ratio) (1211, end_step -1 = last step); table index = index if
    steps == len(table) else int(index * (len - 1) / (steps - 1)) (1215-1216); Flux: `cur_step not in [11]` (87), in
    magcache_flux_forward, which the node installs for every model_type containing "flux" (`if "flux" in
    model_type`: flux_kontext too);
    update and decision 88-99 (err < thresh and acc_steps <= K, reset on compute). One branch."""
    acc_r, acc_s, acc_e, out = 1.0, 0, 0.0, ""
    L = len(table)
    for i in range(steps):
        cur = i if steps == L else int(i * ((L - 1) / (steps - 1)))
        skip = False
        if i >= int(steps * retention) and not (flux_rule and cur in [11]):
            acc_r *= table[cur]
            acc_s += 1
            acc_e += abs(1 - acc_r)
            if acc_e < thresh and acc_s <= K:
                skip = True
            else:
                acc_r, acc_s, acc_e = 1.0, 0, 0.0
        out += "." if (skip and i > 0) else "#"
    return out


def oracle_nearest(src, n):
    """Zehong-Ma/MagCache@df81cb1 MagCache4Wan2.2/magcache_generate.py:30-36 (nearest_interp)."""
    if n == 1:
        return [src[-1]]
    scale = (len(src) - 1) / (n - 1)
    return [src[int(round(k * scale))] for k in range(n)]


def oracle_wan22(cond, uncond, steps, split, thresh, K, retention, mode):
    """Zehong-Ma/MagCache@df81cb1 MagCache4Wan2.2/magcache_generate.py: one call per branch, cnt counts calls
    (cond even, uncond odd) over both experts (340-362: num_steps = 2*steps, split_step = 2*split, tables
    interpolated with nearest_interp per branch); rules 294-300; update 305-317. -> (cond pattern, uncond pattern)."""
    c, u = oracle_nearest(cond, steps), oracle_nearest(uncond, steps)
    ratios = [v for pair in zip(c, u) for v in pair]
    num, sp = 2 * steps, 2 * split
    acc_r, acc_s, acc_e = [1.0, 1.0], [0, 0], [0.0, 0.0]
    pat = ["", ""]
    for cnt in range(num):
        use = True
        if mode == "i2v":
            if cnt < int(sp + (num - sp) * retention):
                use = False
        elif cnt < int(sp * retention) or (cnt <= ((num - sp) * retention + sp) and cnt >= sp):
            use = False
        skip = False
        if use:
            b = cnt % 2
            acc_r[b] *= ratios[cnt]
            acc_s[b] += 1
            acc_e[b] += abs(1 - acc_r[b])
            if acc_e[b] < thresh and acc_s[b] <= K:
                skip = True
            else:
                acc_e[b], acc_s[b], acc_r[b] = 0, 0, 1.0
        pat[cnt % 2] += "." if skip else "#"
    return pat[0], pat[1]


def oracle_welltop_teacache(xs, coeffs, thresh, start, end):
    """welltop-cn/ComfyUI-TeaCache@91dff8e nodes.py: percent = index / steps, enabled on start <= percent <= end
    (945-949); per branch: no previous input -> compute, else acc += poly1d(coeffs)(x) (36-40, 794), skip while
    acc < thresh else compute and reset (795-799); outside the window: computed, accumulator kept (813-815)."""
    acc, out = 0.0, ""
    n = len(xs)
    for i, x in enumerate(xs):
        calc = True
        if x is not None:
            acc += sum(c * x ** (len(coeffs) - 1 - k) for k, c in enumerate(coeffs))
            if acc < thresh:
                calc = False
            else:
                acc = 0
        if not (start <= i / n <= end):
            calc = True
        out += "#" if calc else "."
    return out


def _joint(*patterns):
    return "".join("." if all(p[j] == "." for p in patterns) else "#" for j in range(len(patterns[0])))


def _rec(cc, kind, name):
    e = cc.published(kind)[name]
    r = cc.recommended(kind, e)
    return e, r


# ============================================================================ schedule functions vs oracles
COMFY_MAG_SETS = ["flux", "flux_kontext", "qwen_image", "hunyuan_video", "wan2.1_t2v_1.3B", "wan2.1_t2v_14B",
                  "wan2.1_i2v_480p_14B", "wan2.1_i2v_720p_14B"]


@pytest.mark.parametrize("steps", [20, 28, 30, 40, 50])
@pytest.mark.parametrize("name", COMFY_MAG_SETS)
def test_magcache_schedule_matches_comfyui_magcache(sched, cc, name, steps):
    """Item 3 (one table entry per step, floor) and item 4 (Flux never skips table step 11; the last step is not
    forced; integer retention boundary), for every set taken from ComfyUI-MagCache, per branch."""
    e, r = _rec(cc, "magcache", name)
    for branch, table in e["ratios"].items():
        want = oracle_comfy_magcache(table, steps, r["magcache_thresh"], r["magcache_K"], r["retention_ratio"],
                                     flux_rule=("flux" in name))  # as the reference tests model_type
        got = sched.simulate_mag(e, steps, r["magcache_thresh"], r["magcache_K"], r["retention_ratio"], branch=branch)
        assert got == want, (name, branch, steps)


def test_qwen_image_20_steps_floor_lookup(sched, cc):
    """Issue #14's case: at 20 steps the old log-linear compounding skipped 3 where a per-step floor lookup skips 7.
    The oracle here is ComfyUI-MagCache's step-indexed rule applied per sampling step, i.e. the pack's documented
    rule; ComfyUI-MagCache itself advances Qwen-Image's index by a per-call counter (0 or 5 skips at 20 steps,
    depending on batching): a deliberate difference, docs/nodes.md, Accel MagCache."""
    e, r = _rec(cc, "magcache", "qwen_image")
    got = sched.simulate_mag(e, 20, r["magcache_thresh"], r["magcache_K"], r["retention_ratio"])
    assert got == oracle_comfy_magcache(e["ratios"]["cond"], 20, 0.1, 2, 0.2)
    assert got.count(".") == 7


def test_flux_step_11_and_last_step(sched, cc):
    e, r = _rec(cc, "magcache", "flux")
    pat = sched.simulate_mag(e, 28, 0.24, 5, 0.1)
    assert pat[11] == "#" and pat[-1] == "."  # table step 11 computed; the last step skipped, as the reference
    assert pat == oracle_comfy_magcache(e["ratios"]["cond"], 28, 0.24, 5, 0.1, flux_rule=True)


@pytest.mark.parametrize("mode,split", [("i2v", 15), ("i2v", 20), ("t2v", 12), ("t2v", 20)])
@pytest.mark.parametrize("steps", [20, 40])
def test_wan22_a14b_expert_rules(sched, cc, mode, split, steps):
    """Item 1: the two expert runs (steps 0..split-1 and split..steps-1) give the reference's schedule per branch."""
    split = split * steps // 40
    e, r = _rec(cc, "magcache", f"wan2.2_{mode}_14B")
    th, K, ret = r["magcache_thresh"], r["magcache_K"], r["retention_ratio"]
    want = oracle_wan22(e["ratios"]["cond"], e["ratios"]["uncond"], steps, split, th, K, ret, mode)
    for b, branch in enumerate(("cond", "uncond")):
        high = sched.simulate_mag(e, steps, th, K, ret, branch=branch, offset=0, n_steps=split, split=split)
        low = sched.simulate_mag(e, steps, th, K, ret, branch=branch, offset=split, n_steps=steps - split, split=split)
        assert high + low == want[b], (branch, high + low, want[b])
    if mode == "i2v":
        assert "." not in want[0][:split]  # the high-noise expert is never cached


def test_wan22_i2v_issue_case(sched, cc):
    """40 steps, I2V, split 15: the reference skips 10 steps, none in the high-noise expert (the old single
    start percent skipped 19, 7 of them there)."""
    e, r = _rec(cc, "magcache", "wan2.2_i2v_14B")
    args = (r["magcache_thresh"], r["magcache_K"], r["retention_ratio"])
    pats = [sched.simulate_mag(e, 40, *args, branch=b, offset=0, n_steps=15, split=15)
            + sched.simulate_mag(e, 40, *args, branch=b, offset=15, n_steps=25, split=15) for b in ("cond", "uncond")]
    joint = _joint(*pats)
    assert joint[:15] == "#" * 15
    assert joint.count(".") == _joint(*oracle_wan22(e["ratios"]["cond"], e["ratios"]["uncond"], 40, 15, *args,
                                                    "i2v")).count(".")


TEA_SETS = ["flux", "hunyuan_video", "wan2.1_t2v_1.3B", "wan2.1_t2v_14B", "wan2.1_i2v_480p_14B",
            "wan2.1_i2v_720p_14B", "wan2.1_t2v_1.3B_ret_mode", "wan2.1_t2v_14B_ret_mode",
            "wan2.1_i2v_480p_14B_ret_mode", "wan2.1_i2v_720p_14B_ret_mode", "flux-kontext"]


def _inside_inputs(sched, coeffs, n, seed):
    """A plausible sequence of input changes inside the polynomial's positive range (large early, small late)."""
    import random

    lo, hi = sched.tea_fit_range(coeffs)
    hi = min(hi, lo + 1.0)
    rnd = random.Random(seed)
    xs = [None]
    for i in range(1, n):
        f = 1 - i / n
        xs.append(lo + (hi - lo) * (0.05 + 0.9 * f * rnd.random()))
    return xs


@pytest.mark.parametrize("steps", [20, 30, 50])
@pytest.mark.parametrize("name", TEA_SETS)
def test_teacache_schedule_matches_welltop(sched, cc, name, steps):
    e, r = _rec(cc, "teacache", name)
    for seed in range(3):
        xs = _inside_inputs(sched, e["coefficients"], steps, seed)
        want = oracle_welltop_teacache(xs, e["coefficients"], r["rel_l1_thresh"], r["start_percent"],
                                       r["end_percent"])
        got = sched.simulate_tea(xs, e["coefficients"], r["rel_l1_thresh"], r["start_percent"], r["end_percent"])
        assert got == want, (name, steps, seed)


def test_negative_estimate_beyond_the_fit_is_computed(sched, cc):
    """Item 2: wan2.1_t2v_14B's polynomial is negative above x = 0.406: a change that large is computed (the old
    clamp to 0 counted it as 'no change' and skipped); below its positive range (a tiny change) it counts as 0."""
    c = cc.published("teacache")["wan2.1_t2v_14B"]["coefficients"]
    lo, hi = sched.tea_fit_range(c)
    assert lo == pytest.approx(0.1296, abs=1e-3) and hi == pytest.approx(0.4061, abs=1e-3)
    assert sched.poly(c, 0.6) < 0 and sched.tea_estimate(c, 0.6) is None
    assert sched.tea_update(0.0, 0.6, c, 0.2) == (0.0, False)
    assert sched.tea_estimate(c, 0.05) == 0.0 and sched.tea_update(0.0, 0.05, c, 0.2) == (0.0, True)
    # a low step count: every change is large -> nothing skipped (the old rule skipped them all)
    xs = [None, 0.7, 0.65, 0.6, 0.55, 0.5]
    assert sched.simulate_tea(xs, c, 0.2) == "######"
    old = "#" + "".join("." if max(0.0, sched.poly(c, x)) < 0.2 else "#" for x in xs[1:])
    assert old == "#....."
    # LightX2V's TI2V-5B set dips below 0 between 0.205 and 0.291
    c5 = cc.published("teacache")["wan2.2_ti2v_5B"]["coefficients"]
    assert sched.tea_estimate(c5, 0.25) is None and sched.tea_estimate(c5, 0.15) > 0


def test_new_sets_and_provenance(cc):
    """Item 5: the missing sets, each validated, with its source."""
    mag, tea = cc.published("magcache"), cc.published("teacache")
    for name, n in (("qwen_image_50steps", 50), ("flux_kontext_28steps", 28), ("hunyuan_video_544p", 50),
                    ("hunyuan_video1.5_i2v_480p", 50)):
        assert len(mag[name]["ratios"]["cond"]) == n and mag[name]["source"]["repo"]
        cc.validate_set("magcache", mag[name], name)
    assert "720p" in mag["hunyuan_video"]["fitted_on"] and "544p" in mag["hunyuan_video_544p"]["fitted_on"]
    for res in ("t2v_480p", "t2v_720p", "i2v_480p", "i2v_720p"):
        e = tea[f"hunyuan_video1.5_{res}"]
        assert e["source"]["repo"] == "ModelTC/LightX2V" and e["compute_last"] is True
        cc.validate_set("teacache", e, res)
    assert cc.pick_auto(["qwen_image", "qwen_image_50steps"], steps=50) == "qwen_image_50steps"
    assert cc.pick_auto(["qwen_image", "qwen_image_50steps"], steps=20) == "qwen_image"
    assert cc.pick_auto(["flux", "flux_kontext", "flux_kontext_28steps"], has_ref=True, steps=28) == \
        "flux_kontext_28steps"
    assert cc.pick_auto(["hunyuan_video", "hunyuan_video_544p"], latent_hw=68 * 120) == "hunyuan_video_544p"


# ============================================================================ the runtime applies these rules
@pytest.fixture(scope="module")
def wan(M):
    return M.wan_model("t2v", "tiny", seed=0, dtype=torch.float32)


@pytest.fixture(scope="module")
def conds(M):
    return M.conditioning(8, seed=1), M.conditioning(8, seed=2), M.wan_latent(1, 16, 16)


def test_runtime_magcache_follows_reference(sc, M, wan, conds, cc):
    """A real 20-step run with CFG (cond and uncond batched): the recorded pattern is the reference's."""
    e, _ = _rec(cc, "magcache", "wan2.1_t2v_1.3B")
    m, _ = sc.configure_magcache(wan, 0.12, 4, 0.2, 1.0, "wan2.1_t2v_1.3B", "GPU")
    pos, neg, lat = conds
    M.sample(m, pos, neg, lat, steps=20, cfg=3.0)
    want = _joint(oracle_comfy_magcache(e["ratios"]["cond"], 20, 0.12, 4, 0.2),
                  oracle_comfy_magcache(e["ratios"]["uncond"], 20, 0.12, 4, 0.2))
    assert "." in want and sc.last_stats(m).pattern == want


def test_runtime_a14b_experts_follow_reference(sc, M, conds, cc):
    """Item 1 through ComfyUI: two KSamplerAdvanced runs (high-noise expert steps 0-14, low-noise 15-39)."""
    import nodes

    pos, neg, lat = conds
    high = M.wan_model("t2v", "tiny", seed=3, dtype=torch.float32)
    low = M.wan_model("t2v", "tiny", seed=4, dtype=torch.float32)
    steps, split = 40, 15
    e, r = _rec(cc, "magcache", "wan2.2_i2v_14B")
    # the tiny models are T2V-shaped; the set is chosen explicitly (the fitted-on note does not matter here)
    mh, _ = sc.configure_magcache(high, -1, -1, -1, 1.0, "wan2.2_i2v_14B", "GPU")
    ml, _ = sc.configure_magcache(low, -1, -1, -1, 1.0, "wan2.2_i2v_14B", "GPU")
    x = nodes.common_ksampler(mh, 0, steps, 3.0, "euler", "simple", pos, neg, lat, start_step=0, last_step=split,
                              force_full_denoise=False)[0]
    nodes.common_ksampler(ml, 0, steps, 3.0, "euler", "simple", pos, neg, x, disable_noise=True, start_step=split,
                          last_step=steps, force_full_denoise=True)
    got = sc.last_stats(mh).pattern + sc.last_stats(ml).pattern
    args = (r["magcache_thresh"], r["magcache_K"], r["retention_ratio"])
    want = _joint(*oracle_wan22(e["ratios"]["cond"], e["ratios"]["uncond"], steps, split, *args, "i2v"))
    assert got == want and got[:split] == "#" * split and "." in got


def test_runtime_teacache_follows_reference(sc, sched, M, conds, cc):
    """The runtime's TeaCache decisions on a real 20-step CFG run equal welltop-cn/ComfyUI-TeaCache's rule
    (oracle_welltop_teacache) replayed on the input changes the runtime measured. The tiny model's time projection
    gets a constant bias (+5) so that its per-step relative L1 change of e0 (what use_ret_steps measures) is ~0.02-0.04:
    inside the set's fitted range (0.0044-0.102), so the run skips steps and the oracle is always reached."""
    name = "wan2.1_t2v_1.3B_ret_mode"
    c = cc.published("teacache")[name]["coefficients"]
    wan = M.wan_model("t2v", "tiny", seed=5, dtype=torch.float32)
    with torch.no_grad():
        wan.get_model_object("diffusion_model").time_projection[1].bias.add_(5.0)
    m, _ = sc.configure_teacache(wan, 0.3, 0.1, 1.0, name, "GPU")
    pos, neg, lat = conds
    M.sample(m, pos, neg, lat, steps=20, cfg=3.0)
    st = sc.last_stats(m)
    assert [t[0] for t in st.trace] == list(range(20))  # one call per step, step index recovered from sigma
    xs = {b: [None] + [t[1][b] for t in st.trace[1:]] for b in ("cond", "uncond")}
    lo, hi = sched.tea_fit_range(c)
    assert all(lo <= x < hi for v in xs.values() for x in v[1:]), xs  # inside the fitted range: no deliberate difference
    want = _joint(*(oracle_welltop_teacache(xs[b], c, 0.3, 0.1, 1.0) for b in xs))
    assert st.pattern == want, (st.pattern, want)
    assert st.skipped > 0 and st.pattern.count(".") >= 3 and "#" in st.pattern[3:]  # skips, and resets after them
    assert st.pattern[:2] == "##"  # step 0 (no previous input) and step 1 (< start 10%) computed


# ============================================================================ distilled few-step runs
def test_few_step_runs_skip_nothing_and_say_why(sc, M, wan, conds):
    """A 4-step run (LightX2V 4-step LoRA style) with a large threshold: the old code skipped steps; now every step
    is computed and the run's statistics say why."""
    pos, neg, lat = conds
    m, _ = sc.configure_magcache(wan, 1.0, 4, 0.0, 1.0, "wan2.1_t2v_1.3B", "GPU")
    M.sample(m, pos, neg, lat, steps=4, cfg=3.0)
    st = sc.last_stats(m)
    assert (st.skipped, st.pattern) == (0, "####")
    assert any("4-step schedule" in n and "every step was computed" in n for n in st.notes)
    M.sample(m, pos, neg, lat, steps=12, cfg=3.0)  # the same node at 12 steps caches
    assert sc.last_stats(m).skipped > 0


# ============================================================================ calibration matches the runtime
def test_calibrated_sets_skip_what_the_file_promises(pack, sc, M, wan, conds, cc):
    """Accel Cache Calibrate writes, with its recommended values, the skip pattern they give on the calibrated
    run; the runtime with that set and those values skips exactly that (TeaCache: Wan's signal depends only on the
    timestep, so a cached run sees the same changes; MagCache: table-driven). Also at a calibrated few-step count."""
    pos, neg, lat = conds
    for steps, name in ((12, "ref_cal_12"), (6, "ref_cal_6")):
        m, _ = H.call_node("AccelCacheCalibrate", wan, name, unique_id=f"cal{steps}")["result"]
        M.sample(m, pos, neg, lat, steps=steps, cfg=3.0)
        data = __import__("json").loads(cc.user_file(f"user:{name}").read_text())
        for kind, node, args in (("magcache", "AccelMagCache", (-1.0, -1, -1.0, 1.0)),
                                 ("teacache", "AccelTeaCache", (-1.0, -1.0, 1.0))):
            exp = data[kind]["expected"]
            assert exp["steps"] == steps
            mc, _ = H.call_node(node, wan, *args, f"user:{name}", "GPU", unique_id=f"{kind}{steps}")["result"]
            M.sample(mc, pos, neg, lat, steps=steps, cfg=3.0)
            st = sc.last_stats(mc)
            assert st.pattern == exp["pattern"], (kind, steps, st.pattern, exp["pattern"])
        assert "." in data["magcache"]["expected"]["pattern"]
