/// <reference lib="dom" />
/** Submits a signed request as an HTML form post, as a host's own form would. */
import { SIGNED_REQUEST_FIELD } from "../../server/launch/contract.ts";

/** Posts `signedRequest` to `action` in the window or frame named `formTarget`, from `root`. */
export function submitForm(
  root: Node,
  action: string,
  signedRequest: string,
  formTarget: string,
): void {
  const form = document.createElement("form");
  form.method = "POST";
  form.action = action;
  form.target = formTarget;
  form.style.display = "none";
  const field = document.createElement("input");
  field.type = "hidden";
  field.name = SIGNED_REQUEST_FIELD;
  field.value = signedRequest;
  form.append(field);
  root.appendChild(form);
  form.submit();
  form.remove();
}
