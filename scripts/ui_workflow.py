"""Turn API-format prompts into drag-and-drop UI workflows with the REAL ComfyUI frontend (headless Chromium).

    .testbed/venv/bin/python scripts/ui_workflow.py IN_API.json OUT_UI.json [IN2.json OUT2.json ...]

The shipped workflows (hardware_report.json included) are defined in scripts/workflow_defs.py and written, both
twins, by scripts/workflows.py; this script converts any other API prompt.

Starts ComfyUI (this repository as custom_nodes/comfyui_accel), opens the frontend, loads each prompt with
the app's own API loader (`app.loadApiJson`, which lays the graph out and keeps `_meta.title`), fixes seeds
(`control_after_generate = fixed`) and writes `app.graph.serialize()`. Needs playwright and /usr/bin/chromium
(`bash scripts/setup_testbed.sh --test-tools`).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "harness"))

from accel_harness.browser import FRONTEND_SETTINGS, Browser, available  # noqa: E402
from accel_harness.server import ComfyServer  # noqa: E402


def convert(pairs, work: Path | None = None) -> None:
    ok, why = available()
    if not ok:
        raise SystemExit(f"cannot convert: {why}")
    work = work or Path(tempfile.mkdtemp(prefix="accel-ui-"))
    with ComfyServer(work, cpu=True, settings=FRONTEND_SETTINGS) as srv, Browser() as b:
        b.open_app(srv.url)
        for api, out in pairs:
            ui = b.api_to_ui(api, name=out.name)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(ui, indent=2) + "\n")
            print(f"wrote {out} ({len(ui.get('nodes', []))} nodes)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", type=Path, help="pairs: IN_API.json OUT_UI.json")
    a = ap.parse_args(argv)
    if len(a.files) % 2:
        ap.error("give files in pairs: IN_API.json OUT_UI.json")
    pairs = [(json.loads(a.files[i].read_text()), a.files[i + 1]) for i in range(0, len(a.files), 2)]
    if not pairs:
        ap.error("nothing to convert")
    convert(pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
