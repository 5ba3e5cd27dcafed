/**
 * Indexing one document as a workflow, so a large upload never blocks the API and survives
 * worker restarts: the activity reports progress on the document and heartbeats; failures that
 * are not worth retrying (an unreadable file) end the document FAIL, a cancel ends it CANCEL.
 */
import { proxyActivities, setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/activityTypes';
import { withDocumentOutcome } from './documentOutcome';

const indexing = proxyActivities<Activities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
});

export interface IndexDocumentInput {
  tenantId: string;
  documentId: string;
}

export function indexWorkflowId(documentId: string): string {
  return `index-document-${documentId}`;
}

export async function indexDocument(input: IndexDocumentInput): Promise<{ chunks: number; tokens: number } | null> {
  return withDocumentOutcome(input, () => indexing.indexDocument(input));
}

// Auto-upgrade: its commands are the two written above, not a compiled canvas, and the retry of a
// long indexing activity should run the fixed code of a new version (docs/ARCHITECTURE.md, "Deploying workflow changes").
setWorkflowOptions(() => (workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'AUTO_UPGRADE' } : {}), indexDocument);
