/** The flags, or the first thing wrong with them. */
export function parseDemoArgs(args: string[]): { keep: boolean; workspaces: 1 | 2 } | { error: string } {
  let keep = false;
  let workspaces: 1 | 2 = 1;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? "";
    if (a === "--keep") keep = true;
    else if (a === "--workspaces" || a.startsWith("--workspaces=")) {
      const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : args[++i];
      if (v !== "1" && v !== "2") return { error: `--workspaces is 1 or 2, not ${v ?? "nothing"}` };
      workspaces = v === "2" ? 2 : 1;
    } else return { error: `unknown argument ${a}` };
  }
  return { keep, workspaces };
}
