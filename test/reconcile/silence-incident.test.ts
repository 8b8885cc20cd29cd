import { describe, expect, it } from "vitest";
import { incidentStep, silenceAlertText, silenceResolvedText } from "../../src/reconcile/silence-incident.js";
import { silenceIncidentCommunity, silenceIncidentId } from "../../src/ops/incidents.js";

describe("webhook-silence incident ids", () => {
  it("one per community; the plain id stands for a community nobody knows", () => {
    expect(silenceIncidentId("6650c0ffee")).toBe("webhook-silence:6650c0ffee");
    expect(silenceIncidentId("")).toBe("webhook-silence");
    expect(silenceIncidentCommunity("webhook-silence:6650c0ffee")).toBe("6650c0ffee");
    expect(silenceIncidentCommunity("webhook-silence")).toBe("");
    expect(silenceIncidentCommunity("insight-unauthorized")).toBeUndefined();
    expect(silenceIncidentCommunity("webhook-silencer")).toBeUndefined();
  });
});

describe("incidentStep", () => {
  it("opens on silent sends, stays open while they continue, closes on a delivery after it opened", () => {
    expect(incidentStep({ openedAtMs: undefined, silentSends: 2, lastDeliveryMs: undefined })).toBe("open");
    expect(incidentStep({ openedAtMs: 1_000, silentSends: 1, lastDeliveryMs: 5_000 })).toBe("none");
    expect(incidentStep({ openedAtMs: 1_000, silentSends: 0, lastDeliveryMs: 500 })).toBe("none");
    expect(incidentStep({ openedAtMs: 1_000, silentSends: 0, lastDeliveryMs: 1_001 })).toBe("close");
    expect(incidentStep({ openedAtMs: undefined, silentSends: 0, lastDeliveryMs: 9_000 })).toBe("none");
  });
});

describe("incident texts", () => {
  const at = Date.parse("2026-11-20T08:30:00Z");
  it("name the community, escaped, and its groups", () => {
    const text = silenceAlertText({
      community: "c<!channel>",
      lastDeliveryMs: at,
      threads: 3,
      groupNames: ["Support <@U1>"],
      intervalSeconds: 600,
    });
    // An operator incident: the sign of a failure that needs a person, not of a community alert.
    expect(text.startsWith(":warning: Insight webhook deliveries look stopped")).toBe(true);
    expect(text).toContain("look stopped for community `c&lt;!channel&gt;`");
    expect(text).toContain(
      "no `chatthread-crud` delivery from it since <!date^1795163400^{date_short_pretty} at {time}|2026-11-20 08:30 UTC>",
    );
    expect(text).toContain("3 newly enriched threads in *Support &lt;@U1&gt;*");
    expect(text).toContain("every 10 min");
    expect(text).not.toContain("<!channel>");
    expect(
      silenceResolvedText({ community: "c1", lastDeliveryMs: at, openedAtMs: at - 3_600_000, backfilled: 4 }),
    ).toBe(
      ":heavy_check_mark: Insight webhook deliveries for community `c1` resumed at " +
        "<!date^1795163400^{date_short_pretty} at {time}|2026-11-20 08:30 UTC> " +
        "(silent since <!date^1795159800^{date_short_pretty} at {time}|2026-11-20 07:30 UTC> or earlier). " +
        "The reconciler posted or updated 4 digests meanwhile.",
    );
  });

  it("without a known community, speak of deliveries at large", () => {
    const text = silenceAlertText({
      lastDeliveryMs: undefined,
      threads: 1,
      groupNames: ["G"],
      intervalSeconds: 60,
    });
    expect(text).toContain("look stopped: no `chatthread-crud` delivery since this app started counting");
  });
});
