"""Shared bits for node classes: the V3 base class, the schema helper, input/output helpers, category names, the
failure-option vocabulary and the BOOLEAN/COMBO checks. Keep nodes thin: each writes its own define_schema and an
`execute` that calls into accel/."""
from __future__ import annotations

import dataclasses
import functools
import inspect
import sys

from comfy_api.latest import io, ui

from ..accel.common import vocabulary
from ..accel.common.errors import AccelError, titled
from ..accel.common.policy import Policy

CATEGORY = "accel"
CATEGORY_PATCH = "accel/patch"
CATEGORY_LOAD = "accel/loaders"
CATEGORY_CACHE = "accel/cache"
CATEGORY_INFO = "accel/info"
CATEGORY_TESTING = "accel/testing"
CATEGORY_VIDEO = "accel/video"


# --- V3 nodes ------------------------------------------------------------------------------------------------
#
# Every node is an `AccelNode` that writes its own `define_schema` and `execute`, as ComfyUI's core V3 nodes do:
#
#     class AccelFoo(AccelNode):
#         @classmethod
#         def define_schema(cls):
#             return schema(node_id="AccelFoo", display_name="Accel Foo", category=CATEGORY_PATCH,
#                           description="What it does and when to use it (one or two sentences).",
#                           search_aliases=["foo"], inputs=[io.Model.Input("model", tooltip="..."), ...],
#                           outputs=[model_output("..."), report_output("...")])
#
#         @classmethod
#         def execute(cls, model, ...): ...
#
# `define_schema` runs when ComfyUI asks for the node list, so file and backend lists are current. The longer
# explanation of a node (every input in detail, measured figures with their citations) is its help page,
# web/docs/<node id>.md, which the frontend shows in the node's help panel.

_SCHEMA_FIELDS = {f.name for f in dataclasses.fields(io.Schema)}
_INPUT_HAS_ADVANCED = "advanced" in inspect.signature(io.Input.__init__).parameters
# io.Schema fields of newer ComfyUI that an older one lacks: dropped there (nothing else changes)
NEWER_SCHEMA_FIELDS = ("search_aliases", "is_dev_only")


def schema(**fields) -> io.Schema:
    """io.Schema(**fields), without the NEWER_SCHEMA_FIELDS the installed ComfyUI's io.Schema lacks (detected,
    not version-checked). Any other unknown field is an error, as with io.Schema itself."""
    return io.Schema(**{k: v for k, v in fields.items() if k in _SCHEMA_FIELDS or k not in NEWER_SCHEMA_FIELDS})


class _FromSchema:
    """A class attribute read from the node's own define_schema (computed once per class): NODE_ID and DISPLAY
    stay one fact, written in the schema."""

    def __init__(self, field: str):
        self.field = field
        self.values: dict = {}

    def __get__(self, obj, owner):
        if owner not in self.values:
            self.values[owner] = getattr(owner.define_schema(), self.field)
        return self.values[owner]


class AccelNode(io.ComfyNode):
    """Base of the pack's nodes (not registered itself). Each node writes its own define_schema and execute; the
    base adds NODE_ID / DISPLAY (the schema's node_id / display_name: errors and reports name the node by its
    display name), COMBO_RULES (see "COMBO inputs") and unique_id()."""

    NODE_ID = _FromSchema("node_id")
    DISPLAY = _FromSchema("display_name")
    # combo inputs whose valid values are not exactly the listed options: input name -> rule (see "COMBO inputs")
    COMBO_RULES: dict = {}

    @classmethod
    def unique_id(cls):
        """This node's id in the prompt (the hidden UNIQUE_ID input), None outside a prompt."""
        return getattr(cls.hidden, "unique_id", None)


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


def rendered(report) -> str:
    """The report's text: a feature's `Report` rendered here, once, at the node boundary (text passes as is)."""
    return report if isinstance(report, str) else report.render()


def patched(result: tuple) -> io.NodeOutput:
    """Outputs of a node that returns (patched object, report): both, with the report shown under the node."""
    obj, report = result
    report = rendered(report)
    return with_report(obj, report, report=report)


def patched_live(result: tuple, title: str) -> io.NodeOutput:
    """As `patched`, for nodes whose work is settled only when the model samples (compile): the report under
    the node and in the prompt's history is updated after each sampling run with what ran (accel.common.live_report)."""
    from ..accel.common import live_report

    obj, report = result
    report = rendered(report)
    return io.NodeOutput(obj, report, ui=live_report.attach(obj, report, title))


