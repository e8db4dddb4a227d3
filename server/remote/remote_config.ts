/**
 * The remote-support settings (docs/remote.md#configuration): invitation lifetime, the ICE
 * servers browsers get (STUN, TURN with coturn's REST-API credentials) and which candidates the
 * signaling relay lets through. Parsed with the rest of the environment by server/config.ts.
 */
import { z } from "zod";

/** What server/remote/ reads of the configuration. */
export interface RemoteConfig {
  /** How long an invitation (link and code) can be joined. */
  inviteTtlMinutes: number;
  stunUrls: string[];
  turnUrls: string[];
  /** coturn's `static-auth-secret` (use-auth-secret); null: TURN URLs are given without one. */
  turnSecret: string | null;
  /** Browsers use TURN relays only (`iceTransportPolicy: "relay"`). */
  relayOnly: boolean;
  /** Only ICE candidates on these addresses are relayed (empty: every address). */
  iceAddresses: string[];
}

function urlList(schemes: string[]) {
  return z.string().optional().transform((v, ctx) => {
    const urls = (v ?? "").split(",").map((u) => u.trim()).filter(Boolean);
    const bad = urls.filter((u) => !schemes.some((s) => u.startsWith(`${s}:`)) || /\s/.test(u));
    if (bad.length) {
      ctx.addIssue({
        code: "custom",
        message: `expected comma-separated ${schemes.join(": or ")}: URLs such as ${
          schemes[0]
        }:turn.example.com:3478 (not: ${bad.join(", ")})`,
      });
      return z.NEVER;
    }
    return urls;
  });
}

/** The environment variables of remote support, merged into the service's schema. */
export const remoteEnvShape = {
  REMOTE_INVITE_TTL_MINUTES: z.string().trim().optional().transform((v, ctx) => {
    if (v === undefined || v === "") return 15;
    if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 1440) {
      ctx.addIssue({ code: "custom", message: "expected a whole number from 1 to 1440" });
      return z.NEVER;
    }
    return Number(v);
  }),
  STUN_URLS: urlList(["stun", "stuns"]),
  TURN_URLS: urlList(["turn", "turns"]),
  TURN_SECRET: z.string().trim().optional().transform((v) => v || null),
  REMOTE_RELAY_ONLY: z.string().trim().toLowerCase().optional().transform((v, ctx) => {
    if (v === undefined || v === "" || ["0", "false", "no", "off"].includes(v)) return false;
    if (["1", "true", "yes", "on"].includes(v)) return true;
    ctx.addIssue({ code: "custom", message: "expected true or false (also 1/0, yes/no, on/off)" });
    return z.NEVER;
  }),
  REMOTE_ICE_ADDRESSES: z.string().optional().transform((v, ctx) => {
    const list = (v ?? "").split(",").map((a) => a.trim().toLowerCase()).filter(Boolean);
    const bad = list.filter((a) => !/^[0-9a-f:.]+$/.test(a));
    if (bad.length) {
      ctx.addIssue({
        code: "custom",
        message: `expected comma-separated IP addresses such as 127.0.0.1 (not: ${bad.join(", ")})`,
      });
      return z.NEVER;
    }
    return list;
  }),
};

type RemoteEnv = {
  [K in keyof typeof remoteEnvShape]: z.output<typeof remoteEnvShape[K]>;
};

/** The remote settings of the parsed environment, and any problem across variables. */
export function remoteConfig(e: RemoteEnv, problems: string[]): RemoteConfig {
  if (e.REMOTE_RELAY_ONLY && e.TURN_URLS.length === 0) {
    problems.push("REMOTE_RELAY_ONLY: needs TURN_URLS (relay-only connections go through TURN)");
  }
  if (e.TURN_SECRET !== null && e.TURN_URLS.length === 0) {
    problems.push("TURN_SECRET: set TURN_URLS too (the secret signs credentials for them)");
  }
  return {
    inviteTtlMinutes: e.REMOTE_INVITE_TTL_MINUTES,
    stunUrls: e.STUN_URLS,
    turnUrls: e.TURN_URLS,
    turnSecret: e.TURN_SECRET,
    relayOnly: e.REMOTE_RELAY_ONLY,
    iceAddresses: e.REMOTE_ICE_ADDRESSES,
  };
}
