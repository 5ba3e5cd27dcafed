/**
 * Input forms (Begin `inputs`, UserFillUp `inputs`): what a submission must look like and the
 * values it yields. Field types are RAGFlow's (line, paragraph, options, integer, boolean, object,
 * file; also number/float and text). Every bad field is reported, by name, so the API can answer
 * with all of them at once. Pure: the workflow's update validator runs it too.
 */
import type { FormFieldSpec as FormField } from './definition';

export interface FieldProblem {
  field: string;
  message: string;
}

export type FormCheck = { ok: true; values: Record<string, unknown> } | { ok: false; problems: FieldProblem[] };

/** RAGFlow sends form values as `{value, type, ...}` objects; bare values are accepted too. */
function rawValue(submitted: unknown): unknown {
  if (typeof submitted === 'object' && submitted !== null && !Array.isArray(submitted) && 'value' in submitted) return (submitted as { value?: unknown }).value;
  return submitted;
}

function isEmpty(v: unknown, strict: boolean): boolean {
  return v === undefined || v === null || v === '' || (strict && typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);
}

/** An option's value: options are strings, or `{value, label}` objects in newer editors. */
function optionValue(o: unknown): unknown {
  return typeof o === 'object' && o !== null && 'value' in o ? (o as { value: unknown }).value : o;
}

/** Checks and converts one value of a field; returns the value or a problem message. */
function convert(field: FormField, v: unknown, strict: boolean): { value: unknown } | { problem: string } {
  const type = String(field.type || 'line').toLowerCase();
  switch (type) {
    case 'line':
    case 'paragraph':
    case 'text':
    case 'string':
      if (typeof v === 'string') return { value: v };
      if (!strict && (typeof v === 'number' || typeof v === 'boolean')) return { value: String(v) };
      return { problem: `must be text, got ${describe(v)}` };
    case 'options': {
      const allowed = field.options.map(optionValue);
      const picked = Array.isArray(v) ? v : [v];
      const bad = picked.filter((p) => !allowed.some((a) => a === p || String(a) === String(p)));
      if (allowed.length > 0 && bad.length > 0)
        return { problem: `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${JSON.stringify(Array.isArray(v) ? bad : v)}` };
      return { value: v };
    }
    case 'integer':
    case 'number':
    case 'float': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
      if (!Number.isFinite(n)) return { problem: `must be a number, got ${describe(v)}` };
      if (type === 'integer' && !Number.isInteger(n)) return { problem: `must be a whole number, got ${n}` };
      return { value: n };
    }
    case 'boolean':
      if (typeof v === 'boolean') return { value: v };
      if (v === 'true' || v === 'false') return { value: v === 'true' };
      return { problem: `must be true or false, got ${describe(v)}` };
    case 'object': {
      let parsed = v;
      if (typeof v === 'string') {
        try {
          parsed = JSON.parse(v);
        } catch {
          return { problem: 'must be a JSON object; the text is not valid JSON' };
        }
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { problem: `must be a JSON object, got ${describe(parsed)}` };
      return { value: parsed };
    }
    case 'file': {
      const files = Array.isArray(v) ? v : [v];
      if (files.some((f) => !(typeof f === 'string' || (typeof f === 'object' && f !== null))))
        return { problem: 'must be a file reference (an id, a URL or a file object) or a list of them' };
      return { value: v };
    }
    default:
      return { value: v };
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  return String(v);
}

export interface FormCheckOptions {
  /** Fields absent from the submission are not an error. */
  requiredOptional?: boolean;
  /** Keys the form does not declare pass through unchecked (Begin hands every input on). */
  allowUnknown?: boolean;
  /**
   * Text fields take text only (a number or a boolean is refused, not turned into text) and
   * text of spaces only is blank. Begin's check before a turn starts uses it; UserFillUp answers
   * do not, because the workflow checks them again when it applies them and a stricter rule
   * there would change what replays of runs already answered do.
   */
  strict?: boolean;
}

/**
 * Checks a submission against a form: each field of its declared type, required fields present
 * and non-empty, no fields the form does not have. Values come back converted (numbers, booleans,
 * parsed JSON objects).
 */
export function checkForm(form: Readonly<Record<string, FormField>>, submitted: Readonly<Record<string, unknown>>, options: FormCheckOptions = {}): FormCheck {
  const problems: FieldProblem[] = [];
  const values: Record<string, unknown> = {};
  for (const key of Object.keys(submitted)) {
    if (key in form) continue;
    if (options.allowUnknown) values[key] = submitted[key];
    else problems.push({ field: key, message: `is not a field of this form (fields: ${Object.keys(form).join(', ') || 'none'})` });
  }
  for (const [key, field] of Object.entries(form)) {
    const v = rawValue(submitted[key]);
    const strict = options.strict === true;
    if (isEmpty(v, strict)) {
      if (!field.optional && !options.requiredOptional) problems.push({ field: key, message: 'is required' });
      else if (key in submitted) values[key] = v ?? null;
      continue;
    }
    const c = convert(field, v, strict);
    if ('problem' in c) problems.push({ field: key, message: c.problem });
    else values[key] = c.value;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, values };
}

/** The problems as one readable line (`instructions: is required; age: must be a number`). */
export function describeFieldProblems(problems: FieldProblem[]): string {
  return problems.map((p) => `${p.field}: ${p.message}`).join('; ');
}
