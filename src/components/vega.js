// Render a Vega-Lite spec with vega-embed, or a plain explanation when there is nothing to draw.
// Everything comes from node_modules (bundled by Framework): no CDN, no remote loaders.
import vegaEmbed from "vega-embed";

const EMBED_OPTIONS = {
  renderer: "svg",
  // Keep PNG/SVG export; drop the actions that open the online Vega editor or show the source.
  actions: {export: {svg: true, png: true}, source: false, compiled: false, editor: false},
  // vega-tooltip escapes HTML in values (sanitize) so data never becomes markup.
  tooltip: {theme: "light"}
};

/**
 * A DOM element holding the chart, or an explanation if there is nothing to draw.
 * `rows`: the data drawn (an empty array means "nothing matches"); `empty`: the explanation.
 * The element gets data-rendered="true" once drawn (tests and the budget script wait on it).
 */
export function vegaChart(spec, {rows, empty = "No data matches the current selection.", name} = {}) {
  const container = document.createElement("div");
  container.className = "vega-chart";
  const values = rows ?? spec?.data?.values;
  if (values !== undefined && values.length === 0) {
    const note = document.createElement("p");
    note.className = "chart-empty";
    const title = typeof spec?.title === "string" ? spec.title : spec?.title?.text;
    if (title) {
      const strong = document.createElement("strong");
      strong.textContent = `${title}: `;
      note.append(strong);
    }
    note.append(document.createTextNode(empty)); // text nodes: data never becomes markup
    container.append(note);
    container.dataset.empty = "true";
    container.dataset.renderedAt = String(performance.now());
    return container;
  }
  const target = document.createElement("div");
  container.append(target);
  const title = typeof spec?.title === "string" ? spec.title : spec?.title?.text;
  const options = {...EMBED_OPTIONS, downloadFileName: slug(name ?? title ?? "iopscope-chart")};
  let resolveReady;
  container.ready = new Promise((resolve) => (resolveReady = resolve));
  const draw = () => {
    vegaEmbed(target, spec, options).then((result) => {
      container.classList.remove("pending");
      container.dataset.rendered = "true";
      container.dataset.renderedAt = String(performance.now());
      container.view = result.view;
      resolveReady(result);
    });
  };
  // Charts are drawn when they come near the viewport: a page of ten charts draws the first
  // ones at once, and a filter change redraws only what can be seen.
  if (observer) {
    container.classList.add("pending");
    pending.set(container, draw);
    observer.observe(container);
  } else {
    draw();
  }
  return container;
}

const pending = new WeakMap();
const observer = typeof IntersectionObserver === "undefined" ? null : new IntersectionObserver((entries) => {
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    observer.unobserve(entry.target);
    const draw = pending.get(entry.target);
    pending.delete(entry.target);
    draw?.();
  }
}, {rootMargin: "100px 0px"});

function slug(text) {
  return String(text).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 80) || "chart";
}
