import { type Kysely, sql } from 'kysely';
import type { ComplaintStatus, Database, TransportAction, TransportStatus } from './schema.js';
import { type Clock, CUSTOMERS, need, type SeedRefs, type StaffKey } from './seed-organization.js';
import { seedTrack, trackColumns, trackSeeds } from './seed-tracking.js';

/*
 * Demo transports (with status history and documents, two of them followed on the road: see
 * seed-tracking.ts) and complaints (with history and a notification).
 */

// The action path from creation to each status, following the transport state machine (transports/rules.ts).
const PATHS: Record<TransportStatus, TransportAction[]> = {
  PENDING: ['CREATE'],
  VALIDATED: ['CREATE', 'VALIDATE'],
  IN_PROGRESS: ['CREATE', 'VALIDATE', 'START'],
  COMPLETED: ['CREATE', 'VALIDATE', 'START', 'FINISH'],
  ON_HOLD: ['CREATE', 'VALIDATE', 'START', 'REPORT_PROBLEM'],
  CANCELLED: ['CREATE', 'REJECT'],
  ARCHIVED: ['CREATE', 'VALIDATE', 'START', 'FINISH', 'ARCHIVE'],
};
const TARGET: Record<TransportAction, TransportStatus> = {
  CREATE: 'PENDING',
  VALIDATE: 'VALIDATED',
  REJECT: 'CANCELLED',
  START: 'IN_PROGRESS',
  FINISH: 'COMPLETED',
  REPORT_PROBLEM: 'ON_HOLD',
  ARCHIVE: 'ARCHIVED',
  REACTIVATE: 'PENDING',
  RESUME: 'IN_PROGRESS',
  CANCEL: 'CANCELLED',
};
const COMMENTS: Partial<Record<TransportAction, string>> = {
  VALIDATE: 'Documents checked.',
  REJECT: 'Customer cancelled the order.',
  START: 'Truck loaded and departed.',
  FINISH: 'Delivered and signed for.',
  REPORT_PROBLEM: 'Held at the border: paperwork incomplete.',
  ARCHIVE: 'Closed for the month.',
};

interface TransportSeed {
  key: string;
  by: StaffKey;
  status: TransportStatus;
  daysAgo: number;
  customer: string | null;
  vehicle: string;
  from: string;
  to: string;
  plate: string;
  product: string;
  qty: number;
  weight: number;
  price: number;
  charger: [string, string, string | null, string | null];
}

