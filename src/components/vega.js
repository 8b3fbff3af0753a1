// Render a Vega-Lite spec with vega-embed, or a plain explanation when there is nothing to draw.
// Everything comes from node_modules (bundled by Framework): no CDN, no remote loaders.
import vegaEmbed from "vega-embed";

const EMBED_OPTIONS = {
  renderer: "svg",
  // Keep PNG/SVG export; drop the actions that open the online Vega editor.
  actions: {export: true, source: false, compiled: false, editor: false}
};

/** A DOM element holding the chart, or an explanation if `rows` is empty. */
export function vegaChart(spec, {rows, empty = "No data matches the current selection."} = {}) {
  const container = document.createElement("div");
  container.className = "vega-chart";
  if (rows !== undefined && rows.length === 0) {
    const note = document.createElement("p");
    note.className = "chart-empty";
    note.textContent = empty; // textContent: data never becomes markup
    container.append(note);
    return container;
  }
  const target = document.createElement("div");
  container.append(target);
  container.ready = vegaEmbed(target, spec, EMBED_OPTIONS).then((result) => {
    container.dataset.rendered = "true";
    return result;
  });
  return container;
}
