"""Shared bits for node classes: category names and small helpers. Keep nodes thin."""
from __future__ import annotations

CATEGORY = "accel"
CATEGORY_PATCH = "accel/patch"
CATEGORY_LOAD = "accel/loaders"
CATEGORY_CACHE = "accel/cache"
CATEGORY_INFO = "accel/info"
CATEGORY_TESTING = "accel/testing"


def report_ui(text: str) -> dict:
    """`ui` payload that shows a report string under the node in the frontend."""
    return {"text": [text]}
