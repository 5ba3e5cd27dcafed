/**
 * What RAGFlow's document routes accept (api/apps/restful_apis/document_api.py): the file types an
 * upload takes, its UpdateDocumentReq, and how a stored document is sent back as a file.
 */
import type { FastifyReply } from 'fastify';
import { documentTypeOf } from '../../src/io/knowledge/parse';
import type { DocumentRecord } from '../../src/io/store/knowledgeTypes';
import { INVALID, py, pyStr } from '../pyValidate';
import { parserConfigModel } from '../services/parserConfigModel';

export const FILE_NAME_LEN_LIMIT = 255;

/** RAGFlow's `filename_type`: the types it accepts on upload (only some of which we can parse). */
const RAGFLOW_TYPES =
  /\.(pdf|msg|eml|doc|docx|ppt|pptx|yml|xml|htm|json|jsonl|ldjson|csv|txt|ini|xls|xlsx|wps|rtf|hlp|pages|numbers|key|md|mdx|py|js|java|c|cpp|h|php|go|ts|sh|cs|kt|html|sql|epub|wav|flac|ape|alac|wavpack|wv|mp3|aac|ogg|vorbis|opus|jpg|jpeg|png|tif|gif|bmp|pcx|tga|exif|fpx|svg|psd|cdr|pcd|dxf|ufo|eps|ai|raw|wmf|webp|avif|apng|icon|ico|mpg|mpeg|avi|rm|rmvb|mov|wmv|asf|dat|asx|wvx|mpe|mpa|mp4|mkv)$/i;

export function storedType(name: string): string | null {
  const t = documentTypeOf(name);
  if (t) return t;
  if (!RAGFLOW_TYPES.test(name)) return null;
  return name.slice(name.lastIndexOf('.') + 1).toLowerCase();
}

const MIME: Record<string, string> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  html: 'text/html',
  json: 'application/json',
  csv: 'text/csv',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  eml: 'message/rfc822',
};

const DOC_CHUNK_METHODS = [
  'naive',
  'manual',
  'qa',
  'table',
  'paper',
  'book',
  'laws',
  'presentation',
  'picture',
  'one',
  'knowledge_graph',
  'email',
  'audio',
  'tag',
];

const metaValue = (v: unknown) => typeof v === 'string' || typeof v === 'number';

/** RAGFlow's UpdateDocumentReq (strict types, unknown fields ignored). */
export const updateDocumentModel = py.model(
  'UpdateDocumentReq',
  {
    name: { v: py.nullable(py.str({ strict: true, max: 65535 })) },
    chunk_method: {
      v: py.nullable(
        py.pipe(py.str({ strict: true, max: 65535 }), (v, loc, errors, input) => {
          if (v && !DOC_CHUNK_METHODS.includes(v as string)) {
            errors.push({ loc, msg: `\`chunk_method\` ${String(v)} doesn't exist`, input });
            return INVALID;
          }
          return v;
        }),
      ),
    },
    pipeline_id: { v: py.nullable(py.str({ strict: true, max: 65535 })) },
    enabled: { v: py.nullable(py.int({ strict: true, ge: 0, le: 1 })) },
    chunk_count: { v: py.nullable(py.int({ strict: true, ge: 0 })) },
    token_count: { v: py.nullable(py.int({ strict: true, ge: 0 })) },
    progress: { v: py.nullable(py.float({ strict: true, ge: 0, le: 1 })) },
    parser_config: { v: py.nullable(parserConfigModel) },
    meta_fields: {
      v: py.nullable(
        py.pipe(py.dict(), (v, loc, errors, input) => {
          for (const x of Object.values(v as Record<string, unknown>)) {
            if (Array.isArray(x)) {
              if (!x.every(metaValue)) {
                errors.push({ loc, msg: `The type is not supported in list: ${pyStr(x)}`, input });
                return INVALID;
              }
            } else if (!metaValue(x)) {
              errors.push({ loc, msg: `The type is not supported: ${pyStr(x)}`, input });
              return INVALID;
            }
          }
          return v;
        }),
      ),
    },
  },
  { extra: 'ignore' },
);

export const suffixOf = (name: string) => {
  const base = name.slice(name.lastIndexOf('/') + 1).toLowerCase();
  const dot = base.lastIndexOf('.');
  return dot > 0 && dot < base.length - 1 ? base.slice(dot) : '';
};

/** A stored document as its file: RAGFlow's download answer. */
export function sendDocument(reply: FastifyReply, doc: DocumentRecord, content: Uint8Array): FastifyReply {
  const ext = doc.name.slice(doc.name.lastIndexOf('.') + 1).toLowerCase();
  return reply
    .header('content-type', MIME[ext] ?? 'application/octet-stream')
    .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(doc.name)}`)
    .send(Buffer.from(content));
}
