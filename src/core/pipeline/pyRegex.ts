/**
 * Python regular expressions (RAGFlow's TitleChunker `levels`) as JavaScript ones. The syntax the
 * two share is kept; what differs is rewritten: `{,n}` (Python: 0 to n), named groups `(?P<n>…)`
 * and back-references `(?P=n)`, `\A` / `\Z`. `re.match` anchors at the start, so the pattern is
 * wrapped in `^(?:…)`. Pure.
 */

/** The JavaScript source of a Python pattern (not anchored). */
export function pyPatternSource(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && next === 'A') out += '^';
      else if (!inClass && next === 'Z') out += '$';
      else out += c + next;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      // A leading `]` (or `^]`) is a literal in Python.
      if (pattern[i + 1] === '^') {
        out += '^';
        i++;
      }
      if (pattern[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (c === '{' && pattern[i + 1] === ',') {
      const m = /^\{,(\d+)\}/.exec(pattern.slice(i));
      if (m) {
        out += `{0,${m[1]}}`;
        i += m[0].length - 1;
        continue;
      }
    }
    if (pattern.startsWith('(?P<', i)) {
      out += '(?<';
      i += 3;
      continue;
    }
    const back = /^\(\?P=([A-Za-z_]\w*)\)/.exec(pattern.slice(i));
    if (back) {
      out += `\\k<${back[1]}>`;
      i += back[0].length - 1;
      continue;
    }
    out += c;
  }
  return out;
}

/** A Python pattern as used by `re.match` (anchored at the start); throws on a pattern JavaScript cannot read. */
export function pyMatchRegex(pattern: string, flags = ''): RegExp {
  return new RegExp(`^(?:${pyPatternSource(pattern)})`, flags);
}

/** A Python pattern as used by `re.search`. */
export function pySearchRegex(pattern: string, flags = ''): RegExp {
  return new RegExp(pyPatternSource(pattern), flags);
}

/** Null when the pattern compiles, else why not. */
export function pyRegexProblem(pattern: string): string | null {
  try {
    pyMatchRegex(pattern);
    return null;
  } catch (err) {
    return `not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`;
  }
}
