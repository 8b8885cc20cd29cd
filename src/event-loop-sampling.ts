import perfHooks, { performance, type IntervalHistogram } from "node:perf_hooks";
import { onTheBeat } from "./on-the-beat.js";

/** How often the process looks at whether it is working (with the health watch: one wake-up). */
export const LOOK_EVERY_MS = 15_000;
/**
 * Busier than this share of the time: the event-loop delay is sampled. Half a percent is 75 ms
 * of work in a 15-s window; an idle one holds a health look (about 3 ms) and at most one BullMQ
 * round (about 7 ms), under 0.1%. At 0.2% a slow or cold look now and then switched the
 * histogram on, and with it a wake-up every second for the next 15 s.
 */
export const BUSY_UTILIZATION = 0.005;

/**
 * Runs `register` (prom-client's `collectDefaultMetrics`) and returns the event-loop delay
 * histogram it enables, if any. prom-client keeps it to itself, and its timer wakes the process
 * at every tick of its precision, busy or not: the largest part of an idle process's CPU.
 */
export function capturingEventLoopHistogram(register: () => void): IntervalHistogram | undefined {
  const original = perfHooks.monitorEventLoopDelay;
  let captured: IntervalHistogram | undefined;
  perfHooks.monitorEventLoopDelay = (o) => {
    captured = original(o);
    return zeroWhenEmpty(captured);
  };
  try {
    register();
  } finally {
    perfHooks.monitorEventLoopDelay = original;
  }
  return captured;
}

/**
 * The histogram as prom-client reads it at a scrape: with no sample since the last one (sampling
 * off while idle), Node's min is 2^63 ns and its mean NaN; an idle loop has no delay, so 0.
 */
function zeroWhenEmpty(h: IntervalHistogram): IntervalHistogram {
  // Everything else is the histogram's own (its prototype): three reads over, two switches passed on.
  const unlessEmpty = (read: () => number) => ({ get: () => (h.count === 0 ? 0 : read()) });
  // Switched on and off on the histogram itself: Node keeps whether it is on in a property of
  // `this`, so prom-client's enable() through this view would mark the view on and leave the
  // histogram marked off, and the sampler's disable() would then stop nothing (a wake-up every
  // second for good, in every process that was idle at its first look).
  const own = (fn: () => boolean) => ({ value: fn });
  return Object.create(h, {
    min: unlessEmpty(() => h.min),
    mean: unlessEmpty(() => h.mean),
    stddev: unlessEmpty(() => h.stddev),
    enable: own(() => h.enable()),
    disable: own(() => h.disable()),
  }) as IntervalHistogram;
}

/** Whether the delay should be sampled, given the event loop's utilization since the last look. */
export const worthSampling = (utilization: number): boolean => utilization > BUSY_UTILIZATION;

/** The event loop's utilization (0-1) since the last call: free to read, it wakes nothing. */
export function utilizationSinceLastLook(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const spell = performance.eventLoopUtilization(now, last);
    last = now;
    return spell.utilization;
  };
}

/**
 * Samples the event-loop delay only while the process works: an idle loop has no delay to
 * show, and each sample wakes it. A look every 15 s at the loop's utilization switches
 * sampling on or off, so a busy spell is sampled from its first 15 s on.
 */
export function sampleWhileBusy(
  histogram: Pick<IntervalHistogram, "enable" | "disable">,
  o: { everyMs?: number; utilization?: () => number } = {},
): () => void {
  const utilization = o.utilization ?? utilizationSinceLastLook();
  return onTheBeat(o.everyMs ?? LOOK_EVERY_MS, () => {
    if (worthSampling(utilization())) histogram.enable();
    else histogram.disable();
  });
}
