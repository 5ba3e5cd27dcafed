/**
 * Schemas built on first use. Workflow code runs in reusable V8 contexts that evaluate our
 * modules anew for every workflow, so a schema built at module scope costs every run, whether or
 * not its canvas uses it (building a zod object schema is far dearer than parsing with it). A
 * `lazySchema(() => z.looseObject({...}))` is built the first time anything reads it (a parse, a
 * nested use in another schema) and then memoized for the life of the module.
 *
 * The value stands in for the schema itself (a proxy that forwards to it), so callers, nested
 * schemas and `z.infer<typeof X>` are unchanged. Keep the factory pure: it may run at any time.
 */
import type { z } from 'zod';

export function lazySchema<T extends z.ZodType>(build: () => T): T {
  let schema: T | undefined;
  const real = (): T => (schema ??= build());
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key, real()),
    set: (_, key, value) => Reflect.set(real(), key, value),
    has: (_, key) => Reflect.has(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}
