"""The checks of the nodes' inputs: BOOLEAN values parsed, COMBO values checked against their choices, wherever
ComfyUI itself does not.

What ComfyUI's validation (`execution.validate_inputs`, 0.3.75 and 0.33) does with a literal value of a V3 node's
input, and what is left to the pack:
- INT / FLOAT: `int()` / `float()`, then the input's min and max: nothing left to check.
- BOOLEAN: `bool(value)`, so an API prompt's "false" arrives as True: the pack parses the value first (the server's
  on_prompt handler, before validation), and refuses what is not a boolean (`parse_bool`).
- COMBO: 0.3.75 checks the values of V1 list inputs only, so a V3 combo's "aot_eager", 123 or null reached the node;
  0.33 checks V3 combos too (`comfy_compat.checks_v3_combo_values`). The pack checks, in `validate_inputs`, every
  combo where ComfyUI does not, and on every version the combos whose valid values are not exactly the listed options
  (COMBO_RULES: legacy words, model files added while ComfyUI runs, a check of its own); ComfyUI then leaves those to
  the node (it passes a validate_inputs the inputs it names and skips its own check of them).
- Values linked from other nodes and direct calls are checked by no validation: `checked` (the decorator of every
  node's `execute`) parses and checks them when the node runs, before any work, and titles the node's AccelErrors.

A node lists in COMBO_RULES the inputs whose valid values differ from the options shown: `also_valid` (words older
versions offered), `files_in` (a models/<folder> file list), or a function (node, input name, value, options) ->
AccelError or None.
"""
from __future__ import annotations

import functools
import inspect

from comfy_api.latest import io

from ..accel import comfy_compat
from ..accel.common.errors import AccelError, titled

# --- COMBO inputs -----------------------------------------------------------------------------------------------

def shown(value) -> str:
    text = "null (no value)" if value is None else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def listed(options, most: int = 20) -> str:
    options = [str(o) for o in options]
    if len(options) <= most:
        return ", ".join(options) if options else "(none)"
    return ", ".join(options[:most]) + f", ... ({len(options)} in all)"


def not_a_choice(node: str, input_name: str, value, options) -> AccelError:
    return AccelError(input_name, f"{shown(value)} is not one of its choices", "Pick one of: " + listed(options),
                      title=node)


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


def combo_options(cls) -> dict:
    """{combo input name: its options now} of a V3 node class (file and backend lists are built when asked)."""
    return {i.id: list(i.options or []) for i in (origin(cls).GET_SCHEMA().inputs or [])
            if isinstance(i, io.Combo.Input)}


def combo_error(cls, input_name: str, value, options: dict | None = None) -> AccelError | None:
    """The error for `value` of combo input `input_name` of node class `cls` (None: valid). `options`: the
    class's combo_options, when the caller checks several inputs."""
    opts = (options if options is not None else combo_options(cls)).get(input_name, [])
    rule = cls.COMBO_RULES.get(input_name, in_list)
    bad = rule(cls.DISPLAY, input_name, value, opts)
    return bad.with_title(cls.DISPLAY) if bad is not None else None


# --- BOOLEAN inputs -----------------------------------------------------------------------------------------------

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
    text = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    raise AccelError(input_name, f"{text} is not a boolean", BOOLEAN_REMEDY, title=node)


# --- what each node class has (read from its schema once) ---------------------------------------------------------

def schema_key(cls):
    """The node class's own define_schema: the same for the class and for the clones ComfyUI makes of it per run
    (comfy_api's shallow_clone_class copies the class's dict), so what is read from the schema is read once."""
    return next(k.__dict__["define_schema"] for k in cls.__mro__ if "define_schema" in k.__dict__)


def origin(cls):
    """The node class itself for one of ComfyUI's per-run clones of it (those are locked: reading their schema
    through GET_SCHEMA would set class attributes)."""
    key = schema_key(cls)
    return [k for k in cls.__mro__ if k.__dict__.get("define_schema") is key][-1]


_INPUTS: dict = {}


def inputs_of(cls) -> tuple:
    """(BOOLEAN input names, COMBO input names, the COMBO inputs the pack validates) of a node class."""
    key = schema_key(cls)
    if key not in _INPUTS:
        inputs = origin(cls).GET_SCHEMA().inputs or []
        booleans = tuple(i.id for i in inputs if isinstance(i, io.Boolean.Input))
        combos = tuple(i.id for i in inputs if isinstance(i, io.Combo.Input))
        validated = tuple(c for c in combos if c in cls.COMBO_RULES or not comfy_compat.checks_v3_combo_values())
        _INPUTS[key] = (booleans, combos, validated)
    return _INPUTS[key]


# --- the checks' three places: the server's on_prompt handler, validate_inputs, execute ------------------------

class _NotABoolean(str):
    """What the on_prompt handler leaves for an unparseable BOOLEAN value: ComfyUI's validation calls bool() on it,
    which raises our message, so the prompt is refused with an error naming the input."""

    def __new__(cls, value, message: str):
        obj = super().__new__(cls, str(value))
        obj.message = message
        return obj

    def __bool__(self):
        raise ValueError(self.message)


