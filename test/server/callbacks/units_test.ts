/**
 * Callback building blocks without a database: destinations, backoff, signing, adapters, and one
 * attempt against a stub fetch.
 */
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import {
  checkDestination,
  destinationProblem,
  DestinationRefused,
  isPrivateAddress,
} from "../../../server/callbacks/destination.ts";
import { backoffMs, deliverEvent, retryAfterMs } from "../../../server/callbacks/delivery.ts";
import { createSecretBox, secretContext } from "../../../server/crypto/secret_box.ts";
import { claimedEvent, offlineContext } from "./offline_delivery.ts";
import type { TokenSource } from "../../../server/callbacks/oauth_client.ts";
import { generateCallbackSecret, webhookHeaders } from "../../../server/callbacks/signing.ts";
import { adapterOf } from "../../../server/callbacks/adapters/registry.ts";
import { expandUrl } from "../../../server/callbacks/adapters/mod.ts";
import { parseLaunchPayload } from "../../../server/launch/payload.ts";

Deno.test("destinations: private, loopback, link-local and reserved addresses are refused", () => {
  for (
    const ip of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "::",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "64:ff9b::a00:1",
      "not-an-ip",
    ]
  ) assert.equal(isPrivateAddress(ip), true, ip);
  for (
    const ip of ["8.8.8.8", "172.32.0.1", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8"]
  ) {
    assert.equal(isPrivateAddress(ip), false, ip);
  }
});

