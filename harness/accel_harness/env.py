"""Import ComfyUI as a library (both 0.3.75 and 0.33.x) and load this pack through ComfyUI's own loader."""
from __future__ import annotations

import asyncio
import importlib
import os
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
PACK_LINK_NAME = "comfyui_accel"

_state: dict = {}


def comfy_root() -> Path:
    """COMFYUI_PATH if set, else the test bed built by scripts/setup_testbed.sh."""
    env = os.environ.get("COMFYUI_PATH")
    if env:
        p = Path(env)
    else:
        marker = Path(os.environ.get("ACCEL_TESTBED", REPO_ROOT / ".testbed")) / "comfyui_path"
        if not marker.exists():
            raise RuntimeError("No ComfyUI found: set COMFYUI_PATH, or run `bash scripts/setup_testbed.sh` first")
        p = Path(marker.read_text().strip())
    if not (p / "comfy" / "model_patcher.py").exists():
        raise RuntimeError(f"{p} is not a ComfyUI tree (no comfy/model_patcher.py)")
    return p


def comfy_version() -> str:
    """The imported ComfyUI's version (its comfyui_version.py), or "unknown" for a tree without one."""
    try:
        import comfyui_version

        return str(comfyui_version.__version__)
    except Exception:  # noqa: BLE001 - a missing or broken file: the version is unknown, nothing else
        return "unknown"


def bootstrap(base_dir: str | os.PathLike | None = None, cpu: bool | None = None) -> Path:
    """Make `import comfy…`, `nodes`, `execution` work headless. Idempotent.

    base_dir holds this run's models/, output/, temp/, input/, user/ and custom_nodes/ (a temp dir by
    default), so tests never write into the ComfyUI tree.
    """
    if "base" in _state:
        return _state["base"]
    root = comfy_root()
    base = Path(base_dir) if base_dir else Path(tempfile.mkdtemp(prefix="accel-comfy-"))
    base.mkdir(parents=True, exist_ok=True)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch

    if cpu is None:
        cpu = not torch.cuda.is_available()
    import comfy.options  # noqa: F401  (args parsing stays off: defaults)
    from comfy.cli_args import args

    if cpu:
        args.cpu = True  # trap 1: before comfy.model_management is imported
    import utils.extra_config  # noqa: F401  trap 2: before `nodes` puts comfy/ first on sys.path
    # isort: split
    import folder_paths

    for sub in ("output", "temp", "input", "user", "custom_nodes", "models/diffusion_models"):
        (base / sub).mkdir(parents=True, exist_ok=True)
    folder_paths.set_output_directory(str(base / "output"))
    folder_paths.set_temp_directory(str(base / "temp"))
    folder_paths.set_input_directory(str(base / "input"))
    if hasattr(folder_paths, "set_user_directory"):
        folder_paths.set_user_directory(str(base / "user"))
    for kind in ("diffusion_models", "unet", "loras", "checkpoints", "vae", "text_encoders", "clip_vision"):
        (base / "models" / kind).mkdir(parents=True, exist_ok=True)
        folder_paths.add_model_folder_path(kind, str(base / "models" / kind), is_default=True)
    import nodes  # noqa: F401
    # isort: split
    import execution  # noqa: F401

    _state["base"] = base
    return base


def load_pack():
    """Load built-in extras, then this pack through `nodes.load_custom_node`; return the pack module.

    Raises if ComfyUI reports the import as failed or any of our node modules failed to import.
    """
    if "pack" in _state:
        return _state["pack"]
    base = bootstrap()
    import nodes

    asyncio.run(nodes.init_extra_nodes(init_custom_nodes=False, init_api_nodes=False))
    link = base / "custom_nodes" / PACK_LINK_NAME
    if not link.exists():
        link.symlink_to(REPO_ROOT, target_is_directory=True)
    ok = asyncio.run(nodes.load_custom_node(str(link), set(nodes.NODE_CLASS_MAPPINGS), module_parent="custom_nodes"))
    if not ok:
        raise RuntimeError("ComfyUI reported IMPORT FAILED for comfyui-accel (see the log above)")
    name = str(link).replace(".", "_x_")
    pack = sys.modules[name]
    errors = pack.nodes.IMPORT_ERRORS
    if errors:
        raise RuntimeError("comfyui-accel node modules failed to import:\n" + "\n".join(errors.values()))
    _state["pack"] = pack
    return pack


def pack_nodes() -> dict:
    """{node id: node class} of the pack as ComfyUI loaded it (the pack registers them through
    comfy_entrypoint; this is the same list by id)."""
    return load_pack().nodes.NODE_CLASS_MAPPINGS


def call_node(node, *args, unique_id: str | None = None, hidden: dict | None = None, **kwargs) -> dict:
    """Run one V3 node of the pack the way ComfyUI's executor does (a class clone carrying the hidden inputs,
    then EXECUTE_NORMALIZED), outside a prompt. `node` is a node id or class; positional `args` fill the
    schema's inputs in declared order; `hidden`: other hidden inputs by name ({"prompt": ..., "extra_pnginfo": ...}).
    Returns {"ui": the ui payload as the frontend gets it (JSON), "result": the output tuple}, the shape the pack's
    V1 nodes returned."""
    import json

    from comfy_api.latest import io

    cls = pack_nodes()[node] if isinstance(node, str) else node
    names = [i.id for i in cls.GET_SCHEMA().inputs]
    if len(args) > len(names):
        raise TypeError(f"{cls.__name__}: {len(args)} positional inputs for {len(names)} declared")
    for name, value in zip(names, args, strict=False):
        if name in kwargs:
            raise TypeError(f"{cls.__name__}: input {name!r} given twice")
        kwargs[name] = value
    hidden = {io.Hidden.unique_id: unique_id, **{getattr(io.Hidden, k): v for k, v in (hidden or {}).items()}}
    # 0.3.75 takes the hidden inputs, 0.33 a V3Data dict holding them
    v3 = hasattr(io, "V3Data") or hasattr(io.HiddenHolder, "from_v3_data")
    clone = cls.PREPARE_CLASS_CLONE({"hidden_inputs": hidden} if v3 else hidden)
    out = clone.EXECUTE_NORMALIZED(**kwargs)
    ui = out.ui.as_dict() if hasattr(out.ui, "as_dict") else out.ui
    return {"ui": json.loads(json.dumps(ui)) if ui is not None else None, "result": tuple(out.args)}


def pack_module(sub: str):
    """A submodule of the pack as ComfyUI loaded it (one copy of every module): pack_module('accel.common.hardware')."""
    pack = load_pack()
    return importlib.import_module(f"{pack.__name__}.{sub}")


def lab_module(name: str, rel: str):
    """A module of the repository that is no package (bench/*.py, scripts/*.py), loaded by path once under `name`
    (kept in sys.modules: dataclasses look their module up there)."""
    import importlib.util

    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO_ROOT / rel)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]
