/**
 * ExeSQL is read-only by default. The classifier is checked for both dialects without a server;
 * then, against a REAL PostgreSQL (and MySQL/MariaDB when the machine has one), every write is
 * refused with a clear message and the table is intact afterwards, SELECTs come back as RAGFlow's
 * Markdown table and JSON with max_records honoured, allow_writes lets an INSERT through, and the
 * database host passes the network guard. PostgreSQL also runs it as a canvas node and as an
 * Agent tool in a workflow.
 */
import pg from 'pg';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExeSqlExecutor, statementLimitMs } from '../../src/io/tools/exesql';
import { checkSql, splitStatements, type SqlDialect } from '../../src/io/tools/sqlGuard';
import { AppError } from '../../src/errors';
import { startPostgres } from '../helpers/postgres';
import { startMysql } from './mysqlServer';
import { exeSqlWorkflowCases } from './exesqlWorkflow';

const REFUSED_EVERYWHERE = [
  'DROP TABLE t',
  'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d',
  '/*x*/DELETE FROM t',
  'SELECT 1; DELETE FROM t',
  'TRUNCATE TABLE t',
  "UPDATE t SET name = 'x'",
  "INSERT INTO t (id, name, price) VALUES (9, 'x', 1)",
  'CREATE TABLE u (id INT)',
  'ALTER TABLE t ADD COLUMN c INT',
  'GRANT SELECT ON t TO PUBLIC',
  'SELECT * INTO t2 FROM t',
  '```sql\nDELETE FROM t\n```',
  "SELECT 'a;b'; DELETE FROM t",
  'this is not sql',
];

describe('statement time limits (no server)', () => {
  it('keep each statement under the activity’s own timeout, so the statement error is the one seen', () => {
    expect(statementLimitMs(10, 10_000)).toBe(7_000);
    expect(statementLimitMs(null, 600_000)).toBe(60_000);
    expect(statementLimitMs(null, 30_000)).toBe(27_000);
    expect(statementLimitMs(5, undefined)).toBe(5_000);
  });
});

describe('the read-only classifier (no server)', () => {
  describe.each<SqlDialect>(['postgres', 'mysql', 'mariadb'])('%s', (dialect) => {
    it.each(REFUSED_EVERYWHERE)('refuses %s', (sql) => {
      expect(() => checkSql(sql, dialect, false)).toThrow(/^ExeSQL is read-only: .*\(set allow_writes on the component to run writes\); nothing was run$/s);
    });

    it('passes reads, with code fences and citation markers removed', () => {
      expect(checkSql("```sql\nSELECT id, name FROM t WHERE name = 'a;b' [ID:3];\n```", dialect, false)).toEqual([
        { text: "SELECT id, name FROM t WHERE name = 'a;b'", kind: 'select' },
      ]);
      expect(checkSql('SELECT 1; SELECT count(*) FROM t -- two reads', dialect, false).map((s) => s.kind)).toEqual(['select', 'select']);
      expect(checkSql('WITH x AS (SELECT 1 AS a) SELECT a FROM x', dialect, false)[0]!.kind).toBe('select');
    });

    it('lets anything through with allow_writes', () => {
      expect(checkSql('DELETE FROM t; DROP TABLE t', dialect, true).map((s) => s.kind)).toEqual(['delete', 'drop']);
      expect(checkSql('this is not sql', dialect, true)).toEqual([{ text: 'this is not sql', kind: null }]);
    });
  });

  it('names the offending statement and why', () => {
    expect(() => checkSql('SELECT 1; DELETE FROM t', 'postgres', false)).toThrow(
      'ExeSQL is read-only: statement 2 (DELETE FROM t): DELETE statements are not allowed',
    );
    expect(() => checkSql('DROP TABLE t', 'postgres', false)).toThrow('ExeSQL is read-only: DROP statements are not allowed');
    expect(() => checkSql('WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', 'postgres', false)).toThrow(/this does not parse as postgres SQL: Expected/);
    expect(() => checkSql('SELECT * INTO t2 FROM t', 'postgres', false)).toThrow('SELECT … INTO writes data');
  });

  it('refuses functions that reach files, sessions or other servers', () => {
    expect(() => checkSql("SELECT pg_read_file('/etc/passwd')", 'postgres', false)).toThrow('the function pg_read_file() is not allowed');
    expect(() => checkSql("SELECT * FROM pg_catalog.pg_ls_dir('.')", 'postgres', false)).toThrow('the function pg_ls_dir() is not allowed');
    expect(() => checkSql("SELECT set_config('role', 'x', false)", 'postgres', false)).toThrow('set_config() is not allowed');
    expect(() => checkSql("SELECT LOAD_FILE('/etc/passwd')", 'mysql', false)).toThrow('the function load_file() is not allowed');
  });

  it('refuses MySQL executable comments and SELECT … INTO OUTFILE', () => {
    expect(() => checkSql("SELECT 1 /*!50000 INTO OUTFILE '/tmp/x' */", 'mysql', false)).toThrow(/MySQL executable comments/);
    expect(() => checkSql('SELECT 1 /*M!100000 , 2 */', 'mariadb', false)).toThrow(/MySQL executable comments/);
    expect(() => checkSql("SELECT 1 INTO OUTFILE '/tmp/x'", 'mysql', false)).toThrow('SELECT … INTO writes data');
    expect(checkSql('SHOW TABLES', 'mysql', false)[0]!.kind).toBe('show');
    expect(checkSql('DESCRIBE t', 'mysql', false)[0]!.kind).toBe('desc');
    expect(checkSql('EXPLAIN SELECT 1', 'mysql', false)[0]!.kind).toBe('explain');
  });

  it('splits statements outside strings, identifiers, comments and dollar quotes', () => {
    expect(splitStatements('SELECT \';\' AS a; SELECT "x;y" FROM t /* ; */; -- ;\nSELECT $f$ ; $f$', 'postgres')).toEqual([
      "SELECT ';' AS a",
      'SELECT "x;y" FROM t /* ; */',
      '-- ;\nSELECT $f$ ; $f$',
    ]);
    expect(splitStatements("SELECT 'it\\'s;' ; SELECT `a;b` # c;\n", 'mysql')).toEqual(["SELECT 'it\\'s;'", 'SELECT `a;b` # c;']);
    expect(splitStatements("SELECT E'\\';'; SELECT 1", 'postgres')).toEqual(["SELECT E'\\';'", 'SELECT 1']);
    expect(splitStatements(' ; -- only a comment\n;', 'postgres')).toEqual([]);
  });
});

