/**
 * The extraction of a message added through `POST /api/v1/messages` (RAGFlow queues it as a
 * task): the memory's LLM extracts semantic, episodic or procedural items from the saved raw
 * message, retried by this workflow's activity policy, durable across worker restarts.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/activityTypes';
import type { ExtractMemoryInput } from '../activities/memory';

const extraction = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
});

export function memoryExtractionWorkflowId(memoryId: string, sourceId: number): string {
  return `memory-extract-${memoryId}-${sourceId}`;
}

export async function memoryExtraction(input: ExtractMemoryInput): Promise<{ extracted: number; note?: string }> {
  return extraction.extractMemory(input);
}
