import assert from "node:assert/strict";
import { launchTemplate } from "../../../server/admin/launch_template.ts";
import { ALGORITHM } from "../../../server/launch/contract.ts";
import { parseLaunchPayload } from "../../../server/launch/payload.ts";

Deno.test("admin launch template parses as a launch payload", () => {
  const template = launchTemplate(["priority", "tier", "case_origin"]);
  assert.equal(template.algorithm, ALGORITHM);
  const payload = parseLaunchPayload(structuredClone(template));
  assert.equal(payload.agent.externalId, "agent42");
  assert.equal(payload.agent.email, "ada.lovelace@example.com");
  assert.deepEqual(payload.agent.teams, [{ teamId: "T1", teamName: "Tier 1" }]);
  assert.equal(payload.customer.externalId, "C0099");
  assert.equal(payload.session.externalReference, "CASE00017");
  assert.equal(payload.session.id, null, "the blank sessionId means a new session");
  assert.equal(payload.session.devices.length, 2);
  assert.equal(payload.view.target, "standard");
  assert.deepEqual(payload.view.paths?.search, [{
    type: "full_text",
    values: ["printer offline"],
  }]);
  assert.equal(payload.freshness.nonce, template.nonce, "a sender's fresh nonce");
  const age = Date.now() - payload.freshness.issuedAt!.getTime();
  assert.ok(age >= 0 && age < 60_000, "issuedAt is now");
});

Deno.test("admin launch template with filled custom fields keeps their values", () => {
  const template = launchTemplate(["priority", "tier"]);
  const parameters = (template.context as {
    environment: { parameters: { customFields: Record<string, string> } };
  }).environment.parameters;
  assert.deepEqual(parameters.customFields, { priority: "", tier: "" });
  parameters.customFields.priority = "high";
  parameters.customFields.tier = "gold";
  const payload = parseLaunchPayload(template);
  assert.deepEqual(payload.session.customFields, { priority: "high", tier: "gold" });
});
