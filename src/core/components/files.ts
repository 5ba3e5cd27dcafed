/**
 * Files in workflow history travel by reference, never as bytes: an uploaded file a run reads
 * (`sys.files`, a Begin or UserFillUp file input) is the marker `⟦file:<id>⟧`, which the model
 * activity expands (a document's parsed text, an image as an `image_url` part); a file a run makes
 * (DocGenerator, ExcelProcessor, a Browser download) is RAGFlow's download info, a small dict
 * pointing at the download route. Pure.
 */

/** Matches `⟦file:<id>⟧` markers; group 1 is the id. */
export const FILE_MARKER = /⟦file:([A-Za-z0-9_-]+)⟧/g;

export function fileMarker(id: string): string {
  return `⟦file:${id}⟧`;
}

/** The ids of the file markers in a value (strings, lists and dicts walked). */
export function fileIdsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    for (const m of value.matchAll(FILE_MARKER)) if (!out.includes(m[1]!)) out.push(m[1]!);
  } else if (Array.isArray(value)) for (const v of value) fileIdsIn(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) fileIdsIn(v, out);
  return out;
}

/** Where a file a run made is downloaded (RAGFlow's attachment route). */
export function downloadPath(id: string): string {
  return `/api/v1/agents/attachments/${id}/download`;
}

/** RAGFlow's download info (DocGenerator's `download` output), without the file's bytes. */
export interface DownloadInfo {
  doc_id: string;
  filename: string;
  mime_type: string;
  size: number;
  download_url: string;
  preview_url?: string;
  include_download_info_in_content?: boolean;
}

/** RAGFlow's `Message._is_download_info`: a dict (or its JSON text) with doc_id, filename and mime_type. */
export function downloadInfos(value: unknown): DownloadInfo[] {
  let v = value;
  if (typeof v === 'string') {
    const t = v.trim();
    if (!t.startsWith('{') && !t.startsWith('[')) return [];
    try {
      v = JSON.parse(t);
    } catch {
      return [];
    }
  }
  const isInfo = (x: unknown): x is DownloadInfo =>
    typeof x === 'object' && x !== null && !Array.isArray(x) && 'doc_id' in x && 'filename' in x && 'mime_type' in x;
  if (isInfo(v)) return [v];
  if (Array.isArray(v) && v.length > 0 && v.every(isInfo)) return v;
  return [];
}

/** A download as `message_end.downloads` lists it (RAGFlow drops the content flag). */
export function publicDownload(d: DownloadInfo): Record<string, unknown> {
  const { include_download_info_in_content: _flag, ...rest } = d;
  return rest;
}

/** RAGFlow's `attachment` output (ExcelProcessor, a Message's own conversion): `{doc_id, format, file_name}`. */
export function isAttachment(v: unknown): v is { doc_id: string; format: string; file_name: string } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'doc_id' in v && 'file_name' in v && 'format' in v;
}
