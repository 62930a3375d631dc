"""Pictures of shipped workflows for README (docs/*.png), taken in the real ComfyUI frontend.

    .testbed/venv/bin/python scripts/docs_pictures.py [NAME ...]     # default: the quick-start workflows

Starts the test bed's ComfyUI server (harness ComfyServer), opens the frontend in headless Chromium
(harness Browser), loads each workflows/<NAME>.json, frames the whole graph and saves docs/<NAME>.png.
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "harness"))

from accel_harness.browser import FRONTEND_SETTINGS, Browser  # noqa: E402
from accel_harness.server import ComfyServer  # noqa: E402

DEFAULT = ["wan2.1_t2v_1.3B_level1", "qwen_image_attention_compile"]

FIT = """([w, h]) => {
  const ns = app.graph._nodes, gs = app.graph._groups || [];
  const boxes = ns.map(n => [n.pos[0], n.pos[1] - 30, n.pos[0] + n.size[0], n.pos[1] + n.size[1]])
    .concat(gs.map(g => [g._pos ? g._pos[0] : g.pos[0], g._pos ? g._pos[1] : g.pos[1],
                         (g._pos ? g._pos[0] : g.pos[0]) + (g._size ? g._size[0] : g.size[0]),
                         (g._pos ? g._pos[1] : g.pos[1]) + (g._size ? g._size[1] : g.size[1])]));
  const x0 = Math.min(...boxes.map(b => b[0])), y0 = Math.min(...boxes.map(b => b[1]));
  const x1 = Math.max(...boxes.map(b => b[2])), y1 = Math.max(...boxes.map(b => b[3]));
  const s = Math.min((w - 160) / (x1 - x0), (h - 200) / (y1 - y0), 1);
  app.canvas.ds.scale = s; app.canvas.ds.offset = [100 / s - x0, 130 / s - y0];
  app.canvas.setDirty(true, true);
  return {x: 90, y: 120, width: Math.ceil((x1 - x0) * s) + 20, height: Math.ceil((y1 - y0) * s) + 20};
}"""


def main(names):
    with tempfile.TemporaryDirectory(prefix="accel-docs-") as tmp:
        srv = ComfyServer(tmp, settings={**FRONTEND_SETTINGS, "Comfy.Minimap.Visible": False})
        srv.start(timeout=180)
        try:
            with Browser(width=2000, height=1100) as b:
                b.open_app(srv.url)
                for name in names:
                    wf = json.loads((REPO / "workflows" / f"{name}.json").read_text())
                    b.load_workflow(wf, f"{name}.json")
                    b.close_dialogs()
                    b.page.evaluate("() => document.querySelectorAll('button[aria-label=Close], .p-toast-close-button')"
                                    ".forEach(x => { if (x.closest('[class*=banner], .p-toast')) x.click(); })")
                    clip = b.page.evaluate(FIT, [2000, 1100])
                    b.settle(0.5)
                    out = REPO / "docs" / f"{name}.png"
                    out.parent.mkdir(exist_ok=True)
                    b.page.screenshot(path=str(out), clip=clip)
                    print("wrote", out)
        finally:
            srv.stop()


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT)
