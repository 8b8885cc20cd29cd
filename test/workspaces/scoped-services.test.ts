import { describe, expect, it } from "vitest";
import type { Services } from "../../src/compose/build-services.js";
import { runAs, scopedServices } from "../../src/compose/workspaces.js";

/** Just enough of a process's services for the scoped view: the members it reads. */
const fakeServices = (workspaceId: string) =>
  ({
    workspaceId,
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
