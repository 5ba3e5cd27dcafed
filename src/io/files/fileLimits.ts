/** Largest file a run may store (bytes), checked where files come in: FILE_MAX_BYTES, default 20 MB. */
export function fileMaxBytes(env: Record<string, string | undefined> = process.env): number {
  const n = Number(env.FILE_MAX_BYTES);
  return Number.isFinite(n) && n > 0 ? n : 20 * 1024 * 1024;
}