const TRANSPORTS: TransportSeed[] = [
  {
    key: 'T1',
    by: 'agent',
    status: 'PENDING',
    daysAgo: 1,
    customer: 'fatou',
    vehicle: 'Semi-trailer truck',
    from: 'Port of Casablanca',
    to: 'Dakar, Zone industrielle',
    plate: 'AB-123-CD',
    product: 'Canned tomatoes',
    qty: 1200,
    weight: 18,
    price: 14.5,
    charger: ['Hassan', 'Bennani', '+212 600 111 222', 'h.bennani@shipper.example'],
  },
  {
    key: 'T2',
    by: 'agent',
    status: 'VALIDATED',
    daysAgo: 4,
    customer: 'fatou',
    vehicle: 'Rigid truck 19 t',
    from: 'Lyon, Port Edouard Herriot',
    to: 'Marseille, Fos',
    plate: 'EF-456-GH',
    product: 'Bagged cement',
    qty: 400,
    weight: 35,
    price: 6.2,
    charger: ['Luc', 'Garnier', '+33 6 20 30 40 50', null],
  },
  {
    key: 'T3',
    by: 'agent',
    status: 'IN_PROGRESS',
    daysAgo: 6,
    customer: 'aminata',
    vehicle: 'Semi-trailer truck',
    from: 'Abidjan, Port autonome',
    to: 'Yamoussoukro',
    plate: 'CI-7788-AB',
    product: 'Cocoa beans',
    qty: 300,
    weight: 64,
    price: 180,
    charger: ['Koffi', 'Yao', null, 'k.yao@cocoa.example'],
  },
  {
    key: 'T4',
    by: 'agent',
    status: 'COMPLETED',
    daysAgo: 12,
    customer: 'pierre',
    vehicle: 'Light van',
    from: 'Paris, Rungis',
    to: 'Lyon, Part-Dieu',
    plate: 'IJ-789-KL',
    product: 'Office furniture',
    qty: 24,
    weight: 45,
    price: 210,
    charger: ['Nadia', 'Roux', '+33 6 33 44 55 66', 'n.roux@shipper.example'],
  },
  {
    key: 'T5',
    by: 'agent2',
    status: 'COMPLETED',
    daysAgo: 15,
    customer: 'aminata',
    vehicle: 'Rigid truck 19 t',
    from: 'Abidjan, Treichville',
    to: 'Bouaké',
    plate: 'CI-1234-BK',
    product: 'Rice (50 kg bags)',
    qty: 320,
    weight: 50,
    price: 27,
    charger: ['Awa', 'Traoré', '+225 01 02 03 04 05', null],
  },
  {
    key: 'T6',
    by: 'agent2',
    status: 'ON_HOLD',
    daysAgo: 9,
    customer: 'youssef',
    vehicle: 'Semi-trailer truck',
    from: 'Tanger Med',
    to: 'Casablanca, Aïn Sebaâ',
    plate: '12345-A-6',
    product: 'Auto parts',
    qty: 80,
    weight: 120,
    price: 95,
    charger: ['Omar', 'Tazi', '+212 661 000 111', null],
  },
  {
    key: 'T7',
    by: 'manager',
    status: 'CANCELLED',
    daysAgo: 20,
    customer: 'marc',
    vehicle: 'Pickup',
    from: 'Lille, Euralille',
    to: 'Amiens',
    plate: 'MN-012-OP',
    product: 'Garden tools',
    qty: 60,
    weight: 8,
    price: 35,
    charger: ['Marc', 'Durand', '+33 6 98 76 54 32', null],
  },
  {
    key: 'T8',
    by: 'manager',
    status: 'ARCHIVED',
    daysAgo: 40,
    customer: 'pierre',
    vehicle: 'Light van',
    from: 'Paris, Gennevilliers',
    to: 'Rouen',
    plate: 'QR-345-ST',
    product: 'Printed catalogues',
    qty: 150,
    weight: 12,
    price: 4.5,
    charger: ['Nadia', 'Roux', '+33 6 33 44 55 66', 'n.roux@shipper.example'],
  },
  {
    key: 'T9',
    by: 'agent2',
    status: 'PENDING',
    daysAgo: 2,
    customer: null,
    vehicle: 'Delivery motorcycle',
    from: 'Dakar, Plateau',
    to: 'Dakar, Almadies',
    plate: 'DK-4455-M',
    product: 'Medical samples',
    qty: 6,
    weight: 2,
    price: 40,
    charger: ['Ibrahima', 'Fall', '+221 76 555 44 33', null],
  },
  {
    key: 'T10',
    by: 'manager',
    status: 'IN_PROGRESS',
    daysAgo: 3,
    customer: 'youssef',
    vehicle: 'Semi-trailer truck',
    from: 'Casablanca, Port',
    to: 'Marrakech',
    plate: '67890-B-1',
    product: 'Ceramic tiles',
    qty: 900,
    weight: 22,
    price: 11,
    charger: ['Salma', 'Idrissi', null, 's.idrissi@tiles.example'],
  },
];

const DEMO_PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);
const HOUR = 3_600_000;

