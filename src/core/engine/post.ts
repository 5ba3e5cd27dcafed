/**
 * Post-processing of a batch, RAGFlow's loop after `_run_batch`, one component at a time:
 * Messages render and stream their content, errors take their exception branch, `node_finished`
 * is emitted (a streaming model's only after the Message that showed it), and the path grows.
 * It can stop half-way to wait for a stream; the cursor in the phase says where to go on.
 */
import { pyJson, splitTemplate, type TemplatePart } from '../dsl/refs';
import { downloadInfos, isAttachment, publicDownload } from '../components/files';
import { speakOutcome, TTS_NOT_CONFIGURED } from '../components/Message';
import { makeContext, resolveRef } from './context';
import { saveToMemory } from './memorySave';
import { nodeFinishedData, type EventData } from './runEvents';
import type { MessageCursor } from './state';
import { applyOutcome, hasOpenCalls, type Step } from './step';

type Progress = 'done' | 'wait';

/** RAGFlow's Message stringification of a referenced value (a file's download info shows as nothing: it is a download). */
function messageText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (isAttachment(v)) return '';
  const downloads = downloadInfos(v);
  if (downloads.length > 0)
    return downloads.some((d) => d.include_download_info_in_content)
      ? pyJson(downloads.length === 1 && !Array.isArray(v) ? publicDownload(downloads[0]!) : downloads.map(publicDownload))
      : '';
  return typeof v === 'string' ? v : pyJson(v);
}

/** RAGFlow loads a canvas whose edges name missing components (compile.ts); the run that takes one fails here. */
export function missingComponentError(id: string): string {
  return `The run went to component "${id}", which does not exist in the canvas (a downstream, branch or exception_goto names it)`;
}

function appendPath(step: Step, id: string): void {
  if (!step.canvas.nodes[id]) {
    step.state.error ??= missingComponentError(id);
    return;
  }
  const path = step.state.path;
  if (path[path.length - 1] !== id) path.push(id);
}

function emitFinished(step: Step, id: string): void {
  step.sink.emit('node_finished', nodeFinishedData(step.canvas, step.state, id, step.now));
}

function flushPartials(step: Step): void {
  const { state } = step;
  while (
    state.display.awaitingRender.length > 0 &&
    !state.calls.deferred[state.display.awaitingRender[0]!] &&
    !hasOpenCalls(state, state.display.awaitingRender[0]!)
  )
    emitFinished(step, state.display.awaitingRender.shift()!);
}

/**
 * The files a Message's template references: RAGFlow's `downloads` (DocGenerator's download
 * info) and `attachment` (an ExcelProcessor output's `{doc_id, format, file_name}`).
 */
function messageFiles(step: Step, parts: TemplatePart[]): { downloads: Array<Record<string, unknown>>; attachment: Record<string, unknown> | null } {
  const downloads: Array<Record<string, unknown>> = [];
  let attachment: Record<string, unknown> | null = null;
  for (const part of parts) {
    if (part.kind !== 'ref') continue;
    let v: unknown;
    try {
      v = resolveRef(step.canvas, step.state, part.ref);
    } catch {
      continue;
    }
    for (const d of downloadInfos(v)) downloads.push(publicDownload(d));
    if (!attachment && isAttachment(v)) attachment = { ...v };
  }
  return { downloads, attachment };
}

function messageEnd(step: Step, id: string, files: ReturnType<typeof messageFiles> | null = null): EventData<'message_end'> {
  const data: EventData<'message_end'> = {};
  const status = (step.canvas.nodes[id]!.params as { status?: unknown }).status;
  if (typeof status === 'string' && status) data.status = status;
  if (files?.attachment) data.attachment = files.attachment;
  if (files && files.downloads.length > 0) data.downloads = files.downloads;
  const ref = step.state.reference;
  if (Object.keys(ref.chunks).length > 0 || Object.keys(ref.doc_aggs).length > 0) data.reference = ref;
  return data;
}

