"""The shipped workflows (each defined once, in scripts/workflow_defs.py): writes workflows/<name>.json (UI) and
workflows/api/<name>.json (API).

    .testbed/venv/bin/python scripts/workflows.py --write [NAME ...]   # regenerate (ComfyUI server + real frontend)
    .testbed/venv/bin/python scripts/workflows.py --check              # files current? (no browser; exit 1 if not)
    .testbed/venv/bin/python scripts/workflows.py --list

How one definition becomes two files:
1. A builder in scripts/workflow_defs.py composes the API prompt with `Flow.add(class_type, title, **inputs)`:
   every widget the node has (required and optional) comes from the given value or the node's declared default in
   /object_info, exactly what a fresh node in the UI would send. That prompt, with `_meta.title` on each
   node, is written as workflows/api/<name>.json (the "Save (API)" format).
2. --write opens the REAL ComfyUI frontend (headless Chromium, harness/accel_harness/browser.py) on a server
   with this checkout loaded, loads the prompt with the app's own API loader (app.loadApiJson), adds the
   notes, serializes the graph, then lays it out (columns of groups, left to right, from the builder's
   `columns`), adds model download links to the loaders and writes workflows/<name>.json. Before writing,
   it loads the result back and checks that the frontend's own graphToPrompt() gives the API prompt.
3. --check (and tests/workflows/test_workflows.py) rebuild each API prompt from the node specs of the ComfyUI in this
   process and compare it with workflows/api/<name>.json, and convert workflows/<name>.json back to API
   (accel_harness.uiformat.ui_to_api) and compare that too: editing one file without the other, or a node
   gaining an input, fails until the files are regenerated. The files are written with ComfyUI 0.3.75 (CI's);
   checked on a newer ComfyUI, inputs its core nodes gained that neither file has are taken at their defaults
   (as the frontend does) and printed as notes, so the same files serve both. Write them with the 0.3.75 test
   bed: files written on a newer ComfyUI carry its new inputs, which an older one rejects. Workflows for models
   only a newer ComfyUI has (MiniMax-H3, LTX-2, Kandinsky 5: their nodes are 0.33's) are written with the 0.33 test
   bed (COMFYUI_PATH=... ACCEL_TESTBED=...) and not checked where their nodes are missing (a note says so).

Model file names are those of ComfyUI's own workflow templates (Comfy-Org/workflow_templates), so the files
a user downloaded for the templates just work; loaders carry the templates' download links.
"""
from __future__ import annotations

import argparse
import json
import sys
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "harness"))

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workflow_defs import TOOLS, WORKFLOWS  # noqa: E402,F401 - TOOLS: for the tests
from workflow_parts import INPUT_IMAGE, MODEL_INPUTS, MODELS, Flow, MissingNode  # noqa: E402,F401 - for the tests

from accel_harness import uiformat as U  # noqa: E402

UI_DIR = REPO / "workflows"
API_DIR = REPO / "workflows" / "api"

def build(name: str, info: dict) -> Flow:
    f = WORKFLOWS[name](info)
    assert f.name == name, (f.name, name)
    return f


def missing_nodes(name: str, info: dict) -> set:
    """Node types workflows/api/<name>.json names that this ComfyUI lacks (MiniMax-H3's, LTX-2's, Kandinsky 5's on
    ComfyUI 0.3.75): such a workflow is written, checked and loaded where they exist (ComfyUI 0.33)."""
    api = json.loads((API_DIR / f"{name}.json").read_text())
    return {n["class_type"] for n in api.values()} - set(info)


def model_files(prompt: dict) -> dict[str, set]:
    """models/ folder -> file names a prompt's loaders name."""
    out: dict[str, set] = {}
    for n in prompt.values():
        for inp in MODEL_INPUTS.get(n["class_type"], ()):
            fname = n["inputs"][inp]
            out.setdefault(MODELS[fname][0] if fname in MODELS else "?", set()).add(fname)
    return out


# ------------------------------------------------------------------------------------------ UI file

