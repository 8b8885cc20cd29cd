import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import { startHarness, type Harness } from "../../helpers/app-harness.js";
import { ask, shown } from "./helpers.js";

const SUPPORT = SEED.groups.support;
const CONTRIBUTORS = SEED.groups.contributors;

/** A channel of its own for each test, so subscriptions never leak between them. */
let channelSeq = 0;
const freshChannel = () => `C0SUBS${String(++channelSeq).padStart(3, "0")}`;

describe("/insight subscribe, unsubscribe, list (full app, signed requests)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ registerWebhook: false });
  });
  afterAll(async () => {
    await h?.stop();
  });

  const say = (text: string, channel: string, user = "U0ALICE") => ask(h, text, { channel, user });

  it("subscribe by id records the subscription and names the group", async () => {
    const channel = freshChannel();
    const r = await say(`subscribe ${SUPPORT}`, channel);
    expect(r.text).toBe(
      `Subscribed: this channel follows *Lumen DB Support* (\`${SUPPORT}\`). In force: all threads · a card per thread.`,
    );
    expect(r.response_type).toBe("ephemeral");
    const sub = await h.workspace.subscriptions.get(channel, SUPPORT);
    expect(sub).toMatchObject({
      channelId: channel,
      groupId: SUPPORT,
      groupName: "Lumen DB Support",
      communityId: SEED.communities.primary,
      filters: {},
      createdBy: "U0ALICE",
    });
    expect(sub?.paused).toBeUndefined();
  });

  it("subscribe by name, case-insensitively, with the words unquoted", async () => {
    const channel = freshChannel();
    const r = await say("subscribe lUMEN db CONTRIBUTORS", channel);
    expect(r.text).toContain(`*Lumen DB Contributors* (\`${CONTRIBUTORS}\`)`);
    expect((await h.workspace.subscriptions.forChannel(channel)).map((s) => s.groupId)).toEqual([
      CONTRIBUTORS,
    ]);
  });

  it("subscribe by a unique part of a name", async () => {
    const channel = freshChannel();
    const r = await say("subscribe SATURDAY", channel);
    expect(r.text).toContain(`*Saturday Rides* (\`${SEED.groups.rides}\`)`);
  });

  it("a group name with mrkdwn characters is escaped in the reply", async () => {
    const channel = freshChannel();
    const r = await say('subscribe "Bike Workshop & Gear"', channel);
    expect(r.text).toContain("*Bike Workshop &amp; Gear*");
    expect((await h.workspace.subscriptions.get(channel, SEED.groups.workshop))?.groupName).toBe(
      "Bike Workshop & Gear",
    );
  });

  it("an ambiguous name lists the choices with their ids and subscribes to none", async () => {
    const channel = freshChannel();
    const r = await say("subscribe lumen db", channel);
    expect(r.text).toContain('"lumen db" matches several chat groups; name one by its id or full name:');
    expect(r.text).toContain(`• Lumen DB Support (\`${SUPPORT}\`)`);
    expect(r.text).toContain(`• Lumen DB Contributors (\`${CONTRIBUTORS}\`)`);
    // A direct-message group is never offered.
    expect(r.text).not.toContain(SEED.groups.dm);
    expect(await h.workspace.subscriptions.forChannel(channel)).toEqual([]);
  });

  it("an unknown group name or id says so", async () => {
    const channel = freshChannel();
    const byName = await say("subscribe Knitting Circle", channel);
    expect(byName.text).toBe(
      'No chat group named "Knitting Circle" is readable with the app\'s key. See `/insight groups`.',
    );
    const byId = await say("subscribe 65f1c0a2e4b0a1d2c3ffffff", channel);
    expect(byId.text).toContain('No chat group named "65f1c0a2e4b0a1d2c3ffffff"');
    expect(await h.workspace.subscriptions.forChannel(channel)).toEqual([]);
  });

  it("a group of a community the key cannot read gets the 403 sentence", async () => {
    const channel = freshChannel();
    // The emulator answers 403 for communities outside a key's grant: narrow the app's key.
    h.emulator.grantKey(h.emulator.apiKey, [SEED.communities.primary, SEED.communities.secondary]);
    try {
      const r = await say(`subscribe ${SEED.groups.beta}`, channel);
      expect(r.text).toBe(
        `The API key cannot read the chat group "${SEED.groups.beta}". Ask a community admin to grant it access in the Insight dashboard.`,
      );
      expect(r.text).not.toContain(h.emulator.apiKey);
      // By name it is simply not among the readable groups.
      const byName = await say("subscribe Pocketbook Beta Testers", channel);
      expect(byName.text).toContain('No chat group named "Pocketbook Beta Testers" is readable');
      expect(await h.workspace.subscriptions.forChannel(channel)).toEqual([]);
    } finally {
      h.emulator.grantKey(h.emulator.apiKey, "all");
    }
  });

  it("filters are stored, shown in the reply and in list", async () => {
    const channel = freshChannel();
    const r = await say(
      'subscribe "Lumen DB Support" --sentiment negative,mixed --min-messages 5 --keywords replication, dark mode',
      channel,
    );
    expect(r.text).toContain(
      `Subscribed: this channel follows *Lumen DB Support* (\`${SUPPORT}\`). In force: sentiment negative or mixed · ≥ 5 messages · keywords replication or dark mode · a card per thread.`,
    );
    expect((await h.workspace.subscriptions.get(channel, SUPPORT))?.filters).toEqual({
      sentiments: ["negative", "mixed"],
      minMessages: 5,
      keywords: ["replication", "dark mode"],
    });
    const list = await say("list", channel);
    expect(shown(list)).toContain(
      `*Lumen DB Support* (\`${SUPPORT}\`)\nDelivery: a card per thread\nFilters: sentiment negative or mixed · ≥ 5 messages · keywords replication or dark mode`,
    );
  });

  it("subscribing again changes only the filters named and says Updated", async () => {
    const channel = freshChannel();
    await say(`subscribe ${SUPPORT} --questions`, channel);
    const before = await h.workspace.subscriptions.get(channel, SUPPORT);
    const r = await say(`subscribe ${SUPPORT} --unanswered`, channel);
    expect(r.text).toMatch(/^Updated: /);
    expect(r.text).toContain("unanswered questions only");
    const after = await h.workspace.subscriptions.get(channel, SUPPORT);
    expect(after?.filters).toEqual({ questions: true, unanswered: true });
    expect(after?.createdAt).toBe(before?.createdAt);
  });

  it("subscribing to a paused subscription resumes it", async () => {
    const channel = freshChannel();
    await say(`subscribe ${SUPPORT}`, channel);
    await h.workspace.subscriptions.pauseChannel(channel, "not_in_channel", new Date());
    const r = await say(`subscribe ${SUPPORT}`, channel);
    expect(r.text).toMatch(/^Resumed: /);
    expect((await h.workspace.subscriptions.get(channel, SUPPORT))?.paused).toBeUndefined();
  });

  it("an invalid filter gets the parser's sentence and records nothing", async () => {
    const channel = freshChannel();
    const cases: [string, string][] = [
      [
        "--sentiment furious",
        '"furious" is not a sentiment I know: use positive, negative, neutral or mixed.',
      ],
      ["--min-messages zero", '--min-messages: A whole number from 1 to 10,000, like 5 (you typed "zero").'],
      [
        "--colour red",
        'Unknown option "--colour": use --sentiment, --exclude-sentiment, --keywords, --exclude-keywords, --questions, --unanswered, --min-messages, --min-participants, --mode, --every, --format, --replies, --all.',
      ],
      ["--questions=maybe", "--questions takes no value, or on/off, like --questions or --questions off."],
    ];
    for (const [flags, sentence] of cases) {
      const r = await say(`subscribe ${SUPPORT} ${flags}`, channel);
      expect(r.text).toContain(`I could not read that: ${sentence}`);
      expect(r.text).toContain("Example: `/insight subscribe");
    }
    expect(await h.workspace.subscriptions.forChannel(channel)).toEqual([]);
  });

  it("subscribe without a group shows its usage", async () => {
    const channel = freshChannel();
    const r = await say("subscribe --sentiment negative", channel);
    expect(r.text).toMatch(
      /^Name the chat group first\. Usage: `\/insight subscribe &lt;group&gt; \[options\]`/,
    );
  });

  // BUG (src/slack/commands/subscribe.ts, the `flagAt` search): the filter parser accepts
  // "—sentiment" because Slack on macOS/iOS turns a typed "--" into an em dash, but subscribe
  // only splits the group name from the filters at a word starting with "--". The dashed
  // filter is taken as part of the group name and the command answers "No chat group named".
  it("filters typed with an em dash (Slack's autocorrect of --) are understood", async () => {
    const channel = freshChannel();
    const r = await say(`subscribe ${SUPPORT} —sentiment negative`, channel);
    expect(r.text).toMatch(/^Subscribed: /);
    expect((await h.workspace.subscriptions.get(channel, SUPPORT))?.filters).toEqual({
      sentiments: ["negative"],
    });
  });

  // BUG (src/slack/commands/subscribe.ts, the reply): describeFilters() returns "all threads"
  // for no filters, never "", so `filters ? ... : "."` always takes the first branch and an
  // unfiltered subscription is confirmed as "…, filtered: all threads."
  it("an unfiltered subscription is not described as filtered", async () => {
    const channel = freshChannel();
    const r = await say(`subscribe ${SUPPORT}`, channel);
    expect(r.text).not.toContain("filtered");
  });

  it("list: empty, then every followed group in order", async () => {
    const channel = freshChannel();
    const empty = await say("list", channel);
    expect(empty.text).toBe(
      "This channel follows no chat group. Start with `/insight groups`, then `/insight subscribe &lt;group&gt;`.",
    );
    await say(`subscribe ${SUPPORT}`, channel);
    await say(`subscribe ${CONTRIBUTORS} --questions`, channel);
    const r = await say("list", channel);
    expect(r.text).toMatch(/^This channel follows 2 chat groups:\n/);
    const t = shown(r);
    expect(t).toContain(
      `*Lumen DB Support* (\`${SUPPORT}\`)\nDelivery: a card per thread\nFilters: all threads`,
    );
    expect(t).toContain(
      `*Lumen DB Contributors* (\`${CONTRIBUTORS}\`)\nDelivery: a card per thread\nFilters: questions only`,
    );
    expect(t.indexOf("Lumen DB Support")).toBeLessThan(t.indexOf("Lumen DB Contributors"));
    // Another channel's list is its own.
    expect((await say("list", freshChannel())).text).toContain("follows no chat group");
  });

  it("list marks a paused subscription with Slack's reason", async () => {
    const channel = freshChannel();
    await say(`subscribe ${SUPPORT}`, channel);
    await h.workspace.subscriptions.pauseChannel(channel, "is_archived", new Date());
    const r = await say("list", channel);
    expect(r.text).toContain("This channel follows 1 chat group:");
    expect(shown(r)).toContain(
      ":pause_button: paused: That channel is archived: unarchive it, or subscribe another channel.",
    );
  });

  it("unsubscribe by case-insensitive name and by id", async () => {
    const channel = freshChannel();
    await say(`subscribe ${SUPPORT}`, channel);
    await say(`subscribe ${CONTRIBUTORS}`, channel);
    const byName = await say("unsubscribe lumen db support", channel);
    expect(byName.text).toBe(
      `Unsubscribed: this channel no longer follows *Lumen DB Support* (\`${SUPPORT}\`).`,
    );
    const byId = await say(`unsubscribe ${CONTRIBUTORS}`, channel);
    expect(byId.text).toContain(`*Lumen DB Contributors* (\`${CONTRIBUTORS}\`)`);
    expect(await h.workspace.subscriptions.forChannel(channel)).toEqual([]);
    expect(await h.workspace.subscriptions.forGroup(SUPPORT)).not.toContainEqual(
      expect.objectContaining({ channelId: channel }),
    );
  });

  it("unsubscribe from a group the channel does not follow lists what it follows", async () => {
    const channel = freshChannel();
    expect((await say(`unsubscribe ${SUPPORT}`, channel)).text).toBe("This channel follows no chat group.");
    await say(`subscribe ${CONTRIBUTORS}`, channel);
    const r = await say("unsubscribe Saturday Rides", channel);
    expect(r.text).toBe(
      `This channel does not follow "Saturday Rides". It follows:\n• Lumen DB Contributors (\`${CONTRIBUTORS}\`)`,
    );
    expect(await h.workspace.subscriptions.forChannel(channel)).toHaveLength(1);
  });

  it("unsubscribe works without asking the Insight Service (a group the key can no longer read)", async () => {
    const channel = freshChannel();
    await say(`subscribe ${SUPPORT}`, channel);
    h.emulator.faults.set({ down: true });
    try {
      const r = await say("unsubscribe Lumen DB Support", channel);
      expect(r.text).toMatch(/^Unsubscribed: /);
    } finally {
      h.emulator.faults.clear();
    }
    expect(await h.workspace.subscriptions.forChannel(channel)).toEqual([]);
  });

  it("an unknown subcommand names it and shows the help", async () => {
    const r = await say("frobnicate now", freshChannel());
    expect(r.text).toMatch(/^There is no `frobnicate` subcommand\.\n/);
    expect(r.text).toContain("*Insight Relay* brings your community's chat groups into Slack.");
    expect(r.text).toContain("• `/insight subscribe &lt;group&gt; [options]`");
    expect(r.text).toContain(
      "• `/insight unsubscribe &lt;group&gt;` — this channel stops following a chat group (its cards and digests; alerts stay)",
    );
    expect(r.text).toContain("• `/insight list` — ");
  });

  it("an empty command shows the help, as does `help`", async () => {
    const empty = await say("", freshChannel());
    const help = await say("help", freshChannel());
    expect(empty.text).toMatch(/^\*Insight Relay\* brings your community's chat groups into Slack\./);
    expect(empty.text).toContain("• `/insight subscribe &lt;group&gt; [options]`");
    expect(empty.text).toBe(help.text);
  });
});

