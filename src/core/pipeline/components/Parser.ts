/**
 * Parser (RAGFlow's `rag/flow/parser/parser.py`): per file type settings ("setups"), each with the
 * file suffixes it takes and its `output_format`, checked as `ParserParam.check()` does (allowed
 * output formats per type). RAGFlow's editor writes the setups two ways: nested under `setups`
 * (the Python backend) or flattened into the params (the Go backend, and the shipped templates);
 * both are read. Types a canvas does not list keep RAGFlow's default setups, as both engines
 * keep them (a `.pptx` reaches the default slides setup in the Go engine's general template). Older names are read
 * as today's (`word` → `docx`, `text` → `text&code`). A setup's missing keys take RAGFlow's
 * defaults for its type.
 *
 * The parsed params are `{ setups: { [type]: setup } }` in the order the canvas lists them (the
 * first setup whose suffixes match the file wins, as in RAGFlow).
 */
import { z } from 'zod';
import { lazySchema } from '../../dsl/lazySchema';

export const PARSER_FILE_TYPES = [
  'pdf',
  'spreadsheet',
  'doc',
  'docx',
  'slides',
  'image',
  'email',
  'markdown',
  'text&code',
  'html',
  'audio',
  'video',
  'epub',
] as const;
export type ParserFileType = (typeof PARSER_FILE_TYPES)[number];

/** Older setup names. */
const TYPE_ALIASES: Readonly<Record<string, ParserFileType>> = { word: 'docx', text: 'text&code' };

/** RAGFlow's `allowed_output_format` (types it does not check accept any). */
export const ALLOWED_OUTPUT_FORMATS: Readonly<Partial<Record<ParserFileType, readonly string[]>>> = {
  pdf: ['json', 'markdown'],
  spreadsheet: ['json', 'markdown', 'html'],
  doc: ['json', 'markdown'],
  docx: ['json', 'markdown'],
  slides: ['json'],
  email: ['text', 'json'],
  markdown: ['text', 'json'],
  'text&code': ['text', 'json'],
  html: ['text', 'json'],
  epub: ['text', 'json'],
};

/** RAGFlow's default `setups`. */
export const DEFAULT_SETUPS: Readonly<Record<ParserFileType, Readonly<Record<string, unknown>>>> = {
  pdf: {
    parse_method: 'deepdoc',
    lang: 'Chinese',
    flatten_media_to_text: false,
    remove_toc: false,
    remove_header_footer: false,
    suffix: ['pdf'],
    output_format: 'json',
  },
  spreadsheet: { parse_method: 'deepdoc', flatten_media_to_text: false, output_format: 'html', suffix: ['xls', 'xlsx', 'csv'] },
  doc: { remove_toc: false, remove_header_footer: false, suffix: ['doc'], output_format: 'json' },
  docx: { flatten_media_to_text: false, remove_toc: false, remove_header_footer: false, suffix: ['docx'], output_format: 'json' },
  markdown: { flatten_media_to_text: false, suffix: ['md', 'markdown', 'mdx'], remove_toc: false, output_format: 'json' },
  'text&code': {
    suffix: ['txt', 'py', 'js', 'java', 'c', 'cpp', 'h', 'php', 'go', 'ts', 'sh', 'cs', 'kt', 'sql'],
    output_format: 'json',
  },
  html: { suffix: ['htm', 'html'], remove_toc: false, remove_header_footer: false, output_format: 'json' },
  slides: { parse_method: 'deepdoc', suffix: ['pptx', 'ppt'], output_format: 'json' },
  image: { parse_method: 'ocr', llm_id: '', lang: 'Chinese', system_prompt: '', suffix: ['jpg', 'jpeg', 'png', 'gif'], output_format: 'json' },
  email: { suffix: ['eml', 'msg'], fields: ['from', 'to', 'cc', 'bcc', 'date', 'subject', 'body', 'attachments', 'metadata'], output_format: 'json' },
  audio: {
    suffix: ['da', 'wave', 'wav', 'mp3', 'aac', 'flac', 'ogg', 'aiff', 'au', 'midi', 'wma', 'realaudio', 'vqf', 'oggvorbis', 'ape'],
    output_format: 'text',
  },
  video: { suffix: ['mp4', 'avi', 'mkv'], output_format: 'text', prompt: '' },
  epub: { suffix: ['epub'], output_format: 'json' },
};

export interface ParserSetup {
  suffix: string[];
  output_format: string;
  parse_method?: string;
  flatten_media_to_text?: boolean;
  remove_toc?: boolean;
  remove_header_footer?: boolean;
  [key: string]: unknown;
}

export interface ParserParams {
  setups: Partial<Record<ParserFileType, ParserSetup>>;
  [key: string]: unknown;
}

function canonicalType(key: string): ParserFileType | null {
  if ((PARSER_FILE_TYPES as readonly string[]).includes(key)) return key as ParserFileType;
  return TYPE_ALIASES[key] ?? null;
}

function isKnownType(key: string): boolean {
  return canonicalType(key) !== null;
}

