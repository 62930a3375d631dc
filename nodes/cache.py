"""Accel TeaCache, Accel MagCache, Accel Cache Calibrate, Accel Cache (any model): wrapper-based step caches
(the accel/cache package)."""
from __future__ import annotations

from comfy_api.latest import io

from ._common import CATEGORY_CACHE, AccelNode, advanced, model_output, patched, report_output, schema
from ._inputs import checked, not_a_choice

_DEVICES = ["GPU", "CPU"]
_DEVICE_TIP = ("Where the cached transformer residual lives between steps. GPU is fastest; CPU saves GPU memory "
               "(one residual per cond/uncond) at the cost of a copy per step.")
_STATS_TIP = ("Written when the node runs, before sampling; each sampling run's statistics (steps skipped, "
              "estimated speed-up) are logged and shown here the next time the node runs.")


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

        bad = accel_cache.check_choice(kind, input_name, value)
        return bad.with_title(node) if bad is not None else None
    return rule


_HIDDEN = (io.Hidden.unique_id,)


def _cache_device():
    return io.Combo.Input("cache_device", options=_DEVICES, default="GPU", **advanced(), tooltip=_DEVICE_TIP)


class _SetCache(AccelNode):
    """Accel TeaCache / MagCache (each writes its own define_schema): the inputs after the thresholds (schedule
    window, set choice, cache device), the re-run rule for user sets (a recalibrated user:<name> file runs the node
    again) and execute."""

    KIND = ""        # "teacache" | "magcache": accel.cache.coefficients' set kind
    SET_INPUT = ""   # the input that picks the set

    @classmethod
    def set_inputs(cls, start_tip: str, set_tip: str) -> list:
        return [
            io.Float.Input("start_percent", default=-1.0, min=-1.0, max=1.0, step=0.01, **advanced(),
                           tooltip=start_tip),
            io.Float.Input("end_percent", default=1.0, min=0.0, max=1.0, step=0.01, **advanced(),
                           tooltip="Schedule percent after which every step is computed."),
            io.Combo.Input(cls.SET_INPUT, options=_set_choices(cls.KIND), default="auto", tooltip=set_tip),
            _cache_device(),
        ]

    @classmethod
    def fingerprint_inputs(cls, **kwargs):
        return _user_changed(kwargs.get(cls.SET_INPUT, "auto"))

    @classmethod
    @checked
    def execute(cls, model, **inputs):
        """accel.cache.configure_<KIND>(model, **inputs): its parameters are named as the node's inputs."""
        from ..accel import cache as accel_cache

        return patched(getattr(accel_cache, f"configure_{cls.KIND}")(model, **inputs, node_id=cls.unique_id()))


class AccelTeaCache(_SetCache):
    KIND, SET_INPUT = "teacache", "coefficients"
    COMBO_RULES = {"coefficients": _set_rule("teacache")}

    @classmethod
    def define_schema(cls):
        return schema(
            node_id="AccelTeaCache",
            display_name="Accel TeaCache",
            category=CATEGORY_CACHE,
            description="Skips transformer steps whose change the published TeaCache polynomial predicts to be "
                        "small and reuses the cached residual. For Wan 2.1/2.2, Flux.1/Kontext and HunyuanVideo; "
                        "other models after Accel Cache Calibrate. Works with the other Accel nodes.",
            search_aliases=["step cache", "teacache"],
            hidden=list(_HIDDEN),
            inputs=[
                io.Model.Input("model", tooltip="The diffusion model to cache (Wan 2.1/2.2, Flux.1, HunyuanVideo "
                                                "(1.5), or a model you calibrated)."),
                io.Float.Input("rel_l1_thresh", default=-1.0, min=-1.0, max=10.0, step=0.01, tooltip=(
                    "Accumulated estimated change allowed before computing again: higher = faster, more drift. "
                    "-1 = the chosen set's recommended value (scales differ between sets). 0 = never skip.")),
                *cls.set_inputs(
                    "Schedule percent before which every step is computed. -1 = recommended for the set (0.1 for "
                    "the Wan *_ret_mode sets, else 0).",
                    "auto: the published set for the detected model (Wan I2V 480p/720p chosen per run from the "
                    "latent size). user:<name>: a set you calibrated with Accel Cache Calibrate."),
            ],
            outputs=[model_output("The model with TeaCache (a clone; the input MODEL is untouched)."),
                     report_output("What was configured, which coefficient set and why. " + _STATS_TIP)],
        )


