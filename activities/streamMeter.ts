/**
 * What a model call has streamed so far, kept per activity context: when a cancel cuts the call,
 * the cost ledger (meteredLlm.ts) records an estimate of what was paid for — the prompt sent and
 * the text streamed — since a provider reports usage only at the end of a stream.
 */
const streamed = new WeakMap<object, { chars: number }>();

/** The meter of the call running in `ctx` (an activity Context), made on first use. */
export function streamMeter(ctx: object): { chars: number } {
  let meter = streamed.get(ctx);
  if (!meter) streamed.set(ctx, (meter = { chars: 0 }));
  return meter;
}
