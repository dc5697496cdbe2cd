/**
 * The Access register as CSV, for a spreadsheet (csv-stringify, the Node.js CSV project's writer):
 *
 * - RFC 4180: comma-separated, CRLF between records, a cell quoted when it holds a comma, a quote or
 *   a line break, a quote inside doubled.
 * - Formula injection: an app's name is chosen by whoever registered it, and a spreadsheet runs a cell
 *   that starts with `=`, `+`, `-`, `@`, a tab or a carriage return (or their full-width forms) as a
 *   formula; such a cell is written with a leading `'`, which spreadsheets show as text.
 * - UTF-8 with a byte order mark: without it, Excel on Windows reads the file in the machine's legacy
 *   code page and garbles every name beyond ASCII; LibreOffice, Numbers and Google Sheets read the
 *   BOM as what it is. Scripts read `--format json` instead.
 *
 * One row per register row; the scopes in one column per data category (space-separated), then when
 * each API scope was last used (`<scope> <time>` or `<scope> never`, `; ` between). Times are UTC,
 * `YYYY-MM-DD HH:MM:SS`, which spreadsheets read as dates.
 */
import { DATA_CATEGORIES, DATA_CATEGORY_NAMES } from '@school/shared';
import { stringify, type Stringifier } from 'csv-stringify';
import type { RegisterRow } from './access-register.js';

/** The header row. */
export const CSV_COLUMNS: readonly string[] = [
  'App',
  'Client ID',
  'Kind',
  'Domain',
  'Account',
  'Role',
  'Approved by',
  ...DATA_CATEGORY_NAMES.map((c) => DATA_CATEGORIES[c]),
  'Granted at (UTC)',
  'Ends (UTC)',
  'Last used (UTC)',
  'Last used per scope (UTC)',
];

const spreadsheetTime = (iso: string | null) => (iso === null ? '' : iso.replace('T', ' ').replace('Z', ''));

/** The cells of `row`, in the order of {@link CSV_COLUMNS}. */
export function csvCells(row: RegisterRow): string[] {
  return [
    row.app.name ?? '',
    row.app.clientId,
    row.app.kind,
    row.app.domain ?? '',
    row.account.email,
    row.account.role,
    row.approvedBy,
    ...DATA_CATEGORY_NAMES.map((c) => row.scopes.find((g) => g.category === c)?.scopes.join(' ') ?? ''),
    spreadsheetTime(row.grantedAt),
    spreadsheetTime(row.endsAt),
    spreadsheetTime(row.lastUsed),
    Object.entries(row.scopeLastUsed)
      .map(([scope, at]) => `${scope} ${at === null ? 'never' : spreadsheetTime(at)}`)
      .join('; '),
  ];
}

/**
 * A stream that turns the rows written to it ({@link csvCells} each) into the CSV file, the BOM and
 * the header first (even with no row).
 */
export function registerCsv(): Stringifier {
  return stringify({
    bom: true,
    header: true,
    columns: [...CSV_COLUMNS],
    record_delimiter: 'windows',
    // Given a record delimiter, csv-stringify stops quoting a cell for a lone LF or CR unless told:
    // such a cell would split its row in two.
    quote_record_delimiter: true,
    escape_formulas: true,
  });
}
