import type { WatchSpec } from "../../domain/watch.js";
import { parseWatchArgs, WATCH_EXAMPLE, WATCH_USAGE } from "../../domain/watch-args.js";
import type { Logger } from "../../log.js";
import type { ReminderStore } from "../../store/reminders.js";
import type { WatchStore } from "../../store/watches.js";
import {
  renderWatchList,
  watchAddedText,
  watchBadInputText,
  watchDuplicateText,
  watchLimitText,
  watchOffText,
} from "../render/watch-list.js";
import { resolveGroupOrReply, type ResolveGroupDeps } from "./resolve-group.js";
import type { Subcommand } from "./types.js";

/** What `/insight watch` reads and writes: the person's own watches and reminders, nothing of a channel. */
export interface WatchCommandDeps extends ResolveGroupDeps {
  watches: Pick<WatchStore, "add" | "list" | "remove" | "removeAll" | "limit">;
  reminders: Pick<ReminderStore, "list">;
  /**
   * The person's own Slack time zone (users.info), which quiet hours and daily times are in.
   * Not `timeZoneOf`: in the commands' deps that name is a channel's zone.
   */
  userTimeZoneOf: (userId: string) => Promise<string>;
  logger: Logger;
  now?: () => Date;
}

/** The person's zone, or UTC (said in the reply) when Slack could not tell it. */
async function zoneOf(
  deps: Pick<WatchCommandDeps, "userTimeZoneOf" | "logger">,
  userId: string,
): Promise<string> {
  try {
    return await deps.userTimeZoneOf(userId);
  } catch (err) {
    deps.logger.info({ err, user: userId }, "watch: the person's time zone could not be read; using UTC");
    return "UTC";
  }
}

/** `watch list`: the person's watches and pending reminders, as a private reply with buttons. */
export async function watchListReply(
  deps: {
    watches: Pick<WatchStore, "list" | "limit">;
    reminders: Pick<ReminderStore, "list">;
  } & Pick<WatchCommandDeps, "userTimeZoneOf" | "logger">,
  userId: string,
  notice?: string,
) {
  const [watches, reminders, timeZone] = await Promise.all([
    deps.watches.list(userId),
    deps.reminders.list(userId),
    zoneOf(deps, userId),
  ]);
  return renderWatchList({
    watches,
    reminders,
    limit: deps.watches.limit,
    timeZone,
    ...(notice !== undefined ? { notice } : {}),
  });
}

/**
 * `/insight watch <words> [--group <group>] [filters] [--daily HH:MM] [--quiet HH:MM-HH:MM]`,
 * `watch list`, `watch off <n|all>`: a personal watch, for anyone (it changes nothing of a
 * channel), confirmed privately with what was understood.
 */
export function watchCommand(deps: WatchCommandDeps): Subcommand {
  return {
    name: "watch",
    usage: `${WATCH_USAGE}, watch list, watch off <n|all>`,
    summary:
      "a DM when a thread first matches every word (title, summary or keywords) and the filters of `subscribe`; later changes edit it. `--daily 09:00` gathers a day's, `--quiet 22:00-07:00` holds them",
    mutates: false,
    async run(ctx) {
      const parsed = parseWatchArgs(ctx.args);
      switch (parsed.kind) {
        case "error":
          await ctx.respond({ text: watchBadInputText(parsed.error, parsed.understood, WATCH_EXAMPLE) });
          return;
        case "list": {
          const list = await watchListReply(deps, ctx.userId);
          await ctx.respond({ text: list.text, blocks: list.blocks });
          return;
        }
        case "off": {
          if (parsed.which === "all") {
            const count = await deps.watches.removeAll(ctx.userId);
            await ctx.respond({ text: watchOffText({ removed: "all", count }) });
            return;
          }
          const watches = await deps.watches.list(ctx.userId);
          const w = watches[parsed.which - 1];
          if (!w || !(await deps.watches.remove(ctx.userId, w.id))) {
            await ctx.respond({ text: watchOffText({ missing: parsed.which, count: watches.length }) });
            return;
          }
          await ctx.respond({ text: watchOffText({ removed: w, position: parsed.which }) });
          return;
        }
        case "add": {
          let group: WatchSpec["group"];
          if (parsed.groupRef) {
            const g = await resolveGroupOrReply(deps, ctx, parsed.groupRef);
            if (!g) return;
            group = { id: g.id, name: g.name };
          }
          const spec: WatchSpec = {
            words: parsed.words,
            ...(group ? { group } : {}),
            filters: parsed.filters,
            ...(parsed.daily !== undefined ? { daily: parsed.daily } : {}),
            ...(parsed.quiet ? { quiet: parsed.quiet } : {}),
          };
          const now = deps.now?.() ?? new Date();
          const [added, timeZone] = await Promise.all([
            deps.watches.add(ctx.userId, spec, now),
            zoneOf(deps, ctx.userId),
          ]);
          if (!added.ok) {
            await ctx.respond({
              text:
                added.reason === "limit"
                  ? watchLimitText(added.count, added.limit)
                  : watchDuplicateText(added.watch, added.position),
            });
            return;
          }
          deps.logger.info({ user: ctx.userId, watch: added.watch.id }, "watch added");
          await ctx.respond({
            text: watchAddedText({
              watch: added.watch,
              count: added.count,
              limit: deps.watches.limit,
              timeZone,
            }),
          });
          return;
        }
      }
    },
  };
}
