import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import { ACTIONS } from "../../../src/slack/action-ids.js";
import { decodeState, shareStateSchema } from "../../../src/slack/button-values.js";
import { startHarness, type Harness } from "../../helpers/app-harness.js";
import { expectNoLiveTokens } from "../render/walk.js";
import { ask, buttons, shown } from "./helpers.js";

const SUPPORT = SEED.groups.support;

describe("/insight search", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(SUPPORT);
  });
  afterAll(async () => h?.stop());

  it("searches the channel's group: threads and messages grouped, each with a Share button", async () => {
    const r = await ask(h, "search retention per measurement");
    const text = shown(r);
    expect(text).toContain("*Search:* “retention per measurement”");
    expect(text).toMatch(/\*Threads \(\d+\)\*/);
    expect(text).toMatch(/\*Messages \(\d+\)\*/);
    expect(text).toContain("How to configure retention per measurement?");
    // Threads come before messages.
    expect(text.indexOf("*Threads (")).toBeLessThan(text.indexOf("*Messages ("));
    const shares = buttons(r.blocks).filter((b) => b.action_id === ACTIONS.share);
    expect(shares.length).toBeGreaterThanOrEqual(2);
    for (const b of shares) {
      expect(b.text.text).toBe("Share in channel");
      expect(b.value.length).toBeLessThanOrEqual(2000);
      expect(decodeState(shareStateSchema, b.value)).toBeDefined();
    }
    const kinds = shares.map((b) => decodeState(shareStateSchema, b.value)?.k);
    expect(kinds).toContain("thread");
    expect(kinds).toContain("message");
    // The search text went out under the configured parameter, on the pinned version.
    const sent = h.emulator.requests.all().filter((q) => q.path.endsWith("/search"));
    expect(sent.at(-1)?.path).toBe(`/api/v1/chatgroup/${SUPPORT}/search`);
    expect(sent.at(-1)?.query.query).toBe("retention per measurement");
  });

  it("--group names another group, by name", async () => {
    const r = await ask(h, "search saturday route --group saturday rides", { channel: "C0ELSE" });
    expect(shown(r)).toContain("In Saturday Rides");
    const sent = h.emulator.requests.all().filter((q) => q.path.endsWith("/search"));
    expect(sent.at(-1)?.path).toBe(`/api/v1/chatgroup/${SEED.groups.rides}/search`);
  });

  it("no results says so; community text is escaped", async () => {
    const r = await ask(h, "search zzqxj wobblefrotz");
    expect(shown(r)).toContain("No thread or message matches “zzqxj wobblefrotz”");
    const hostile = await ask(h, "search alert bot pinged channel");
    expect(shown(hostile)).toContain("&lt;!channel&gt;");
    expectNoLiveTokens(hostile.blocks);
  });

  it("without text, or in a channel that follows nothing: usage in plain words", async () => {
    expect((await ask(h, "search")).text).toContain(
      "Usage: `/insight search &lt;text&gt; [--group &lt;group&gt;]`",
    );
    expect((await ask(h, "search refunds --group")).text).toContain("Name the group after `--group`");
    const none = await ask(h, "search refunds", { channel: "C0NOTHING" });
    expect(none.text).toContain("This channel follows no chat group");
    expect(none.text).toContain("--group &lt;group&gt;");
  });
});
