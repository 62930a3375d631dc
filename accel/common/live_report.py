"""The report after the run: what actually ran, shown where the user looks, under the prompt that ran it.

A node's report is written when the node executes, before anything samples; compile and some kernel choices
are only settled on the first sampling step. So a node that patches a MODEL attaches a `LiveReport`: an
OUTER_SAMPLE wrapper on the patched clone that, when a sampling run ends (or fails), asks every feature for its
lines about what ran (each feature registers its own with `register_after_run`: compile's compiled blocks, graphs,
recompiles or its fallback to eager and the reason; quantized attention's call counts; the FP8 loader's LoRA path)
and, where that changed the text,
- sends the node's `executed` message again with the new text (the frontend redraws the report under the
  node: web/accel_report.js), and
- updates the node's `accel_report` output entry, which API clients read in the prompt's history:
  `outputs[<node id>]["accel_report"][0]["text"]` in `/history/<prompt_id>`. The `text` entry keeps the report as
  the node wrote it.
The first line of the updated text says what the run found: a fallback to eager is never silent, and a run that
failed says FAILED with the error.

Each prompt's report is its own. A later prompt that reuses the node's cached output runs the model again but does
not execute the node (ComfyUI shows a cached node in no later prompt's history), and the entry ComfyUI keeps for the
node belongs to the prompt that executed it. So a run of another prompt starts a new entry for that prompt, and puts
it among the outputs of the prompt that is running (`comfy_compat.add_running_output`): each prompt's history shows
its own runs, its own lines and its own failure; an earlier prompt's entry is never written again.
"""
from __future__ import annotations

import threading

from . import keys, log
from .report import DETAILS, FIRST_SCREEN, join_details, split_details

PLACEHOLDER = "  status: compiles on the first sampling step (lazy)"
OUTPUT_KEY = "accel_report"  # the node's ui entry the history keeps (the `text` entry holds the node's own text)

_AFTER_RUN: dict = {}  # (module, name) -> (order, fn)


def register_after_run(fn, order: int) -> None:
    """Add a feature's lines to the report after a run: `fn(patcher) -> list[str]` ([] when it has nothing to
    say about that model). Features call this when their package is imported; `order` sorts them (the lowest
    order's first line heads the report). Registering the same function again replaces it."""
    _AFTER_RUN[(fn.__module__, fn.__qualname__)] = (order, fn)


def run_lines(patcher) -> list[str]:
    """What the sampling runs of `patcher` ran, as report lines (empty when nothing is to be said)."""
    lines = []
    for _, fn in sorted(_AFTER_RUN.values(), key=lambda item: item[0]):
        try:
            lines += fn(patcher)
        except Exception as e:  # noqa: BLE001 - the report must never break a run
            log.info_once(("live_report", fn.__qualname__, type(e).__name__), "report: %s failed (%s: %s)",
                          fn.__qualname__, type(e).__name__, e)
    return lines


def failure_line(error: BaseException) -> str:
    """The first line of the report after a run that raised `error`."""
    if type(error).__name__ == "InterruptProcessingException":
        return "INTERRUPTED: the run was stopped before it finished"
    msg = (str(error).strip().splitlines() or [""])[0]
    msg = msg if len(msg) <= 200 else msg[:197] + "..."
    return f"FAILED: {type(error).__name__}" + (f": {msg}" if msg else "")


def after_run_text(text: str, lines: list[str]) -> str:
    """The node's report `text` with what the run found: `lines[0]` on the first line, the other lines first among
    the details (the first screen keeps its size), the placeholder that promised them removed."""
    summary, details = split_details(text)
    summary = [ln for ln in summary.splitlines() if ln != PLACEHOLDER]
    details = [ln for ln in details.splitlines() if ln != PLACEHOLDER]
    keep = FIRST_SCREEN - 1  # a first screen written without a DETAILS line may be longer: the rest joins the details
    return join_details([f"after the last run: {lines[0]}", *summary[:keep]],
                        "\n".join([*lines[1:], *summary[keep:], *details]))