def finish_ui(ui: dict, f: Flow, note_ids: dict) -> dict:
    """Layout, groups, colors, model links and a stable id on the serialized frontend graph."""
    ids = lambda xs: [note_ids[x[5:]] if isinstance(x, str) and x.startswith("note:") else int(x) for x in xs]  # noqa: E731
    columns = [[(t, ids(members), d) for t, members, d in col] for col in f.columns]
    U.layout(ui, columns, colors=f.group_colors)
    by_id = {n["id"]: n for n in ui["nodes"]}
    for nid, (color, bg) in f.colors.items():
        by_id[int(nid)]["color"], by_id[int(nid)]["bgcolor"] = color, bg
    for n in ui["nodes"]:
        files = [n["widgets_values"][0]] if n["type"] in MODEL_INPUTS else []
        if n["type"] == "DualCLIPLoader":
            files = n["widgets_values"][:2]
        models = [{"name": x, "url": MODELS[x][1], "directory": MODELS[x][0]} for x in files if x in MODELS]
        if models:
            n.setdefault("properties", {})["models"] = models
    xs = [n["pos"][0] for n in ui["nodes"]]
    ys = [n["pos"][1] - U.NODE_TITLE_H for n in ui["nodes"]]
    right = max(n["pos"][0] + n["size"][0] for n in ui["nodes"])
    # Open at a zoom where node text still renders (the canvas draws low-detail boxes below ~0.6), showing the
    # graph from its left edge (read me, models, prompt); wide graphs scroll to the right.
    scale = round(max(0.7, min(1.0, 1500.0 / max(1.0, right - min(xs)))), 3)
    ui.setdefault("extra", {})["ds"] = {"scale": scale, "offset": [round(80 / scale - min(xs) + U.GROUP_PAD, 1),
                                                                   round(140 / scale - min(ys) + U.GROUP_TITLE_H, 1)]}
    ui["id"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"https://github.com/comfyui-accel/comfyui-accel/workflows/{f.name}"))
    return ui


def write(names, work: Path | None = None) -> int:
    import tempfile

    from accel_harness.browser import FRONTEND_SETTINGS, Browser, available
    from accel_harness.server import ComfyServer

    ok, why = available()
    if not ok:
        raise SystemExit(f"cannot write UI workflows: {why}")
    work = work or Path(tempfile.mkdtemp(prefix="accel-flows-"))
    with ComfyServer(work, cpu=True, settings=FRONTEND_SETTINGS) as srv, Browser() as b:
        info = srv.object_info()
        b.open_app(srv.url)
        for name in names:
            try:
                f = build(name, info)
            except MissingNode as e:
                raise SystemExit(f"{name}: this ComfyUI has no {e.node} node; write this workflow with a ComfyUI that "
                                 "has it: COMFYUI_PATH=<ComfyUI 0.33> ACCEL_TESTBED=<its test bed> <its venv's python> "
                                 "scripts/workflows.py --write " + name) from None
            api = f.api()
            b.api_to_ui(api, name=f"{name}.json")
            note_ids = {k: b.add_note(text, title, size) for k, (title, text, size) in f.notes.items()}
            ui = finish_ui(b.serialize(), f, note_ids)
            problems = U.geometry_problems(ui)
            if problems:
                raise SystemExit(f"{name}: layout problems: {problems}")
            # The file as written must load back into the frontend and queue exactly the API prompt.
            b.load_workflow(ui, f"{name}.json")
            missing = b.missing_nodes_notice()
            if missing:
                raise SystemExit(f"{name}: {missing}")
            diff = U.prompt_diff(api, b.graph_to_prompt(), ("api", "frontend")) + \
                U.prompt_diff(api, U.ui_to_api(ui, info), ("api", "ui_to_api"))
            if diff:
                raise SystemExit(f"{name}: the UI workflow does not give the API prompt:\n  " + "\n  ".join(diff))
            API_DIR.mkdir(parents=True, exist_ok=True)
            (API_DIR / f"{name}.json").write_text(json.dumps(api, indent=2, ensure_ascii=False) + "\n")
            (UI_DIR / f"{name}.json").write_text(json.dumps(ui, indent=2, ensure_ascii=False) + "\n")
            print(f"wrote workflows/{name}.json ({len(ui['nodes'])} nodes, {len(ui['groups'])} groups) and "
                  f"workflows/api/{name}.json ({len(api)} nodes)")
    return 0


# ------------------------------------------------------------------------------------------ check

