import { crc32, deflateSync, inflateSync } from 'node:zlib';

/** A real PNG of `width` x `height` opaque grey pixels (valid chunks and CRCs: pdfkit draws it). */
export function pngImage(width = 8, height = 4): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB
  const rows = Buffer.alloc((width * 3 + 1) * height, 0x80);
  for (let y = 0; y < height; y++) rows[y * (width * 3 + 1)] = 0; // filter byte: none
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The first bytes of a JPEG (SOI and a JFIF APP0 segment): what file-type recognises. */
export const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0, 0,
]);

export interface Part {
  field: string;
  name: string;
  bytes: Buffer;
  type?: string;
}

/** A multipart body built by the platform's FormData, as a browser would send it. */
export async function multipart(fields: Record<string, string>, files: Part[]) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  for (const f of files) form.append(f.field, new Blob([new Uint8Array(f.bytes)], { type: f.type ?? 'application/octet-stream' }), f.name);
  const res = new Response(form);
  return { payload: Buffer.from(await res.arrayBuffer()), headers: { 'content-type': res.headers.get('content-type')! } };
}

/**
 * The text a PDF shows: every content stream inflated, and the strings of its text operators
 * (`Tj`, and the pieces of each `TJ` array, which pdfkit splits for kerning) joined per operator.
 */
export function pdfText(pdf: Buffer): string {
  const source = pdf.toString('latin1');
  const texts: string[] = [];
  const streams = /<<([^>]*?)\/Length (\d+)([^>]*?)>>\s*stream\r?\n/g;
  for (let m = streams.exec(source); m; m = streams.exec(source)) {
    const start = m.index + m[0].length;
    const raw = pdf.subarray(start, start + Number(m[2]));
    const dict = m[1]! + m[3]!;
    if (/\/Subtype\s*\/Image/.test(dict)) continue;
    let content: string;
    try {
      content = (/\/FlateDecode/.test(dict) ? inflateSync(raw) : raw).toString('latin1');
    } catch {
      continue;
    }
    const decode = (piece: string) =>
      piece.startsWith('<') ? Buffer.from(piece.slice(1, -1), 'hex').toString('latin1') : piece.slice(1, -1).replace(/\\(.)/g, '$1');
    for (const op of content.matchAll(
      /\[((?:<[0-9a-fA-F]*>|\((?:\\.|[^\\)])*\)|[-\d.\s])*)\]\s*TJ|(<[0-9a-fA-F]*>|\((?:\\.|[^\\)])*\))\s*Tj/g,
    )) {
      const pieces = op[1] !== undefined ? (op[1].match(/<[0-9a-fA-F]*>|\((?:\\.|[^\\)])*\)/g) ?? []) : [op[2]!];
      texts.push(pieces.map(decode).join(''));
    }
  }
  return texts.join('\n');
}
