/**
 * The run events in the OpenAPI document: one schema per event (`RunEvent.<name>`) and `RunEvent`,
 * their union discriminated by `event`, generated from the event map
 * (src/core/engine/eventMap.ts). The event streams (`/api/v1/runs/{task_id}/events`, the
 * completion routes with `stream: true`) send these as SSE `data:` lines.
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { z } from 'zod';
import { EVENT_DATA, EventEnvelope, EXTENSION_EVENTS, RAGFLOW_EVENTS, RUN_EVENT_NAMES } from '../src/core/engine/eventMap';

/** The OpenAPI document's `components.schemas`, as the swagger plugin types it. */
type SchemaObject = Exclude<NonNullable<NonNullable<NonNullable<FastifyDynamicSwaggerOptions['openapi']>['components']>['schemas']>[string], { $ref: string }>;
type ComponentSchemas = Record<string, SchemaObject>;

/** An event as a stream sends it: its position (seq, sub) is the SSE `id:` line (`<seq>-<sub>`), not a field. */
const WireEnvelope = EventEnvelope.omit({ seq: true, sub: true }).extend({
  session_id: z.string().optional().describe('the session of the run (RAGFlow-compatible routes, and runs of a session)'),
});

const ref = (name: string) => `#/components/schemas/RunEvent.${name}`;

export function runEventSchemas(): ComponentSchemas {
  const schemas: Record<string, object> = {};
  for (const name of RUN_EVENT_NAMES) {
    const event = WireEnvelope.extend({ event: z.literal(name), data: EVENT_DATA[name] }).describe(EVENT_DATA[name].description ?? name);
    schemas[`RunEvent.${name}`] = z.toJSONSchema(event, { target: 'openapi-3.0' });
  }
  schemas.RunEvent = {
    description: `A run event (SSE data). RAGFlow’s: ${RAGFLOW_EVENTS.join(', ')}; our extensions: ${EXTENSION_EVENTS.join(', ')}. The RAGFlow-compatible routes add session_id.`,
    oneOf: RUN_EVENT_NAMES.map((n) => ({ $ref: ref(n) })),
    discriminator: { propertyName: 'event', mapping: Object.fromEntries(RUN_EVENT_NAMES.map((n) => [n, ref(n)])) },
  };
  // zod's JSON Schema (target openapi-3.0) is an OpenAPI schema object; its own type does not say so.
  return schemas as ComponentSchemas;
}
