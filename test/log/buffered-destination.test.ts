import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bufferedDestination, createLogger } from "../../src/log.js";

const dir = mkdtempSync(join(tmpdir(), "relay-log-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const read = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the logs' buffered destination", () => {
  // A quiet process logs a line now and then: it must reach the operator soon, not when 4 KiB
  // more have come (the reconciler's one line in a quiet worker sat there until the process died).
  it("writes a lone line out within its flush time, not when the buffer fills", async () => {
    const file = join(dir, "quiet.log");
    const logger = createLogger({
      level: "info",
      destination: bufferedDestination({ dest: file, flushWithinMs: 300 }),
    });
    logger.info("reconciler: sending a digest no delivery brought");
    await sleep(100);
    expect(read(file)).toBe("");
    await sleep(700);
    expect(read(file)).toContain("reconciler: sending a digest no delivery brought");
  });

  it("still gathers a busy stream's lines into large writes, and writes each of them once", async () => {
    const file = join(dir, "busy.log");
    const logger = createLogger({
      level: "info",
      destination: bufferedDestination({ dest: file, flushWithinMs: 200 }),
    });
    for (let i = 0; i < 200; i++) logger.info({ i }, "delivery queued");
    await sleep(600);
    const lines = read(file).trim().split("\n");
    expect(lines).toHaveLength(200);
    expect(lines.map((l) => (JSON.parse(l) as { i: number }).i)).toEqual([...Array(200).keys()]);
  });
});
