"""Build API-format prompts in Python, composing nodes from what a server reports in /object_info.

    g = ApiGraph()
    unet = g.add("UNETLoader", unet_name="m.safetensors", weight_dtype="default")
    model = g.out(unet)                                 # [node_id, output_index]
    ids = g.add_from_info(info, "AccelAttention", {"model": model})   # widgets from the node's own defaults
    g.prompt()                                          # {"1": {"class_type": ..., "inputs": {...}}, ...}

`widget_inputs` fills a node's widgets from its /object_info spec: an explicit value, else "auto" when the
combo offers it, else the declared default, else the first option / the minimum. Inputs that need a link
(MODEL, LATENT, ...) must be given; a node whose required link input is not given cannot be composed.
"""
from __future__ import annotations

import copy

WIDGET_TYPES = ("INT", "FLOAT", "BOOLEAN", "STRING", "COMBO")


class Unsatisfiable(ValueError):
    """A node's required input cannot be filled (a link input not given, or no valid value)."""


def _spec_parts(spec):
    """(type, options-or-None, extra dict) of one /object_info input spec. A multi-type input (ComfyUI 0.33's
    io.MultiType: "FLOAT,INT" with a `widgetType`) is the widget it shows."""
    typ = spec[0]
    extra = spec[1] if len(spec) > 1 and isinstance(spec[1], dict) else {}
    if isinstance(typ, list):
        return "COMBO", list(typ), extra
    if typ == "COMBO":
        return "COMBO", list(extra.get("options", [])), extra
    if isinstance(typ, str) and "," in typ and extra.get("widgetType"):
        return extra["widgetType"], None, extra
    return typ, None, extra


def widget_value(spec, name: str):
    """The value a fresh node of this spec would get in the UI (preferring 'auto' for combos)."""
    typ, options, extra = _spec_parts(spec)
    if typ == "COMBO":
        if not options:
            raise Unsatisfiable(f"combo input '{name}' has no options")
        if "auto" in options:
            return "auto"
        d = extra.get("default")
        return d if d in options else options[0]
    if "default" in extra:
        return extra["default"]
    if typ == "INT":
        return int(extra.get("min", 0))
    if typ == "FLOAT":
        return float(extra.get("min", 0.0))
    if typ == "BOOLEAN":
        return False
    if typ == "STRING":
        return ""
    raise Unsatisfiable(f"input '{name}' of type {typ} needs a link")


def is_widget(spec) -> bool:
    typ, _, extra = _spec_parts(spec)
    return typ in WIDGET_TYPES and not extra.get("forceInput", False)


def widget_inputs(info_node: dict, given: dict | None = None) -> dict:
    """Inputs for one node: `given` values/links, the required rest from the spec's defaults.

    Raises Unsatisfiable when a required link input is missing or a given name is unknown.
    """
    given = dict(given or {})
    spec_in = info_node.get("input", {})
    req = spec_in.get("required", {}) or {}
    opt = spec_in.get("optional", {}) or {}
    order = (info_node.get("input_order") or {}).get("required") or list(req)
    out = {}
    for name in order:
        spec = req[name]
        if name in given:
            out[name] = given.pop(name)
        elif is_widget(spec):
            out[name] = widget_value(spec, name)
        else:
            raise Unsatisfiable(f"{info_node.get('name')}: required input '{name}' ({_spec_parts(spec)[0]}) "
                                "needs a link")
    for name in list(given):
        if name in opt:
            out[name] = given.pop(name)
    if given:
        raise Unsatisfiable(f"{info_node.get('name')}: unknown inputs {sorted(given)}")
    return out


def output_index(info_node: dict, typ: str) -> int | None:
    outs = info_node.get("output", []) or []
    for i, t in enumerate(outs):
        if t == typ:
            return i
    return None


def link_inputs(info_node: dict) -> dict[str, str]:
    """name -> type of every required input that is a link (not a widget)."""
    req = (info_node.get("input", {}) or {}).get("required", {}) or {}
    return {n: _spec_parts(s)[0] for n, s in req.items() if not is_widget(s)}


class ApiGraph:
    """A small API-format prompt builder with stable, sequential string ids."""

    def __init__(self):
        self.nodes: dict[str, dict] = {}
        self._next = 1

    def add(self, class_type: str, _title: str | None = None, **inputs) -> str:
        nid = str(self._next)
        self._next += 1
        node = {"class_type": class_type, "inputs": dict(inputs)}
        if _title:
            node["_meta"] = {"title": _title}
        self.nodes[nid] = node
        return nid

    @staticmethod
    def out(node_id: str, index: int = 0) -> list:
        return [node_id, index]

    def add_from_info(self, info: dict, class_type: str, links: dict | None = None, values: dict | None = None,
                      title: str | None = None) -> str:
        """Add `class_type` with widgets from its /object_info defaults; raises Unsatisfiable."""
        if class_type not in info:
            raise Unsatisfiable(f"{class_type} is not in /object_info")
        given = dict(values or {})
        given.update(links or {})
        return self.add(class_type, title, **widget_inputs(info[class_type], given))

    def prompt(self) -> dict:
        return copy.deepcopy(self.nodes)


def ancestors(prompt: dict, outputs) -> set[str]:
    """Ids of the given nodes and every node they depend on through links."""
    seen: set[str] = set()
    stack = [str(o) for o in outputs]
    while stack:
        nid = stack.pop()
        if nid in seen:
            continue
        seen.add(nid)
        for v in prompt[nid]["inputs"].values():
            if isinstance(v, list) and len(v) == 2 and isinstance(v[0], str):
                stack.append(v[0])
    return seen


def subgraph(prompt: dict, outputs) -> dict:
    """The part of `prompt` that `outputs` need (same ids, so ComfyUI's cache is shared between parts)."""
    keep = ancestors(prompt, outputs)
    return {k: copy.deepcopy(v) for k, v in prompt.items() if k in keep}


def structure(prompt: dict) -> list:
    """Node types and link structure of a prompt, without widget values (stable across default changes)."""
    rows = []
    for nid in sorted(prompt, key=lambda k: (len(k), k)):
        n = prompt[nid]
        links = sorted((k, v[0], v[1]) for k, v in n["inputs"].items()
                       if isinstance(v, list) and len(v) == 2 and isinstance(v[0], str))
        rows.append((nid, n["class_type"], links))
    return rows
