// One colour per device, the same in every chart of every page. Colour means "which device" and
// nothing else: conditions (source, page size, connections ...) are drawn with dash or shape.
//
// The build assigns each device a slot (src/data/pages.zip.py, device_colors.json): devices that
// are ever shown together (same study or host) get different slots, so within any study no two
// devices share a colour. Slots index PALETTE; a device the build did not know gets a slot from
// a hash of its id, which is stable too.

/**
 * Sixteen colours: first twelve that stay apart for the common colour-vision deficiencies (the
 * Okabe-Ito set without its yellow, too pale on white, then Paul Tol's "muted" colours), then
 * four more. The first entries are the most distinct, and the build hands them out first.
 */
export const PALETTE = [
  "#0072B2", // blue
  "#E69F00", // orange
  "#009E73", // bluish green
  "#CC79A7", // reddish purple
  "#56B4E9", // sky blue
  "#D55E00", // vermillion
  "#332288", // indigo
  "#999933", // olive
  "#882255", // wine
  "#44AA99", // teal
  "#AA4499", // purple
  "#555555", // dark grey
  // Past twelve devices shown together (the sizing page ticks the whole catalog) colour alone
  // cannot stay colour-blind safe; these four keep every device of the bundled catalog apart for
  // everyone else, and labels and tooltips name each device anyway.
  "#661100", // brown
  "#DDCC77", // sand
  "#117733", // forest green
  "#000000" // black
];

/** Colour of a palette slot (slots past the palette wrap around). */
export function slotColor(slot) {
  const n = PALETTE.length;
  return PALETTE[((Math.trunc(slot) % n) + n) % n];
}

/** A stable slot for an id the build did not colour (FNV-1a of its characters). */
export function hashSlot(id) {
  let h = 0x811c9dc5;
  for (const ch of String(id)) {
    h ^= ch.codePointAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % PALETTE.length;
}

/**
 * device_id -> colour, from the build's device_colors.json payload ({exists, slots: {id: slot}}).
 * Works without the payload (every device then gets its hash slot).
 */
export function deviceColorer(payload) {
  const slots = payload?.exists ? payload.slots ?? {} : {};
  return (id) => slotColor(Object.hasOwn(slots, id) ? slots[id] : hashSlot(id));
}

/**
 * A Vega-Lite colour encoding keyed by device: `field` holds what the legend shows (a device
 * label), `rows` the rows drawn. Domain and range list only the devices in `rows`, so the legend
 * never names a device that is not plotted, and each keeps its one colour.
 */
export function deviceColorEncoding(rows, {field = "device_label", idField = "device_id", colorOf, title = "Device", legend} = {}) {
  const seen = new Map();
  for (const r of rows) {
    const label = r[field];
    if (label !== null && label !== undefined && !seen.has(label)) seen.set(label, colorOf(r[idField]));
  }
  const domain = [...seen.keys()].sort((a, b) => String(a).localeCompare(String(b)));
  return {
    field, type: "nominal", title,
    scale: {domain, range: domain.map((d) => seen.get(d))},
    ...(legend === undefined ? {} : {legend})
  };
}
