"""A REAL ComfyUI server (its own `main.py`) as a subprocess, for live-server tests, the demo and the browser tests.

    with ComfyServer(base_dir) as srv:          # starts main.py on 127.0.0.1:<free port>, waits for /object_info
        info = srv.object_info()
        entry = srv.run(api_prompt, timeout=120) # POST /prompt, poll /history/{id}; raises with ComfyUI's message
        files = srv.output_files(entry)          # absolute paths of what the output nodes wrote

The server gets its own base directory (models/, custom_nodes/, input/, output/, temp/, user/) through
`--base-directory`, an in-memory database and no API nodes, so it never writes into the ComfyUI tree.
`custom_nodes/` holds one symlink, `comfyui_accel` -> the repository this file belongs to (or `pack_root`):
the server loads exactly this working tree, whatever the test bed's own custom_nodes/ links to.
Every loop is bounded; `stop()` terminates, waits, then kills, and runs from `__exit__` in all cases.
Standard library only (plus aiohttp for the optional websocket listener, which ComfyUI itself requires).
"""
from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

from .env import PACK_LINK_NAME, REPO_ROOT, comfy_root

LOCALHOST = "127.0.0.1"


class ServerError(RuntimeError):
    """The server failed to start, rejected a prompt, or a prompt failed; the message carries ComfyUI's text."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOCALHOST, 0))
        return s.getsockname()[1]


def gpu_available(python: str | None = None) -> bool:
    """Whether torch in the server's Python sees a CUDA/ROCm device (asked in a subprocess when it differs)."""
    if python is None or os.path.realpath(python) == os.path.realpath(sys.executable):
        try:
            import torch

            return bool(torch.cuda.is_available())
        except Exception:
            return False
    r = subprocess.run([python, "-c", "import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)"],
                       capture_output=True, timeout=120)
    return r.returncode == 0


