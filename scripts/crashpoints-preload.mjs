// Preloaded into the crash-point harness's worker process after tsx (`node --import tsx --import
// ./scripts/crashpoints-preload.mjs server/main.ts`): loads the hook (crashpoints/hook.ts) in the main thread
// only. Workflow threads inherit the --import flags but not tsx's loader, and need no hook.
import { isMainThread } from 'node:worker_threads';

if (isMainThread && process.env.CRASHPOINT_DIR) await import('./crashpoints/hook.ts');
