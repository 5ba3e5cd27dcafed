/**
 * Python's `ast.literal_eval` for the literals JSON can hold: strings (quotes, triple quotes,
 * r/u prefixes, escapes, adjacent strings joined), numbers (ints with `_`, hex/octal/binary,
 * floats), `True`/`False`/`None`, lists, tuples, dicts and sets (both read as lists). What
 * literal_eval refuses, or what has no JSON form (complex numbers, bytes, tuple keys), is not a
 * literal here either: the caller keeps the text. A parser, never an evaluator: nothing is run.
 * Pure: runs in the workflow sandbox.
 */

export type LiteralResult = { ok: true; value: unknown } | { ok: false };

const MAX_DEPTH = 100;

class NotLiteral extends Error {}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\n': '',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  fail(): never {
    throw new NotLiteral();
  }

  ws(): void {
    while (this.i < this.s.length && /[ \t\r\n\f\\]/.test(this.s[this.i]!)) {
      // A backslash continues a line; anything else after it is an error.
      if (this.s[this.i] === '\\') {
        if (this.s[this.i + 1] !== '\n') return;
        this.i++;
      }
      this.i++;
    }
  }

  peek(): string {
    return this.s[this.i] ?? '';
  }

  eat(ch: string): boolean {
    this.ws();
    if (this.s.startsWith(ch, this.i)) {
      this.i += ch.length;
      return true;
    }
    return false;
  }

  parseAll(): unknown {
    const v = this.value(0);
    this.ws();
    if (this.i < this.s.length) this.fail();
    return v;
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) this.fail();
    this.ws();
    const c = this.peek();
    if (c === '[') return this.sequence(']', depth);
    if (c === '(') return this.tuple(depth);
    if (c === '{') return this.braces(depth);
    if (c === '-' || c === '+') {
      this.i++;
      this.ws();
      const n = this.value(depth + 1);
      if (typeof n !== 'number') this.fail();
      return c === '-' ? -n : n;
    }
    if (/[0-9.]/.test(c)) return this.number();
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(this.i))?.[0] ?? '';
    if (word === 'True' || word === 'False' || word === 'None') {
      this.i += word.length;
      return word === 'True' ? true : word === 'False' ? false : null;
    }
    if (/^[rRuU]?['"]/.test(this.s.slice(this.i, this.i + 2))) return this.strings();
    return this.fail();
  }

  sequence(close: string, depth: number): unknown[] {
    this.i++;
    const out: unknown[] = [];
    for (;;) {
      if (this.eat(close)) return out;
      out.push(this.value(depth + 1));
      if (this.eat(close)) return out;
      if (!this.eat(',')) this.fail();
    }
  }

  tuple(depth: number): unknown {
    this.i++;
    if (this.eat(')')) return [];
    const first = this.value(depth + 1);
    if (this.eat(')')) return first; // (x) is x
    if (!this.eat(',')) this.fail();
    const out = [first];
    for (;;) {
      if (this.eat(')')) return out;
      out.push(this.value(depth + 1));
      if (this.eat(')')) return out;
      if (!this.eat(',')) this.fail();
    }
  }

  braces(depth: number): unknown {
    this.i++;
    if (this.eat('}')) return {};
    const first = this.value(depth + 1);
    if (this.eat(':')) {
      const out: Record<string, unknown> = {};
      let key = first;
      for (;;) {
        out[this.jsonKey(key)] = this.value(depth + 1);
        if (this.eat('}')) return out;
        if (!this.eat(',')) this.fail();
        if (this.eat('}')) return out;
        key = this.value(depth + 1);
        if (!this.eat(':')) this.fail();
      }
    }
    // A set: read as a list of its distinct members, in order.
    const out = [first];
    for (;;) {
      if (this.eat('}')) break;
      if (!this.eat(',')) this.fail();
      if (this.eat('}')) break;
      out.push(this.value(depth + 1));
    }
    const seen = new Set<string>();
    return out.filter((v) => {
      if (typeof v === 'object' && v !== null) this.fail(); // unhashable (a list or a dict)
      const k = typeof v === 'boolean' ? String(Number(v)) : `${typeof v}:${String(v)}`;
      return seen.has(k) ? false : (seen.add(k), true);
    });
  }

  /** A dict key as `json.dumps` writes it; lists (unhashable) and tuples have no JSON form. */
  jsonKey(key: unknown): string {
    if (typeof key === 'string') return key;
    if (typeof key === 'number') return String(key);
    if (typeof key === 'boolean') return key ? 'true' : 'false';
    if (key === null) return 'null';
    return this.fail();
  }

  number(): number {
    const rest = this.s.slice(this.i);
    const m = /^0[xX](?:_?[0-9a-fA-F])+|^0[oO](?:_?[0-7])+|^0[bB](?:_?[01])+|^(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?/.exec(
      rest,
    );
    if (!m || m[0] === '.') this.fail();
    const text = m[0];
    const after = rest[text.length] ?? '';
    if (/[A-Za-z0-9_]/.test(after)) this.fail(); // complex (`1j`), or a malformed number
    const clean = text.replace(/_/g, '');
    this.i += text.length;
    if (/^0[xXoObB]/.test(clean)) return Number(clean);
    // Python refuses leading zeros on a non-zero decimal integer (`01`).
    if (/^0\d/.test(clean) && /^\d+$/.test(clean) && /[1-9]/.test(clean)) this.fail();
    return Number(clean);
  }

  strings(): string {
    let out = '';
    let any = false;
    for (;;) {
      this.ws();
      const m = /^([rRuU]?)('''|"""|'|")/.exec(this.s.slice(this.i));
      if (!m) break;
      this.i += m[0].length;
      out += this.stringBody(m[2]!, m[1]!.toLowerCase() === 'r');
      any = true;
    }
    if (!any) this.fail();
    return out;
  }

  stringBody(quote: string, raw: boolean): string {
    let out = '';
    const triple = quote.length === 3;
    for (;;) {
      if (this.i >= this.s.length) this.fail();
      if (this.s.startsWith(quote, this.i)) {
        this.i += quote.length;
        return out;
      }
      const c = this.s[this.i]!;
      if (c === '\n' && !triple) this.fail();
      if (c !== '\\') {
        out += c;
        this.i++;
        continue;
      }
      const next = this.s[this.i + 1] ?? '';
      if (raw) {
        out += c + next;
        this.i += 2;
        continue;
      }
      this.i += 2;
      if (SIMPLE_ESCAPES[next] !== undefined) out += SIMPLE_ESCAPES[next];
      else if (next === 'x' || next === 'u' || next === 'U') {
        const len = next === 'x' ? 2 : next === 'u' ? 4 : 8;
        const hex = this.s.slice(this.i, this.i + len);
        if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) this.fail();
        const code = parseInt(hex, 16);
        if (code > 0x10ffff) this.fail();
        out += String.fromCodePoint(code);
        this.i += len;
      } else if (/[0-7]/.test(next)) {
        const oct = /^[0-7]{0,2}/.exec(this.s.slice(this.i))![0];
        out += String.fromCodePoint(parseInt(next + oct, 8));
        this.i += oct.length;
      } else if (next === 'N') this.fail();
      else out += `\\${next}`; // Python keeps unknown escapes as they are
    }
  }
}

/** `ast.literal_eval(text)` (which strips leading spaces and tabs), or not a literal. */
export function literalEval(text: string): LiteralResult {
  try {
    return { ok: true, value: new Parser(text.replace(/^[ \t]+/, '')).parseAll() };
  } catch (err) {
    if (err instanceof NotLiteral || err instanceof RangeError) return { ok: false };
    throw err;
  }
}
