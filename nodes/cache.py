"""Accel TeaCache, Accel MagCache, Accel Cache Calibrate, Accel Cache (any model): wrapper-based step caches
(the accel/cache package)."""
from __future__ import annotations

from comfy_api.latest import io

from ._common import CATEGORY_CACHE, AccelNode, advanced, model_output, not_a_choice, patched, report_output

_DEVICES = ["GPU", "CPU"]
_DEVICE_TIP = ("Where the cached transformer residual lives between steps. GPU is fastest; CPU saves GPU memory "
               "(one residual per cond/uncond, e.g. about 1.5 GB for Wan 14B 720p 81 frames with CFG) at the cost "
               "of a copy per step.")
_STATS_TIP = ("This text is written when the node executes, before sampling. Per-run statistics (steps computed/"
              "skipped, estimated speed-up) are logged after every sampling run and shown here when the node runs "
              "again.")


def _cc():
    from ..accel.cache import coefficients

    return coefficients


def _set_choices(kind: str) -> list:
    cc = _cc()
    names = [n for n, e in cc.published(kind).items() if cc.adapter_for_set(e)]
    return ["auto"] + names + cc.user_sets(kind)


def _user_changed(choice: str):
    cc = _cc()
    return cc.user_mtime(choice) if isinstance(choice, str) and choice.startswith(cc.USER_PREFIX) else ""


def _set_rule(kind: str):
    """COMBO_RULES entry for a set choice: 'auto', a published set or any user:<name> file (also one calibrated
    after the node list was built); a damaged or missing user:<name> file is reported with its file, key and
    remedy before the prompt runs."""
    def rule(node, input_name, value, options):
        if not isinstance(value, str):
            return not_a_choice(node, input_name, value, options)
        from ..accel import cache as accel_cache

        return accel_cache.check_choice(node, kind, input_name, value)
    return rule


_HIDDEN = (io.Hidden.unique_id,)


def _cache_device():
    return io.Combo.Input("cache_device", options=_DEVICES, default="GPU", **advanced(), tooltip=_DEVICE_TIP)


class _SetCache(AccelNode):
    """Accel TeaCache / MagCache: the inputs after the thresholds (schedule window, set choice, cache device)
    and the re-run rule for user sets (a recalibrated user:<name> file runs the node again)."""

    KIND = ""        # "teacache" | "magcache": accel.cache.coefficients' set kind
    SET_INPUT = ""   # the input that picks the set

    @classmethod
    def set_inputs(cls, start_tip: str, set_tip: str) -> list:
        return [
            io.Float.Input("start_percent", default=-1.0, min=-1.0, max=1.0, step=0.01, **advanced(), tooltip=start_tip),
            io.Float.Input("end_percent", default=1.0, min=0.0, max=1.0, step=0.01, **advanced(),
                           tooltip="Schedule percent after which every step is computed."),
            io.Combo.Input(cls.SET_INPUT, options=_set_choices(cls.KIND), default="auto", tooltip=set_tip),
            _cache_device(),
        ]

    @classmethod
    def fingerprint_inputs(cls, **kwargs):
        return _user_changed(kwargs.get(cls.SET_INPUT, "auto"))

    @classmethod
    def execute(cls, model, **inputs):
        """accel.cache.configure_<KIND>(model, **inputs): its parameters are named as the node's inputs."""
        from ..accel import cache as accel_cache

        return patched(getattr(accel_cache, f"configure_{cls.KIND}")(model, **inputs, node_id=cls.unique_id()))


