/**
 * Writes web/js/runEvents.js, the web page's copy of the run-event map (the page is plain ES
 * modules without a build step, so it cannot import the map itself):
 *
 *   node --import tsx scripts/webRunEvents.ts
 *
 * test/ui/webRunEvents.test.ts fails when the copy drifts from src/core/engine/eventMap.ts.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { EVENT_DATA, EXTENSION_EVENTS, RAGFLOW_EVENTS, RUN_EVENT_NAMES } from '../src/core/engine/eventMap';

export const WEB_RUN_EVENTS_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../web/js/runEvents.js');

const list = (names: readonly string[]) => `Object.freeze([${names.map((n) => `'${n}'`).join(', ')}])`;

/** The module's text, formatted as the project formats it: the event names and each event's data fields, from the map. */
export async function renderWebRunEvents(): Promise<string> {
  const config = await resolveConfig(WEB_RUN_EVENTS_PATH);
  return format(moduleText(), { ...config, filepath: WEB_RUN_EVENTS_PATH });
}

function moduleText(): string {
  const names = RUN_EVENT_NAMES.map((n) => `  ${n}: '${n}',`).join('\n');
  const fields = RUN_EVENT_NAMES.map((n) => `  ${n}: ${list(Object.keys(EVENT_DATA[n].shape))},`).join('\n');
  return `/**
 * The run events the page reads: a generated copy of src/core/engine/eventMap.ts (do not edit;
 * run \`node --import tsx scripts/webRunEvents.ts\`). test/ui/webRunEvents.test.ts fails when it drifts.
 */

/** Every event name; the page names events through it, so a name the map lacks reads undefined and a test catches it. */
export const EVENT = Object.freeze({
${names}
});

/** RAGFlow's events, then our extensions. */
export const RAGFLOW_EVENTS = ${list(RAGFLOW_EVENTS)};
export const EXTENSION_EVENTS = ${list(EXTENSION_EVENTS)};

/** The fields of each event's \`data\`. */
export const EVENT_FIELDS = Object.freeze({
${fields}
});
`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(WEB_RUN_EVENTS_PATH, await renderWebRunEvents());
  process.stdout.write(`wrote ${path.relative(process.cwd(), WEB_RUN_EVENTS_PATH)}\n`);
}
