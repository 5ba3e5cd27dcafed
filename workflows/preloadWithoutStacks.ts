/**
 * The preload (preload.ts) of a worker whose workflow stack traces are off, the default
 * (`WORKER_STACK_TRACES`, src/io/config.ts). The SDK answers the stack-trace query (the Temporal
 * UI's Stack Trace tab, `temporal workflow stack`) from a source-mapped stack it captures for every
 * promise workflow code creates (temporalio/sdk-typescript#1587): measured on Begin → LLM → Message
 * (its two activations that run workflow code, timed at the SDK's thread boundary over 100
 * sequential runs), 3.3 of their 8.7 ms. A sandbox whose `Error.stackTraceLimit` is 0 captures
 * nothing: the query answers no frames, and errors raised by workflow code carry their message
 * without frames (the same engine code run in process, as the unit tests run it, has them). Set
 * here, before the sandbox freezes its globals.
 */
export { PRELOADED } from './preload';

Error.stackTraceLimit = 0;
