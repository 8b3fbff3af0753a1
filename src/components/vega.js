// Render a Vega-Lite spec with vega-embed, or a plain explanation when there is nothing to draw.
// Everything comes from node_modules: no CDN, no remote loaders. Vega is one module bundled from
// node_modules by observablehq.config.js (bundleVega): one request instead of ~60.
import vegaEmbed from "./vendor/vega-embed.js";
// Registers the build's device colours (device_colors.json) before any chart is drawn.
import "./device-colors.js";
import {param, setParams} from "./state.js";

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
 * `spec`: a Vega-Lite spec, or a function ({yScale}) => spec for charts with a log / linear
 * switch (charts.js specs say in usermeta.yScale whether their values call for one).
 * `rows`: the data drawn (an empty array means "nothing matches"); `empty`: the explanation.
 * `scaleParam`: the URL parameter that keeps the chosen value axis ("log" / "linear"; absent
 * means the chart's default: log when the values span more than 100x).
 * The element gets data-rendered="true" once drawn (tests and the budget script wait on it),
 * data-draw-started-at and data-rendered-at (performance.now() when its drawing began and
 * ended), and data-y-scale the value axis drawn.
 */
export function vegaChart(specOrBuild, {rows, empty = "No data matches the current selection.", name, key, scaleParam} = {}) {
  const build = typeof specOrBuild === "function" ? specOrBuild : () => specOrBuild;
  const wanted = scaleParam ? param(scaleParam) : null;
  const spec = build({yScale: wanted === "log" || wanted === "linear" ? wanted : undefined});
  const values = rows ?? spec?.data?.values;
  // A filter change that only changes the rows of a drawn chart swaps its data in place
  // (view.data) instead of compiling and building a new view: same key, same spec apart from
  // the rows, same renderer.
  const shape = key && Array.isArray(spec?.data?.values) && values.length ? shapeOf(spec, rendererFor(values)) : null;
  const live = key ? drawn.get(key) : null;
  if (shape && live && live.shape === shape) {
    live.container.build = build;
    live.container.scaleMeta = spec.usermeta?.yScale;
    live.container.setScale?.(spec.usermeta?.yScale);
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
  let target = document.createElement("div");
  container.append(target);
  const title = typeof spec?.title === "string" ? spec.title : [spec?.title?.text].flat().join(" ");
  const renderer = rendererFor(values);
  const options = {...EMBED_OPTIONS, renderer, downloadFileName: slug(name ?? title ?? "iopscope-chart")};
  // Named inline data, so a later update can replace exactly these rows.
  const named = shape ? {...spec, data: {name: DATA_NAME, values: spec.data.values}} : spec;
  let resolveReady;
  container.ready = new Promise((resolve) => (resolveReady = resolve));
  const embed = (into, chartSpec, chartShape) => vegaEmbed(into, chartSpec, options).then((result) => {
    container.classList.remove("pending");
    container.dataset.rendered = "true";
    container.dataset.renderedAt = String(performance.now());
    container.view = result.view;
    if (chartShape) drawn.set(key, {shape: chartShape, container});
    return result;
  }, (error) => {
    // A chart that cannot be drawn says so in its slot (and in the console, where the browser
    // tests look), rather than staying blank and pending for ever.
    container.classList.remove("pending");
    const note = document.createElement("p");
    note.className = "chart-error";
    note.textContent = `${title ? `${title}: ` : ""}this chart could not be drawn (${error?.message ?? error}).`;
    into.replaceChildren(note);
    container.dataset.failed = "true";
    container.dataset.renderedAt = String(performance.now());
    console.error("vega-embed:", error);
    return null;
  });
  const draw = () => {
    container.dataset.drawStartedAt = String(performance.now());
    return embed(target, named, shape).then(resolveReady);
  };
  // The log / linear switch redraws this chart only (with the rows of its latest update) and
  // keeps the choice in the URL.
  container.build = build;
  container.scaleMeta = spec.usermeta?.yScale;
  const redraw = (yScale) => {
    if (scaleParam) setParams({[scaleParam]: yScale}, {[scaleParam]: container.scaleMeta?.auto});
    const next = container.build({yScale});
    container.scaleMeta = next.usermeta?.yScale;
    container.dataset.yScale = container.scaleMeta?.type ?? "";
    const nextShape = key && Array.isArray(next?.data?.values) ? shapeOf(next, renderer) : null;
    if (key) drawn.delete(key);
    container.view?.finalize();
    const fresh = document.createElement("div");
    target.replaceWith(fresh);
    target = fresh;
    embed(target, nextShape ? {...next, data: {name: DATA_NAME, values: next.data.values}} : next, nextShape);
  };
  container.setScale = scaleSwitch(container, container.scaleMeta, redraw);
  container.dataset.yScale = container.scaleMeta?.type ?? "";
  // Charts are drawn when they come near the viewport: a page of ten charts draws the first
  // ones at once, and a filter change redraws only what can be seen.
  if (observer) {
    container.classList.add("pending");
    pending.set(container, {draw, since: performance.now()});
    observer.observe(container);
    scheduleSweep();
  } else {
    draw();
  }
  return container;
}

/**
 * Resolves when the first chart in `elements` (charts, or elements holding charts) is drawn or
 * has failed, or after `capMs` (a chart below the fold is drawn only when scrolled to). A page
 * that reads more data after its first charts waits on this: decoding that data would share the
 * main thread with drawing them.
 */
export function firstChartDrawn(elements, capMs = 1500) {
  const charts = elements.flatMap((e) => [e, ...(e?.querySelectorAll?.(".vega-chart") ?? [])]);
  const readies = charts.map((c) => c?.ready).filter(Boolean);
  if (!readies.length) return Promise.resolve();
  return Promise.race([...readies, new Promise((resolve) => setTimeout(resolve, capMs))]);
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
  return renderer + JSON.stringify({...spec, data: null, usermeta: null});
}

let switchCount = 0;

/**
 * The log / linear radio pair above a chart, shown while its values span an order of magnitude
 * or more (usermeta.yScale.offered). Returns a function that updates it for new data.
 */
function scaleSwitch(container, scale, redraw) {
  const name = `y-scale-${++switchCount}`;
  const box = document.createElement("div");
  box.className = "chart-scale";
  box.append(document.createTextNode("Value axis: "));
  const inputs = ["log", "linear"].map((value) => {
    const label = document.createElement("label");
    const input = document.createElement("input");
    Object.assign(input, {type: "radio", name, value});
    input.addEventListener("change", () => input.checked && redraw(value));
    label.append(input, document.createTextNode(` ${value} `));
    box.append(label);
    return input;
  });
  const hint = document.createElement("span");
  hint.className = "muted";
  box.append(hint);
  container.prepend(box);
  const update = (s) => {
    box.hidden = !s?.offered;
    for (const input of inputs) input.checked = input.value === s?.type;
    hint.textContent = s?.offered ? ` (values span ${Math.round(s.span).toLocaleString("en-US")}×)` : "";
  };
  update(scale);
  return update;
}

// container -> {draw, since}: charts created but not drawn yet.
const pending = new Map();
const REACH_PX = 100;

// Charts coming into view together are drawn one after another, each after the browser had a
// turn, the one highest on the page first (the observer reports them in its own order):
// vega-embed's steps are asynchronous, so charts started together interleave their compiling
// and drawing and all appear at the end. One at a time, the first is shown when it is ready (a
// run page's first chart ~150-200 ms sooner, docs/performance.md run 19).
const queue = [];
let drawing = false;

function drawPending(container) {
  const entry = pending.get(container);
  if (!entry) return;
  observer.unobserve(container);
  pending.delete(container);
  queue.push({container, draw: entry.draw});
  if (!drawing) {
    drawing = true;
    drawNext();
  }
}

function drawNext() {
  setTimeout(() => {
    if (!queue.length) {
      drawing = false;
      return;
    }
    queue.sort((a, b) => (a.container.compareDocumentPosition(b.container) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    const {draw} = queue.shift();
    Promise.resolve().then(draw).catch(() => {}).then(drawNext);
  }, 0);
}

const observer = typeof IntersectionObserver === "undefined" ? null : new IntersectionObserver((entries) => {
  for (const entry of entries) if (entry.isIntersecting) drawPending(entry.target);
}, {rootMargin: `${REACH_PX}px 0px`});

// IntersectionObserver reports only in the browser's rendering steps. A renderer that produces
// no frames for a while (seen in headless Chromium; the Observable runtime waits on frames too,
// but its cells had already run) never calls it, and a chart in plain view stays blank. So a
// slow timer also draws the pending charts within reach of the viewport. It runs only while
// charts are pending, and forgets ones that were replaced before they ever drew.
const SWEEP_MS = 250;
const FORGET_DETACHED_MS = 10000;
let sweepTimer = null;

function scheduleSweep() {
  if (sweepTimer === null && pending.size) sweepTimer = setTimeout(sweep, SWEEP_MS);
}

function sweep() {
  sweepTimer = null;
  const now = performance.now();
  for (const [container, {since}] of [...pending]) {
    if (!container.isConnected) {
      if (now - since > FORGET_DETACHED_MS) {
        observer.unobserve(container);
        pending.delete(container);
      }
      continue;
    }
    if (withinReach(container.getBoundingClientRect())) drawPending(container);
  }
  scheduleSweep();
}

/** Whether a box is shown (not inside display: none) and within REACH_PX of the viewport. */
function withinReach(rect, height = globalThis.innerHeight) {
  return rect.width > 0 && rect.top < height + REACH_PX && rect.bottom > -REACH_PX;
}

function slug(text) {
  return String(text).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 80) || "chart";
}
