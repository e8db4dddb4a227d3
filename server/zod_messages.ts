/** Zod-wide message settings: a missing field says "required" rather than a type mismatch. */
import { z } from "zod";

z.config({
  customError: (issue) => {
    if (issue.code === "invalid_type" && issue.input === undefined) return "required";
    if (issue.code === "invalid_type") return `expected ${issue.expected}`;
    return undefined;
  },
});

/** A zod error option: "required" when the field is missing, else `text`. */
export function msg(text: string): { error: (issue: { input?: unknown }) => string } {
  return { error: (issue) => (issue.input === undefined ? "required" : text) };
}
