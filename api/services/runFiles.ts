/**
 * Files a completion names (`files`, RAGFlow's upload_info dicts or bare ids) and file values in
 * its `inputs` become `⟦file:<id>⟧` markers before the run starts: the run (and its workflow
 * history) holds references, never bytes; the model activity reads the file when it needs it.
 * Only the caller's tenant's files are found.
 */
import { fileMarker } from '../../src/core/components/files';
import { AppError } from '../../src/errors';
import type { AppDeps } from '../deps';

function idOf(item: unknown): string | null {
  if (typeof item === 'string') return item.trim() || null;
  if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
    const o = item as Record<string, unknown>;
    const id = o.id ?? o.file_id ?? o.doc_id;
    return typeof id === 'string' && id ? id : null;
  }
  return null;
}

/** The completion's `files` as markers; an unknown or another tenant's file is refused by its index. */
export async function filesAsMarkers(deps: AppDeps, tenantId: string, files: unknown[]): Promise<string[]> {
  if (files.length === 0) return [];
  const ids = files.map(idOf);
  const found = await deps.store.files.metas(
    tenantId,
    ids.filter((id): id is string => id !== null),
  );
  return ids.map((id, i) => {
    if (!id || !found.has(id)) {
      const message = id
        ? `file ${id} was not found (upload it with POST /api/v1/agents/{agent_id}/upload)`
        : 'must be an uploaded file (its id or upload_info)';
      throw new AppError('BAD_REQUEST', `files[${i}]: ${message}`, { problems: [{ path: `$.body.files[${i}]`, message }] });
    }
    return fileMarker(id);
  });
}

/** An upload_info dict (what the upload route answered). */
function isUploadInfo(v: unknown): v is { id: string } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { id?: unknown }).id === 'string' && 'mime_type' in v && 'name' in v;
}

/**
 * File values of `inputs` (an upload_info, a list of them, or RAGFlow's `{type: "file", value}`)
 * as markers. Values naming no file of the tenant are left as they are.
 */
export async function inputFilesAsMarkers(deps: AppDeps, tenantId: string, inputs: Record<string, unknown> | null): Promise<Record<string, unknown> | null> {
  if (!inputs) return inputs;
  const ids: string[] = [];
  const scan = (v: unknown): void => {
    if (isUploadInfo(v)) ids.push(v.id);
    else if (Array.isArray(v)) v.forEach(scan);
    else if (typeof v === 'object' && v !== null && String((v as { type?: unknown }).type ?? '').includes('file')) scan((v as { value?: unknown }).value);
  };
  Object.values(inputs).forEach(scan);
  if (ids.length === 0) return inputs;
  const found = await deps.store.files.metas(tenantId, ids);
  const convert = (v: unknown): unknown => {
    if (isUploadInfo(v)) return found.has(v.id) ? fileMarker(v.id) : v;
    if (Array.isArray(v)) return v.map(convert);
    if (typeof v === 'object' && v !== null && String((v as { type?: unknown }).type ?? '').includes('file'))
      return { ...(v as Record<string, unknown>), value: convert((v as { value?: unknown }).value) };
    return v;
  };
  return Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, convert(v)]));
}
