/**
 * What `JSON.parse(JSON.stringify(value))` returns, without writing and reading the text: the
 * card path copies every message's blocks twice (the builders' objects into plain ones, then
 * `fitBlocks`'s working copy), and the text round trip or `structuredClone` cost 8-12 µs a card
 * where this costs about 1. Plain objects, class instances (the builders' DTOs) and arrays are
 * copied here; anything else (a Date, a Map, a `toJSON`) goes through JSON itself.
 */
export function jsonCopy<T>(value: T): T {
  return copy(value) as T;
}

const { toString } = Object.prototype;

function copy(v: unknown): unknown {
  if (typeof v === "string" || typeof v === "boolean" || v === null) return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      // JSON writes an undefined, function or symbol array item as null.
      out[i] = skipped(item) ? null : copy(item);
    }
    return out;
  }
  if (
    typeof v === "object" &&
    toString.call(v) === "[object Object]" &&
    typeof (v as { toJSON?: unknown }).toJSON !== "function"
  ) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v)) {
      const item = (v as Record<string, unknown>)[key];
      // JSON leaves out undefined, function and symbol properties.
      if (skipped(item)) continue;
      // An own "__proto__" stays a property, as JSON.parse makes it.
      if (key === "__proto__") {
        Object.defineProperty(out, key, {
          value: copy(item),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else out[key] = copy(item);
    }
    return out;
  }
  return JSON.parse(JSON.stringify(v) as string) as unknown;
}

const skipped = (v: unknown) => v === undefined || typeof v === "function" || typeof v === "symbol";
