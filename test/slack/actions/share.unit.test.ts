import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.js";
import { shareResult } from "../../../src/slack/actions/share.js";
import { STALE_BUTTON, type ActionReply } from "../../../src/slack/actions/reply.js";
import { encodeShareState } from "../../../src/slack/button-values.js";
import { classifyCode, SlackCallError } from "../../../src/slack/errors.js";
import { FakeSlack } from "../../helpers/fakes.js";
import { allTexts } from "../render/walk.js";

const value = encodeShareState({
  k: "thread",
  gn: "Lumen DB Support",
  ti: "Retention per measurement",
  tx: "How to keep raw data 7 days & rollups 1 year <for real>.",
});

function press(slack: FakeSlack, v: string | undefined = value, channelId: string | undefined = "C0UNIT") {
  const replies: ActionReply[] = [];
  const done = shareResult(
    { slack, logger: silentLogger },
    {
      value: v,
      channelId,
      userId: "U0ALICE",
      respond: async (r) => {
        replies.push(r);
      },
    },
  );
  return { done, replies };
}

// The "Share in channel" handler with a fake Slack: what is posted, and what the sharer is told.
describe("Share in channel (unit, fake deps)", () => {
  it("posts the result visibly, escaped and credited, and tells the sharer", async () => {
    const slack = new FakeSlack();
    const { done, replies } = press(slack);
    await done;
    expect(slack.posts).toHaveLength(1);
    const post = slack.posts[0];
    expect(post?.channel).toBe("C0UNIT");
    const text = [post?.text ?? "", ...allTexts(post?.blocks ?? [])].join("\n");
    expect(text).toContain("Retention per measurement");
    expect(text).toContain("&amp; rollups 1 year &lt;for real&gt;");
    expect(text).toContain("<@U0ALICE>");
    expect(replies).toEqual([{ replace_original: false, text: ":heavy_check_mark: Shared in <#C0UNIT>." }]);
  });

  it("a channel the app is not in is explained, and nothing is posted", async () => {
    const slack = new FakeSlack();
    slack.failNext = new SlackCallError("chat.postMessage", classifyCode("not_in_channel"));
    const { done, replies } = press(slack);
    await done;
    expect(slack.posts).toHaveLength(0);
    expect(replies[0]?.text).toContain("The app cannot post in this channel. Invite it first");
  });

  it("a stale or foreign value is refused", async () => {
    const slack = new FakeSlack();
    const { done, replies } = press(slack, '{"k":"nope"}');
    await done;
    expect(slack.posts).toHaveLength(0);
    expect(replies[0]?.text).toBe(STALE_BUTTON);
  });
});
