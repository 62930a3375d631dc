"""Where a step cache lives on a MODEL: the keys in transformer_options / the wrapper key, the modes, and the
step count below which nothing is skipped."""
from ..common import keys as patch_keys

KEY = patch_keys.CACHE  # config dict in model_options["transformer_options"] (small: survives deepcopy)
RUN_KEY = patch_keys.CACHE_RUN  # the Run object, only in a sampling run's own model_options copy
WRAPPER_KEY = patch_keys.CACHE

MODES = ("teacache", "magcache", "calibrate", "any_model")  # any_model: accel/cache/any_model.py
LOW_STEPS = 8
