import { parse as parseCsv } from 'csv-parse/sync';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { createTransport, loadRefs, type Refs } from '../transports/fixtures.js';

const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

/** Parses the CSV the endpoint sends into records (csv-parse reads what csv-stringify writes). */
const parse = (text: string): string[][] => parseCsv(text);

describe('GET /admin/reports/transports/export (exportTransportsReport)', () => {
  it('streams every matching transport as CSV in id order, across several batches', async () => {
    // 2 500 transports of a plate no other row has: more than two batches of 1 000.
    const vehicleType = refs.vehicleType('Semi-trailer truck');
    await sql`insert into transports (charger_first_name, charger_last_name, vehicle_type_id, loading_point, product_label, created_by)
      select 'Bulk', 'Load ' || n, ${vehicleType}, 'Le Havre, "Terminal de France", quai ' || n, 'Containers', ${refs.user('agent')}
      from generate_series(1, 2500) as n`.execute(t.db);
    const res = await t.call('exportTransportsReport', { token: await t.token('supervisor'), query: { search: 'Terminal de France' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="transports-\d{4}-\d{2}-\d{2}\.csv"/);
    const [header, ...rows] = parse(res.raw.body);
    expect(header).toEqual([
      'id',
      'loadingNumber',
      'status',
      'validationLevel',
      'loadingPoint',
      'unloadingPoint',
      'vehicleType',
      'vehiclePlateNumber',
      'productLabel',
      'productQuantity',
      'totalProductValue',
      'customer',
      'createdBy',
      'createdAt',
    ]);
    expect(rows).toHaveLength(2500);
    const ids = rows.map((r) => Number(r[0]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(2500);
    expect(rows[0]).toEqual([
      String(ids[0]),
      expect.stringMatching(/^TRP-\d{8}-\d{6,}$/),
      'PENDING',
      '0',
      'Le Havre, "Terminal de France", quai 1',
      '',
      'Semi-trailer truck',
      '',
      'Containers',
      '',
      '',
      '',
      'agent',
      expect.stringMatching(/Z$/),
    ]);
  });

  it('applies the filters of the list', async () => {
    const created = await createTransport(t, refs, 'agent2', { loadingPoint: 'Abidjan, port autonome', productLabel: 'Cocoa beans' });
    const res = await t.call('exportTransportsReport', {
      token: await t.token('admin'),
      query: { loadingPoint: 'abidjan, port', status: 'PENDING', createdBy: refs.user('agent2') },
    });
    const [, ...rows] = parse(res.raw.body);
    expect(rows.map((r) => [Number(r[0]), r[4], r[8], r[12]])).toEqual([[created.id, 'Abidjan, port autonome', 'Cocoa beans', 'agent2']]);
  });

  it('answers 403 to a team manager and 400 to a reversed period', async () => {
    const manager = await t.call('exportTransportsReport', { token: await t.token('manager') });
    expect(manager.status).toBe(403);
    expect(manager.body.errors).toEqual({ code: 'FORBIDDEN', requiredRoles: ['supervisor', 'admin', 'super_admin'] });
    const reversed = await t.call('exportTransportsReport', {
      token: await t.token('admin'),
      query: { startDate: '2026-02-01T00:00:00Z', endDate: '2026-01-01T00:00:00Z' },
    });
    expect(reversed.status).toBe(400);
    expect(reversed.body.errors).toEqual(['querystring/startDate must not be after endDate']);
  });
});

describe('GET /admin/reports/complaints/export (exportComplaintsReport)', () => {
  it('exports the complaints with the list filters, quoting what needs it', async () => {
    const transport = await createTransport(t, refs, 'agent');
    const filed = await t.call('createComplaint', {
      token: await t.token('agent'),
      body: { transportId: transport.id, label: 'Wet pallets, "urgent"', amountPaid: 99.5, customerId: refs.customer('Fatou') },
    });
    const res = await t.call('exportComplaintsReport', { token: await t.token('supervisor'), query: { label: 'wet pallets' } });
    expect(res.status).toBe(200);
    const [header, ...rows] = parse(res.raw.body);
    expect(header).toEqual([
      'id',
      'publicId',
      'label',
      'status',
      'complaintType',
      'transportId',
      'customer',
      'amountPaid',
      'timeLost',
      'createdBy',
      'assignedTo',
      'createdAt',
      'resolvedAt',
    ]);
    expect(rows).toEqual([
      [
        String(filed.body.result.id),
        filed.body.result.publicId,
        'Wet pallets, "urgent"',
        'PENDING',
        '',
        String(transport.id),
        expect.stringContaining('Fatou'),
        '99.5',
        '',
        'agent',
        '',
        expect.stringMatching(/Z$/),
        '',
      ],
    ]);
    expect(res.raw.body).toContain('"Wet pallets, ""urgent"""');
  });

  it('answers an empty file (header only) when nothing matches, and 403 to an agent', async () => {
    const res = await t.call('exportComplaintsReport', { token: await t.token('admin'), query: { label: 'no such complaint label' } });
    expect(parse(res.raw.body)).toHaveLength(1);
    expect((await t.call('exportComplaintsReport', { token: await t.token('agent') })).status).toBe(403);
  });
});
