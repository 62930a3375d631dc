"""The step caches skip what the reference implementations skip (issue #14).

The published rules are restated in `cache_oracles.py` (TeaCache: ali-vilab/TeaCache; MagCache in ComfyUI:
Zehong-Ma/ComfyUI-MagCache's Wan, Flux and Qwen-Image paths) and below (MagCache's own scripts, LightX2V), each
from its source (repo, commit, file and line cited): they are independent of the pack's code and are compared with
the pack's schedule functions (every published set, at several step counts) and with the runtime (real ComfyUI
sampling of tiny models: the pattern of computed/skipped steps it records). Every set the step cache can use has an
oracle; where the pack deliberately differs (docs/nodes.md, Accel TeaCache / Accel MagCache) the test asserts the
documented difference. Tests named `*_self_consistency` compare the runtime with the pack's own rule
(accel/cache/schedule.py); each has a neighbour that compares with a reference.
"""
import cache_oracles as O
import pytest
import torch

import accel_harness as H


@pytest.fixture(scope="module")
def sched(mod):
    return mod("accel.cache.schedule")


# ============================================================================ oracles (MagCache's scripts)
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
    ratios = O.interleave(c, u)
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


_joint = O.joint_all


def _rec(cc, kind, name):
    e = cc.published(kind)[name]
    r = cc.recommended(kind, e)
    return e, r


# ============================================================================ schedule functions vs oracles
WAN21_MAG_SETS = ["wan2.1_t2v_1.3B", "wan2.1_t2v_14B", "wan2.1_i2v_480p_14B", "wan2.1_i2v_720p_14B"]


@pytest.mark.parametrize("steps", [20, 28, 30, 40, 50])
@pytest.mark.parametrize("name", ["flux", "flux_kontext", "hunyuan_video"])
def test_magcache_schedule_matches_comfyui_magcache_flux_paths(sched, cc, name, steps):
    """One table entry per step (floor), Flux never skips table step 11, the last step is not forced, integer
    retention boundary: ComfyUI-MagCache's Flux path (flux, flux_kontext) and its HunyuanVideo path."""
    e, r = _rec(cc, "magcache", name)
    want = O.comfy_magcache_flux(e["ratios"]["cond"], steps, r["magcache_thresh"], r["magcache_K"],
                                 r["retention_ratio"], flux_rule=("flux" in name))  # as the reference tests model_type
    got = sched.simulate_mag(e, steps, (r["magcache_thresh"], r["magcache_K"], r["retention_ratio"]))
    assert got == want, (name, steps)


@pytest.mark.parametrize("steps", [20, 28, 30, 40, 50])
@pytest.mark.parametrize("name", WAN21_MAG_SETS)
def test_magcache_schedule_matches_comfyui_magcache_wan(sched, cc, name, steps):
    """ComfyUI-MagCache's Wan path on its interleaved table: each branch's rule (err <= thresh) decides what the
    pack's rule decides for that branch; the batched call: the reference skips when EITHER branch's rule skips, the
    pack only when both do (documented difference, docs/nodes.md). The reference reads the table by batch position,
    so with ComfyUI's uncond-first batch the branches swap columns: the joint decisions do not change."""
    e, r = _rec(cc, "magcache", name)
    args = (r["magcache_thresh"], r["magcache_K"], r["retention_ratio"])
    table = O.interleave(e["ratios"]["cond"], e["ratios"]["uncond"])
    wants, _ = O.comfy_magcache_wan(table, steps, *args, calls=((0, 1),))  # cond first: position = branch
    got = {b: sched.simulate_mag(e, steps, args, branch=br) for b, br in enumerate(("cond", "uncond"))}
    assert got == wants, (name, steps)
    swapped, calls = O.comfy_magcache_wan(table, steps, *args, calls=O.CALLS_BATCHED)
    assert _joint(swapped[0], swapped[1]) == _joint(got[0], got[1])
    ref_or = "".join(c[0] for c in calls)
    assert ref_or == "".join("." if "." in (swapped[0][j], swapped[1][j]) else "#" for j in range(steps))
    assert all(ref_or[j] == "." for j, p in enumerate(_joint(got[0], got[1])) if p == ".")  # the pack: a subset


