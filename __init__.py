"""comfyui-accel: make diffusion inference as fast as the GPU allows, without changing the result.

ComfyUI loads this file at start-up. It registers the nodes of `nodes/` and imports nothing heavy:
attention libraries, triton and ComfyUI internals are imported when a node runs. A missing optional
package (triton, flash-attn, sageattention, xformers) never stops the pack from loading.
"""
if __package__:
    from .nodes import IMPORT_ERRORS, NODE_CLASS_MAPPINGS, NODE_DISPLAY_NAME_MAPPINGS
else:
    # Imported as a loose file, not as a package: pytest does this when the checkout's folder name is not
    # a Python identifier (e.g. `comfyui-accel`, `wt-demo`), to look for setup_module. Register nothing.
    IMPORT_ERRORS, NODE_CLASS_MAPPINGS, NODE_DISPLAY_NAME_MAPPINGS = {}, {}, {}

__version__ = "0.1.0"
WEB_DIRECTORY = None

__all__ = ["NODE_CLASS_MAPPINGS", "NODE_DISPLAY_NAME_MAPPINGS", "IMPORT_ERRORS", "__version__"]