def _die_with_parent():
    """In the child (Linux): get SIGTERM when the process that started the server dies, so a killed test
    run or demo never leaves a ComfyUI server behind."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def has_module(python: str, name: str) -> bool:
    """Whether `name` is importable in that Python (this process's, or asked in a subprocess)."""
    if os.path.realpath(python) == os.path.realpath(sys.executable):
        import importlib.util

        return importlib.util.find_spec(name) is not None
    r = subprocess.run([python, "-c",
                        f"import importlib.util,sys; sys.exit(importlib.util.find_spec({name!r}) is None)"],
                       capture_output=True, timeout=60)
    return r.returncode == 0


def prepare_base(base_dir, pack_root=REPO_ROOT, settings: dict | None = None) -> Path:
    """Create a server base directory with custom_nodes/comfyui_accel -> pack_root and the usual folders.

    `settings` are written to user/default/comfy.settings.json (frontend settings, e.g. to skip first-run
    dialogs in browser tests). Idempotent; an existing link to another tree is replaced.
    """
    base = Path(base_dir).resolve()
    for sub in ("custom_nodes", "models/diffusion_models", "input", "output", "temp", "user/default"):
        (base / sub).mkdir(parents=True, exist_ok=True)
    link = base / "custom_nodes" / PACK_LINK_NAME
    target = Path(pack_root).resolve()
    if link.is_symlink() and Path(os.readlink(link)).resolve() != target:
        link.unlink()
    if not link.exists() and not link.is_symlink():
        link.symlink_to(target, target_is_directory=True)
    if settings is not None:
        p = base / "user" / "default" / "comfy.settings.json"
        cur = json.loads(p.read_text()) if p.exists() else {}
        cur.update(settings)
        p.write_text(json.dumps(cur, indent=2))
    return base


class ComfyServer:
    """ComfyUI's own main.py on 127.0.0.1:<port>, with this pack loaded from `pack_root`."""

    def __init__(self, base_dir, port: int | None = None, cpu: bool | None = None, python: str | None = None,
                 comfy: str | os.PathLike | None = None, pack_root=REPO_ROOT, extra_args=(), settings=None,
                 env: dict | None = None, quiet: bool = True):
        self.base = prepare_base(base_dir, pack_root, settings)
        self.python = python or sys.executable
        self.comfy = Path(comfy) if comfy else comfy_root()
        self.port = port or free_port()
        self.cpu = (not gpu_available(self.python)) if cpu is None else cpu
        self.extra_args = list(extra_args)
        self.env = env or {}
        self.quiet = quiet
        self.url = f"http://{LOCALHOST}:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.log_path = self.base / "server.log"
        self._log = None
        self.startup_s = None

    # ---------------------------------------------------------------- lifecycle
    def command(self) -> list[str]:
        cmd = [self.python, "main.py", "--listen", LOCALHOST, "--port", str(self.port),
               "--base-directory", str(self.base), "--database-url", "sqlite:///:memory:",
               "--disable-api-nodes", "--disable-auto-launch", "--log-stdout"]
        if self.cpu:
            cmd.append("--cpu")
        if not has_module(self.python, "comfyui_frontend_package") and "--front-end-root" not in self.extra_args:
            # without the frontend package main.py exits unless it is given a frontend folder (API use only)
            empty = self.base / "no-frontend"
            empty.mkdir(exist_ok=True)
            cmd += ["--front-end-root", str(empty)]
        return cmd + self.extra_args

    def start(self, timeout: float = 180.0) -> ComfyServer:
        """Start main.py and wait until /object_info answers. Raises ServerError with the log tail."""
        env = dict(os.environ)
        env.setdefault("OMP_NUM_THREADS", "1")
        env.update({"PYTHONUNBUFFERED": "1", "HF_HUB_OFFLINE": "1", "DO_NOT_TRACK": "1"})
        env.update(self.env)
        self._log = open(self.log_path, "ab")
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(self.command(), cwd=str(self.comfy), env=env, stdout=self._log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     preexec_fn=_die_with_parent if sys.platform == "linux" else None)
        atexit.register(self.stop)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._close_log()
                raise ServerError(f"ComfyUI exited with {self.proc.returncode} during start-up:\n{self.log_tail()}")
            try:
                self.get("/object_info/AccelHardwareReport", timeout=5)
                self.startup_s = time.perf_counter() - t0
                return self
            except (urllib.error.URLError, ConnectionError, OSError, json.JSONDecodeError):
                time.sleep(0.25)
        self.stop()
        raise ServerError(f"ComfyUI did not answer /object_info within {timeout:.0f} s:\n{self.log_tail()}")

    def stop(self, timeout: float = 20.0) -> None:
        """Terminate, wait, kill on timeout. Safe to call twice."""
        p = self.proc
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=timeout)
        self._close_log()

    def _close_log(self):
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc):
        self.stop()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, n: int = 60) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return "(no server log)"
        return "\n".join(lines[-n:])

    # ---------------------------------------------------------------- HTTP
    def _request(self, method: str, path: str, body=None, timeout: float = 30.0):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"} if data else {})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
        return json.loads(raw) if raw else None

    def get(self, path: str, timeout: float = 30.0):
        return self._request("GET", path, timeout=timeout)

    def post(self, path: str, body, timeout: float = 30.0):
        return self._request("POST", path, body, timeout=timeout)

    def get_bytes(self, path: str, timeout: float = 30.0) -> bytes:
        with urllib.request.urlopen(self.url + path, timeout=timeout) as r:
            return r.read()

    def object_info(self) -> dict:
        return self.get("/object_info", timeout=60)

    # ---------------------------------------------------------------- prompts
    def submit(self, prompt: dict, client_id: str | None = None, extra_data: dict | None = None,
               strict: bool = True) -> str:
        """POST /prompt; returns the prompt id. A validation failure raises ServerError with node_errors.

        ComfyUI accepts a prompt when at least one output node is valid and silently drops the others
        (reporting them in `node_errors`); with strict=True (default) any node error raises instead.
        """
        body = {"prompt": prompt, "client_id": client_id or uuid.uuid4().hex}
        if extra_data:
            body["extra_data"] = extra_data
        try:
            out = self.post("/prompt", body)
        except urllib.error.HTTPError as e:
            detail = e.read().decode(errors="replace")
            raise ServerError(f"/prompt rejected the prompt ({e.code}): {detail}") from None
        if strict and out.get("node_errors"):
            raise ServerError(f"/prompt dropped invalid nodes (the rest was queued as {out['prompt_id']}): "
                              f"{json.dumps(out['node_errors'])}")
        return out["prompt_id"]

    def history(self, prompt_id: str) -> dict | None:
        h = self.get(f"/history/{urllib.parse.quote(prompt_id)}")
        return h.get(prompt_id) if h else None

    def queue_remaining(self) -> int:
        return int(self.get("/prompt")["exec_info"]["queue_remaining"])

    def wait(self, prompt_id: str, timeout: float = 300.0, poll: float = 0.1, on_poll=None) -> dict:
        """Poll /history/{id} until the prompt finished. Raises ServerError on error status or timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                raise ServerError(f"ComfyUI died while running {prompt_id}:\n{self.log_tail()}")
            entry = self.history(prompt_id)
            if entry and entry.get("status", {}).get("completed") is not None and (
                    entry["status"].get("status_str") in ("success", "error")):
                if entry["status"]["status_str"] != "success":
                    raise ServerError(f"prompt {prompt_id} failed: {execution_error(entry)}\n{self.log_tail(30)}")
                return entry
            if on_poll is not None:
                on_poll()
            time.sleep(poll)
        raise ServerError(f"prompt {prompt_id} did not finish within {timeout:.0f} s:\n{self.log_tail(30)}")

    def run(self, prompt: dict, timeout: float = 300.0, client_id: str | None = None) -> dict:
        """Submit and wait; returns the /history entry (outputs, status with timestamped messages)."""
        return self.wait(self.submit(prompt, client_id=client_id), timeout=timeout)

    def view(self, item: dict) -> bytes:
        """Fetch one output file over HTTP (/view), as the frontend does: item = {filename, subfolder, type}."""
        q = urllib.parse.urlencode({"filename": item["filename"], "subfolder": item.get("subfolder", ""),
                                    "type": item.get("type", "output")})
        return self.get_bytes(f"/view?{q}")

    def output_files(self, entry: dict) -> list[Path]:
        """Absolute paths of the files the output nodes of a finished prompt wrote (type 'output')."""
        files = []
        for node_out in entry.get("outputs", {}).values():
            for items in node_out.values():
                if not isinstance(items, list):
                    continue
                for it in items:
                    if isinstance(it, dict) and "filename" in it and it.get("type", "output") == "output":
                        files.append(self.base / "output" / it.get("subfolder", "") / it["filename"])
        return files


def execution_error(entry: dict) -> str:
    """ComfyUI's own error text from a /history entry (node, type, message)."""
    for ev, data in entry.get("status", {}).get("messages", []):
        if ev == "execution_error":
            return (f"node {data.get('node_id')} ({data.get('node_type')}): "
                    f"{data.get('exception_type')}: {data.get('exception_message')}")
    return json.dumps(entry.get("status"))[:2000]


