/**
 * CodeExec: runs a Python or JavaScript `main(...)` in a sandbox (src/io/tools/codeExec), as a
 * canvas node or as an Agent tool. Params follow RAGFlow's CodeExecParam: `lang`, `script`,
 * `arguments` ({name: variable reference or value}, resolved here, in the workflow, and passed to
 * main) and `outputs` ({name: {type, value}}, filled from main's return value). Outputs are
 * RAGFlow's: `content`, `actual_type`, `raw_result`, `attachments` and the declared ones.
 */
import { z } from 'zod';
import { parseRef, type VariableRef } from '../dsl/refs';
import { executionParamsShape, templateRefs, uniqueRefs } from './common';
import { readToolNodeResult, runToolNode } from './tooling';
import type { ComponentContext, ComponentDef, Outcome, ParamRef } from './definition';
import { lazySchema } from '../dsl/lazySchema';

const DEFAULT_SCRIPT = 'def main(arg1: str, arg2: str) -> dict:\n    return {"result": arg1 + arg2}\n';
const DEFAULT_OUTPUTS = { result: { value: '', type: 'object' }, attachments: { value: [], type: 'Array<String>' } };

/** `arguments` as RAGFlow stores it ({name: ref}), also the editor's list form ([{name, value}]). */
const argumentsSchema = lazySchema(() =>
  z.preprocess(
    (v) => {
      if (v === null || v === undefined || v === '') return {};
      if (Array.isArray(v))
        return Object.fromEntries(
          v.filter((a) => a && typeof a === 'object' && 'name' in a).map((a: { name: unknown; value?: unknown }) => [String(a.name), a.value ?? null]),
        );
      return v;
    },
    z.record(z.string(), z.unknown()),
  ),
);

/** CodeExec's params (RAGFlow's names and defaults). */
export const CodeExecParams = lazySchema(() =>
  z.looseObject({
    ...executionParamsShape,
    lang: z.preprocess(
      (v) => (v === null || v === undefined || v === '' ? 'python' : typeof v === 'string' ? v.trim().toLowerCase() : v),
      z.enum(['python', 'python3', 'javascript', 'nodejs'], { message: 'lang should be python or javascript' }),
    ),
    script: z.preprocess(
      (v) => (v === null || v === undefined ? DEFAULT_SCRIPT : v),
      z.string().refine((s) => s.trim() !== '', 'Script is required'),
    ),
    arguments: argumentsSchema,
    outputs: z.preprocess((v) => (v === null || v === undefined ? DEFAULT_OUTPUTS : v), z.record(z.string(), z.unknown())),
  }),
);

export type CodeExecParams = z.infer<typeof CodeExecParams>;

/** Outputs CodeExec always sets, besides the declared ones. */
const SYSTEM_OUTPUTS = ['content', 'actual_type', 'raw_result', 'attachments'];

/** The references of one argument: a whole reference (bare or braced), else a template's. */
function argumentRefs(value: unknown): VariableRef[] {
  if (typeof value !== 'string' || !value.trim()) return [];
  const whole = parseRef(value);
  return whole ? [whole] : templateRefs(value);
}

/** An argument's value: a whole reference keeps the value's type (RAGFlow's get_variable_value). */
function argumentValue(ctx: ComponentContext, value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  if (!value.trim()) return null;
  const whole = parseRef(value);
  if (whole && (whole.kind === 'global' || ctx.canvas.has(whole.componentId))) return ctx.resolve(whole) ?? null;
  return ctx.render(value);
}

export const CodeExec: ComponentDef<CodeExecParams> = {
  name: 'CodeExec',
  params: CodeExecParams,
  role: 'plain',
  execution: 'activity',
  outputNames: (p) => [...new Set([...Object.keys(p.outputs), ...SYSTEM_OUTPUTS])],
  inputRefs: (p) => uniqueRefs(Object.values(p.arguments).flatMap(argumentRefs)),
  // Only the arguments hold references: a script's own braces ({x: 1}, f"{a}") are code.
  paramRefs: (p) => Object.entries(p.arguments).flatMap(([name, v]): ParamRef[] => argumentRefs(v).map((ref) => ({ path: ['arguments', name], ref }))),
  tool: {
    meta: () => ({
      name: 'execute_code',
      description:
        'Runs a piece of Python or JavaScript in a sandbox (no network, limited time and memory) and returns what its main function returns, as JSON. ' +
        'Python: define `def main() -> dict:` and return a JSON-serializable value. JavaScript: define `function main()` (or `module.exports = { main }`), which may be async. ' +
        'Use it for calculations, data transformations and checks that are better computed than guessed.',
      parameters: {
        lang: { type: 'string', description: 'The language of the code.', enum: ['python', 'javascript'], default: 'python', required: true },
        script: { type: 'string', description: 'The code, with a main function. Its return value is the result.', required: true },
      },
    }),
  },
  thoughts: () => 'Running a short script to process data.',
  run: (p, ctx): Outcome => {
    const values = Object.fromEntries(Object.entries(p.arguments).map(([name, v]) => [name, argumentValue(ctx, v)]));
    return { ...runToolNode('CodeExec', ctx, { arguments: values }), inputs: values };
  },
  onResult: (_p, _ctx, result) => {
    const outcome = readToolNodeResult(result);
    // A result that breaks the declared outputs' contract fails the node, as in RAGFlow.
    const error = outcome.kind === 'done' ? outcome.outputs._ERROR : undefined;
    return typeof error === 'string' && error ? { kind: 'error', message: error } : outcome;
  },
};
