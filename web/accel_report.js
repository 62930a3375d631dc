// comfyui-accel: show each node's report under the node, its first screen open and its details one click away.
//
// Every node of the pack returns its report as ui.PreviewText (the `text` of the "executed" message). The
// stock frontends (1.32, 1.49) draw that text only for the core PreviewAny node, so this extension does the
// same for the pack's nodes: on execution it adds (once) a read-only multiline text widget named
// "accel_report" and puts the report's first screen in it (at most six lines: what ran, the measured gain, what
// to install or change for more). A report with details (the lines after "-- details --": reasons, sources,
// fidelity) also gets a button that shows or hides them. Neither widget is serialized: saved workflows and the API
// prompt stay as they were. The whole text is also the node's STRING output and in the prompt's history. The
// pack's nodes are recognised by their python_module ("custom_nodes.<this folder>").
import { app } from "../../scripts/app.js";
import { ComfyWidgets } from "../../scripts/widgets.js";

const PACK_MODULE = "custom_nodes." + decodeURIComponent(new URL(import.meta.url).pathname.split("/").slice(-2, -1)[0]);
const WIDGET = "accel_report";
const BUTTON = "accel_report_details";
const DETAILS = "\n-- details --\n"; // accel/common/report.py DETAILS, between the first screen and the details

function unsaved(widget) {
  widget.serialize = false;
  widget.options = Object.assign(widget.options || {}, { serialize: false });
  return widget;
}

function reportWidget(node) {
  let widget = node.widgets?.find((w) => w.name === WIDGET);
  if (!widget) {
    widget = unsaved(ComfyWidgets.STRING(node, WIDGET, ["STRING", { multiline: true }], app).widget);
    widget.options.read_only = true;
    if (widget.element) {
      widget.element.readOnly = true;
      widget.element.classList?.add("accel-report");
    }
    const min = node.computeSize?.();
    if (min) node.setSize?.([Math.max(node.size[0], min[0], 400), Math.max(node.size[1], min[1], 240)]);
  }
  return widget;
}

function detailsButton(node) {
  let button = node.widgets?.find((w) => w.name === BUTTON);
  if (!button) {
    button = unsaved(node.addWidget("button", BUTTON, null, () => {
      node.accelReportOpen = !node.accelReportOpen;
      render(node);
    }));
  }
  return button;
}

function render(node) {
  const { first, details } = node.accelReport;
  const open = Boolean(node.accelReportOpen && details);
  reportWidget(node).value = open ? first + DETAILS + details : first;
  if (details) {
    const n = details.split("\n").length;
    detailsButton(node).label = open ? "hide details" : `show details (${n} more line${n === 1 ? "" : "s"})`;
  }
  node.setDirtyCanvas?.(true, true);
}

function showReport(node, text) {
  const at = text.indexOf(DETAILS);
  node.accelReport = at < 0 ? { first: text, details: "" }
    : { first: text.slice(0, at), details: text.slice(at + DETAILS.length) };
  render(node);
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
