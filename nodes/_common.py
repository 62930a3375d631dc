"""Shared bits for node classes: the V3 base class, schema helpers, category names, the failure-option
vocabulary and the BOOLEAN parsing. Keep nodes thin: one schema per node, an `execute` that calls into accel/."""
from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import sys

from comfy_api.latest import io, ui

from ..accel import vocabulary
from ..accel.errors import AccelError

CATEGORY = "accel"
CATEGORY_PATCH = "accel/patch"
CATEGORY_LOAD = "accel/loaders"
CATEGORY_CACHE = "accel/cache"
CATEGORY_INFO = "accel/info"
CATEGORY_TESTING = "accel/testing"


# --- V3 nodes ------------------------------------------------------------------------------------------------
#
# Every node is an `AccelNode` and declares what its schema needs where it is read: id, display name, category
# and flags in the class statement, the description as the class docstring, the inputs (built when ComfyUI
# asks: file and backend lists change) in `inputs()`, then the outputs as OUTPUTS. `define_schema` is written
# once, here. NODE_ID and DISPLAY are passed as `node=` to accel/ so that errors and reports name the node.

_SCHEMA_FIELDS = {f.name for f in dataclasses.fields(io.Schema)}
_INPUT_HAS_ADVANCED = "advanced" in inspect.signature(io.Input.__init__).parameters


def _paragraph(doc: str | None) -> str:
    """A class docstring as one line of description text (the frontend wraps it itself)."""
    return " ".join(inspect.cleandoc(doc or "").split())


def _docstring(cls) -> str:
    """The class's own docstring: `__doc__`, or read from its source file when Python runs with -OO (which drops
    docstrings and would leave every node without a description)."""
    if cls.__doc__ or sys.flags.optimize < 2:
        return cls.__doc__ or ""
    try:
        import ast

        tree = ast.parse(inspect.getsource(sys.modules[cls.__module__]))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
                return ast.get_docstring(node) or ""
    except (OSError, TypeError, KeyError, SyntaxError):  # no source shipped: no description, nothing else changes
        pass
    return ""


class AccelNode(io.ComfyNode):
    """Base of the pack's nodes (not registered itself):

        class AccelFoo(AccelNode, node_id="AccelFoo", display="Accel Foo", category=CATEGORY_PATCH):
            \"\"\"What the node does: the description ComfyUI shows.\"\"\"

            @classmethod
            def inputs(cls): return [io.Model.Input("model"), ...]

            OUTPUTS = (model_output("..."), report_output("..."))

            @classmethod
            def execute(cls, model, ...): ...

    Class keywords: node_id, display, category, and optionally output_node, experimental, dev_only,
    aliases (search aliases) and hidden (io.Hidden values)."""

    NODE_ID: str = ""
    DISPLAY: str = ""
    OUTPUTS: tuple = ()
    _ACCEL: dict = {}

    def __init_subclass__(cls, node_id: str = "", display: str = "", category: str = "", output_node: bool = False,
                          experimental: bool = False, dev_only: bool = False, aliases: tuple = (), hidden: tuple = (),
                          **kwargs):
        super().__init_subclass__(**kwargs)
        if node_id:
            cls.NODE_ID, cls.DISPLAY = node_id, display or node_id
            cls._ACCEL = {"category": category, "output_node": output_node, "experimental": experimental,
                          "dev_only": dev_only, "aliases": tuple(aliases), "hidden": list(hidden)}

    @classmethod
    def inputs(cls) -> list:
        return []

    @classmethod
    def unique_id(cls):
        """This node's id in the prompt (the hidden UNIQUE_ID input), None outside a prompt."""
        return getattr(cls.hidden, "unique_id", None)

    @classmethod
    def define_schema(cls) -> io.Schema:
        """io.Schema for this node, with the extras of newer ComfyUI (search_aliases, is_dev_only) where the
        installed ComfyUI has them (detected, not version-checked)."""
        meta = cls._ACCEL
        extra = {}
        if meta["aliases"] and "search_aliases" in _SCHEMA_FIELDS:
            extra["search_aliases"] = list(meta["aliases"])
        if meta["dev_only"] and "is_dev_only" in _SCHEMA_FIELDS:
            extra["is_dev_only"] = True
        return io.Schema(node_id=cls.NODE_ID, display_name=cls.DISPLAY, category=meta["category"],
                         description=_paragraph(_docstring(cls)), inputs=cls.inputs(), outputs=list(cls.OUTPUTS),
                         hidden=list(meta["hidden"]), is_output_node=meta["output_node"],
                         is_experimental=meta["experimental"], **extra)


def advanced() -> dict:
    """Keyword arguments marking an input as an expert setting (folded away by the frontend) where the
    installed ComfyUI supports it; nothing elsewhere."""
    return {"advanced": True} if _INPUT_HAS_ADVANCED else {}


def model_output(tooltip: str) -> io.Model.Output:
    return io.Model.Output(display_name="model", tooltip=tooltip)


