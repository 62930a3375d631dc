"""Step-cache statistics: one RunStats per finished sampling run, kept per config id and per node id, and the
lines a node's report shows about them."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

from .keys import KEY

_LAST: dict = {}  # config id -> RunStats of the last finished run (bounded)
_NODE_LAST: dict = {}  # ComfyUI node id -> RunStats of the last run of a MODEL that node produced
_RUNS: dict = {}  # config id -> number of finished runs
_LOCK = threading.Lock()


@dataclass
class RunStats:
    mode: str
    set_name: str
    title: str  # the node that configured the cache (its run reports name it)
    evaluations: int = 0
    computed: int = 0
    skipped: int = 0
    steps: int = 0
    seconds: float = 0.0
    pattern: str = ""
    notes: list = field(default_factory=list)
    run_index: int = 0
    trace: list = field(default_factory=list)  # per model call: (schedule step, {branch: TeaCache input change})
    measures: dict = field(default_factory=dict)  # any_model mode: estimated / measured residual change
    recording: bool = False  # a calibration run: records, never skips

    @property
    def speedup(self) -> float:
        return self.evaluations / self.computed if self.computed else 1.0

    def text(self) -> str:
        if self.recording:
            head = (f"{self.title} run {self.run_index}: recorded {self.evaluations} model evaluations "
                    f"({self.steps} steps, nothing skipped) in {self.seconds:.1f} s")
        else:
            head = (f"{self.title} run {self.run_index}: computed {self.computed}/{self.evaluations} model "
                    f"evaluations, skipped {self.skipped} ({self.steps} steps, {self.seconds:.1f} s incl. model "
                    f"loading); estimated speed-up of the transformer blocks {self.speedup:.2f}x "
                    f"(embeddings, head, VAE and text encoder are not skipped, so end-to-end is less)")
        lines = [head]
        if self.pattern:
            lines.append(f"  steps: {self.pattern}  (# computed, . skipped)")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def record_run(cid: str, node_id, stats: RunStats) -> None:
    """Keep `stats` as the last finished run of config `cid` (and of ComfyUI node `node_id`); numbers the run."""
    with _LOCK:
        _RUNS[cid] = stats.run_index = _RUNS.get(cid, 0) + 1
        _LAST.pop(cid, None)
        _LAST[cid] = stats
        if node_id is not None:
            _NODE_LAST[str(node_id)] = stats
        while len(_LAST) > 256:
            _LAST.pop(next(iter(_LAST)))


def last_stats(model_or_id):
    """RunStats of the last finished run of a cache node's MODEL (or its config id); None before any run."""
    cid = model_or_id
    if not isinstance(model_or_id, str):
        cfg = model_or_id.model_options.get("transformer_options", {}).get(KEY)
        cid = cfg and cfg.get("id")
    return _LAST.get(cid)


def _node_stats(node_id) -> RunStats | None:
    return None if node_id is None else _NODE_LAST.get(str(node_id))


def stats_lines(node_id, cfg_id=None):
    prev = _node_stats(node_id)
    lines = ["Statistics are measured during sampling, after this text is produced: each run logs a line "
             "'accel: <node> run N: computed X/Y ...' and sends it to the frontend as this node's progress "
             "text; this report shows the last run of this node when the node executes again (changed inputs)."]
    lines.append("Last run of this node: " + (prev.text() if prev else "none yet in this session"))
    return lines
