import { describe, expect, it } from "vitest";
import { buildThreadDigest, listingLagsBehind } from "../../src/domain/thread-digest.js";
import {
  createdEvent,
  IDS,
  listingItem,
  listingPage,
  threadEvent,
  threadListing,
  updatedEvent,
} from "../fixtures/threads/build.js";

describe("buildThreadDigest", () => {
  it("joins a realistic event with its listing item", () => {
    const d = buildThreadDigest(updatedEvent(), listingItem("thr_8c1f2a9e"));
    expect(d).toEqual({
      threadId: "thr_8c1f2a9e",
      groupId: "65f1c0a2e4b0a1d2c3b4a0g7",
      groupName: "Acme Wallet – Support (EN)",
      communityId: "65f1c0a2e4b0a1d2c3b4a001",
      title: "Card top-ups failing for EU users since Monday",
      // The payload's summary (the enrichment that triggered the event), not the listing's.
      summary: expect.stringMatching(/^EU card top-ups failed after the 4\.12 update\. The payments team/),
      sentiment: "negative",
      keywords: ["card top-up", "error 402", "EU", "double debit", "refund", "4.12.1"],
      messageCount: 52,
      participantCount: 11,
      isQuestionLed: true,
      questionResponseStatus: "answered",
      firstMessageDate: "2025-03-03T07:58:40.000Z",
      lastMessageDate: "2025-03-06T08:31:12.000Z",
      enrichedAt: "2025-03-06T08:45:03.107Z",
      action: "updated",
    });
  });

  it("takes counts from the listing, the source `threads` reads, and from the payload without one", () => {
    const event = updatedEvent();
    const later = { ...listingItem("thr_8c1f2a9e"), messageCount: 60, participantCount: 13 };
    const d = buildThreadDigest(event, later);
    expect([d.messageCount, d.participantCount]).toEqual([60, 13]);
    const alone = buildThreadDigest(event, undefined);
    expect([alone.messageCount, alone.participantCount]).toEqual([
      event.payload.messageCount,
      event.payload.participantCount,
    ]);
  });

  it("works without a listing: no sentiment yet, no keywords", () => {
    const d = buildThreadDigest(createdEvent(), undefined);
    expect(d.action).toBe("created");
    expect(d.sentiment).toBeUndefined();
    expect(d.keywords).toEqual([]);
    expect(d.isQuestionLed).toBeUndefined();
    expect(d.messageCount).toBe(37);
    expect(d.participantCount).toBe(9);
    expect(d.enrichedAt).toBe("2025-03-05T18:02:11.482Z");
  });

  it("falls back to the listing's title and summary when the payload has none", () => {
    const d = buildThreadDigest(
      threadEvent({ title: "  ", summary: null, messageCount: undefined }),
      threadListing({ messageCount: 12 }),
    );
    expect(d.title).toBe("Synthetic thread (listing)");
    expect(d.summary).toBe("Listing summary.");
    expect(d.messageCount).toBe(12);
  });

  it("reads keywords from whichever field carries them", () => {
    const page = listingPage();
    const kw = (id: string) =>
      buildThreadDigest(
        threadEvent({ threadId: id }),
        page.data.find((t) => t.id === id),
      ).keywords;
    expect(kw("thr_51d0be77")).toEqual(["CSV export", "transaction history", "taxes"]);
    expect(kw("thr_a93c4410")).toEqual(["dark mode", "OLED", "design"]);
    expect(kw("thr_0f77e2c1")).toEqual([]);
  });

  it("ignores a listing item of another thread", () => {
    const d = buildThreadDigest(threadEvent(), threadListing({ id: "someone-else", sentiment: "negative" }));
    expect(d.sentiment).toBeUndefined();
    expect(d.title).toBe("Synthetic thread");
  });

  it("prefers enrichment fields should the payload ever carry them", () => {
    const event = threadEvent({ sentiment: "positive", keywords: ["from payload"] } as Record<
      string,
      unknown
    >);
    const d = buildThreadDigest(event, threadListing({ sentiment: "negative" }));
    expect(d.sentiment).toBe("positive");
    expect(d.keywords).toEqual(["from payload"]);
  });

  it("keeps an empty group name empty and the ids intact", () => {
    const d = buildThreadDigest(threadEvent({ groupName: undefined }), undefined);
    expect(d.groupName).toBe("");
    expect(d.groupId).toBe(IDS.group);
    expect(d.communityId).toBe(IDS.community);
  });

  it("turns null sentiment and status into undefined", () => {
    const d = buildThreadDigest(
      threadEvent(),
      threadListing({ sentiment: null, questionResponseStatus: null }),
    );
    expect(d.sentiment).toBeUndefined();
    expect(d.questionResponseStatus).toBeUndefined();
  });
});

describe("listingLagsBehind", () => {
  const event = (summary: string | undefined) => {
    const e = updatedEvent();
    return { ...e, payload: { ...e.payload, summary } };
  };
  const listing = (summary: string | undefined) => ({ ...listingItem("thr_8c1f2a9e"), summary });

  it("a listing with another summary lags behind the event", () => {
    expect(listingLagsBehind(event("Refunds issued."), listing("Top-ups failing."))).toBe(true);
  });

  it("the same summary, reflowed or shortened with an ellipsis, does not", () => {
    expect(listingLagsBehind(event("Refunds  issued\nto all."), listing(" Refunds issued to all. "))).toBe(
      false,
    );
    expect(listingLagsBehind(event("Refunds issued to all users."), listing("Refunds issued to all…"))).toBe(
      false,
    );
    expect(listingLagsBehind(event("Refunds issued..."), listing("Refunds issued to all users."))).toBe(
      false,
    );
  });

  it("no summary on either side, or a listing item of another thread, is no evidence", () => {
    expect(listingLagsBehind(event(undefined), listing("Top-ups failing."))).toBe(false);
    expect(listingLagsBehind(event("Refunds issued."), listing(undefined))).toBe(false);
    expect(listingLagsBehind(event("  "), listing("Top-ups failing."))).toBe(false);
    const other = { ...listingItem("thr_8c1f2a9e"), id: "thr_other", summary: "Top-ups failing." };
    expect(listingLagsBehind(event("Refunds issued."), other)).toBe(false);
  });
});
