// A measured window of bench:steady: the CPU of the app, of its Redis and of the bare floor
// Redis, and the commands the app's Redis ran, from one moment to another. The bench's own
// commands (INFO, its polls of the queues) are handed in and left out.
import type { Redis } from "ioredis";
import { commandCalls, cpuMs, runMs } from "./processes.js";

export interface WindowFigures {
  seconds: number;
  appCpuMs: number;
  redisCpuMs: number;
  floorCpuMs: number;
  /** The same three to the nanosecond (threads' run time, processes.ts's runMs). */
  appRunMs: number;
  redisRunMs: number;
  floorRunMs: number;
  /** The app's Redis commands (scripts' own calls included), the bench's left out. */
  commands: number;
  /** Commands by name, the bench's polls not left out (they are few: LLEN, KEYS, INFO). */
  byName: Map<string, number>;
}

/** Opens a window over an app (pid), its Redis (pid and client) and the floor Redis (pid). */
export async function openWindow(o: {
  appPid: number;
  redisPid: number;
  redis: Redis;
  floorPid: number;
}): Promise<{ close(benchCommands: number): Promise<WindowFigures> }> {
  const calls0 = await commandCalls(o.redis);
  const t0 = performance.now();
  const app0 = cpuMs(o.appPid);
  const redis0 = cpuMs(o.redisPid);
  const floor0 = cpuMs(o.floorPid);
  const run0 = [o.appPid, o.redisPid, o.floorPid].map(runMs);
  return {
    async close(benchCommands) {
      const seconds = (performance.now() - t0) / 1000;
      const appCpuMs = cpuMs(o.appPid) - app0;
      const redisCpuMs = cpuMs(o.redisPid) - redis0;
      const floorCpuMs = cpuMs(o.floorPid) - floor0;
      const [appRunMs, redisRunMs, floorRunMs] = [o.appPid, o.redisPid, o.floorPid].map(
        (pid, i) => runMs(pid) - (run0[i] ?? NaN),
      );
      const calls = await commandCalls(o.redis);
      const byName = new Map<string, number>();
      for (const [name, n] of calls.byName) {
        const d = n - (calls0.byName.get(name) ?? 0);
        if (d > 0) byName.set(name, d);
      }
      // The INFO that opened the window is counted in the second reading.
      return {
        seconds,
        appCpuMs,
        redisCpuMs,
        floorCpuMs,
        appRunMs: appRunMs ?? NaN,
        redisRunMs: redisRunMs ?? NaN,
        floorRunMs: floorRunMs ?? NaN,
        commands: calls.all - calls0.all - 1 - benchCommands,
        byName,
      };
    },
  };
}
