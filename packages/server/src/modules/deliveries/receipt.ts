/** What a proof-of-delivery receipt shows. */
export interface ReceiptContent {
  loadingNumber: string;
  route: { from: string; to: string };
  product: string;
  vehiclePlate: string;
  shipper: string;
  customer: string | null;
  createdAt: Date;
  deliveredAt: Date;
  receiverName: string;
  note: string | null;
  recordedBy: string;
  signature: Buffer;
  photoCount: number;
}

const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });
const when = (d: Date) => `${dateTime.format(d)} UTC`;

/** The receipt as an A4 portrait PDF: the transport, its parties, the times, the signature. */
export async function receiptPdf(c: ReceiptContent): Promise<Buffer> {
  // Loaded on the first receipt, not at start (pdfkit costs ~0.2 s of CPU to load).
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: 56,
    info: { Title: `Proof of delivery ${c.loadingNumber}`, Author: 'Transport Operations', Subject: 'Proof of delivery' },
  });
  const chunks: Buffer[] = [];
  const finished = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  doc.fillColor('#1E3A5F').font('Helvetica-Bold').fontSize(22).text('Proof of delivery');
  doc.moveDown(0.3).fillColor('#333333').font('Helvetica').fontSize(12).text(`Transport ${c.loadingNumber}`);
  doc.moveDown(1);
  const row = (label: string, value: string) => {
    doc.font('Helvetica-Bold').fontSize(10).fillColor('#555555').text(label.toUpperCase());
    doc.font('Helvetica').fontSize(12).fillColor('#000000').text(value);
    doc.moveDown(0.5);
  };
  row('From', c.route.from);
  row('To', c.route.to);
  row('Load', c.product);
  row('Vehicle', c.vehiclePlate);
  row('Shipper contact', c.shipper);
  row('Customer', c.customer ?? 'none recorded');
  row('Registered', when(c.createdAt));
  row('Delivered', when(c.deliveredAt));
  row('Received by', c.receiverName);
  if (c.note) row('Note', c.note);
  row('Photos of the load', String(c.photoCount));
  row('Recorded by', c.recordedBy);

  doc.font('Helvetica-Bold').fontSize(10).fillColor('#555555').text('SIGNATURE');
  const top = doc.y + 4;
  try {
    doc.image(c.signature, doc.page.margins.left, top, { fit: [240, 110] });
  } catch {
    // file-type recognised the format from its first bytes; a picture damaged beyond them is not drawn.
    doc
      .font('Helvetica-Oblique')
      .fontSize(10)
      .fillColor('#999999')
      .text('(the signature picture could not be drawn)', doc.page.margins.left, top);
  }
  doc.end();
  return finished;
}