/** Starts the planned answer of `producer` in stream mode (its model calls stream into slots). */
function startStream(step: Step, cursor: MessageCursor, producer: string): void {
  const planned = step.state.calls.deferred[producer]!;
  delete step.state.calls.deferred[producer];
  cursor.awaiting = producer;
  applyOutcome(step, producer, planned.outcome, 'stream');
}

/** The awaited producer is done (answered, defaulted or failed): take its content into the Message. */
function finishAwaited(step: Step, cursor: MessageCursor): void {
  const { state } = step;
  const producer = cursor.awaiting!;
  const ns = state.nodes[producer];
  const failed = ns?.status === 'failed';
  const content = failed ? '' : messageText(state.outputs[producer]?.content);
  // Tokens were written by the activity; a default value standing in for a failure was not.
  if (ns?.defaulted && content) step.sink.emit('message', { content });
  if (failed) state.error ??= ns!.error;
  cursor.content += content;
  cursor.inputs[`${producer}@content`] = content;
  cursor.index += 1;
  cursor.awaiting = null;
}

/** Renders a Message's template from where the cursor stands; stops while a stream is open. */
function render(step: Step, cursor: MessageCursor): Progress {
  const { canvas, state } = step;
  if (cursor.awaiting) {
    if (hasOpenCalls(state, cursor.awaiting)) return 'wait';
    finishAwaited(step, cursor);
  }
  while (cursor.index < cursor.parts.length) {
    const part = cursor.parts[cursor.index]!;
    if (part.kind === 'text') {
      if (part.text) step.sink.emit('message', { content: part.text });
      cursor.content += part.text;
      cursor.index += 1;
      continue;
    }
    const ref = part.ref;
    if (ref.kind === 'component' && state.calls.deferred[ref.componentId] && ref.output === 'content' && ref.path.length === 0) {
      startStream(step, cursor, ref.componentId);
      if (hasOpenCalls(state, ref.componentId)) return 'wait';
      finishAwaited(step, cursor);
      continue;
    }
    let text: string;
    try {
      text = messageText(resolveRef(canvas, state, ref));
    } catch {
      text = '';
    }
    if (text) step.sink.emit('message', { content: text });
    cursor.content += text;
    cursor.inputs[ref.expr] = text;
    cursor.index += 1;
  }
  return 'done';
}

/**
 * A Message with `auto_play`: after its text, a `speak` call writes the audio event into a slot of
 * the log (RAGFlow's TTS). Runs that do not make speech (started before the feature, or in
 * process) note why in the Message's `tts` output. True while the call is out.
 */
function speak(step: Step, id: string, cursor: MessageCursor): boolean {
  const { state } = step;
  if ((step.canvas.nodes[id]!.params as { auto_play?: unknown }).auto_play !== true) return false;
  if (!state.speech) {
    state.outputs[id] = { ...state.outputs[id], tts: TTS_NOT_CONFIGURED };
    return false;
  }
  if (!cursor.speech) {
    cursor.speech = 'asked';
    const slot = { runId: state.runId, messageId: state.messageId, seq: step.sink.reserve(), createdAt: state.createdAt };
    applyOutcome(step, id, speakOutcome(cursor.content, slot));
  }
  return hasOpenCalls(state, id);
}

