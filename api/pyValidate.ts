/**
 * Request validation that answers the way RAGFlow's pydantic models do, so clients matching on
 * RAGFlow's wording (`Field: <name> - Message: <Input should be a valid string> - Value: <0>`)
 * keep working: the same checks (strict or lax types, bounds, literals, unknown fields), the same
 * messages, every problem of the request, in field order.
 */

/** One problem: where (`parser_config.raptor.max_token`), what, and the offending input. */
export interface PyError {
  loc: Array<string | number>;
  msg: string;
  input: unknown;
}

/** A validator: returns the (possibly converted) value, or INVALID after recording problems. */
export type Validator = (input: unknown, loc: Array<string | number>, errors: PyError[]) => unknown;

export const INVALID: unique symbol = Symbol('invalid');

/** Python's `str()` of a JSON value (what pydantic shows as `Value`). */
export function pyStr(v: unknown): string {
  if (typeof v === 'string') return v;
  return pyRepr(v);
}

/** A number a float field received: Python shows it with a decimal point (`2.0`). */
class PyFloat {
  constructor(readonly n: number) {}
}

function pyRepr(v: unknown): string {
  if (v instanceof PyFloat) return Number.isInteger(v.n) ? `${v.n}.0` : String(v.n);
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isInteger(v) || !Number.isFinite(v) ? String(v) : String(v);
  if (typeof v === 'string') return v.includes("'") && !v.includes('"') ? `"${v}"` : `'${v.replace(/'/g, "\\'")}'`;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (typeof v === 'object')
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
      .join(', ')}}`;
  return String(v);
}

/** pydantic's `format_validation_error_message`, as RAGFlow formats it. */
export function formatPyErrors(errors: PyError[]): string {
  return errors
    .map((e) => {
      let input = pyStr(e.input);
      if (input.length > 128) input = `${input.slice(0, 125)}...`;
      return `Field: <${e.loc.join('.')}> - Message: <${e.msg}> - Value: <${input}>`;
    })
    .join('\n');
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function bounds(n: number, o: { ge?: number; le?: number; gt?: number; lt?: number }): string | null {
  if (o.ge !== undefined && !(n >= o.ge)) return `Input should be greater than or equal to ${o.ge}`;
  if (o.gt !== undefined && !(n > o.gt)) return `Input should be greater than ${o.gt}`;
  if (o.le !== undefined && !(n <= o.le)) return `Input should be less than or equal to ${o.le}`;
  if (o.lt !== undefined && !(n < o.lt)) return `Input should be less than ${o.lt}`;
  return null;
}

export interface StrOpts {
  strict?: boolean;
  strip?: boolean;
  min?: number;
  max?: number;
}

export const py = {
  str(o: StrOpts = {}): Validator {
    return (input, loc, errors) => {
      if (typeof input !== 'string') {
        errors.push({ loc, msg: 'Input should be a valid string', input });
        return INVALID;
      }
      const s = o.strip ? input.trim() : input;
      const len = [...s].length;
      if (o.min !== undefined && len < o.min) {
        errors.push({ loc, msg: `String should have at least ${plural(o.min, 'character')}`, input });
        return INVALID;
      }
      if (o.max !== undefined && len > o.max) {
        errors.push({ loc, msg: `String should have at most ${plural(o.max, 'character')}`, input });
        return INVALID;
      }
      return s;
    };
  },
  int(o: { strict?: boolean; ge?: number; le?: number; gt?: number; lt?: number } = {}): Validator {
    return (input, loc, errors) => {
      let n: number;
      if (typeof input === 'number' && Number.isInteger(input)) n = input;
      else if (!o.strict && typeof input === 'string' && /^\s*[+-]?\d+\s*$/.test(input)) n = Number(input);
      else if (!o.strict && typeof input === 'number' && Number.isFinite(input)) {
        errors.push({ loc, msg: 'Input should be a valid integer, got a number with a fractional part', input });
        return INVALID;
      } else if (!o.strict && typeof input === 'boolean') n = input ? 1 : 0;
      else {
        const msg =
          !o.strict && typeof input === 'string' ? 'Input should be a valid integer, unable to parse string as an integer' : 'Input should be a valid integer';
        errors.push({ loc, msg, input });
        return INVALID;
      }
      const b = bounds(n, o);
      if (b) {
        errors.push({ loc, msg: b, input });
        return INVALID;
      }
      return n;
    };
  },
  float(o: { strict?: boolean; ge?: number; le?: number; gt?: number; lt?: number } = {}): Validator {
    return (input, loc, errors) => {
      let n: number;
      if (typeof input === 'number') n = input;
      else if (!o.strict && typeof input === 'string' && input.trim() !== '' && Number.isFinite(Number(input))) n = Number(input);
      else {
        const msg =
          !o.strict && typeof input === 'string' ? 'Input should be a valid number, unable to parse string as a number' : 'Input should be a valid number';
        errors.push({ loc, msg, input });
        return INVALID;
      }
      const b = bounds(n, o);
      if (b) {
        errors.push({ loc, msg: b, input: typeof input === 'number' ? new PyFloat(input) : input });
        return INVALID;
      }
      return n;
    };
  },
  bool(o: { strict?: boolean } = {}): Validator {
    return (input, loc, errors) => {
      if (typeof input === 'boolean') return input;
      if (!o.strict) {
        if (typeof input === 'number' && (input === 0 || input === 1)) return input === 1;
        if (typeof input === 'string') {
          const s = input.trim().toLowerCase();
          if (['1', 'on', 't', 'true', 'y', 'yes'].includes(s)) return true;
          if (['0', 'off', 'f', 'false', 'n', 'no'].includes(s)) return false;
          errors.push({ loc, msg: 'Input should be a valid boolean, unable to interpret input', input });
          return INVALID;
        }
      }
      errors.push({ loc, msg: 'Input should be a valid boolean', input });
      return INVALID;
    };
  },
  literal(values: readonly string[]): Validator {
    const q = values.map((v) => `'${v}'`);
    const msg = `Input should be ${q.length === 1 ? q[0] : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`}`;
    return (input, loc, errors) => {
      if (typeof input === 'string' && values.includes(input)) return input;
      errors.push({ loc, msg, input });
      return INVALID;
    };
  },
  list(item: Validator, o: { min?: number; max?: number } = {}): Validator {
    return (input, loc, errors) => {
      if (!Array.isArray(input)) {
        errors.push({ loc, msg: 'Input should be a valid list', input });
        return INVALID;
      }
      const before = errors.length;
      const out = input.map((x, i) => item(x, [...loc, i], errors));
      if (errors.length > before) return INVALID;
      if (o.max !== undefined && out.length > o.max) {
        errors.push({ loc, msg: `List should have at most ${plural(o.max, 'item')} after validation, not ${out.length}`, input });
        return INVALID;
      }
      if (o.min !== undefined && out.length < o.min) {
        errors.push({ loc, msg: `List should have at least ${plural(o.min, 'item')} after validation, not ${out.length}`, input });
        return INVALID;
      }
      return out;
    };
  },
  dict(): Validator {
    return (input, loc, errors) => {
      if (input === null || typeof input !== 'object' || Array.isArray(input)) {
        errors.push({ loc, msg: 'Input should be a valid dictionary', input });
        return INVALID;
      }
      return input;
    };
  },
  any(): Validator {
    return (input) => input;
  },
  /** `X | None`: null passes as null. */
  nullable(v: Validator): Validator {
    return (input, loc, errors) => (input === null ? null : v(input, loc, errors));
  },
  /** Runs `then` on what `first` produced (pydantic's after-validators). */
  pipe(first: Validator, then: (value: unknown, loc: Array<string | number>, errors: PyError[], input: unknown) => unknown): Validator {
    return (input, loc, errors) => {
      const v = first(input, loc, errors);
      if (v === INVALID) return INVALID;
      return then(v, loc, errors, input);
    };
  },
  model(name: string, fields: Record<string, FieldSpec>, o: { extra?: 'forbid' | 'ignore' | 'allow' } = {}): ModelValidator {
    const validate: ModelValidator = (input, loc, errors) => {
      if (input === null || typeof input !== 'object' || Array.isArray(input)) {
        errors.push({ loc, msg: `Input should be a valid dictionary or instance of ${name}`, input });
        return INVALID;
      }
      const obj = input as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      const before = errors.length;
      for (const [key, spec] of Object.entries(fields)) {
        if (!(key in obj) || obj[key] === undefined) {
          if (spec.required) errors.push({ loc: [...loc, key], msg: 'Field required', input: obj });
          else if (spec.default !== undefined) out[key] = typeof spec.default === 'function' ? (spec.default as () => unknown)() : spec.default;
          continue;
        }
        const v = spec.v(obj[key], [...loc, key], errors);
        if (v !== INVALID) out[key] = v;
      }
      for (const key of Object.keys(obj)) {
        if (key in fields) continue;
        if ((o.extra ?? 'forbid') === 'forbid') errors.push({ loc: [...loc, key], msg: 'Extra inputs are not permitted', input: obj[key] });
        else if (o.extra === 'allow') out[key] = obj[key];
      }
      if (errors.length > before) return INVALID;
      return out;
    };
    validate.fields = fields;
    return validate;
  },
};

