/**
 * The Begin inputs a turn starts with, checked before anything is started: the form's rules
 * (forms.ts, the same ones UserFillUp answers get) applied to what Begin will take. RAGFlow asks
 * for Begin's form when a session starts, so a missing or blank required field is refused on a
 * session's first turn only; later turns may send inputs again, and those are checked by type.
 * Webhook-mode canvases take the request instead of a form. Pure.
 */
import { checkForm, type FormCheck } from './forms';
import type { FormFieldSpec } from './definition';

/** What Begin's params say about its form (the compiled `begin` node's params). */
export interface BeginForm {
  mode?: string;
  inputs?: Readonly<Record<string, FormFieldSpec>>;
}

export interface BeginTurn {
  inputs: Readonly<Record<string, unknown>> | null;
  /** `sys.query`: Begin takes it as its fields when no inputs are sent (see beginSubmission). */
  query: unknown;
  /** The session has had no turn yet: Begin's form must be filled in. */
  firstTurn: boolean;
}

/**
 * What Begin takes as its values: the submitted inputs; when none were sent, the query — an
 * object's keys that are fields of the form, or a value for the form's only field.
 */
export function beginSubmission(
  form: Readonly<Record<string, unknown>>,
  inputs: Readonly<Record<string, unknown>> | null,
  query: unknown,
): Record<string, unknown> {
  if (inputs && Object.keys(inputs).length > 0) return { ...inputs };
  const fields = Object.keys(form);
  if (fields.length === 0 || query === undefined || query === null || query === '') return {};
  if (typeof query === 'object' && !Array.isArray(query)) {
    return Object.fromEntries(Object.entries(query as Record<string, unknown>).filter(([k]) => k in form));
  }
  return fields.length === 1 ? { [fields[0]!]: query } : {};
}

/**
 * Checks a turn's Begin inputs against Begin's form: on the first turn every required field must
 * be there and non-blank; on any turn each value sent must be of its field's type. Keys the form
 * does not declare pass through (Begin hands every input on).
 */
export function checkBeginTurn(begin: BeginForm, turn: BeginTurn): FormCheck {
  const form = begin.inputs ?? {};
  const sent = turn.inputs ?? {};
  if (String(begin.mode ?? '').toLowerCase() === 'webhook') return { ok: true, values: { ...sent } };
  if (!turn.firstTurn && Object.keys(sent).length === 0) return { ok: true, values: {} };
  const submitted = beginSubmission(form, turn.inputs, turn.query);
  return checkForm(form, submitted, { allowUnknown: true, requiredOptional: !turn.firstTurn, strict: true });
}