def execution_seconds(entry: dict) -> float | None:
    """Server-side time of one prompt: execution_start -> execution_success timestamps in /history."""
    ts = {ev: data.get("timestamp") for ev, data in entry.get("status", {}).get("messages", [])}
    if ts.get("execution_start") is None or ts.get("execution_success") is None:
        return None
    return (ts["execution_success"] - ts["execution_start"]) / 1000.0


def ui_text(entry: dict, node_id: str) -> str | None:
    """The `ui.text` string an output node returned (e.g. AccelHardwareReport, AccelLatentDiff)."""
    out = entry.get("outputs", {}).get(str(node_id), {})
    t = out.get("text")
    if isinstance(t, list):
        return "".join(str(x) for x in t)
    return t


class EventListener:
    """Websocket listener (/ws?clientId=...) in a background thread: records (time, type, data) events.

    Used for progress lines and per-node timings (`node_seconds`). Needs aiohttp (a ComfyUI dependency).
    """

    def __init__(self, server: ComfyServer, client_id: str | None = None, on_event=None):
        self.server = server
        self.client_id = client_id or uuid.uuid4().hex
        self.on_event = on_event
        self.events: list[tuple[float, str, dict]] = []
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.error = None

    def __enter__(self):
        self._thread.start()
        self._ready.wait(timeout=15)
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self):
        import asyncio

        try:
            asyncio.run(self._main())
        except Exception as e:  # never take the caller down: timings then fall back to /history
            self.error = e
            self._ready.set()

    async def _main(self):
        import aiohttp

        url = f"ws://{LOCALHOST}:{self.server.port}/ws?clientId={self.client_id}"
        async with aiohttp.ClientSession() as s:
            async with s.ws_connect(url, heartbeat=20) as ws:
                self._ready.set()
                while not self._stop.is_set():
                    try:
                        msg = await ws.receive(timeout=0.2)
                    except asyncio_timeout():
                        continue
                    if msg.type == aiohttp.WSMsgType.TEXT:
                        ev = json.loads(msg.data)
                        rec = (time.perf_counter(), ev.get("type"), ev.get("data") or {})
                        self.events.append(rec)
                        if self.on_event is not None:
                            try:
                                self.on_event(*rec)
                            except Exception:
                                pass
                    elif msg.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                        break

    def node_seconds(self, prompt_id: str) -> dict[str, float]:
        """Per-node wall time of one prompt: from its `executing` event to the next `executing` event."""
        seq = [(t, d.get("node")) for t, ty, d in self.events
               if ty == "executing" and d.get("prompt_id") == prompt_id]
        out = {}
        for (t0, node), (t1, _) in zip(seq, seq[1:], strict=False):
            if node is not None:
                out[str(node)] = out.get(str(node), 0.0) + (t1 - t0)
        return out