/** Post-processes path[i] of the batch. */
function postOne(step: Step, i: number, phase: { cursor: MessageCursor | null }): Progress {
  const { canvas, state } = step;
  const id = state.path[i]!;
  const node = canvas.nodes[id]!;
  const ns = state.nodes[id]!;

  if ((node.role === 'message' || node.role === 'answer') && ns.status !== 'failed') {
    if (!phase.cursor) {
      const template = node.def.messageTemplate?.(node.params, makeContext(canvas, state, id, i)) ?? '';
      phase.cursor = { componentId: id, parts: splitTemplate(template), index: 0, content: '', inputs: {}, awaiting: null };
    }
    if (render(step, phase.cursor) === 'wait') return 'wait';
    if (speak(step, id, phase.cursor)) return 'wait';
    if (saveToMemory(step, id, i, phase.cursor)) return 'wait';
    const files = messageFiles(step, phase.cursor.parts);
    state.outputs[id] = {
      ...state.outputs[id],
      content: phase.cursor.content,
      downloads: files.downloads,
      ...(files.attachment ? { attachment: files.attachment } : {}),
    };
    state.display.shownText += phase.cursor.content;
    state.nodeInputs[id] = phase.cursor.inputs;
    phase.cursor = null;
    step.sink.emit('message_end', messageEnd(step, id, files));
    flushPartials(step);
  }

  let otherBranch = false;
  if (ns.status === 'failed') {
    const p = node.params;
    if (p.exception_method && p.exception_goto.length > 0) {
      const missing = p.exception_goto.find((g) => !canvas.nodes[g]);
      if (missing) state.error ??= missingComponentError(missing);
      else state.path.push(...p.exception_goto);
      otherBranch = true;
    } else if (p.exception_method && p.exception_default_value) {
      step.sink.emit('message', { content: p.exception_default_value });
      step.sink.emit('message_end', {});
      state.display.shownText += p.exception_default_value;
    } else {
      state.error ??= ns.error;
    }
  }

  if (state.calls.deferred[id]) {
    if (state.error) {
      delete state.calls.deferred[id];
      state.outputs[id] = { ...state.outputs[id], content: null };
      emitFinished(step, id);
    } else {
      state.display.awaitingRender.push(id);
    }
  } else if (node.role !== 'container' || ns.status === 'failed') {
    // A loop's node_finished comes when the loop is over (RAGFlow), unless it could not start.
    emitFinished(step, id);
  }

  if (otherBranch) return 'done';
  extendPath(step, id, ns.status === 'failed');
  return 'done';
}

/** Ends the loop `loopId`: its node_finished, then the run goes on with its downstream. */
function leaveLoop(step: Step, loopId: string): void {
  const { canvas, state } = step;
  for (const child of canvas.view.childrenOf(loopId)) if (canvas.nodes[child]?.role === 'loopItem') state.loops[child] = -1;
  emitFinished(step, loopId);
  for (const d of canvas.nodes[loopId]!.downstream) appendPath(step, d);
}

/** Where the path goes after `id`: RAGFlow's rules, loops included. */
function extendPath(step: Step, id: string, failed: boolean): void {
  const { canvas, state } = step;
  const node = canvas.nodes[id]!;
  const parent = node.parentId;
  if (node.role === 'loopItem' && state.loops[id] === -1) {
    if (parent && canvas.nodes[parent]) leaveLoop(step, parent);
  } else if (node.role === 'router' || (node.role === 'form' && Array.isArray(state.outputs[id]?._next))) {
    // A form that escalated (UserFillUp `escalate_goto`) goes where its `_next` says, as a router does.
    const next = state.outputs[id]?._next;
    for (const n of Array.isArray(next) ? next : []) if (typeof n === 'string') appendPath(step, n);
  } else if (node.role === 'container') {
    // A parallel Iteration ran its items as calls (parallelItems.ts): it is over already.
    if (!failed && (state.nodes[id]?.calls ?? 0) > 0 && node.type === 'Iteration') leaveLoop(step, id);
    else if (!failed && canvas.loopStarts[id]) appendPath(step, canvas.loopStarts[id]!);
  } else if (node.role === 'exitLoop' && parent && canvas.nodes[parent]?.type === 'Loop') {
    leaveLoop(step, parent);
  } else if (node.role === 'answer') {
    // The turn ends here; the next turn of the conversation starts at the downstream.
    state.continueAt = [...node.downstream];
  } else if (node.downstream.length === 0 && parent && canvas.loopStarts[parent]) {
    // The end of a loop body: the next pass (a parallel Iteration's item makes one pass only).
    if (state.lane?.iterationId !== parent) appendPath(step, canvas.loopStarts[parent]!);
  } else {
    for (const d of node.downstream) appendPath(step, d);
  }
}

/** Post-processes the current batch from the phase's cursor on. */
export function postProcess(step: Step): Progress {
  const phase = step.state.cursor.phase;
  if (phase.kind !== 'post') return 'done';
  while (phase.i < phase.to) {
    if (postOne(step, phase.i, phase) === 'wait') return 'wait';
    phase.i += 1;
  }
  return 'done';
}
