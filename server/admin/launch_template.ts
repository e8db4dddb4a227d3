/** The JSON template (spec §2.2) an external application builds for a launch. */
import { ALGORITHM, freshnessFields } from "../launch/contract.ts";

/**
 * A filled-in example payload listing every field, with the app's configured custom fields, and
 * the freshness fields a sender sets anew for every launch (`issuedAt` now, a random `nonce`).
 */
export function launchTemplate(customFieldNames: string[]): Record<string, unknown> {
  return {
    algorithm: ALGORITHM,
    ...freshnessFields(),
    context: {
      user: {
        id: "agent42",
        email: "ada.lovelace@example.com",
        first_name: "Ada",
        last_name: "Lovelace",
        phone: "5551234567",
        locale: "en",
        teams: [{ teamId: "T1", teamName: "Tier 1" }],
      },
      environment: {
        parameters: {
          target: "standard",
          sessionId: "",
          referenceId: "500Ab00000XyZ1",
          referenceNumber: "CASE00017",
          contactId: "C0099",
          contactFirstName: "Grace",
          contactLastName: "Hopper",
          contactEmail: "grace.hopper@example.org",
          contactPhone: "5559876543",
          contactMobile: "5550001111",
          contactOtherPhone: "5550002222",
          customFields: Object.fromEntries(customFieldNames.map((name) => [name, ""])),
          deviceComputer: {
            name: "LAPTOP-7",
            os: "Windows",
            os_version: "11",
            serial: "SN-0001",
            av_prods: [{ company: "Acme", latest: "true", name: "AcmeAV", version: "4.2" }],
          },
          deviceMobile: { name: "Pixel", os: "Android", serial: "MB-0001", model: "Pixel 8" },
          assign: true,
          // Guided paths: remote ones, and a search (one entry per type: full_text,
          // category_uid, path_uid or tag; uids and tags must name live, published entries).
          paths: {
            remote: true,
            allPaths: false,
            search: [{ search_type: "full_text", search_values: ["printer offline"] }],
          },
          showSessionStatusChange: true,
          showAssignToMeButton: true,
          showSessionTransferButton: true,
        },
      },
    },
  };
}
