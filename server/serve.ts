/**
 * Entry for `deno serve --parallel server/serve.ts` (one worker per core). Needs DATABASE_URL:
 * the embedded database lives in one process and cannot be shared by several workers.
 */
import { startService } from "./service.ts";
import { loadConfig } from "./config.ts";

const config = loadConfig(Deno.env.toObject());
if (!config.databaseUrl) {
  throw new Error(
    "deno serve --parallel needs DATABASE_URL (the embedded database is single-process)",
  );
}
const service = await startService(config);

export default { fetch: service.app.fetch } satisfies Deno.ServeDefaultExport;
