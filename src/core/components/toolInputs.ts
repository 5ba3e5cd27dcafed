/**
 * What a tool component reads from the canvas through its text params (a search query, an
 * email's fields): the braced references in them. The engine defers the node until those
 * components are on the path. Bare values are not read as references here: `bob@example.com`
 * has the shape of a `component@output` reference, and `paramText` only resolves such a value
 * at run time when the component exists.
 */
import type { VariableRef } from '../dsl/refs';
import { templateRefs, uniqueRefs } from './common';

/** The references in the given text params, without duplicates. */
export function textInputRefs(...texts: Array<string | null | undefined>): VariableRef[] {
  return uniqueRefs(texts.flatMap((t) => templateRefs(t)));
}
