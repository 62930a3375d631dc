"""UI-format workflows (what the ComfyUI frontend saves) next to API-format prompts (what "Save (API)" saves).

    info = local_object_info()                 # /object_info of the in-process ComfyUI (or srv.object_info())
    prompt = ui_to_api(ui_workflow, info)      # the API prompt the frontend would queue for this file
    twin = fill_new_inputs(api_twin, ui_workflow, info, notes)  # + inputs this ComfyUI added, at defaults
    full_inputs(info, "KSampler", seed=42, model=[...], ...)   # every widget, as a fresh node in the UI has it
    layout(ui, columns)                        # positions + groups, left to right, nothing overlapping
    problems = geometry_problems(ui)           # overlapping nodes/groups, links that run right-to-left

`ui_to_api` follows the frontend's own rules (frontends 1.32 and 1.49, graphToPrompt): widgets_values holds one
value per widget in widget order (`widget_layout`: inputs in declared order, required then optional), an INT
`seed`/`noise_seed` (or one declared `control_after_generate`) is followed by its "control after generate"
value, an `image_upload` combo by its upload widget's value, and a DynamicCombo (ComfyUI 0.33) by the inputs
of its chosen option ("format" -> "format.codec" -> ...); links replace widget values; frontend-only nodes
(notes, reroutes) are not in the prompt; the title goes to `_meta.title` (the display name when the node has
no own title). tests/workflows/test_browser.py checks these rules against the real frontend (`app.graphToPrompt()`).

Files saved with an older ComfyUI lack the inputs its core nodes gained since (0.33: CreateVideo.bit_depth,
SaveVideo's format.codec). The frontend gives those their defaults; `ui_to_api(..., notes=[])` does the same
and `fill_new_inputs` does it for the API twin (only for inputs the UI file does not list either), each
saying so in `notes`. Everything else stays strict.
"""
from __future__ import annotations

import copy
import json

from .workflow import _spec_parts as _parts

WIDGET_TYPES = ("INT", "FLOAT", "STRING", "BOOLEAN", "COMBO")
# Node types that exist only in the frontend: never sent to the server.
VIRTUAL_NODES = ("Note", "MarkdownNote", "PrimitiveNode", "Reroute")
UPLOAD_FLAGS = ("image_upload", "video_upload", "audio_upload", "animated_image_upload")
DYNAMIC_COMBO = "COMFY_DYNAMICCOMBO_V3"  # ComfyUI 0.33+: a combo whose chosen option adds its own inputs
AUTOGROW = "COMFY_AUTOGROW_V3"           # ComfyUI 0.33+: inputs that grow as they are connected
CONTROL_VALUES = ("fixed", "increment", "decrement", "randomize")  # "control after generate"
_MISSING = object()
NODE_TITLE_H = 30   # LiteGraph.NODE_TITLE_HEIGHT: the title bar is drawn above node.pos
GROUP_TITLE_H = 50  # room for a group's title (font 24) above its first node's title bar
GROUP_PAD = 20      # space between a group's border and its nodes
TITLE_CHAR_W = 14   # upper estimate of one character of a group title (24 px sans-serif) in canvas units


def title_width(title: str, font_size: float = 24) -> float:
    """Estimated drawn width of a group title, with the group's padding on both sides."""
    return len(title) * TITLE_CHAR_W * font_size / 24 + 2 * GROUP_PAD


class ConversionError(ValueError):
    """The UI workflow cannot be converted (unknown node type, widgets_values of the wrong length, ...)."""


# ------------------------------------------------------------------------------------------ node specs

