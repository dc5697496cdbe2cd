/**
 * The batched stdout destination, in real child processes (their stdout a pipe, as under Docker):
 * lines gathered below the batch size still come out within the flush interval, a full batch goes
 * out at once, and nothing gathered is lost when the process ends by `process.exit`, by SIGTERM
 * through `stopOnSignals`, or by an uncaught exception.
 */
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const sharedDist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const pinoEntry = import.meta.resolve('pino');

/** Starts a Node process running `body` with `log` (a pino logger on the destination) in scope. */
function child(body: string, flushMs = 250) {
  const script = `
    import { pino } from ${JSON.stringify(pinoEntry)};
    import { stdoutLogDestination, stopOnSignals } from ${JSON.stringify(sharedDist)};
    const log = pino({ base: null, timestamp: false }, stdoutLogDestination({ flushMs: ${flushMs} }));
    ${body}
  `;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: { at: number; text: string }[] = [];
  const started = Date.now();
  proc.stdout.on('data', (d: Buffer) => out.push({ at: Date.now() - started, text: d.toString() }));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const lines = () =>
    out
      .map((c) => c.text)
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string });
  const waitFor = async (msg: string, ms: number) => {
    for (const end = Date.now() + ms; Date.now() < end;) {
      const chunk = out.find((c) => c.text.includes(`"msg":"${msg}"`));
      if (chunk) return chunk.at;
      await new Promise((r) => setTimeout(r, 10));
    }
    return undefined;
  };
  return { proc, exited, lines, waitFor };
}

describe('stdoutLogDestination', () => {
  it('writes a lone line within the flush interval, not at once', async () => {
    const c = child(`log.info('ready'); log.info('lone'); setTimeout(() => {}, 5000);`, 400);
    try {
      const at = await c.waitFor('lone', 3000);
      // Gathered, then written by the timer 400 ms after start (a write per line would show them as
      // soon as Node is up, well under 300 ms).
      expect(at).toBeGreaterThan(300);
      expect(c.lines().map((l) => l.msg)).toEqual(['ready', 'lone']);
    } finally {
      c.proc.kill('SIGKILL');
    }
  });

  it('writes a full batch without waiting for the timer', async () => {
    const c = child(
      `for (let i = 0; i < 100; i++) log.info({ i, pad: 'x'.repeat(80) }, 'bulk'); setTimeout(() => {}, 60000);`,
      60_000,
    );
    try {
      expect(await c.waitFor('bulk', 5000)).toBeDefined();
      expect(c.lines().length).toBeGreaterThan(0);
    } finally {
      c.proc.kill('SIGKILL');
    }
  });

  it.each([
    ['process.exit', `process.exit(3);`, 3],
    ['an uncaught exception', `setImmediate(() => { throw new Error('boom'); });`, 1],
    [
      'SIGTERM handled by stopOnSignals',
      `stopOnSignals(async () => {}, log); process.kill(process.pid, 'SIGTERM'); setTimeout(() => {}, 10000);`,
      0,
    ],
  ])('loses nothing gathered when the process ends by %s', async (_how, ending, code) => {
    const c = child(`for (let i = 0; i < 5; i++) log.info({ i }, 'last words'); ${ending}`, 60_000);
    expect(await c.exited).toBe(code);
    expect(c.lines().filter((l) => l.msg === 'last words')).toHaveLength(5);
  });
});