@pytest.mark.parametrize("name", WAN21_MAG_SETS)
def test_magcache_wan_threshold_is_inclusive(sched, cc, name):
    """ComfyUI-MagCache's Wan path skips while the accumulated error is <= the threshold (its Flux path: <). With
    the threshold set to exactly the error of the first enabled step, the reference skips that step."""
    e, r = _rec(cc, "magcache", name)
    steps, K, ret = 50, r["magcache_K"], r["retention_ratio"]
    first = int(steps * ret)
    thresh = abs(1 - 1.0 * e["ratios"]["cond"][first])  # the reference's err after one enabled step
    wants, _ = O.comfy_magcache_wan(O.interleave(e["ratios"]["cond"], e["ratios"]["uncond"]), steps, thresh, K, ret,
                                    calls=((0, 1),))
    assert wants[0][first] == "."
    assert sched.simulate_mag(e, steps, (thresh, K, ret), branch="cond") == wants[0]


def test_qwen_image_20_steps_self_consistency(sched, cc):
    """Self-consistency (the oracle is the pack's own documented rule, applied per sampling step): issue #14's
    case, at 20 steps the old log-linear compounding skipped 3 where a per-step floor lookup skips 7. The comparison
    with ComfyUI-MagCache's Qwen-Image path is the next test."""
    e, r = _rec(cc, "magcache", "qwen_image")
    got = sched.simulate_mag(e, 20, (r["magcache_thresh"], r["magcache_K"], r["retention_ratio"]))
    assert got == O.comfy_magcache_flux(e["ratios"]["cond"], 20, 0.1, 2, 0.2, flux_rule=False)
    assert got.count(".") == 7


def test_qwen_image_against_comfyui_magcache(sched, cc):
    """ComfyUI-MagCache's Qwen-Image path reads its interleaved table by model-call count (and re-creates its state
    on every call at step 0). At the table's own 40 steps with cond and uncond as separate calls, its slot-0 rule
    runs on the uncond calls from step 1 on with the cond column of the same step: those calls' decisions are the
    pack's cond-branch decisions. Documented difference (docs/nodes.md): at 20 steps the reference skips nothing
    with one batched call per step, and 9 single calls (no whole step) with separate calls; the pack skips 7 steps."""
    e, r = _rec(cc, "magcache", "qwen_image")
    args = (r["magcache_thresh"], r["magcache_K"], r["retention_ratio"])
    table = O.interleave(e["ratios"]["cond"], e["ratios"]["uncond"])
    sep = O.comfy_magcache_qwen(table, 40, *args, calls_per_step=2)
    pack = sched.simulate_mag(e, 40, args, branch="cond")
    assert sep[3::2] == pack[1:] and "." in pack
    assert O.comfy_magcache_qwen(table, 20, *args, calls_per_step=1).count(".") == 0
    sep20 = O.comfy_magcache_qwen(table, 20, *args, calls_per_step=2)
    assert sep20.count(".") == 9 and "." not in _joint(sep20[0::2], sep20[1::2])
    assert sched.simulate_mag(e, 20, args).count(".") == 7


def test_flux_step_11_and_last_step(sched, cc):
    e, r = _rec(cc, "magcache", "flux")
    pat = sched.simulate_mag(e, 28, (0.24, 5, 0.1))
    assert pat[11] == "#" and pat[-1] == "."  # table step 11 computed; the last step skipped, as the reference
    assert pat == O.comfy_magcache_flux(e["ratios"]["cond"], 28, 0.24, 5, 0.1, flux_rule=True)


@pytest.mark.parametrize("mode,split", [("i2v", 15), ("i2v", 20), ("t2v", 12), ("t2v", 20)])
@pytest.mark.parametrize("steps", [20, 40])
def test_wan22_a14b_expert_rules(sched, cc, mode, split, steps):
    """Item 1: the two expert runs (steps 0..split-1 and split..steps-1) give the reference's schedule per branch."""
    split = split * steps // 40
    e, r = _rec(cc, "magcache", f"wan2.2_{mode}_14B")
    th, K, ret = r["magcache_thresh"], r["magcache_K"], r["retention_ratio"]
    want = oracle_wan22(e["ratios"]["cond"], e["ratios"]["uncond"], steps, split, th, K, ret, mode)
    for b, branch in enumerate(("cond", "uncond")):
        high = sched.simulate_mag(e, steps, (th, K, ret), branch=branch, offset=0, n_steps=split, split=split)
        low = sched.simulate_mag(e, steps, (th, K, ret), branch=branch, offset=split, n_steps=steps - split,
                                 split=split)
        assert high + low == want[b], (branch, high + low, want[b])
    if mode == "i2v":
        assert "." not in want[0][:split]  # the high-noise expert is never cached


