/** A replay's per-component diff against its source (time travel): answer text and tool calls chosen, from each run's node_finished events. */
import type { RunEvent } from './runEvents';

export interface NodeAnswer {
  answer: string | null;
  tools: string[];
}

export interface ReplayDiff {
  answers_changed: number;
  tool_choices_changed: number;
  nodes: { component_id: string; answer_changed: boolean; tools_changed: boolean; source: NodeAnswer; replay: NodeAnswer }[];
}

/** Each component's last answer and the tools it chose, by component id. */
export function answersOf(events: readonly RunEvent[]): Map<string, NodeAnswer> {
  const out = new Map<string, NodeAnswer>();
  for (const e of events) {
    if (e.event !== 'node_finished') continue;
    const d = e.data as { component_id: string; outputs?: { content?: unknown; use_tools?: Array<{ name?: string; tool_name?: string }> } };
    const content = d.outputs?.content;
    out.set(d.component_id, {
      answer: content === undefined || content === null ? null : typeof content === 'string' ? content : JSON.stringify(content),
      tools: (d.outputs?.use_tools ?? []).map((t) => String(t.name ?? t.tool_name ?? '')),
    });
  }
  return out;
}

export function diffRuns(source: readonly RunEvent[], replay: readonly RunEvent[]): ReplayDiff {
  const [before, after] = [answersOf(source), answersOf(replay)];
  const none: NodeAnswer = { answer: null, tools: [] };
  const nodes = [...new Set([...before.keys(), ...after.keys()])].map((id) => {
    const b = before.get(id) ?? none;
    const a = after.get(id) ?? none;
    return {
      component_id: id,
      answer_changed: b.answer !== a.answer,
      tools_changed: JSON.stringify(b.tools) !== JSON.stringify(a.tools),
      source: b,
      replay: a,
    };
  });
  return { answers_changed: nodes.filter((n) => n.answer_changed).length, tool_choices_changed: nodes.filter((n) => n.tools_changed).length, nodes };
}
