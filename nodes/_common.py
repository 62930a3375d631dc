"""Shared bits for node classes: the V3 base class, the schema helper, input/output helpers, category names and the
failure-option vocabulary (the checks of the inputs: nodes/_inputs.py). Keep nodes thin: each writes its own
define_schema and an `execute` (decorated with `checked`) that calls into accel/."""
from __future__ import annotations

import dataclasses
import inspect

from comfy_api.latest import io, ui

from ..accel.common import report as accel_report
from ..accel.common import vocabulary
from ..accel.common.errors import AccelError
from ..accel.common.policy import Policy
from ._inputs import ValidateInputs, also_valid, schema_key

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
#         @checked
#         def execute(cls, model, ...): ...
#
# `define_schema` runs when ComfyUI asks for the node list, so file and backend lists are current. `checked` parses
# the node's BOOLEAN values and checks its COMBO values where no validation did (links, direct calls), and titles its
# errors; AccelNode's `validate_inputs` checks the COMBO values ComfyUI does not (nodes/_inputs.py). The longer
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
    """A class attribute read from the node's own define_schema (computed once per node class, shared by the clones
    ComfyUI makes of it per run): NODE_ID and DISPLAY stay one fact, written in the schema."""

    def __init__(self, field: str):
        self.field = field
        self.values: dict = {}

    def __get__(self, obj, owner):
        key = schema_key(owner)
        if key not in self.values:
            self.values[key] = getattr(owner.define_schema(), self.field)
        return self.values[key]


class AccelNode(io.ComfyNode):
    """Base of the pack's nodes (not registered itself). Each node writes its own define_schema and execute; the
    base adds NODE_ID / DISPLAY (the schema's node_id / display_name: errors and reports name the node by its
    display name), COMBO_RULES, validate_inputs (nodes/_inputs.py) and unique_id()."""

    NODE_ID = _FromSchema("node_id")
    DISPLAY = _FromSchema("display_name")
    # combo inputs whose valid values are not exactly the listed options: input name -> rule (nodes/_inputs.py)
    COMBO_RULES: dict = {}
    validate_inputs = ValidateInputs()

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


def with_report(*results, report) -> io.NodeOutput:
    """The node's outputs, with the report (text or a feature's Report, `rendered`) shown under the node in the
    frontend; a STRING output among `results` that is the report takes the rendered text too."""
    text = rendered(report)
    return io.NodeOutput(*(text if r is report else r for r in results), ui=ui.PreviewText(text))


def rendered(report) -> str:
    """The report's text: a feature's `Report` rendered here, once, at the node boundary (text as it is), with a
    first screen of at most six lines (accel.common.report.with_first_screen)."""
    return accel_report.with_first_screen(report if isinstance(report, str) else report.render())


def patched(result: tuple) -> io.NodeOutput:
    """Outputs of a node that returns (patched object, report): both, with the report shown under the node."""
    obj, report = result
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
