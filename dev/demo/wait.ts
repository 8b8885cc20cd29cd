import { isAbsolute, relative } from "node:path";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every 50 ms until it gives something, or `ms` pass (then undefined). */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  ms: number,
): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) return undefined;
    await sleep(50);
  }
}

/** Relative to the working directory when inside it, else absolute. */
export function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}
