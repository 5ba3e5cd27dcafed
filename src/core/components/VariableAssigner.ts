/**
 * VariableAssigner: writes variables (`env.*`, `sys.*` or a component output), with RAGFlow's
 * operators. Errors in list and number operations are written as RAGFlow's `ERROR:...` markers,
 * as RAGFlow does, so canvases that test for them keep working.
 */
import { z } from 'zod';
import { parseRef, type VariableRef } from '../dsl/refs';
import { bareRef, executionParamsShape } from './common';
import type { ComponentContext, ComponentDef, ParamRef, VariableWrite } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const OPERATORS = ['overwrite', 'clear', 'set', 'append', 'extend', 'remove_first', 'remove_last', '+=', '-=', '*=', '/='] as const;
type Operator = (typeof OPERATORS)[number];
const NO_PARAMETER: ReadonlySet<Operator> = new Set(['clear', 'remove_first', 'remove_last']);
/** Operators whose parameter is a reference to read (not a literal). */
const REF_PARAMETER: ReadonlySet<Operator> = new Set(['overwrite', 'append', 'extend']);

const ItemSchema = lazySchema(() =>
  z
    .looseObject({
      variable: z.string().min(1, 'variable must not be empty'),
      operator: z.enum(OPERATORS, { message: `operator must be one of: ${OPERATORS.join(', ')}` }),
      parameter: z.unknown().optional(),
    })
    .superRefine((item, ctx) => {
      if (!NO_PARAMETER.has(item.operator) && (item.parameter === undefined || item.parameter === null)) {
        ctx.addIssue({ code: 'custom', path: ['parameter'], message: `operator '${item.operator}' needs a parameter` });
      }
    }),
);

const VariableAssignerParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    variables: z.preprocess((v) => (v === null || v === undefined ? [] : v), z.array(ItemSchema)),
  }),
);

export type VariableAssignerParams = z.infer<typeof VariableAssignerParams>;

function isNumber(v: unknown): v is number {
  return typeof v === 'number';
}

function sameType(a: unknown, b: unknown): boolean {
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  return kind(a) === kind(b);
}

function clear(v: unknown): unknown {
  if (Array.isArray(v)) return [];
  if (typeof v === 'string') return '';
  if (typeof v === 'boolean') return false;
  if (typeof v === 'number') return 0;
  if (typeof v === 'object' && v !== null) return {};
  return null;
}

function arithmetic(op: Operator, v: unknown, p: unknown): unknown {
  if (!isNumber(v) || !isNumber(p)) return 'ERROR:VARIABLE_NOT_NUMBER or PARAMETER_NOT_NUMBER';
  if (op === '+=') return v + p;
  if (op === '-=') return v - p;
  if (op === '*=') return v * p;
  return p === 0 ? 'ERROR:DIVIDE_BY_ZERO' : v / p;
}

function operate(op: Operator, current: unknown, parameter: unknown, ctx: ComponentContext, read: (text: string) => unknown): unknown {
  switch (op) {
    case 'overwrite':
      return read(String(parameter));
    case 'clear':
      return clear(current);
    case 'set':
      if (current === null || current === undefined || typeof current === 'string') return ctx.render(String(parameter ?? ''));
      return parameter;
    case 'append': {
      const value = read(String(parameter));
      const list = current === null || current === undefined ? [] : current;
      if (!Array.isArray(list)) return 'ERROR:VARIABLE_NOT_LIST';
      if (list.length > 0 && !sameType(value, list[0])) return 'ERROR:PARAMETER_NOT_LIST_ELEMENT_TYPE';
      return [...list, value];
    }
    case 'extend': {
      const value = read(String(parameter));
      const list = current === null || current === undefined ? [] : current;
      if (!Array.isArray(list)) return 'ERROR:VARIABLE_NOT_LIST';
      if (!Array.isArray(value)) return 'ERROR:PARAMETER_NOT_LIST';
      if (list.length > 0 && value.length > 0 && !sameType(value[0], list[0])) return 'ERROR:PARAMETER_NOT_LIST_ELEMENT_TYPE';
      return [...list, ...value];
    }
    case 'remove_first':
      return Array.isArray(current) ? current.slice(1) : 'ERROR:VARIABLE_NOT_LIST';
    case 'remove_last':
      return Array.isArray(current) ? current.slice(0, -1) : 'ERROR:VARIABLE_NOT_LIST';
    default:
      return arithmetic(op, current, parameter);
  }
}

export const VariableAssigner: ComponentDef<VariableAssignerParams> = {
  name: 'VariableAssigner',
  params: VariableAssignerParams,
  role: 'plain',
  execution: 'inline',
  outputNames: () => [],
  inputRefs: () => [],
  paramRefs: (p) =>
    p.variables.flatMap((item, i): ParamRef[] => [
      ...bareRef(['variables', i, 'variable'], item.variable),
      ...(REF_PARAMETER.has(item.operator) ? bareRef(['variables', i, 'parameter'], item.parameter) : []),
    ]),
  thoughts: () => 'Assign variables from canvas.',
  run(p, ctx) {
    // Later items see earlier writes, as RAGFlow applies them one by one.
    const written = new Map<string, unknown>();
    const readRef = (ref: VariableRef) => (written.has(ref.expr) ? written.get(ref.expr) : ctx.resolve(ref));
    const read = (text: string): unknown => {
      const ref = parseRef(text);
      if (!ref) throw new Error(`'${text}' is not a variable reference`);
      return readRef(ref);
    };
    const writes: VariableWrite[] = [];
    const inputs: Record<string, unknown> = {};
    try {
      for (const item of p.variables) {
        const ref = parseRef(item.variable);
        if (!ref) return { kind: 'error', message: `'${item.variable}' is not a variable reference` };
        const value = operate(item.operator, readRef(ref), item.parameter, ctx, read);
        written.set(ref.expr, value);
        writes.push({ ref, value });
        inputs[item.variable] = value;
      }
    } catch (err) {
      return { kind: 'error', message: err instanceof Error ? err.message : String(err) };
    }
    return { kind: 'done', outputs: {}, writes, inputs };
  },
};
