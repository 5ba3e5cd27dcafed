/**
 * The comparison operators RAGFlow's conditions name (a Loop's termination conditions, a
 * Retrieval's metadata filter, a Switch): one meaning per operator for a pair of values of
 * one kind. Each caller decides what kind its values are (case-folded text, numbers, dates),
 * as RAGFlow's components each do.
 */

/** `contains`, `not contains`, `start with`, `end with` on text; undefined for any other operator. */
export function textOperator(operator: string, text: string, part: string): boolean | undefined {
  switch (operator) {
    case 'contains':
      return text.includes(part);
    case 'not contains':
      return !text.includes(part);
    case 'start with':
      return text.startsWith(part);
    case 'end with':
      return text.endsWith(part);
  }
  return undefined;
}

/** `=`, `≠`, `>`, `<`, `≥`, `≤` on two numbers or two strings; undefined for any other operator. */
export function orderOperator<T extends number | string>(operator: string, a: T, b: T): boolean | undefined {
  switch (operator) {
    case '=':
      return a === b;
    case '≠':
      return a !== b;
    case '>':
      return a > b;
    case '<':
      return a < b;
    case '≥':
      return a >= b;
    case '≤':
      return a <= b;
  }
  return undefined;
}
