// comfyui-accel: show each node's report text under the node.
//
// Every node of the pack returns its report as ui.PreviewText (the `text` of the "executed" message). The
// stock frontends (1.32, 1.49) draw that text only for the core PreviewAny node, so this extension does the
// same for the pack's nodes: on execution it adds (once) a read-only multiline text widget named
// "accel_report" and puts the text in it. The widget is not serialized: saved workflows and the API prompt
// stay as they were. The pack's nodes are recognised by their python_module ("custom_nodes.<this folder>").
import { app } from "../../scripts/app.js";
import { ComfyWidgets } from "../../scripts/widgets.js";

const PACK_MODULE = "custom_nodes." + decodeURIComponent(new URL(import.meta.url).pathname.split("/").slice(-2, -1)[0]);
const WIDGET = "accel_report";

function showReport(node, text) {
  let widget = node.widgets?.find((w) => w.name === WIDGET);
  if (!widget) {
    widget = ComfyWidgets.STRING(node, WIDGET, ["STRING", { multiline: true }], app).widget;
    widget.serialize = false;
    widget.options = Object.assign(widget.options || {}, { serialize: false, read_only: true });
    if (widget.element) {
      widget.element.readOnly = true;
      widget.element.classList?.add("accel-report");
    }
    const min = node.computeSize?.();
    if (min) node.setSize?.([Math.max(node.size[0], min[0], 400), Math.max(node.size[1], min[1], 240)]);
  }
  widget.value = text;
  node.setDirtyCanvas?.(true, true);
}

app.registerExtension({
  name: "comfyui-accel.hardware-text",
  async beforeRegisterNodeDef(nodeType, nodeData) {
    if (nodeData?.python_module !== PACK_MODULE) return;
    const onExecuted = nodeType.prototype.onExecuted;
    nodeType.prototype.onExecuted = function (output) {
      onExecuted?.apply(this, arguments);
      const text = output?.text;
      if (text != null && text.length) showReport(this, Array.isArray(text) ? text.join("\n") : String(text));
    };
  },
});
