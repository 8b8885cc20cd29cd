import { describe, expect, it } from "vitest";
import { parseSlackArgs } from "../../dev/slack-cli.js";
import { startSlackStandIn } from "../../dev/slack-standin/server.js";
import { request } from "undici";

describe("npm run slack: its arguments", () => {
  const session = "/tmp/session.json";

  it("takes a command as typed in Slack, in one argument or several", () => {
    expect(parseSlackArgs(["/insight threads 7d"], session)).toMatchObject({
      command: "/insight threads 7d",
    });
    expect(parseSlackArgs(["/insight", "list"], session)).toMatchObject({ command: "/insight list" });
    expect(parseSlackArgs(["list"], session)).toEqual({
      error: 'say the command as typed in Slack, e.g. "/insight list"',
    });
  });

  it("presses a card's button, on the newest card unless a ts is given", () => {
    expect(parseSlackArgs(["--press", "digest.follow"], session)).toMatchObject({
      press: { actionId: "digest.follow", channel: undefined, ts: undefined },
    });
    expect(
      parseSlackArgs(["--press", "digest.follow", "--ts", "1.000200", "--channel", "C1"], session),
    ).toMatchObject({
      press: { actionId: "digest.follow", channel: "C1", ts: "1.000200" },
    });
    expect(parseSlackArgs(["/insight list", "--press", "digest.follow"], session)).toEqual({
      error: "either a command or --press, not both",
    });
  });

  it("says what is wrong with an option", () => {
    expect(parseSlackArgs(["--press"], session)).toEqual({ error: "--press needs a value" });
    expect(parseSlackArgs(["--bogus", "/insight list"], session)).toEqual({
      error: "unknown option --bogus",
    });
    expect(parseSlackArgs(["/insight list", "--wait", "999"], session)).toEqual({
      error: "--wait is a number of seconds up to 120",
    });
  });
});

describe("the stand-in's transcript (what npm run slack prints)", () => {
  it("numbers every line it would print, and answers those after a number", async () => {
    const slack = await startSlackStandIn();
    try {
      const origin = new URL(slack.url).origin;
      await request(`${slack.url}chat.postMessage`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer xoxb-test" },
        body: JSON.stringify({ channel: "C1", text: "first" }),
      }).then((r) => r.body.text());
      await request(slack.responseUrl("R1"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text: "a reply" }),
      }).then((r) => r.body.text());
      const all = (await (await request(`${origin}/_standin/transcript`)).body.json()) as {
        lines: { seq: number; line: string }[];
        last: number;
      };
      expect(all.lines.map((l) => l.line)).toEqual([
        "#C1 ← [post] first",
        "response R1 ← [ephemeral] a reply",
      ]);
      expect(all.last).toBe(2);
      const after = (await (await request(`${origin}/_standin/transcript?after=1`)).body.json()) as {
        lines: { line: string }[];
      };
      expect(after.lines.map((l) => l.line)).toEqual(["response R1 ← [ephemeral] a reply"]);
    } finally {
      await slack.close();
    }
  });
});
