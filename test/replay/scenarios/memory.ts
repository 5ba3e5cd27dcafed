/**
 * Memory (issue 32): a Message with `memory_ids` saves its turn under the message-memory-save
 * patch (a memorySave activity, then memoryExtract for a memory with semantic types), and the
 * memoryExtraction workflow a message added through the API starts.
 */
import { assembleSystemPrompt } from '../../../src/io/knowledge/memoryPrompts';
import { localEmbedding } from '../../../src/io/text/localEmbedding';
import { dsl } from '../../helpers/canvasKit';
import type { RecordingContext, ScenarioSet } from '../scenario';

const EMBD = 'BAAI/bge-small-en-v1.5@Builtin';

async function newMemory(ctx: RecordingContext, name: string) {
  return ctx.store.memories.create({
    tenantId: ctx.tenantId,
    name: `${name} ${Date.now()}`,
    memoryType: 0b0011,
    embdId: EMBD,
    llmId: 'glm-4@ZHIPU-AI',
    systemPrompt: assembleSystemPrompt(['raw', 'semantic']),
  });
}

const memoryScenarios: ScenarioSet = ({ llm }) => {
  llm.whenPromptIncludes('Memory Extraction Specialist', { content: '{"semantic": [{"content": "The user likes tea", "valid_at": "", "invalid_at": ""}]}' });
  return {
    'message-memory-save': {
      canvas: async (ctx) => {
        const memory = await newMemory(ctx, 'recorded memory');
        return dsl({
          begin: { name: 'Begin', downstream: ['Message:m'] },
          'Message:m': { name: 'Message', params: { content: ['Noted: {sys.query}'], memory_ids: [memory.id] } },
        });
      },
      query: 'I like tea',
    },
    'memory-extraction': {
      async start(ctx) {
        const memory = await newMemory(ctx, 'recorded extraction');
        const content = 'User Input: I like tea\nAgent Response: Noted.';
        const embedding = localEmbedding(content);
        const saved = await ctx.store.memories.messages.save(ctx.tenantId, memory.id, [
          {
            messageType: 'raw',
            sourceId: 0,
            userId: '',
            agentId: 'a',
            sessionId: 's',
            content,
            embedding,
            validAt: '2026-01-01 00:00:00',
            invalidAt: null,
            size: 100,
          },
        ]);
        const workflowId = `memory-extract-${memory.id}-${saved.messageIds[0]}`;
        await ctx.client.workflow.start('memoryExtraction', {
          taskQueue: ctx.launch.taskQueue,
          workflowId,
          args: [
            {
              tenantId: ctx.tenantId,
              memoryId: memory.id,
              sourceId: saved.messageIds[0]!,
              turn: { userId: '', agentId: 'a', sessionId: 's', userInput: 'I like tea', agentResponse: 'Noted.' },
            },
          ],
        });
        return { workflowId };
      },
    },
  };
};

export default memoryScenarios;
