import assert from "node:assert/strict";
import {
  type CatalogPath,
  type PathsInput,
  pathsPanel,
} from "../../../server/portal/guided_paths.ts";
import type { SearchEntry } from "../../../server/launch/payload.ts";

const CAT_A = "aaaaaaaa-0000-4000-8000-000000000001";
const CAT_B = "bbbbbbbb-0000-4000-8000-000000000002";
const uid = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
const path = (n: number, cat: string, title: string, tags: string[] = []): CatalogPath => ({
  uid: uid(n),
  categoryUid: cat,
  title,
  tags,
  steps: [{ title: "s", body: "" }],
  translations: { fr: { title: `${title} (fr)` } },
});
const catalog = [
  path(1, CAT_A, "Printer offline", ["printer"]),
  path(2, CAT_A, "Printer jam", ["printer", "paper"]),
  path(3, CAT_B, "Reset password", ["account"]),
  path(4, CAT_B, "VPN setup", ["network"]),
  path(5, CAT_B, "Wi-Fi drops", ["network"]),
];

function panel(
  search: SearchEntry[] | null,
  opts: Partial<PathsInput> & { remote?: boolean; allPaths?: boolean } = {},
) {
  return pathsPanel({
    paths: search === null
      ? null
      : { search, remote: opts.remote ?? false, allPaths: opts.allPaths ?? false },
    catalog,
    runsOnSession: opts.runsOnSession ?? 0,
    recentUids: opts.recentUids ?? [],
    query: opts.query,
  });
}
const uids = (list: CatalogPath[]) => list.map((p) => p.uid);

Deno.test("paths: no paths object lists every published path, no remote button", () => {
  const p = panel(null);
  assert.equal(p.landing, "list");
  assert.deepEqual(uids(p.listing), uids(catalog));
  assert.equal(p.remoteButton, false);
  assert.deepEqual(p.recentlyUsed, []);
});

Deno.test("paths rule 2: remote with no search entries lands in the remote control view", () => {
  assert.equal(panel([], { remote: true }).landing, "remote");
});

Deno.test("paths rules 3 and 5: Start Remote Connection only with remote and search entries", () => {
  const search: SearchEntry[] = [{ type: "category_uid", values: [CAT_A] }];
  assert.equal(panel(search, { remote: true }).remoteButton, true);
  assert.equal(panel(search, { remote: true, runsOnSession: 3 }).remoteButton, true);
  assert.equal(panel(search, { remote: false }).remoteButton, false);
  assert.equal(panel(search, { remote: true }).landing, "list");
});

Deno.test("paths rule 6: category_uid alone lists those categories' paths", () => {
  const p = panel([{ type: "category_uid", values: [CAT_A] }]);
  assert.equal(p.landing, "list");
  assert.deepEqual(uids(p.listing), [uid(1), uid(2)]);
});

Deno.test("paths rule 7: category_uid plus path_uid lists the category and the path", () => {
  const p = panel([
    { type: "category_uid", values: [CAT_A] },
    { type: "path_uid", values: [uid(4)] },
  ]);
  assert.deepEqual(uids(p.listing), [uid(1), uid(2), uid(4)]);
});

Deno.test("paths rule 8: category_uid plus tag lists tag matches and the category", () => {
  const p = panel([
    { type: "category_uid", values: [CAT_A] },
    { type: "tag", values: ["account"] },
  ]);
  assert.deepEqual(uids(p.listing), [uid(1), uid(2), uid(3)]);
});

Deno.test("paths rule 9: full_text fills the search bar; clearing it shows the categories", () => {
  const search: SearchEntry[] = [
    { type: "category_uid", values: [CAT_A] },
    { type: "full_text", values: ["jam"] },
  ];
  const first = panel(search);
  assert.equal(first.searchText, "jam");
  assert.deepEqual(uids(first.listing), [uid(2)]);
  const cleared = panel(search, { query: "" });
  assert.equal(cleared.searchText, "");
  assert.deepEqual(uids(cleared.listing), [uid(1), uid(2)]);
  const other = panel(search, { query: "offline (FR)" });
  assert.deepEqual(uids(other.listing), [uid(1)], "translated titles match too");
});

Deno.test("paths rule 10: a single path_uid entry launches that path", () => {
  const p = panel([{ type: "path_uid", values: [uid(3)] }]);
  assert.equal(p.landing, "run");
  assert.equal(p.autoRunUid, uid(3));
  const two = panel([{ type: "path_uid", values: [uid(3), uid(4)] }]);
  assert.equal(two.landing, "list", "two paths are a list, not an automatic launch");
  assert.deepEqual(uids(two.listing), [uid(3), uid(4)]);
});

Deno.test("paths rule 11: after the first path, allPaths lists everything, else the filter", () => {
  const search: SearchEntry[] = [{ type: "category_uid", values: [CAT_A] }];
  assert.deepEqual(uids(panel(search, { allPaths: true }).listing), [uid(1), uid(2)]);
  assert.deepEqual(
    uids(panel(search, { allPaths: true, runsOnSession: 1 }).listing),
    uids(catalog),
  );
  assert.deepEqual(uids(panel(search, { allPaths: false, runsOnSession: 1 }).listing), [
    uid(1),
    uid(2),
  ]);
});

Deno.test("paths rule 12: Recently Used only with allPaths and after the first path", () => {
  const search: SearchEntry[] = [{ type: "category_uid", values: [CAT_A] }];
  const recentUids = [uid(5), uid(3), uid(5), "11111111-0000-4000-8000-000000000000"];
  assert.deepEqual(panel(search, { allPaths: true, recentUids }).recentlyUsed, []);
  assert.deepEqual(
    panel(search, { allPaths: false, runsOnSession: 2, recentUids }).recentlyUsed,
    [],
  );
  assert.deepEqual(
    uids(panel(search, { allPaths: true, runsOnSession: 1, recentUids }).recentlyUsed),
    [uid(5), uid(3)],
    "newest first, no repeats, unpublished paths left out",
  );
});

Deno.test("paths: tag or full_text alone filter the whole catalog", () => {
  assert.deepEqual(uids(panel([{ type: "tag", values: ["network"] }]).listing), [uid(4), uid(5)]);
  assert.deepEqual(uids(panel([{ type: "full_text", values: ["vpn"] }]).listing), [uid(4)]);
});