def local_object_info(class_types=None) -> dict:
    """/object_info of the ComfyUI imported in this process (after accel_harness.load_pack()), JSON-normalized.

    Same fields as the server's (input, input_order, output, output_name, display_name, category, ...);
    `class_types` limits it to those nodes.
    """
    import nodes

    try:
        from comfy_api.internal import _ComfyNodeInternal
    except Exception:  # ComfyUI without V3 nodes
        _ComfyNodeInternal = ()
    names = list(nodes.NODE_CLASS_MAPPINGS) if class_types is None else list(class_types)
    out = {}
    for name in names:
        cls = nodes.NODE_CLASS_MAPPINGS.get(name)
        if cls is None:
            continue
        if _ComfyNodeInternal and isinstance(cls, type) and issubclass(cls, _ComfyNodeInternal):
            info = cls.GET_NODE_INFO_V1()
        else:
            spec = cls.INPUT_TYPES()
            info = {
                "input": spec,
                "input_order": {k: list(v) for k, v in spec.items()},
                "output": list(cls.RETURN_TYPES),
                "output_name": list(getattr(cls, "RETURN_NAMES", cls.RETURN_TYPES)),
                "output_tooltips": list(getattr(cls, "OUTPUT_TOOLTIPS", [])),
                "name": name,
                "display_name": nodes.NODE_DISPLAY_NAME_MAPPINGS.get(name, name),
                "description": getattr(cls, "DESCRIPTION", ""),
                "category": getattr(cls, "CATEGORY", "sd"),
                "output_node": bool(getattr(cls, "OUTPUT_NODE", False)),
                "python_module": getattr(cls, "RELATIVE_PYTHON_MODULE", "nodes"),
            }
            if getattr(cls, "EXPERIMENTAL", False):
                info["experimental"] = True
            if getattr(cls, "DEPRECATED", False):
                info["deprecated"] = True
        out[name] = json.loads(json.dumps(info, default=str))
    return out


def dynamic_options(spec) -> dict | None:
    """{option key: that option's inputs ({"required": {...}, "optional": {...}})} of a DynamicCombo input
    (ComfyUI 0.33+, comfy_api io.DynamicCombo), None for any other input."""
    if spec[0] != DYNAMIC_COMBO:
        return None
    extra = spec[1] if len(spec) > 1 and isinstance(spec[1], dict) else {}
    return {o["key"]: o.get("inputs") or {} for o in extra.get("options", [])}


def is_widget(spec) -> bool:
    """Whether the frontend shows a widget (and so a widgets_values slot) for this input."""
    typ, _, extra = _parts(spec)
    return (typ in WIDGET_TYPES or typ == DYNAMIC_COMBO) and not extra.get("forceInput", False)


def input_rows(spec_in: dict, order: dict | None = None) -> list[tuple[str, list, bool]]:
    """[(name, spec, required)] of an {"required": {...}, "optional": {...}} input spec (a node's, or a dynamic
    combo option's), required first, in `order` where given, else as declared."""
    rows = []
    for sect in ("required", "optional"):
        specs = spec_in.get(sect) or {}
        for name in ((order or {}).get(sect) or list(specs)):
            if name in specs:
                rows.append((name, specs[name], sect == "required"))
    return rows


def ordered_inputs(node_info: dict) -> list[tuple[str, list, bool]]:
    """[(name, spec, required)] of the required then optional inputs, in the node's declared order."""
    return input_rows(node_info.get("input", {}) or {}, node_info.get("input_order"))


def widget_layout(node_info: dict, value_for) -> list[tuple[str | None, str, object]]:
    """The node's widgets in the frontend's order, each with its value: [(input name or None for an extra
    value, kind, value)], where `value_for(name, kind, spec)` gives each slot's value as the walk reaches it.

    Order: the declared inputs (required, then optional); an INT `seed`/`noise_seed` (or one declared
    `control_after_generate`) is followed by its "control after generate" value, an upload combo by its upload
    widget's value. A DynamicCombo (ComfyUI 0.33+, frontend 1.49) is a combo of its option keys; the selected
    option's own inputs follow it right away, named "<combo>.<input>" (required, then optional), and nest the
    same way, which is how frontend 1.49 inserts and serialises them. Its widgets_values are read in this
    order, one at a time, so a combo's value decides which inputs come next.
    """
    out = []

    def walk(rows, prefix):
        for name, spec, _ in rows:
            typ, _, extra = _parts(spec)
            if typ == AUTOGROW and any(is_widget(s) for _, s, _ in
                                       input_rows((extra.get("template") or {}).get("input") or {})):
                raise ConversionError(f"input '{prefix}{name}' grows widgets ({AUTOGROW}): not modelled here")
            if not is_widget(spec):
                continue
            full = prefix + name
            value = value_for(full, typ, spec)
            out.append((full, typ, value))
            ctrl = extra.get("control_after_generate")
            # frontend: `control_after_generate ?? ['seed', 'noise_seed'].includes(name)`, with the FULL name, so
            # a dynamic combo's nested "sampling_mode.seed" gets no control value
            if typ == "INT" and (ctrl if ctrl is not None else full in ("seed", "noise_seed")):
                out.append((None, "control_after_generate", value_for(None, "control_after_generate", spec)))
            if any(extra.get(f) for f in UPLOAD_FLAGS):
                out.append((None, "upload", value_for(None, "upload", spec)))
            options = dynamic_options(spec)
            if options is not None and isinstance(value, str) and value in options:
                walk(input_rows(options[value]), full + ".")

    walk(ordered_inputs(node_info), "")
    return out


