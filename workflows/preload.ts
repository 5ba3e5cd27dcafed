/**
 * Libraries every run's workflow code uses, evaluated once per workflow thread and shared by every
 * run instead of once per run (src/io/temporal/bundle.ts). Named by the bundle's `preloadModules`.
 * The exports are referenced so that the bundler keeps the imports: a bare `require('zod')` there
 * is dropped, since zod declares its modules free of side effects (measured: zod was evaluated in
 * every run's first workflow task, ~6 ms of it, bench/orchestration.ts).
 */
import { z } from 'zod';
import { jsonrepair } from 'jsonrepair';

// The sandbox freezes what a preload leaves (its modules' exports, the globals it set), and zod
// fills a few of those in on first use: its settings object (the English messages, the memoizer)
// and whether the sandbox lets it compile parsers. Settle them now, as first use would.
z.config(z.locales.en());
z.config({ memoizer: z.memoizer() });
void z.util.allowsEval.value;

export const PRELOADED: readonly unknown[] = [z, jsonrepair];
