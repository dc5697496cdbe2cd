import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from '@jest/globals';
import type { RegisterRow } from './access-register.js';
import { csvCells, registerCsv } from './register-csv.js';

const row = (name: string): RegisterRow => ({
  app: { name, clientId: 'c1', kind: 'self-declared', domain: null, unavailable: false },
  account: { id: 'a1', email: 'staff@school.test', role: 'staff' },
  approvedBy: 'self',
  scopes: [{ category: 'payments', title: 'Orders and payments', scopes: ['orders:read'] }],
  grantedAt: '2026-11-01T08:00:00Z',
  endsAt: null,
  lastUsed: null,
  scopeLastUsed: { 'orders:read': '2026-11-02T09:30:00Z' },
});

/** The CSV of `rows`, after the BOM and the header. */
async function records(...rows: RegisterRow[]): Promise<string> {
  const csv = registerCsv();
  const out = buffer(csv);
  for (const r of rows) csv.write(csvCells(r));
  csv.end();
  const bytes = await out;
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // the UTF-8 byte order mark
  const all = bytes.subarray(3).toString('utf8');
  expect(all.startsWith('App,')).toBe(true);
  return all.slice(all.indexOf('\r\n') + 2);
}

describe('the Access register as CSV', () => {
  it('quotes a cell holding a lone line feed or carriage return, so it cannot split its row', async () => {
    expect(await records(row('Line\nbreak'), row('Carriage\rreturn'))).toBe(
      '"Line\nbreak",c1,self-declared,,staff@school.test,staff,self,,,orders:read,,,2026-11-01 08:00:00,,,orders:read 2026-11-02 09:30:00\r\n' +
        '"Carriage\rreturn",c1,self-declared,,staff@school.test,staff,self,,,orders:read,,,2026-11-01 08:00:00,,,orders:read 2026-11-02 09:30:00\r\n',
    );
  });

  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tTab', '＝FULLWIDTH'])(
    'writes %j as text a spreadsheet will not run',
    async (name) => {
      const first = (await records(row(name))).split(',')[0];
      expect(first).toBe(`'${name}`);
    },
  );

  it('doubles a quote inside a quoted cell (RFC 4180)', async () => {
    expect((await records(row('The "Best", app'))).split(',c1,')[0]).toBe('"The ""Best"", app"');
  });
});
