/**
 * Where a JSON text breaks: JSON.parse says what it found, but not always where (V8 names the
 * token, not its offset). A small scanner of the JSON grammar (RFC 8259) finds the offset of the
 * first character that cannot continue the text, as 1-based line and column.
 */

/** The 0-based offset of the first error in `text`, or null when it is valid JSON. */
export function jsonErrorOffset(text: string): number | null {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => {
    for (const ch of word) if (text[i++] !== ch) (i--, fail());
  };
  const digits = () => {
    const start = i;
    while (text[i] >= "0" && text[i] <= "9") i++;
    if (i === start) fail();
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      const ch = text[i];
      if (ch === undefined || ch < " ") fail();
      if (ch === '"') return void i++;
      if (ch === "\\") {
        i++;
        if (text[i] === "u") {
          for (let k = 1; k <= 4; k++) if (!/[0-9a-fA-F]/.test(text[i + k] ?? "")) (i += k, fail());
          i += 5;
        } else if ('"\\/bfnrt'.includes(text[i] ?? "x")) i++;
        else fail();
      } else i++;
    }
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value();
        ws();
        if (text[i] === "}") return void i++;
        if (text[i] !== ",") fail();
        i++;
      }
    }
    if (ch === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === "]") return void i++;
        if (text[i] !== ",") fail();
        i++;
      }
    }
    if (ch === '"') return string();
    if (ch === "t") return literal("true");
    if (ch === "f") return literal("false");
    if (ch === "n") return literal("null");
    if (ch === "-" || (ch >= "0" && ch <= "9")) {
      if (ch === "-") i++;
      if (text[i] === "0") i++;
      else digits();
      if (text[i] === ".") (i++, digits());
      if (text[i] === "e" || text[i] === "E") {
        i++;
        if (text[i] === "+" || text[i] === "-") i++;
        digits();
      }
      return;
    }
    fail();
  };
  try {
    value();
    ws();
    return i < text.length ? i : null;
  } catch (offset) {
    if (typeof offset !== "number") throw offset;
    return offset;
  }
}

/** The 1-based line and column of the first error in `text` (its end when it is valid). */
export function jsonErrorPosition(text: string): { line: number; column: number } {
  const before = text.slice(0, jsonErrorOffset(text) ?? text.length).split("\n");
  return { line: before.length, column: before[before.length - 1].length + 1 };
}
