/**
 * The SSRF rules (server/callbacks/destination.ts) on the URL exactly as it is fetched: no
 * placeholder replaced, no credentials, literal addresses in every spelling the WHATWG parser
 * accepts checked like resolved ones; and the template check of configured URLs.
 */
import assert from "node:assert/strict";
import {
  checkDestination,
  destinationProblem,
  DestinationRefused,
  isPrivateAddress,
  type Resolver,
  urlProblem,
} from "../../../server/callbacks/destination.ts";
import { expandUrl } from "../../../server/callbacks/adapters/mod.ts";
import { deliverEvent } from "../../../server/callbacks/delivery.ts";
import { createSecretBox, secretContext } from "../../../server/crypto/secret_box.ts";
import { requestSignal } from "../../../server/callbacks/timeout.ts";
import { TokenSource } from "../../../server/callbacks/oauth_client.ts";
import { CallbackHttpClient } from "../../../server/callbacks/http_client.ts";
import { claimedEvent, offlineContext } from "./offline_delivery.ts";

/** A resolver that records the names asked and answers `ips`. */
function recording(ips: string[] = ["93.184.216.34"]): Resolver & { asked: string[] } {
  const asked: string[] = [];
  return Object.assign((host: string) => {
    asked.push(host);
    return Promise.resolve(ips);
  }, { asked });
}

/** The DestinationRefused message of checkDestination, or null when it passes. */
async function refusal(url: string, resolve: Resolver = recording()): Promise<string | null> {
  try {
    await checkDestination(url, false, resolve);
    return null;
  } catch (err) {
    if (err instanceof DestinationRefused) return err.message;
    throw err;
  }
}

Deno.test("checkDestination refuses the issue's URL: braces in the userinfo of a loopback", async () => {
  const resolve = recording();
  const message = await refusal("https://{instanceUrl}@127.0.0.1:18243/services/x", resolve);
  assert.match(message ?? "passed", /credentials/);
  assert.deepEqual(resolve.asked, []);
});

Deno.test("checkDestination refuses credentials in a concrete URL", async () => {
  for (
    const url of [
      "https://user@crm.example.com/hooks",
      "https://user:pw@crm.example.com/hooks",
      "https://:pw@crm.example.com/hooks",
      "https://crm.example.com%40@93.184.216.34/hooks",
    ]
  ) {
    assert.match(await refusal(url) ?? "passed", /credentials/, url);
  }
});

Deno.test("checkDestination replaces no placeholder: a template is not a URL it fetches", async () => {
  // Substituting samples first made these pass as https://crm.example.com/...
  assert.match(await refusal("{instanceUrl}/services/data") ?? "passed", /absolute URL/);
  // Checked as it is: the name asked is the one in the URL, braces and all.
  const resolve = recording();
  await checkDestination("https://{webhookId}.example.com/x", false, resolve);
  assert.deepEqual(resolve.asked, ["{webhookid}.example.com"]);
});

Deno.test("checkDestination refuses loopback literals in every spelling the URL parser takes", async () => {
  const never: Resolver = (host) => Promise.reject(new Error(`a literal was resolved: ${host}`));
  for (
    const url of [
      "https://127.0.0.1/",
      "https://0x7f.1/",
      "https://0x7f000001/",
      "https://2130706433/",
      "https://017700000001/",
      "https://0177.0.0.1/",
      "https://127.1/",
      "https://127.0.0.1./",
      "https://%31%32%37.0.0.1/",
      "https://１２７.０.０.１/",
      "https://[::1]/",
      "https://[0:0:0:0:0:0:0:1]/",
      "https://[::ffff:127.0.0.1]/",
      "https://[::ffff:7f00:1]/",
      "https://[0:0:0:0:0:ffff:7f00:1]/",
      "https://[::127.0.0.1]/",
      "https://[64:ff9b::127.0.0.1]/",
      "https://[2002:7f00:1::]/",
      "https://[::ffff:169.254.169.254]/latest/meta-data",
      "https://0xa9.0xfe.0xa9.0xfe/latest/meta-data",
      "https://[fe80::1]/",
      "https://[fd00::1]/",
      "https://0/",
    ]
  ) {
    assert.match(await refusal(url, never) ?? "passed", /is a loopback, private/, url);
  }
});

