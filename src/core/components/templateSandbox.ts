/**
 * A sandboxed Jinja-like template language, for the templates RAGFlow renders with Jinja2's
 * SandboxedEnvironment (StringTransform's merge `script`). Supported: `{{ expr }}`, `{% if %}`
 * / `elif` / `else`, `{% for x in xs %}` (with `loop.index`, `loop.first`… and `else`),
 * `{% set %}`, comments, `-` whitespace control; expressions with literals, `and`/`or`/`not`,
 * comparisons, `in`, `is defined`/`none`, `+ - * / // %`, `~`, attribute and item access,
 * filters (`upper`, `join`, `default`, `length`, `replace`…) and a few string and dict methods.
 *
 * Sandboxed by construction: templates read plain data only — own properties of objects and
 * arrays, never a prototype (`__proto__`, `constructor`) nor a name starting with `_`, as
 * Jinja's sandbox refuses them — and call nothing but the listed filters and methods. Loops run
 * over finite values only, and the total of loop passes and the output size are bounded
 * ({@link TemplateLimitError}). As in Jinja, an unknown filter or test fails when the template
 * compiles, and reading into an undefined value fails when it renders. Pure and deterministic:
 * runs in the workflow sandbox.
 */
import { pyStr } from './pyValues';

/** A template that fails while rendering (RAGFlow then keeps the text as it is). */
export class TemplateError extends Error {}
/** A template that does not compile: bad syntax, an unknown filter or test (RAGFlow fails then). */
export class TemplateSyntaxError extends Error {}
/** A template that went past the sandbox's bounds. */
export class TemplateLimitError extends Error {}

export const TEMPLATE_LIMITS = { loopPasses: 100_000, outputChars: 1_000_000, depth: 64 };

type Expr =
  | { t: 'lit'; v: unknown }
  | { t: 'name'; n: string }
  | { t: 'list'; items: Expr[] }
  | { t: 'attr'; o: Expr; k: Expr }
  | { t: 'call'; o: Expr; m: string; args: Expr[] }
  | { t: 'filter'; o: Expr; f: string; args: Expr[] }
  | { t: 'un'; op: string; a: Expr }
  | { t: 'bin'; op: string; a: Expr; b: Expr }
  | { t: 'test'; a: Expr; name: string; neg: boolean };

type Node =
  | { t: 'text'; s: string }
  | { t: 'out'; e: Expr }
  | { t: 'if'; branches: Array<{ cond: Expr; body: Node[] }>; other: Node[] }
  | { t: 'for'; names: string[]; iter: Expr; body: Node[]; other: Node[] }
  | { t: 'set'; name: string; e: Expr };

const UNDEFINED = Symbol('undefined');

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
  constructor(private readonly toks: string[]) {}

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
        if (!Object.prototype.hasOwnProperty.call(TESTS, name)) throw new TemplateSyntaxError(`No test named '${name}'.`);
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
        if (!Object.prototype.hasOwnProperty.call(FILTERS, f)) throw new TemplateSyntaxError(`No filter named '${f}'.`);
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

function parseExpr(s: string): Expr {
  const p = new ExprParser(tokenize(s));
  const e = p.expr();
  if (!p.done()) throw new TemplateSyntaxError(`unexpected ${p.peek()}`);
  return e;
}

// ---- parsing statements ----------------------------------------------------------------------

