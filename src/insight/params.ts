import { InsightError } from "./errors.js";
import { MAX_LIMIT, RANGES, SORTS, type Range, type Sort } from "./schemas.js";

/** The common query parameters of the listings (interface 4.7). */
export type ListParams = { page?: number; limit?: number; range?: Range; sort?: Sort };

/** A query string's parameters in sending order; undefined values are left out. */
export type Query = Array<[string, string]>;

const invalid = (message: string) => new InsightError("invalid_params", message);

/**
 * Checks the common parameters before anything is sent, so a typo costs no request and the
 * caller gets one precise message instead of whatever the service answers to it.
 */
export function checkListParams(p: ListParams): void {
  if (p.page !== undefined && !(Number.isInteger(p.page) && p.page >= 1)) {
    throw invalid(`page must be a whole number of at least 1 (got ${String(p.page)})`);
  }
  if (p.limit !== undefined && !(Number.isInteger(p.limit) && p.limit >= 1 && p.limit <= MAX_LIMIT)) {
    throw invalid(`limit must be a whole number from 1 to ${MAX_LIMIT} (got ${String(p.limit)})`);
  }
  if (p.range !== undefined && !(RANGES as readonly string[]).includes(p.range)) {
    throw invalid(`range must be one of ${RANGES.join(", ")} (got ${String(p.range)})`);
  }
  if (p.sort !== undefined && !(SORTS as readonly string[]).includes(p.sort)) {
    throw invalid(`sort must be one of ${SORTS.join(", ")} (got ${String(p.sort)})`);
  }
}

/** An identifier that goes into a path: non-empty text (it is URL-encoded when sent). */
export function checkId(name: string, value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw invalid(`${name} must be a non-empty string`);
  }
  return value;
}

/** The query of a listing: the common parameters in a fixed order, then the extras. */
export function listQuery(p: ListParams, extra: Record<string, string | undefined> = {}): Query {
  checkListParams(p);
  const q: Query = [];
  if (p.page !== undefined) q.push(["page", String(p.page)]);
  if (p.limit !== undefined) q.push(["limit", String(p.limit)]);
  if (p.range !== undefined) q.push(["range", p.range]);
  if (p.sort !== undefined) q.push(["sort", p.sort]);
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) q.push([k, v]);
  return q;
}

/**
 * The search query. Its parameters are not shown in the interface: the text goes under
 * `searchParam`, page and limit follow the common rules, and `extra` passes anything else
 * through (it cannot replace the text, page or limit).
 */
export function searchQuery(
  searchParam: string,
  text: string,
  p: { page?: number; limit?: number; extra?: Record<string, string> },
): Query {
  if (typeof text !== "string" || text.trim() === "") throw invalid("search text must not be empty");
  checkListParams({ page: p.page, limit: p.limit });
  const q: Query = [[searchParam, text]];
  if (p.page !== undefined) q.push(["page", String(p.page)]);
  if (p.limit !== undefined) q.push(["limit", String(p.limit)]);
  const reserved = new Set([searchParam, "page", "limit"]);
  for (const [k, v] of Object.entries(p.extra ?? {})) {
    if (reserved.has(k)) throw invalid(`extra search parameter ${k} would replace a named one`);
    if (typeof v !== "string") throw invalid(`extra search parameter ${k} must be text`);
    q.push([k, v]);
  }
  return q;
}

/** `path?query`, each name and value percent-encoded. */
export function withQuery(path: string, q: Query): string {
  if (q.length === 0) return path;
  return `${path}?${new URLSearchParams(q).toString()}`;
}