class AccelMagCache(_SetCache):
    KIND, SET_INPUT = "magcache", "ratios"
    COMBO_RULES = {"ratios": _set_rule("magcache")}

    @classmethod
    def define_schema(cls):
        return schema(
            node_id="AccelMagCache",
            display_name="Accel MagCache",
            category=CATEGORY_CACHE,
            description="Skips transformer steps while the error predicted by the published residual-magnitude "
                        "ratios stays under the threshold. For Wan 2.1/2.2, Flux.1/Kontext, Qwen-Image and "
                        "HunyuanVideo; other models after Accel Cache Calibrate.",
            search_aliases=["step cache", "magcache"],
            hidden=list(_HIDDEN),
            inputs=[
                io.Model.Input("model", tooltip="The diffusion model to cache."),
                io.Float.Input("magcache_thresh", default=-1.0, min=-1.0, max=1.0, step=0.01, tooltip=(
                    "Allowed accumulated magnitude error before computing again: higher = faster, more drift. "
                    "-1 = recommended for the chosen ratio set. 0 = never skip.")),
                io.Int.Input("magcache_K", default=-1, min=-1, max=10, step=1,
                             tooltip="Most steps skipped in a row. -1 = recommended for the set."),
                *cls.set_inputs(
                    "MagCache's retention ratio: every step before this schedule percent is computed. -1 = "
                    "recommended for the set.",
                    "auto: the published ratios for the detected model. Wan 2.2 A14B experts: pick "
                    "wan2.2_t2v_14B / wan2.2_i2v_14B. user:<name>: ratios you calibrated."),
            ],
            outputs=[model_output("The model with MagCache (a clone; the input MODEL is untouched)."),
                     report_output("What was configured, which ratio set and why. " + _STATS_TIP)],
        )


class AccelCacheCalibrate(AccelNode):
    @classmethod
    def define_schema(cls):
        return schema(
            node_id="AccelCacheCalibrate",
            display_name="Accel Cache Calibrate",
            category=CATEGORY_CACHE,
            description="Records a model's step dynamics while it samples and fits TeaCache coefficients and "
                        "MagCache ratios for it (user:<name> in those nodes). Use it for models or schedules "
                        "without a published set. Experimental: tested on tiny random models only.",
            is_experimental=True,
            hidden=list(_HIDDEN),
            inputs=[
                io.Model.Input("model", tooltip="The model to calibrate, with the LoRAs you will use (a Lightning "
                                                "LoRA changes the dynamics)."),
                io.String.Input("name", default="my_model", tooltip=(
                    "File name for the calibration: letters, digits, . _ - only. Each completed run is added to "
                    "the file's runs; a file holding another model's runs is refused: one name per model and "
                    "LoRA setup.")),
                io.Boolean.Input("overwrite", default=False, optional=True, tooltip=(
                    "Off: runs are added to the file. On: the first completed run replaces the file (the old one "
                    "is kept as <name>.<time>.json.bak); later runs are added.")),
            ],
            outputs=[model_output("The model with calibration recording (nothing is skipped; output identical to "
                                  "the input MODEL's)."),
                     report_output("Where the file goes and how to use it; the fit results are logged after each "
                                   "run.")],
        )

    @classmethod
    def validate_inputs(cls, name):
        if not isinstance(name, str):  # linked from another node: checked when the node runs
            return True
        from ..accel import cache as accel_cache

        bad = accel_cache.name_error(name)
        return str(bad.with_title(cls.DISPLAY)) if bad else True

    @classmethod
    @checked
    def execute(cls, model, name, overwrite=False):
        from ..accel import cache as accel_cache

        return patched(accel_cache.configure_calibration(model, name, node_id=cls.unique_id(),
                                                         overwrite=bool(overwrite)))


class AccelCacheAnyModel(AccelNode):
    @classmethod
    def define_schema(cls):
        from ..accel.cache import any_model as agn

        return schema(
            node_id="AccelCacheAnyModel",
            display_name="Accel Cache (any model)",
            category=CATEGORY_CACHE,
            description="Step caching without coefficients for every model family the pack knows: reuses the "
                        "cached residual while the estimated change stays under the threshold. Experimental: "
                        "its default threshold is not yet checked on real checkpoints.",
            is_experimental=True,
            search_aliases=["step cache", "easycache"],
            hidden=list(_HIDDEN),
            inputs=[
                io.Model.Input("model", tooltip="The diffusion model to cache: " + agn.FAMILIES_TEXT + "."),
                io.Float.Input("threshold", default=agn.DEFAULT_THRESHOLD, min=0.0, max=1.0, step=0.01, tooltip=(
                    "Largest estimated relative change of the cached residual that a skipped step may reuse "
                    "(0.1 = 10%). Higher = more steps skipped, more drift; 0 = never skip.")),
                io.Float.Input("start_percent", default=agn.DEFAULT_START, min=0.0, max=1.0, step=0.01,
                               **advanced(), tooltip="Fraction of the steps before which every step is computed "
                                                     "(the early steps set the composition)."),
                io.Float.Input("end_percent", default=agn.DEFAULT_END, min=0.0, max=1.0, step=0.01, **advanced(),
                               tooltip="Fraction of the steps after which every step is computed (the last step "
                                       "is always computed)."),
                _cache_device(),
            ],
            outputs=[model_output("The model with the step cache (a clone; the input MODEL is untouched)."),
                     report_output("What was configured, and the last run's skipped steps with the estimated and "
                                   "measured change of the reused residual (logged after each sampling run, shown here "
                                   "the next time the node runs).")],
        )

    @classmethod
    @checked
    def execute(cls, model, threshold, start_percent, end_percent, cache_device):
        from ..accel.cache import any_model

        return patched(any_model.configure(model, threshold, start_percent, end_percent, cache_device,
                                           node_id=cls.unique_id()))


NODES = [AccelTeaCache, AccelMagCache, AccelCacheCalibrate, AccelCacheAnyModel]
