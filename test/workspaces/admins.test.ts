import { describe, expect, it } from "vitest";
import { MAX_ADMINS_TOLD, pickAdmins } from "../../src/workspaces/admins.js";

describe("pickAdmins", () => {
  const members = [
    { id: "U1", is_admin: true },
    { id: "U2", is_owner: true },
    { id: "U3", is_primary_owner: true },
    { id: "U4" },
    { id: "U5", is_admin: true, deleted: true },
    { id: "B1", is_admin: true, is_bot: true },
    { id: "USLACKBOT", is_admin: true },
  ];

  it("takes the people who are admins or owners, never bots, Slackbot or deactivated accounts", () => {
    expect(pickAdmins(members, [])).toEqual(["U1", "U2", "U3"]);
  });

  it("with ADMIN_USER_IDS, takes those of them who are members of this workspace", () => {
    expect(pickAdmins(members, ["U4", "U1", "U9", "U5"])).toEqual(["U1", "U4"]);
  });

  it("tells at most a bounded number of people", () => {
    const many = Array.from({ length: 60 }, (_, i) => ({ id: `U${i}`, is_admin: true }));
    expect(pickAdmins(many, [])).toHaveLength(MAX_ADMINS_TOLD);
  });
});
