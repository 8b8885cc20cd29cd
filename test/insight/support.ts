import { InsightClient, type InsightClientOptions } from "../../src/insight/client.js";
import { InsightError } from "../../src/insight/errors.js";

/**
 * Clients for one test file: no real sleeping (waits are recorded), fixed jitter, and every
 * client closed by `closeAll` (call it in afterEach).
 */
export function clientMaker(target: () => Pick<InsightClientOptions, "baseUrl" | "apiKey">) {
  const clients: InsightClient[] = [];
  return {
    clients,
    client(over: Partial<InsightClientOptions> = {}) {
      const slept: number[] = [];
      const c = new InsightClient({
        ...target(),
        sleep: async (ms) => {
          slept.push(ms);
        },
        random: () => 0.5,
        ...over,
      });
      clients.push(c);
      return { c, slept };
    },
    async closeAll() {
      await Promise.all(clients.splice(0).map((c) => c.close()));
    },
  };
}

/** The InsightError a call fails with (anything else is rethrown; success fails the test). */
export async function failure(p: Promise<unknown>): Promise<InsightError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof InsightError) return e;
    throw e;
  }
  throw new Error("expected the call to fail");
}
