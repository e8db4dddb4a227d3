/**
 * Database round trips per launch, counted by the driver: an in-process service (no delivery
 * worker, so only the launches' own queries count) on the bench database posts `bodies`.
 */
import { connect } from "../../db/mod.ts";
import type { Config } from "../../server/config.ts";
import { startService } from "../../server/service.ts";

/** Statements sent per launch over `bodies` (signed launch forms of the bench app). */
export async function countRoundTrips(config: Config, bodies: string[]): Promise<number> {
  let queries = 0;
  const db = await connect({ databaseUrl: config.databaseUrl!, max: 4, onQuery: () => queries++ });
  try {
    const counted = await startService(config, { db, demoData: false, deliveryWorker: false });
    queries = 0;
    for (const body of bodies) {
      const res = await counted.app.request(`${config.publicUrl}/portal/api/auth/app/bench`, {
        method: "POST",
        headers: {
          Accept: "application/json",
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body,
      });
      if (res.status !== 200) throw new Error(`counted launch: ${res.status} ${await res.text()}`);
    }
    return queries / bodies.length;
  } finally {
    await db.close();
  }
}
