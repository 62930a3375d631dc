"""Shared bits for node classes: category names and small helpers. Keep nodes thin."""
from __future__ import annotations

import functools
import inspect
import sys

from ..accel.errors import AccelError

CATEGORY = "accel"
CATEGORY_PATCH = "accel/patch"
CATEGORY_LOAD = "accel/loaders"
CATEGORY_CACHE = "accel/cache"
CATEGORY_INFO = "accel/info"
CATEGORY_TESTING = "accel/testing"


def report_ui(text: str) -> dict:
    """`ui` payload that shows a report string under the node in the frontend."""
    return {"text": [text]}


# --- BOOLEAN inputs: true booleans only, or the common strings API clients send -------------------------
#
# ComfyUI's validation turns a literal BOOLEAN value into bool(value) before any node code sees it, so an
# API prompt's "false" arrives as True. The pack therefore parses its BOOLEAN inputs in two places, both set
# up once for every node class by `apply_boolean_checks` (nodes/__init__.py): a server on_prompt handler
# (runs before validation: "false" -> False, anything unparseable -> a validation error naming the input),
# and a wrapper around each node's FUNCTION (values linked from other nodes, direct calls).

TRUE_WORDS = ("true", "1", "yes")
FALSE_WORDS = ("false", "0", "no")
BOOLEAN_REMEDY = 'Send true or false (API prompts may also send "true"/"false", "1"/"0" or "yes"/"no", in any case)'


def parse_bool(value, node: str, input_name: str) -> bool:
    """A BOOLEAN input's value: a bool, 0/1, or one of TRUE_WORDS/FALSE_WORDS (any case, spaces
    ignored). Anything else is an AccelError naming the node and the input."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    raise AccelError(node, input_name, f"{shown} is not a boolean", BOOLEAN_REMEDY)


def boolean_inputs(cls) -> tuple:
    """Names of the BOOLEAN inputs (required and optional) of a node class."""
    spec = cls.INPUT_TYPES()
    return tuple(name for section in ("required", "optional") for name, s in (spec.get(section) or {}).items()
                 if isinstance(s, (tuple, list)) and s and s[0] == "BOOLEAN")


class _NotABoolean(str):
    """What the on_prompt handler leaves for an unparseable value: ComfyUI's validation calls bool() on
    it, which raises our message, so the prompt is refused with an error naming the input."""

    def __new__(cls, value, message: str):
        obj = super().__new__(cls, str(value))
        obj.message = message
        return obj

    def __bool__(self):
        raise ValueError(self.message)


class BooleanChecks:
    """The BOOLEAN parsing of one set of node classes (see the comment above)."""

    def __init__(self, mappings: dict, display_names: dict):
        self.mappings = mappings
        self.display = display_names
        self._names: dict = {}

    def names(self, key: str) -> tuple:
        if key not in self._names:
            self._names[key] = boolean_inputs(self.mappings[key])
        return self._names[key]

    def on_prompt(self, json_data):
        """PromptServer on_prompt handler: parse our nodes' literal BOOLEAN values in an API prompt."""
        prompt = json_data.get("prompt") if isinstance(json_data, dict) else None
        if not isinstance(prompt, dict):
            return json_data
        for node in prompt.values():
            key = node.get("class_type") if isinstance(node, dict) else None
            inputs = node.get("inputs") if isinstance(node, dict) else None
            if not isinstance(key, str) or key not in self.mappings or not isinstance(inputs, dict):
                continue
            for name in self.names(key):
                value = inputs.get(name)
                if name not in inputs or isinstance(value, list):  # absent, or a link (checked when it runs)
                    continue
                if isinstance(value, dict) and "__value__" in value:
                    value = value["__value__"]
                try:
                    inputs[name] = parse_bool(value, self.display.get(key, key), name)
                except AccelError as e:
                    inputs[name] = _NotABoolean(value, str(e))
        return json_data

    def wrap(self, key: str) -> None:
        """Parse the BOOLEAN keyword arguments of node class `key`'s FUNCTION before it runs."""
        cls = self.mappings[key]
        fname = getattr(cls, "FUNCTION", None)
        fn = cls.__dict__.get(fname) if fname else None
        if not callable(fn) or getattr(fn, "_accel_booleans", False):
            return
        checks, node = self, self.display.get(key, key)

        def parsed(kwargs):
            for name in checks.names(key):
                if name in kwargs:
                    kwargs[name] = parse_bool(kwargs[name], node, name)
            return kwargs

        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def run(self, *args, **kwargs):
                return await fn(self, *args, **parsed(kwargs))
        else:
            @functools.wraps(fn)
            def run(self, *args, **kwargs):
                return fn(self, *args, **parsed(kwargs))

        run._accel_booleans = True
        setattr(cls, fname, run)

    def register(self, server) -> bool:
        """Add `on_prompt` to a running PromptServer (once). False when there is none (headless use)."""
        handlers = getattr(server, "on_prompt_handlers", None)
        if server is None or handlers is None:
            return False
        if not any(getattr(h, "__self__", None) is self for h in handlers):
            server.add_on_prompt_handler(self.on_prompt)
        return True


def apply_boolean_checks(mappings: dict, display_names: dict) -> BooleanChecks:
    """Set up BOOLEAN parsing for every node class in `mappings`: wrap each FUNCTION, and register the
    on_prompt handler with ComfyUI's PromptServer when one is running (it is created before custom nodes
    are loaded)."""
    checks = BooleanChecks(mappings, display_names)
    for key in mappings:
        checks.wrap(key)
    srv = sys.modules.get("server")
    checks.register(getattr(getattr(srv, "PromptServer", None), "instance", None))
    return checks