def _default_for(name, kind, spec):
    return default_value(spec, name) if name is not None else None


def _dynamic_default(name, kind, spec):
    """Only a dynamic combo's value shapes the layout (it decides which inputs follow): its default, else None."""
    return default_value(spec, name) if kind == DYNAMIC_COMBO else None


def widget_slots(node_info: dict) -> list[tuple[str | None, str]]:
    """The frontend's widgets_values layout of a fresh node (dynamic combos at their defaults):
    [(input name or None for an extra value, kind)] in order."""
    return [(name, kind) for name, kind, _ in widget_layout(node_info, _dynamic_default)]


def default_value(spec, name: str = "?"):
    """The value a freshly added node shows for this widget: the declared default, else the first option / min.
    A DynamicCombo starts at its first option (frontend 1.49 builds it from the option keys alone)."""
    typ, options, extra = _parts(spec)
    if typ == DYNAMIC_COMBO:
        keys = list(dynamic_options(spec))
        if not keys:
            raise ConversionError(f"dynamic combo input '{name}' has no options")
        return keys[0]
    if typ == "COMBO":
        if "default" in extra and (not options or extra["default"] in options):
            return extra["default"]
        if options:
            return options[0]
        raise ConversionError(f"combo input '{name}' has no options and no default")
    if "default" in extra:
        return extra["default"]
    return {"INT": int(extra.get("min", 0)), "FLOAT": float(extra.get("min", 0.0)), "BOOLEAN": False,
            "STRING": ""}[typ]


def _in_declared_order(node_info: dict, widgets: dict, links: dict) -> dict:
    """Widget values (a dynamic combo's nested inputs right after it) and links, in declared input order."""
    out = {}
    for name, _, _ in ordered_inputs(node_info):
        if name in links:
            out[name] = links[name]
        for k, v in widgets.items():
            if k == name or k.startswith(name + "."):
                out[k] = v
    return out


def full_inputs(info: dict, class_type: str, **given) -> dict:
    """Every input the frontend would send for a fresh node of `class_type`: each widget (required AND optional,
    and the inputs a dynamic combo's chosen option adds, named "<combo>.<input>") from `given` or its default,
    and the links in `given`. A required link input not given, or a name the node does not have, raises
    ConversionError."""
    if class_type not in info:
        raise ConversionError(f"{class_type} is not in /object_info (not installed?)")
    node = info[class_type]
    given = dict(given)
    widgets = {name: v for name, _, v in widget_layout(
        node, lambda name, kind, spec: given[name] if name in given else _default_for(name, kind, spec))
        if name is not None}
    links = {}
    for name, spec, required in ordered_inputs(node):
        if is_widget(spec):
            continue
        if name in given:
            links[name] = given[name]
        elif required:
            raise ConversionError(f"{class_type}: required input '{name}' ({_parts(spec)[0]}) needs a link")
    unknown = set(given) - set(widgets) - set(links)
    if unknown:
        raise ConversionError(f"{class_type}: unknown inputs {sorted(unknown)}")
    return _in_declared_order(node, widgets, links)


# ------------------------------------------------------------------------------------------ UI -> API

def saved_widget_inputs(ui_node: dict) -> set | None:
    """Names of the widget inputs a UI node had when its file was saved (frontends since 1.16 list every widget
    as an input slot with a `widget` entry), or None when the file does not say."""
    names = {i["name"] for i in ui_node.get("inputs") or [] if i.get("widget")}
    return names or None


def _saved_slot_count(ui_node: dict, node_info: dict) -> int | None:
    """How many widgets_values the node had when saved: its saved widget inputs plus the extra values
    (control after generate, upload) that the current spec gives those inputs."""
    saved = saved_widget_inputs(ui_node)
    if saved is None:
        return None
    extras = sum(1 for name, _ in widget_slots(node_info) if name is None)
    return len(saved) + extras


