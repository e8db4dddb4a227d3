/**
 * The contract test's requests for the admin API (/api/v1/admin): a valid request per operation,
 * on a fresh target where the request uses it up, and the conflicts each can answer.
 */
import { uniqueId } from "../../helpers/shared.ts";
import { adminCall, type Case, newApp, newPath, type Probe } from "./contract_context.ts";

const oauthApp = { authType: "oauth2_signed_request" };
const slug = () => uniqueId("org").toLowerCase();

/** Every operation under /admin, by "METHOD /path" as the document names it. */
export const ADMIN_CASES: Record<string, Case> = {
  "POST /admin/organizations": {
    setup: () => ({ json: { slug: slug(), name: "Contract Inc." } }),
    ok: 201,
    more: (): Probe[] => [
      { what: "a taken slug", json: { slug: "default", name: "Again" }, expect: 409 },
      { what: "a malformed slug", json: { slug: "-x", name: "X" }, expect: 400 },
    ],
  },
  "GET /admin/organizations": { setup: () => ({}), ok: 200 },
  "PATCH /admin/organizations/{slug}": {
    setup: async (ctx) => {
      const org = await adminCall(ctx, "POST", "/organizations", { slug: slug(), name: "Old" });
      return { params: { slug: org.slug }, json: { name: "New" } };
    },
    ok: 200,
  },
  "DELETE /admin/organizations/{slug}": {
    setup: async (ctx) => {
      const org = await adminCall(ctx, "POST", "/organizations", { slug: slug(), name: "Gone" });
      return { params: { slug: org.slug } };
    },
    ok: 204,
    more: (): Probe[] => [{ what: "default", params: { slug: "default" }, expect: 409 }],
  },
  "POST /admin/apps": {
    setup: () => ({
      json: { appName: uniqueId("app"), name: "Contract CRM", authType: "signed_request" },
    }),
    ok: 201,
    more: (ctx) => [
      {
        what: "a taken App Name",
        json: { appName: ctx.app.appName, name: "Again", authType: "signed_request" },
        expect: 409,
      },
      {
        what: "an unknown organization",
        json: {
          appName: uniqueId("app"),
          name: "X",
          authType: "signed_request",
          organization: "nope-org",
        },
        expect: 400,
      },
    ],
  },
  "GET /admin/apps": {
    setup: () => ({ query: { organization: "default" } }),
    ok: 200,
    more: (): Probe[] => [
      { what: "an unknown organization", query: { organization: "no-such-org" }, expect: 400 },
    ],
  },
  "GET /admin/apps/{appName}": {
    setup: (ctx) => ({ params: { appName: ctx.app.appName } }),
    ok: 200,
  },
  "PATCH /admin/apps/{appName}": {
    setup: async (ctx) => ({ params: { appName: await newApp(ctx) }, json: { name: "Renamed" } }),
    ok: 200,
    more: async (ctx) => {
      const org = await adminCall(ctx, "POST", "/organizations", { slug: slug(), name: "Other" });
      return [{
        what: "a taken App Name",
        params: { appName: await newApp(ctx) },
        json: { appName: ctx.app.appName },
        expect: 409,
      }, {
        what: "moving an app with sessions",
        params: { appName: ctx.app.appName },
        json: { organization: org.slug },
        expect: 409,
      }];
    },
  },
  "DELETE /admin/apps/{appName}": {
    setup: async (ctx) => ({ params: { appName: await newApp(ctx) } }),
    ok: 204,
    more: (ctx) => [
      { what: "an app with sessions", params: { appName: ctx.app.appName }, expect: 409 },
    ],
  },
  "POST /admin/apps/{appName}/client-secret": {
    setup: async (ctx) => ({ params: { appName: await newApp(ctx) } }),
    ok: 200,
  },
  "GET /admin/generate-token": { setup: () => ({}), ok: 200 },
  "POST /admin/apps/{appName}/api-key": {
    setup: async (ctx) => ({
      params: { appName: await newApp(ctx) },
      json: { previousKeyValidSeconds: 60 },
    }),
    ok: 200,
    more: async (ctx) => [
      { what: "no body", params: { appName: await newApp(ctx) }, expect: 200 },
      {
        what: "an app signing with a consumer secret",
        params: { appName: await newApp(ctx, oauthApp) },
        expect: 409,
      },
    ],
  },
  "DELETE /admin/apps/{appName}/api-key/previous": {
    setup: async (ctx) => ({ params: { appName: await newApp(ctx) } }),
    ok: 204,
  },
  "POST /admin/apps/{appName}/consumer-secret": {
    setup: async (ctx) => ({
      params: { appName: await newApp(ctx, oauthApp) },
      json: { previousKeyValidSeconds: 0 },
    }),
    ok: 200,
    more: async (ctx) => [{
      what: "an app signing with an API key",
      params: { appName: await newApp(ctx) },
      expect: 409,
    }],
  },
  "DELETE /admin/apps/{appName}/consumer-secret/previous": {
    setup: async (ctx) => ({ params: { appName: await newApp(ctx, oauthApp) } }),
    ok: 204,
  },
  "POST /admin/apps/{appName}/callback-secret": {
    setup: async (ctx) => ({
      params: { appName: await newApp(ctx) },
      json: { previousSecretValidSeconds: 0 },
    }),
    ok: 200,
  },
  "POST /admin/apps/{appName}/callbacks/test": {
    setup: (ctx) => ({ params: { appName: ctx.callbackApp.appName } }),
    ok: 200,
    more: (ctx) => [
      { what: "an app without a callback URL", params: { appName: ctx.app.appName }, expect: 409 },
    ],
  },
  "GET /admin/field-settings": { setup: () => ({}), ok: 200 },
  "PUT /admin/field-settings": {
    setup: async (ctx) => ({ json: await adminCall(ctx, "GET", "/field-settings") }),
    ok: 200,
  },
  "GET /admin/custom-fields": { setup: () => ({}), ok: 200 },
  "POST /admin/custom-fields": {
    setup: () => ({ json: { name: uniqueId("cf"), label: "Priority" } }),
    ok: 201,
    more: async (ctx) => {
      const name = uniqueId("cf");
      await adminCall(ctx, "POST", "/custom-fields", { name });
      return [{ what: "a taken name", json: { name }, expect: 409 }];
    },
  },
  "DELETE /admin/custom-fields/{name}": {
    setup: async (ctx) => {
      const field = await adminCall(ctx, "POST", "/custom-fields", { name: uniqueId("cf") });
      return { params: { name: field.name } };
    },
    ok: 204,
  },
  "GET /admin/path-categories": { setup: () => ({}), ok: 200 },
  "POST /admin/path-categories": {
    setup: () => ({ json: { name: "Printers" } }),
    ok: 201,
    more: (ctx) => [
      { what: "a taken uid", json: { uid: ctx.categoryUid, name: "Again" }, expect: 409 },
    ],
  },
  "PATCH /admin/path-categories/{uid}": {
    setup: (ctx) => ({ params: { uid: ctx.categoryUid }, json: { name: "Scanners" } }),
    ok: 200,
  },
  "DELETE /admin/path-categories/{uid}": {
    setup: async (ctx) => {
      const category = await adminCall(ctx, "POST", "/path-categories", { name: "Gone" });
      return { params: { uid: category.uid } };
    },
    ok: 204,
    more: async (ctx) => {
      const category = await adminCall(ctx, "POST", "/path-categories", { name: "Kept" });
      await adminCall(ctx, "POST", "/paths", { title: "Jam", categoryUid: category.uid });
      return [{ what: "a category with paths", params: { uid: category.uid }, expect: 409 }];
    },
  },
  "GET /admin/paths": {
    setup: (ctx) => ({ query: { categoryUid: ctx.categoryUid } }),
    ok: 200,
    more: (): Probe[] => [
      { what: "a categoryUid that is no uuid", query: { categoryUid: "x" }, expect: 400 },
    ],
  },
  "POST /admin/paths": {
    setup: (ctx) => ({
      json: {
        title: "Printer offline",
        categoryUid: ctx.categoryUid,
        steps: [{ title: "Check", body: "Look at the panel." }],
      },
    }),
    ok: 201,
    more: async (ctx) => [{
      what: "an unknown category",
      json: { title: "X", categoryUid: crypto.randomUUID() },
      expect: 400,
    }, {
      what: "a taken uid",
      json: { uid: (await newPath(ctx)).uid, title: "X", categoryUid: ctx.categoryUid },
      expect: 409,
    }],
  },
  "GET /admin/paths/{uid}": {
    setup: async (ctx) => ({ params: { uid: (await newPath(ctx)).uid } }),
    ok: 200,
  },
  "PATCH /admin/paths/{uid}": {
    setup: async (ctx) => ({ params: { uid: (await newPath(ctx)).uid }, json: { title: "Y" } }),
    ok: 200,
  },
  "DELETE /admin/paths/{uid}": {
    setup: async (ctx) => ({ params: { uid: (await newPath(ctx)).uid } }),
    ok: 204,
  },
  "PUT /admin/agents/{id}/password": {
    setup: (ctx) => ({
      params: { id: String(ctx.launch.agentId) },
      json: { password: "contract-password-0123" },
    }),
    ok: 204,
  },
  "PATCH /admin/users/{id}": {
    setup: (ctx) => ({
      params: { id: String(ctx.launch.agentId) },
      json: { disabled: false },
    }),
    ok: 200,
  },
};
