// DuckDB-WASM over the shipped marts file, entirely self-hosted: the worker script and the
// wasm binary come from node_modules (import.meta.resolve makes Framework copy them into the
// build), only the "eh" bundle is shipped, and extension auto-loading is off so DuckDB never
// tries extensions.duckdb.org; after the marts file is attached, external access is off.
import * as duckdb from "@duckdb/duckdb-wasm";

const WASM_URL = import.meta.resolve("@duckdb/duckdb-wasm/dist/duckdb-eh.wasm");
const WORKER_URL = import.meta.resolve("@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js");

/** Open DuckDB with the warehouse bytes attached as `iopscope` (and selected). */
export async function openWarehouse(bytes) {
  const worker = new Worker(new URL(WORKER_URL, location.href), {type: "module"});
  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
  await db.instantiate(new URL(WASM_URL, location.href).href);
  await db.open({query: {castBigIntToDouble: true, castDecimalToDouble: true, castTimestampToDate: true}});
  await db.registerFileBuffer("iopscope.duckdb", new Uint8Array(bytes));
  const conn = await db.connect();
  await conn.query("SET autoinstall_known_extensions = false");
  await conn.query("SET autoload_known_extensions = false");
  await conn.query("ATTACH 'iopscope.duckdb' AS iopscope (READ_ONLY)");
  await conn.query("USE iopscope");
  // The console runs whatever a link's ?q= says: once the site's own file is attached, no
  // statement may reach anything else (read_text / read_csv / ATTACH / COPY ... TO over http,
  // extension downloads). The worker is not covered by the page's Content-Security-Policy
  // (a worker script carries its own, and static files send no headers), so DuckDB itself must
  // refuse; locking the configuration keeps a query from switching it back on.
  await conn.query("SET enable_external_access = false");
  await conn.query("SET lock_configuration = true");
  return {db, conn, worker};
}

/** Run one query; resolves to {columns, rows} with plain JS values (dates as ISO strings). */
export async function runQuery(conn, sql) {
  const result = await conn.query(sql);
  const columns = result.schema.fields.map((f) => f.name);
  const rows = [];
  for (const row of result) {
    const out = {};
    for (const name of columns) out[name] = plain(row[name]);
    rows.push(out);
  }
  return {columns, rows};
}

function plain(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString();
  }
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return [...value].map((b) => b.toString(16).padStart(2, "0")).join("");
  if (typeof value === "object") {
    if (typeof value.toJSON === "function") return JSON.stringify(value.toJSON(), (k, v) => (typeof v === "bigint" ? v.toString() : v));
    return String(value);
  }
  return value;
}

/** Inflate gzip bytes (the shipped warehouse.duckdb.gz); bytes already inflated pass through. */
export async function gunzip(buffer) {
  const bytes = new Uint8Array(buffer);
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes; // a server already decoded it
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
