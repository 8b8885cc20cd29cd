import { describe, expect, it } from "vitest";
import { jobId } from "../../src/jobs/job-types.js";
import { rankDepths, workspaceOfJobId } from "../../src/workspaces/queue-depth.js";

describe("workspaceOfJobId", () => {
  it("reads the workspace of stamped job ids and of its schedulers' jobs; others have none", () => {
    expect(workspaceOfJobId(jobId("w", "T0ALPHA", "abc"))).toBe("T0ALPHA");
    expect(workspaceOfJobId(`repeat:${jobId("w", "E0ORG", "weekly|C1")}:1700000000000`)).toBe("E0ORG");
    expect(workspaceOfJobId("42")).toBeUndefined();
    expect(workspaceOfJobId(jobId("ops", "incident", "now"))).toBeUndefined();
    expect(workspaceOfJobId("xw|T0ALPHA|1")).toBeUndefined();
  });
});

describe("rankDepths", () => {
  it("always gives ranks 1..N and others, busiest first, adding up to the total", () => {
    const byWs = new Map([
      ["T1", 3],
      ["T2", 40],
      ["T3", 0],
      ["T4", 7],
    ]);
    const r = rankDepths(byWs, 55, 3);
    expect(r).toEqual([
      { rank: "1", jobs: 40 },
      { rank: "2", jobs: 7 },
      { rank: "3", jobs: 3 },
      { rank: "others", jobs: 5 },
    ]);
    expect(r.reduce((n, x) => n + x.jobs, 0)).toBe(55);
  });

  it("puts workspaces past the top N into others, and pads with zeros", () => {
    const many = new Map(Array.from({ length: 12 }, (_, i) => [`T${i}`, i + 1] as const));
    const r = rankDepths(many, 78);
    expect(r).toHaveLength(11);
    expect(r[0]).toEqual({ rank: "1", jobs: 12 });
    expect(r.at(-1)).toEqual({ rank: "others", jobs: 1 + 2 });
    expect(rankDepths(new Map(), 0, 2)).toEqual([
      { rank: "1", jobs: 0 },
      { rank: "2", jobs: 0 },
      { rank: "others", jobs: 0 },
    ]);
  });
});
