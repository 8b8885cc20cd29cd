import { request } from "undici";
import { describe, expect, it } from "vitest";
import { TEST_BOT_TOKEN, useSlackStandIn } from "../helpers/slack.js";

// bench:steady's API faults row answers a share of the posts and edits with 500s and 429s.
const slack = useSlackStandIn();

async function post(text: string): Promise<{ status: number; retryAfter: string | undefined }> {
  const res = await request(`${slack.current.url}chat.postMessage`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TEST_BOT_TOKEN}` },
    body: JSON.stringify({ channel: "C1", text }),
  });
  await res.body.dump();
  const retryAfter = res.headers["retry-after"];
  return { status: res.statusCode, retryAfter: typeof retryAfter === "string" ? retryAfter : undefined };
}

describe("the Slack stand-in's failures as a share of the calls", () => {
  it("fails 1 in `every` matching calls, each rule counting its own, for as long as `count` lasts", async () => {
    slack.current.fail.serverError("chat.postMessage", { count: Number.POSITIVE_INFINITY, every: 5 });
    slack.current.fail.rateLimit("chat.postMessage", {
      count: Number.POSITIVE_INFINITY,
      retryAfterSeconds: 1,
      every: 4,
    });
    const answers = [];
    for (let i = 1; i <= 20; i++) answers.push(await post(`m${i}`));
    // The 500 rule sees every call; the 429 rule only those the 500 rule let through.
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 500)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);
    expect(statuses.filter((s) => s === 200)).toHaveLength(12);
    expect(statuses[4]).toBe(500);
    expect(answers.find((a) => a.status === 429)?.retryAfter).toBe("1");
    expect(slack.current.messages("C1")).toHaveLength(12);
  });

  it("stops after `count` failures", async () => {
    slack.current.fail.serverError("chat.postMessage", { count: 1, every: 2 });
    const statuses = [];
    for (let i = 1; i <= 6; i++) statuses.push((await post(`m${i}`)).status);
    expect(statuses).toEqual([200, 500, 200, 200, 200, 200]);
  });
});
