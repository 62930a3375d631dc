"""A stable signature of what transformer_options changes inside the compiled code (attention override, block
patches): each signature gets its own runner, so a changed backend never runs stale code."""
from __future__ import annotations

import functools
import types

import torch

_SIG_MEMO: dict = {}
_SIMPLE = (str, int, float, bool, type(None))


def options_signature(to: dict, scope: str) -> str:
    """A stable text for the attention override and model patches in transformer_options. Stable across
    deep copies and node re-execution (qualnames and simple values, never ids), different when the
    kernel or patch set differs."""
    parts = []
    ov = to.get("optimized_attention_override")
    parts.append("attn=" + (_describe_memo(ov) if ov is not None else "-"))
    patches = to.get("patches")
    if patches:
        parts.append("patches=" + ",".join(f"{k}:{_describe_list(v)}" for k, v in sorted(patches.items()) if v))
    pr = to.get("patches_replace")
    if pr:
        items = []
        for name, d in sorted(pr.items()):
            if scope == "blocks" and name == "dit":
                continue  # block replacements run outside the compiled blocks
            if d:
                items.append(f"{name}:" + ",".join(f"{k}={_describe_memo(v)}"
                                                   for k, v in sorted(d.items(), key=lambda kv: repr(kv[0]))))
        if items:
            parts.append("replace=" + ";".join(items))
    return "|".join(parts)


def _describe_list(v):
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_describe_memo(x) for x in v) + "]"
    return _describe_memo(v)


def describe(obj) -> str:
    """A stable text of one object (qualified names and simple values, never ids): what `options_signature` writes for
    each entry, memoised per object."""
    return _describe_memo(obj)


def _describe_memo(obj) -> str:
    key = id(obj)
    hit = _SIG_MEMO.get(key)
    if hit is not None and hit[0] is obj:
        return hit[1]
    text = _describe(obj, 0)
    if len(_SIG_MEMO) > 256:
        _SIG_MEMO.clear()
    _SIG_MEMO[key] = (obj, text)  # holds obj so its id cannot be reused while memoised
    return text


def _describe(obj, depth) -> str:
    """Qualified names and simple values only: never ids (deep copies and re-executed nodes must map to
    the same text) and never the contents of mutable containers held by objects (caches, tuner memos:
    they change while the model runs)."""
    if isinstance(obj, _SIMPLE):
        return repr(obj)[:80]
    try:
        sig = getattr(obj, "accel_signature", None)
    except Exception:
        sig = None
    if isinstance(sig, str):
        return sig
    if isinstance(obj, (torch.dtype, torch.device)):
        return str(obj)
    if depth > 3:
        return type(obj).__qualname__
    if isinstance(obj, tuple) or (isinstance(obj, list) and depth == 0):
        return "(" + ",".join(_describe(x, depth + 1) for x in list(obj)[:8]) + ")"
    if isinstance(obj, (list, dict, set, frozenset)):
        if isinstance(obj, frozenset) and all(isinstance(x, _SIMPLE + (torch.dtype,)) for x in obj):
            return "{" + ",".join(sorted(str(x) for x in obj))[:120] + "}"
        return type(obj).__name__
    if isinstance(obj, functools.partial):
        args = ",".join(_describe(x, depth + 1) for x in obj.args[:8])
        kws = ",".join(f"{k}={_describe(v, depth + 1)}" for k, v in sorted(obj.keywords.items())[:8])
        return f"partial({_describe(obj.func, depth + 1)};{args};{kws})"
    if isinstance(obj, types.MethodType):
        return f"{_describe(obj.__func__, depth + 1)}@{_describe(obj.__self__, depth + 1)}"
    if isinstance(obj, types.FunctionType):
        text = f"{obj.__module__}.{obj.__qualname__}"
        if obj.__closure__:
            cells = []
            for c in obj.__closure__[:8]:
                try:
                    cells.append(_describe(c.cell_contents, depth + 1))
                except ValueError:  # empty cell
                    cells.append("?")
            text += "<" + ",".join(cells) + ">"
        return text
    if isinstance(obj, (type, types.BuiltinFunctionType, types.ModuleType)):
        return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', getattr(obj, '__name__', '?'))}"
    if isinstance(obj, torch.Tensor):
        return f"tensor{tuple(obj.shape)}{obj.dtype}"
    cls = type(obj)
    text = f"{cls.__module__}.{cls.__qualname__}"
    if isinstance(obj, torch.nn.Module):
        return text
    attrs = dict(getattr(obj, "__dict__", None) or {})
    for klass in cls.__mro__:
        for name in getattr(klass, "__slots__", ()) or ():
            if isinstance(name, str) and not name.startswith("__") and name not in attrs and hasattr(obj, name):
                attrs[name] = getattr(obj, name)
    vals = [f"{k}={_describe(v, depth + 1)}" for k, v in sorted(attrs.items()) if not k.startswith("_")][:16]
    if vals:
        text += "{" + ",".join(vals) + "}"
    return text
