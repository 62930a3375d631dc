"""User-facing errors: every message names the input, the problem and what to do; the node boundary adds the
node's title.

The text shown in the ComfyUI error dialog is `[<node title>] input '<input>': <problem>. <remedy>.` accel/ code
never names a node: it raises `AccelError(input_name, problem, remedy)`. While a node's `execute` runs,
`nodes/_common` holds the node's title in `titled(...)`; an AccelError raised then takes it, and the execute
wrapper gives it to one that has none. Objects that act later, while the model samples (an attention override, a
compiled block, FP8 layers, cache reports, multi-GPU workers), capture `current_title()` when they are built and
pass it as `title=` to the errors they raise and name it in their report texts.
"""
from __future__ import annotations

import contextlib
import contextvars

_TITLE: contextvars.ContextVar = contextvars.ContextVar("accel_node_title", default=None)


def current_title() -> str | None:
    """The title of the node whose `execute` is running (None outside one: direct calls from scripts and tests)."""
    return _TITLE.get()


@contextlib.contextmanager
def titled(title: str | None):
    """Run the body with `title` as the current node title (errors and reports name it)."""
    token = _TITLE.set(title)
    try:
        yield
    finally:
        _TITLE.reset(token)


class AccelError(RuntimeError):
    """An error a ComfyUI user can act on: `[<title>] input '<input>': <problem>. <remedy>.`

    `title`: the node's title; by default the current one (`titled`), else none until the node boundary gives
    it (`with_title`)."""

    def __init__(self, input_name: str | None, problem: str, remedy: str = "", *, title: str | None = None):
        self.title = title if title is not None else current_title()
        self.input_name = input_name
        self.problem = problem
        self.remedy = remedy
        super().__init__(self._text())

    def _text(self) -> str:
        where = " ".join(filter(None, (f"[{self.title}]" if self.title else "",
                                       f"input '{self.input_name}':" if self.input_name else "")))
        text = f"{where} {self.problem.rstrip('.')}." if where else f"{self.problem.rstrip('.')}."
        if self.remedy:
            text += f" {self.remedy.rstrip('.')}."
        return text

    def with_title(self, title: str | None) -> "AccelError":
        """Give the error the node's title if it has none (the node boundary); returns self."""
        if self.title is None and title:
            self.title = title
            self.args = (self._text(),)
        return self

    @property
    def node(self) -> str | None:
        """The node's title (read-only alias kept for code that reads `e.node`)."""
        return self.title


def headline(text: str, title: str | None = None) -> str:
    """`<title>: <text>` for the first line of a report (`title`, else the current one); `text` alone outside a
    node."""
    title = title if title is not None else current_title()
    return f"{title}: {text}" if title else text