const SetupSchema = lazySchema(() =>
  z.looseObject({
    suffix: z.preprocess(
      (v) => (v === null || v === '' ? undefined : typeof v === 'string' ? [v] : v),
      z.array(z.string().transform((s) => s.replace(/^\./, '').toLowerCase())).optional(),
    ),
    output_format: z.preprocess((v) => (v === null || v === '' ? undefined : v), z.string().optional()),
    parse_method: z.preprocess((v) => (v === null ? undefined : v), z.string().optional()),
    flatten_media_to_text: z.preprocess((v) => (v === null ? undefined : v), z.boolean().optional()),
    remove_toc: z.preprocess((v) => (v === null ? undefined : v), z.boolean().optional()),
    remove_header_footer: z.preprocess((v) => (v === null ? undefined : v), z.boolean().optional()),
  }),
);

function checkSetup(type: string, setup: { output_format?: string; parse_method?: string }, path: (string | number)[], ctx: z.RefinementCtx): void {
  const canonical = canonicalType(type);
  if (!canonical) return;
  const allowed = ALLOWED_OUTPUT_FORMATS[canonical];
  const format = setup.output_format ?? (DEFAULT_SETUPS[canonical].output_format as string);
  if (allowed && !allowed.includes(format))
    ctx.addIssue({
      code: 'custom',
      path: [...path, 'output_format'],
      message: `${type} output format "${format}" is not supported, it should be one of ${allowed.join(', ')}`,
    });
  if (canonical === 'pdf' && setup.parse_method !== undefined && setup.parse_method.trim() === '')
    ctx.addIssue({ code: 'custom', path: [...path, 'parse_method'], message: 'PDF parse method must not be empty' });
}

export const ParserParamsSchema = lazySchema(() =>
  z
    .looseObject({ setups: z.preprocess((v) => (v === null || v === '' ? undefined : v), z.record(z.string(), SetupSchema).optional()) })
    .superRefine((p, ctx) => {
      const raw = p as Record<string, unknown>;
      if (p.setups && Object.keys(p.setups).length > 0) {
        for (const [type, setup] of Object.entries(p.setups)) checkSetup(type, setup, ['setups', type], ctx);
        return;
      }
      for (const [key, value] of Object.entries(raw)) {
        if (key === 'setups' || !isKnownType(key)) continue;
        const parsed = SetupSchema.safeParse(value);
        if (!parsed.success) {
          for (const issue of parsed.error.issues)
            ctx.addIssue({ code: 'custom', path: [key, ...(issue.path as (string | number)[])], message: issue.message });
          continue;
        }
        checkSetup(key, parsed.data, [key], ctx);
      }
    })
    .transform((p): ParserParams => {
      const raw = p as Record<string, unknown>;
      let given: Array<[string, Record<string, unknown>]>;
      if (p.setups && Object.keys(p.setups).length > 0) given = Object.entries(p.setups);
      else {
        given = Object.entries(raw)
          .filter(([k, v]) => k !== 'setups' && isKnownType(k) && typeof v === 'object' && v !== null)
          .map(([k, v]) => [k, SetupSchema.parse(v)]);
      }
      // Both engines keep RAGFlow's default setups for the types a canvas does not list (Go merges
      // the flat entries over `defaultSetups()`, Python updates its default `setups`); listed ones
      // come first, so their suffixes win.
      const listed = new Set(given.map(([k]) => canonicalType(k)));
      for (const [k, v] of Object.entries(DEFAULT_SETUPS)) if (!listed.has(k as ParserFileType)) given.push([k, { ...v }]);
      const setups: Partial<Record<ParserFileType, ParserSetup>> = {};
      for (const [key, conf] of given) {
        const type = canonicalType(key);
        if (!type) continue;
        const defined = Object.fromEntries(Object.entries(conf).filter(([, v]) => v !== undefined));
        setups[type] = { ...DEFAULT_SETUPS[type], ...(setups[type] ?? {}), ...defined } as ParserSetup;
      }
      return { setups };
    }),
);

/** The setup (and its type) a file name's suffix selects, as RAGFlow matches them: the first whose suffixes include it, else the setup of the file's family. */
export function setupForFile(params: ParserParams, name: string): { type: ParserFileType; setup: ParserSetup } | null {
  const ext = (name.split('.').pop() ?? '').toLowerCase();
  for (const [type, setup] of Object.entries(params.setups) as Array<[ParserFileType, ParserSetup]>) {
    if (setup.suffix.map((s) => s.toLowerCase()).includes(ext)) return { type, setup };
  }
  // The Go engine picks the setup by the file's family, whatever the setup's suffix list says
  // (`.csv` reaches a spreadsheet setup listing only xls and xlsx).
  const family = (Object.entries(DEFAULT_SETUPS) as Array<[ParserFileType, { suffix?: unknown }]>).find(
    ([, d]) => Array.isArray(d.suffix) && d.suffix.includes(ext),
  )?.[0];
  const setup = family ? params.setups[family] : undefined;
  return family && setup ? { type: family, setup } : null;
}
