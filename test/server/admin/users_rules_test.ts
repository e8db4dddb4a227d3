import assert from "node:assert/strict";
import { ProfileSchema, TeamSchema } from "../../../server/admin/users.ts";
import { FIELD_RULES } from "../../../server/launch/contract.ts";
import { parseLaunchPayload } from "../../../server/launch/payload.ts";
import { launchPayload } from "../../helpers/payload.ts";

/** True when a launch naming this team in user.teams is accepted. */
function launchAccepts(team: { teamId: string; teamName: string }): boolean {
  try {
    parseLaunchPayload(launchPayload({}, { teams: [team] }));
    return true;
  } catch {
    return false;
  }
}

const TEAMS = [
  { teamId: "T1", teamName: "Tier 1" },
  { teamId: "tier_1.eu-west", teamName: "Tier 1 (EU)" },
  { teamId: "x".repeat(64), teamName: "n".repeat(200) },
  { teamId: "x".repeat(65), teamName: "Too long id" },
  { teamId: "T 1", teamName: "Space in id" },
  { teamId: "T/1", teamName: "Slash in id" },
  { teamId: "Ü1", teamName: "Non-ASCII id" },
  { teamId: "T2", teamName: "n".repeat(201) },
  { teamId: "T3", teamName: "Équipe d'été" },
];

Deno.test("admin team form accepts exactly the teams a launch accepts", () => {
  for (const team of TEAMS) {
    const form = TeamSchema.safeParse({ teamId: team.teamId, name: team.teamName }).success;
    assert.equal(form, launchAccepts(team), JSON.stringify(team).slice(0, 80));
  }
});

Deno.test("admin team form refuses a bad team id with the contract's message", () => {
  const parsed = TeamSchema.safeParse({ teamId: "T 1", name: "Tier 1" });
  assert.equal(parsed.success, false);
  assert.deepEqual(parsed.error?.issues.map((i) => [i.path.join("."), i.message]), [
    ["teamId", FIELD_RULES.teamId.message],
  ]);
});

const PROFILE = {
  email: "Ada@Example.com",
  firstName: "Ada",
  lastName: "Lovelace",
  phone: "",
  locale: "",
  teamIds: [],
};

Deno.test("admin profile form: blank phone and locale are absent, values normalized as a launch does", () => {
  const blank = ProfileSchema.parse(PROFILE);
  assert.equal(blank.phone, undefined);
  assert.equal(blank.locale, undefined);
  assert.equal(blank.email, "ada@example.com");
  const filled = ProfileSchema.parse({ ...PROFILE, phone: "+1 (555) 010-9999", locale: "fr-CA" });
  assert.equal(filled.phone, "15550109999");
  assert.equal(filled.locale, "fr-CA");
  const launched = parseLaunchPayload(
    launchPayload({}, { email: PROFILE.email, phone: "+1 (555) 010-9999", locale: "fr-CA" }),
  );
  assert.equal(launched.agent.email, filled.email);
  assert.equal(launched.agent.phone, filled.phone);
  assert.equal(launched.agent.locale, filled.locale);
});

Deno.test("admin profile form refuses what a launch refuses, with the contract's messages", () => {
  const parsed = ProfileSchema.safeParse({
    ...PROFILE,
    email: "ada@example",
    firstName: "",
    lastName: "L4",
    phone: "call me",
    locale: "French",
  });
  assert.equal(parsed.success, false);
  const byPath = Object.fromEntries(
    parsed.error!.issues.map((i) => [i.path.join("."), i.message]),
  );
  assert.deepEqual(byPath, {
    email: FIELD_RULES.email.message,
    firstName: "required",
    lastName: FIELD_RULES.name.message,
    phone: FIELD_RULES.phone.message,
    locale: FIELD_RULES.locale.message,
  });
});
