/** SQL for guided paths: categories and paths (soft-deleted). */
import { jsonb, type Tx } from "../mod.ts";

/** A path category. */
export interface CategoryRow {
  uid: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

/** One step of a guided path. */
export interface PathStep {
  title: string;
  body: string;
}

/** A guided path with its default (English) text and translations by language. */
export interface PathRow {
  uid: string;
  categoryUid: string;
  title: string;
  steps: PathStep[];
  translations: Record<string, { title: string; steps?: PathStep[] }>;
  tags: string[];
  published: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** Lists live categories by name. */
export async function listCategories(tx: Tx): Promise<CategoryRow[]> {
  return await tx<CategoryRow[]>`
    select uid, name, created_at, updated_at from path_categories
    where deleted_at is null order by name, uid
  `;
}

/** Finds a live category. */
export async function findCategory(tx: Tx, uid: string): Promise<CategoryRow | null> {
  const [row] = await tx<CategoryRow[]>`
    select uid, name, created_at, updated_at from path_categories
    where uid = ${uid} and deleted_at is null
  `;
  return row ?? null;
}

/** Creates a category; null when the uid is taken (even by a deleted one). */
export async function insertCategory(
  tx: Tx,
  values: { uid: string; name: string },
): Promise<CategoryRow | null> {
  const [row] = await tx<CategoryRow[]>`
    insert into path_categories (uid, name) values (${values.uid}, ${values.name})
    on conflict do nothing
    returning uid, name, created_at, updated_at
  `;
  return row ?? null;
}

/** Renames a live category. */
export async function renameCategory(tx: Tx, uid: string, name: string) {
  const [row] = await tx<CategoryRow[]>`
    update path_categories set name = ${name}, updated_at = now()
    where uid = ${uid} and deleted_at is null
    returning uid, name, created_at, updated_at
  `;
  return row ?? null;
}

/** Counts live paths in a category. */
export async function countLivePaths(tx: Tx, categoryUid: string): Promise<number> {
  const [row] = await tx<{ count: number }[]>`
    select count(*) from paths where category_uid = ${categoryUid} and deleted_at is null
  `;
  return row.count;
}

/** Soft-deletes a live category; false when there was none. */
export async function deleteCategory(tx: Tx, uid: string): Promise<boolean> {
  const rows = await tx`
    update path_categories set deleted_at = now(), updated_at = now()
    where uid = ${uid} and deleted_at is null returning uid
  `;
  return rows.length > 0;
}

const pathColumns = "uid, category_uid, title, steps, translations, tags, published, " +
  "created_at, updated_at";

/** Lists live paths, optionally of one category. */
export async function listPaths(tx: Tx, categoryUid?: string): Promise<PathRow[]> {
  return await tx<PathRow[]>`
    select ${tx.unsafe(pathColumns)} from paths
    where deleted_at is null
      and (${categoryUid ?? null}::uuid is null or category_uid = ${categoryUid ?? null}::uuid)
    order by title, uid
  `;
}

/** Finds a live path. */
export async function findPath(tx: Tx, uid: string): Promise<PathRow | null> {
  const [row] = await tx<PathRow[]>`
    select ${tx.unsafe(pathColumns)} from paths where uid = ${uid} and deleted_at is null
  `;
  return row ?? null;
}

/** The writable columns of a path. */
export type PathValues = Omit<PathRow, "createdAt" | "updatedAt">;

/** Creates a path; null when the uid is taken (even by a deleted one). */
export async function insertPath(tx: Tx, v: PathValues): Promise<PathRow | null> {
  const [row] = await tx<PathRow[]>`
    insert into paths (uid, category_uid, title, steps, translations, tags, published)
    values (${v.uid}, ${v.categoryUid}, ${v.title}, ${jsonb(tx, v.steps)},
      ${jsonb(tx, v.translations)}, ${v.tags}, ${v.published})
    on conflict do nothing
    returning ${tx.unsafe(pathColumns)}
  `;
  return row ?? null;
}

/** Replaces a live path's writable columns. */
export async function updatePath(tx: Tx, v: PathValues): Promise<PathRow | null> {
  const [row] = await tx<PathRow[]>`
    update paths set
      category_uid = ${v.categoryUid}, title = ${v.title}, steps = ${jsonb(tx, v.steps)},
      translations = ${jsonb(tx, v.translations)}, tags = ${v.tags},
      published = ${v.published}, updated_at = now()
    where uid = ${v.uid} and deleted_at is null
    returning ${tx.unsafe(pathColumns)}
  `;
  return row ?? null;
}

/** Soft-deletes a live path; false when there was none. */
export async function deletePath(tx: Tx, uid: string): Promise<boolean> {
  const rows = await tx`
    update paths set deleted_at = now(), updated_at = now()
    where uid = ${uid} and deleted_at is null returning uid
  `;
  return rows.length > 0;
}