# --- the failure option: one vocabulary ("fall back" | "error") for every node ---------------------------

def failure_input(name: str, tooltip: str, *, optional: bool = False) -> io.Combo.Input:
    """The failure-policy combo: options `fall back` and `error` (a node whose older versions used other words
    lists them in COMBO_RULES with `legacy_failure`)."""
    return io.Combo.Input(name, options=list(vocabulary.ON_FAILURE_CHOICES), default=vocabulary.FALL_BACK,
                          tooltip=tooltip, optional=optional)


def legacy_failure(legacy: tuple):
    """COMBO_RULES entry for a failure-policy input that also takes its node's legacy words (old workflows and
    API prompts: Accel Compile's eager/raise, Accel Attention's sdpa)."""
    return also_valid(*legacy)


# The one parser of failure words: old value -> policy, per the node that used it (Accel Attention's
# `fallback: sdpa|error`, Accel Compile's `on_failure: eager|raise`). Below nodes/ only `Policy` exists.
LEGACY_FAILURE_WORDS = {"sdpa": vocabulary.FALL_BACK, "eager": vocabulary.FALL_BACK, "raise": vocabulary.ERROR}


def failure_policy(input_name: str, value, legacy: tuple = ()) -> Policy:
    """The Policy of a failure-option value: `fall back` or `error`, or one of the `legacy` words of
    LEGACY_FAILURE_WORDS that the asking node used to accept; AccelError otherwise."""
    if isinstance(value, Policy):
        return value
    if isinstance(value, bool):  # a BOOLEAN `strict` input (Accel Load Diffusion Model (FP8)): on means error
        return Policy.ERROR if value else Policy.FALL_BACK
    if isinstance(value, str) and value in vocabulary.ON_FAILURE_CHOICES:
        return Policy(value)
    if isinstance(value, str) and value in legacy and value in LEGACY_FAILURE_WORDS:
        return Policy(LEGACY_FAILURE_WORDS[value])
    raise AccelError(input_name, f"unknown value {value!r}", "use one of: " + ", ".join(vocabulary.ON_FAILURE_CHOICES))


# --- COMBO inputs: every value checked against its choices, in one place ------------------------------------
#
# ComfyUI 0.3.75 checks the values of V1 list inputs only: a V3 combo's value from an API prompt ("aot_eager", 123,
# null) reached the node unchecked (0.33 checks them, except for inputs a validate_inputs takes). The pack checks
# every combo input of every node itself, set up once by `apply_input_checks` (nodes/__init__.py):
# - a validate_inputs for every node class that checks its combo values before the prompt runs, then calls the
#   node's own validate_inputs (links arrive there as None: checked when the node runs);
# - the on_prompt handler marks a literal null (not a link) so that validate_inputs refuses it too;
# - the `execute` wrapper checks them again (values linked from other nodes, direct calls).
# The choices are the schema's options, read when the check runs. A node lists in COMBO_RULES the inputs whose
# valid values differ: legacy words (`also_valid`), model files (`files_in`: the list changes while ComfyUI
# runs), or a check of its own (a function (node, input name, value, options) -> AccelError or None).

def shown(value) -> str:
    text = "null (no value)" if value is None else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def listed(options, most: int = 20) -> str:
    options = [str(o) for o in options]
    if len(options) <= most:
        return ", ".join(options) if options else "(none)"
    return ", ".join(options[:most]) + f", ... ({len(options)} in all)"


def not_a_choice(node: str, input_name: str, value, options) -> AccelError:
    return AccelError(input_name, f"{shown(value)} is not one of its choices", "Pick one of: " + listed(options), title=node)


def in_list(node: str, input_name: str, value, options, also: tuple = ()) -> AccelError | None:
    """The default rule: a string among the options (or `also`)."""
    if isinstance(value, str) and (value in options or value in also):
        return None
    return not_a_choice(node, input_name, value, options)


def also_valid(*values):
    """COMBO_RULES entry: the options, and also these values (words older versions offered)."""
    def rule(node, input_name, value, options):
        return in_list(node, input_name, value, options, values)
    return rule


