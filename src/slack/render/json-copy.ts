/**
 * What `JSON.parse(JSON.stringify(value))` returns, without writing and reading the text: the
 * card path copies every message's blocks twice (the builders' objects into plain ones, then
 * `fitBlocks`'s working copy), and the text round trip or `structuredClone` cost 8-12 µs a card
 * where this costs about 1. Plain objects, class instances (the builders' DTOs), arrays and
 * `toJSON` are handled here as JSON handles them; anything else (a Map, a typed array, a boxed
 * value) goes through JSON itself. Values JSON cannot write throw, as JSON.stringify does.
 */
export function jsonCopy<T>(value: T): T {
  const out = copy("", value);
  if (out === SKIP) throw new TypeError("jsonCopy: JSON writes nothing for this value");
  return out as T;
}

/** What JSON leaves out of an object (and writes as null in an array). */
const SKIP = Symbol("skip");
const { toString } = Object.prototype;

function copy(key: string, value: unknown): unknown {
  let v = value;
  if (typeof v === "object" && v !== null && typeof (v as { toJSON?: unknown }).toJSON === "function") {
    v = (v as { toJSON(key: string): unknown }).toJSON(key);
  }
  if (typeof v === "string" || typeof v === "boolean" || v === null) return v;
  // `+ 0`: JSON writes -0 as 0.
  if (typeof v === "number") return Number.isFinite(v) ? v + 0 : null;
  if (v === undefined || typeof v === "function" || typeof v === "symbol") return SKIP;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      const item = copy(String(i), v[i]);
      out[i] = item === SKIP ? null : item;
    }
    return out;
  }
  if (typeof v === "object" && toString.call(v) === "[object Object]") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      const item = copy(k, (v as Record<string, unknown>)[k]);
      if (item === SKIP) continue;
      // An own "__proto__" stays a property, as JSON.parse makes it.
      if (k === "__proto__") {
        Object.defineProperty(out, k, { value: item, enumerable: true, writable: true, configurable: true });
      } else out[k] = item;
    }
    return out;
  }
  return JSON.parse(JSON.stringify(v) as string) as unknown;
}
