/**
 * POST /internal/backup: a consistent backup of the embedded database while the service runs, for
 * `deno task backup` (which cannot open a data directory this process holds). The caller proves it
 * can read the data directory's secret key: `Authorization: DataDir <unix seconds>.<Base64url
 * HMAC-SHA256 of "backup.<unix seconds>" keyed by the secret key>`, within 60 seconds. Anyone who
 * can read that key can read the database files anyway. Answers a gzipped tar of the data
 * directory (PGlite's dumpDataDir). Not mounted on PostgreSQL.
 */
import { Hono } from "hono";
import type { AppEnv } from "../http/env.ts";
import { AppError } from "../http/errors.ts";
import { encodeBase64Url } from "../crypto/base64.ts";
import { timingSafeEqual } from "../crypto/hashing.ts";
import { hmacSha256 } from "../crypto/hmac.ts";
import { log } from "../log.ts";

/** The proof `deno task backup` sends: `<seconds>.<hmac>`. */
export async function backupProof(secretKey: string, seconds: number): Promise<string> {
  const mac = await hmacSha256(secretKey, `backup.${seconds}`);
  return `${seconds}.${encodeBase64Url(mac)}`;
}

/** The route, given the database's dump function and the secret key. */
export function backupRoute(dump: () => Promise<Blob>, secretKey: string): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/backup", async (c) => {
    const proof = c.req.header("Authorization")?.replace(/^DataDir /, "") ?? "";
    const seconds = Number(proof.split(".")[0]);
    const fresh = Number.isSafeInteger(seconds) && Math.abs(Date.now() / 1000 - seconds) <= 60;
    if (!fresh || !timingSafeEqual(proof, await backupProof(secretKey, seconds))) {
      throw new AppError(401, "unauthorized", "Send the data directory's proof");
    }
    const started = performance.now();
    const blob = await dump();
    log.info("backup taken", { bytes: blob.size, ms: Math.round(performance.now() - started) });
    return new Response(blob.stream(), {
      headers: {
        "Content-Type": "application/gzip",
        "Content-Length": String(blob.size),
        "Cache-Control": "no-store",
      },
    });
  });
  return app;
}