Deno.test("checkDestination checks a literal address exactly as it checks a resolved one", async () => {
  for (
    const ip of [
      "8.8.8.8",
      "93.184.216.34",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
      "10.0.0.7",
      "172.16.5.4",
      "100.64.0.1",
      "192.0.0.8",
      "198.18.0.1",
      "240.0.0.1",
      "::ffff:192.168.0.1",
      "2001::1",
      "2001:db8::1",
      "100::1",
    ]
  ) {
    const literal = ip.includes(":") ? `[${ip}]` : ip;
    const asked = recording();
    const direct = await refusal(`https://${literal}/x`, asked);
    const named = await refusal("https://crm.example.com/x", recording([ip]));
    assert.equal(direct === null, named === null, `${ip}: literal ${direct}, resolved ${named}`);
    assert.equal(direct === null, !isPrivateAddress(ip), ip);
    assert.deepEqual(asked.asked, [], `${ip} is not resolved`);
  }
});

Deno.test("checkDestination refuses a name when any of its addresses is private", async () => {
  assert.match(
    await refusal("https://crm.example.com/x", recording(["93.184.216.34", "::ffff:10.1.1.1"])) ??
      "passed",
    /crm\.example\.com resolves to ::ffff:10\.1\.1\.1/,
  );
  assert.match(await refusal("https://app.localhost/x") ?? "passed", /internal name/);
  assert.match(await refusal("https://metadata.google.internal/x") ?? "passed", /internal name/);
});

Deno.test("isPrivateAddress refuses text that is no address in canonical form", () => {
  for (const text of ["0177.0.0.1", "127.1", "1::2::3", "::1:2:3:4:5:6:7:8", "12345::", ""]) {
    assert.equal(isPrivateAddress(text), true, text);
  }
  assert.equal(isPrivateAddress("203.0.114.1"), false, "outside 203.0.113.0/24");
});

Deno.test("urlProblem checks a literal host without resolving, and names not at all", () => {
  assert.match(urlProblem("https://0x7f.1/x", false) ?? "passed", /127\.0\.0\.1 is a loopback/);
  assert.match(urlProblem("https://u@crm.example.com/x", true) ?? "passed", /credentials/);
  assert.equal(urlProblem("https://crm.example.com/x", false), null);
  assert.equal(urlProblem("http://127.0.0.1:9/x", true), null);
});

Deno.test("destinationProblem refuses the issue's URL as a configured template", () => {
  for (
    const template of [
      "https://{instanceUrl}@127.0.0.1:18243/x",
      "https://{instanceUrl}/x",
      "{instanceUrl}.evil.example/x",
      "{instanceUrl}@127.0.0.1/x",
      "{instanceUrl}/a/{instanceUrl}",
    ]
  ) {
    assert.match(destinationProblem(template, false) ?? "passed", /\{instanceUrl\}/, template);
  }
  assert.equal(destinationProblem("{instanceUrl}", false), null);
  assert.equal(destinationProblem("{instanceUrl}/services/data/{webhookId}", false), null);
  assert.equal(destinationProblem("{instanceUrl}?id={referenceId}", false), null);
});

Deno.test("expandUrl fills each placeholder once: a value is never expanded again", () => {
  assert.equal(
    expandUrl("{instanceUrl}/x/{referenceId}", {
      referenceId: "{webhookId}",
      webhookId: "msg_1",
      instanceUrl: "https://crm.example.com/{referenceId}/",
    }),
    "https://crm.example.com/{referenceId}/x/%7BwebhookId%7D",
  );
});

