import { describe, expect, it } from "vitest";
import { slackApiFor, useSlackStandIn } from "../helpers/slack.js";

describe("the stand-in Slack's assistant methods (docs.slack.dev/reference/methods/assistant.threads.*)", () => {
  const standIn = useSlackStandIn();

  it("records setStatus, setSuggestedPrompts and setTitle with Slack's argument names", async () => {
    const { api } = slackApiFor(standIn.current);
    const where = { channel_id: "D1", thread_ts: "1.1" };
    await api.call("assistant.threads.setStatus", { ...where, status: "is reading the community…" });
    await api.call("assistant.threads.setSuggestedPrompts", {
      ...where,
      title: "Ask",
      prompts: [{ title: "Today", message: "What happened today?" }],
    });
    await api.call("assistant.threads.setTitle", { ...where, title: "What happened today?" });
    expect(standIn.current.calls.map((c) => [c.method, c.ok, c.args])).toEqual([
      ["assistant.threads.setStatus", true, { ...where, status: "is reading the community…" }],
      [
        "assistant.threads.setSuggestedPrompts",
        true,
        { ...where, title: "Ask", prompts: [{ title: "Today", message: "What happened today?" }] },
      ],
      ["assistant.threads.setTitle", true, { ...where, title: "What happened today?" }],
    ]);
  });

  it("refuses what Slack refuses: no channel, no thread, more than four prompts, a prompt without its message", async () => {
    const { api } = slackApiFor(standIn.current);
    const error = (method: string, args: Record<string, unknown>) =>
      api.call(method, args).then(
        () => "ok",
        (err: { classification?: { code?: string } }) => err.classification?.code,
      );
    expect(await error("assistant.threads.setStatus", { thread_ts: "1.1", status: "x" })).toBe(
      "channel_not_found",
    );
    expect(await error("assistant.threads.setTitle", { channel_id: "D1", title: "x" })).toBe(
      "invalid_thread_ts",
    );
    const prompt = { title: "t", message: "m" };
    expect(
      await error("assistant.threads.setSuggestedPrompts", {
        channel_id: "D1",
        prompts: Array(5).fill(prompt),
      }),
    ).toBe("invalid_arguments");
    expect(
      await error("assistant.threads.setSuggestedPrompts", { channel_id: "D1", prompts: [{ title: "t" }] }),
    ).toBe("invalid_arguments");
  });

  it("answers users.info with the time zone a test gave the user", async () => {
    const { api } = slackApiFor(standIn.current);
    standIn.current.timeZones.set("U1", "Asia/Tokyo");
    const info = await api.call<{ user: { tz: string } }>("users.info", { user: "U1" });
    expect(info.user.tz).toBe("Asia/Tokyo");
    const other = await api.call<{ user: { tz: string } }>("users.info", { user: "U2" });
    expect(other.user.tz).toBe("UTC");
  });
});