Deno.test("destinations: configured URLs need https and a public host unless allowed", () => {
  assert.equal(destinationProblem("https://crm.example.com/hooks/{referenceId}", false), null);
  assert.match(destinationProblem("http://crm.example.com/x", false)!, /https:\/\//);
  assert.match(destinationProblem("https://localhost/x", false)!, /loopback/);
  assert.match(destinationProblem("https://127.0.0.1/x", false)!, /loopback/);
  assert.match(destinationProblem("https://[::1]/x", false)!, /loopback/);
  assert.match(destinationProblem("https://169.254.169.254/latest", false)!, /link-local/);
  assert.match(destinationProblem("https://u:p@crm.example.com/", false)!, /credentials/);
  assert.match(destinationProblem("crm.example.com", false)!, /absolute URL/);
  assert.match(destinationProblem("ftp://crm.example.com", true)!, /http/);
  assert.equal(destinationProblem("http://127.0.0.1:9/x", true), null, "allowed by the operator");
  assert.equal(destinationProblem("{instanceUrl}/services/data", false), null, "template");
});

Deno.test("destinations: a name resolving to a private address is refused before sending", async () => {
  const resolveTo = (ips: string[]) => () => Promise.resolve(ips);
  await assert.rejects(
    checkDestination("https://internal.example.com/x", false, resolveTo(["10.0.0.7"])),
    (err: Error) =>
      err instanceof DestinationRefused && /resolves to 10\.0\.0\.7/.test(err.message),
  );
  await assert.rejects(
    checkDestination("https://mixed.example.com/x", false, resolveTo(["8.8.8.8", "::1"])),
    DestinationRefused,
  );
  await checkDestination("https://public.example.com/x", false, resolveTo(["93.184.216.34"]));
  let asked = false;
  await checkDestination("http://127.0.0.1/x", true, () => {
    asked = true;
    return Promise.resolve([]);
  });
  assert.equal(asked, false, "no resolution when private networks are allowed");
});

Deno.test("retries: exponential backoff with jitter, capped; Retry-After in seconds or a date", () => {
  assert.equal(backoffMs(10_000, 1, () => 0.5), 10_000);
  assert.equal(backoffMs(10_000, 3, () => 0.5), 40_000);
  assert.equal(backoffMs(10_000, 1, () => 0), 5_000, "jitter low end");
  assert.equal(backoffMs(10_000, 1, () => 0.999), 14_990, "jitter high end");
  assert.equal(backoffMs(10_000, 40, () => 0.5), 86_400_000, "capped at a day");
  assert.equal(retryAfterMs("7"), 7_000);
  const now = Date.parse("2026-11-23T10:00:00Z");
  assert.equal(retryAfterMs("Mon, 23 Nov 2026 10:00:30 GMT", now), 30_000);
  assert.equal(retryAfterMs("soon"), null);
  assert.equal(retryAfterMs(null), null);
});

Deno.test("signing: the standardwebhooks package verifies both signatures of a rotation", () => {
  const current = generateCallbackSecret();
  const previous = generateCallbackSecret();
  assert.match(current, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const body = JSON.stringify({ type: "ping", timestamp: new Date().toISOString(), data: {} });
  const headers = webhookHeaders([current, previous], "msg_abc", body);
  assert.equal(headers["webhook-id"], "msg_abc");
  assert.equal(headers["webhook-signature"].split(" ").length, 2);
  for (const secret of [current, previous]) {
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  }
  assert.throws(() => new Webhook(generateCallbackSecret()).verify(body, headers));
  assert.throws(() => new Webhook(current).verify(body + " ", headers), "body altered");
});

Deno.test("signing: each secret signs with its own key, past the bound of keys kept", () => {
  // More secrets than signing.ts keeps keys for (64), then the first ones again: every
  // signature verifies with its own secret only, whether its key was kept, dropped or remade.
  const secrets = Array.from({ length: 70 }, () => generateCallbackSecret());
  for (const secret of [...secrets, ...secrets.slice(0, 3)]) {
    const body = JSON.stringify({ type: "ping", data: { secret: secrets.indexOf(secret) } });
    const headers = webhookHeaders([secret], "msg_keys", body);
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    const other = secrets[(secrets.indexOf(secret) + 1) % secrets.length];
    assert.throws(() => new Webhook(other).verify(body, headers), "another secret's key");
  }
});

Deno.test("adapters: URL templates encode the reference and refuse a missing instance", () => {
  assert.equal(
    expandUrl("https://crm.example.com/cases/{referenceId}/events?id={webhookId}", {
      referenceId: "A/B C",
      webhookId: "msg_1",
      instanceUrl: null,
    }),
    "https://crm.example.com/cases/A%2FB%20C/events?id=msg_1",
  );
  assert.throws(
    () => expandUrl("{instanceUrl}/x", { referenceId: "1", webhookId: "m", instanceUrl: null }),
    /client\.instanceUrl/,
  );
});

Deno.test("adapters: crm_standard maps a Canvas signed request onto the payload contract", () => {
  const canvas = {
    algorithm: "HMACSHA256",
    issuedAt: 1795000000,
    userId: "005xx000001Sv6AAAS",
    client: {
      oauthToken: "00Dxx!secret",
      instanceUrl: "https://acme.my.salesforce.com",
      targetOrigin: "https://acme.my.salesforce.com",
    },
    context: {
      user: {
        userId: "005xx000001Sv6AAAS",
        email: "Ada@Example.com",
        firstName: "Ada",
        lastName: "Lovelace",
        language: "fr_FR",
        userName: "ada@acme.example",
        profileId: "00exx000000j6Vo",
      },
      environment: {
        parameters: {
          referenceNumber: "00001026",
          referenceId: "500xx000003DgAp",
          contactId: "003xx000004TmiQ",
          contactFirstName: "Grace",
          contactLastName: "Hopper",
          contactEmail: "grace@example.org",
          contactPhone: "+1 555 987 6543",
        },
        locationUrl: "https://acme.my.salesforce.com/500xx000003DgAp",
      },
    },
  };
  const mapped = adapterOf("crm_standard").mapLaunch(canvas);
  assert.deepEqual(mapped.crm, {
    instanceUrl: "https://acme.my.salesforce.com",
    oauthToken: "00Dxx!secret",
  });
  assert.equal(
    (mapped.logged.client as { oauthToken: string }).oauthToken,
    "[redacted]",
    "the launch log never keeps the CRM token",
  );
  const p = parseLaunchPayload(mapped.payload);
  assert.equal(p.agent.externalId, "005xx000001Sv6AAAS");
  assert.equal(p.agent.email, "ada@example.com");
  assert.equal(p.agent.firstName, "Ada");
  assert.equal(p.agent.locale, "fr_FR");
  assert.equal(p.view.language, "fr");
  assert.equal(p.session.referenceId, "500xx000003DgAp");
  assert.equal(p.customer.externalId, "003xx000004TmiQ");
  assert.equal(p.freshness.issuedAt?.getTime(), 1795000000 * 1000);
  assert.deepEqual(p.warnings, [], "nothing Canvas-only reaches the cleaner");
  const seed = { algorithm: "HMACSHA256", context: { user: { id: "a" } } };
  assert.equal(adapterOf("crm_standard").mapLaunch(seed).payload, seed, "seed shape passes");
  assert.equal(adapterOf("default").mapLaunch(canvas).payload, canvas, "default maps nothing");
});

Deno.test("adapters: each class builds its own request from one event", () => {
  const event = {
    webhookId: "msg_1",
    type: "session.closed",
    referenceId: "500A",
    body: {
      type: "session.closed",
      timestamp: "2026-11-23T10:00:00.000Z",
      data: {
        referenceId: "500A",
        referenceNumber: "00001026",
        sessionId: 12,
        status: "closed",
        assignee: { id: 3, externalId: "a1", email: "ada@example.com" },
        customer: { id: 4, externalId: "C9", email: "grace@example.org" },
      },
    },
  };
  const target = {
    callbackUrl: "{instanceUrl}/services/data/v62.0/sobjects/Portal_Event__c/Webhook_Id__c/" +
      "{webhookId}",
    callbackMethod: "PATCH" as const,
    crm: { instanceUrl: "https://acme.my.salesforce.com/" },
  };
  const sf = adapterOf("crm_standard").buildRequest(event, target);
  assert.equal(
    sf.url,
    "https://acme.my.salesforce.com/services/data/v62.0/sobjects/Portal_Event__c/Webhook_Id__c/msg_1",
  );
  assert.equal(sf.method, "PATCH");
  assert.deepEqual(JSON.parse(sf.body), {
    Case__c: "500A",
    Event_Type__c: "session.closed",
    Occurred_At__c: "2026-11-23T10:00:00.000Z",
    Session_Id__c: 12,
    Session_Status__c: "closed",
    Reference_Number__c: "00001026",
    Assignee_Email__c: "ada@example.com",
    Customer_External_Id__c: "C9",
    Path_Uid__c: null,
  });
  const v65 = adapterOf("crm_v6_5").buildRequest(event, {
    callbackUrl: "https://crm.example.com/api/v6.5/cases/{referenceId}/activities",
    callbackMethod: "POST",
    crm: null,
  });
  assert.equal(v65.url, "https://crm.example.com/api/v6.5/cases/500A/activities");
  assert.equal(v65.headers["Idempotency-Key"], "msg_1");
  const activity = JSON.parse(v65.body).activity;
  assert.equal(activity.caseStatus, "Resolved");
  assert.equal(activity.subject, "Portal session resolved");
  assert.equal(activity.owner, "ada@example.com");
  const plain = adapterOf("default").buildRequest(event, {
    callbackUrl: "https://hooks.example.com/{referenceId}",
    callbackMethod: "POST",
    crm: null,
  });
  assert.deepEqual(JSON.parse(plain.body), event.body, "the Standard Webhooks body itself");
});

Deno.test("delivery: an answered attempt clears its timeouts (nothing held until they fire)", async () => {
  const secrets = await createSecretBox("k".repeat(32));
  const signals: AbortSignal[] = [];
  const ctx = offlineContext(secrets, (_url, init) => {
    signals.push(init!.signal!);
    return Promise.resolve(new Response("ok", { status: 200 }));
  });
  const event = await claimedEvent(secrets, 1);
  const delivered = await deliverEvent(ctx, event);
  assert.equal(delivered.next.status, "delivered");
  assert.equal(signals.length, 1);
  // The 20 ms request timeout and 60 ms deadline were cleared once the answer was read: past
  // both, the request's signal has not aborted (a live timer would have fired by now).
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(signals[0].aborted, false);
});

Deno.test("delivery: a retry after a 401 that finds the deadline passed is never sent", async () => {
  // Requests of 20 ms in an attempt of 60: the first call answers 401 at once, the renewed
  // token comes 80 ms later, past the deadline. The second request must not leave (a real
  // fetch with an aborted signal rejects without sending), and the attempt times out.
  const secrets = await createSecretBox("k".repeat(32));
  const calls: { aborted: boolean }[] = [];
  let tokens = 0;
  const ctx = offlineContext(secrets, (_url, init) => {
    const signal = init!.signal!;
    calls.push({ aborted: signal.aborted });
    if (signal.aborted) return Promise.reject(signal.reason);
    return Promise.resolve(new Response("expired", { status: 401 }));
  }, {
    tokens: {
      token: async () => {
        if (tokens++ > 0) await new Promise((r) => setTimeout(r, 80));
        return `token-${tokens}`;
      },
      invalidate: () => {},
    } as unknown as TokenSource,
  });
  const event = await claimedEvent(secrets, 2, {
    app: {
      tokenUrl: "http://127.0.0.1:9/token",
      consumerKey: "client",
      consumerSecretSealed: await secrets.encrypt("s3cret", secretContext(7, "consumer_secret")),
    },
  });
  const delivered = await deliverEvent(ctx, event);
  assert.deepEqual(calls, [{ aborted: false }, { aborted: true }], "the retry is not sent");
  assert.equal(delivered.attempt.error, "timed out after 20 ms");
  assert.equal(delivered.next.status, "pending");
});