def files_in(folder: str, *extra: str):
    """COMBO_RULES entry for a file list of ComfyUI's models/<folder> (`extra`: other valid values such as
    '(none)'): any file ComfyUI finds there now (the list shown may be older), else an error saying so."""
    def rule(node, input_name, value, options):
        import os

        import folder_paths

        if isinstance(value, str) and (value in extra or folder_paths.get_full_path(folder, value) is not None):
            return None
        dirs = []
        for d in folder_paths.get_folder_paths(folder):
            name = "models/" + os.path.basename(os.path.normpath(d))
            if name not in dirs:
                dirs.append(name)
        files = list(extra) + folder_paths.get_filename_list(folder)
        what = f"{shown(value)} is not a file in {' or '.join(dirs) or 'models/' + folder}"
        if not isinstance(value, str):
            what = f"{shown(value)} is not a file name (a file in {' or '.join(dirs) or 'models/' + folder})"
        return AccelError(input_name, what, "Put the file there and refresh the node list (press R), or pick "
                          "one of: " + listed(files), title=node)
    return rule


def combo_inputs(cls) -> tuple:
    """Names of the combo inputs (required and optional) of a V3 node class, from its schema."""
    return tuple(i.id for i in (cls.GET_SCHEMA().inputs or []) if isinstance(i, io.Combo.Input))


def combo_options(cls) -> dict:
    """{combo input name: its options now} of a V3 node class (file and backend lists are built when asked)."""
    return {i.id: list(i.options or []) for i in (cls.GET_SCHEMA().inputs or []) if isinstance(i, io.Combo.Input)}


def combo_error(cls, input_name: str, value, node: str | None = None, options: dict | None = None) -> AccelError | None:
    """The error for `value` of combo input `input_name` of node class `cls` (None: valid). `options`: the
    class's combo_options, when the caller checks several inputs."""
    opts = (options if options is not None else combo_options(cls)).get(input_name, [])
    rule = cls.COMBO_RULES.get(input_name, in_list)
    title = node or cls.DISPLAY or cls.__name__
    bad = rule(title, input_name, value, opts)
    return bad.with_title(title) if bad is not None else None


class _Refused(str):
    """What the on_prompt handler leaves for a literal value of a combo that is refused (a literal null cannot be
    told from a link in validate_inputs): validate_inputs returns its message."""

    def __new__(cls, value, message: str):
        obj = super().__new__(cls, str(value))
        obj.message = message
        return obj


# --- BOOLEAN inputs: true booleans only, or the common strings API clients send -------------------------
#
# ComfyUI's validation turns a literal BOOLEAN value into bool(value) before any node code sees it, so an
# API prompt's "false" arrives as True. The pack therefore parses its BOOLEAN inputs in two places, both set
# up once for every node class by `apply_input_checks` (nodes/__init__.py): a server on_prompt handler
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
    raise AccelError(input_name, f"{shown} is not a boolean", BOOLEAN_REMEDY, title=node)


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