class AccelTeaCache(_SetCache, node_id="AccelTeaCache", display="Accel TeaCache", category=CATEGORY_CACHE,
                    aliases=("step cache", "teacache"), hidden=_HIDDEN):
    """TeaCache step caching built on ComfyUI's own wrappers: skips the transformer blocks on steps whose change the
    published TeaCache polynomial predicts to be small, and reuses the cached residual (per cond/uncond). Keeps
    attention overrides, torch.compile and other nodes' block patches working in any node order. Wan 2.1/2.2,
    Flux.1/Kontext, HunyuanVideo and 1.5; other models via Accel Cache Calibrate."""

    KIND, SET_INPUT = "teacache", "coefficients"
    COMBO_RULES = {"coefficients": _set_rule("teacache")}

    @classmethod
    def inputs(cls):
        return [
            io.Model.Input("model", tooltip="The diffusion model to cache (Wan 2.1/2.2, Flux.1, HunyuanVideo (1.5), "
                                            "or a model you calibrated)."),
            io.Float.Input("rel_l1_thresh", default=-1.0, min=-1.0, max=10.0, step=0.01, tooltip=(
                "How much accumulated estimated change to allow before computing again: higher = faster, more "
                "drift. -1 = the recommended value of the chosen coefficient set (shown in the report; scales "
                "differ up to 10x between sets). 0 = never skip.")),
            *cls.set_inputs(
                "Schedule percent (as in ComfyUI's start/end inputs) before which every step is computed. -1 = "
                "recommended for the set (0.1 for the Wan *_ret_mode sets, else 0).",
                "auto: the published set for the detected model (Wan I2V 480p/720p chosen per run from the latent "
                "size). user:<name>: a set you calibrated with Accel Cache Calibrate."),
        ]

    OUTPUTS = (model_output("The model with TeaCache (a clone; the input MODEL is untouched)."),
               report_output("What was configured, which coefficient set and why, and the last run's statistics. "
                             + _STATS_TIP))


class AccelMagCache(_SetCache, node_id="AccelMagCache", display="Accel MagCache", category=CATEGORY_CACHE,
                    aliases=("step cache", "magcache"), hidden=_HIDDEN):
    """MagCache step caching on the same wrapper mechanism as Accel TeaCache: skips steps while the accumulated error
    predicted by the published residual-magnitude ratios stays under the threshold (at most K steps in a row). At
    other step counts each step uses one table entry, as the reference does. Wan 2.1/2.2, Flux.1/Kontext,
    Qwen-Image, HunyuanVideo and 1.5; others via Accel Cache Calibrate."""

    KIND, SET_INPUT = "magcache", "ratios"
    COMBO_RULES = {"ratios": _set_rule("magcache")}

    @classmethod
    def inputs(cls):
        return [
            io.Model.Input("model", tooltip="The diffusion model to cache."),
            io.Float.Input("magcache_thresh", default=-1.0, min=-1.0, max=1.0, step=0.01, tooltip=(
                "Allowed accumulated magnitude error before computing again: higher = faster, more drift. -1 = "
                "recommended for the chosen ratio set. 0 = never skip.")),
            io.Int.Input("magcache_K", default=-1, min=-1, max=10, step=1,
                         tooltip="Most steps skipped in a row. -1 = recommended for the set."),
            *cls.set_inputs(
                "MagCache's retention ratio: every step before this schedule percent is computed. -1 = "
                "recommended for the set (usually 0.2).",
                "auto: the published ratios for the detected model. Wan 2.2 A14B experts look like Wan 2.1 14B: "
                "pick wan2.2_t2v_14B / wan2.2_i2v_14B for them. user:<name>: ratios you calibrated."),
        ]

    OUTPUTS = (model_output("The model with MagCache (a clone; the input MODEL is untouched)."),
               report_output("What was configured, which ratio set and why, and the last run's statistics. "
                             + _STATS_TIP))


