/**
 * ICE for remote support: the servers a browser gets (`GET {portal_url}/remote/ice`) and the
 * candidate filter the signaling relay applies. TURN credentials follow coturn's REST API
 * (`use-auth-secret`): user name `<expiry unix seconds>:<user>`, password Base64 of
 * HMAC-SHA1(secret, user name), valid for an hour.
 */
import type { RemoteConfig } from "./remote_config.ts";
import { encodeBase64 } from "../crypto/base64.ts";

/** How long TURN credentials stay valid. */
export const TURN_CREDENTIAL_SECONDS = 3600;

/** One entry of RTCConfiguration.iceServers. */
export interface IceServer {
  urls: string[];
  username?: string;
  credential?: string;
}

/** What `GET {portal_url}/remote/ice` answers. */
export interface IceConfig {
  iceServers: IceServer[];
  iceTransportPolicy: "all" | "relay";
}

/** coturn REST-API credentials for `user`, valid until `nowSeconds` + an hour. */
export async function turnCredentials(
  secret: string,
  user: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<{ username: string; credential: string }> {
  const username = `${nowSeconds + TURN_CREDENTIAL_SECONDS}:${user}`;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-1" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(username));
  return { username, credential: encodeBase64(new Uint8Array(mac)) };
}

/** The ICE configuration for one side of remote session `remoteId`. */
export async function iceConfig(config: RemoteConfig, user: string): Promise<IceConfig> {
  const iceServers: IceServer[] = [];
  if (config.stunUrls.length) iceServers.push({ urls: config.stunUrls });
  if (config.turnUrls.length) {
    iceServers.push(
      config.turnSecret
        ? { urls: config.turnUrls, ...await turnCredentials(config.turnSecret, user) }
        : { urls: config.turnUrls },
    );
  }
  return { iceServers, iceTransportPolicy: config.relayOnly ? "relay" : "all" };
}

/** The address and type of an ICE candidate line (`candidate:...` or `a=candidate:...`). */
export function candidateAddress(line: string): { address: string; type: string } | null {
  const parts = line.replace(/^a=/, "").trim().split(/\s+/);
  if (!parts[0]?.startsWith("candidate:") || parts.length < 8) return null;
  const typ = parts.indexOf("typ");
  return { address: parts[4].toLowerCase(), type: typ > 0 ? parts[typ + 1] ?? "" : "" };
}

/** Whether the relay lets a candidate through under `config` (addresses, relay-only). */
export function candidateAllowed(config: RemoteConfig, line: string): boolean {
  if (!line.trim()) return true; // end-of-candidates
  const c = candidateAddress(line);
  if (!c) return false;
  if (config.relayOnly && c.type !== "relay") return false;
  return config.iceAddresses.length === 0 || config.iceAddresses.includes(c.address);
}

/** An SDP with the candidate lines the relay does not let through removed. */
export function filterSdp(config: RemoteConfig, sdp: string): string {
  if (!config.relayOnly && config.iceAddresses.length === 0) return sdp;
  // Lines end in CRLF, but a bare LF must not hide a candidate from the filter.
  return sdp.split(/\r?\n/).filter((line) =>
    !line.startsWith("a=candidate:") || candidateAllowed(config, line)
  ).join("\r\n");
}