def _check_value(nid, typ_name, name, kind, spec, v):
    """Raise when a positional widgets_values entry cannot belong to its slot (the values have shifted)."""
    if kind == "control_after_generate":
        ok = v in CONTROL_VALUES
    elif kind in ("INT", "FLOAT"):
        ok = isinstance(v, (int, float)) and not isinstance(v, bool)
    elif kind == "BOOLEAN":
        ok = isinstance(v, bool)
    elif kind == "STRING":
        ok = isinstance(v, str)
    elif kind == DYNAMIC_COMBO:
        ok = isinstance(v, str) and v in dynamic_options(spec)
    else:
        ok = not isinstance(v, (dict, list)) or kind == "upload"
    if not ok:
        raise ConversionError(f"node {nid} ({typ_name}): widgets_values entry {v!r} does not fit slot "
                              f"{name or kind} ({kind}): the values do not match this node's widgets")


def ui_to_api(ui: dict, info: dict, notes: list | None = None) -> dict:
    """The API prompt for a UI workflow, as the frontend's "Save (API)" / queue would produce it.

    widgets_values are read in widget order (widget_layout), as the frontend does. A file saved before a
    node gained inputs has fewer values than the node now has widgets: the frontend leaves the rest at their
    defaults, and so does this, appending a line per node to `notes` when given. It is accepted only when the
    file is consistent in itself (as many values as the widget inputs its node lists); more values than
    widgets, or a value that cannot be its slot's, raises ConversionError.
    """
    links = {}
    for link in ui.get("links") or []:
        if isinstance(link, dict):  # schema 1 links
            links[link["id"]] = (link["origin_id"], link["origin_slot"], link["target_id"], link["target_slot"])
        else:
            links[link[0]] = (link[1], link[2], link[3], link[4])
    nodes = {n["id"]: n for n in ui.get("nodes") or []}
    out = {}
    for nid, n in nodes.items():
        typ = n["type"]
        if typ in VIRTUAL_NODES:
            continue
        if n.get("mode", 0) in (2, 4):
            raise ConversionError(f"node {nid} ({typ}) is muted or bypassed: not supported in shipped workflows")
        if typ not in info:
            raise ConversionError(f"node {nid}: unknown node type {typ}")
        spec = info[typ]
        vals = n.get("widgets_values")
        filled = []
        if isinstance(vals, dict):  # some custom nodes save {name: value}: only those values are sent
            layout = [x for x in widget_layout(spec, lambda name, kind, s, vals=vals: vals.get(name, _MISSING))
                      if x[2] is not _MISSING]
        else:
            vals = list(vals or [])
            pos = 0

            def value_for(name, kind, s, vals=vals, nid=nid, typ=typ, filled=filled):
                nonlocal pos
                if pos < len(vals):
                    v = vals[pos]
                    pos += 1
                    _check_value(nid, typ, name, kind, s, v)
                    return v
                if name is not None:
                    filled.append(name)
                return _default_for(name, kind, s)
            layout = widget_layout(spec, value_for)
            slots = [name or kind for name, kind, _ in layout]
            saved = _saved_slot_count(n, spec)
            if len(vals) > len(layout) or (len(vals) < len(layout) and saved != len(vals)):
                raise ConversionError(f"node {nid} ({typ}): {len(vals)} widgets_values for {len(layout)} widget "
                                      f"slots {slots}")
            named = n.get("widgets_values_named")
            if isinstance(named, dict):  # frontend 1.49 saves both; they must agree
                bad = sorted(k for k, _, v in layout if k in named and named[k] != v)
                if bad:
                    raise ConversionError(f"node {nid} ({typ}): widgets_values and widgets_values_named disagree "
                                          f"on {bad}")
        inputs = {name: v for name, _, v in layout if name is not None}
        if filled and notes is not None:
            notes.append(f"node {nid} ({typ}): the file (saved with an older ComfyUI) has {len(vals)} widget values "
                         f"for {len(layout)} widgets; " + ", ".join(f"{k}={inputs[k]!r}" for k in filled)
                         + " at their defaults, as the frontend does")
        for inp in n.get("inputs") or []:
            lid = inp.get("link")
            if lid is None:
                continue
            if lid not in links:
                raise ConversionError(f"node {nid} ({typ}) input '{inp['name']}': link {lid} is not in links")
            origin, slot, target, tslot = links[lid]
            if target != nid:
                raise ConversionError(f"link {lid} targets node {target}, but node {nid} lists it")
            if nodes.get(origin, {}).get("type") in VIRTUAL_NODES:
                raise ConversionError(f"node {nid} input '{inp['name']}' comes from a {nodes[origin]['type']}: "
                                      "not supported in shipped workflows")
            inputs[inp["name"]] = [str(origin), slot]
        out[str(nid)] = {"inputs": inputs, "class_type": typ,
                         "_meta": {"title": n.get("title") or spec.get("display_name") or typ}}
    return out


