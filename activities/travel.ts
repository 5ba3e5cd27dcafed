/**
 * Time travel's activity: a fork's workflow loads the snapshot it starts from (its input names
 * it), so the state crosses history once, as a continue-as-new checkpoint does, and no snapshot
 * of the source run ever travels through the source's history (docs/ARCHITECTURE.md, "Time travel").
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { diffRuns } from '../src/core/engine/replayDiff';
import { clientFor } from '../src/io/llm/client';
import { resolveModel, type LlmSettings } from '../src/io/llm/providers';
import type { CallResult } from '../src/core/engine';
import type { RunState } from '../src/core/engine/state';
import type { Store } from '../src/io/store/contract';

export interface LoadForkSnapshotInput {
  sourceRunId: string;
  position: number;
}

export interface FrozenCallInput {
  sourceRunId: string;
  componentId: string;
  /** The call's order among the component's tool calls in this run. */
  index: number;
  callId: string;
  activity: string;
}

/** The failure type of a replayed tool call the source run never made. */
export const REPLAY_NO_SUCH_CALL = 'REPLAY_NO_SUCH_CALL';

export interface EvalRunReport {
  source: string;
  replay: string;
  status: string;
  answers_changed: number;
  tool_choices_changed: number;
  tokens_before: number;
  tokens_after: number;
  /** The judge model's verdict on the two final answers (null without a judge). */
  judge: string | null;
}

export interface EvalReport {
  runs: EvalRunReport[];
  overall: {
    runs: number;
    answers_changed: number;
    runs_with_changed_answers: number;
    tool_choices_changed: number;
    tokens_before: number;
    tokens_after: number;
  };
}

const tokensOf = (result: Record<string, unknown> | null) => Number((result?.usage as { total_tokens?: unknown } | undefined)?.total_tokens ?? 0);
const contentOf = (result: Record<string, unknown> | null) => String(result?.content ?? '');

export function createTravelActivities(deps: { store: Store; llm: LlmSettings }) {
  /** Asks the judge whether the replay's answer is as good as the source's; its reply is the verdict. */
  const judge = async (llmId: string, question: string, before: string, after: string): Promise<string> => {
    const model = resolveModel(llmId, deps.llm);
    const reply = await clientFor(model).chat.completions.create({
      model: model.model,
      messages: [
        {
          role: 'system',
          content: 'You judge two answers to the same question. Reply SAME, BETTER or WORSE (the second against the first), then one sentence why.',
        },
        { role: 'user', content: `Question: ${question}\n\nFirst answer: ${before}\n\nSecond answer: ${after}` },
      ],
    });
    return reply.choices[0]?.message.content ?? '';
  };
  return {
    /** Compares each replay of an eval with its source, and asks the judge. */
    async summarizeEval(input: { pairs: { source: string; replay: string }[]; judge: string | null }): Promise<EvalReport> {
      const runs: EvalRunReport[] = [];
      for (const p of input.pairs) {
        Context.current().heartbeat(p.replay);
        const [source, replay] = await Promise.all([deps.store.runs.getById(p.source), deps.store.runs.getById(p.replay)]);
        const [a, b] = await Promise.all([deps.store.events.list(p.source, null, 100_000), deps.store.events.list(p.replay, null, 100_000)]);
        const diff = diffRuns(a, b);
        // The question the source answered: its first snapshot holds it (sys.query).
        const first = (await deps.store.travel.listSnapshots(p.source))[0];
        const question = String((first ? await deps.store.travel.getSnapshot(p.source, first.position) : null)?.globals['sys.query'] ?? '');
        runs.push({
          source: p.source,
          replay: p.replay,
          status: replay?.status ?? 'missing',
          answers_changed: diff.answers_changed,
          tool_choices_changed: diff.tool_choices_changed,
          tokens_before: tokensOf(source?.result ?? null),
          tokens_after: tokensOf(replay?.result ?? null),
          judge: input.judge ? await judge(input.judge, question, contentOf(source?.result ?? null), contentOf(replay?.result ?? null)) : null,
        });
      }
      const sum = (f: (r: EvalRunReport) => number) => runs.reduce((n, r) => n + f(r), 0);
      return {
        runs,
        overall: {
          runs: runs.length,
          answers_changed: sum((r) => r.answers_changed),
          runs_with_changed_answers: runs.filter((r) => r.answers_changed > 0).length,
          tool_choices_changed: sum((r) => r.tool_choices_changed),
          tokens_before: sum((r) => r.tokens_before),
          tokens_after: sum((r) => r.tokens_after),
        },
      };
    },
    /** A frozen replay's tool call: what the source's call of the same component and order returned. */
    async frozenCall(input: FrozenCallInput): Promise<CallResult> {
      const e = await deps.store.travel.journalEntry(input.sourceRunId, input.componentId, input.index);
      if (!e || e.activity !== input.activity)
        return {
          callId: input.callId,
          ok: false,
          code: REPLAY_NO_SUCH_CALL,
          error: `replay with tools frozen: the source run ${input.sourceRunId} made no ${input.activity} call #${input.index + 1} for ${input.componentId}, so there is nothing to answer it with (replay with tools "live" to make it)`,
        };
      if (e.ok) return { callId: input.callId, ok: true, value: e.result };
      return { callId: input.callId, ok: false, error: String((e.result as { error?: unknown } | null)?.error ?? 'the source call failed') };
    },

    async loadForkSnapshot(input: LoadForkSnapshotInput): Promise<RunState> {
      const state = await deps.store.travel.getSnapshot(input.sourceRunId, input.position);
      // The API checked it exists before starting the fork; snapshots are never deleted on their own.
      if (!state) throw ApplicationFailure.nonRetryable(`run ${input.sourceRunId} has no snapshot at path position ${input.position}`, 'NOT_FOUND');
      return state;
    },
  };
}