function parseTemplate(src: string): Node[] {
  const tags = lexTemplate(src);
  let i = 0;
  const block = (ends: string[]): { nodes: Node[]; end: string } => {
    const nodes: Node[] = [];
    while (i < tags.length) {
      const tag = tags[i++]!;
      if (tag.kind === 'text') nodes.push({ t: 'text', s: tag.s });
      else if (tag.kind === 'out') nodes.push({ t: 'out', e: parseExpr(tag.s) });
      else {
        const word = tag.s.split(/\s+/)[0] ?? '';
        const rest = tag.s.slice(word.length).trim();
        if (ends.includes(word)) return { nodes, end: tag.s };
        if (word === 'if') {
          const branches: Array<{ cond: Expr; body: Node[] }> = [];
          let cond = parseExpr(rest);
          let other: Node[] = [];
          for (;;) {
            const b = block(['elif', 'else', 'endif']);
            branches.push({ cond, body: b.nodes });
            if (b.end.startsWith('elif')) {
              cond = parseExpr(b.end.slice(4));
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
          nodes.push({ t: 'for', names: m[1]!.split(',').map((n) => n.trim()), iter: parseExpr(m[2]!), body: body.nodes, other });
        } else if (word === 'set') {
          const m = /^([A-Za-z_]\w*)\s*=\s*([\s\S]+)$/.exec(rest);
          if (!m) throw new TemplateSyntaxError(`bad set: ${tag.s}`);
          nodes.push({ t: 'set', name: m[1]!, e: parseExpr(m[2]!) });
        } else throw new TemplateSyntaxError(`unknown tag '${word}'`);
      }
    }
    if (ends.length > 0) throw new TemplateSyntaxError(`missing ${ends[ends.length - 1]}`);
    return { nodes, end: '' };
  };
  return block([]).nodes;
}

// ---- evaluation ------------------------------------------------------------------------------

type Scope = Map<string, unknown>;

/** Jinja's tests, by name: each reads a value (a number test on a non-number fails at render). */
const TESTS: Readonly<Record<string, (v: unknown) => boolean>> = {
  defined: (v) => v !== UNDEFINED,
  undefined: (v) => v === UNDEFINED,
  none: (v) => v === null,
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  float: (v) => typeof v === 'number' && !Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  true: (v) => v === true,
  false: (v) => v === false,
  mapping: (v) => isObj(v),
  sequence: (v) => Array.isArray(v) || typeof v === 'string' || isObj(v),
  iterable: (v) => Array.isArray(v) || typeof v === 'string' || isObj(v),
  lower: (v) => text(v) === text(v).toLowerCase(),
  upper: (v) => text(v) === text(v).toUpperCase(),
  odd: (v) => Math.abs(num(v) % 2) === 1,
  even: (v) => num(v) % 2 === 0,
};

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own data only: never a prototype, never a name Jinja's sandbox hides. */
function member(o: unknown, k: unknown): unknown {
  if (typeof k === 'string' && (k.startsWith('_') || k === 'constructor' || k === 'prototype')) return UNDEFINED;
  if (o === UNDEFINED) throw new TemplateError(`cannot read ${text(k)} of an undefined value`);
  if (Array.isArray(o) || typeof o === 'string') {
    if (typeof k !== 'number' || !Number.isInteger(k)) return UNDEFINED;
    const i = k < 0 ? o.length + k : k;
    return i >= 0 && i < o.length ? o[i] : UNDEFINED;
  }
  if (isObj(o)) {
    const key = typeof k === 'number' ? String(k) : k;
    return typeof key === 'string' && Object.prototype.hasOwnProperty.call(o, key) ? o[key] : UNDEFINED;
  }
  return UNDEFINED;
}

function truthy(v: unknown): boolean {
  if (v === UNDEFINED || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isObj(v)) return Object.keys(v).length > 0;
  return true;
}

function text(v: unknown): string {
  return v === UNDEFINED ? '' : pyStr(v);
}

function items(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') return [...v];
  if (isObj(v)) return Object.keys(v);
  if (v === UNDEFINED) return [];
  throw new TemplateError(`'${typeof v}' object is not iterable`);
}

function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return Number(v);
  throw new TemplateError(`unsupported operand: ${text(v)}`);
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a === UNDEFINED ? null : a) === JSON.stringify(b === UNDEFINED ? null : b);
}

/** A string method's receiver: a string, else the call fails as Jinja's would (no such attribute). */
function str(o: unknown): string {
  if (typeof o !== 'string') throw new TemplateError(`${o === UNDEFINED ? 'an undefined value' : typeof o} has no such method`);
  return o;
}

