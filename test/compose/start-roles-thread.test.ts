import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { FromRoles, RolesThreadData, ToRoles } from "../../src/compose/roles-thread-protocol.js";
import { startRolesThread, type ThreadHandle } from "../../src/compose/start-roles-thread.js";
import { silentLogger } from "../../src/log.js";

/** A stand-in for the roles thread's `Worker`: what it was sent, and what the test makes it say. */
class StandInThread extends EventEmitter {
  readonly sent: ToRoles[] = [];
  data: RolesThreadData | undefined;
  terminated = false;
  /** How it answers a stop: by exiting (as the real thread does once its roles are closed). */
  exitOnStop = true;

  postMessage(m: ToRoles): void {
    this.sent.push(m);
    if (m.kind === "stop" && this.exitOnStop) setImmediate(() => this.exit(0));
  }
  say(m: FromRoles): void {
    this.emit("message", m);
  }
  exit(code: number): void {
    this.emit("exit", code);
  }
  async terminate(): Promise<number> {
    this.terminated = true;
    this.exit(1);
    return 1;
  }
}

function start(thread: StandInThread, o: { startWithinMs?: number } = {}) {
  return startRolesThread({
    entry: new URL("file:///app/main.js"),
    roles: ["worker", "scheduler"],
    tuning: { channelGapMs: 0 },
    legacyRefsRemain: false,
    logger: silentLogger,
    spawn: (_entry, data) => {
      thread.data = data;
      return thread as unknown as ThreadHandle;
    },
    ...o,
  });
}

describe("startRolesThread (the web thread's side)", () => {
  it("hands the thread its roles, tuning and what the migration left, and resolves once it says its workers run", async () => {
    const thread = new StandInThread();
    const starting = start(thread);
    thread.say({ kind: "started", queueNames: ["deliveries", "slack-out"] });
    const roles = await starting;
    expect(thread.data).toEqual({
      insightRelayRolesThread: true,
      roles: ["worker", "scheduler"],
      tuning: { channelGapMs: 0 },
      legacyRefsRemain: false,
    });
    expect(roles.health.queueNames()).toEqual(["deliveries", "slack-out"]);
  });

  it("a thread that cannot start: rejected with its reason", async () => {
    const thread = new StandInThread();
    const starting = start(thread);
    thread.say({ kind: "start-failed", message: "REDIS_URL is not a redis:// URL" });
    await expect(starting).rejects.toThrow(
      "the worker thread could not start: REDIS_URL is not a redis:// URL",
    );
  });

  it("a thread that exits before it starts: rejected with its error", async () => {
    const thread = new StandInThread();
    const starting = start(thread);
    thread.emit("error", new Error("Cannot find module '/app/main.js'"));
    thread.exit(1);
    await expect(starting).rejects.toThrow("Cannot find module '/app/main.js'");
  });

  it("a thread that never says it started: terminated, and rejected", async () => {
    const thread = new StandInThread();
    thread.exitOnStop = false;
    await expect(start(thread, { startWithinMs: 30 })).rejects.toThrow("did not start within");
    expect(thread.terminated).toBe(true);
  });

  it("stop: tells the thread, and resolves when it has ended; `died` does not settle", async () => {
    const thread = new StandInThread();
    const starting = start(thread);
    thread.say({ kind: "started", queueNames: [] });
    const roles = await starting;
    let died = false;
    void roles.died.then(() => (died = true));
    await roles.stop();
    expect(thread.sent).toContainEqual({ kind: "stop" });
    await new Promise((r) => setImmediate(r));
    expect(died).toBe(false);
  });

  it("a thread that ends unasked: `died` settles with why, and questions fail at once", async () => {
    const thread = new StandInThread();
    const starting = start(thread);
    thread.say({ kind: "started", queueNames: ["deliveries"] });
    const roles = await starting;
    const probe = roles.health.probe();
    thread.emit("error", new Error("Out of memory"));
    thread.exit(1);
    expect((await roles.died).message).toBe("Out of memory");
    await expect(probe).rejects.toThrow("the worker thread has exited");
    // Nothing is posted to a thread that has ended.
    roles.forget("T0GONE");
    expect(thread.sent.filter((m) => m.kind === "forget")).toEqual([]);
  });
});
