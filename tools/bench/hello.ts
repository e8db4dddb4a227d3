/** Baseline A: a Hono hello-world on the same Deno. */
import { Hono } from "hono";

const app = new Hono();
app.get("/", (c) => c.text("Hello, world"));
Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen() {} }, app.fetch);
console.log("listening");
