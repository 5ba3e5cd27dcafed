/**
 * Builds the HTTP API (without listening): one plugin per resource, one error handler, bearer
 * auth, zod request validation and the OpenAPI document.
 */
import { answerPyFloats } from './pyFloats';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { EXTENSION_EVENTS, RAGFLOW_EVENTS } from '../src/core/engine/eventMap';
import { installAuth } from './auth';
import { runEventSchemas } from './eventSchemas';
import type { AppDeps } from './deps';
import { installErrorHandler } from './errorHandler';
import { DEFAULT_HTTP_LIMITS, limitConnections, serverOptions } from './httpLimits';
import { installRequestGuard } from './requestGuard';
import { agentsPlugin } from './plugins/agents';
import { apiKeysPlugin } from './plugins/apiKeys';
import { canvasesPlugin } from './plugins/canvases';
import { completionsPlugin } from './plugins/completions';
import { conversationsPlugin } from './plugins/conversations';
import { demoModelPlugin } from './plugins/demoModel';
import { healthPlugin } from './plugins/health';
import { datasetsPlugin } from './plugins/datasets';
import { docsPlugin } from './plugins/docs';
import { documentsPlugin } from './plugins/documents';
import { chunksPlugin } from './plugins/chunks';
import { filesPlugin } from './plugins/files';
import { mcpServersPlugin } from './plugins/mcpServers';
import { memoriesPlugin } from './plugins/memories';
import { memoryMessagesPlugin } from './plugins/memoryMessages';
import { retrievalPlugin } from './plugins/retrieval';
import { metaPlugin } from './plugins/meta';
import { metricsPlugin } from './plugins/metrics';
import { openAiPlugin } from './plugins/openai';
import { runsPlugin } from './plugins/runs';
import { runCallsPlugin } from './plugins/runCalls';
import { runsIndexPlugin } from './plugins/runsIndex';
import { runStreamPlugin } from './plugins/runStream';
import { travelPlugin } from './plugins/travel';
import { evalsPlugin } from './plugins/evals';
import { sessionsPlugin } from './plugins/sessions';
import { sessionReleasePlugin } from './plugins/sessionRelease';
import { tasksPlugin } from './plugins/tasks';
import { uiPlugin } from './plugins/ui';
import { usagePlugin } from './plugins/usage';
import { schedulesPlugin } from './plugins/schedules';
import { webhookPlugin } from './plugins/webhook';

export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const limits = deps.httpLimits ?? DEFAULT_HTTP_LIMITS;
  const app = Fastify({ logger: false, bodyLimit: deps.bodyLimit ?? DEFAULT_BODY_LIMIT, return503OnClosing: true, ...serverOptions(limits) });
  limitConnections(app.server, limits);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app, deps.log);
  installRequestGuard(app);
  // parser_config's float fields go out as Python writes them (`2.0`), see pyFloats.ts.
  answerPyFloats(app);
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'agent-canvas API',
        version: '0.1.0',
        description:
          'RAGFlow-compatible agent canvases run as durable Temporal workflows. Routes under /api/v1/agents, /api/v1/tasks keep RAGFlow’s envelope ({code, data}, HTTP 200); /api/v1/runs, /v1/chat/completions and /health are our own and use HTTP status codes. ' +
          `Events (schemas: RunEvent): RAGFlow’s ${RAGFLOW_EVENTS.join(', ')}, plus the extensions ${EXTENSION_EVENTS.join(', ')}.`,
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, schemas: runEventSchemas() },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  installAuth(app, deps.store, { failureLimit: limits.authFailureLimit, failureWindowMs: limits.authFailureWindowMs });
  app.addHook('onRequest', async (request) => {
    const started = process.hrtime.bigint();
    request.raw.once('close', () => {
      deps.log.debug('request', { method: request.method, url: request.url.split('?')[0], ms: Number(process.hrtime.bigint() - started) / 1e6 });
    });
  });
  const plugins = [
    healthPlugin,
    metricsPlugin,
    metaPlugin,
    canvasesPlugin,
    agentsPlugin,
    sessionsPlugin,
    conversationsPlugin,
    completionsPlugin,
    tasksPlugin,
    runsPlugin,
    runCallsPlugin,
    runsIndexPlugin,
    runStreamPlugin,
    travelPlugin,
    evalsPlugin,
    openAiPlugin,
    mcpServersPlugin,
    memoriesPlugin,
    memoryMessagesPlugin,
    datasetsPlugin,
    documentsPlugin,
    chunksPlugin,
    retrievalPlugin,
    webhookPlugin,
    apiKeysPlugin,
    usagePlugin,
    schedulesPlugin,
    uiPlugin,
  ];
  for (const plugin of plugins) await app.register(async (scope) => plugin(scope, deps));
  await app.register(async (scope) => sessionReleasePlugin(scope, deps));
  await app.register(async (scope) => filesPlugin(scope, deps));
  await app.register(async (scope) => docsPlugin(scope));
  if (deps.demoModel) await app.register(async (scope) => demoModelPlugin(scope));
  return app;
}
