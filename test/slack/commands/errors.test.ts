import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import type { Subscription } from "../../../src/store/subscriptions.js";
import { OPS_CHANNEL, startHarness, TEST_CHANNEL, type Harness } from "../../helpers/app-harness.js";
import { ask, shown } from "./helpers.js";

const sub = (channelId: string, groupId: string, groupName: string): Subscription => ({
  channelId,
  groupId,
  groupName,
  communityId: undefined,
  filters: {},
  createdBy: "U0ALICE",
  createdAt: new Date().toISOString(),
});

describe("error replies: 401 (the service rejects the key)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { INSIGHT_API_KEY: "emu_not_a_valid_key_000000" } });
    await h.workspace.subscriptions.put(sub(TEST_CHANNEL, SEED.groups.support, "Lumen DB Support"));
  });
  afterAll(async () => h?.stop());

  const REJECTED = "The Insight Service rejected the app's API key";

  it("every reading command says the key was rejected, and operators are alerted once", async () => {
    for (const cmd of [
      "groups",
      `threads ${SEED.groups.support}`,
      `search refunds --group ${SEED.groups.support}`,
    ]) {
      const r = await ask(h, cmd, { channel: "C0OTHER" });
      expect(shown(r), cmd).toContain(REJECTED);
      expect(shown(r)).not.toContain("emu_not_a_valid_key");
    }
    const listing = await ask(h, "threads");
    expect(shown(listing)).toContain(REJECTED);
    const alert = await h.slack.waitFor(() => h.slack.messages(OPS_CHANNEL)[0]);
    expect(alert.text).toContain("rejected the API key (401)");
    expect(alert.text).not.toContain("emu_not_a_valid_key");
    // One incident, one alert, however many commands hit it.
    await new Promise((r) => setTimeout(r, 300));
    expect(h.slack.messages(OPS_CHANNEL)).toHaveLength(1);
  });

  it("status says the key is invalid", async () => {
    const r = await ask(h, "status");
    expect(shown(r)).toContain("it rejected the API key (401)");
    expect(r.text).toMatch(/problem/);
  });
});

describe("error replies: 403 (the key cannot read that group)", () => {
  let h: Harness;
  const LIMITED = "emu_limited_test_key_0001";
  beforeAll(async () => {
    h = await startHarness({ emulator: { limitedKey: LIMITED }, env: { INSIGHT_API_KEY: LIMITED } });
    await h.workspace.subscriptions.put(sub("C0BETA", SEED.groups.beta, "Pocketbook Beta Testers"));
  });
  afterAll(async () => h?.stop());

  it("naming a group of another community: the key cannot read it", async () => {
    const r = await ask(h, `threads ${SEED.groups.beta}`);
    expect(r.text).toContain("The API key cannot read");
    expect(r.text).toContain("Insight dashboard");
    const s = await ask(h, `search crash --group ${SEED.groups.android}`);
    expect(s.text).toContain("The API key cannot read");
  });

  it("a followed group that became unreadable: the listing says so", async () => {
    const r = await ask(h, "threads", { channel: "C0BETA" });
    expect(shown(r)).toContain('The API key cannot read the chat group "Pocketbook Beta Testers"');
  });

  it("groups lists only what the key can read", async () => {
    const r = await ask(h, "groups");
    expect(shown(r)).toContain("Lumen DB Support");
    expect(shown(r)).not.toContain("Pocketbook");
  });
});

describe("error replies: 429 after retries, unknown subcommands", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(SEED.groups.support);
  });
  afterAll(async () => h?.stop());

  it("exhausted 429s say to try again shortly", async () => {
    h.emulator.faults.set({ rateLimit: { count: 1_000, retryAfterSeconds: 0 } });
    try {
      const t = await ask(h, "threads");
      expect(shown(t)).toMatch(/The Insight Service is busy right now\. Try again (shortly|in \d+ s)\./);
      const s = await ask(h, "search refunds");
      expect(s.text).toMatch(/busy right now\. Try again/);
      const g = await ask(h, "groups");
      expect(g.text).toMatch(/busy right now\. Try again/);
    } finally {
      h.emulator.faults.clear();
    }
    // Retried, then gave up: more than one attempt per call, but bounded.
    const limited = h.emulator.requests.all().filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(6);
  });

  it("an unknown subcommand shows help", async () => {
    const r = await ask(h, "frobnicate now");
    expect(r.text).toContain("There is no `frobnicate` subcommand");
    for (const name of [
      "groups",
      "threads [range] [group] [filters]",
      "search &lt;text&gt; [--group &lt;group&gt;]",
      "status",
      "subscribe",
    ]) {
      expect(r.text).toContain(`/insight ${name}`);
    }
  });

  it("help (and no text) shows every subcommand's grammar", async () => {
    for (const text of ["help", ""]) {
      const r = await ask(h, text);
      expect(r.text).toContain("`/insight threads [range] [group] [filters]`");
      expect(r.text).toContain("`/insight search &lt;text&gt; [--group &lt;group&gt;]`");
      expect(r.text).not.toMatch(/<group>|<text>/);
      expect(r.text).toContain("`/insight groups`");
      expect(r.text).toContain("`/insight status`");
      expect(r.text).toContain(
        "Ranges: `7d` (default), `30d`, `3m`, `6m`, `all`, or words such as `last 30 days`",
      );
      expect(r.text).not.toContain("last30Days");
    }
  });
});
