"""The report after the run: what actually ran, shown where the user looks.

A node's report is written when the node executes, before anything samples; compile and some kernel choices
are only settled on the first sampling step. So a node that patches a MODEL attaches a `LiveReport`: an
OUTER_SAMPLE wrapper on the patched clone that, when a sampling run ends (or fails), reads what ran
(`accel.compile.compile_status`: compiled blocks, graphs, recompiles, or the fallback to eager and its reason)
and, where that changed the text,
- sends the node's `executed` message again with the new text (the frontend redraws the report under the
  node: web/accel_report.js), and
- updates the node's `accel_report` output entry, a dict the executor keeps by reference in the prompt's
  history: API clients read `outputs[<node id>]["accel_report"][0]["text"]` in `/history/<prompt_id>`.
The `text` entry of the history keeps the report as the node wrote it (ComfyUI copies strings).
The first line of the updated text says what the run found; a fallback to eager is never silent.
"""
from __future__ import annotations

import threading

from . import keys, log

PLACEHOLDER = "  status: compiles on the first sampling step (lazy)"


def ui_payload(state: dict) -> dict:
    """The node's `ui`: the report text (drawn under the node) and the live entry (history)."""
    return {"text": [state["text"]], "accel_report": [state]}


def attach(model, text: str, node_title: str):
    """Put the after-run wrapper on `model` (the node's patched clone) and return the node's `ui` payload.
    Without a ComfyUI prompt running (scripts, tests calling the function), only the payload."""
    state = {"text": text, "node": node_title, "runs": 0, "after_run": ""}
    ctx = _executing_context()
    live = LiveReport(state, text, None if ctx is None else ctx.node_id)
    try:
        import comfy.patcher_extension as pe

        key = f"{keys.REPORT}.{live.node_id}"  # one per node: a chain of pack nodes keeps every node's report live
        model.remove_wrappers_with_key(pe.WrappersMP.OUTER_SAMPLE, key)
        model.add_wrapper_with_key(pe.WrappersMP.OUTER_SAMPLE, key, live)
    except Exception as e:  # noqa: BLE001 - a MODEL-like object without wrappers: the report stays as written
        log.info_once(("live_report", type(model).__name__), "report: cannot follow runs of %s (%s)", type(model).__name__, e)
    return ui_payload(state)


def run_lines(patcher) -> list[str]:
    """What the last sampling run of `patcher` ran, as report lines (empty when nothing is to be said)."""
    from ..compile import compile_status

    lines = []
    try:
        st = compile_status(patcher)
    except Exception:  # noqa: BLE001
        st = {"enabled": False}
    if st.get("enabled"):
        if st["fell_back"]:
            lines.append(f"compile: FELL BACK TO EAGER after {st['calls']} call(s): {st['reason']}")
        elif st["calls"]:
            text = (f"compile: ran compiled ({st['mode']}), {st['regions']} region(s), {st['graphs']} graph(s), "
                    f"{st['compile_seconds']:.1f} s compiling, {st['recompiles']} recompile(s)")
            if st["recompile_limit_hit"]:
                text += "; RECOMPILE LIMIT HIT: new shapes run eager"
            if st.get("frames_at_recompile_limit"):
                text += (f"; PARTLY EAGER: {st['frames_at_recompile_limit']} piece(s) of the blocks reached dynamo's "
                         f"recompile limit (last guard that failed: {st.get('limit_reason') or 'not recorded'})")
            lines.append(text)
            if st.get("graph_breaks"):
                lines.append(f"  {st['graph_breaks']} graph break(s) inside the blocks (the code between the graphs runs "
                             f"eager; latest: {st.get('break_reason') or 'reason not recorded'})")
            plans = st.get("quantized_plans") or {}
            if plans:
                from ..compile.quantized import describe

                lines.append("  " + describe(plans))
            from ..compile.report import graph_lines

            lines += ["  " + g for g in graph_lines(st)]
        if st.get("cache_note"):
            lines.append("  " + st["cache_note"])
        for mode, why in st.get("failures", [])[:3]:
            if not st["fell_back"] or why not in st["reason"]:
                lines.append(f"  failed with mode {mode}: {why}")
    lines += _hybrid_lines(patcher)
    lines += _fp8_lora_lines(patcher)
    return lines