export interface FieldSpec {
  v: Validator;
  required?: boolean;
  /** Value (or factory) when the field is absent; absent and no default: left out. */
  default?: unknown;
}

export type ModelValidator = Validator & { fields?: Record<string, FieldSpec> };

/** A pydantic `PydanticCustomError` / `ValueError` raised by a validator. */
export function custom(errors: PyError[], loc: Array<string | number>, msg: string, input: unknown): typeof INVALID {
  errors.push({ loc, msg, input });
  return INVALID;
}

/** Validates a whole request object; `{ok, value}` or `{ok: false, message}` in RAGFlow's wording. */
export function validateModel(v: Validator, input: unknown): { ok: true; value: Record<string, unknown> } | { ok: false; message: string; errors: PyError[] } {
  const errors: PyError[] = [];
  const value = v(input, [], errors);
  if (errors.length > 0 || value === INVALID) return { ok: false, message: formatPyErrors(errors), errors };
  return { ok: true, value: value as Record<string, unknown> };
}

/** RAGFlow's `validate_uuid1_hex`: any UUID form, answered as 32 lowercase hex characters. */
export function uuidHex(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  let s = v.trim();
  if (/^urn:uuid:/i.test(s)) s = s.slice(9);
  s = s.replace(/^\{|\}$/g, '').replace(/-/g, '');
  return /^[0-9a-fA-F]{32}$/.test(s) ? s.toLowerCase() : null;
}

export const uuidField: Validator = (input, loc, errors) => uuidHex(input) ?? custom(errors, loc, 'Invalid UUID format', input);
