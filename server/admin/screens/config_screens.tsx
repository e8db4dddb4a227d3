/** Field settings, custom fields and the guided-path catalog. */
import type { Context, Hono } from "hono";
import type { Deps } from "../../deps.ts";
import { validationError } from "../../http/errors.ts";
import {
  addCategory,
  addPath,
  categories,
  changePath,
  type GuidedPath,
  pathByUid,
  paths,
  removeCategory,
  removePath,
  renameCategoryByUid,
} from "../guided_paths.ts";
import {
  CreateCategorySchema,
  CreateCustomFieldSchema,
  CreatePathSchema,
  UpdateCategorySchema,
  UpdatePathSchema,
} from "../schemas.ts";
import {
  addCustomField,
  customFields,
  readFieldSettings,
  removeCustomField,
  writeFieldSettings,
} from "../settings.ts";
import { adminPage, Banner, Check, Csrf, errorMap, type Errors, Field } from "./layout.tsx";
import { adminContext, isRefusal, type ScreenEnv, str } from "./routes.tsx";

/** Steps as the path form writes them: `# Title` lines, each followed by its body. */
export function stepsToText(steps: { title: string; body: string }[]): string {
  return steps.map((s) => `# ${s.title}\n${s.body}`.trimEnd()).join("\n\n");
}

