/**
 * The bench's callback receiver: answers every POST 204 and counts deliveries by their
 * `webhook-id` header, so the drain case can tell lost (never seen) from doubled (seen twice).
 * GET /stats answers {received, distinct}. It reads each body, as a CRM that checks the
 * signature does: a server that answers before reading the body closes the connection, and every
 * delivery would then pay for a new one.
 */
const seen = new Set<string>();
let received = 0;
Deno.serve(
  { port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen() {} },
  async (req) => {
    if (req.method === "GET") {
      return Response.json({ received, distinct: seen.size });
    }
    await req.arrayBuffer();
    received++;
    const id = req.headers.get("webhook-id");
    if (id) seen.add(id);
    return new Response(null, { status: 204 });
  },
);
console.log("listening");
