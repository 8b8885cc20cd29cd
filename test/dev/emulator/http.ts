import type { Emulator } from "../../../dev/emulator/index.js";

export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** A GET against the emulator with the full key unless told otherwise (`key: null` sends none). */
export async function get<T = unknown>(
  emu: Emulator,
  path: string,
  opts: { key?: string | null; signal?: AbortSignal; method?: string } = {},
): Promise<Answer<T>> {
  const key = opts.key === undefined ? emu.apiKey : opts.key;
  const res = await fetch(emu.baseUrl + path, {
    method: opts.method ?? "GET",
    headers: key === null ? {} : { "x-api-key": key },
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as T };
}

/** A POST of JSON to a control route. */
export async function post<T = unknown>(emu: Emulator, path: string, body: unknown): Promise<Answer<T>> {
  const res = await fetch(emu.baseUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as T };
}

export interface ListBody<T> {
  data: T[];
  pagination: { page: number; limit: number; total: number; totalPages: number };
}

export interface ErrorBody {
  error: string;
  status: number;
}
