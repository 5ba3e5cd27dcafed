/** A path into a JSON document, as keys and array indexes. */
export type PathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Formats a path the way validation messages show it: `$.components["Agent:X"].downstream[0]`.
 * Keys that are not plain identifiers are quoted so ids with `:` or `.` stay unambiguous.
 */
export function formatJsonPath(segments: readonly PathSegment[], root = '$'): string {
  let out = root;
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENTIFIER.test(seg)) out += `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}