def report_output(tooltip: str) -> io.String.Output:
    return io.String.Output(display_name="report", tooltip=tooltip)


def with_report(*results, report: str) -> io.NodeOutput:
    """The node's outputs, with the report text shown under the node in the frontend."""
    return io.NodeOutput(*results, ui=ui.PreviewText(report))


def patched(result: tuple) -> io.NodeOutput:
    """Outputs of a node that returns (patched object, report): both, with the report shown under the node."""
    obj, report = result
    return with_report(obj, report, report=report)


def patched_live(result: tuple, title: str) -> io.NodeOutput:
    """As `patched`, for nodes whose work is settled only when the model samples (compile): the report under
    the node and in the prompt's history is updated after each sampling run with what ran (accel.live_report)."""
    from ..accel import live_report

    obj, report = result
    return io.NodeOutput(obj, report, ui=live_report.attach(obj, report, title))


def report_ui(text: str) -> dict:
    """`ui` payload that shows a report string under the node in the frontend (as ui.PreviewText sends it)."""
    return json.loads(json.dumps(ui.PreviewText(text).as_dict()))


# --- the failure option: one vocabulary ("fall back" | "error") for every node ---------------------------

def failure_input(name: str, tooltip: str, *, optional: bool = False) -> io.Combo.Input:
    """The failure-policy combo: options `fall back` and `error` (legacy values still validate, see
    `check_failure`)."""
    return io.Combo.Input(name, options=list(vocabulary.ON_FAILURE_CHOICES), default=vocabulary.FALL_BACK,
                          tooltip=tooltip, optional=optional)


def check_failure(name: str, value, legacy: tuple = ()):
    """validate_inputs for the failure-policy input `name`: True for `fall back`, `error` and this input's
    legacy values (old workflows and API prompts); else a message naming the input. Links are checked when
    the node runs."""
    if not isinstance(value, str) or vocabulary.failure_policy(value, legacy) is not None:
        return True
    return f"input '{name}': '{value}' not in {list(vocabulary.ON_FAILURE_CHOICES)}"


def failure_policy(node: str, input_name: str, value, legacy: tuple = ()) -> str:
    """`fall back` or `error` for a failure-policy value (legacy values mapped); AccelError otherwise."""
    policy = vocabulary.failure_policy(value, legacy) if isinstance(value, str) else None
    if policy is None:
        raise AccelError(node, input_name, f"unknown value {value!r}",
                         "use one of: " + ", ".join(vocabulary.ON_FAILURE_CHOICES))
    return policy


# --- BOOLEAN inputs: true booleans only, or the common strings API clients send -------------------------
#
# ComfyUI's validation turns a literal BOOLEAN value into bool(value) before any node code sees it, so an
# API prompt's "false" arrives as True. The pack therefore parses its BOOLEAN inputs in two places, both set
# up once for every node class by `apply_boolean_checks` (nodes/__init__.py): a server on_prompt handler
# (runs before validation: "false" -> False, anything unparseable -> a validation error naming the input),
# and a wrapper around each node's `execute` (values linked from other nodes, direct calls).

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
    """Names of the BOOLEAN inputs (required and optional) of a V3 node class, from its schema."""
    return tuple(i.id for i in (cls.GET_SCHEMA().inputs or []) if isinstance(i, io.Boolean.Input))


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
        """Parse the BOOLEAN keyword arguments of node class `key`'s `execute` before it runs."""
        cls = self.mappings[key]
        raw = cls.__dict__.get("execute")
        if not isinstance(raw, classmethod) or getattr(raw.__func__, "_accel_booleans", False):
            return
        fn, checks, node = raw.__func__, self, self.display.get(key, key)

        def parsed(kwargs):
            for name in checks.names(key):
                if name in kwargs:
                    kwargs[name] = parse_bool(kwargs[name], node, name)
            return kwargs

        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def run(cls, *args, **kwargs):
                return await fn(cls, *args, **parsed(kwargs))
        else:
            @functools.wraps(fn)
            def run(cls, *args, **kwargs):
                return fn(cls, *args, **parsed(kwargs))

        run._accel_booleans = True
        cls.execute = classmethod(run)

    def register(self, server) -> bool:
        """Add `on_prompt` to a running PromptServer (once). False when there is none (headless use)."""
        handlers = getattr(server, "on_prompt_handlers", None)
        if server is None or handlers is None:
            return False
        if not any(getattr(h, "__self__", None) is self for h in handlers):
            server.add_on_prompt_handler(self.on_prompt)
        return True


def apply_boolean_checks(mappings: dict, display_names: dict) -> BooleanChecks:
    """Set up BOOLEAN parsing for every node class in `mappings`: wrap each `execute`, and register the
    on_prompt handler with ComfyUI's PromptServer when one is running (it is created before custom nodes
    are loaded)."""
    checks = BooleanChecks(mappings, display_names)
    for key in mappings:
        checks.wrap(key)
    srv = sys.modules.get("server")
    checks.register(getattr(getattr(srv, "PromptServer", None), "instance", None))
    return checks
