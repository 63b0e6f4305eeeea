/** One part of a hand-made multipart body: the raw Content-Disposition (or name and file name) and optional type. */
export interface PartSpec {
  /** The whole Content-Disposition value; overrides name / filename. */
  disposition?: string;
  name?: string;
  filename?: string;
  contentType?: string;
  body: Buffer | string;
}

/** The boundary hand-made bodies use unless told otherwise. */
export const BOUNDARY = 'test-boundary-7MA4YWxkTrZu0gW';

/**
 * A multipart/form-data body built byte by byte (no library: tests need malformed and
 * tricky bodies too), with its Content-Type header.
 */
export function multipart(parts: PartSpec[], boundary = BOUNDARY): { payload: Buffer; headers: Record<string, string> } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = part.disposition ?? `form-data; name="${part.name ?? 'file'}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    let head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n`;
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(head + '\r\n', 'utf8'), Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body, 'utf8'), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A one-file multipart body: part `file` named `filename` with `body` and `contentType`. */
export function fileBody(filename: string, body: Buffer | string, contentType = 'text/plain'): { payload: Buffer; headers: Record<string, string> } {
  return multipart([{ name: 'file', filename, contentType, body }]);
}
