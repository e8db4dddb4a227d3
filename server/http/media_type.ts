/** The media type of a request's body, as its Content-Type names it. */

/** The media type `Content-Type` names, lower-cased, without its parameters ("" without one). */
export function mediaType(c: { req: { header(name: string): string | undefined } }): string {
  return (c.req.header("Content-Type") ?? "").split(";")[0].trim().toLowerCase();
}

/** True for the two media types an HTML form is sent as. */
export function isFormType(type: string): boolean {
  return type === "application/x-www-form-urlencoded" || type === "multipart/form-data";
}
