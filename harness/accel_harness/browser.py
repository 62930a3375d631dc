"""The real ComfyUI frontend in headless Debian Chromium, driven by Playwright (client only, no browser download).

    with ComfyServer(base, settings=FRONTEND_SETTINGS) as srv, Browser() as b:
        b.open_app(srv.url)
        b.load_workflow(ui_json)                 # app.loadGraphData, as opening a file does
        assert b.missing_nodes_notice() is None      # no "missing nodes" dialog (1.32) / overlay (1.49)
        nodes = b.graph_nodes()                  # [{"id", "type", "title", "widgets": [...], "values": [...]}]
        b.screenshot("test-artifacts/browser/x.png")
        ui = b.api_to_ui(api_prompt)             # the frontend's own API->UI conversion (app.loadApiJson)

Chromium: /usr/bin/chromium (Debian package `chromium`), flags for a closed network and root.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

CHROMIUM = os.environ.get("ACCEL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic",
    "--disable-dev-shm-usage",
]
# Frontend settings (user/default/comfy.settings.json) so no first-run dialog covers the canvas.
FRONTEND_SETTINGS = {
    "Comfy.TutorialCompleted": True,
    "Comfy.Validation.Workflows": True,
}
# Where the frontend reports node types it does not know: the dialog (frontend 1.32), the error overlay (1.49).
MISSING_NODES_SELECTORS = (".p-dialog", "[role=dialog]", "[data-testid=error-overlay]")
MISSING_NODES_TEXT = "missing node"  # "... missing nodes ..." (1.32), "Missing node: X" / "Missing Node Packs" (1.49)


def available() -> tuple[bool, str]:
    """(ok, reason): the playwright client and a Chromium binary are both present."""
    try:
        import playwright.sync_api  # noqa: F401
    except Exception as e:
        return False, f"playwright not importable ({e}); run scripts/setup_testbed.sh --test-tools"
    if not (os.path.exists(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return False, (f"{CHROMIUM} missing; `apt-get install chromium` (scripts/setup_testbed.sh --test-tools does it "
                       "as root)")
    return True, ""


class Browser:
    """One headless Chromium with a fresh profile, one page; console errors and page errors are recorded."""

    def __init__(self, width: int = 1600, height: int = 1000, timeout_ms: int = 60_000):
        self.size = {"width": width, "height": height}
        self.timeout_ms = timeout_ms
        self.console: list[str] = []
        self.page_errors: list[str] = []
        self._pw = None
        self._ctx = None
        self.page = None
        self._profile = None

    def __enter__(self):
        from playwright.sync_api import sync_playwright

        self._profile = tempfile.mkdtemp(prefix="accel-chromium-")
        self._pw = sync_playwright().start()
        try:
            self._ctx = self._pw.chromium.launch_persistent_context(
                self._profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
                viewport=self.size, timeout=self.timeout_ms)
            self.page = self._ctx.pages[0] if self._ctx.pages else self._ctx.new_page()
            self.page.set_default_timeout(self.timeout_ms)
            self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
            self.page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        try:
            if self._ctx is not None:
                self._ctx.close()
        finally:
            if self._pw is not None:
                self._pw.stop()
            if self._profile:
                shutil.rmtree(self._profile, ignore_errors=True)

    # ------------------------------------------------------------------ app
    def open_app(self, url: str) -> None:
        """Load the ComfyUI frontend and wait until `window.app` has a graph and knows the node types."""
        self.page.goto(url.rstrip("/") + "/", wait_until="domcontentloaded")
        self.page.wait_for_function(
            "() => window.app && window.app.graph && window.LiteGraph && "
            "Object.keys(window.LiteGraph.registered_node_types || {}).length > 50", timeout=self.timeout_ms)
        self.settle()

    def settle(self, seconds: float = 0.5) -> None:
        """Let the canvas draw (the frontend renders on animation frames)."""
        self.page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        time.sleep(seconds)

    def registered(self, types) -> dict:
        return self.page.evaluate("(ts) => Object.fromEntries(ts.map(t => [t, !!LiteGraph.registered_node_types[t]]))",
                                  list(types))

    def load_workflow(self, workflow: dict, name: str = "workflow.json") -> None:
        """Open a UI-format workflow the way the app does for a file (app.loadGraphData)."""
        # Missing MODELS (files a workflow names) are not what this checks: that dialog stays off.
        self.page.evaluate("async ([wf, name]) => { await app.loadGraphData(wf, true, true, name, "
                           "{showMissingNodesDialog: true, showMissingModelsDialog: false}); }", [workflow, name])
        self.settle()

    def missing_nodes_notice(self) -> str | None:
        """The text of the frontend's visible "missing nodes" notice, or None.

        Frontend 1.32 opens a dialog ("... missing nodes ..."); 1.49 shows an error overlay instead
        ("Missing node: <type>", or "Missing Node Packs" for several). Both are looked for, so the check works
        on either; tests/workflows/test_browser.py loads a workflow with an unknown node type to prove each can fail.
        """
        texts = self.page.evaluate(
            "(sel) => Array.from(document.querySelectorAll(sel))"
            ".filter(d => d.offsetParent !== null || d.getClientRects().length).map(d => d.innerText)",
            ", ".join(MISSING_NODES_SELECTORS))
        for t in texts:
            if MISSING_NODES_TEXT in t.lower():
                return t
        return None

    def alerts(self) -> list[str]:
        """Texts of the toasts on screen (the frontend reports e.g. "Invalid workflow against zod schema" there)."""
        return self.page.evaluate(
            "() => Array.from(document.querySelectorAll('.p-toast-message')).map(t => t.innerText.trim())")

    def clear_alerts(self) -> None:
        self.page.evaluate("() => document.querySelectorAll('.p-toast-message .p-toast-close-button')"
                           ".forEach(b => b.click())")
        self.settle(0.2)

    def close_dialogs(self) -> None:
        """Close dialogs (Escape) and dismiss the error overlay (frontend 1.49: Escape leaves it open)."""
        self.page.keyboard.press("Escape")
        self.page.evaluate("() => document.querySelectorAll('[data-testid=error-overlay-dismiss]')"
                           ".forEach(b => b.click())")
        self.settle(0.2)

    def graph_nodes(self) -> list[dict]:
        return self.page.evaluate(
            "() => app.graph._nodes.map(n => ({id: n.id, type: n.type, title: n.title, "
            "widgets: (n.widgets || []).map(w => w.name), values: (n.widgets || []).map(w => w.value), "
            "has_errors: !!n.has_errors, registered: !!LiteGraph.registered_node_types[n.type]}))")

    def graph_to_prompt(self) -> dict:
        """The API prompt the frontend would queue for the current graph (app.graphToPrompt().output)."""
        return self.page.evaluate("async () => (await app.graphToPrompt()).output")

    def screenshot(self, path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Frame the graph below the floating workflow menu, at 100 %.
        self.page.evaluate("() => { try { const ns = app.graph._nodes; if (!ns.length) return; "
                           "const x = Math.min(...ns.map(n => n.pos[0])), y = Math.min(...ns.map(n => n.pos[1])); "
                           "app.canvas.ds.scale = 1; app.canvas.ds.offset = [300 - x, 240 - y]; "
                           "app.canvas.setDirty(true, true); } catch (e) {} }")
        self.settle(0.3)
        self.page.screenshot(path=str(path))
        return path

    def serialize(self) -> dict:
        """The current graph as the frontend saves it (app.graph.serialize(), through JSON)."""
        return self.page.evaluate("() => JSON.parse(JSON.stringify(app.graph.serialize()))")

    def add_note(self, text: str, title: str | None = None, size=(420, 260), node_type: str = "MarkdownNote") -> int:
        """Add a frontend note node (MarkdownNote by default) to the current graph; returns its id (a number: newer
        frontends, 1.49, give new nodes' ids as strings until the graph is serialized)."""
        return int(self.page.evaluate(
            "([text, title, size, type]) => { const n = LiteGraph.createNode(type); if (!n) throw new Error("
            "'no node type ' + type); if (title) n.title = title; app.graph.add(n); "
            "const w = (n.widgets || [])[0]; if (w) w.value = text; else n.widgets_values = [text]; "
            "n.size = [size[0], size[1]]; return n.id; }", [text, title, list(size), node_type]))

    def api_to_ui(self, api_prompt: dict, name: str = "workflow.json", fixed_seeds: bool = True) -> dict:
        """Convert an API-format prompt to a UI workflow with the frontend's own loader, then serialize it.

        Seeds get `control_after_generate = fixed` (a demo/test workflow should reproduce its result).
        """
        self.page.evaluate("async ([api, name]) => { await app.loadApiJson(api, name); }", [api_prompt, name])
        self.settle()
        missing = self.missing_nodes_notice()
        if missing:
            raise RuntimeError(f"the frontend does not know some node types: {missing}")
        if fixed_seeds:
            self.page.evaluate("() => { for (const n of app.graph._nodes) for (const w of (n.widgets || [])) "
                               "if (w.name === 'control_after_generate') w.value = 'fixed'; }")
        # Through JSON: Playwright would turn `undefined` fields into nulls that the frontend's schema rejects.
        return self.page.evaluate("() => JSON.parse(JSON.stringify(app.graph.serialize()))")
