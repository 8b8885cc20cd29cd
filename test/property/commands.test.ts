import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { startHarness, TEST_CHANNEL, TEST_SIGNING_SECRET, type Harness } from "../helpers/app-harness.js";
import { postSigned, slashCommandBody } from "../helpers/slack-signing.js";
import { hostileText } from "./arbitraries.js";

const SUBCOMMANDS = [
  "",
  "help",
  "groups",
  "subscribe",
  "unsubscribe",
  "list",
  "threads",
  "search",
  "weekly",
  "status",
];
const WORDS = [
  SEED.groups.support,
  "Lumen DB Support",
  "last7Days",
  "allTime",
  "lastYear",
  "on",
  "off",
  "now",
  "0 9 * * 1",
  "* * * * * *",
  "Europe/Paris",
  "Mars/Olympus",
  "--sentiment",
  "negative,mixed",
  "--min-messages",
  "-3",
  "--keywords",
  "--questions",
  "--unanswered",
  "—sentiment",
  '"quoted words"',
  "'half",
];

/** Command texts people (and cats on keyboards) type: a subcommand or not, then anything. */
const commandText = fc.oneof(
  hostileText(6),
  fc
    .tuple(
      fc.constantFrom(...SUBCOMMANDS),
      fc.array(fc.oneof(fc.constantFrom(...WORDS), hostileText(2)), { maxLength: 5 }),
      fc.constantFrom(" ", "  ", "\t", "\u00a0"),
    )
    .map(([sub, args, sep]) => [sub, ...args].join(sep)),
);

describe("/insight: any text gets an answer", () => {
  let h: Harness;
  let n = 0;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("acks 200 and replies at least once, whatever the text", async () => {
    await fc.assert(
      fc.asyncProperty(commandText, async (text) => {
        const id = `prop-${++n}`;
        const body = slashCommandBody({
          text: text.slice(0, 3000),
          channel_id: TEST_CHANNEL,
          user_id: "U0PROP",
          response_url: h.slack.responseUrl(id),
        });
        const ack = await postSigned(
          `${h.baseUrl}/slack/events`,
          TEST_SIGNING_SECRET,
          body,
          "application/x-www-form-urlencoded",
        );
        expect(ack.status).toBe(200);
        const reply = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id), {
          timeoutMs: 15_000,
        });
        const shown = JSON.stringify(reply.body);
        expect(shown.length).toBeGreaterThan(10);
      }),
      { numRuns: 150 },
    );
  }, 180_000);
});