Deno.test("deliverEvent sends nothing to a stored instance URL whose concrete URL is refused", async () => {
  const secrets = await createSecretBox("k".repeat(32));
  const fetched: string[] = [];
  const ctx = offlineContext(secrets, (url) => {
    fetched.push(String(url));
    return Promise.resolve(new Response("ok"));
  }, {
    settings: { timeoutMs: 1_000, retryBaseMs: 1_000, maxAttempts: 3, allowPrivate: false },
    resolve: recording(),
  });
  const event = await claimedEvent(secrets, 1, {
    event: {
      referenceId: "500A",
      type: "session.created",
      payload: { type: "session.created", timestamp: new Date().toISOString(), data: {} },
      // As a launch stored it before instance URLs were checked.
      crm: { instanceUrl: "https://{instanceUrl}@127.0.0.1:18243", oauthTokenSealed: null },
    },
    app: {
      implementor: "crm_standard",
      callbackUrl: "{instanceUrl}/services/data/v62.0/sobjects/Portal_Event__c/{webhookId}",
      callbackMethod: "PATCH",
    },
  });
  const delivered = await deliverEvent(ctx, event);
  assert.deepEqual(fetched, []);
  assert.equal(delivered.next.status, "failed", "refused at once, not retried");
  assert.match(delivered.attempt.error ?? "", /credentials/);
});

/** A resolver whose server never answers, for the names in `hangs` (others: a public address). */
function silentFor(...hangs: string[]): Resolver {
  return (host) =>
    hangs.includes(host) ? new Promise<string[]>(() => {}) : Promise.resolve(["93.184.216.34"]);
}

Deno.test("checkDestination gives up a lookup that never answers when its signal aborts", async () => {
  const limit = requestSignal(30);
  const started = performance.now();
  await assert.rejects(
    checkDestination(
      "https://crm.example/hooks",
      false,
      silentFor("crm.example"),
      () => limit.signal,
    ),
    /^Error: cannot resolve crm\.example: timed out after 30 ms$/,
  );
  limit.clear();
  assert.ok(performance.now() - started < 1_000, "given up at the signal");
});

Deno.test("a callback or token URL whose name never resolves is retried after the timeout", async () => {
  const secrets = await createSecretBox("k".repeat(32));
  const sent: string[] = [];
  const fetch = (url: string | URL | Request) => {
    sent.push(String(url));
    return Promise.resolve(new Response("ok"));
  };
  const settings = { timeoutMs: 50, retryBaseMs: 1_000, maxAttempts: 3, allowPrivate: false };
  const resolve = silentFor("crm.example", "login.example");
  const tokens = new TokenSource({
    timeoutMs: 50,
    allowPrivate: false,
    resolve,
    http: new CallbackHttpClient({ proxied: ["http:", "https:"], fetch }),
  });
  const ctx = offlineContext(secrets, fetch, { settings, resolve, tokens });
  const plain = await claimedEvent(secrets, 1, { app: { callbackUrl: "https://crm.example/h" } });
  const oauth = await claimedEvent(secrets, 2, {
    app: {
      callbackUrl: "https://api.example/h",
      authType: "oauth2_signed_request",
      tokenUrl: "https://login.example/token",
      consumerKey: "client",
      consumerSecretSealed: await secrets.encrypt("secret", secretContext(7, "consumer_secret")),
    },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    Promise.all([deliverEvent(ctx, plain), deliverEvent(ctx, oauth)]),
    new Promise<"hung">((done) => timer = setTimeout(() => done("hung"), 2_000)),
  ]);
  clearTimeout(timer);
  assert.notEqual(outcome, "hung", "each given up at its timeout");
  const [a, b] = outcome as Awaited<ReturnType<typeof deliverEvent>>[];
  assert.deepEqual(sent, [], "nothing sent");
  assert.match(a.attempt.error ?? "", /cannot resolve crm\.example: timed out after 50 ms/);
  assert.match(b.attempt.error ?? "", /cannot resolve login\.example: timed out after 50 ms/);
  assert.deepEqual([a.next.status, b.next.status], ["pending", "pending"], "retried later");
});
