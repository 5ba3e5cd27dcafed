/** The database contract both backends implement (PostgreSQL through `pg`, PGlite). */
export type DbKind = 'pglite' | 'postgres';

export interface QueryResult<T> {
  rows: T[];
}

/** Minimal SQL access shared by pg and PGlite. Parameters are `$1, $2...`. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

export interface Db extends Queryable {
  readonly kind: DbKind;
  /** Runs `fn` in one transaction (BEGIN/COMMIT, ROLLBACK on error). */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** LISTEN on a channel; resolves with an unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /** NOTIFY a channel (pg_notify). */
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

/** A page of a listing, RAGFlow's `page`, `page_size`, `orderby` and `desc`. */
export interface ListOptions {
  page: number;
  pageSize: number;
  orderby: string;
  desc: boolean;
}
