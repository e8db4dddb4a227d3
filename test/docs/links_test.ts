/** The README stays short, and every relative link in README.md and docs/ resolves. */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

async function markdownFiles(): Promise<URL[]> {
  const files = [new URL("README.md", ROOT)];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(new URL(`docs/${entry.name}`, ROOT));
  }
  return files;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

function withoutCode(text: string): string {
  return text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
}

/** Each heading's slug, in order (repeats included). */
function headingSlugs(text: string): string[] {
  return [...withoutCode(text).matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]));
}

/** The headings' anchors as GitHub makes them: a repeated one gets `-1`, `-2`, … */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const base of headingSlugs(text)) {
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n ? `${base}-${n}` : base);
  }
  return found;
}

Deno.test("docs: no two headings of a page share an anchor (a link would land on the first)", async () => {
  const repeated: string[] = [];
  for (const file of await markdownFiles()) {
    const slugs = headingSlugs(await Deno.readTextFile(file));
    const name = file.pathname.slice(ROOT.pathname.length);
    for (const s of new Set(slugs.filter((s, i) => slugs.indexOf(s) !== i))) {
      repeated.push(`${name}: #${s}`);
    }
  }
  assert.deepEqual(repeated, []);
});

Deno.test("docs: README.md is at most 10 KB", async () => {
  const size = (await Deno.stat(new URL("README.md", ROOT))).size;
  assert.ok(size <= 10_240, `${size} bytes`);
});

Deno.test("docs: every relative link and anchor in README.md and docs/ resolves", async () => {
  const broken: string[] = [];
  for (const file of await markdownFiles()) {
    const text = await Deno.readTextFile(file);
    for (const m of withoutCode(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1];
      if (/^[a-z]+:/i.test(link)) continue; // http(s), mailto
      const [path, anchor] = link.split("#");
      const target = path ? new URL(path, file) : file;
      const name = file.pathname.slice(ROOT.pathname.length);
      if (!target.pathname.startsWith(ROOT.pathname)) {
        broken.push(`${name}: ${link} leaves the repository`);
        continue;
      }
      let targetText: string;
      try {
        targetText = await Deno.readTextFile(target);
      } catch {
        broken.push(`${name}: ${link} (no such file)`);
        continue;
      }
      if (anchor && target.pathname.endsWith(".md") && !anchors(targetText).has(anchor)) {
        broken.push(`${name}: ${link} (no such heading)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});
