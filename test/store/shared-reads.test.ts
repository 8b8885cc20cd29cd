import { describe, expect, it } from "vitest";
import { sharedReads } from "../../src/store/shared-reads.js";

describe("sharedReads", () => {
  it("reads of one key asked while one is in flight share it; other keys read on their own", async () => {
    const asked: string[] = [];
    const read = sharedReads(async (key: string) => {
      asked.push(key);
      await new Promise((r) => setTimeout(r, 10));
      return [`${key}-1`, `${key}-2`];
    });
    const [a, b, c] = await Promise.all([read("g1"), read("g1"), read("g2")]);
    expect(asked).toEqual(["g1", "g2"]);
    expect(a).toEqual(["g1-1", "g1-2"]);
    expect(b).toEqual(a);
    expect(c).toEqual(["g2-1", "g2-2"]);
    // Each caller has its own array.
    a?.push("mine");
    expect(b).toEqual(["g1-1", "g1-2"]);
  });

  it("keeps nothing: a read asked after the answer came reads again", async () => {
    let n = 0;
    const read = sharedReads(async (_key: string) => [++n]);
    expect(await read("g1")).toEqual([1]);
    expect(await read("g1")).toEqual([2]);
  });

  it("a failed read fails every caller that shared it, and the next one reads again", async () => {
    let fail = true;
    const read = sharedReads(async (_key: string) => {
      if (fail) throw new Error("Redis did not answer");
      return ["ok"];
    });
    const both = await Promise.allSettled([read("g1"), read("g1")]);
    expect(both.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect(await read("g1")).toEqual(["ok"]);
  });
});
