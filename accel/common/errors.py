"""User-facing errors: every message names the node, the input and what to do."""
from __future__ import annotations


class AccelError(RuntimeError):
    """An error a ComfyUI user can act on.

    The text shown in the ComfyUI error dialog is: `[<node>] <input>: <problem>. <remedy>`.
    """

    def __init__(self, node: str, input_name: str | None, problem: str, remedy: str = ""):
        self.node = node
        self.input_name = input_name
        self.problem = problem
        self.remedy = remedy
        where = f"[{node}]" + (f" input '{input_name}':" if input_name else "")
        text = f"{where} {problem.rstrip('.')}."
        if remedy:
            text += f" {remedy.rstrip('.')}."
        super().__init__(text)
