/**
 * The Access register page (admins only): a page of the register (access-register.ts) at a time,
 * whole accounts per page, and its downloads, the same rows as CSV (register-csv.ts) or JSON, streamed
 * an account at a time as `school-auth grants export` writes them (the JSON: register-json.ts).
 */
import { once } from 'node:events';
import { PassThrough, type Writable } from 'node:stream';
import { terminalJson } from '@school/shared';
import { z } from 'zod';
import { sendPage } from '../pages/html.js';
import { accessRegister, registerPage, type RegisterDeps } from './access-register.js';
import { optionalParam } from './list-parts.js';
import { csvCells, registerCsv } from './register-csv.js';
import { registerJson } from './register-json.js';
import { registerPageView } from './register-views.js';
import type { AccountStep } from './signed-in.js';

/** Rows a page of the register asks for (a page ends with a whole account, so it may hold more). */
export const REGISTER_PAGE_SIZE = 50;

/** The page's GET form: where it starts. */
export const registerQuery = z.object({ after: optionalParam(z.string().max(200)) });

/** The download's GET form. */
export const exportQuery = z.object({ format: z.enum(['csv', 'json']).catch('csv') });

/** The browser went away: the download stops reading the register. */
class DownloadClosed extends Error {}

/**
 * Writes `chunk` into `to`, waiting while it is full (the browser reads slower than the register is
 * read), and stops when `out`, the response's stream, is gone.
 */
async function put(to: Writable, chunk: unknown, out: PassThrough): Promise<void> {
  if (out.destroyed) throw new DownloadClosed();
  if (to.write(chunk)) return;
  const done = new AbortController();
  await Promise.race([
    once(to, 'drain', { signal: done.signal }),
    once(out, 'close', { signal: done.signal }),
  ]).finally(() => done.abort());
  if (out.destroyed) throw new DownloadClosed();
}

/** Writes the register into `out` as `format`, then ends it; a failure ends it with the error. */
async function writeRegister(deps: RegisterDeps, format: 'csv' | 'json', out: PassThrough): Promise<void> {
  try {
    if (format === 'json') {
      let first = true;
      out.write('[');
      for await (const { rows } of accessRegister(deps))
        for (const row of rows) {
          await put(out, `${first ? '\n' : ',\n'}${terminalJson(registerJson(row))}`, out);
          first = false;
        }
      out.end(first ? ']\n' : '\n]\n');
      return;
    }
    const csv = registerCsv();
    csv.pipe(out);
    for await (const { rows } of accessRegister(deps))
      for (const row of rows) await put(csv, csvCells(row), out);
    csv.end();
  } catch (err) {
    if (!(err instanceof DownloadClosed)) out.destroy(err as Error);
  }
}

/** The page and its download. */
export function registerSteps(
  deps: RegisterDeps,
  termReview: boolean,
): { show: AccountStep; download: AccountStep } {
  return {
    show: async function showRegister(ctx) {
      const { after } = registerQuery.parse(ctx.query);
      const page = await registerPage(deps, { after, pageSize: REGISTER_PAGE_SIZE });
      sendPage(ctx, 200, registerPageView({ account: ctx.state.account, ...page, after, termReview }));
    },
    download: async function downloadRegister(ctx) {
      const { format } = exportQuery.parse(ctx.query);
      // The first account is read before answering, so a storage outage is the usual 503 page.
      await deps.accounts.list();
      const out = new PassThrough();
      ctx.status = 200;
      ctx.type = format === 'csv' ? 'text/csv; charset=utf-8; header=present' : 'application/json';
      ctx.attachment(`access-register.${format}`);
      ctx.body = out;
      void writeRegister(deps, format, out);
    },
  };
}
