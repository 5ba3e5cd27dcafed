/**
 * ExeSQL's read-only rule: SQL is split into statements (quotes, comments and dollar-quoting
 * respected), each statement is PARSED with node-sql-parser in the database's dialect, and only
 * reading statements pass — SELECT without INTO, SHOW, DESCRIBE, EXPLAIN of a SELECT — with no
 * write hidden anywhere in their syntax tree (data-modifying CTEs, SELECT … INTO) and no call of
 * a function that reaches files, other sessions or other servers. SQL the parser cannot read is
 * refused in read-only mode. The database's READ ONLY transaction is the second line of defence.
 */
import sqlParser from 'node-sql-parser';
import { AppError } from '../../errors';

export type SqlDialect = 'postgres' | 'mysql' | 'mariadb';

export interface SqlStatement {
  text: string;
  /** The parsed statement type (`select`, `show`...), or null when it did not parse (write mode only). */
  kind: string | null;
}

const PARSER_DIALECT: Record<SqlDialect, string> = { postgres: 'PostgresQL', mysql: 'MySQL', mariadb: 'MariaDB' };
const READ_KINDS = new Set(['select', 'show', 'desc', 'explain']);
/** A statement of these kinds nested anywhere (a CTE, a subquery) is a write. */
const WRITE_KINDS = new Set(['insert', 'replace', 'update', 'delete', 'create', 'drop', 'alter', 'truncate', 'rename', 'grant', 'revoke', 'merge', 'upsert']);
/** Functions that read server files, reach other servers or sessions, or run SQL text of their own. */
const UNSAFE_FUNCTIONS = new Set([
  'pg_read_file',
  'pg_read_binary_file',
  'pg_ls_dir',
  'pg_stat_file',
  'pg_ls_logdir',
  'pg_ls_waldir',
  'pg_ls_tmpdir',
  'pg_ls_archive_statusdir',
  'lo_import',
  'lo_export',
  'lo_from_bytea',
  'lo_put',
  'lo_create',
  'lo_unlink',
  'lo_get',
  'dblink',
  'dblink_exec',
  'dblink_connect',
  'dblink_connect_u',
  'dblink_send_query',
  'pg_terminate_backend',
  'pg_cancel_backend',
  'pg_reload_conf',
  'pg_rotate_logfile',
  'pg_promote',
  'pg_switch_wal',
  'pg_create_restore_point',
  'set_config',
  'query_to_xml',
  'query_to_xml_and_xmlschema',
  'query_to_xmlschema',
  'cursor_to_xml',
  'query_to_json',
  'load_file',
  'sys_exec',
  'sys_eval',
  'get_lock',
  'release_lock',
  'release_all_locks',
]);