def test_wan22_i2v_issue_case(sched, cc):
    """40 steps, I2V, split 15: the reference skips 10 steps, none in the high-noise expert (the old single
    start percent skipped 19, 7 of them there)."""
    e, r = _rec(cc, "magcache", "wan2.2_i2v_14B")
    args = (r["magcache_thresh"], r["magcache_K"], r["retention_ratio"])
    pats = [sched.simulate_mag(e, 40, args, branch=b, offset=0, n_steps=15, split=15)
            + sched.simulate_mag(e, 40, args, branch=b, offset=15, n_steps=25, split=15) for b in ("cond", "uncond")]
    joint = _joint(*pats)
    assert joint[:15] == "#" * 15
    assert joint.count(".") == _joint(*oracle_wan22(e["ratios"]["cond"], e["ratios"]["uncond"], 40, 15, *args,
                                                    "i2v")).count(".")


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


WAN21_TEA_SETS = ["wan2.1_t2v_1.3B", "wan2.1_t2v_14B", "wan2.1_i2v_480p_14B", "wan2.1_i2v_720p_14B",
                  "wan2.1_t2v_1.3B_ret_mode", "wan2.1_t2v_14B_ret_mode", "wan2.1_i2v_480p_14B_ret_mode",
                  "wan2.1_i2v_720p_14B_ret_mode"]


@pytest.mark.parametrize("steps", [20, 30, 40, 50])
@pytest.mark.parametrize("name", WAN21_TEA_SETS)
def test_teacache_schedule_matches_teacache4wan21(sched, cc, name, steps):
    """TeaCache4Wan2.1's rule per branch: the first step (ret mode: 5 steps) and, without ret mode, the last step
    computed, the accumulator reset there. The pack's window is a percent of the run: a start of 5/steps gives the
    reference's 5 ret steps, and the recommended 10% is exactly that at 50 steps."""
    e, r = _rec(cc, "teacache", name)
    ret = name.endswith("_ret_mode")
    assert bool(e.get("compute_last")) is not ret and r["start_percent"] == (0.1 if ret else 0.0)
    start = 5 / steps if ret else r["start_percent"]
    for seed in range(3):
        xs = [_inside_inputs(sched, e["coefficients"], steps, seed + k) for k in (0, 10)]
        want = O.teacache4wan21(*xs, e["coefficients"], r["rel_l1_thresh"], *O.wan21_ret_cutoff(steps, ret))
        got = tuple(sched.simulate_tea(x, e["coefficients"], r["rel_l1_thresh"], start, 1.0, e.get("compute_last"))
                    for x in xs)
        assert got == want, (name, steps, seed)
        if steps == 50:
            assert sched.simulate_tea(xs[0], e["coefficients"], r["rel_l1_thresh"], r["start_percent"], 1.0,
                                      e.get("compute_last")) == want[0]


@pytest.mark.parametrize("steps", [20, 28, 50])
@pytest.mark.parametrize("name", ["flux", "flux-kontext", "hunyuan_video"])
def test_teacache_schedule_matches_teacache4flux(sched, cc, name, steps):
    """TeaCache4FLUX's rule (TeaCache4HunyuanVideo's is the same): first and last step computed, the accumulator
    reset there. Kontext has no TeaCache4* script of its own: FLUX.1's rule applies (its recommended window 20-90%
    is narrower; compared here over the whole run, as the reference has no window)."""
    e, r = _rec(cc, "teacache", name)
    for seed in range(3):
        xs = _inside_inputs(sched, e["coefficients"], steps, seed)
        want = O.teacache4flux(xs, e["coefficients"], r["rel_l1_thresh"])
        got = sched.simulate_tea(xs, e["coefficients"], r["rel_l1_thresh"], 0.0, 1.0, e.get("compute_last"))
        assert got == want, (name, seed)


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


