/**
 * `crm_v6_5`: the version 6.5 CRM connector, for a CRM whose REST API takes case activities and
 * authenticates service calls with OAuth 2.0 client credentials.
 *
 * Launch: version 6.5 sends the payload contract itself (the seed's format was written for it),
 * so the mapping is the identity.
 *
 * Callback: each event becomes an activity on the case named by referenceId, sent to the callback
 * URL (e.g. `https://crm.example.com/api/v6.5/cases/{referenceId}/activities`, POST) with a
 * client-credentials Bearer token from the app's token URL and `Idempotency-Key: <webhook id>`,
 * so a redelivery is recognised by the CRM. Session statuses are written in the CRM's words
 * (open → "In Progress", closed → "Resolved"). docs/crm.md shows a worked example.
 */
import { type Adapter, asContract, eventUrl, JSON_HEADERS } from "./mod.ts";

/** Activity subjects, in the CRM's words. */
const SUBJECTS: Record<string, string> = {
  "session.created": "Portal session opened",
  "session.updated": "Portal session updated",
  "session.assigned": "Portal session assigned",
  "session.closed": "Portal session resolved",
  "session.reopened": "Portal session reopened",
  "path.completed": "Guided path completed",
  "remote.requested": "Remote connection requested",
  "remote.invited": "Screen sharing invitation sent",
  "remote.started": "Customer started screen sharing",
  "remote.ended": "Screen sharing ended",
  ping: "Portal Launcher connection test",
};

const CASE_STATUS: Record<string, string> = { open: "In Progress", closed: "Resolved" };

export const crmV65Adapter: Adapter = {
  id: "crm_v6_5",
  auth: "client_credentials",
  mapLaunch: asContract,
  buildRequest(event, target) {
    const data = event.body.data;
    const assignee = data.assignee as { email?: string } | null | undefined;
    const customer = data.customer as { externalId?: string } | null | undefined;
    return {
      url: eventUrl(event, target),
      method: target.callbackMethod,
      headers: { ...JSON_HEADERS, "Idempotency-Key": event.webhookId },
      body: JSON.stringify({
        activity: {
          externalId: event.webhookId,
          kind: `portal.${event.type}`,
          subject: SUBJECTS[event.type] ?? event.type,
          occurredAt: event.body.timestamp,
          caseId: event.referenceId,
          caseNumber: data.referenceNumber ?? null,
          caseStatus: typeof data.status === "string" ? CASE_STATUS[data.status] ?? null : null,
          owner: assignee?.email ?? null,
          contact: customer?.externalId ?? null,
          details: data,
        },
      }),
    };
  },
};
