/**
 * The database under a store, for tests that inspect or arrange rows directly. Production code
 * outside src/io/store cannot import this module (lint:layers rule `store-owns-sql`): it goes
 * through the Store's methods, so all SQL stays here.
 */
import type { Db, Store } from './contract';

const databases = new WeakMap<Store, Db>();

/** Records the database a store was created over (createStore does). */
export function attachDb(store: Store, db: Db): Store {
  databases.set(store, db);
  return store;
}

/** The database `store` was created over. */
export function storeDb(store: Store): Db {
  const db = databases.get(store);
  if (!db) throw new Error('this store was not created by createStore');
  return db;
}
