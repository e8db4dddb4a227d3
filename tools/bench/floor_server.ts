/**
 * The launch's runtime floor: what Deno, the HTTP server and the database driver cost a request
 * shaped like a launch with none of the service's work. It reads a form POST's body, sends its
 * one field to PostgreSQL in one query (the driver on the service's socket, as a launch's
 * parameters go), and answers a small JSON body with a cookie, as a launch answered with
 * `Accept: application/json` does. FLOOR_QUERY_ROWS, when more than 0, has each query count that
 * many rows of `generate_series` too: a launch's PostgreSQL CPU (tools/bench/floor.ts).
 */
import postgres from "postgres";
import { denoSocketOption } from "../../db/deno_socket.ts";
import { SIGNED_REQUEST_FIELD } from "../../server/launch/contract.ts";

const sql = postgres(Deno.env.get("DATABASE_URL")!, { max: 10, ...denoSocketOption });
const queryRows = Number(Deno.env.get("FLOOR_QUERY_ROWS") ?? 0);
Deno.serve(
  { port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen() {} },
  async (req) => {
    const form = new URLSearchParams(await req.text());
    const field = form.get(SIGNED_REQUEST_FIELD) ?? "";
    const [row] = queryRows > 0
      ? await sql`
        select length(${field}::text) as n,
          (select count(*) from generate_series(1, ${queryRows}::int)) as counted`
      : await sql`select length(${field}::text) as n`;
    return new Response(JSON.stringify({ ok: true, length: row.n, url: "/portal/sessions/1" }), {
      headers: {
        "content-type": "application/json",
        "set-cookie": "portal_session=0123456789abcdef0123456789abcdef; Path=/; HttpOnly; Secure",
      },
    });
  },
);
console.log("listening");
