/** The guided-path form: steps as text, translations as JSON, and its view. */
import type { JSX } from "hono/jsx/jsx-runtime";
import { textFieldError, unstorableText } from "../../http/nul.ts";
import type { GuidedPath } from "../guided_paths.ts";
import type { Category } from "../guided_paths.ts";
import { str } from "./form_helpers.ts";
import { type AdminContext, Banner, Check, Csrf, type Errors, Field } from "./layout.tsx";

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

/** What the path form holds, as typed. */
export interface PathForm {
  title: string;
  categoryUid: string;
  tags: string;
  published: boolean;
  steps: string;
  translations: string;
}

/** The form of a new path. */
export const BLANK_PATH_FORM: Readonly<PathForm> = {
  title: "",
  categoryUid: "",
  tags: "",
  published: false,
  steps: "",
  translations: "",
};

/** The form of a saved path. */
export function pathFormOf(p: GuidedPath): PathForm {
  return {
    title: p.title,
    categoryUid: p.categoryUid,
    tags: p.tags.join(", "),
    published: p.published,
    steps: stepsToText(p.steps),
    translations: Object.keys(p.translations).length ? JSON.stringify(p.translations, null, 2) : "",
  };
}

/** The posted form, its API input, and the errors found before the schema (JSON syntax). */
export function pathInput(
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
      // JSON inside a form field: the input rules (nul.ts) see the field, not what it spells.
      const bad = unstorableText(translations);
      if (bad) errors.translations = `${bad.path}: ${textFieldError(bad).message}`;
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

/** The path form (`uid` null for a new path), with a delete button for a saved one. */
export function PathFormView(
  props: {
    ctx: AdminContext;
    uid: string | null;
    f: PathForm;
    categories: Category[];
    errors: Errors;
    notice: string | null;
  },
): JSX.Element {
  const { ctx, uid, f, errors } = props;
  return (
    <>
      <Banner
        notice={props.notice}
        error={Object.keys(errors).length ? "Not saved: fix the fields marked below." : null}
      />
      <form
        method="post"
        action={uid ? `/admin/guided-paths/paths/${uid}` : "/admin/guided-paths/paths"}
      >
        <Csrf ctx={ctx} />
        <Field name="title" label="Title" value={f.title} errors={errors} />
        <Field
          name="categoryUid"
          label="Category"
          value={f.categoryUid}
          errors={errors}
          options={props.categories.map((cat) => [cat.uid, cat.name])}
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
          <form method="post" action={`/admin/guided-paths/paths/${uid}/delete`}>
            <Csrf ctx={ctx} />
            <p>
              <button type="submit" class="danger">Delete path</button>
            </p>
          </form>
        )
        : null}
    </>
  );
}