def fill_new_inputs(api: dict, ui: dict, info: dict, notes: list | None = None) -> dict:
    """A copy of the API twin `api` of UI workflow `ui`, with every widget input the running ComfyUI declares
    that neither file had when saved (a newer ComfyUI's core node gained it, e.g. CreateVideo.bit_depth,
    SaveVideo's format.codec in 0.33) set to its default, as the frontend sends it for such a file. An input
    the UI file lists but the API file lacks is NOT filled (the twins then differ). One line per filled node
    goes to `notes`.
    """
    out = copy.deepcopy(api)
    by_id = {str(n["id"]): n for n in ui.get("nodes") or []}
    for nid, node in out.items():
        spec, ui_node = info.get(node["class_type"]), by_id.get(nid)
        saved = saved_widget_inputs(ui_node) if ui_node is not None else None
        if spec is None or saved is None:
            continue
        inputs, filled = node["inputs"], []

        def value_for(name, kind, s, inputs=inputs, saved=saved, filled=filled):
            if name is None:
                return None
            if name in inputs:
                return inputs[name]
            if name in saved:
                return _MISSING
            filled.append(name)
            return _default_for(name, kind, s)
        for name, _, v in widget_layout(spec, value_for):
            if name is not None and name not in inputs and v is not _MISSING:
                inputs[name] = v
        if filled and notes is not None:
            notes.append(f"node {nid} ({node['class_type']}): inputs this ComfyUI added, in neither file, taken at "
                         "their defaults: " + ", ".join(f"{k}={inputs[k]!r}" for k in filled))
    return out


def prompt_diff(a: dict, b: dict, names=("a", "b")) -> list[str]:
    """Human-readable differences between two API prompts (empty when equal)."""
    out = []
    for nid in sorted(set(a) | set(b), key=lambda k: (len(k), k)):
        if nid not in a or nid not in b:
            out.append(f"node {nid}: only in {names[0] if nid in a else names[1]} "
                       f"({(a.get(nid) or b.get(nid))['class_type']})")
            continue
        x, y = a[nid], b[nid]
        if x["class_type"] != y["class_type"]:
            out.append(f"node {nid}: class {x['class_type']} vs {y['class_type']}")
            continue
        if x.get("_meta", {}).get("title") != y.get("_meta", {}).get("title"):
            out.append(f"node {nid} ({x['class_type']}): title {x.get('_meta', {}).get('title')!r} vs "
                       f"{y.get('_meta', {}).get('title')!r}")
        for k in sorted(set(x["inputs"]) | set(y["inputs"])):
            va, vb = x["inputs"].get(k, "<missing>"), y["inputs"].get(k, "<missing>")
            if va != vb and not (isinstance(va, (int, float)) and isinstance(vb, (int, float))
                                 and not isinstance(va, bool) and float(va) == float(vb)):
                out.append(f"node {nid} ({x['class_type']}).{k}: {va!r} vs {vb!r}")
    return out


# ------------------------------------------------------------------------------------------ layout

def _rect(n):
    """The drawn rectangle of a node: its title bar sits above pos."""
    x, y = n["pos"][0], n["pos"][1]
    w, h = n["size"][0], n["size"][1]
    if (n.get("flags") or {}).get("collapsed"):
        h = 0
    return (x, y - NODE_TITLE_H, x + w, y + h)


def _overlap(a, b, margin=0.0):
    return a[0] < b[2] + margin and b[0] < a[2] + margin and a[1] < b[3] + margin and b[1] < a[3] + margin


