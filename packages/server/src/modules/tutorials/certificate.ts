import { randomInt } from 'node:crypto';

const CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A random 12-character verification code over [A-Z0-9] (uniqueness is the database's job). */
export function newCertificateCode(): string {
  let code = '';
  for (let i = 0; i < 12; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

export interface CertificateContent {
  holder: string;
  tutorialTitle: string;
  completedAt: Date;
  code: string;
  verifyUrl: string;
}

const longDate = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/** The certificate as an A4 landscape PDF, with a QR code of the verification address. */
export async function certificatePdf(c: CertificateContent): Promise<Buffer> {
  // Loaded on the first certificate, not at start: pdfkit alone costs ~0.2 s of CPU to load.
  const [{ default: PDFDocument }, { default: QRCode }] = await Promise.all([import('pdfkit'), import('qrcode')]);
  const qr = await QRCode.toBuffer(c.verifyUrl, { type: 'png', errorCorrectionLevel: 'M', margin: 1, width: 300 });
  const doc = new PDFDocument({
    size: 'A4',
    layout: 'landscape',
    margin: 60,
    info: { Title: `Certificate ${c.code}`, Author: 'Transport Operations', Subject: c.tutorialTitle },
  });
  const chunks: Buffer[] = [];
  const finished = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const { width, height } = doc.page;
  const inner = width - 120;
  doc
    .lineWidth(3)
    .strokeColor('#1E3A5F')
    .rect(30, 30, width - 60, height - 60)
    .stroke();
  doc
    .lineWidth(1)
    .rect(40, 40, width - 80, height - 80)
    .stroke();

  const centred = { width: inner, align: 'center' } as const;
  const line = (gap: number, color: string, font: string, size: number, text: string) =>
    doc.moveDown(gap).fillColor(color).font(font).fontSize(size).text(text, centred);
  doc.fillColor('#1E3A5F').font('Helvetica-Bold').fontSize(30).text('Certificate of Completion', 60, 90, centred);
  line(1.2, '#333333', 'Helvetica', 14, 'This certifies that');
  line(0.6, '#000000', 'Helvetica-Bold', 26, c.holder);
  line(0.6, '#333333', 'Helvetica', 14, 'has completed the tutorial');
  line(0.6, '#1E3A5F', 'Helvetica-Bold', 20, c.tutorialTitle);
  line(0.8, '#333333', 'Helvetica', 13, `on ${longDate.format(c.completedAt)}`);

  const qrSize = 110;
  const qrTop = height - 60 - qrSize - 20;
  doc.image(qr, width - 60 - qrSize - 10, qrTop, { width: qrSize, height: qrSize });
  doc.fillColor('#333333').font('Helvetica').fontSize(11);
  doc.text(`Verification code: ${c.code}`, 70, qrTop + 40);
  doc
    .fontSize(9)
    .fillColor('#666666')
    .text(`Verify at ${c.verifyUrl}`, 70, qrTop + 60, { width: inner - qrSize - 40 });

  doc.end();
  return finished;
}
