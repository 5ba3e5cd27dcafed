/**
 * A migrated PGlite data folder, dumped once per test run (PGLITE_TEMPLATE, src/io/store/store.ts):
 * every empty PGlite store the suite opens afterwards — a harness's in-memory store, a server
 * process's fresh DATA_DIR — starts from it instead of running initdb and every migration again
 * (about 4 s of CPU each on this project's 2-core machine, and the suite opens about a hundred).
 * The template itself is made through the product's own path (openStore on an empty folder).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { openStore } from '../../src/io/store/store';

/** Writes the template to a new temporary file; resolves to its path and a function that removes it. */
export async function makePgliteTemplate(): Promise<{ file: string; remove: () => void }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-canvas-pglite-template-'));
  const dataDir = path.join(dir, 'data');
  const store = await openStore({ dataDir, pgliteTemplate: '', log: () => {} });
  await store.close();
  const pg = await PGlite.create(dataDir, { extensions: { vector } });
  const dump = await pg.dumpDataDir('none');
  await pg.close();
  rmSync(dataDir, { recursive: true, force: true });
  const file = path.join(dir, 'pglite-template.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