def layout(ui: dict, columns, gap_x: float = 70, gap_y: float = 40, pad: float = GROUP_PAD,
           group_gap: float = 50, colors: dict | None = None) -> dict:
    """Place nodes and draw groups: `columns` = [[(title, [node ids], direction), ...], ...], left to right.

    Each column stacks its groups top to bottom; each group lays its nodes top to bottom ("column") or left
    to right ("row"). A group with title None places its nodes without drawing a group. Returns `ui`
    (modified in place) with `groups` replaced.
    """
    by_id = {n["id"]: n for n in ui["nodes"]}
    placed = set()
    groups = []
    x = 0.0
    for col in columns:
        y = 0.0
        col_w = 0.0
        for title, ids, direction in col:
            members = [by_id[i] for i in ids]
            top = y + (GROUP_TITLE_H if title else 0) + NODE_TITLE_H
            cx, cy = x + pad, top
            w_used = h_used = 0.0
            for n in members:
                if n["id"] in placed:
                    raise ValueError(f"node {n['id']} is placed twice")
                placed.add(n["id"])
                n["pos"] = [round(cx, 1), round(cy, 1)]
                w, h = n["size"]
                if direction == "row":
                    cx += w + gap_x
                    w_used = cx - gap_x - (x + pad)
                    h_used = max(h_used, h)
                else:
                    cy += h + NODE_TITLE_H + gap_y
                    w_used = max(w_used, w)
                    h_used = cy - gap_y - NODE_TITLE_H - top
            gw, gh = max(w_used + 2 * pad, title_width(title) if title else 0), (top - y) + h_used + pad
            if title:
                groups.append({"id": len(groups) + 1, "title": title, "bounding": [round(x, 1), round(y, 1),
                               round(gw, 1), round(gh, 1)], "color": (colors or {}).get(title, "#3f789e"),
                               "font_size": 24, "flags": {}})
            y += gh + group_gap
            col_w = max(col_w, gw)
        x += col_w + gap_x
    missing = sorted(set(by_id) - placed)
    if missing:
        raise ValueError(f"nodes not placed by the layout: {missing}")
    ui["groups"] = groups
    return ui


def geometry_problems(ui: dict) -> list[str]:
    """What makes a workflow hard to read: overlapping nodes or groups, nodes half in a group, links that
    run right to left (each link must go right, or straight down within a column)."""
    probs = []
    nodes = ui["nodes"]
    rects = {n["id"]: _rect(n) for n in nodes}
    ids = list(rects)
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            if _overlap(rects[a], rects[b], margin=-1):
                probs.append(f"nodes {a} and {b} overlap")
    gr = [(g["title"], (g["bounding"][0], g["bounding"][1], g["bounding"][0] + g["bounding"][2],
                        g["bounding"][1] + g["bounding"][3])) for g in ui.get("groups") or []]
    for g in ui.get("groups") or []:
        if g["bounding"][2] < title_width(g["title"], g.get("font_size", 24)) - 1:
            probs.append(f"group {g['title']!r} is narrower than its title")
    for i, (ta, ra) in enumerate(gr):
        for tb, rb in gr[i + 1:]:
            if _overlap(ra, rb, margin=-1):
                probs.append(f"groups {ta!r} and {tb!r} overlap")
    for nid, r in rects.items():
        for t, g in gr:
            inside = g[0] <= r[0] and r[2] <= g[2] and g[1] <= r[1] and r[3] <= g[3]
            if _overlap(r, g, margin=-1) and not inside:
                probs.append(f"node {nid} is partly inside group {t!r}")
            if inside and r[1] < g[1] + GROUP_TITLE_H - 10:
                probs.append(f"node {nid} covers the title of group {t!r}")
    by_id = {n["id"]: n for n in nodes}
    for link in ui.get("links") or []:
        o, t = (link["origin_id"], link["target_id"]) if isinstance(link, dict) else (link[1], link[3])
        if o in by_id and t in by_id and by_id[t]["pos"][0] < by_id[o]["pos"][0]:
            probs.append(f"link {o} -> {t} runs right to left")
    return probs


# ------------------------------------------------------------------------------------------ prompt surgery

def links_of(prompt: dict, nid: str):
    """[(input name, [origin id, slot])] of one node."""
    return [(k, v) for k, v in prompt[nid]["inputs"].items()
            if isinstance(v, list) and len(v) == 2 and isinstance(v[0], str)]


def consumers(prompt: dict, nid: str):
    """[(node id, input name, slot)] of every input linked to an output of `nid`."""
    return [(k, name, v[1]) for k, n in prompt.items() for name, v in links_of(prompt, k) if v[0] == nid]


def prune(prompt: dict, keep_outputs) -> dict:
    """Only the nodes that `keep_outputs` need (ids kept)."""
    seen, stack = set(), [str(o) for o in keep_outputs]
    while stack:
        nid = stack.pop()
        if nid in seen:
            continue
        seen.add(nid)
        stack.extend(v[0] for _, v in links_of(prompt, nid))
    return {k: copy.deepcopy(v) for k, v in prompt.items() if k in seen}