def ui_payload(state: dict) -> dict:
    """The node's `ui`: the report text (drawn under the node) and the live entry (history)."""
    return {"text": [state["text"]], OUTPUT_KEY: [state]}


def attach(model, text: str, node_title: str):
    """Put the after-run wrapper on `model` (the node's patched clone) and return the node's `ui` payload.
    Without a ComfyUI prompt running (scripts, tests calling the function), only the payload."""
    ctx = _executing_context()
    live = LiveReport(text, node_title, None if ctx is None else ctx.node_id, None if ctx is None else ctx.prompt_id)
    try:
        import comfy.patcher_extension as pe

        key = f"{keys.REPORT}.{live.node_id}"  # one per node: a chain of pack nodes keeps every node's report live
        model.remove_wrappers_with_key(pe.WrappersMP.OUTER_SAMPLE, key)
        model.add_wrapper_with_key(pe.WrappersMP.OUTER_SAMPLE, key, live)
    except Exception as e:  # noqa: BLE001 - a MODEL-like object without wrappers: the report stays as written
        log.info_once(("live_report", type(model).__name__), "report: cannot follow runs of %s (%s)",
                      type(model).__name__, e)
    return ui_payload(live.state)


class LiveReport:
    """OUTER_SAMPLE wrapper; shared by the clones of the node's model (never deep-copied). `state` is the entry of the
    prompt `prompt_id` (the last one that ran the model); each prompt gets its own."""

    def __init__(self, text: str, title: str, node_id, prompt_id):
        self.text, self.title, self.node_id, self.prompt_id = text, title, node_id, prompt_id
        self.state = self._fresh()
        self._lock = threading.Lock()

    def _fresh(self) -> dict:
        return {"text": self.text, "node": self.title, "runs": 0, "after_run": "", "failed": False}

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    def __call__(self, executor, *args, **kwargs):
        error = None
        try:
            return executor(*args, **kwargs)
        except BaseException as e:
            error = e
            raise
        finally:
            try:
                self.update(executor.class_obj.model_patcher, error)
            except Exception as e:  # noqa: BLE001 - the report must never break a run
                log.info_once(("live_report", "update", type(e).__name__), "report: could not update (%s: %s)",
                              type(e).__name__, e)

    def update(self, patcher, error: BaseException | None = None):
        lines = run_lines(patcher)
        if error is not None:
            lines = [failure_line(error), *lines]
        ctx = _executing_context()
        with self._lock:
            self._follow(None if ctx is None else ctx.prompt_id)
            state = self.state
            state["runs"] += 1
            state["failed"] = error is not None
            after = "\n".join(lines)
            if not lines or after == state["after_run"]:
                return
            state["after_run"] = after
            state["text"] = after_run_text(self.text, lines)
        self._send(ctx)

    def _follow(self, prompt_id) -> None:
        """A run of another prompt than the entry's (the node's output was cached): a new entry for that prompt, among
        its outputs (the earlier prompt keeps its own)."""
        if prompt_id is None or prompt_id == self.prompt_id:
            return
        self.prompt_id, self.state = prompt_id, self._fresh()
        if self.node_id is not None:
            from .. import comfy_compat

            comfy_compat.add_running_output(self.node_id, ui_payload(self.state))

    def _send(self, ctx):
        if self.node_id is None:
            return
        try:
            from server import PromptServer

            server = PromptServer.instance
        except Exception:  # noqa: BLE001 - no server (scripts, tests without one)
            return
        if getattr(server, "client_id", None) is None:
            return
        server.send_sync("executed", {"node": self.node_id, "display_node": self.node_id,
                                      "output": ui_payload(self.state),
                                      "prompt_id": None if ctx is None else ctx.prompt_id}, server.client_id)


def _executing_context():
    try:
        from comfy_execution.utils import get_executing_context
    except Exception:  # noqa: BLE001 - a ComfyUI without it
        return None
    return get_executing_context()


__all__ = ["DETAILS", "PLACEHOLDER", "LiveReport", "after_run_text", "attach", "failure_line", "register_after_run",
           "run_lines", "ui_payload"]
