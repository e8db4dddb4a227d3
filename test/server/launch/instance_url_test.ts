/**
 * A launch's `client.instanceUrl` (sealCrmToken in server/launch/steps.ts): kept as its origin,
 * or dropped with a `crm_instance_url_refused` warning naming the field and what to send.
 */
import assert from "node:assert/strict";
import type { LaunchWarning } from "../../../server/launch/payload.ts";
import { sealCrmToken } from "../../../server/launch/steps.ts";

/** What sealCrmToken keeps of `instanceUrl`, and the warnings it adds. */
async function keep(
  instanceUrl: string,
  allowPrivate = false,
): Promise<{ kept: string | null; warnings: LaunchWarning[] }> {
  const deps = {
    config: { callbackAllowPrivateNetworks: allowPrivate },
    secrets: { encrypt: (plain: string) => Promise.resolve(`sealed(${plain})`) },
  };
  const warnings: LaunchWarning[] = [];
  const crm = await sealCrmToken(deps, 7, { instanceUrl, oauthToken: "tok" }, warnings);
  return { kept: crm?.instanceUrl ?? null, warnings };
}

Deno.test("sealCrmToken keeps an instance URL as its origin", async () => {
  for (
    const [given, origin] of [
      ["https://acme.my.salesforce.com", "https://acme.my.salesforce.com"],
      ["https://acme.my.salesforce.com/", "https://acme.my.salesforce.com"],
      ["https://acme.my.salesforce.com/services/data?x=1#top", "https://acme.my.salesforce.com"],
      ["HTTPS://ACME.Example.COM:443/", "https://acme.example.com"],
      ["https://crm.example.com:8443/app", "https://crm.example.com:8443"],
      ["https://bücher.example/", "https://xn--bcher-kva.example"],
    ]
  ) {
    const { kept, warnings } = await keep(given);
    assert.equal(kept, origin, given);
    assert.deepEqual(warnings, [], given);
  }
  assert.equal((await keep("http://127.0.0.1:8080/x", true)).kept, "http://127.0.0.1:8080");
});

/** Asserts `instanceUrl` is dropped with one warning whose reason matches `why`. */
async function assertRefused(instanceUrl: string, why: RegExp, allowPrivate = false) {
  const { kept, warnings } = await keep(instanceUrl, allowPrivate);
  assert.equal(kept, null, instanceUrl);
  assert.equal(warnings.length, 1, instanceUrl);
  const [w] = warnings;
  assert.equal(w.path, "client.instanceUrl");
  assert.equal(w.code, "crm_instance_url_refused");
  assert.match(w.message, /^client\.instanceUrl is refused: /);
  assert.match(w.message, /Send the CRM instance's origin, such as https:\/\//);
  assert.match(w.message, why, instanceUrl);
}

Deno.test("sealCrmToken refuses the issue's instance URL: braces and a loopback", async () => {
  await assertRefused("https://{instanceUrl}@127.0.0.1:18243", /\{ and \}/);
  await assertRefused("https://{instanceUrl}@127.0.0.1:18243", /\{ and \}/, true);
});

Deno.test("sealCrmToken refuses braces anywhere, spelled or percent-encoded in the host", async () => {
  for (
    const url of [
      "https://crm.example.com/{referenceId}",
      "{instanceUrl}",
      "https://crm.example.com}",
      "https://%7Bwebhookid%7D.example.com",
    ]
  ) {
    await assertRefused(url, /\{ and \}/);
  }
});

Deno.test("sealCrmToken refuses credentials in the instance URL", async () => {
  for (const url of ["https://user@crm.example.com", "https://u:p@crm.example.com/"]) {
    await assertRefused(url, /credentials/);
    await assertRefused(url, /credentials/, true);
  }
});

Deno.test("sealCrmToken refuses what is not an absolute http(s) URL", async () => {
  await assertRefused("acme.my.salesforce.com", /absolute URL/);
  await assertRefused("/services/data", /absolute URL/);
  await assertRefused("ftp://crm.example.com", /https:\/\//);
  await assertRefused("javascript:alert(1)", /http:\/\/ or https:\/\//, true);
  await assertRefused("http://crm.example.com", /https:\/\//);
});

Deno.test("sealCrmToken refuses literal private addresses in any spelling", async () => {
  for (
    const url of [
      "https://127.0.0.1:18243",
      "https://0x7f.1",
      "https://2130706433",
      "https://[::ffff:127.0.0.1]",
      "https://169.254.169.254",
      "https://[fd00::1]",
    ]
  ) {
    await assertRefused(url, /is a loopback, private/);
  }
  await assertRefused("https://localhost:8443", /internal name/);
});
