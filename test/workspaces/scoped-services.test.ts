import { describe, expect, it } from "vitest";
import type { Services } from "../../src/compose/build-services.js";
import { runAs, scopedServices } from "../../src/compose/workspaces.js";
import { createLogger } from "../../src/log.js";

const lines: string[] = [];
const logger = createLogger({ level: "info", destination: { write: (l: string) => void lines.push(l) } });

/** Just enough of a process's services for the scoped view: the members it reads. */
const fakeServices = (workspaceId: string) =>
  ({
    workspaceId,
    logger: workspaceId === "base" ? logger : logger.child({ workspace: workspaceId }),
    config: { spoolDir: "/spool" },
    keys: { opsAlerts: `p:w:${workspaceId}:state:ops` },
    queues: { alerts: { name: `alerts of ${workspaceId}` } },
  }) as unknown as Services;

describe("scopedServices outside any workspace", () => {
  const scoped = scopedServices(fakeServices("base"));

  it("says there is no workspace when a member is read as a value, not later as 'not a function'", () => {
    expect(() => scoped.queues.alerts.name).toThrow(/no workspace for this work/);
    expect(() => `${scoped.keys.opsAlerts}`).toThrow(/no workspace for this work/);
  });

  it("resolves the same members to the workspace of the work in progress", () => {
    const a = fakeServices("T0ALPHA");
    expect(runAs(a, () => scoped.queues.alerts.name)).toBe("alerts of T0ALPHA");
    expect(runAs(a, () => scoped.keys.opsAlerts)).toBe("p:w:T0ALPHA:state:ops");
  });
});

describe("the scoped logger", () => {
  const scoped = scopedServices(fakeServices("base"));

  it("logs as the base outside a workspace, and with the workspace's id inside its work", () => {
    lines.length = 0;
    scoped.logger.info("at start");
    runAs(fakeServices("T0ALPHA"), () => scoped.logger.info({ jobId: "j1" }, "in a job"));
    // A child taken inside the work keeps the workspace too.
    runAs(fakeServices("T0BRAVO"), () => scoped.logger.child({ jobId: "j2" }).warn("in a child"));
    const logged = lines.map((l) => JSON.parse(l) as { msg: string; workspace?: string; jobId?: string });
    expect(logged.map((l) => [l.msg, l.workspace, l.jobId])).toEqual([
      ["at start", undefined, undefined],
      ["in a job", "T0ALPHA", "j1"],
      ["in a child", "T0BRAVO", "j2"],
    ]);
  });
});