const upper = (o: unknown) => text(o).toUpperCase();
const lower = (o: unknown) => text(o).toLowerCase();
const titled = (o: unknown) => text(o).replace(/\w\S*/g, (w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase());
const replaced = (o: unknown, a: unknown[]) => text(o).split(text(a[0])).join(text(a[1]));

function dict(o: unknown): Record<string, unknown> {
  if (!isObj(o)) throw new TemplateError('not a dict: no such method');
  return o;
}

const METHODS: Readonly<Record<string, (o: unknown, a: unknown[]) => unknown>> = {
  upper: (o) => upper(str(o)),
  lower: (o) => lower(str(o)),
  strip: (o) => str(o).trim(),
  title: (o) => titled(str(o)),
  split: (o, a) => (a[0] === undefined || a[0] === null ? str(o).trim().split(/\s+/).filter(Boolean) : str(o).split(text(a[0]))),
  replace: (o, a) => replaced(str(o), a),
  startswith: (o, a) => str(o).startsWith(text(a[0])),
  endswith: (o, a) => str(o).endsWith(text(a[0])),
  items: (o) => Object.entries(dict(o)),
  keys: (o) => Object.keys(dict(o)),
  values: (o) => Object.values(dict(o)),
  get: (o, a) => {
    const v = member(o, a[0]);
    return v === UNDEFINED ? (a[1] ?? null) : v;
  },
};

const defaultFilter = (v: unknown, a: unknown[]): unknown => (v === UNDEFINED || (a[1] === true && !truthy(v)) ? (a[0] ?? '') : v);

const FILTERS: Readonly<Record<string, (v: unknown, a: unknown[]) => unknown>> = {
  upper,
  lower,
  title: titled,
  capitalize: (v) => {
    const s = text(v);
    return s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
  },
  trim: (v) => text(v).trim(),
  replace: replaced,
  length: (v) => items(v).length,
  count: (v) => items(v).length,
  default: defaultFilter,
  d: defaultFilter,
  join: (v, a) =>
    items(v)
      .map(text)
      .join(a[0] === undefined ? '' : text(a[0])),
  first: (v) => items(v)[0] ?? UNDEFINED,
  last: (v) => items(v).at(-1) ?? UNDEFINED,
  string: (v) => text(v),
  int: (v) => {
    const n = typeof v === 'string' ? parseInt(v, 10) : Number(v);
    return Number.isFinite(n) ? Math.trunc(n) : 0;
  },
  float: (v) => {
    const n = Number(v);
    return Number.isFinite(n) ? n : 0;
  },
  abs: (v) => Math.abs(num(v)),
  round: (v, a) => {
    const f = 10 ** Number(a[0] ?? 0);
    return Math.round(num(v) * f) / f;
  },
  list: (v) => [...items(v)],
  reverse: (v) => (typeof v === 'string' ? [...v].reverse().join('') : [...items(v)].reverse()),
  unique: (v) => [...new Set(items(v).map((x) => JSON.stringify(x)))].map((x) => JSON.parse(x) as unknown),
  tojson: (v) => JSON.stringify(v === UNDEFINED ? null : v),
  wordcount: (v) => text(v).split(/\s+/).filter(Boolean).length,
};

class Renderer {
  private passes = 0;
  private out = '';

  emit(s: string): void {
    this.out += s;
    if (this.out.length > TEMPLATE_LIMITS.outputChars) throw new TemplateLimitError(`the template's output is over ${TEMPLATE_LIMITS.outputChars} characters`);
  }

  lookup(scope: Scope[], n: string): unknown {
    for (let i = scope.length - 1; i >= 0; i--) if (scope[i]!.has(n)) return scope[i]!.get(n);
    return UNDEFINED;
  }

  eval(e: Expr, scope: Scope[]): unknown {
    switch (e.t) {
      case 'lit':
        return e.v;
      case 'name':
        return this.lookup(scope, e.n);
      case 'list':
        return e.items.map((x) => this.eval(x, scope));
      case 'attr':
        return member(this.eval(e.o, scope), this.eval(e.k, scope));
      case 'call': {
        const fn = Object.prototype.hasOwnProperty.call(METHODS, e.m) ? METHODS[e.m] : undefined;
        if (!fn) throw new TemplateError(`method ${e.m}() is not available`);
        return fn(
          this.eval(e.o, scope),
          e.args.map((a) => this.eval(a, scope)),
        );
      }
      case 'filter':
        return FILTERS[e.f]!(
          this.eval(e.o, scope),
          e.args.map((a) => this.eval(a, scope)),
        );
      case 'un': {
        const a = this.eval(e.a, scope);
        return e.op === 'not' ? !truthy(a) : e.op === '-' ? -num(a) : num(a);
      }
      case 'test':
        return TESTS[e.name]!(this.eval(e.a, scope)) !== e.neg;
      case 'bin':
        return this.binary(e, scope);
    }
  }

  binary(e: Extract<Expr, { t: 'bin' }>, scope: Scope[]): unknown {
    if (e.op === 'and') {
      const a = this.eval(e.a, scope);
      return truthy(a) ? this.eval(e.b, scope) : a;
    }
    if (e.op === 'or') {
      const a = this.eval(e.a, scope);
      return truthy(a) ? a : this.eval(e.b, scope);
    }
    if (e.op === 'ifelse') {
      const [yes, no] = (e.a as Extract<Expr, { t: 'list' }>).items;
      return truthy(this.eval(e.b, scope)) ? this.eval(yes!, scope) : this.eval(no!, scope);
    }
    const a = this.eval(e.a, scope);
    const b = this.eval(e.b, scope);
    switch (e.op) {
      case '~':
        return text(a) + text(b);
      case '+':
        if (typeof a === 'string' && typeof b === 'string') return a + b;
        if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
        return num(a) + num(b);
      case '-':
        return num(a) - num(b);
      case '*':
        if (typeof a === 'string' && typeof b === 'number') {
          if (a.length * b > TEMPLATE_LIMITS.outputChars)
            throw new TemplateLimitError(`the template's output is over ${TEMPLATE_LIMITS.outputChars} characters`);
          return a.repeat(Math.max(0, b));
        }
        return num(a) * num(b);
      case '/':
        if (num(b) === 0) throw new TemplateError('division by zero');
        return num(a) / num(b);
      case '//':
        if (num(b) === 0) throw new TemplateError('division by zero');
        return Math.floor(num(a) / num(b));
      case '%':
        if (num(b) === 0) throw new TemplateError('modulo by zero');
        return num(a) - Math.floor(num(a) / num(b)) * num(b);
      case '==':
        return equal(a, b);
      case '!=':
        return !equal(a, b);
      case 'in':
        if (typeof b === 'string') return b.includes(text(a));
        if (isObj(b)) return typeof a === 'string' && Object.prototype.hasOwnProperty.call(b, a);
        return items(b).some((x) => equal(x, a));
      default: {
        const x = typeof a === 'string' && typeof b === 'string' ? a.localeCompare(b) : num(a) - num(b);
        return e.op === '<' ? x < 0 : e.op === '>' ? x > 0 : e.op === '<=' ? x <= 0 : x >= 0;
      }
    }
  }

  run(nodes: Node[], scope: Scope[]): void {
    for (const n of nodes) {
      if (n.t === 'text') this.emit(n.s);
      else if (n.t === 'out') this.emit(text(this.eval(n.e, scope)));
      else if (n.t === 'set') scope[scope.length - 1]!.set(n.name, this.eval(n.e, scope));
      else if (n.t === 'if') {
        const hit = n.branches.find((b) => truthy(this.eval(b.cond, scope)));
        this.run(hit ? hit.body : n.other, scope);
      } else {
        const list = items(this.eval(n.iter, scope));
        if (list.length === 0) this.run(n.other, scope);
        list.forEach((item, index) => {
          if (++this.passes > TEMPLATE_LIMITS.loopPasses) throw new TemplateLimitError(`the template's loops ran over ${TEMPLATE_LIMITS.loopPasses} passes`);
          const frame: Scope = new Map();
          if (n.names.length === 1) frame.set(n.names[0]!, item);
          else n.names.forEach((name, i) => frame.set(name, member(item, i)));
          frame.set('loop', {
            index: index + 1,
            index0: index,
            first: index === 0,
            last: index === list.length - 1,
            length: list.length,
            revindex: list.length - index,
          });
          this.run(n.body, [...scope, frame]);
        });
      }
    }
  }

  result(): string {
    return this.out;
  }
}

/** Whether text uses template syntax (RAGFlow's `_is_jinjia2`: `{% … %}`, `{{` or `}}`). */
export function looksLikeTemplate(text: string): boolean {
  return /\{%.*%\}/.test(text) || text.includes('{{') || text.includes('}}');
}

/**
 * Renders a template with `vars`. Throws TemplateSyntaxError (it does not compile), TemplateError
 * (it failed while rendering) or TemplateLimitError (past the sandbox's bounds).
 */
export function renderSandboxed(template: string, vars: Readonly<Record<string, unknown>>): string {
  const nodes = parseTemplate(template);
  const r = new Renderer();
  r.run(nodes, [new Map(Object.entries(vars))]);
  return r.result();
}
