/**
 * The syntax of the template sandbox (templateSandbox.ts): Jinja's tags (`{{ }}`, `{% %}`,
 * `{# #}`, `-` whitespace control) and expressions, parsed into a small tree the sandbox
 * evaluates. Nothing here runs anything. Pure: runs in the workflow sandbox.
 */

/** The filter and test names a template may use. */
export interface KnownNames {
  filters: ReadonlySet<string>;
  tests: ReadonlySet<string>;
}

/** A template that does not compile: bad syntax, an unknown filter or test (RAGFlow fails then). */
export class TemplateSyntaxError extends Error {}
/** A template that went past the sandbox's bounds. */
export class TemplateLimitError extends Error {}

export const TEMPLATE_LIMITS = { loopPasses: 100_000, outputChars: 1_000_000, depth: 64 };

export type Expr =
  | { t: 'lit'; v: unknown }
  | { t: 'name'; n: string }
  | { t: 'list'; items: Expr[] }
  | { t: 'attr'; o: Expr; k: Expr }
  | { t: 'call'; o: Expr; m: string; args: Expr[] }
  | { t: 'filter'; o: Expr; f: string; args: Expr[] }
  | { t: 'un'; op: string; a: Expr }
  | { t: 'bin'; op: string; a: Expr; b: Expr }
  | { t: 'test'; a: Expr; name: string; neg: boolean };

export type Node =
  | { t: 'text'; s: string }
  | { t: 'out'; e: Expr }
  | { t: 'if'; branches: Array<{ cond: Expr; body: Node[] }>; other: Node[] }
  | { t: 'for'; names: string[]; iter: Expr; body: Node[]; other: Node[] }
  | { t: 'set'; name: string; e: Expr };

/** Jinja's undefined: renders as nothing, fails when read into. */
export const UNDEFINED = Symbol('undefined');

// ---- lexing ---------------------------------------------------------------------------------

type Tag = { kind: 'text'; s: string } | { kind: 'out' | 'stmt'; s: string };

