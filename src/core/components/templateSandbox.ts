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
import { parseTemplate, TemplateLimitError, TEMPLATE_LIMITS, UNDEFINED, type Expr, type KnownNames, type Node } from './templateSyntax';
import { equal, FILTERS, isObj, items, member, METHODS, num, TemplateError, TESTS, text, truthy } from './templateValues';

export { TemplateLimitError, TemplateSyntaxError, TEMPLATE_LIMITS } from './templateSyntax';
export { TemplateError } from './templateValues';

// ---- evaluation ------------------------------------------------------------------------------

type Scope = Map<string, unknown>;

const KNOWN: KnownNames = { filters: new Set(Object.keys(FILTERS)), tests: new Set(Object.keys(TESTS)) };

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
  const nodes = parseTemplate(template, KNOWN);
  const r = new Renderer();
  r.run(nodes, [new Map(Object.entries(vars))]);
  return r.result();
}
