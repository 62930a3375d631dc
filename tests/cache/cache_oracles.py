"""The step caches' published references, restated from their sources for the tests (no pack code here).

Each function follows one reference's code path literally (its variables, its order of updates, its comparisons),
with repository, commit, file and lines cited, so that a test comparing the pack's schedule or runtime with it
compares with the publication, not with the pack's own rule:

- TeaCache: ali-vilab/TeaCache @ 7c10efc4702c6b619f47805f7abe4a7a08085aa0 (TeaCache4Wan2.1, TeaCache4FLUX,
  TeaCache4HunyuanVideo).
- MagCache in ComfyUI: Zehong-Ma/ComfyUI-MagCache @ 47bdd2a (nodes.py: the Wan path `magcache_wanmodel_forward`,
  the Flux path `magcache_flux_forward`, the Qwen-Image path `magcache_qwen_image_forward`, and the step index and
  enable rule of `unet_wrapper_function`).
"""

CALLS_BATCHED = ((1, 0),)  # ComfyUI's usual call: cond and uncond in one batch, uncond first
CALLS_SEPARATE = ((0,), (1,))  # one call per branch (ComfyUI splits the batch when memory is short)


def poly1d(coeffs, x):
    """np.poly1d(coeffs)(x): highest power first."""
    return sum(c * x ** (len(coeffs) - 1 - k) for k, c in enumerate(coeffs))


# ============================================================================ TeaCache (ali-vilab/TeaCache)
def wan21_ret_cutoff(steps, use_ret_steps):
    """TeaCache4Wan2.1/teacache_generate.py: (ret_steps, cutoff_steps) in model calls: 5*2 and sample_steps*2 with
    use_ret_steps (886-887), else 1*2 and sample_steps*2 - 2 (893-894)."""
    return (5 * 2, steps * 2) if use_ret_steps else (1 * 2, steps * 2 - 2)


