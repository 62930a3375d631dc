"""One logger for the pack, and log-once helpers so fallbacks never spam per call."""
from __future__ import annotations

import logging
import threading

logger = logging.getLogger("comfyui-accel")

_seen: set = set()
_lock = threading.Lock()


def info(msg: str, *args) -> None:
    logger.info("accel: " + msg, *args)


def warning(msg: str, *args) -> None:
    logger.warning("accel: " + msg, *args)


def warn_once(key, msg: str, *args) -> bool:
    """Log `msg` as a warning the first time `key` is seen in this process. Returns True if logged."""
    with _lock:
        if key in _seen:
            return False
        _seen.add(key)
    logger.warning("accel: " + msg, *args)
    return True


def info_once(key, msg: str, *args) -> bool:
    with _lock:
        if key in _seen:
            return False
        _seen.add(key)
    logger.info("accel: " + msg, *args)
    return True


def reset_once(prefix=None) -> None:
    """Forget log-once keys (tests). With `prefix`, only tuple keys whose first item equals it."""
    with _lock:
        if prefix is None:
            _seen.clear()
        else:
            for k in [k for k in _seen if isinstance(k, tuple) and k and k[0] == prefix]:
                _seen.discard(k)
