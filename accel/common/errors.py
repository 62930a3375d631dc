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

    def with_title(self, title: str | None) -> AccelError:
        """Give the error the node's title if it has none (the node boundary); returns self."""
        if self.title is None and title:
            self.title = title
            self.args = (self._text(),)
        return self

    @property
    def node(self) -> str | None:
        """The node's title (read-only alias kept for code that reads `e.node`)."""
        return self.title


def quoted(value, limit: int = 60) -> str:
    """`value` as a message quotes it: in single quotes (its repr where it holds control characters), a value longer
    than about `limit` characters cut there with its length given, so that an input of any size fits in one line."""
    raw = str(value)
    text = repr(raw) if any(ord(c) < 32 for c in raw) else f"'{raw}'"
    return text if len(text) <= limit + 20 else f"{text[:limit]}...' ({len(raw)} characters)"


# --- out of memory ----------------------------------------------------------------------------------------------------
# ComfyUI's executor recognizes an out-of-memory error by its class (torch's OutOfMemoryError), then unloads every
# loaded model so that the next prompt starts with free memory. An error the pack raises for out of memory therefore
# keeps that class and only says more: what ran out, where, during what, and the remedies.

def oom_cause(err):
    """The out-of-memory error `err` is or wraps (dynamo's BackendCompilerFailed keeps it in `inner_exception`,
    `raise ... from` in `__cause__`), else None: torch's OutOfMemoryError (CUDA, ROCm, XPU), MemoryError, or a
    RuntimeError of an allocator that ran out (the CPU's "can't allocate memory", MPS)."""
    import torch

    oom = getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError
    seen = set()
    e = err
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, (oom, MemoryError)):
            return e
        if isinstance(e, RuntimeError) and any(s in str(e).lower() for s in ("out of memory", "can't allocate memory")):
            return e
        e = getattr(e, "inner_exception", None) or e.__cause__
    return None


def _device_text(device) -> str:
    if device is None:
        return "an unknown device"
    text = str(device)
    try:
        import torch

        dev = torch.device(device)
        if dev.type == "cuda" and torch.cuda.is_available():
            free, total = torch.cuda.mem_get_info(dev)
            text += (f" ({torch.cuda.get_device_name(dev)}, {total / 2**30:.1f} GiB, {free / 2**30:.1f} GiB free after "
                     "the error)")
        elif dev.type == "cpu":
            text += " (host memory, RAM)"
    except Exception:  # noqa: BLE001 - the error text must come out even if the device cannot be queried
        pass
    return text


def out_of_memory(err, during: str, device, remedies, note: str = "", *, title: str | None = None):
    """The exception to raise for the out-of-memory error `err` (see oom_cause): an instance of torch's
    out-of-memory class where `err` is one (ComfyUI then unloads all models: the next prompt starts clean), else an
    AccelError. Its text: `[<title>] out of memory on <device> <during> (torch: <first line>). <note> Remedies: ...`.
    `title`: the node's (default: the current one; a torch error is not titled later by the node boundary)."""
    title = title if title is not None else current_title()
    cause = oom_cause(err) or err
    first = next((ln.strip() for ln in str(cause).splitlines() if ln.strip()), type(cause).__name__)
    problem = f"out of memory on {_device_text(device)} {during} ({type(cause).__name__}: {first[:400]})"
    remedy = (f"{note.rstrip('.')}. " if note else "") + "Remedies: " + "; ".join(r for r in remedies if r)
    import torch

    oom = getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError
    if isinstance(cause, oom):
        head = f"[{title}] " if title else ""
        out = type(cause)(f"{head}{problem}. {remedy.rstrip('.')}. ComfyUI unloads all models after this error, "
                          "so the next prompt starts with free memory.")
        out.title, out.input_name, out.problem, out.remedy = title, None, problem, remedy
        return out
    return AccelError(None, problem, remedy, title=title)


def headline(text: str, title: str | None = None) -> str:
    """`<title>: <text>` for the first line of a report (`title`, else the current one); `text` alone outside a
    node."""
    title = title if title is not None else current_title()
    return f"{title}: {text}" if title else text
