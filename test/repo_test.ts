/**
 * The repository's shape: a clone alone passes its tests (nothing reads outside it), modules
 * import each other without cycles, files stay small, and the launch contract's names are written
 * once.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const SOURCE_DIRS = ["server", "db", "widget", "tools", "test"];
const SKIP = new Set(["node_modules", "dist", "output", "results", ".data"]);

async function sourceFiles(dir: URL, out: string[] = []): Promise<string[]> {
  for await (const entry of Deno.readDir(dir)) {
    if (SKIP.has(entry.name)) continue;
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) await sourceFiles(url, out);
    else if (/\.(ts|tsx|js|mjs)$/.test(entry.name)) out.push(url.pathname);
  }
  return out;
}

async function allFiles(): Promise<string[]> {
  const out: string[] = [];
  for (const dir of SOURCE_DIRS) await sourceFiles(new URL(`${dir}/`, ROOT), out);
  return out.sort();
}

const SPECIFIER =
  /(?:from\s*|import\s*\(\s*|import\s+)["'](\.{1,2}\/[^"']+)["']|new URL\(\s*["'](\.{1,2}\/[^"']*)["']\s*,\s*import\.meta\.url/g;

/** The relative specifiers of a file, resolved to absolute paths. */
function relativeImports(path: string, text: string): { spec: string; target: string }[] {
  const out: { spec: string; target: string }[] = [];
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2];
    out.push({ spec, target: new URL(spec, `file://${path}`).pathname });
  }
  return out;
}

const rel = (path: string) => path.slice(ROOT.pathname.length);

/** The folder beside the repository that a clone does not have (built up so as not to name it). */
const OUTSIDE_NAMES = new RegExp(["sha", "red/(vectors|spec)"].join(""));

Deno.test("repo: no source or test file reads outside the repository", async () => {
  const escapes: string[] = [];
  for (const path of await allFiles()) {
    const text = await Deno.readTextFile(path);
    for (const { spec, target } of relativeImports(path, text)) {
      if (!target.startsWith(ROOT.pathname)) escapes.push(`${rel(path)}: ${spec}`);
    }
    if (OUTSIDE_NAMES.test(text)) {
      escapes.push(`${rel(path)}: names the folder beside the repository`);
    }
  }
  assert.deepEqual(escapes, []);
});

Deno.test("repo: the shared test vectors and the spec are inside the repository", async () => {
  const vectors = JSON.parse(
    await Deno.readTextFile(new URL("test/fixtures/signed_request.json", ROOT)),
  );
  assert.ok(vectors.cases.length > 0);
  assert.match(await Deno.readTextFile(new URL("docs/spec.md", ROOT)), /signed_request/);
});

/** Import cycles among the product's modules (tests excluded), each as a list of files. */
async function importCycles(): Promise<string[][]> {
  const graph = new Map<string, string[]>();
  for (const path of await allFiles()) {
    if (rel(path).startsWith("test/")) continue;
    const text = await Deno.readTextFile(path);
    const deps = relativeImports(path, text)
      .map((i) => i.target)
      .filter((t) => /\.(ts|tsx)$/.test(t));
    graph.set(path, deps);
  }
  // Tarjan's strongly connected components: any component with more than one file is a cycle.
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(rel(w));
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return cycles;
}

Deno.test("repo: modules import each other without cycles", async () => {
  assert.deepEqual(await importCycles(), []);
});

/** Files allowed to be long: data tables, not logic. */
const LONG_DATA_FILES = new Set(["server/portal/i18n.ts"]);
const MAX_LINES = 400;

Deno.test(`repo: no source file is over ${MAX_LINES} lines except data tables`, async () => {
  const long: string[] = [];
  for (const path of await allFiles()) {
    if (rel(path).startsWith("test/") || LONG_DATA_FILES.has(rel(path))) continue;
    const lines = (await Deno.readTextFile(path)).split("\n").length;
    if (lines > MAX_LINES) long.push(`${rel(path)}: ${lines} lines`);
  }
  assert.deepEqual(long, []);
});

Deno.test("repo: the launch contract's names are written once, in contract.ts", async () => {
  const CONTRACT = "server/launch/contract.ts";
  const names = [
    /"HMACSHA256"/,
    /portal-launcher:(error|ready|resize|session)/,
    /\/api\/auth\/app\//,
  ];
  const copies: string[] = [];
  for (const path of await allFiles()) {
    const file = rel(path);
    if (file === CONTRACT || file.startsWith("test/") || file.startsWith("tools/bench/")) continue;
    const text = await Deno.readTextFile(path);
    for (const name of names) if (name.test(text)) copies.push(`${file}: ${name.source}`);
  }
  assert.deepEqual(copies, []);
});

/**
 * Packages the service loads only when a feature needs them, to keep them out of a process that
 * does not use it (tools/bench/results/2026-12-01-on-demand-packages.md): the embedded database, SMTP, and the Public
 * Suffix List for wildcard frame ancestors. In the service's code they are imported with
 * `import()` or `import type` only.
 */
const ON_DEMAND = ["@electric-sql/pglite", "@electric-sql/pglite-socket", "nodemailer", "tldts"];

Deno.test("repo: packages needed by one feature are not imported at startup", async () => {
  const eager: string[] = [];
  for (const path of await allFiles()) {
    if (!/^(server|db)\//.test(rel(path))) continue;
    const text = await Deno.readTextFile(path);
    for (
      const m of text.matchAll(/^\s*(?:import|export)(?!\s+type\b)[^;]*?from\s*["']([^"']+)["']/gm)
    ) {
      if (ON_DEMAND.includes(m[1])) eager.push(`${rel(path)}: ${m[1]}`);
    }
    for (const m of text.matchAll(/^\s*import\s*["']([^"']+)["']/gm)) {
      if (ON_DEMAND.includes(m[1])) eager.push(`${rel(path)}: ${m[1]}`);
    }
  }
  assert.deepEqual(eager, []);
});
