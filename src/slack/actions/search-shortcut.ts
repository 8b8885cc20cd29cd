import type {
  GlobalShortcut,
  MessageShortcut,
  Middleware,
  SlackShortcutMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from "@slack/bolt";
import type { ModalView } from "@slack/types";
import { messageText, searchTextOf } from "../../domain/search-text.js";
import type { Subscription } from "../../domain/subscription.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import { decodeState } from "../button-values.js";
import type { SlackApi, ViewPayload } from "../client.js";
import { searchGroups, type SearchGroupsDeps } from "../commands/search-groups.js";
import { searchModalStateSchema } from "../personal-ids.js";
import {
  GROUP_CHOICES,
  renderSearchForm,
  renderSearchLoading,
  renderSearchProblem,
  renderSearchResultsModal,
  SEARCH_FIELDS,
  SEARCH_INPUT,
  searchEntries,
  type SearchFormState,
} from "../render/search-modal.js";
import { plural } from "../render/wording.js";
import { within } from "./within.js";
import type { FormValues } from "./settings-submit.js";

/*
 * Search from anywhere (docs/using.md, "Shortcuts"): the message shortcut `search_community`
 * searches with the message's words in the groups the channel follows (else every group the
 * workspace follows); the global shortcut `search_community_global` opens the same modal with a
 * search field and a group picker. Both open within Slack's 3 s trigger window (a loading view
 * when the service must answer first) and update it when the search answers. Private: a modal.
 */

export interface SearchShortcutDeps extends SearchGroupsDeps {
  subscriptions: Pick<SubscriptionStore, "forChannel" | "all">;
  slack: Pick<SlackApi, "openView" | "updateView">;
}

/** Reading the followed groups before a modal opens waits at most this long (the trigger lasts 3 s). */
const SUBS_WAIT_MS = 1_000;

const groupsOf = (subs: readonly Subscription[]) => {
  const byId = new Map<string, { id: string; name: string }>();
  for (const s of subs)
    if (!byId.has(s.groupId)) byId.set(s.groupId, { id: s.groupId, name: s.groupName || s.groupId });
  return [...byId.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
};

/** The groups a choice stands for, and how to say where that is. */
function chosenGroups(
  choice: string,
  channelGroups: readonly { id: string; name: string }[],
  followed: readonly { id: string; name: string }[],
): { groups: { id: string; name: string }[]; where: string } {
  const say = (gs: readonly { name: string }[]) =>
    gs.length === 1 ? (gs[0]?.name ?? "") : plural(gs.length, "chat group");
  if (choice === GROUP_CHOICES.channel && channelGroups.length > 0) {
    return { groups: [...channelGroups], where: say(channelGroups) };
  }
  const one = followed.find((g) => g.id === choice);
  if (one) return { groups: [one], where: one.name };
  return { groups: [...followed], where: say(followed) };
}

export const NOTHING_FOLLOWED =
  "No chat group is followed in this workspace yet, so there is nothing to search. In a channel, run `/insight groups`, then `/insight subscribe <group>`.";
export const NO_WORDS =
  "This message has no words to search for (only an emoji, a link or a file). Type what to look for instead:";

/** Searches and returns the results view (or the reason nothing could be searched). */
export async function searchView(
  deps: SearchShortcutDeps,
  form: SearchFormState,
  where: { groups: { id: string; name: string }[]; where: string },
  o: { cut?: boolean } = {},
): Promise<ViewPayload> {
  if (where.groups.length === 0) return renderSearchProblem(form, NOTHING_FOLLOWED);
  const found = await searchGroups(deps, where.groups, form.query);
  if (found.allFailed) {
    return renderSearchProblem(form, [...new Set(found.failures.map((f) => f.reply))].join("\n"));
  }
  return renderSearchResultsModal({
    form,
    where: where.where,
    entries: searchEntries(found.threads, found.messages),
    failures: found.failures,
    ...(o.cut ? { cut: true } : {}),
  });
}

/** The channel's and the workspace's followed groups, or none when they take too long to read. */
async function followedGroups(deps: SearchShortcutDeps, channelId: string | undefined) {
  const read = Promise.all([
    channelId ? deps.subscriptions.forChannel(channelId) : Promise.resolve([]),
    deps.subscriptions.all(),
  ]);
  const got = await within(read, SUBS_WAIT_MS);
  return { channel: groupsOf(got?.[0] ?? []), all: groupsOf(got?.[1] ?? []) };
}

type MessageShortcutListener = Middleware<SlackShortcutMiddlewareArgs<MessageShortcut>>;
type GlobalShortcutListener = Middleware<SlackShortcutMiddlewareArgs<GlobalShortcut>>;
type ViewListener = Middleware<SlackViewMiddlewareArgs<ViewSubmitAction>>;

/** "Search the community for this": the message's words, in the channel's groups (else all followed). */
export async function searchFromMessage(
  deps: SearchShortcutDeps,
  s: { triggerId: string; channelId: string; message: Parameters<typeof messageText>[0] },
): Promise<"searched" | "no-words"> {
  const q = searchTextOf(messageText(s.message));
  const state = { c: s.channelId };
  if (!q.ok) {
    const followed = await followedGroups(deps, s.channelId);
    await deps.slack.openView({
      trigger_id: s.triggerId,
      view: renderSearchForm(
        {
          query: "",
          groups: followed.channel.length > 0 ? GROUP_CHOICES.channel : GROUP_CHOICES.all,
          followed: followed.all,
          channelFollows: followed.channel.length > 0,
          channelId: s.channelId,
        },
        { notice: NO_WORDS },
      ),
    });
    return "no-words";
  }
  // Open first: the trigger expires 3 s after the click, and the search may take longer.
  const opened = await deps.slack.openView({
    trigger_id: s.triggerId,
    view: renderSearchLoading({ query: q.text, where: "the community", state }),
  });
  const followed = await followedGroups(deps, s.channelId);
  const form: SearchFormState = {
    query: q.text,
    groups: followed.channel.length > 0 ? GROUP_CHOICES.channel : GROUP_CHOICES.all,
    followed: followed.all,
    channelFollows: followed.channel.length > 0,
    channelId: s.channelId,
  };
  const view = await searchView(deps, form, chosenGroups(form.groups, followed.channel, followed.all), {
    cut: q.cut,
  });
  await deps.slack.updateView({ view_id: opened.id, view });
  return "searched";
}

export function messageShortcut(deps: SearchShortcutDeps): MessageShortcutListener {
  return async ({ ack, shortcut }) => {
    await ack();
    try {
      await searchFromMessage(deps, {
        triggerId: shortcut.trigger_id,
        channelId: shortcut.channel.id,
        message: shortcut.message,
      });
    } catch (err) {
      deps.logger.error({ err, channel: shortcut.channel.id }, "search shortcut failed");
    }
  };
}

/** "Search the community": the form, with every followed group to pick from. */
export function globalShortcut(deps: SearchShortcutDeps): GlobalShortcutListener {
  return async ({ ack, shortcut }) => {
    await ack();
    try {
      const followed = await followedGroups(deps, undefined);
      await deps.slack.openView({
        trigger_id: shortcut.trigger_id,
        view: renderSearchForm({
          query: "",
          groups: GROUP_CHOICES.all,
          followed: followed.all,
          channelFollows: false,
        }),
      });
    } catch (err) {
      deps.logger.error({ err }, "global search shortcut failed");
    }
  };
}

const value = (v: FormValues, block: string) =>
  v[block]?.[SEARCH_INPUT] as
    | {
        value?: string | null;
        selected_option?: { value: string } | null;
        selected_conversation?: string | null;
      }
    | undefined;

/**
 * The modal's Search: words are checked inside their field; then the modal shows it is
 * searching (the answer to the submission) and is updated with what was found.
 */
export function searchSubmit(deps: SearchShortcutDeps): ViewListener {
  return async ({ ack, view }) => {
    const values = view.state.values as FormValues;
    const raw = value(values, SEARCH_FIELDS.query)?.value ?? "";
    const q = searchTextOf(raw, 500);
    if (!q.ok) {
      await ack({
        response_action: "errors",
        errors: { [SEARCH_FIELDS.query]: "Type a few words to search for, like: replicas fall behind." },
      });
      return;
    }
    const state = decodeState(searchModalStateSchema, view.private_metadata) ?? {};
    const share = value(values, SEARCH_FIELDS.shareTo)?.selected_conversation ?? undefined;
    const channelId = share ?? state.c;
    const choice = value(values, SEARCH_FIELDS.groups)?.selected_option?.value ?? GROUP_CHOICES.all;
    await ack({
      response_action: "update",
      // Our renderers build plain Block Kit (ViewPayload); @slack/types calls the same JSON a ModalView.
      view: renderSearchLoading({
        query: q.text,
        where: "the community",
        state: channelId ? { c: channelId } : {},
      }) as unknown as ModalView,
    });
    try {
      const followed = await followedGroups(deps, state.c);
      const form: SearchFormState = {
        query: q.text,
        groups: choice,
        followed: followed.all,
        channelFollows: followed.channel.length > 0,
        channelId,
      };
      const result = await searchView(deps, form, chosenGroups(choice, followed.channel, followed.all));
      await deps.slack.updateView({ view_id: view.id, view: result });
    } catch (err) {
      deps.logger.error({ err }, "search modal failed");
    }
  };
}