def check(info: dict, names=None, notes: list | None = None) -> list[str]:
    """Problems with the checked-in files for these node specs (empty list = current).

    On a ComfyUI newer than the one the files were written with, core nodes may have gained inputs (0.33:
    CreateVideo.bit_depth, SaveVideo's format.codec). Where neither file has such an input, both twins are
    taken with its default, as the frontend does (uiformat.fill_new_inputs / ui_to_api), and a line per node
    goes to `notes`; any other difference is a problem.
    """
    probs = []
    for name in names or WORKFLOWS:
        api_p, ui_p = API_DIR / f"{name}.json", UI_DIR / f"{name}.json"
        if not api_p.exists() or not ui_p.exists():
            probs.append(f"{name}: missing {'workflows/api/' if not api_p.exists() else 'workflows/'}{name}.json")
            continue
        try:
            flow = build(name, info)
            want = flow.api()
        except MissingNode as e:
            if notes is not None:
                notes.append(f"{name}: not checked here: this ComfyUI has no {e.node} node (a newer ComfyUI's model)")
            continue
        ui = json.loads(ui_p.read_text())
        added: list[str] = []
        have = U.fill_new_inputs(json.loads(api_p.read_text()), ui, info, added)
        probs += [f"{name}: workflows/api/ is stale: {d}" for d in U.prompt_diff(want, have, ("definition", "file"))]
        try:
            conv = U.ui_to_api(ui, info, added)
        except U.ConversionError as e:
            probs.append(f"{name}: workflows/{name}.json: {e}")
            continue
        probs += [f"{name}: UI and API twins differ: {d}" for d in U.prompt_diff(have, conv, ("api file", "ui file"))]
        probs += [f"{name}: layout: {p}" for p in U.geometry_problems(ui)]
        probs += [f"{name}: workflows/{name}.json: {p}" for p in note_problems(flow, ui)]
        # a pack node's input missing from both files: the node gained it after the file was written (only core
        # nodes of a newer ComfyUI are taken at their defaults)
        own = [a for a in added if "(Accel" in a]
        probs += [f"{name}: written before the pack's node gained inputs ({a}): rewrite it (--write)" for a in own]
        if notes is not None:
            notes += [f"{name}: {a}" for a in added if a not in own]
    extra = sorted({p.stem for p in API_DIR.glob("*.json")} - set(WORKFLOWS) - {"demo_before_after"})
    probs += [f"workflows/api/{x}.json is not defined in scripts/workflows.py" for x in extra]
    return probs


def note_problems(flow: Flow, ui: dict) -> list[str]:
    """The UI file's notes against the builder's (title and text): a note written from an older definition."""
    have = sorted((n.get("title", ""), (n.get("widgets_values") or [""])[0]) for n in ui.get("nodes") or []
                  if n.get("type") in ("Note", "MarkdownNote"))
    want = sorted((title, text) for title, text, _ in flow.notes.values())
    if have == want:
        return []
    stale = sorted({t for t, _ in want} ^ {t for t, _ in have}) or sorted(
        {t for t, x in want if (t, x) not in have})
    return [f"notes differ from scripts/workflow_defs.py (stale: {', '.join(stale)}): rewrite it (--write)"]


def local_info() -> dict:
    import accel_harness as H

    H.bootstrap()
    H.load_pack()
    return U.local_object_info()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help="regenerate the files (server + headless frontend)")
    g.add_argument("--check", action="store_true", help="exit 1 if a file is missing, stale or its twin differs")
    g.add_argument("--list", action="store_true")
    ap.add_argument("names", nargs="*", help=f"workflows (default all): {', '.join(WORKFLOWS)}")
    a = ap.parse_args(argv)
    bad = [n for n in a.names if n not in WORKFLOWS]
    if bad:
        ap.error(f"unknown workflows {bad}")
    names = a.names or list(WORKFLOWS)
    if a.list:
        for n in names:
            print(n)
        return 0
    if a.write:
        return write(names)
    notes: list[str] = []
    probs = check(local_info(), names, notes)
    for n in notes:
        print(f"note: {n}")
    for p in probs:
        print(p)
    print("workflows: OK" if not probs else f"workflows: {len(probs)} problem(s); regenerate with "
          "`.testbed/venv/bin/python scripts/workflows.py --write`")
    return 1 if probs else 0


if __name__ == "__main__":
    sys.exit(main())