# ============================================================================ the other published sets
def oracle_magcache_per_call(cond, uncond, steps, thresh, K, retention):
    """Zehong-Ma/MagCache@df81cb1: MagCache4Wan2.2/magcache_generate.py (TI2V-5B: split_step None, 301-303;
    init_magcache 340-362 reads `split_steps*2`, which fails for None: the branch the script intends is restated)
    and MagCache4QwenImage/magcache_generate.py (63-83, 206-219): one call per branch, cnt counts calls (cond even,
    uncond odd), enabled iff cnt >= int(2*steps * retention_ratio); tables nearest-interpolated per branch
    (Wan2.2 30-36; Qwen 14-21, np.round(linspace)); err < thresh and steps <= K, reset on compute. -> (cond, uncond)."""
    c, u = oracle_nearest(cond, steps), oracle_nearest(uncond, steps)
    acc_r, acc_s, acc_e, pat = [1.0, 1.0], [0, 0], [0.0, 0.0], ["", ""]
    for cnt in range(2 * steps):
        b, skip = cnt % 2, False
        if cnt >= int(2 * steps * retention):
            acc_r[b] *= (c, u)[b][cnt // 2]
            acc_s[b] += 1
            acc_e[b] += abs(1 - acc_r[b])
            if acc_e[b] < thresh and acc_s[b] <= K:
                skip = True
            else:
                acc_r[b], acc_s[b], acc_e[b] = 1.0, 0, 0.0
        pat[b] += "." if skip else "#"
    return pat[0], pat[1]


def oracle_magcache_hunyuan_544p(table, steps, thresh, K, retention):
    """Zehong-Ma/MagCache@df81cb1 MagCache4HunyuanVideo/magcache_sample_video.py: one call per step (embedded
    guidance), table nearest-interpolated (20-27, 319-322); enabled iff cnt >= int(retention_ratio * num_steps)
    (90); err <= thresh and steps <= K (96), reset on compute (100-102)."""
    t = oracle_nearest(table, steps)
    acc_r, acc_s, acc_e, out = 1.0, 0, 0.0, ""
    for cnt in range(steps):
        skip = False
        if cnt >= int(retention * steps):
            acc_r *= t[cnt]
            acc_e += abs(1 - acc_r)
            acc_s += 1
            if acc_e <= thresh and acc_s <= K:
                skip = True
            else:
                acc_r, acc_s, acc_e = 1.0, 0, 0.0
        out += "." if skip else "#"
    return out


def oracle_magcache_flux_kontext_28(table, steps, thresh, K, retention):
    """Zehong-Ma/MagCache@df81cb1 MagCache4FLUX_Kontext/magcache_flux_kontext.py: one call per step, table
    nearest-interpolated (14-21, 459-462); enabled iff cnt >= int(retention_ratio * num_steps + 0.5) (329);
    skip iff err <= thresh and steps <= K and round(cnt * 27 / (num_steps - 1)) != 11 (334), else reset (337-340):
    the step mapped to table step 11 is computed and resets the accumulators."""
    t = oracle_nearest(table, steps)
    acc_r, acc_s, acc_e, out = 1.0, 0, 0.0, ""
    for cnt in range(steps):
        skip = False
        if cnt >= int(retention * steps + 0.5):
            acc_r *= t[cnt]
            acc_s += 1
            acc_e += abs(1 - acc_r)
            if acc_e <= thresh and acc_s <= K and int(round(cnt * ((28 - 1) / (steps - 1)))) != 11:
                skip = True
            else:
                acc_r, acc_s, acc_e = 1.0, 0, 0.0
        out += "." if skip else "#"
    return out


def oracle_comfy_magcache_hv15(cond, uncond, steps, thresh, K, retention, calls_per_step):
    """Zehong-Ma/ComfyUI-MagCache@47bdd2a nodes.py, model_type hunyuan_video1.5 (is_cfg, 1146-1151): the table is
    interleaved cond/uncond; current_step = index if steps == len/2 else int(index * (len/2 - 1) / (steps - 1))
    (1223-1224); enabled iff index >= int(steps * retention_ratio) (1211-1214); more than 20 steps use the
    hunyuan_video1.5_40steps table (1202-1205). The forward (magcache_hunyuanvideo15_forward, 516-532) reads
    mag_ratios[2*current_step + cnt%2] and keeps its accumulators in slot cnt%2, where cnt counts model calls:
    with cond and uncond in separate calls (calls_per_step 2, cond first) slot = branch; batched (1 call per step)
    the slot alternates per step. -> pattern per call slot, one char per call ('#' computed, '.' skipped)."""
    inter = O.interleave(cond, uncond)
    L = len(inter) // 2
    acc_r, acc_s, acc_e, out = [1.0, 1.0], [0, 0], [0.0, 0.0], ""
    cnt = 0
    for i in range(steps):
        cur = i if steps == L else int(i * ((L - 1) / (steps - 1)))
        for _ in range(calls_per_step):
            b, skip = cnt % 2, False
            if i >= int(steps * retention):
                acc_r[b] *= inter[2 * cur + b]
                acc_s[b] += 1
                acc_e[b] += abs(1 - acc_r[b])
                if acc_e[b] < thresh and acc_s[b] <= K:
                    skip = True
                else:
                    acc_r[b], acc_s[b], acc_e[b] = 1.0, 0, 0.0
            out += "." if skip else "#"
            cnt += 1
    return out


def oracle_lightx2v_magcache_hv15(table, steps, thresh, K, retention):
    """ModelTC/LightX2V@e91f976 lightx2v/models/networks/hunyuan_video/infer/feature_caching/transformer_infer.py
    (HunyuanVideo15TransformerInferMagCaching.infer, 37-58): per branch; enabled iff step_index >=
    int(infer_steps * retention_ratio); ratio = mag_ratios[branch][step_index] (no interpolation: the table's own
    step count); err < thresh and steps <= K, reset on compute. One branch."""
    acc_r, acc_s, acc_e, out = 1.0, 0, 0.0, ""
    for i in range(steps):
        skip = False
        if i >= int(steps * retention):
            acc_r *= table[i]
            acc_s += 1
            acc_e += abs(1 - acc_r)
            if acc_e < thresh and acc_s <= K:
                skip = True
            else:
                acc_r, acc_s, acc_e = 1.0, 0, 0.0
        out += "." if skip else "#"
    return out


def oracle_lightx2v_teacache(xs, coeffs, thresh):
    """ModelTC/LightX2V feature_caching TeaCache, per branch (use_ret_steps False): Wan @29c8504
    lightx2v/models/networks/wan/infer/feature_caching/transformer_infer.py 41-44, 54-67 (ret_steps 1, cutoff
    infer_steps - 1): step_index < 1 or >= infer_steps - 1 -> compute and reset; else acc += poly1d(coeffs)(x),
    skip while acc < thresh, else compute and reset. HunyuanVideo 1.5 @e91f976
    lightx2v/models/networks/hunyuan_video/infer/feature_caching/transformer_infer.py 159-186: the same (step 0 and
    the last step computed and reset)."""
    acc, out, n = 0.0, "", len(xs)
    for i, x in enumerate(xs):
        if i < 1 or i >= n - 1:
            acc, calc = 0.0, True
        else:
            acc += sum(c * x ** (len(coeffs) - 1 - k) for k, c in enumerate(coeffs))
            calc = not acc < thresh
            if calc:
                acc = 0.0
        out += "#" if calc else "."
    return out


def _mag_args(r):
    return r["magcache_thresh"], r["magcache_K"], r["retention_ratio"]


@pytest.mark.parametrize("steps", [20, 30, 40, 50])
@pytest.mark.parametrize("name", ["wan2.2_ti2v_5B", "wan2.2_ti2v_5B_i2v", "qwen_image_50steps"])
def test_magcache_per_call_sets_match_magcache(sched, cc, name, steps):
    """MagCache's own scripts (Wan 2.2 TI2V-5B, Qwen-Image 50 steps), per branch, at step counts where the
    per-call retention boundary int(2*steps*r) is even (the pack's per-step boundary is the same step)."""
    e, r = _rec(cc, "magcache", name)
    want = oracle_magcache_per_call(e["ratios"]["cond"], e["ratios"]["uncond"], steps, *_mag_args(r))
    for b, branch in enumerate(("cond", "uncond")):
        assert sched.simulate_mag(e, steps, _mag_args(r), branch=branch) == want[b], (name, branch, steps)
    assert "." in want[0]


@pytest.mark.parametrize("name", ["wan2.2_ti2v_5B", "wan2.2_ti2v_5B_i2v"])
def test_magcache_per_call_retention_difference(sched, cc, name):
    """Documented difference (docs/nodes.md, Accel MagCache): at 28 steps, retention 0.2, MagCache's Wan 2.2 script's
    per-call boundary int(2*28*0.2) = 11 enables the uncond call of step 5 but not its cond call; the pack enables
    whole steps from int(28*0.2) = 5 on. The uncond patterns agree; the cond patterns differ from step 5 on (TI2V-5B
    at every step count where int(0.4*steps) is odd; Qwen-Image's 50-step table happens to give equal patterns)."""
    e, r = _rec(cc, "magcache", name)
    want = oracle_magcache_per_call(e["ratios"]["cond"], e["ratios"]["uncond"], 28, *_mag_args(r))
    got = [sched.simulate_mag(e, 28, _mag_args(r), branch=b) for b in ("cond", "uncond")]
    assert got[1] == want[1]
    assert got[0] != want[0] and got[0][:5] == want[0][:5] == "#" * 5 and (want[0][5], got[0][5]) == ("#", ".")


@pytest.mark.parametrize("steps", [20, 30, 40, 50])
def test_magcache_hunyuan_544p_matches_magcache(sched, cc, steps):
    e, r = _rec(cc, "magcache", "hunyuan_video_544p")
    want = oracle_magcache_hunyuan_544p(e["ratios"]["cond"], steps, *_mag_args(r))
    assert sched.simulate_mag(e, steps, _mag_args(r)) == want and "." in want


@pytest.mark.parametrize("steps", [20, 28, 30, 40, 50])
def test_magcache_flux_kontext_28_against_magcache(sched, cc, steps):
    """Documented differences (docs/nodes.md): MagCache's Kontext script rounds the retention boundary
    (int(r*steps + 0.5)) and resets its accumulators at the step mapped to table step 11; the pack applies
    ComfyUI-MagCache's Flux rule to every Flux set (int(r*steps); that step computed, accumulators untouched).
    Asserted: the patterns agree from the later of the two retention boundaries up to that step, and differ
    exactly where the documented rules say."""
    e, r = _rec(cc, "magcache", "flux_kontext_28steps")
    th, K, ret = _mag_args(r)
    want = oracle_magcache_flux_kontext_28(e["ratios"]["cond"], steps, th, K, ret)
    got = sched.simulate_mag(e, steps, (th, K, ret))
    s11 = next(i for i in range(steps) if int(round(i * 27 / (steps - 1))) == 11)
    assert want[s11] == got[s11] == "#"
    b_ref, b_pack = int(ret * steps + 0.5), int(ret * steps)
    assert want[:b_ref] == "#" * b_ref and got[:b_pack] == "#" * b_pack
    if b_ref == b_pack:  # same boundary: identical up to table step 11
        assert got[:s11] == want[:s11]
    else:  # the pack's first enabled step is one the script still computes
        assert (want[b_pack], got[b_pack]) == ("#", ".")


@pytest.mark.parametrize("steps", [12, 16, 20, 28, 30, 40, 50])
def test_magcache_hunyuan_video15_against_comfyui_magcache(sched, cc, steps):
    """ComfyUI-MagCache's hunyuan_video1.5 (20-step table; its 40-step table above 20 steps). With cond and uncond
    in separate calls the reference's per-call slot is the branch: its pattern equals the pack's per branch.
    Batched (one call per step, ComfyUI's usual case) the slot alternates per step: documented difference
    (docs/nodes.md) -- asserted to differ from the pack at the set's own step counts."""
    name = "hunyuan_video1.5" if steps <= 20 else "hunyuan_video1.5_40steps"
    e, r = _rec(cc, "magcache", name)
    args = _mag_args(r)
    sep = oracle_comfy_magcache_hv15(e["ratios"]["cond"], e["ratios"]["uncond"], steps, *args, calls_per_step=2)
    got = [sched.simulate_mag(e, steps, args, branch=b) for b in ("cond", "uncond")]
    assert got[0] == sep[0::2] and got[1] == sep[1::2], (steps, got, sep)
    if steps in (20, 40):
        batched = oracle_comfy_magcache_hv15(e["ratios"]["cond"], e["ratios"]["uncond"], steps, *args, calls_per_step=1)
        assert batched != _joint(*got)


@pytest.mark.parametrize("branch", [0, 1])
def test_magcache_lightx2v_hunyuan_video15_i2v(sched, cc, branch):
    """LightX2V's HunyuanVideo 1.5 I2V 480p set at its own step count (50; LightX2V indexes the table by step
    without interpolation, so other step counts have no reference)."""
    e, r = _rec(cc, "magcache", "hunyuan_video1.5_i2v_480p")
    b = ("cond", "uncond")[branch]
    want = oracle_lightx2v_magcache_hv15(e["ratios"][b], 50, *_mag_args(r))
    assert sched.simulate_mag(e, 50, _mag_args(r), branch=b) == want and "." in want


LIGHTX2V_TEA_SETS = ["wan2.2_ti2v_5B", "hunyuan_video1.5_t2v_480p", "hunyuan_video1.5_t2v_720p",
                     "hunyuan_video1.5_i2v_480p", "hunyuan_video1.5_i2v_720p"]


@pytest.mark.parametrize("steps", [20, 30, 50])
@pytest.mark.parametrize("name", LIGHTX2V_TEA_SETS)
def test_teacache_lightx2v_sets_match_lightx2v(sched, cc, name, steps):
    e, r = _rec(cc, "teacache", name)
    c = e["coefficients"]
    assert e["compute_last"] and (r["start_percent"], r["end_percent"]) == (0.0, 1.0)
    skipped = 0
    for seed in range(3):
        xs = _inside_inputs(sched, c, steps, seed)
        want = oracle_lightx2v_teacache(xs, c, r["rel_l1_thresh"])
        got = sched.simulate_tea(xs, c, r["rel_l1_thresh"], r["start_percent"], r["end_percent"], compute_last=True)
        assert got == want, (name, steps, seed)
        skipped += want.count(".")
    assert skipped > 0


# ============================================================================ the runtime applies these rules
@pytest.fixture(scope="module")
def wan(M):
    return M.wan_model("t2v", "tiny", seed=0, dtype=torch.float32)


@pytest.fixture(scope="module")
def conds(M):
    return M.conditioning(8, seed=1), M.conditioning(8, seed=2), M.wan_latent(1, 16, 16)


def test_runtime_magcache_follows_reference(sc, M, wan, conds, cc):
    """A real 20-step run with CFG (cond and uncond batched, uncond first): each branch's decisions are those of
    ComfyUI-MagCache's Wan path, and the run skips where both branches' rules skip (the reference: where either
    does, documented difference)."""
    e, _ = _rec(cc, "magcache", "wan2.1_t2v_1.3B")
    m, _ = sc.configure_magcache(wan, 0.12, 4, 0.2, 1.0, "wan2.1_t2v_1.3B", "GPU")
    pos, neg, lat = conds
    M.sample(m, pos, neg, lat, steps=20, cfg=3.0)
    wants, _ = O.comfy_magcache_wan(O.interleave(e["ratios"]["cond"], e["ratios"]["uncond"]), 20, 0.12, 4, 0.2)
    want = _joint(wants[0], wants[1])
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
    """The runtime's TeaCache decisions on a real 20-step CFG run equal TeaCache4Wan2.1's rule (ret mode: 5 ret
    steps, no cutoff; start 5/20 in the pack) replayed per branch on the input changes the runtime measured, joined
    as the pack joins a batched call. The tiny model's time projection gets a constant bias (+5) so that its per-step
    relative L1 change of e0 (what use_ret_steps measures) is ~0.02-0.04: inside the set's fitted range
    (0.0044-0.102), so the run skips steps and the oracle is always reached."""
    name = "wan2.1_t2v_1.3B_ret_mode"
    c = cc.published("teacache")[name]["coefficients"]
    wan = M.wan_model("t2v", "tiny", seed=5, dtype=torch.float32)
    with torch.no_grad():
        wan.get_model_object("diffusion_model").time_projection[1].bias.add_(5.0)
    m, _ = sc.configure_teacache(wan, 0.3, 5 / 20, 1.0, name, "GPU")
    pos, neg, lat = conds
    M.sample(m, pos, neg, lat, steps=20, cfg=3.0)
    st = sc.last_stats(m)
    assert [t[0] for t in st.trace] == list(range(20))  # one call per step, step index recovered from sigma
    xs = {b: [None] + [t[1][b] for t in st.trace[1:]] for b in ("cond", "uncond")}
    lo, hi = sched.tea_fit_range(c)
    assert all(lo <= x < hi for v in xs.values() for x in v[1:]), xs  # inside the fitted range: no deliberate diff.
    want = _joint(*O.teacache4wan21(xs["cond"], xs["uncond"], c, 0.3, *O.wan21_ret_cutoff(20, True)))
    assert st.pattern == want, (st.pattern, want)
    assert st.skipped > 0 and st.pattern.count(".") >= 3 and "#" in st.pattern[6:]  # skips, and resets after them
    assert st.pattern[:5] == "#####"  # the 5 ret steps computed


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
@pytest.fixture(scope="module")
def calibrated(pack, M, wan, conds, cc):
    """Accel Cache Calibrate run on the tiny Wan at 12 and at 6 steps: {steps: the file it wrote}."""
    import json

    pos, neg, lat = conds
    out = {}
    for steps, name in ((12, "ref_cal_12"), (6, "ref_cal_6")):
        m, _ = H.call_node("AccelCacheCalibrate", wan, name, unique_id=f"cal{steps}")["result"]
        M.sample(m, pos, neg, lat, steps=steps, cfg=3.0)
        out[steps] = (name, json.loads(cc.user_file(f"user:{name}").read_text()))
    return out


def _run_calibrated(sc, M, wan, conds, kind, name, steps):
    """The calibrated set with its recommended values (-1) in the step cache's node; the run's statistics."""
    node, args = (("AccelMagCache", (-1.0, -1, -1.0, 1.0)) if kind == "magcache"
                  else ("AccelTeaCache", (-1.0, -1.0, 1.0)))
    mc, _ = H.call_node(node, wan, *args, f"user:{name}", "GPU", unique_id=f"{kind}{steps}")["result"]
    pos, neg, lat = conds
    M.sample(mc, pos, neg, lat, steps=steps, cfg=3.0)
    return sc.last_stats(mc)


def test_calibrated_sets_self_consistency(sc, M, wan, conds, calibrated):
    """Self-consistency (the expectation is the pack's own rule, accel/cache/schedule.py, which the calibration
    writer and the runtime share): Accel Cache Calibrate writes, with its recommended values, the skip pattern they
    give on the calibrated run; the runtime with that set and those values skips exactly that (TeaCache: Wan's signal
    depends only on the timestep, so a cached run sees the same changes; MagCache: table-driven). Also at a
    calibrated few-step count. The comparison with the references is the next test."""
    for steps, (name, data) in calibrated.items():
        for kind in ("magcache", "teacache"):
            exp = data[kind]["expected"]
            assert exp["steps"] == steps
            st = _run_calibrated(sc, M, wan, conds, kind, name, steps)
            assert st.pattern == exp["pattern"], (kind, steps, st.pattern, exp["pattern"])
        assert "." in data["magcache"]["expected"]["pattern"]


def test_calibrated_sets_follow_the_references(sc, M, wan, conds, calibrated):
    """A calibrated set runs under the published rules: MagCache, ComfyUI-MagCache's Wan path on the file's
    interleaved ratios with the file's recommended values (per branch; the batched call skipped where both branches
    may, the pack's documented join); TeaCache, TeaCache4Wan2.1's rule (ret_steps = one step, as the set's start 0
    gives; no cutoff, as the set computes no last step) on the input changes the run measured, with the file's
    polynomial and threshold."""
    for steps, (name, data) in calibrated.items():
        mag = data["magcache"]
        r = mag["recommended"]
        wants, _ = O.comfy_magcache_wan(O.interleave(mag["ratios"]["cond"], mag["ratios"]["uncond"]), steps,
                                        r["magcache_thresh"], r["magcache_K"], r["retention_ratio"])
        st = _run_calibrated(sc, M, wan, conds, "magcache", name, steps)
        assert st.pattern == _joint(wants[0], wants[1]) and "." in st.pattern, (steps, st.pattern, wants)
        tea = data["teacache"]
        r = tea["recommended"]
        assert (r.get("start_percent", 0.0), r.get("end_percent", 1.0)) == (0.0, 1.0) and not tea.get("compute_last")
        st = _run_calibrated(sc, M, wan, conds, "teacache", name, steps)
        xs = {b: [None] + [t[1][b] for t in st.trace[1:]] for b in ("cond", "uncond")}
        want = _joint(*O.teacache4wan21(xs["cond"], xs["uncond"], tea["coefficients"], r["rel_l1_thresh"], 2,
                                        2 * steps))
        assert st.pattern == want, (steps, st.pattern, want)