def asyncio_timeout():
    import asyncio

    return asyncio.TimeoutError


def comfy_cli(args: list[str], cwd, home, timeout: float = 180.0, cli_venv: str | os.PathLike | None = None,
              env: dict | None = None) -> subprocess.CompletedProcess:
    """Run comfy-cli (its own venv, made by scripts/setup_testbed.sh --test-tools) with HOME=home."""
    exe = find_comfy_cli(cli_venv)
    if exe is None:
        raise FileNotFoundError("comfy-cli not found: run `bash scripts/setup_testbed.sh --test-tools`")
    e = dict(os.environ)
    e.update({"HOME": str(home), "DO_NOT_TRACK": "1"})
    e.update(env or {})
    return subprocess.run([str(exe), "--skip-prompt", "--no-enable-telemetry", *args], cwd=str(cwd), env=e,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def find_comfy_cli(cli_venv=None) -> Path | None:
    cands = []
    if cli_venv:
        cands.append(Path(cli_venv))
    if os.environ.get("ACCEL_CLI_VENV"):
        cands.append(Path(os.environ["ACCEL_CLI_VENV"]))
    cands.append(Path(os.environ.get("ACCEL_TESTBED", REPO_ROOT / ".testbed")) / "cli-venv")
    for c in cands:
        exe = c / "bin" / "comfy"
        if exe.exists():
            return exe
    w = shutil.which("comfy")
    return Path(w) if w else None


@contextlib.contextmanager
def tiny_wan_server(base, model_name: str = "tiny_wan.safetensors"):
    """ComfyUI's main.py serving `base`, with a tiny random Wan 2.1 T2V file in models/diffusion_models
    (for API tests); stopped (and checked gone) on exit."""
    from . import models

    models.write_wan(Path(base) / "models" / "diffusion_models" / model_name, "t2v", "tiny")
    with serving(base) as srv:
        yield srv


@contextlib.contextmanager
def serving(base, **kwargs):
    """ComfyServer(base, **kwargs) started for the block, stopped (and checked gone) on exit."""
    srv = ComfyServer(base, **kwargs)
    try:
        srv.start(timeout=180)
        yield srv
    finally:
        srv.stop()
    assert not srv.alive()