describe("/insight subscribe with ADMIN_USER_IDS set", () => {
  let h: Harness;
  const ADMIN = "U0ADMIN";
  beforeAll(async () => {
    h = await startHarness({ registerWebhook: false, env: { ADMIN_USER_IDS: `${ADMIN}, U0OTHERADMIN` } });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("a non-admin is refused subscribe and unsubscribe; list still works", async () => {
    const channel = freshChannel();
    const refused = await ask(h, `subscribe ${SUPPORT}`, { channel, user: "U0MEMBER" });
    expect(refused.text).toBe(
      "Only the app's admins can use `/insight subscribe` here. Reading commands (`threads`, `search`, `list`, `status`) are open to everyone.",
    );
    expect(await h.workspace.subscriptions.forChannel(channel)).toEqual([]);

    // The second admin in the list (after ", ") counts too.
    expect((await ask(h, `subscribe ${SUPPORT}`, { channel, user: "U0OTHERADMIN" })).text).toMatch(
      /^Subscribed: /,
    );

    const notRemoved = await ask(h, `unsubscribe ${SUPPORT}`, { channel, user: "U0MEMBER" });
    expect(notRemoved.text).toContain("Only the app's admins can use `/insight unsubscribe` here.");
    expect(await h.workspace.subscriptions.forChannel(channel)).toHaveLength(1);

    const list = await ask(h, "list", { channel, user: "U0MEMBER" });
    expect(shown(list)).toContain(`*Lumen DB Support* (\`${SUPPORT}\`)`);
    // A member sees no Settings button: it would only be refused.
    expect(JSON.stringify(list.blocks)).not.toContain("insight.settings.open");
    const forAdmin = await ask(h, "list", { channel, user: ADMIN });
    expect(JSON.stringify(forAdmin.blocks)).toContain("insight.settings.open");

    expect((await ask(h, `unsubscribe ${SUPPORT}`, { channel, user: ADMIN })).text).toMatch(
      /^Unsubscribed: /,
    );
  });
});