/** A database the cases run against, with an admin connection for setup and checks. */
interface Db {
  dialect: SqlDialect;
  params: Record<string, unknown>;
  allow: string;
  admin(sql: string): Promise<unknown[]>;
}

const execute = createExeSqlExecutor();

function exeSql(db: Db, sql: string, extra: Record<string, unknown> = {}, allow = db.allow) {
  return execute({
    params: { ...db.params, ...extra },
    args: { sql },
    env: { NETWORK_ALLOW_HOSTS: allow },
    signal: new AbortController().signal,
    tenantId: 't',
  });
}

const rowCount = async (db: Db) => Number(((await db.admin('SELECT count(*) AS n FROM t')) as Array<{ n: unknown }>)[0]!.n);

const TABLE = [
  '|   id | name   |    price |',
  '|-----:|:-------|---------:|',
  '|    1 | apple  | 1.500000 |',
  '|    2 | banana | 0.250000 |',
  '|    3 | cherry | 2.000000 |',
].join('\n');

function sqlCases(getDb: () => Db) {
  beforeAll(async () => {
    const db = getDb();
    await db.admin('DROP TABLE IF EXISTS t');
    await db.admin('CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(10, 2))');
    await db.admin("INSERT INTO t (id, name, price) VALUES (1, 'apple', 1.5), (2, 'banana', 0.25), (3, 'cherry', 2), (4, 'date', 4), (5, 'elder', 5)");
  });

  it.each(REFUSED_EVERYWHERE)('refuses %s and leaves the table intact', async (sql) => {
    const db = getDb();
    const err = await exeSql(db, sql).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('TOOL_BAD_REQUEST');
    expect((err as AppError).message).toMatch(/^ExeSQL is read-only: /);
    expect(await rowCount(db)).toBe(5);
    expect(((await db.admin('SELECT name FROM t WHERE id = 1')) as Array<{ name: string }>)[0]!.name).toBe('apple');
  });

  it('answers a SELECT as a Markdown table and JSON, max_records honoured', async () => {
    const r = await exeSql(getDb(), 'SELECT id, name, price FROM t ORDER BY id', { max_records: 3 });
    expect(r.outputs.formalized_content).toBe(TABLE);
    expect(r.text).toBe(TABLE);
    expect(r.outputs.json).toEqual([
      [
        { id: 1, name: 'apple', price: 1.5 },
        { id: 2, name: 'banana', price: 0.25 },
        { id: 3, name: 'cherry', price: 2 },
      ],
    ]);
  });

  it('runs several reads; a failing one is reported and the next still runs', async () => {
    const r = await exeSql(
      getDb(),
      'SELECT count(*) AS n FROM t; SELECT * FROM missing_table; SELECT name FROM t WHERE id = 2; SELECT id FROM t WHERE id > 100',
    );
    const json = r.outputs.json as unknown[];
    expect(json[0]).toEqual([{ n: 5 }]);
    expect((json[1] as { content: string }).content).toMatch(/^SQL Execution Failed: SELECT \* FROM missing_table\n.*missing_table/s);
    expect(json[2]).toEqual([{ name: 'banana' }]);
    expect(json[3]).toEqual({ content: 'No record in the database!' });
    expect(String(r.outputs.formalized_content).split('\n\n')).toHaveLength(4);
  });

  it('runs writes with allow_writes', async () => {
    const db = getDb();
    const r = await exeSql(db, "INSERT INTO t (id, name, price) VALUES (6, 'fig', 3.25)", { allow_writes: true });
    expect(r.outputs.json).toEqual([{ content: expect.stringMatching(/1 row affected$/) }]);
    expect(await rowCount(db)).toBe(6);
    await exeSql(db, 'DELETE FROM t WHERE id = 6', { allow_writes: true });
    expect(await rowCount(db)).toBe(5);
  });

  it('connects only where the network guard allows', async () => {
    const err = await exeSql(getDb(), 'SELECT 1', {}, '').then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as AppError).code).toBe('TOOL_BAD_REQUEST');
    expect((err as AppError).message).toBe('ExeSQL: 127.0.0.1 is a loopback address; blocked (allow it with NETWORK_ALLOW_HOSTS)');
  });

  it('refuses database types this build cannot run, and missing connection fields', async () => {
    const db = getDb();
    await expect(exeSql(db, 'SELECT 1', { db_type: 'mssql' })).rejects.toMatchObject({
      code: 'COMPONENT_UNSUPPORTED',
      message: expect.stringMatching(/db_type mssql cannot run in this build/),
    });
    await expect(exeSql(db, 'SELECT 1', { host: '' })).rejects.toThrow('ExeSQL: host must be set on the component');
    await expect(exeSql(db, '   ')).rejects.toThrow('SQL for `ExeSQL` MUST not be empty.');
  });
}

