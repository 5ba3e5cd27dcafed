/**
 * The template sandbox's own guarantees, beyond what RAGFlow's Jinja2 rows check
 * (StringTransform.test.ts): plain data only, bounded loops and output, no calls.
 */
import { describe, expect, it } from 'vitest';
import { renderSandboxed, TemplateLimitError, TemplateSyntaxError, TEMPLATE_LIMITS } from './templateSandbox';

describe('template sandbox', () => {
  it('renders loops, conditions, filters and methods', () => {
    const out = renderSandboxed(
      '{% for p in people %}{{ loop.index }}.{{ p.name | upper }}{% if p.age >= 18 %} (adult){% endif %}{% if not loop.last %}, {% endif %}{% endfor %}',
      {
        people: [
          { name: 'ann', age: 31 },
          { name: 'bo', age: 9 },
        ],
      },
    );
    expect(out).toBe('1.ANN (adult), 2.BO');
    expect(
      renderSandboxed('{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}{% set n = xs | length %}{{ n * 2 }}', { d: { a: 1, b: 'x' }, xs: [1, 2, 3] }),
    ).toBe('a=1;b=x;6');
  });

  it('never reaches a prototype or a hidden name', () => {
    const vars = { s: 'text', o: { a: 1 }, xs: [1] };
    for (const t of [
      '{{ s.constructor }}',
      '{{ o.__proto__ }}',
      "{{ o['__proto__'] }}",
      '{{ o.constructor }}',
      '{{ xs.constructor }}',
      '{{ o._private }}',
      '{{ o.toString }}',
      '{{ xs.length }}',
    ]) {
      expect(renderSandboxed(t, vars), t).toBe('');
    }
    expect(() => renderSandboxed('{{ o.constructor.constructor("return process")() }}', vars)).toThrow();
    expect(() => renderSandboxed('{{ s.toString() }}', vars)).toThrow();
  });

  it('bounds loop passes and output size', () => {
    const big = Array.from({ length: 1000 }, (_, i) => i);
    expect(() => renderSandboxed('{% for a in xs %}{% for b in xs %}{% endfor %}{% endfor %}', { xs: big })).toThrow(TemplateLimitError);
    expect(() => renderSandboxed('{{ "x" * 2000000 }}', {})).toThrow(TemplateLimitError);
    const long = 'y'.repeat(TEMPLATE_LIMITS.outputChars / 10);
    expect(() => renderSandboxed('{% for i in xs %}{{ s }}{% endfor %}', { xs: Array.from({ length: 11 }, () => 0), s: long })).toThrow(TemplateLimitError);
    expect(() => renderSandboxed('{{ ' + '('.repeat(200) + '1' + ')'.repeat(200) + ' }}', {})).toThrow(TemplateLimitError);
  });

  it('fails to compile on unknown filters and tests, as Jinja does', () => {
    expect(() => renderSandboxed('{{ x | shell }}', {})).toThrow(TemplateSyntaxError);
    expect(() => renderSandboxed('{{ x is evil }}', {})).toThrow(TemplateSyntaxError);
    expect(() => renderSandboxed('{% while true %}{% endwhile %}', {})).toThrow(TemplateSyntaxError);
    expect(() => renderSandboxed('{% for x in xs %}', {})).toThrow(TemplateSyntaxError);
  });
});