/** Removes Markdown code fences (```sql … ```) and RAGFlow's `[ID:n]` citation markers. */
export function cleanSql(sql: string): string {
  return sql.replace(/```[A-Za-z]*/g, '').replace(/\[ID:[0-9]+\]/g, '');
}

/** Splits on `;` outside strings, quoted identifiers, dollar-quoted bodies and comments. */
export function splitStatements(sql: string, dialect: SqlDialect): string[] {
  const mysql = dialect !== 'postgres';
  const out: string[] = [];
  let start = 0;
  let i = 0;
  const skipQuoted = (q: string, backslash: boolean) => {
    for (i++; i < sql.length; i++) {
      if (backslash && sql[i] === '\\') i++;
      else if (sql[i] === q) {
        if (sql[i + 1] === q) i++;
        else break;
      }
    }
  };
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === "'" || c === '"' || (mysql && c === '`')) {
      const escaped = mysql ? c !== '`' : c === "'" && /[eE]/.test(sql[i - 1] ?? '') && !/[\w$]/.test(sql[i - 2] ?? '');
      skipQuoted(c, escaped);
    } else if (c === '-' && next === '-' && (!mysql || /\s|$/.test(sql[i + 2] ?? ''))) {
      i = sql.indexOf('\n', i);
      if (i < 0) i = sql.length;
    } else if (mysql && c === '#') {
      i = sql.indexOf('\n', i);
      if (i < 0) i = sql.length;
    } else if (c === '/' && next === '*') {
      // PostgreSQL nests block comments; MySQL does not.
      let depth = 1;
      for (i += 2; i < sql.length && depth > 0; i++) {
        if (!mysql && sql[i] === '/' && sql[i + 1] === '*') {
          depth++;
          i++;
        } else if (sql[i] === '*' && sql[i + 1] === '/') {
          depth--;
          i++;
        }
      }
      continue;
    } else if (!mysql && c === '$') {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i))?.[0];
      if (tag && !/[\w$]/.test(sql[i - 1] ?? '')) {
        const end = sql.indexOf(tag, i + tag.length);
        i = end < 0 ? sql.length : end + tag.length;
        continue;
      }
    } else if (c === ';') {
      out.push(sql.slice(start, i));
      start = i + 1;
    }
    i++;
  }
  out.push(sql.slice(start));
  return out.map((s) => s.trim()).filter((s) => s !== '' && !/^(\s|--[^\n]*(\n|$)|#[^\n]*(\n|$)|\/\*[\s\S]*?\*\/)*$/.test(s));
}

type Node = Record<string, unknown>;

function functionName(node: Node): string {
  const name = node.name as unknown;
  if (typeof name === 'string') return name.toLowerCase();
  const parts = (name as { name?: Array<{ value?: unknown }> } | null)?.name;
  const last = Array.isArray(parts) ? parts[parts.length - 1]?.value : undefined;
  return typeof last === 'string' ? last.toLowerCase() : '';
}

/** The first reason the tree is not read-only, or null. */
function findWrite(node: unknown, top: boolean): string | null {
  if (Array.isArray(node)) {
    for (const n of node) {
      const r = findWrite(n, false);
      if (r) return r;
    }
    return null;
  }
  if (typeof node !== 'object' || node === null) return null;
  const n = node as Node;
  const kind = typeof n.type === 'string' ? n.type.toLowerCase() : '';
  if (top && !READ_KINDS.has(kind)) return kind ? `${kind.toUpperCase()} statements are not allowed` : 'statements of this kind are not allowed';
  if (!top && WRITE_KINDS.has(kind)) return `a ${kind.toUpperCase()} inside the statement is not allowed`;
  if (kind === 'function' && UNSAFE_FUNCTIONS.has(functionName(n))) return `the function ${functionName(n)}() is not allowed`;
  if (n.locking_read) return 'locking reads (FOR UPDATE / FOR SHARE) are not allowed';
  const into = n.into as { expr?: unknown; keyword?: unknown } | undefined;
  if (into && typeof into === 'object' && (into.expr || into.keyword)) return 'SELECT … INTO writes data and is not allowed';
  for (const [k, v] of Object.entries(n)) {
    if (k === 'loc') continue;
    const r = findWrite(v, false);
    if (r) return r;
  }
  return null;
}

const refuse = (why: string) =>
  new AppError('TOOL_BAD_REQUEST', `ExeSQL is read-only: ${why} (set allow_writes on the component to run writes); nothing was run`);

/**
 * The statements of `sql`, checked. Read-only (the default): every statement must parse and
 * read only, else TOOL_BAD_REQUEST and nothing runs. With `allowWrites` anything goes (the kind
 * is still reported when the statement parses).
 */
export function checkSql(sql: string, dialect: SqlDialect, allowWrites: boolean): SqlStatement[] {
  const texts = splitStatements(cleanSql(sql), dialect);
  const parser = new sqlParser.Parser();
  return texts.map((text, index) => {
    // Name the statement only when there are several ("statement 2 (DELETE FROM t): ...").
    const which = texts.length > 1 ? `statement ${index + 1} (${text.replace(/\s+/g, ' ').slice(0, 60)}): ` : '';
    if (!allowWrites && dialect !== 'postgres' && /\/\*M?!/.test(text))
      throw refuse(`${which}MySQL executable comments (/*! … */) are not allowed, the database would run their content`);
    let ast: unknown;
    try {
      ast = parser.astify(text, { database: PARSER_DIALECT[dialect] });
    } catch (err) {
      if (allowWrites) return { text, kind: null };
      const message = (err instanceof Error ? err.message : String(err)).slice(0, 300);
      throw refuse(`${which}only SQL that parses and reads can run, and this does not parse as ${dialect} SQL: ${message}`);
    }
    const nodes = Array.isArray(ast) ? ast : [ast];
    if (nodes.length !== 1 && !allowWrites) throw refuse(`${which}found ${nodes.length} statements where one was expected`);
    const kind = typeof (nodes[0] as Node | undefined)?.type === 'string' ? String((nodes[0] as Node).type).toLowerCase() : null;
    if (!allowWrites) {
      const why = findWrite(nodes[0], true);
      if (why) throw refuse(`${which}${why}`);
    }
    return { text, kind };
  });
}
