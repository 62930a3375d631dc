"""comfyui-accel: make diffusion inference as fast as the GPU allows.

ComfyUI loads this file at start-up and registers the nodes of `nodes/` through `comfy_entrypoint` (the V3
node API). It imports nothing heavy: attention libraries, triton and ComfyUI internals are imported when a
node runs. A missing optional package (triton, flash-attn, sageattention, xformers) never stops the pack from
loading. `web/` holds the small frontend extension that shows each node's report text under the node.
"""
if __package__:
    from .nodes import comfy_entrypoint
else:
    # Imported as a loose file, not as a package: pytest does this when the checkout's folder name is not
    # a Python identifier (e.g. `comfyui-accel`, `wt-demo`), to look for setup_module. Register nothing.
    comfy_entrypoint = None

__version__ = "0.1.0"
WEB_DIRECTORY = "web"

__all__ = ["comfy_entrypoint", "__version__"]
