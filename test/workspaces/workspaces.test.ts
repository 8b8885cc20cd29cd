import { describe, expect, it } from "vitest";
import { Workspaces } from "../../src/workspaces/workspaces.js";

interface W {
  id: string;
  connected: boolean;
}

/** A source over a map, counting loads and disposals. */
function source(ids: string[], o: { failing?: string[] } = {}) {
  const loads: string[] = [];
  const disposed: string[] = [];
  const installed = new Set(ids);
  return {
    loads,
    disposed,
    installed,
    src: {
      load: async (id: string): Promise<W | undefined> => {
        loads.push(id);
        if (o.failing?.includes(id)) throw new Error(`cannot read ${id}`);
        return installed.has(id) ? { id, connected: !id.endsWith("IDLE") } : undefined;
      },
      list: async () => [...installed],
      dispose: (w: W) => void disposed.push(w.id),
    },
  };
}

describe("Workspaces: each workspace resolved explicitly, built once, kept a while", () => {
  it("builds a workspace once and hands the same context to every caller", async () => {
    const s = source(["T0A"]);
    const ws = new Workspaces(s.src);
    const [a, b] = await Promise.all([ws.get("T0A"), ws.get("T0A")]);
    expect(a).toBe(b);
    expect(await ws.get("T0A")).toBe(a);
    expect(s.loads).toEqual(["T0A"]);
  });

  it("a workspace that is not installed, or cannot be read, is not remembered: the next request tries again", async () => {
    const s = source([], { failing: ["T0BAD"] });
    const ws = new Workspaces(s.src);
    expect(await ws.get("T0NEW")).toBeUndefined();
    await expect(ws.get("T0BAD")).rejects.toThrow("cannot read T0BAD");
    s.installed.add("T0NEW");
    expect((await ws.get("T0NEW"))?.id).toBe("T0NEW");
    expect(s.loads).toEqual(["T0NEW", "T0BAD", "T0NEW"]);
  });

  it("keeps the most recently used `max` and releases the one it evicts", async () => {
    const s = source(["T0A", "T0B", "T0C"]);
    const ws = new Workspaces(s.src, { max: 2 });
    await ws.get("T0A");
    await ws.get("T0B");
    await ws.get("T0A"); // used again: T0B is now the oldest
    await ws.get("T0C");
    await new Promise((r) => setImmediate(r));
    expect(s.disposed).toEqual(["T0B"]);
    await ws.get("T0A");
    await ws.get("T0B");
    expect(s.loads).toEqual(["T0A", "T0B", "T0C", "T0B"]);
  });

  it("forget tells the forgetters, releases the context and builds it again on next use", async () => {
    const s = source(["T0A"]);
    const ws = new Workspaces(s.src);
    const forgotten: string[] = [];
    ws.onForget((id) => forgotten.push(id));
    const first = await ws.get("T0A");
    ws.forget("T0A");
    await new Promise((r) => setImmediate(r));
    expect(forgotten).toEqual(["T0A"]);
    expect(s.disposed).toEqual(["T0A"]);
    expect(await ws.get("T0A")).not.toBe(first);
  });

  it("each: runs for every wanted workspace, a failure told and not stopping the others", async () => {
    const s = source(["T0A", "T0BROKEN", "T0IDLE", "T0D"], { failing: ["T0BROKEN"] });
    const ws = new Workspaces(s.src);
    const ran: string[] = [];
    const failed: string[] = [];
    const r = await ws.each(
      async (w) => {
        if (w.id === "T0D") throw new Error("pass blew up");
        ran.push(w.id);
      },
      (id) => failed.push(id),
      (w) => w.connected,
    );
    expect(ran).toEqual(["T0A"]);
    expect(failed.sort()).toEqual(["T0BROKEN", "T0D"]);
    expect(r).toEqual({ workspaces: 1, failed: 2, skipped: 1 });
  });

  it("each: a workspace the pass built is released after it; one already kept is used and kept", async () => {
    const s = source(["T0KEPT", "T0QUIET", "T0FAILS"]);
    const ws = new Workspaces(s.src);
    const kept = await ws.get("T0KEPT");
    const seen: W[] = [];
    const failed: string[] = [];
    await ws.each(
      async (w) => {
        seen.push(w);
        if (w.id === "T0FAILS") throw new Error("pass blew up");
      },
      (id) => failed.push(id),
    );
    expect(seen.map((w) => w.id).sort()).toEqual(["T0FAILS", "T0KEPT", "T0QUIET"]);
    expect(seen.find((w) => w.id === "T0KEPT")).toBe(kept);
    // Released even when its work failed; the kept one stays.
    expect(s.disposed.sort()).toEqual(["T0FAILS", "T0QUIET"]);
    expect(failed).toEqual(["T0FAILS"]);
    expect(await ws.get("T0KEPT")).toBe(kept);
    await ws.get("T0QUIET");
    expect(s.loads.filter((id) => id === "T0QUIET")).toHaveLength(2);
    expect(s.loads.filter((id) => id === "T0KEPT")).toHaveLength(1);
  });
});
