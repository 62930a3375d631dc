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
            text += f" ({torch.cuda.get_device_name(dev)}, {total / 2**30:.1f} GiB, {free / 2**30:.1f} GiB free after the error)"
        elif dev.type == "cpu":
            text += " (host memory, RAM)"
    except Exception:  # noqa: BLE001 - the error text must come out even if the device cannot be queried
        pass
    return text


def out_of_memory(err, node: str, during: str, device, remedies, note: str = ""):
    """The exception to raise for the out-of-memory error `err` (see oom_cause): an instance of torch's
    out-of-memory class where `err` is one (ComfyUI then unloads all models: the next prompt starts clean), else an
    AccelError. Its text: `[<node>] out of memory on <device> <during> (torch: <first line>). <note> Remedies: ...`."""
    cause = oom_cause(err) or err
    first = next((ln.strip() for ln in str(cause).splitlines() if ln.strip()), type(cause).__name__)
    problem = f"out of memory on {_device_text(device)} {during} ({type(cause).__name__}: {first[:400]})"
    remedy = (f"{note.rstrip('.')}. " if note else "") + "Remedies: " + "; ".join(r for r in remedies if r)
    import torch

    oom = getattr(torch, "OutOfMemoryError", None) or torch.cuda.OutOfMemoryError
    if isinstance(cause, oom):
        out = type(cause)(f"[{node}] {problem}. {remedy.rstrip('.')}. ComfyUI unloads all models after this error, "
                          "so the next prompt starts with free memory.")
        out.node, out.input_name, out.problem, out.remedy = node, None, problem, remedy
        return out
    return AccelError(node, None, problem, remedy)
