import { describe, expect, it } from "vitest";
import { describeStandIn } from "../../../dev/demo/print.js";

describe("demo printer", () => {
  it("shows a date token as its fallback and escapes as literal text", () => {
    const raw =
      "response r1 ← [ephemeral] First message <!date^1772524680^{date_short_pretty} at {time}|2026-03-03 07:58 UTC> · &lt;b&gt;";
    expect(describeStandIn(raw, {})).toEqual([
      "  slack > reply only you can see:",
      "          First message 2026-03-03 07:58 UTC · <b>",
    ]);
  });
});