async function seedTransports(db: Kysely<Database>, refs: SeedRefs, at: Clock, now: Date): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const tracks = trackSeeds(at, now);
  // Oldest first, so that ids and loading numbers grow with the creation date.
  for (const t of [...TRANSPORTS].sort((a, b) => b.daysAgo - a.daysAgo)) {
    const createdAt = at(t.daysAgo, 8);
    const path = PATHS[t.status];
    const track = tracks.get(t.key);
    // Each action 6 hours after the previous one, unless the transport's track says when.
    const times = path.map((action, i) => track?.actionTimes[action] ?? new Date(createdAt.getTime() + i * 6 * HOUR));
    const row = await db
      .insertInto('transports')
      .values({
        // The number is dated like the transport, not like the seeding day.
        loading_number: sql<string>`transport_loading_number(${createdAt.toISOString()}::timestamptz)`,
        charger_first_name: t.charger[0],
        charger_last_name: t.charger[1],
        charger_phone: t.charger[2],
        charger_email: t.charger[3],
        vehicle_type_id: need(refs.vehicleTypes, t.vehicle),
        loading_point: t.from,
        unloading_point: t.to,
        vehicle_plate_number: t.plate,
        product_label: t.product,
        product_quantity: t.qty,
        average_weight: t.weight,
        average_unit_price: t.price,
        total_product_value: Math.round(t.qty * t.price * 100) / 100,
        status: t.status,
        customer_id: t.customer === null ? null : need(refs.customers, t.customer),
        created_by: refs.users[t.by],
        created_at: createdAt,
        updated_at: times.at(-1)!,
        ...(track ? trackColumns(track) : {}),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.set(t.key, row.id);
    let from: TransportStatus | null = null;
    for (const [i, action] of path.entries()) {
      const actor: StaffKey =
        action === 'CREATE' || action === 'START' || action === 'FINISH' || action === 'REPORT_PROBLEM' ? t.by : 'supervisor';
      await db
        .insertInto('transport_status_history')
        .values({
          transport_id: row.id,
          from_status: from,
          to_status: TARGET[action],
          action,
          comment: COMMENTS[action] ?? null,
          created_by: refs.users[actor],
          created_at: times[i]!,
        })
        .execute();
      from = TARGET[action];
    }
    if (track) await seedTrack(db, row.id, track, refs.users[t.by]);
  }
  const docs = [
    ['T3', 'DRIVING_LICENSE', 'driving-license-koffi-yao.pdf', 'agent'],
    ['T4', 'INSURANCE', 'insurance-certificate-2025.pdf', 'agent'],
    ['T6', 'VEHICLE_REGISTRATION', 'registration-12345-A-6.pdf', 'agent2'],
  ] as const;
  for (const [key, type, filename, by] of docs) {
    await db
      .insertInto('transport_documents')
      .values({
        transport_id: need(ids, key),
        type,
        filename,
        mime_type: 'application/pdf',
        size: DEMO_PDF.length,
        content: DEMO_PDF,
        uploaded_by: refs.users[by],
        uploaded_at: at(TRANSPORTS.find((t) => t.key === key)!.daysAgo, 9),
      })
      .execute();
  }
  return ids;
}

interface ComplaintSeed {
  transport: string;
  by: StaffKey;
  type: string;
  label: string;
  description: string;
  location: string;
  amountPaid: number;
  timeLost: number;
  daysAgo: number;
  assignedTo: StaffKey | null;
  history: [ComplaintStatus, StaffKey, string][];
}

const COMPLAINTS: ComplaintSeed[] = [
  {
    transport: 'T4',
    by: 'agent',
    type: 'Damaged goods',
    label: 'Furniture damaged on arrival',
    description: 'Two desks arrived with broken legs; the customer refused them.',
    location: 'Lyon, Part-Dieu',
    amountPaid: 350,
    timeLost: 45,
    daysAgo: 11,
    assignedTo: 'manager',
    history: [
      ['PENDING', 'agent', 'Complaint filed.'],
      ['IN_PROGRESS', 'manager', 'Taken in charge.'],
      ['RESOLVED', 'manager', 'Insurance claim accepted; the customer is refunded.'],
    ],
  },
  {
    transport: 'T5',
    by: 'agent2',
    type: 'Delivery delay',
    label: 'Three-hour delay at the Bouaké checkpoint',
    description: 'The truck waited three hours for an inspection.',
    location: 'Bouaké checkpoint',
    amountPaid: 0,
    timeLost: 180,
    daysAgo: 14,
    assignedTo: 'supervisor',
    history: [
      ['PENDING', 'agent2', 'Complaint filed.'],
      ['IN_PROGRESS', 'supervisor', 'Checking with the border authorities.'],
    ],
  },
  {
    transport: 'T6',
    by: 'agent2',
    type: 'Damaged goods',
    label: 'Cartons damaged during the border inspection',
    description: 'Customs opened six cartons and did not repack them; several parts are scratched.',
    location: 'Tanger Med',
    amountPaid: 0,
    timeLost: 60,
    daysAgo: 8,
    assignedTo: null,
    history: [['PENDING', 'agent2', 'Complaint filed.']],
  },
  {
    transport: 'T2',
    by: 'agent',
    type: 'Billing dispute',
    label: 'Unexpected toll charges on the invoice',
    description: 'The invoice includes motorway tolls that were not quoted.',
    location: 'Marseille, Fos',
    amountPaid: 86.4,
    timeLost: 0,
    daysAgo: 3,
    assignedTo: null,
    history: [['PENDING', 'agent', 'Complaint filed.']],
  },
];

async function seedComplaints(db: Kysely<Database>, refs: SeedRefs, at: Clock, transports: Map<string, number>): Promise<void> {
  for (const c of COMPLAINTS) {
    const transport = TRANSPORTS.find((t) => t.key === c.transport)!;
    const createdAt = at(c.daysAgo, 10);
    const stepAt = (i: number) => new Date(createdAt.getTime() + i * 5 * HOUR);
    const last = c.history.length - 1;
    const status = c.history[last]![0];
    const customerId = transport.customer === null ? null : need(refs.customers, transport.customer);
    const row = await db
      .insertInto('complaints')
      .values({
        label: c.label,
        description: c.description,
        status,
        location: c.location,
        amount_paid: c.amountPaid,
        time_lost: c.timeLost,
        transport_id: need(transports, c.transport),
        customer_id: customerId,
        complaint_type_id: need(refs.complaintTypes, c.type),
        country_id: need(refs.countries, 'FR'),
        created_by: refs.users[c.by],
        assigned_to: c.assignedTo === null ? null : refs.users[c.assignedTo],
        resolved_at: status === 'RESOLVED' ? stepAt(last) : null,
        created_at: createdAt,
        updated_at: stepAt(last),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const [i, [s, by, comment]] of c.history.entries()) {
      await db
        .insertInto('complaint_status_history')
        .values({
          complaint_id: row.id,
          status: s,
          comment,
          created_by: refs.users[by],
          created_by_type: 'AGENT',
          created_at: stepAt(i),
        })
        .execute();
    }
    if (status === 'RESOLVED' && customerId !== null) {
      const customer = CUSTOMERS.find((x) => x.key === transport.customer)!;
      await db
        .insertInto('complaint_notifications')
        .values({
          complaint_id: row.id,
          customer_id: customerId,
          channel: customer.email ? 'EMAIL' : 'SMS',
          recipient: customer.email ?? customer.phone ?? '',
          subject: `Your complaint "${c.label}" has been resolved`,
          body: `Dear ${customer.first} ${customer.last}, your complaint about transport ${transport.from} → ${transport.to} has been resolved: ${c.history[last]![2]}`,
          status: 'QUEUED',
          created_at: stepAt(last),
        })
        .execute();
      await db
        .insertInto('complaint_attachments')
        .values({
          complaint_id: row.id,
          uploaded_by: refs.users[c.by],
          filename: 'damage-report.pdf',
          mime_type: 'application/pdf',
          size: DEMO_PDF.length,
          content: DEMO_PDF,
          created_at: createdAt,
        })
        .execute();
    }
  }
}

export async function seedOperations(db: Kysely<Database>, refs: SeedRefs, at: Clock, now: Date): Promise<void> {
  const transports = await seedTransports(db, refs, at, now);
  await seedComplaints(db, refs, at, transports);
}
