/**
 * Global setup of the integration tiers (vitest.config.ts): the PGlite template every empty
 * PGlite store of the run starts from (test/helpers/pgliteTemplate.ts). Set in the environment,
 * so test files (forked after this runs) and the server processes they start all see it.
 */
import { makePgliteTemplate } from './helpers/pgliteTemplate';

export default async function setup(): Promise<() => void> {
  if (process.env.PGLITE_TEMPLATE) return () => {};
  const started = Date.now();
  const template = await makePgliteTemplate();
  process.env.PGLITE_TEMPLATE = template.file;
  console.log(`[test setup] PGlite template (migrated) made in ${Date.now() - started} ms`);
  return () => {
    delete process.env.PGLITE_TEMPLATE;
    template.remove();
  };
}