class _Refused(str):
    """What the on_prompt handler leaves for a refused literal value of a combo the pack validates (a literal null
    cannot be told from a link in validate_inputs): validate_inputs returns its message."""

    def __new__(cls, value, message: str):
        obj = super().__new__(cls, str(value))
        obj.message = message
        return obj


class InputChecks:
    """The on_prompt handler of one set of node classes (node id -> class): parses their literal BOOLEAN values in an
    API prompt before ComfyUI's validation, and marks their refused literal COMBO values for validate_inputs."""

    def __init__(self, mappings: dict):
        self.mappings = mappings

    def on_prompt(self, json_data):
        prompt = json_data.get("prompt") if isinstance(json_data, dict) else None
        if not isinstance(prompt, dict):
            return json_data
        for node in prompt.values():
            key = node.get("class_type") if isinstance(node, dict) else None
            inputs = node.get("inputs") if isinstance(node, dict) else None
            if not isinstance(key, str) or key not in self.mappings or not isinstance(inputs, dict):
                continue
            cls = self.mappings[key]
            booleans, _, validated = inputs_of(cls)
            for name in booleans:
                value = _literal(inputs, name)
                if value is not _LINK:
                    try:
                        inputs[name] = parse_bool(value, cls.DISPLAY, name)
                    except AccelError as e:
                        inputs[name] = _NotABoolean(value, str(e))
            options = None
            for name in validated:
                value = _literal(inputs, name)
                if value is _LINK:
                    continue
                try:
                    options = options if options is not None else combo_options(cls)
                    bad = combo_error(cls, name, value, options)
                except Exception:  # noqa: BLE001 - never break POST /prompt; validate_inputs checks again
                    bad = None
                if bad is not None:
                    inputs[name] = _Refused(value, str(bad))
        return json_data

    def register(self, server) -> bool:
        """Add `on_prompt` to a running PromptServer (once). False when there is none (headless use)."""
        handlers = getattr(server, "on_prompt_handlers", None)
        if server is None or handlers is None:
            return False
        if not any(getattr(h, "__self__", None) is self for h in handlers):
            server.add_on_prompt_handler(self.on_prompt)
        return True


_LINK = object()


def _literal(inputs: dict, name: str):
    """An input's literal value in an API prompt, or _LINK (absent, or a link: checked when the node runs)."""
    value = inputs.get(name, _LINK)
    if isinstance(value, list):
        return _LINK
    if isinstance(value, dict) and "__value__" in value:
        return value["__value__"]
    return value


class ValidateInputs:
    """AccelNode's `validate_inputs`: per node class, a classmethod whose parameters name the combo inputs the pack
    validates (see the module docstring) and that returns the first one's error, or True. A node without such combos
    names none (ComfyUI checks its inputs as usual)."""

    def __init__(self):
        self._made: dict = {}
        self.base = None

    def __set_name__(self, owner, name):
        self.base = owner

    def __get__(self, obj, owner):
        if owner is self.base:
            return classmethod(_no_checks).__get__(obj, owner)
        key = schema_key(owner)
        if key not in self._made:
            self._made[key] = _validate_function(inputs_of(owner)[2])
        return classmethod(self._made[key]).__get__(obj, owner)


def _no_checks(cls, **kwargs):
    return True


def _validate_function(names: tuple):
    def validate_inputs(cls, **kwargs):
        options = None
        for name in names:
            value = kwargs.get(name)
            if isinstance(value, _Refused):
                return value.message
            if value is None:  # a link (or a literal null that did not pass the on_prompt handler): at run
                continue
            options = options if options is not None else combo_options(cls)
            bad = combo_error(cls, name, value, options)
            if bad is not None:
                return str(bad)
        return True

    params = [inspect.Parameter("cls", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    params += [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None) for n in names]
    validate_inputs.__signature__ = inspect.Signature(params)
    return validate_inputs


def checked(execute):
    """The decorator of every node's `execute` (under @classmethod): its BOOLEAN values parsed and its COMBO values
    checked before it runs (values linked from other nodes and direct calls pass no validation), and its AccelErrors
    titled with the node's display name."""
    def parsed(cls, kwargs):
        booleans, combos, _ = inputs_of(cls)
        for name in booleans:
            if name in kwargs:
                kwargs[name] = parse_bool(kwargs[name], cls.DISPLAY, name)
        options = combo_options(cls) if any(n in kwargs for n in combos) else None
        for name in combos:
            if name in kwargs:
                bad = combo_error(cls, name, kwargs[name], options)
                if bad is not None:
                    raise bad
        return kwargs

    if inspect.iscoroutinefunction(execute):
        @functools.wraps(execute)
        async def run(cls, *args, **kwargs):
            with titled(cls.DISPLAY):
                try:
                    return await execute(cls, *args, **parsed(cls, kwargs))
                except AccelError as e:
                    e.with_title(cls.DISPLAY)
                    raise
    else:
        @functools.wraps(execute)
        def run(cls, *args, **kwargs):
            with titled(cls.DISPLAY):
                try:
                    return execute(cls, *args, **parsed(cls, kwargs))
                except AccelError as e:
                    e.with_title(cls.DISPLAY)
                    raise
    run.accel_checked = True
    return run
