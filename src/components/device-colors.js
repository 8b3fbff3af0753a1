// The build's colour of each device (src/data/pages.zip.py device_colors.json: one palette slot
// per device, different for devices of one study or host), made every chart's default. vega.js
// imports this module, so any page that draws a chart, run pages included, colours devices the
// same way; a page that fails to load the file falls back to palette.js's stable hash slots.
import {FileAttachment} from "observablehq:stdlib";
import {deviceColorer} from "./palette.js";
import {useDeviceColors} from "./charts.js";

const payload = await FileAttachment("../data/pages/device_colors.json").json().catch(() => null);

/** device_id -> colour, as every chart draws it. */
export const colorOfDevice = deviceColorer(payload);
useDeviceColors(colorOfDevice);
