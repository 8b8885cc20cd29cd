/** One line of the doctor's report. */
export interface CheckResult {
  status: "ok" | "fail" | "warn" | "skip";
  /** What was checked, e.g. "Redis". */
  name: string;
  /** One plain sentence: what was found, and for failures what to do. */
  text: string;
}

const MARK: Record<CheckResult["status"], string> = { ok: "ok  ", fail: "FAIL", warn: "warn", skip: "skip" };

// C0 and C1 control characters: a terminal would act on them (colours, cursor moves, titles).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;

/** Text from elsewhere (community names, error messages) printed to a terminal: one line, no escapes. */
export function oneLine(s: string, max = 200): string {
  const clean = s.replace(CONTROL, " ").replace(/\s+/g, " ").trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

export function formatResult(r: CheckResult): string {
  return `${MARK[r.status]}  ${r.name}: ${oneLine(r.text, 400)}`;
}
