import { randomBytes } from 'node:crypto';

export interface Part {
  name: string;
  /** A file part when set. */
  filename?: string;
  contentType?: string;
  data: Buffer | string;
}

/** A multipart/form-data body built by hand, so tests can send exactly what a client (or a broken one) would. */
export function multipart(parts: Part[], o: { boundary?: string } = {}): { payload: Buffer; contentType: string } {
  const boundary = o.boundary ?? `----memorybook${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.contentType ? `Content-Type: ${p.contentType}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(head), Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The usual upload: one part named `file`. */
export function fileUpload(data: Buffer, o: { filename?: string; contentType?: string } = {}) {
  return multipart([{ name: 'file', filename: o.filename ?? 'upload.bin', contentType: o.contentType ?? 'application/octet-stream', data }]);
}
