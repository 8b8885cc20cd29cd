/*
 * The prompts an assistant thread starts with, drawn from the workspace's own groups, each one a
 * question the reader understands exactly (test/ask/suggested-prompts.test.ts reads them). Pure.
 */

export interface SuggestedPrompt {
  /** What the button shows. */
  title: string;
  /** What is sent as the person's question when they press it. */
  message: string;
}

/** Slack shows up to four. */
export const MAX_PROMPTS = 4;
const NAME_MAX = 60;

const cut = (s: string) => (s.length > NAME_MAX ? `${s.slice(0, NAME_MAX - 1)}…` : s);

/** Three questions about the first groups given (cycled when fewer), and one about every group. */
export function suggestedPrompts(groupNames: readonly string[]): SuggestedPrompt[] {
  const names = [...new Set(groupNames.map((n) => n.replace(/\s+/g, " ").trim()).filter(Boolean))].map(cut);
  const at = (i: number) => (names.length > 0 ? names[i % names.length] : undefined);
  const a = at(0);
  const b = at(1);
  const c = at(2);
  const prompts: SuggestedPrompt[] = [
    {
      title: a ? `Unhappy this week in ${a}` : "Unhappy this week",
      message: a
        ? `What are people unhappy about this week in ${a}?`
        : "What are people unhappy about this week?",
    },
    {
      title: b ? `Unanswered in ${b}` : "Unanswered questions",
      message: b ? `Which questions are still unanswered in ${b}?` : "Which questions are still unanswered?",
    },
    {
      title: c ? `Today in ${c}` : "Today",
      message: c ? `What are people saying today in ${c}?` : "What are people saying today?",
    },
    { title: "The last 30 days", message: "What happened in the last 30 days?" },
  ];
  return prompts.slice(0, MAX_PROMPTS);
}
