// Render a Vega-Lite spec with vega-embed, or a plain explanation when there is nothing to draw.
// Everything comes from node_modules (bundled by Framework): no CDN, no remote loaders.
import vegaEmbed from "vega-embed";

const CANVAS_ABOVE = 2000;
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
export function vegaChart(spec, {rows, empty = "No data matches the current selection.", name, key} = {}) {
  const values = rows ?? spec?.data?.values;
  // A filter change that only changes the rows of a drawn chart swaps its data in place
  // (view.data) instead of compiling and building a new view: same key, same spec apart from
  // the rows, same renderer.
  const shape = key && Array.isArray(spec?.data?.values) && values.length ? shapeOf(spec, rendererFor(values)) : null;
  const live = key ? drawn.get(key) : null;
  if (shape && live && live.shape === shape) {
    live.container.dataset.updating = "true";
    live.container.view.data(DATA_NAME, spec.data.values).runAsync().then(() => {
      delete live.container.dataset.updating;
      live.container.dataset.renderedAt = String(performance.now());
    });
    return live.container;
  }
  if (key) drawn.delete(key);
  const container = document.createElement("div");
  container.className = "vega-chart";
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
  const renderer = rendererFor(values);
  const options = {...EMBED_OPTIONS, renderer, downloadFileName: slug(name ?? title ?? "iopscope-chart")};
  // Named inline data, so a later update can replace exactly these rows.
  const named = shape ? {...spec, data: {name: DATA_NAME, values: spec.data.values}} : spec;
  let resolveReady;
  container.ready = new Promise((resolve) => (resolveReady = resolve));
  const draw = () => {
    vegaEmbed(target, named, options).then((result) => {
      container.classList.remove("pending");
      container.dataset.rendered = "true";
      container.dataset.renderedAt = String(performance.now());
      container.view = result.view;
      if (shape) drawn.set(key, {shape, container});
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

// SVG keeps every mark in the DOM (tests count them); past CANVAS_ABOVE rows canvas draws the
// same chart several times faster.
function rendererFor(values) {
  return (values?.length ?? 0) > CANVAS_ABOVE ? "canvas" : EMBED_OPTIONS.renderer;
}

const DATA_NAME = "rows";
// key -> the drawn chart whose data a later call may replace.
const drawn = new Map();

/** Everything about a spec except its rows (and the renderer): equal shapes differ only in data. */
function shapeOf(spec, renderer) {
  return renderer + JSON.stringify({...spec, data: null});
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
