"""Old import path of `accel.stepcache.agnostic` (the node module imports it by this name): the same module object,
so attributes set or patched through either name are one."""
import sys

from .stepcache import agnostic as _agnostic

sys.modules[__name__] = _agnostic
