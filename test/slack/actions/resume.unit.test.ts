import { describe, expect, it } from "vitest";
import { resumeFromHome } from "../../../src/slack/actions/resume.js";
import { encodeResumeState } from "../../../src/slack/button-values.js";
import { fakeCommandsDeps } from "../../helpers/fakes.js";

// The Home tab's Resume button, with fake deps: the subscription resumes and its digest follows.
describe("Resume from Home (unit, fake deps)", () => {
  it("resumes a paused subscription and brings the channel's digest back in line; a second press changes nothing", async () => {
    const { deps, subscriptions, synced } = fakeCommandsDeps();
    await subscriptions.put({
      channelId: "C0UNIT",
      groupId: "g1",
      groupName: "Lumen DB Support",
      communityId: "community-1",
      filters: {},
      delivery: { mode: "digest", every: "4h" },
      createdBy: "U0ALICE",
      createdAt: "2025-01-01T00:00:00.000Z",
      paused: { code: "not_in_channel", at: "2025-02-01T00:00:00.000Z" },
    });
    const value = encodeResumeState({ c: "C0UNIT", g: "g1" });
    const notice = await resumeFromHome(deps, { value, userId: "U0ALICE" });
    expect(notice).toBe(":arrow_forward: Resumed digests of *Lumen DB Support* in <#C0UNIT>.");
    expect((await subscriptions.get("C0UNIT", "g1"))?.paused).toBeUndefined();
    expect(synced).toEqual(["C0UNIT g1"]);

    expect(await resumeFromHome(deps, { value, userId: "U0ALICE" })).toBe(
      "*Lumen DB Support* in <#C0UNIT> was not paused.",
    );
    expect(synced).toHaveLength(1);
  });
});
