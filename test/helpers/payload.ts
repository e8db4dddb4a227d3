/** A valid minimal launch payload for tests; overrides merge into parameters and context.user. */

// deno-lint-ignore no-explicit-any
export type Json = any;

/** Returns a fresh payload with `params` merged into parameters and `user` into context.user. */
export function launchPayload(params: Json = {}, user: Json = {}): Json {
  return {
    algorithm: "HMACSHA256",
    context: {
      user: {
        id: "agent42",
        email: "ada@example.com",
        first_name: "Ada",
        last_name: "Lovelace",
        ...user,
      },
      environment: {
        parameters: {
          referenceNumber: "CASE00017",
          contactId: "C0099",
          contactFirstName: "Grace",
          contactLastName: "Hopper",
          contactEmail: "grace@example.org",
          contactPhone: "5559876543",
          ...params,
        },
      },
    },
  };
}
