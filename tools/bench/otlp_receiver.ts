/**
 * The bench's OpenTelemetry collector stand-in: accepts OTLP/HTTP exports (POST /v1/traces,
 * /v1/metrics, /v1/logs, protobuf or JSON) and answers an empty success, counting the requests;
 * GET /stats answers {exports}.
 */
let exports = 0;
Deno.serve(
  { port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen() {} },
  async (req) => {
    if (req.method === "GET") return Response.json({ exports });
    await req.arrayBuffer();
    exports++;
    const json = (req.headers.get("content-type") ?? "").includes("json");
    // An empty Export*ServiceResponse: no bytes in protobuf, {} in JSON.
    return json ? Response.json({}) : new Response(new Uint8Array(0), {
      headers: { "content-type": "application/x-protobuf" },
    });
  },
);
console.log("listening");