class AccelCacheCalibrate(AccelNode, node_id="AccelCacheCalibrate", display="Accel Cache Calibrate",
                          category=CATEGORY_CACHE, experimental=True, hidden=_HIDDEN):
    """Calibrates TeaCache and MagCache for a model and schedule with no published set (e.g. 4-8-step Lightning LoRAs,
    Wan 2.2 experts, fine-tunes): sampling with this MODEL skips nothing and records per step the change of the
    cache signal and of the transformer residual; each completed run is added to the runs in <ComfyUI user
    dir>/accel/cache_coefficients/<name>.json (also across restarts; interrupted runs write nothing) and the
    TeaCache polynomial and MagCache ratios are refitted over all of them; Accel TeaCache / Accel MagCache list the
    file as user:<name>. Experimental: the fitting is tested on tiny random models only, not yet on real
    checkpoints; compare outputs before relying on a suggested threshold."""

    @classmethod
    def inputs(cls):
        return [
            io.Model.Input("model", tooltip="The model to calibrate, with the LoRAs you will use (a Lightning "
                                            "LoRA changes the dynamics)."),
            io.String.Input("name", default="my_model", tooltip=(
                "File name for the calibration: letters, digits, . _ - only (other names are refused, not "
                "changed). Each completed run is added to the runs already in that file, also after a restart; "
                "interrupted runs write nothing. A file holding another model's runs is refused: use one name "
                "per model and LoRA setup.")),
            io.Boolean.Input("overwrite", default=False, optional=True, tooltip=(
                "Off (default): runs are added to the file; a file of another model or a damaged file is "
                "refused. On: the first completed run after this node executes replaces the file (the old file "
                "is kept as <name>.<time>.json.bak next to it); later runs are added.")),
        ]

    OUTPUTS = (model_output("The model with calibration recording (nothing is skipped; output identical to the "
                            "input MODEL's)."),
               report_output("Where the file goes and how to use it; the fit results are logged after each run."))

    @classmethod
    def validate_inputs(cls, name):
        if not isinstance(name, str):  # linked from another node: checked when the node runs
            return True
        from ..accel import cache as accel_cache

        bad = accel_cache.name_error(cls.DISPLAY, name)
        return str(bad) if bad else True

    @classmethod
    def execute(cls, model, name, overwrite=False):
        from ..accel import cache as accel_cache

        return patched(accel_cache.configure_calibration(model, name, node_id=cls.unique_id(), overwrite=bool(overwrite)))


class AccelCacheAnyModel(AccelNode, node_id="AccelCacheAnyModel", display="Accel Cache (any model)",
                         category=CATEGORY_CACHE, experimental=True, aliases=("step cache", "easycache"),
                         hidden=_HIDDEN):
    """Step caching without coefficients, for every model family the pack knows (Wan 2.1/2.2, Flux.1/Kontext,
    Qwen-Image, HunyuanVideo, LTX-Video): measures how much the first transformer block's input changed since the
    last computed step and how strongly the blocks' residual followed such changes on the last computed steps, and
    reuses the cached residual while the estimated change stays under the threshold. A separate node rather than a
    mode of Accel TeaCache / MagCache: their coefficient-set, K and recommended-value (-1) inputs mean nothing here,
    and this threshold measures another quantity. Works under Accel Compile and with CFG; the report gives the
    skipped steps and the estimated and measured change of the reused residual. Experimental: tested on tiny random
    models of each family; its default threshold has not been checked on real checkpoints yet."""

    @classmethod
    def inputs(cls):
        from ..accel.cache import any_model as agn

        return [
            io.Model.Input("model", tooltip="The diffusion model to cache: " + agn.FAMILIES_TEXT + "."),
            io.Float.Input("threshold", default=agn.DEFAULT_THRESHOLD, min=0.0, max=1.0, step=0.01, tooltip=(
                "Largest estimated relative change of the cached transformer residual that a skipped step may "
                "reuse (0.1 = 10%). Higher = more steps skipped, more drift; 0 = never skip (exact). Start with "
                "the default and compare against a run without the node.")),
            io.Float.Input("start_percent", default=agn.DEFAULT_START, min=0.0, max=1.0, step=0.01, **advanced(),
                           tooltip="Fraction of the steps before which every step is computed (the early steps "
                                   "set the composition)."),
            io.Float.Input("end_percent", default=agn.DEFAULT_END, min=0.0, max=1.0, step=0.01, **advanced(),
                           tooltip="Fraction of the steps after which every step is computed (the last steps set "
                                   "fine detail; the last step is always computed)."),
            _cache_device(),
        ]

    OUTPUTS = (model_output("The model with the step cache (a clone; the input MODEL is untouched)."),
               report_output("What was configured and the last run's statistics: steps skipped, the estimated change "
                             "of the reused residual and the change measured at the next computed step. " + _STATS_TIP))

    @classmethod
    def execute(cls, model, threshold, start_percent, end_percent, cache_device):
        from ..accel.cache import any_model

        return patched(any_model.configure(model, threshold, start_percent, end_percent, cache_device,
                                           node_id=cls.unique_id()))


NODES = [AccelTeaCache, AccelMagCache, AccelCacheCalibrate, AccelCacheAnyModel]