const postgres = await startPostgres();
if ('skipped' in postgres) console.warn(`[test/security/exesql] PostgreSQL cases skipped: ${postgres.skipped}`);
const mysqlServer = await startMysql();
if ('skipped' in mysqlServer) console.warn(`[test/security/exesql] MySQL/MariaDB cases skipped: ${mysqlServer.skipped}`);
afterAll(async () => {
  if ('stop' in postgres) await postgres.stop();
  if ('stop' in mysqlServer) await mysqlServer.stop();
});

describe.skipIf('skipped' in postgres)('ExeSQL on a real PostgreSQL', () => {
  let admin: pg.Client;
  let db: Db;
  beforeAll(async () => {
    const url = new URL((postgres as { url: string }).url);
    admin = new pg.Client({ connectionString: url.href });
    await admin.connect();
    const port = Number(url.port || 5432);
    db = {
      dialect: 'postgres',
      params: {
        db_type: 'postgres',
        host: url.hostname,
        port,
        database: url.pathname.slice(1),
        username: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password) || 'unused-with-trust',
      },
      allow: `${url.hostname}:${port}`,
      admin: async (sql) => (await admin.query(sql)).rows as unknown[],
    };
  });
  afterAll(async () => {
    await admin?.end();
  });

  sqlCases(() => db);

  it('names the statement that ran past the time limit and the limit, instead of timing out the activity', async () => {
    const err = await exeSql(db, 'SELECT 1; SELECT pg_sleep(5)', { timeout: 1 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('TOOL_BAD_REQUEST');
    expect((err as AppError).message).toMatch(
      /^ExeSQL: statement 2 ran past the 1 s limit \(raise the component's timeout or make the query cheaper\): SELECT pg_sleep\(5\)$/,
    );
  });

  it('runs reads inside a READ ONLY transaction: a write the parser cannot see is stopped there', async () => {
    await db.admin('CREATE SEQUENCE IF NOT EXISTS s');
    const before = await db.admin('SELECT last_value FROM s');
    const r = await exeSql(db, "SELECT nextval('s')");
    expect((r.outputs.json as Array<{ content: string }>)[0]!.content).toMatch(/cannot execute nextval\(\) in a read-only transaction/);
    expect(await db.admin('SELECT last_value FROM s')).toEqual(before);
  });

  exeSqlWorkflowCases(
    () => ({ ...db.params, sql: '{sys.query}' }),
    () => db.allow,
    () => rowCount(db),
  );
});

describe.skipIf('skipped' in mysqlServer)('ExeSQL on a real MySQL/MariaDB', () => {
  let admin: mysql.Connection;
  let db: Db;
  beforeAll(async () => {
    const m = mysqlServer as Exclude<typeof mysqlServer, { skipped: string }>;
    admin = await mysql.createConnection({ host: m.host, port: m.port, user: m.user, password: m.password, database: m.database, decimalNumbers: true });
    db = {
      dialect: m.flavor,
      params: { db_type: m.flavor, host: m.host, port: m.port, database: m.database, username: m.user, password: m.password },
      allow: `${m.host}:${m.port}`,
      admin: async (sql) => (await admin.query(sql))[0] as unknown[],
    };
  });
  afterAll(async () => {
    await admin?.end();
  });

  sqlCases(() => db);
});
