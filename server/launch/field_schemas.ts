/**
 * Zod schemas of the launch contract's field rules, shared by the launch payload schema and the
 * admin forms and API, so both accept exactly the same values.
 */
import { z } from "zod";
import { msg } from "../zod_messages.ts";
import { FIELD_RULES, normalizePhone } from "./contract.ts";

/** A trimmed string that must match the contract rule `rule`. */
export function fieldText(rule: keyof typeof FIELD_RULES): z.ZodString {
  const { pattern, message } = FIELD_RULES[rule];
  return z.string(msg(message)).trim().regex(pattern, message);
}

/** A phone number (string, or a JSON number) stored as its digits. */
export const phoneNumber = z.union(
  [z.string(), z.number().int().nonnegative()],
  msg("expected a phone number (digits)"),
).transform((value, ctx) => {
  const result = normalizePhone(String(value));
  if ("error" in result) {
    ctx.addIssue({ code: "custom", message: result.error });
    return z.NEVER;
  }
  return result.digits;
});
