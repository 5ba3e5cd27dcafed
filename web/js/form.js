/**
 * A form rendered from field specs (UserFillUp's `user_inputs`, Begin's `inputs`): one control per
 * field type — line, paragraph, options, integer/number/float, boolean, object, file; required
 * fields marked `required` and with a `*`. `check()` refuses in the page what the API would refuse
 * anyway — a required field left blank, a number field that is not a number — with the API's own
 * wording, before any request; the API's checks still decide (the same ones every client gets),
 * and each problem it names (`$.inputs.<field>`) is shown next to its field.
 */
import { h } from './dom.js';

function optionValue(o) {
  return o !== null && typeof o === 'object' && 'value' in o ? o.value : o;
}
function optionLabel(o) {
  return o !== null && typeof o === 'object' ? String(o.label ?? o.value) : String(o);
}

function control(key, spec) {
  const type = String(spec.type || 'line').toLowerCase();
  const id = `field-${key}`;
  // `required` marks the field (for people, screen readers and :required styles); the forms
  // that hold it are `novalidate`, so the API's check decides and its message is the one shown.
  const common = { id, name: key, 'data-field': key, required: !spec.optional };
  const init = spec.value === undefined || spec.value === null ? '' : spec.value;
  switch (type) {
    case 'paragraph':
    case 'text':
      return h('textarea', { ...common, rows: 4 }, String(init));
    case 'object':
      return h('textarea', { ...common, rows: 4, placeholder: '{ "json": "object" }', class: 'mono' }, typeof init === 'string' ? init : JSON.stringify(init));
    case 'options': {
      const sel = h('select', common, h('option', { value: '' }, '— choose —'));
      for (const o of spec.options ?? []) sel.append(h('option', { value: String(optionValue(o)) }, optionLabel(o)));
      sel.value = String(init);
      return sel;
    }
    case 'boolean': {
      const sel = h('select', common, h('option', { value: '' }, '—'), h('option', { value: 'true' }, 'true'), h('option', { value: 'false' }, 'false'));
      sel.value = init === '' ? '' : String(init);
      return sel;
    }
    case 'integer':
    case 'number':
    case 'float':
      // Text, not type=number: what the person typed reaches the API, which says what is wrong.
      return h('input', { ...common, type: 'text', inputmode: 'decimal', value: String(init) });
    default:
      return h('input', { ...common, type: 'text', value: String(init) });
  }
}

function valueOf(el, spec) {
  const raw = el.value;
  if (raw === '') return undefined;
  const type = String(spec.type || 'line').toLowerCase();
  if (type === 'boolean') return raw === 'true';
  if (type === 'options') {
    const o = (spec.options ?? []).map(optionValue).find((v) => String(v) === raw);
    return o === undefined ? raw : o;
  }
  return raw;
}

/** `{el, values(), showProblems(problems) → unmatched messages, clear()}` for `fields`. */
export function buildForm(fields) {
  const rows = new Map();
  const el = h('div', { class: 'form' });
  for (const [key, spec] of Object.entries(fields ?? {})) {
    const input = control(key, spec);
    input.setAttribute('aria-describedby', `error-${key}`);
    const error = h('div', { class: 'field-error', id: `error-${key}`, role: 'alert', 'data-error-for': key });
    const label = `${spec.name || key}${spec.optional ? '' : ' *'}`;
    el.append(
      h(
        'label',
        { class: 'field', for: `field-${key}` },
        h('span', { class: 'field-name' }, label),
        h('span', { class: 'field-type' }, spec.type || 'line'),
        input,
        error,
      ),
    );
    rows.set(key, { input, error, spec });
  }
  return {
    el,
    values() {
      const out = {};
      for (const [key, r] of rows) {
        const v = valueOf(r.input, r.spec);
        if (v !== undefined) out[key] = v;
      }
      return out;
    },
    clear() {
      for (const r of rows.values()) {
        r.error.textContent = '';
        r.input.removeAttribute('aria-invalid');
      }
    },
    /** Marks blank required fields and non-numbers in number fields (the API's rules); true when none, else the first bad field has the focus. */
    check() {
      const problems = [];
      for (const [key, r] of rows) {
        const raw = r.input.value.trim();
        const type = String(r.spec.type || 'line').toLowerCase();
        if (raw === '') {
          if (!r.spec.optional) problems.push({ path: `$.inputs.${key}`, message: 'is required' });
        } else if (['integer', 'number', 'float'].includes(type)) {
          const n = Number(raw);
          if (!Number.isFinite(n)) problems.push({ path: `$.inputs.${key}`, message: `must be a number, got "${raw}"` });
          else if (type === 'integer' && !Number.isInteger(n)) problems.push({ path: `$.inputs.${key}`, message: `must be a whole number, got ${n}` });
        }
      }
      this.showProblems(problems);
      const first = problems.length ? rows.get(problems[0].path.slice('$.inputs.'.length)) : null;
      first?.input.focus();
      return problems.length === 0;
    },
    /** Shows each problem next to its field; returns the messages no field took. */
    showProblems(problems) {
      const rest = [];
      for (const p of problems ?? []) {
        const m = /^\$\.(?:body\.)?inputs\.(.+)$/.exec(String(p.path ?? ''));
        const r = m ? rows.get(m[1]) : undefined;
        if (r) {
          r.error.textContent = `${r.spec.name || m[1]} ${p.message}`;
          r.input.setAttribute('aria-invalid', 'true');
        } else rest.push(`${p.path ?? ''} ${p.message ?? ''}`.trim());
      }
      return rest;
    },
  };
}
