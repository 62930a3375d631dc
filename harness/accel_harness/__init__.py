"""Test/demo/bench harness: a real ComfyUI imported as a library, tiny or true random-weight models.

Not part of the node pack (excluded from the registry archive). Import it with
`sys.path.insert(0, "<repo>/harness")`; never put the repo root itself on sys.path (our `nodes/`
package would shadow ComfyUI's `nodes` module).
"""
from .env import (  # noqa: F401
    REPO_ROOT,
    bootstrap,
    call_node,
    comfy_root,
    comfy_version,
    lab_module,
    load_pack,
    pack_module,
    pack_nodes,
)
