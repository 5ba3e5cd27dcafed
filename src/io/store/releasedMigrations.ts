/**
 * Migrations 1–7, as released. Never edit a released migration: add a new one (its own file,
 * listed in `MIGRATIONS`, src/io/store/migrations.ts).
 *
 * Times are ms since epoch in `double precision` so both drivers return JS numbers (pg would
 * return `bigint` as a string).
 */
/** A migration: single statements, because PGlite's `query` runs one statement at a time. */
export interface Migration {
  version: number;
  name: string;
  statements: readonly string[];
}

export const RELEASED_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'tenants, canvases, sessions, runs, run events',
    statements: [
      `CREATE TABLE tenants (
        id text PRIMARY KEY,
        name text NOT NULL,
        create_time double precision NOT NULL
      )`,
      `CREATE TABLE api_keys (
        key_hash text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        prefix text NOT NULL,
        create_time double precision NOT NULL
      )`,
      `CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id)`,
      `CREATE TABLE canvases (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        title text NOT NULL,
        description text,
        avatar text,
        canvas_type text,
        canvas_category text NOT NULL DEFAULT 'agent_canvas',
        dsl json NOT NULL,
        version_id text NOT NULL,
        create_time double precision NOT NULL,
        update_time double precision NOT NULL,
        create_date text NOT NULL,
        update_date text NOT NULL
      )`,
      `CREATE INDEX canvases_tenant_title_idx ON canvases (tenant_id, lower(title))`,
      `CREATE INDEX canvases_tenant_update_idx ON canvases (tenant_id, update_time)`,
      // ord breaks ties between versions saved within the same millisecond.
      `CREATE TABLE canvas_versions (
        id text PRIMARY KEY,
        user_canvas_id text NOT NULL REFERENCES canvases (id) ON DELETE CASCADE,
        title text NOT NULL,
        dsl json NOT NULL,
        release boolean NOT NULL DEFAULT false,
        create_time double precision NOT NULL,
        update_time double precision NOT NULL,
        create_date text NOT NULL,
        update_date text NOT NULL,
        ord bigint GENERATED ALWAYS AS IDENTITY
      )`,
      `CREATE INDEX canvas_versions_canvas_idx ON canvas_versions (user_canvas_id, update_time DESC)`,
      `CREATE TABLE sessions (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        agent_id text NOT NULL REFERENCES canvases (id) ON DELETE CASCADE,
        name text NOT NULL,
        user_id text NOT NULL,
        source text NOT NULL,
        messages jsonb NOT NULL DEFAULT '[]'::jsonb,
        state jsonb NOT NULL,
        active_run_id text,
        create_time double precision NOT NULL,
        update_time double precision NOT NULL,
        create_date text NOT NULL,
        update_date text NOT NULL
      )`,
      `CREATE INDEX sessions_agent_idx ON sessions (tenant_id, agent_id, update_time)`,
      `CREATE TABLE runs (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        canvas_id text NOT NULL,
        session_id text,
        workflow_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('running', 'paused', 'finished', 'failed', 'canceled')),
        result json,
        error text,
        create_time double precision NOT NULL,
        update_time double precision NOT NULL,
        finish_time double precision
      )`,
      `CREATE INDEX runs_tenant_session_idx ON runs (tenant_id, session_id)`,
      // No foreign key to runs: activities append right after the run row is written, and the
      // log is read far more than it is checked.
      `CREATE TABLE run_events (
        run_id text NOT NULL,
        seq int NOT NULL,
        sub int NOT NULL,
        event text NOT NULL,
        message_id text NOT NULL,
        created_at double precision NOT NULL,
        task_id text NOT NULL,
        data json NOT NULL,
        terminal boolean NOT NULL,
        superseded boolean NOT NULL DEFAULT false,
        PRIMARY KEY (run_id, seq, sub)
      )`,
      // Tool-call traces are looked up by message (RAGFlow's /agents/{id}/logs/{message_id}).
      'CREATE INDEX run_events_by_message ON run_events (message_id, event)',
    ],
  },
  {
    version: 2,
    name: 'canvas version and parent of a run, stored blobs, MCP servers',
    statements: [
      'ALTER TABLE runs ADD COLUMN canvas_version_id text',
      'ALTER TABLE runs ADD COLUMN parent_run_id text',
      `CREATE TABLE blobs (
        id text PRIMARY KEY,
        run_id text NOT NULL,
        content text NOT NULL,
        create_time double precision NOT NULL
      )`,
      'CREATE INDEX blobs_by_run ON blobs (run_id)',
      `CREATE TABLE mcp_servers (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        name text NOT NULL,
        server_type text NOT NULL,
        url text,
        command text,
        args jsonb NOT NULL DEFAULT '[]'::jsonb,
        env jsonb NOT NULL DEFAULT '{}'::jsonb,
        headers jsonb NOT NULL DEFAULT '{}'::jsonb,
        variables jsonb NOT NULL DEFAULT '{}'::jsonb,
        description text,
        create_time double precision NOT NULL,
        update_time double precision NOT NULL
      )`,
      'CREATE UNIQUE INDEX mcp_servers_tenant_name ON mcp_servers (tenant_id, lower(name))',
    ],
  },
  {
    version: 3,
    name: 'datasets, documents and their chunks (full-text indexed; embeddings as real[])',
    statements: [
      `CREATE TABLE datasets (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        name text NOT NULL,
        description text,
        avatar text,
        embedding_model text NOT NULL,
        chunk_method text NOT NULL,
        parser_config jsonb NOT NULL DEFAULT '{}'::jsonb,
        permission text NOT NULL DEFAULT 'me',
        create_time double precision NOT NULL,
        update_time double precision NOT NULL,
        create_date text NOT NULL,
        update_date text NOT NULL
      )`,
      'CREATE UNIQUE INDEX datasets_tenant_name ON datasets (tenant_id, lower(name))',
      `CREATE TABLE documents (
        id text PRIMARY KEY,
        dataset_id text NOT NULL REFERENCES datasets (id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        name text NOT NULL,
        type text NOT NULL,
        size int NOT NULL,
        run text NOT NULL DEFAULT 'UNSTART',
        progress double precision NOT NULL DEFAULT 0,
        progress_msg text NOT NULL DEFAULT '',
        chunk_count int NOT NULL DEFAULT 0,
        token_count int NOT NULL DEFAULT 0,
        meta_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
        process_begin_at double precision,
        process_duration double precision NOT NULL DEFAULT 0,
        create_time double precision NOT NULL,
        update_time double precision NOT NULL,
        create_date text NOT NULL,
        update_date text NOT NULL
      )`,
      'CREATE INDEX documents_by_dataset ON documents (dataset_id)',
      `CREATE TABLE document_files (
        document_id text PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
        content bytea NOT NULL
      )`,
      `CREATE TABLE chunks (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        dataset_id text NOT NULL REFERENCES datasets (id) ON DELETE CASCADE,
        document_id text NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
        document_name text NOT NULL,
        content text NOT NULL,
        section text NOT NULL DEFAULT '',
        position int NOT NULL,
        tokens int NOT NULL,
        embedding real[] NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED,
        create_time double precision NOT NULL
      )`,
      'CREATE INDEX chunks_by_dataset ON chunks (dataset_id)',
      'CREATE INDEX chunks_by_document ON chunks (document_id, position)',
      'CREATE INDEX chunks_tsv ON chunks USING gin (tsv)',
    ],
  },
  {
    version: 4,
    name: 'API keys: public key id, keyed hash (HMAC) and no key prefix; admin and disabled tenants',
    statements: [
      'ALTER TABLE tenants ADD COLUMN admin boolean NOT NULL DEFAULT false',
      'ALTER TABLE tenants ADD COLUMN disabled_time double precision',
      'ALTER TABLE api_keys ADD COLUMN key_id text',
      `UPDATE api_keys SET key_id = replace(gen_random_uuid()::text, '-', '')`,
      'ALTER TABLE api_keys ALTER COLUMN key_id SET NOT NULL',
      // Existing rows hold unsalted SHA-256: still verified, and re-keyed to HMAC on first use.
      `ALTER TABLE api_keys ADD COLUMN hash_scheme text NOT NULL DEFAULT 'sha256'`,
      'ALTER TABLE api_keys ALTER COLUMN hash_scheme DROP DEFAULT',
      'ALTER TABLE api_keys ADD COLUMN update_time double precision',
      // The first 8 characters of each key: gone (for a short custom key, most of it).
      'ALTER TABLE api_keys DROP COLUMN prefix',
      'ALTER TABLE api_keys DROP CONSTRAINT api_keys_pkey',
      'ALTER TABLE api_keys ADD PRIMARY KEY (key_id)',
      'CREATE UNIQUE INDEX api_keys_hash_idx ON api_keys (key_hash)',
    ],
  },
  {
    version: 5,
    name: 'one canvas per title (case-insensitive) per tenant and category, as RAGFlow checks it',
    statements: [
      // Duplicates made before the index (concurrent creates) keep their data under a title that says so.
      `UPDATE canvases c SET title = c.title || ' (duplicate ' || d.id || ')'
       FROM (SELECT id, row_number() OVER (PARTITION BY tenant_id, canvas_category, lower(title) ORDER BY create_time, id) AS n FROM canvases) d
       WHERE c.id = d.id AND d.n > 1`,
      'CREATE UNIQUE INDEX canvases_tenant_category_title_key ON canvases (tenant_id, canvas_category, lower(title))',
    ],
  },
  {
    version: 6,
    name: 'files of runs: uploads a run reads (sys.files, file inputs) and files a run makes (DocGenerator, ExcelProcessor, Browser downloads)',
    statements: [
      `CREATE TABLE run_files (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        origin text NOT NULL,
        run_id text,
        name text NOT NULL,
        mime_type text NOT NULL,
        size bigint NOT NULL,
        content bytea NOT NULL,
        text text,
        create_time double precision NOT NULL
      )`,
      'CREATE INDEX run_files_by_tenant ON run_files (tenant_id, create_time)',
    ],
  },
  {
    version: 7,
    name: "RAGFlow's dataset, document and chunk fields: pagerank, language, connectors; a document's own chunk method, parser_config and status; chunk keywords, questions and availability",
    statements: [
      'ALTER TABLE datasets ADD COLUMN pagerank int NOT NULL DEFAULT 0',
      `ALTER TABLE datasets ADD COLUMN language text NOT NULL DEFAULT 'English'`,
      `ALTER TABLE datasets ADD COLUMN connectors jsonb NOT NULL DEFAULT '[]'::jsonb`,
      'ALTER TABLE documents ADD COLUMN chunk_method text',
      `ALTER TABLE documents ADD COLUMN parser_config jsonb NOT NULL DEFAULT '{}'::jsonb`,
      `ALTER TABLE documents ADD COLUMN status text NOT NULL DEFAULT '1'`,
      `ALTER TABLE chunks ADD COLUMN important_keywords jsonb NOT NULL DEFAULT '[]'::jsonb`,
      `ALTER TABLE chunks ADD COLUMN questions jsonb NOT NULL DEFAULT '[]'::jsonb`,
      'ALTER TABLE chunks ADD COLUMN available boolean NOT NULL DEFAULT true',
    ],
  },
];