/** Parses the steps text: every `# ` line starts a step; the lines after it are its body. */
export function textToSteps(text: string): { title: string; body: string }[] {
  const steps: { title: string; body: string[] }[] = [];
  for (const line of text.replace(/\r\n/g, "\n").split("\n")) {
    const heading = line.match(/^#\s+(.*)$/);
    if (heading) steps.push({ title: heading[1].trim(), body: [] });
    else if (steps.length) steps[steps.length - 1].body.push(line);
    else if (line.trim()) steps.push({ title: line.trim(), body: [] });
  }
  return steps.map((s) => ({ title: s.title, body: s.body.join("\n").trim() }));
}

interface PathForm {
  title: string;
  categoryUid: string;
  tags: string;
  published: boolean;
  steps: string;
  translations: string;
}

function pathFormOf(p: GuidedPath): PathForm {
  return {
    title: p.title,
    categoryUid: p.categoryUid,
    tags: p.tags.join(", "),
    published: p.published,
    steps: stepsToText(p.steps),
    translations: Object.keys(p.translations).length ? JSON.stringify(p.translations, null, 2) : "",
  };
}

/** Registers the settings and catalog screens. */
export function configScreens(app: Hono<ScreenEnv>, deps: Deps): void {
  const ctxOf = adminContext;

  app.get("/field-settings", async (c) => {
    const s = await readFieldSettings(deps);
    const ctx = ctxOf(c, "fields");
    return c.html(adminPage(
      ctx,
      "Field settings",
      <form method="post" action="/admin/field-settings">
        <Csrf ctx={ctx} />
        {c.req.query("saved") ? <Banner notice="Saved." /> : null}
        <h2>Session Data</h2>
        <Check
          name="externalSessionId"
          label="External session id (launches store referenceNumber here)"
          checked={s.session.externalSessionId}
        />
        <h2>Consumer Data</h2>
        <Check
          name="externalCustomerId"
          label="External customer id (launches store contactId here)"
          checked={s.consumer.externalCustomerId}
        />
        <p class="hint">
          Launches are refused (409) while either is disabled, because they need both fields.
        </p>
        <button type="submit">Save</button>
      </form>,
    ));
  });

  app.post("/field-settings", async (c) => {
    const form = c.get("form");
    await writeFieldSettings(deps, {
      session: { externalSessionId: str(form, "externalSessionId") === "on" },
      consumer: { externalCustomerId: str(form, "externalCustomerId") === "on" },
    });
    return c.redirect("/admin/field-settings?saved=1", 303);
  });

  async function customFieldsPage(
    c: Context<ScreenEnv>,
    f: { name: string; label: string },
    errors: Errors,
    status: 200 | 400 | 409 = 200,
  ) {
    const ctx = ctxOf(c, "custom");
    const list = await customFields(deps);
    return c.html(
      adminPage(
        ctx,
        "Custom fields",
        <>
          <p>
            Launches may set these in <code>customFields</code>; any other name is refused.
          </p>
          <table data-testid="custom-fields">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Label</th>
                <th scope="col"></th>
              </tr>
            </thead>
            <tbody>
              {list.map((cf) => (
                <tr key={cf.name}>
                  <td>
                    <code>{cf.name}</code>
                  </td>
                  <td>{cf.label}</td>
                  <td>
                    <form method="post" action={`/admin/custom-fields/${cf.name}/delete`}>
                      <Csrf ctx={ctx} />
                      <button type="submit" class="danger" aria-label={`Delete ${cf.name}`}>
                        Delete
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Add a custom field</h2>
          <form method="post" action="/admin/custom-fields">
            <Csrf ctx={ctx} />
            <Field
              name="name"
              label="Name"
              value={f.name}
              errors={errors}
              hint="A letter, then up to 63 letters, digits or '_'."
            />
            <Field name="label" label="Label" value={f.label} errors={errors} />
            <button type="submit">Add</button>
          </form>
        </>,
      ),
      status,
    );
  }

  app.get("/custom-fields", (c) => customFieldsPage(c, { name: "", label: "" }, {}));

  app.post("/custom-fields", async (c) => {
    const form = c.get("form");
    const f = { name: str(form, "name").trim(), label: str(form, "label").trim() };
    const parsed = CreateCustomFieldSchema.safeParse({
      name: f.name,
      ...(f.label ? { label: f.label } : {}),
    });
    try {
      if (!parsed.success) throw validationError(parsed.error.issues);
      await addCustomField(deps, parsed.data);
      return c.redirect("/admin/custom-fields", 303);
    } catch (err) {
      if (isRefusal(err, 400, 409)) {
        return customFieldsPage(c, f, errorMap(err.errors), err.status);
      }
      throw err;
    }
  });

  app.post("/custom-fields/:name/delete", async (c) => {
    await removeCustomField(deps, c.req.param("name"));
    return c.redirect("/admin/custom-fields", 303);
  });

  async function catalogPage(
    c: Context<ScreenEnv>,
    state: { categoryName?: string; errors?: Errors; error?: string | null },
    status: 200 | 400 | 409 = 200,
  ) {
    const ctx = ctxOf(c, "catalog");
    const [cats, all] = await Promise.all([categories(deps), paths(deps)]);
    const errors = state.errors ?? {};
    return c.html(
      adminPage(
        ctx,
        "Guided paths",
        <>
          <Banner error={state.error ?? null} />
          <p>
            <a class="button" href="/admin/catalog/paths/new">New path</a>
          </p>
          {cats.map((cat) => (
            <section key={cat.uid} data-category={cat.uid}>
              <h2>{cat.name}</h2>
              <p class="hint">
                <code>{cat.uid}</code>
              </p>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Path</th>
                    <th scope="col">Tags</th>
                    <th scope="col">Published</th>
                    <th scope="col">Steps</th>
                  </tr>
                </thead>
                <tbody>
                  {all.filter((p) => p.categoryUid === cat.uid).map((p) => (
                    <tr key={p.uid}>
                      <td>
                        <a href={`/admin/catalog/paths/${p.uid}`}>{p.title}</a>
                      </td>
                      <td>{p.tags.join(", ")}</td>
                      <td>{p.published ? "yes" : "no"}</td>
                      <td>{String(p.steps.length)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div class="row">
                <form method="post" action={`/admin/catalog/categories/${cat.uid}`} class="row">
                  <Csrf ctx={ctx} />
                  <label for={`rename-${cat.uid}`}>Rename</label>
                  <input id={`rename-${cat.uid}`} name="name" value={cat.name} required />
                  <button type="submit" class="secondary">Rename</button>
                </form>
                <form method="post" action={`/admin/catalog/categories/${cat.uid}/delete`}>
                  <Csrf ctx={ctx} />
                  <button type="submit" class="danger" aria-label={`Delete ${cat.name}`}>
                    Delete category
                  </button>
                </form>
              </div>
            </section>
          ))}
          <h2>Add a category</h2>
          <form method="post" action="/admin/catalog/categories">
            <Csrf ctx={ctx} />
            <Field name="name" label="Name" value={state.categoryName ?? ""} errors={errors} />
            <button type="submit">Add category</button>
          </form>
        </>,
      ),
      status,
    );
  }

  app.get("/catalog", (c) => catalogPage(c, {}));

  const catalogError = async (c: Context<ScreenEnv>, err: unknown, name?: string) => {
    if (isRefusal(err, 400, 409)) {
      return await catalogPage(c, {
        categoryName: name,
        errors: errorMap(err.errors),
        error: err.message,
      }, err.status);
    }
    throw err;
  };

  app.post("/catalog/categories", async (c) => {
    const name = str(c.get("form"), "name");
    try {
      const parsed = CreateCategorySchema.safeParse({ name });
      if (!parsed.success) throw validationError(parsed.error.issues);
      await addCategory(deps, parsed.data);
      return c.redirect("/admin/catalog", 303);
    } catch (err) {
      return await catalogError(c, err, name);
    }
  });

  app.post("/catalog/categories/:uid", async (c) => {
    try {
      const parsed = UpdateCategorySchema.safeParse({ name: str(c.get("form"), "name") });
      if (!parsed.success) throw validationError(parsed.error.issues);
      await renameCategoryByUid(deps, c.req.param("uid"), parsed.data.name);
      return c.redirect("/admin/catalog", 303);
    } catch (err) {
      return await catalogError(c, err);
    }
  });

  app.post("/catalog/categories/:uid/delete", async (c) => {
    try {
      await removeCategory(deps, c.req.param("uid"));
      return c.redirect("/admin/catalog", 303);
    } catch (err) {
      return await catalogError(c, err);
    }
  });

  async function pathPage(
    c: Context<ScreenEnv>,
    uid: string | null,
    f: PathForm,
    errors: Errors,
    status: 200 | 400 | 409 = 200,
    notice: string | null = null,
  ) {
    const ctx = ctxOf(c, "catalog");
    const cats = await categories(deps);
    return c.html(
      adminPage(
        ctx,
        uid ? `Path: ${f.title}` : "New path",
        <>
          <Banner
            notice={notice}
            error={Object.keys(errors).length ? "Not saved: fix the fields marked below." : null}
          />
          <form method="post" action={uid ? `/admin/catalog/paths/${uid}` : "/admin/catalog/paths"}>
            <Csrf ctx={ctx} />
            <Field name="title" label="Title" value={f.title} errors={errors} />
            <Field
              name="categoryUid"
              label="Category"
              value={f.categoryUid}
              errors={errors}
              options={cats.map((cat) => [cat.uid, cat.name])}
            />
            <Field
              name="tags"
              label="Tags"
              value={f.tags}
              errors={errors}
              hint="Comma-separated; stored lower-cased."
            />
            <Check name="published" label="Published" checked={f.published} />
            <Field
              name="steps"
              label="Steps"
              value={f.steps}
              errors={errors}
              textarea
              rows={8}
              hint="Start each step with a line '# Title'; the lines after it are its text."
            />
            <Field
              name="translations"
              label="Translations (JSON)"
              value={f.translations}
              errors={errors}
              textarea
              rows={6}
              hint='For example {"fr": {"title": "Imprimante hors ligne", "steps": [{"title": "...", "body": "..."}]}}'
            />
            <button type="submit">Save</button>
          </form>
          {uid
            ? (
              <form method="post" action={`/admin/catalog/paths/${uid}/delete`}>
                <Csrf ctx={ctx} />
                <p>
                  <button type="submit" class="danger">Delete path</button>
                </p>
              </form>
            )
            : null}
        </>,
      ),
      status,
    );
  }

  function pathInput(
    form: Record<string, unknown>,
  ): { f: PathForm; input: unknown; errors: Errors } {
    const f: PathForm = {
      title: str(form, "title"),
      categoryUid: str(form, "categoryUid"),
      tags: str(form, "tags"),
      published: str(form, "published") === "on",
      steps: str(form, "steps"),
      translations: str(form, "translations"),
    };
    const errors: Errors = {};
    let translations: unknown = {};
    if (f.translations.trim()) {
      try {
        translations = JSON.parse(f.translations);
      } catch (err) {
        errors.translations = `not valid JSON: ${(err as Error).message}`;
      }
    }
    return {
      f,
      errors,
      input: {
        title: f.title,
        categoryUid: f.categoryUid,
        tags: f.tags.split(",").map((t) => t.trim()).filter(Boolean),
        published: f.published,
        steps: textToSteps(f.steps),
        translations,
      },
    };
  }

  const blankPath: PathForm = {
    title: "",
    categoryUid: "",
    tags: "",
    published: false,
    steps: "",
    translations: "",
  };

  app.get("/catalog/paths/new", (c) => pathPage(c, null, blankPath, {}));

  /**
   * Saves the path form: `save` parses and writes, answering the saved uid. A refusal (fields,
   * a taken uid, an unknown category) shows the form again with the messages by its fields.
   */
  async function savePath(
    c: Context<ScreenEnv>,
    uid: string | null,
    save: (input: unknown) => Promise<string>,
  ) {
    const { f, input, errors } = pathInput(c.get("form"));
    try {
      if (Object.keys(errors).length) return await pathPage(c, uid, f, errors, 400);
      const saved = await save(input);
      return c.redirect(`/admin/catalog/paths/${saved}?saved=1`, 303);
    } catch (err) {
      if (!isRefusal(err, 400, 409, 404)) throw err;
      const fields = err.errors ? errorMap(err.errors) : { categoryUid: err.message };
      return await pathPage(c, uid, f, fields, 400);
    }
  }

  app.post("/catalog/paths", (c) =>
    savePath(c, null, async (input) => {
      const parsed = CreatePathSchema.safeParse(input);
      if (!parsed.success) throw validationError(parsed.error.issues);
      return (await addPath(deps, parsed.data)).uid;
    }));

  app.get("/catalog/paths/:uid", async (c) => {
    const p = await pathByUid(deps, c.req.param("uid"));
    return pathPage(c, p.uid, pathFormOf(p), {}, 200, c.req.query("saved") ? "Saved." : null);
  });

  app.post("/catalog/paths/:uid", async (c) => {
    const uid = c.req.param("uid");
    await pathByUid(deps, uid); // 404 first
    return await savePath(c, uid, async (input) => {
      const parsed = UpdatePathSchema.safeParse(input);
      if (!parsed.success) throw validationError(parsed.error.issues);
      await changePath(deps, uid, parsed.data);
      return uid;
    });
  });

  app.post("/catalog/paths/:uid/delete", async (c) => {
    await removePath(deps, c.req.param("uid"));
    return c.redirect("/admin/catalog", 303);
  });
}
