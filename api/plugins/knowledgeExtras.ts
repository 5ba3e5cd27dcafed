/** RAGFlow's dataset side routes: metadata, tags, ingestion logs, indexes (filled in below). */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps';

export async function metadataRoutes(_app: FastifyInstance, _deps: AppDeps): Promise<void> {}