def _fp8_lora_lines(patcher) -> list[str]:
    """A model from the pack's FP8 loader with a LoRA applied per call: which path its layers took (accel.fp8.ops),
    counted over the model's life (compiled blocks count the layers their fetcher prepared)."""
    try:
        from ..fp8.ops import is_accel_linear

        rt = next((m.accel_fp8_runtime for m in patcher.model.diffusion_model.modules() if is_accel_linear(m)), None)
    except Exception:  # noqa: BLE001
        return []
    if rt is None:
        return []
    low, dense = rt.calls.get("lora_lowrank", 0), rt.calls.get("lora_dense", 0)
    if not (low or dense):
        return []
    why = f" ({'; '.join(sorted(rt.lora_dense_why))})" if dense and rt.lora_dense_why else ""
    out = [f"FP8 LoRA: {low} layer call(s) added the LoRA beside the FP8 weights (low-rank), {dense} patched the "
           f"whole weight per call (dense){why}"]
    if rt.lora_unpinned:
        out.append(f"FP8 LoRA: the factors could not be kept in pinned memory ({rt.lora_unpinned}): copied to the GPU "
                   "with a wait per layer at each model load (same result, slower)")
    return out


def _hybrid_lines(patcher) -> list[str]:
    """Quantized attention with the hybrid schedule: how many model calls ran it, and a plain warning when none
    did (a 4-step run split 2 + 2 over two experts keeps every step exact under the default schedule). For the
    radial_sparse schedule: its sparse / dense call counts, sparsity and kept mass per shape."""
    import comfy.patcher_extension as pe

    try:
        ws = patcher.get_wrappers(pe.WrappersMP.APPLY_MODEL, keys.ATTENTION)
    except Exception:  # noqa: BLE001
        return []
    report = getattr(ws[-1], "report_lines", None) if ws else None
    if report is not None:  # radial_sparse's schedule (accel/attention/sparse.py): its own measurements
        return list(report())
    calls = getattr(ws[-1], "calls", None) if ws else None
    if not calls or not (calls["exact"] + calls["quantized"]):
        return []
    line = (f"quantized attention: {calls['quantized']} of {calls['exact'] + calls['quantized']} model calls so far "
            f"({calls['exact']} exact by the hybrid schedule)")
    if not calls["quantized"]:
        line += ("; NONE ran quantized: every step of these runs is one of the exact first/last steps (lower "
                 "exact_first_steps / exact_last_steps on Accel Attention for few-step runs)")
    return [line]


class LiveReport:
    """OUTER_SAMPLE wrapper; shared by the clones of the node's model (never deep-copied)."""

    def __init__(self, state: dict, text: str, node_id):
        self.state, self.text, self.node_id = state, text, node_id
        self._lock = threading.Lock()

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    def __call__(self, executor, *args, **kwargs):
        try:
            return executor(*args, **kwargs)
        finally:
            try:
                self.update(executor.class_obj.model_patcher)
            except Exception as e:  # noqa: BLE001 - the report must never break a run
                log.info_once(("live_report", "update", type(e).__name__), "report: could not update (%s: %s)",
                              type(e).__name__, e)

    def update(self, patcher):
        lines = run_lines(patcher)
        with self._lock:
            self.state["runs"] += 1
            after = "\n".join(lines)
            if not lines or after == self.state["after_run"]:
                return
            self.state["after_run"] = after
            body = self.text.replace(PLACEHOLDER + "\n", "").replace("\n" + PLACEHOLDER, "")
            self.state["text"] = f"after the last run: {lines[0]}\n" + "".join(f"{ln}\n" for ln in lines[1:]) + body
        self._send()

    def _send(self):
        if self.node_id is None:
            return
        try:
            from server import PromptServer

            server = PromptServer.instance
        except Exception:  # noqa: BLE001 - no server (scripts, tests without one)
            return
        ctx = _executing_context()
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
