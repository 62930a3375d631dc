"""Where a step cache lives on a MODEL: the keys in transformer_options / the wrapper key, the modes, and the
step count below which nothing is skipped."""


KEY = "accel_stepcache"  # config dict in model_options["transformer_options"] (small: survives deepcopy)
RUN_KEY = "accel_stepcache_run"  # the _Run object, only in a sampling run's own model_options copy
WRAPPER_KEY = "accel_stepcache"

MODES = ("teacache", "magcache", "calibrate", "agnostic")  # agnostic: accel/stepcache/agnostic.py
LOW_STEPS = 8