def teacache4wan21(xs_even, xs_odd, coeffs, thresh, ret_steps, cutoff_steps):
    """TeaCache4Wan2.1/teacache_generate.py:520-550: cnt counts model calls, cond (even) and uncond (odd) in separate
    calls (num_steps = sample_steps*2, 871-872). Per call: cnt < ret_steps or cnt >= cutoff_steps -> compute,
    accumulator = 0; else accumulator += poly1d(coefficients)(rel-L1 change of the input against the branch's
    previous one), skip while < teacache_thresh, else compute and accumulator = 0.
    xs_even / xs_odd: per step the branch's input change (step 0: None, no previous input).
    -> (cond pattern, uncond pattern), '#' computed, '.' skipped."""
    acc = {0: 0.0, 1: 0.0}
    pat = {0: "", 1: ""}
    for cnt in range(len(xs_even) * 2):
        b = cnt % 2
        x = (xs_even, xs_odd)[b][cnt // 2]
        if cnt < ret_steps or cnt >= cutoff_steps:
            should_calc = True
            acc[b] = 0
        else:
            acc[b] += poly1d(coeffs, x)
            if acc[b] < thresh:
                should_calc = False
            else:
                should_calc = True
                acc[b] = 0
        pat[b] += "#" if should_calc else "."
    return pat[0], pat[1]


def teacache4flux(xs, coeffs, thresh):
    """TeaCache4FLUX/teacache_flux.py:109-124 (TeaCache4HunyuanVideo/teacache_sample_video.py:98-113 is the same
    rule): one call per step; cnt == 0 or cnt == num_steps - 1 -> compute, accumulator = 0; else accumulator +=
    poly1d(coefficients)(rel-L1 change of the modulated input), skip while < rel_l1_thresh, else compute and reset."""
    acc, out, num_steps = 0.0, "", len(xs)
    for cnt, x in enumerate(xs):
        if cnt == 0 or cnt == num_steps - 1:
            should_calc = True
            acc = 0
        else:
            acc += poly1d(coeffs, x)
            if acc < thresh:
                should_calc = False
            else:
                should_calc = True
                acc = 0
        out += "#" if should_calc else "."
    return out


# ============================================================================ MagCache (Zehong-Ma/ComfyUI-MagCache)
def comfy_step_index(i, steps, calibration_len):
    """unet_wrapper_function (nodes.py:1223-1224): current_step = index when the step count equals the table's,
    else int(index * (calibration_len - 1) / (steps - 1))."""
    return i if steps == calibration_len else int(i * ((calibration_len - 1) / (steps - 1)))


def comfy_enabled(i, steps, retention):
    """nodes.py:1207-1214 with the node's defaults start_step 0, end_step -1 (= steps - 1)."""
    return i >= int(steps * retention) and 0 <= i <= steps - 1


def comfy_magcache_wan(mag_ratios, steps, thresh, K, retention, calls=CALLS_BATCHED):
    """magcache_wanmodel_forward (nodes.py:601-697), is_cfg: mag_ratios is the published interleaved table
    (cond, uncond per step; calibration_len = len // 2, 1221). State per branch k (643-646); per call, for each
    position i of k in cond_or_uncond, when enabled: update_cache_state(state[k], current_step*2 + i) (648-665):
    ratio *= mag_ratios[index], steps += 1, err += |1 - ratio|; skip_forward = err <= magcache_thresh and steps <= K,
    else reset. The call skips when ANY of its branches' skip_forward is set (667-671); a skipped call adds each
    branch's cached residual (none yet: nothing added).
    calls: per step, the cond_or_uncond list of each model call (CALLS_BATCHED, CALLS_SEPARATE).
    -> (per branch {0: cond, 1: uncond} the rule's decision per step ('.' skip_forward set, '#' not), and the calls'
    decisions per step: one string per step, one char per call)."""
    L = len(mag_ratios) // 2
    state = {k: {"skip_forward": False, "accumulated_ratio": 1, "accumulated_err": 0, "accumulated_steps": 0}
             for k in (0, 1)}
    wants = {0: "", 1: ""}
    per_call = []
    for i in range(steps):
        enable = comfy_enabled(i, steps, retention)
        cur_step = comfy_step_index(i, steps, L)
        decided = ""
        for cou in calls:
            for pos, k in enumerate(cou):
                if enable:
                    cache = state[k]
                    cache["accumulated_ratio"] = cache["accumulated_ratio"] * mag_ratios[cur_step * 2 + pos]
                    cache["accumulated_steps"] = cache["accumulated_steps"] + 1
                    cache["accumulated_err"] += abs(1 - cache["accumulated_ratio"])
                    if cache["accumulated_err"] <= thresh and cache["accumulated_steps"] <= K:
                        cache["skip_forward"] = True
                    else:
                        cache["skip_forward"] = False
                        cache["accumulated_ratio"] = 1.0
                        cache["accumulated_steps"] = 0
                        cache["accumulated_err"] = 0
                wants[k] += "." if enable and state[k]["skip_forward"] else "#"
            skip = enable and any(state[k]["skip_forward"] for k in cou)
            decided += "." if skip else "#"
        per_call.append(decided)
    return wants, per_call


def comfy_magcache_flux(table, steps, thresh, K, retention, flux_rule=True):
    """magcache_flux_forward (nodes.py:38-99): one state; enabled as unet_wrapper_function says (1207-1214); table
    index as 1223-1224; when enabled and (Flux) cur_step not in [11] (87): ratio *= mag_ratios[cur_step], steps += 1,
    err += |1 - ratio|; skip while err < magcache_thresh and steps <= K (93), else reset. The HunyuanVideo path
    (magcache_hunyuanvideo_forward, 322-339) is the same without the step-11 rule (flux_rule=False).
    -> one char per step; the first step has no residual to reuse (the pack computes it; the reference's node
    never enables it at its minimum retention 0.1 from 10 steps on)."""
    acc_r, acc_s, acc_e, out = 1.0, 0, 0.0, ""
    for i in range(steps):
        cur = comfy_step_index(i, steps, len(table))
        skip = False
        if comfy_enabled(i, steps, retention) and not (flux_rule and cur in [11]):
            acc_r = acc_r * table[cur]
            acc_s += 1
            acc_e += abs(1 - acc_r)
            if acc_e < thresh and acc_s <= K:
                skip = True
            else:
                acc_e, acc_s, acc_r = 0, 0, 1.0
        out += "." if (skip and i > 0) else "#"
    return out


def comfy_magcache_qwen(mag_ratios, steps, thresh, K, retention, calls_per_step):
    """magcache_qwen_image_forward (nodes.py:882-939): cnt counts model calls; every call at step index 0 deletes
    the state (unet_wrapper_function 1195-1198), which the forward re-creates with cnt = 0 (882-888); when enabled
    (1207-1214): ratio[cnt % 2] *= mag_ratios[cnt] (the interleaved table read by call count, not by step),
    steps += 1, err += |1 - ratio|; skip while err < thresh and steps <= K, else reset; cnt += 1 (939).
    calls_per_step 2: cond and uncond as separate calls; 1: one batched call per step. -> one char per call."""
    out = ""
    for i in range(steps):
        for _ in range(calls_per_step):
            if i == 0:
                acc_r, acc_s, acc_e, cnt = [1.0, 1.0], [0, 0], [0.0, 0.0], 0
            b, skip = cnt % 2, False
            if comfy_enabled(i, steps, retention):
                acc_r[b] = acc_r[b] * mag_ratios[cnt]
                acc_s[b] += 1
                acc_e[b] += abs(1 - acc_r[b])
                if acc_e[b] < thresh and acc_s[b] <= K:
                    skip = True
                else:
                    acc_e[b], acc_s[b], acc_r[b] = 0, 0, 1.0
            out += "." if skip else "#"
            cnt += 1
    return out


def interleave(cond, uncond):
    """The published interleaved table (cond, uncond per step) from the two columns coefficients.json keeps."""
    return [v for pair in zip(cond, uncond, strict=True) for v in pair]


def joint_all(*patterns):
    """The pack's decision for a batched call: skip only when every branch's rule skips."""
    return "".join("." if all(p[j] == "." for p in patterns) else "#" for j in range(len(patterns[0])))
