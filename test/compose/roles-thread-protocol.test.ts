import { MessageChannel, type MessagePort } from "node:worker_threads";
import { Counter, Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import {
  answerQuestions,
  RolesThreadClient,
  type FromRoles,
  type Port,
  type RolesThreadAnswers,
  type ToRoles,
} from "../../src/compose/roles-thread-protocol.js";

// Both ends over a real MessageChannel (structured clone, the event loop between them), as the
// web thread and the roles thread talk, in one thread.

const ports: MessagePort[] = [];
afterEach(() => {
  for (const p of ports.splice(0)) p.close();
});

function wire(answers: Partial<RolesThreadAnswers>, o: { withinMs?: number } = {}) {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  const told: string[] = [];
  const full: RolesThreadAnswers = {
    probe: async () => [],
    metrics: async () => [],
    forget: (id) => told.push(`forget ${id}`),
    stop: async () => {
      told.push("stop");
    },
    ...answers,
  };
  answerQuestions(port2 as unknown as Port<FromRoles, ToRoles>, full);
  const fromRoles: FromRoles[] = [];
  port1.on("message", (m: FromRoles) => fromRoles.push(m));
  const client = new RolesThreadClient(
    port1 as unknown as Port<ToRoles, FromRoles>,
    ["deliveries", "slack-out"],
    o.withinMs,
  );
  return { client, told, fromRoles };
}

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe("the two threads' questions", () => {
  it("readiness: the roles thread's probes, as its WorkerHealth says them", async () => {
    const { client } = wire({
      probe: async () => [
        { name: "deliveries", ok: true },
        { name: "slack-out", ok: false, reason: "paused" },
      ],
    });
    expect(await client.probe()).toEqual([
      { name: "deliveries", ok: true },
      { name: "slack-out", ok: false, reason: "paused" },
    ]);
    expect(client.queueNames()).toEqual(["deliveries", "slack-out"]);
  });

  it("metrics: its registry as JSON (cloned across), for the web thread's /metrics", async () => {
    const registry = new Registry();
    new Counter({
      name: "insight_relay_jobs_total",
      help: "Jobs",
      labelNames: ["queue"],
      registers: [registry],
    }).inc({ queue: "deliveries" }, 3);
    const { client } = wire({ metrics: () => registry.getMetricsAsJSON() });
    const got = await client.metrics();
    expect(got).toEqual(await registry.getMetricsAsJSON());
    expect(got[0]?.values).toEqual([{ value: 3, labels: { queue: "deliveries" } }]);
  });

  it("a question that fails over there fails here with its reason", async () => {
    const { client } = wire({
      probe: async () => {
        throw new Error("Redis did not answer within 500 ms");
      },
    });
    await expect(client.probe()).rejects.toThrow("Redis did not answer within 500 ms");
  });

  it("no answer in time (a thread busy or gone): the question fails, saying so", async () => {
    const { client } = wire({ probe: () => new Promise(() => undefined) }, { withinMs: 50 });
    await expect(client.probe()).rejects.toThrow("the worker thread did not answer within 50 ms");
  });

  it("answers reach the question that asked, whatever order they come in", async () => {
    let n = 0;
    const { client } = wire({
      // The first answer comes last.
      probe: async () => {
        const mine = ++n;
        await new Promise((r) => setTimeout(r, mine === 1 ? 40 : 0));
        return [{ name: `probe ${mine}`, ok: true }];
      },
    });
    const [a, b] = await Promise.all([client.probe(), client.probe()]);
    expect(a).toEqual([{ name: "probe 1", ok: true }]);
    expect(b).toEqual([{ name: "probe 2", ok: true }]);
  });

  it("a forgotten workspace is forgotten over there too", async () => {
    const { client, told } = wire({});
    client.forget("T0CHANGED");
    await until(() => told.length > 0);
    expect(told).toEqual(["forget T0CHANGED"]);
  });

  it("stop: the roles thread stops its roles, says it has stopped, and answers nothing more", async () => {
    const { client, told, fromRoles } = wire({}, { withinMs: 100 });
    (client as unknown as { port: Port<ToRoles, FromRoles> }).port.postMessage({ kind: "stop" });
    await until(() => fromRoles.some((m) => m.kind === "stopped"));
    expect(told).toEqual(["stop"]);
    await expect(client.probe()).rejects.toThrow("did not answer");
  });

  it("close: questions still waiting fail at once with the reason", async () => {
    const { client } = wire({ probe: () => new Promise(() => undefined) });
    const waiting = client.probe();
    client.close("the worker thread has exited");
    await expect(waiting).rejects.toThrow("the worker thread has exited");
  });
});