class InputChecks:
    """The BOOLEAN parsing and the COMBO checks of one set of node classes (see the comments above)."""

    def __init__(self, mappings: dict, display_names: dict):
        self.mappings = mappings
        self.display = display_names
        self._names: dict = {}
        self._combos: dict = {}

    def names(self, key: str) -> tuple:
        """The BOOLEAN inputs of node `key`."""
        if key not in self._names:
            self._names[key] = boolean_inputs(self.mappings[key])
        return self._names[key]

    def combos(self, key: str) -> tuple:
        """The COMBO inputs of node `key`."""
        if key not in self._combos:
            self._combos[key] = combo_inputs(self.mappings[key])
        return self._combos[key]

    def combo_error(self, key: str, name: str, value, options: dict | None = None) -> AccelError | None:
        return combo_error(self.mappings[key], name, value, self.display.get(key, key), options)

    def options(self, key: str, values: dict) -> dict | None:
        """The combo options of node `key` when `values` holds one of its combo inputs (else None: not built)."""
        return combo_options(self.mappings[key]) if any(n in values for n in self.combos(key)) else None

    def on_prompt(self, json_data):
        """PromptServer on_prompt handler: parse our nodes' literal BOOLEAN values in an API prompt, and mark their
        refused literal COMBO values (validate_inputs reports them)."""
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
            options = None
            for name in self.combos(key):
                value = inputs.get(name)
                if name not in inputs or isinstance(value, list):
                    continue
                if isinstance(value, dict) and "__value__" in value:
                    value = value["__value__"]
                try:
                    options = options if options is not None else combo_options(self.mappings[key])
                    bad = self.combo_error(key, name, value, options)
                except Exception:  # noqa: BLE001 - never break POST /prompt; validate_inputs checks again
                    bad = None
                if bad is not None:
                    inputs[name] = _Refused(value, str(bad))
        return json_data

    def wrap(self, key: str) -> None:
        """Check the BOOLEAN and COMBO keyword arguments of node class `key`'s `execute` before it runs, and give
        the class a validate_inputs that checks its COMBO values before the prompt runs."""
        self.wrap_validate(key)
        cls = self.mappings[key]
        # the node's own execute, or the one of a shared base class (TeaCache / MagCache): wrapped on this class
        raw = next((k.__dict__["execute"] for k in cls.__mro__ if "execute" in k.__dict__), None)
        if not isinstance(raw, classmethod) or raw is io.ComfyNode.__dict__.get("execute"):
            return
        if getattr(raw.__func__, "_accel_booleans", False):
            if "execute" in cls.__dict__:
                return
            raw = classmethod(raw.__func__.__wrapped__)  # a wrapped base class's: wrap its function again here
        fn, checks, node = raw.__func__, self, self.display.get(key, key)

        def parsed(kwargs):
            for name in checks.names(key):
                if name in kwargs:
                    kwargs[name] = parse_bool(kwargs[name], node, name)
            options = checks.options(key, kwargs)
            for name in checks.combos(key):
                if name in kwargs:
                    bad = checks.combo_error(key, name, kwargs[name], options)
                    if bad is not None:
                        raise bad
            return kwargs

        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def run(cls, *args, **kwargs):
                with titled(node):
                    try:
                        return await fn(cls, *args, **parsed(kwargs))
                    except AccelError as e:
                        raise e.with_title(node)
        else:
            @functools.wraps(fn)
            def run(cls, *args, **kwargs):
                with titled(node):
                    try:
                        return fn(cls, *args, **parsed(kwargs))
                    except AccelError as e:
                        raise e.with_title(node)

        run._accel_booleans = True
        cls.execute = classmethod(run)

    def wrap_validate(self, key: str) -> None:
        """validate_inputs of node class `key`: its COMBO values first, then the node's own validate_inputs. Its
        signature names every combo input (ComfyUI passes a validate_inputs only the inputs it names, and skips
        its own list check for them: 0.33 then behaves as 0.3.75 does)."""
        cls = self.mappings[key]
        combos = self.combos(key)
        current = cls.__dict__.get("validate_inputs")
        if not combos or getattr(getattr(current, "__func__", None), "_accel_combos", False):
            return
        own = getattr(cls, "validate_inputs", None)
        own_fn = getattr(own, "__func__", None)
        if own_fn is getattr(getattr(io.ComfyNode, "validate_inputs", None), "__func__", object()):
            own_fn = None  # the placeholder: the node has none of its own
        own_params = list(inspect.signature(own_fn).parameters.values())[1:] if own_fn else []
        own_kwargs = any(p.kind is p.VAR_KEYWORD for p in own_params)
        own_names = [p.name for p in own_params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        checks = self

        def validate(cls, **kwargs):
            options = None
            for name in combos:
                if name not in kwargs:
                    continue
                value = kwargs[name]
                if isinstance(value, _Refused):
                    return value.message
                if value is None:  # a link (or a literal null that did not pass the on_prompt handler): at run
                    continue
                options = options if options is not None else combo_options(checks.mappings[key])
                bad = checks.combo_error(key, name, value, options)
                if bad is not None:
                    return str(bad)
            if own_fn is None:
                return True
            return own_fn(cls, **(kwargs if own_kwargs else {k: v for k, v in kwargs.items() if k in own_names}))

        names = list(dict.fromkeys(own_names + list(combos)))
        params = [inspect.Parameter("cls", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        params += [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None) for n in names]
        if own_kwargs:
            params.append(inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD))
        validate.__signature__ = inspect.Signature(params)
        validate.__name__ = validate.__qualname__ = "validate_inputs"
        validate._accel_combos = True
        cls.validate_inputs = classmethod(validate)

    def register(self, server) -> bool:
        """Add `on_prompt` to a running PromptServer (once). False when there is none (headless use)."""
        handlers = getattr(server, "on_prompt_handlers", None)
        if server is None or handlers is None:
            return False
        if not any(getattr(h, "__self__", None) is self for h in handlers):
            server.add_on_prompt_handler(self.on_prompt)
        return True


def apply_input_checks(mappings: dict, display_names: dict) -> InputChecks:
    """Set up BOOLEAN parsing and COMBO checks for every node class in `mappings`: wrap each `execute` and
    `validate_inputs`, and register the on_prompt handler with ComfyUI's PromptServer when one is running (it is
    created before custom nodes are loaded)."""
    checks = InputChecks(mappings, display_names)
    for key in mappings:
        checks.wrap(key)
    srv = sys.modules.get("server")
    checks.register(getattr(getattr(srv, "PromptServer", None), "instance", None))
    return checks
