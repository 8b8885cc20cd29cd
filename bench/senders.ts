// How bench:steady sends deliveries. At a fixed rate, one at a time on one HTTP connection, as a
// service with a steady trickle sends them: each at its scheduled time, or right after the
// previous acknowledgement when that came late; each acknowledgement's time (send to the end of
// the answer) is kept. Or all at once, a few in flight (the bytes-kept row fills Redis so).
import { Client, Pool } from "undici";

export interface PacedResult {
  sent: number;
  ok: number;
  /** Answers by status (network errors under 0). */
  statuses: Map<number, number>;
  /** Each acknowledgement's time, ms. */
  ackMs: number[];
  /** Deliveries sent later than scheduled because the one before was not yet answered. */
  late: number;
  seconds: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends `rate` × `seconds` deliveries to `url` (origin + path), bodies from `next()`. */
export async function sendPaced(o: {
  url: string;
  rate: number;
  seconds: number;
  next: () => string;
}): Promise<PacedResult> {
  const u = new URL(o.url);
  const client = new Client(u.origin, { pipelining: 1 });
  const n = Math.round(o.rate * o.seconds);
  const gapMs = 1000 / o.rate;
  const result: PacedResult = { sent: 0, ok: 0, statuses: new Map(), ackMs: [], late: 0, seconds: 0 };
  const t0 = performance.now();
  try {
    for (let i = 0; i < n; i++) {
      const due = t0 + i * gapMs;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      else if (wait < -gapMs) result.late += 1;
      const body = o.next();
      const sent = performance.now();
      let status = -1;
      try {
        const res = await client.request({
          method: "POST",
          path: u.pathname,
          headers: { "content-type": "application/json" },
          body,
        });
        await res.body.dump();
        status = res.statusCode;
      } catch {
        // counted below as a status of -1
      }
      result.ackMs.push(performance.now() - sent);
      result.sent += 1;
      result.statuses.set(status, (result.statuses.get(status) ?? 0) + 1);
      if (status >= 200 && status < 300) result.ok += 1;
    }
  } finally {
    result.seconds = (performance.now() - t0) / 1000;
    await client.close();
  }
  return result;
}

/** Sends `n` deliveries to `url` as fast as they are acknowledged, `inFlight` at a time; the 2xx count. */
export async function sendAtOnce(o: {
  url: string;
  n: number;
  inFlight: number;
  next: () => string;
}): Promise<number> {
  const u = new URL(o.url);
  const pool = new Pool(u.origin, { connections: o.inFlight });
  let sent = 0;
  let ok = 0;
  try {
    await Promise.all(
      Array.from({ length: o.inFlight }, async () => {
        while (sent++ < o.n) {
          const res = await pool.request({
            method: "POST",
            path: u.pathname,
            headers: { "content-type": "application/json" },
            body: o.next(),
          });
          await res.body.dump();
          if (res.statusCode >= 200 && res.statusCode < 300) ok += 1;
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return ok;
}
