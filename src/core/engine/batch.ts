/**
 * Running a batch: RAGFlow's `_run_batch`. Every component of path[idx, to) is announced with
 * `node_started`; components whose referenced inputs are not on the path yet are taken off it
 * (they come back when an upstream appends them again); the rest run — inline ones right away,
 * the others by asking for calls. A model answer that will stream into a Message is only
 * planned here; its call happens when the Message renders.
 */
import { makeContext, missingComponentMessage } from './context';
import { nodeStartedData } from './runEvents';
import { applyOutcome, failNode, startNode, type Step } from './step';

/** Whether every component `id` reads from is already on the path (RAGFlow's dependency check). */
function inputsReady(step: Step, id: string, position: number): boolean {
  const node = step.canvas.nodes[id]!;
  const before = new Set(step.state.path.slice(0, position));
  for (const r of step.state.ranBefore) before.add(r);
  for (const ref of node.def.inputRefs(node.params)) {
    // A reference to no component can never become ready: the component runs and fails reading
    // it, as in RAGFlow, rather than being deferred for ever (never run, never reported).
    if (ref.kind !== 'component' || ref.componentId === id || !step.canvas.view.has(ref.componentId)) continue;
    if (!before.has(ref.componentId)) return false;
  }
  return true;
}

function thoughts(step: Step, id: string, position: number): string {
  const node = step.canvas.nodes[id]!;
  try {
    return node.def.thoughts(node.params, makeContext(step.canvas, step.state, id, position));
  } catch {
    return '';
  }
}

/**
 * The first input naming no component. RAGFlow's dependency check reads every input's value and
 * raises "Can't find variable" on such a one, so the component fails before it runs — also one
 * (a Message) whose rendering would otherwise read it as "".
 */
function missingInput(step: Step, id: string): string | null {
  const node = step.canvas.nodes[id]!;
  for (const ref of node.def.inputRefs(node.params)) {
    if (ref.kind === 'component' && !step.canvas.view.has(ref.componentId)) return missingComponentMessage(ref.expr, ref.componentId);
  }
  return null;
}

/** Runs one component of the batch. */
function invoke(step: Step, id: string, position: number): void {
  const { canvas, state } = step;
  const node = canvas.nodes[id]!;
  startNode(step, id);
  const missing = missingInput(step, id);
  if (missing) {
    failNode(step, id, missing);
    return;
  }
  const ctx = makeContext(canvas, state, id, position);
  let outcome;
  try {
    outcome = node.def.run(node.params, ctx);
  } catch (err) {
    failNode(step, id, err instanceof Error ? err.message : String(err));
    return;
  }
  if (node.role === 'loopItem' && outcome.kind === 'done') {
    // The pass counter lives in the run state; -1 marks the loop as over for post-processing.
    state.loops[id] = outcome.loopEnd ? -1 : Math.max(0, state.loops[id] ?? 0) + 1;
  }
  if (node.role === 'container') {
    // A loop entered (again) starts from its first pass.
    for (const child of canvas.view.childrenOf(id)) if (canvas.nodes[child]?.role === 'loopItem') delete state.loops[child];
  }
  if ((outcome.kind === 'call' || outcome.kind === 'calls') && canvas.streaming.has(id)) {
    // Planned now, with the values of now (RAGFlow captures the prompt in a partial); carried
    // out when the Message that shows it renders.
    state.calls.deferred[id] = { outcome };
    if (outcome.inputs) state.nodeInputs[id] = outcome.inputs;
    state.nodes[id]!.status = 'streaming';
    return;
  }
  applyOutcome(step, id, outcome);
}

/** Starts the batch path[idx, end); returns the batch end after deferrals. */
export function startBatch(step: Step): number {
  const { canvas, state } = step;
  let to = state.path.length;
  for (let i = state.cursor.position; i < to; i++) {
    const id = state.path[i]!;
    step.sink.emit('node_started', nodeStartedData(canvas, id, thoughts(step, id, i), step.now));
  }
  let i = state.cursor.position;
  let formsRan = false;
  while (i < to) {
    const id = state.path[i]!;
    const role = canvas.nodes[id]!.role;
    // Begin and forms take the run's inputs, not other components' outputs: never deferred.
    if (role !== 'begin' && role !== 'form' && !inputsReady(step, id, i)) {
      state.path.splice(i, 1);
      to -= 1;
      continue;
    }
    invoke(step, id, i);
    if (role === 'form') formsRan = true;
    i += 1;
  }
  if (formsRan) {
    // The submitted values (or the expiry) were for this pause only; a later pass asks again.
    state.form.submitted = null;
    state.form.expired = null;
    if (state.form.escalated) state.form.escalated = null;
  }
  return to;
}
