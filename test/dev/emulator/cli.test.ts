import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { parseCliOptions } from "../../../dev/emulator/cli-options.js";
import { freePort } from "../../helpers/global-redis.js";

/* `npm run emulator`: its options, and the real process answering with the key it prints. */

describe("parseCliOptions", () => {
  it("defaults to port 4010, seed 42, 127.0.0.1", () => {
    expect(parseCliOptions([], {})).toEqual({
      port: 4010,
      seed: 42,
      host: "127.0.0.1",
      searchParam: undefined,
    });
  });

  it("reads PORT from the environment and lets --port win", () => {
    expect(parseCliOptions([], { PORT: "5000" })).toMatchObject({ port: 5000 });
    expect(parseCliOptions(["--port", "5001"], { PORT: "5000" })).toMatchObject({ port: 5001 });
    expect(parseCliOptions(["--port=5002", "--seed", "7", "--search-param", "q"], {})).toMatchObject({
      port: 5002,
      seed: 7,
      searchParam: "q",
    });
  });

  it("explains a bad port", () => {
    expect(parseCliOptions(["--port", "eighty"], {})).toMatch(/port must be a whole number/);
    expect(parseCliOptions([], { PORT: "70000" })).toMatch(/port/);
  });
});

describe("the emulator process", () => {
  it("prints its base URL and keys, answers with the full key, and stops on SIGTERM", async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "dev/emulator/cli.ts", "--port", String(port)],
      {
        cwd: process.cwd(),
        env: { ...process.env, PORT: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      const lines = createInterface({ input: child.stdout });
      const printed: Record<string, string> = {};
      for await (const line of lines) {
        const m = /^(INSIGHT_[A-Z_]+)=(.*)$/.exec(line);
        if (m?.[1] && m[2] !== undefined) printed[m[1]] = m[2];
        if (printed.INSIGHT_LIMITED_API_KEY) break;
      }
      expect(printed.INSIGHT_BASE_URL).toBe(`http://127.0.0.1:${port}`);
      const full = await fetch(`${printed.INSIGHT_BASE_URL}/api/v1/community`, {
        headers: { "x-api-key": printed.INSIGHT_API_KEY ?? "" },
      });
      expect(((await full.json()) as unknown[]).length).toBe(3);
      const limited = await fetch(`${printed.INSIGHT_BASE_URL}/api/v1/community`, {
        headers: { "x-api-key": printed.INSIGHT_LIMITED_API_KEY ?? "" },
      });
      expect(((await limited.json()) as unknown[]).length).toBe(1);
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
