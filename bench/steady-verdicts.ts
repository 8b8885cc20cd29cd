// Issue 38's targets, each checked against the figures of the app under test in this run.
import { atLeast, atMost, within, type Verdict } from "./steady-figures.js";
import type { IdleFigures } from "./steady-idle.js";
import type { MemoryFigures } from "./steady-memory.js";
import type { OneConnFigures } from "./steady-oneconn.js";
import type { RateFigures } from "./steady-rate.js";
import { idleCosts, ofExpress, rateCosts } from "./steady-report.js";
import type { WorkspacesFigures } from "./steady-workspaces.js";

export function verdictsOf(o: {
  /** The app under test's name: only its rows are checked. */
  target: string;
  rate: number;
  rateRows: RateFigures[];
  idleRows: IdleFigures[];
  memoryRows: MemoryFigures[];
  oneConnRows: OneConnFigures[];
  workspaceRows: WorkspacesFigures[];
}): Verdict[] {
  const mine = (r: { target: string }) => r.target === o.target;
  const out: Verdict[] = [];
  for (const r of o.rateRows.filter(mine)) {
    const together = rateCosts(r).together;
    if (r.row.startsWith("steady") && r.rate === o.rate)
      out.push(
        atMost(`${r.row}: CPU per delivery, app + Redis over the floor ≤ 2.0 ms`, together, 2.0, "ms"),
      );
    if (r.row.startsWith("API faults"))
      out.push(
        atMost(`${r.row}: CPU per delivery, app + Redis over the floor ≤ 2.5 ms`, together, 2.5, "ms"),
      );
    if (r.cards !== r.expectedCards || r.posts !== r.expectedCards)
      out.push({
        target: `${r.row}: every card posted once`,
        figure: `${r.posts} posts, ${r.cards} cards of ${r.expectedCards}`,
        pass: false,
      });
  }
  for (const r of o.idleRows.filter(mine)) {
    const c = idleCosts(r.window);
    out.push(atMost("idle: the app's CPU a second (run time) ≤ 0.5 ms", c.appRun, 0.5, "ms/s"));
    out.push(
      atMost("idle: Redis's CPU a second over the floor (run time) ≤ 0.5 ms", c.redisRunOver, 0.5, "ms/s"),
    );
  }
  for (const r of o.memoryRows.filter(mine))
    out.push(atMost("bytes kept per card (used_memory growth) ≤ 600", r.usedMemoryPerCard, 600, "B"));
  for (const r of o.oneConnRows.filter(mine))
    out.push(
      atLeast(
        "one connection, the mix: ≥ 50% of the bare Express route",
        100 * ofExpress(r, o.oneConnRows),
        50,
        "%",
      ),
    );
  const one = o.workspaceRows.find((r) => r.workspaces === 1);
  const most = o.workspaceRows.reduce<WorkspacesFigures | undefined>(
    (m, r) => (m && m.workspaces >= r.workspaces ? m : r),
    undefined,
  );
  if (one && most && most !== one) {
    const [a, b] = [idleCosts(most.window), idleCosts(one.window)];
    out.push(
      within(
        `${most.workspaces} workspaces: the app's CPU a second within 1.5× of 1's`,
        a.appRun,
        b.appRun,
        1.5,
      ),
    );
    out.push(
      within(
        `${most.workspaces} workspaces: Redis commands a second within 1.5× of 1's`,
        a.commands,
        b.commands,
        1.5,
      ),
    );
  }
  return out;
}