function lexTemplate(src: string): Tag[] {
  const tags: Tag[] = [];
  const re = /\{\{(-?)([\s\S]*?)(-?)\}\}|\{%(-?)([\s\S]*?)(-?)%\}|\{#(-?)[\s\S]*?(-?)#\}/g;
  let last = 0;
  let trimNext = false;
  for (let m = re.exec(src); m; m = re.exec(src)) {
    let text = src.slice(last, m.index);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (m[1] === '-' || m[4] === '-' || m[7] === '-') text = text.replace(/\s+$/, '');
    if (text) tags.push({ kind: 'text', s: text });
    if (m[2] !== undefined) tags.push({ kind: 'out', s: m[2] });
    else if (m[5] !== undefined) tags.push({ kind: 'stmt', s: m[5].trim() });
    trimNext = m[3] === '-' || m[6] === '-' || m[8] === '-';
    last = re.lastIndex;
  }
  let rest = src.slice(last);
  if (trimNext) rest = rest.replace(/^\s+/, '');
  if (/\{\{|\{%/.test(rest)) throw new TemplateSyntaxError('unclosed tag');
  if (rest) tags.push({ kind: 'text', s: rest });
  return tags;
}

const TOKEN = /\s*(\d+\.\d+|\d+|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[A-Za-z_][A-Za-z0-9_]*|==|!=|<=|>=|\/\/|[-+*/%~<>|.,()[\]:=])/y;

function tokenize(s: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  let pos = 0;
  while (pos < s.length) {
    if (/^\s*$/.test(s.slice(pos))) break;
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(s);
    if (!m) throw new TemplateSyntaxError(`unexpected character in expression: ${JSON.stringify(s.slice(pos).trim().slice(0, 20))}`);
    out.push(m[1]!);
    pos = TOKEN.lastIndex;
  }
  return out;
}

// ---- parsing expressions ---------------------------------------------------------------------

class ExprParser {
  private i = 0;
  private depth = 0;
  constructor(
    private readonly toks: string[],
    private readonly known: KnownNames,
  ) {}

  done(): boolean {
    return this.i >= this.toks.length;
  }
  peek(k = 0): string | undefined {
    return this.toks[this.i + k];
  }
  take(tok?: string): string {
    const t = this.toks[this.i];
    if (t === undefined || (tok !== undefined && t !== tok)) throw new TemplateSyntaxError(`expected ${tok ?? 'more'}, found ${t ?? 'the end'}`);
    this.i++;
    return t;
  }
  accept(tok: string): boolean {
    if (this.peek() !== tok) return false;
    this.i++;
    return true;
  }
  name(): string {
    const t = this.take();
    if (!/^[A-Za-z_]\w*$/.test(t)) throw new TemplateSyntaxError(`expected a name, found ${t}`);
    return t;
  }

  expr(): Expr {
    if (++this.depth > TEMPLATE_LIMITS.depth) throw new TemplateLimitError('the template nests too deeply');
    try {
      let a = this.and();
      while (this.accept('or')) a = { t: 'bin', op: 'or', a, b: this.and() };
      // Jinja's inline if: `x if cond else y`.
      if (this.accept('if')) {
        const cond = this.expr();
        const other: Expr = this.accept('else') ? this.expr() : { t: 'lit', v: UNDEFINED };
        return { t: 'bin', op: 'ifelse', a: { t: 'list', items: [a, other] }, b: cond };
      }
      return a;
    } finally {
      this.depth--;
    }
  }
  and(): Expr {
    let a = this.not();
    while (this.accept('and')) a = { t: 'bin', op: 'and', a, b: this.not() };
    return a;
  }
  not(): Expr {
    return this.accept('not') ? { t: 'un', op: 'not', a: this.not() } : this.compare();
  }
  compare(): Expr {
    let a = this.concat();
    for (;;) {
      const t = this.peek();
      if (t && ['==', '!=', '<', '>', '<=', '>='].includes(t)) a = { t: 'bin', op: this.take(), a, b: this.concat() };
      else if (t === 'in') a = (this.take(), { t: 'bin', op: 'in', a, b: this.concat() });
      else if (t === 'not' && this.peek(1) === 'in') a = (this.take(), this.take(), { t: 'un', op: 'not', a: { t: 'bin', op: 'in', a, b: this.concat() } });
      else if (t === 'is') {
        this.take();
        const neg = this.accept('not');
        const name = this.name();
        if (!this.known.tests.has(name)) throw new TemplateSyntaxError(`No test named '${name}'.`);
        a = { t: 'test', a, name, neg };
      } else return a;
    }
  }
  concat(): Expr {
    let a = this.sum();
    while (this.accept('~')) a = { t: 'bin', op: '~', a, b: this.sum() };
    return a;
  }
  sum(): Expr {
    let a = this.product();
    while (this.peek() === '+' || this.peek() === '-') a = { t: 'bin', op: this.take(), a, b: this.product() };
    return a;
  }
  product(): Expr {
    let a = this.unary();
    while (['*', '/', '//', '%'].includes(this.peek() ?? '')) a = { t: 'bin', op: this.take(), a, b: this.unary() };
    return a;
  }
  unary(): Expr {
    if (this.peek() === '-' || this.peek() === '+') return { t: 'un', op: this.take(), a: this.unary() };
    return this.postfix();
  }
  args(): Expr[] {
    const out: Expr[] = [];
    if (this.accept(')')) return out;
    do out.push(this.expr());
    while (this.accept(','));
    this.take(')');
    return out;
  }
  postfix(): Expr {
    let e = this.primary();
    for (;;) {
      if (this.accept('.')) {
        const k = this.name();
        if (this.accept('(')) e = { t: 'call', o: e, m: k, args: this.args() };
        else e = { t: 'attr', o: e, k: { t: 'lit', v: k } };
      } else if (this.accept('[')) {
        e = { t: 'attr', o: e, k: this.expr() };
        this.take(']');
      } else if (this.accept('|')) {
        const f = this.name();
        if (!this.known.filters.has(f)) throw new TemplateSyntaxError(`No filter named '${f}'.`);
        e = { t: 'filter', o: e, f, args: this.accept('(') ? this.args() : [] };
      } else if (this.peek() === '(') throw new TemplateSyntaxError('calling a value is not allowed');
      else return e;
    }
  }
  primary(): Expr {
    const t = this.take();
    if (/^\d/.test(t)) return { t: 'lit', v: Number(t) };
    if (t[0] === '"' || t[0] === "'") return { t: 'lit', v: unquote(t) };
    if (t === 'true' || t === 'True') return { t: 'lit', v: true };
    if (t === 'false' || t === 'False') return { t: 'lit', v: false };
    if (t === 'none' || t === 'None') return { t: 'lit', v: null };
    if (t === '(') {
      const e = this.expr();
      this.take(')');
      return e;
    }
    if (t === '[') {
      const items: Expr[] = [];
      if (!this.accept(']')) {
        do items.push(this.expr());
        while (this.accept(','));
        this.take(']');
      }
      return { t: 'list', items };
    }
    if (/^[A-Za-z_]\w*$/.test(t)) return { t: 'name', n: t };
    throw new TemplateSyntaxError(`unexpected ${t}`);
  }
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"' };

/** A quoted string literal's text (Python's common escapes; others kept as written). */
function unquote(t: string): string {
  return t.slice(1, -1).replace(/\\(.)/g, (m, c: string) => ESCAPES[c] ?? m);
}

function parseExpr(s: string, known: KnownNames): Expr {
  const p = new ExprParser(tokenize(s), known);
  const e = p.expr();
  if (!p.done()) throw new TemplateSyntaxError(`unexpected ${p.peek()}`);
  return e;
}

// ---- parsing statements ----------------------------------------------------------------------

/** Parses a template; `known` says which filter and test names exist (others fail, as in Jinja). */
export function parseTemplate(src: string, known: KnownNames): Node[] {
  const tags = lexTemplate(src);
  let i = 0;
  const block = (ends: string[]): { nodes: Node[]; end: string } => {
    const nodes: Node[] = [];
    while (i < tags.length) {
      const tag = tags[i++]!;
      if (tag.kind === 'text') nodes.push({ t: 'text', s: tag.s });
      else if (tag.kind === 'out') nodes.push({ t: 'out', e: parseExpr(tag.s, known) });
      else {
        const word = tag.s.split(/\s+/)[0] ?? '';
        const rest = tag.s.slice(word.length).trim();
        if (ends.includes(word)) return { nodes, end: tag.s };
        if (word === 'if') {
          const branches: Array<{ cond: Expr; body: Node[] }> = [];
          let cond = parseExpr(rest, known);
          let other: Node[] = [];
          for (;;) {
            const b = block(['elif', 'else', 'endif']);
            branches.push({ cond, body: b.nodes });
            if (b.end.startsWith('elif')) {
              cond = parseExpr(b.end.slice(4), known);
              continue;
            }
            if (b.end === 'else') other = block(['endif']).nodes;
            break;
          }
          nodes.push({ t: 'if', branches, other });
        } else if (word === 'for') {
          const m = /^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s+in\s+([\s\S]+)$/.exec(rest);
          if (!m) throw new TemplateSyntaxError(`bad for: ${tag.s}`);
          const body = block(['else', 'endfor']);
          const other = body.end === 'else' ? block(['endfor']).nodes : [];
          nodes.push({ t: 'for', names: m[1]!.split(',').map((n) => n.trim()), iter: parseExpr(m[2]!, known), body: body.nodes, other });
        } else if (word === 'set') {
          const m = /^([A-Za-z_]\w*)\s*=\s*([\s\S]+)$/.exec(rest);
          if (!m) throw new TemplateSyntaxError(`bad set: ${tag.s}`);
          nodes.push({ t: 'set', name: m[1]!, e: parseExpr(m[2]!, known) });
        } else throw new TemplateSyntaxError(`unknown tag '${word}'`);
      }
    }
    if (ends.length > 0) throw new TemplateSyntaxError(`missing ${ends[ends.length - 1]}`);
    return { nodes, end: '' };
  };
  return block([]).nodes;
}
