/**
 * The I/O pipeline steps may do, built from what a worker has: the document's bytes from the
 * store, chat models resolved as every other model call is (`llm_id` → provider table or gateway;
 * "" is the tenant default, DEFAULT_LLM_ID), and the dataset's embedding model. Retries are the
 * carrier's (Temporal activities): the clients here never retry on their own.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { AppError } from '../../../errors';
import { clientFor } from '../../llm/client';
import { describeImage, transcribe } from '../../llm/media';
import { classifyLlmError } from '../../llm/errors';
import { resolveModel, type LlmSettings } from '../../llm/providers';
import type { Store } from '../../store/contract';
import { embedderFor, type EmbeddingSettings } from '../embedder';
import type { PipelineChatRequest, PipelineServices } from './contract';

export interface PipelineServiceDeps {
  store: Pick<Store, 'knowledge'>;
  llm: LlmSettings;
  embedding: EmbeddingSettings;
}

export interface PipelineServiceScope {
  tenantId: string;
  /** The dataset's embedding model (`embedding_model`). */
  embeddingModel: string;
  /** Where step progress goes (the carrier heartbeats and updates the document). */
  progress?: (fraction: number, message: string) => void;
}

function messagesOf(request: PipelineChatRequest): ChatCompletionMessageParam[] {
  const rest = request.messages ?? [{ role: 'user' as const, content: request.user }];
  return [...(request.system.trim() ? [{ role: 'system' as const, content: request.system }] : []), ...rest];
}

/**
 * Runs `fn` with a signal of its own that follows `signal`, detached afterwards: a step makes
 * hundreds of calls under one signal, and a client that leaves its abort listener on it would
 * pile them up.
 */
async function linked<T>(signal: AbortSignal, fn: (own: AbortSignal) => Promise<T>): Promise<T> {
  const own = new AbortController();
  const follow = () => own.abort(signal.reason);
  if (signal.aborted) own.abort(signal.reason);
  else signal.addEventListener('abort', follow, { once: true });
  try {
    return await fn(own.signal);
  } finally {
    signal.removeEventListener('abort', follow);
  }
}

/** One chat completion (not streamed: a pipeline shows no tokens). */
export async function pipelineChat(settings: LlmSettings, request: PipelineChatRequest, signal: AbortSignal): Promise<string> {
  const target = resolveModel(request.llmId, settings);
  try {
    const res = await linked(signal, (own) =>
      clientFor(target).chat.completions.create(
        {
          model: target.model,
          messages: messagesOf(request),
          ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
          ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
          ...(request.topP !== undefined ? { top_p: request.topP } : {}),
          ...(request.presencePenalty !== undefined ? { presence_penalty: request.presencePenalty } : {}),
          ...(request.frequencyPenalty !== undefined ? { frequency_penalty: request.frequencyPenalty } : {}),
        },
        { signal: own },
      ),
    );
    return res.choices[0]?.message?.content ?? '';
  } catch (err) {
    if (signal.aborted) throw signal.reason ?? err;
    throw classifyLlmError(err, target.factory);
  }
}

export function createPipelineServices(deps: PipelineServiceDeps, scope: PipelineServiceScope): PipelineServices {
  const embedder = embedderFor(scope.embeddingModel, deps.embedding);
  return {
    tenantId: scope.tenantId,
    async readFile(fileId) {
      const bytes = await deps.store.knowledge.documents.content(fileId);
      if (!bytes) throw new AppError('NOT_FOUND', `The file of document ${fileId} is missing`);
      return bytes;
    },
    async readTagFile(id) {
      const doc = await deps.store.knowledge.documents.get(scope.tenantId, id);
      const bytes = doc ? await deps.store.knowledge.documents.content(doc.id) : null;
      return doc && bytes ? { name: doc.name, bytes } : null;
    },
    chat: (request, signal) => pipelineChat(deps.llm, request, signal),
    describeImage: (request, signal) => linked(signal, (own) => describeImage(deps.llm, request, own)),
    transcribe: (request, signal) => linked(signal, (own) => transcribe(deps.llm, request, own)),
    embed: (texts, signal) => linked(signal, (own) => embedder.embed(texts, own)),
    progress: (fraction, message) => scope.progress?.(fraction, message),
  };
}
