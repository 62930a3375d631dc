"""Run an API-format prompt headless through ComfyUI's own validate_prompt + PromptExecutor."""
from __future__ import annotations

import asyncio
import uuid


class StandInServer:
    """The few attributes PromptExecutor uses of PromptServer."""

    def __init__(self):
        self.client_id = None
        self.last_node_id = None
        self.last_prompt_id = None
        self.messages = []
        self.sockets_metadata = {}

    def send_sync(self, event, data, sid=None):
        self.messages.append((event, data))

    def queue_updated(self):
        pass


def validate(prompt: dict):
    """ComfyUI's validate_prompt: returns (ok, error, outputs_to_execute, node_errors)."""
    import execution

    return asyncio.run(execution.validate_prompt(str(uuid.uuid4()), prompt, None))


def run_prompt(prompt: dict, executor=None, extra_data: dict | None = None):
    """Validate and execute; returns (executor, history_result). Raises with ComfyUI's own error text. `extra_data`:
    what a client sends beside the prompt (e.g. {"extra_pnginfo": {"workflow": ...}}, which Save nodes embed)."""
    import execution

    ok, error, outputs, node_errors = validate(prompt)
    if not ok:
        raise RuntimeError(f"prompt failed validation: {error} {node_errors}")
    server = StandInServer()
    if executor is None:
        # 0.33 reads cache_args["ram_inactive"] unconditionally (KeyError if absent); 0.3.75 ignores it.
        cache_args = {"lru": 0, "ram": 0, "ram_inactive": 0}
        executor = execution.PromptExecutor(server, cache_type=execution.CacheType.CLASSIC, cache_args=cache_args)
    else:
        executor.server = server
    pid = str(uuid.uuid4())
    executor.execute(prompt, pid, dict(extra_data or {}), outputs)
    if not executor.success:
        errs = [d for e, d in executor.status_messages if e == "execution_error"]
        raise RuntimeError(f"prompt failed: {errs}")
    return executor, executor.history_result
