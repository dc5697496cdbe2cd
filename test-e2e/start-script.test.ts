/**
 * scripts/start as the README's Quick start shows it: what it prints once everything serves (the
 * README's block, line for line but for this run's ports and password), the logs it names, and a
 * clean stop. It runs on free loopback ports, on the suites' Redis and MongoDB-protocol server.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { freePort, pollUntil, startProcess, type Started } from '../test-support/processes.js';

const ROOT = resolve(import.meta.dirname, '..');
const README = readFileSync(resolve(ROOT, 'README.md'), 'utf8');

/** The block the Quick start shows as scripts/start's output: the fence after "It prints:". */
function readmeOutput(): string[] {
  const block = /It prints:\n\n```\n([\s\S]*?)^```$/m.exec(README);
  expect(block).not.toBeNull();
  return block![1]!.trimEnd().split('\n');
}

let start: Started | undefined;
afterAll(async () => {
  await start?.stop('SIGINT');
});

describe('scripts/start', () => {
  it('prints what the README shows, writes the logs it names, and stops on Ctrl-C', async () => {
    const [edge, auth, api] = await Promise.all([freePort(), freePort(), freePort()]);
    const base = `http://127.0.0.1:${edge}`;
    start = startProcess('scripts/start', resolve(ROOT, 'scripts/start'), [], {
      cwd: ROOT,
      env: { ...process.env, BASE_URL: base, AUTH_PORT: String(auth), API_PORT: String(api), NODE_ENV: '' },
    });
    await pollUntil(() => start!.tail().includes('Press Ctrl-C to stop.'), 'scripts/start to serve', 240_000);
    const printed = start
      .tail()
      .slice(start.tail().indexOf('The school API is running'))
      .trimEnd()
      .split('\n');
    // The README's block, with this run's origin, ports and password.
    const expected = readmeOutput().map((line) =>
      line
        .replaceAll('http://127.0.0.1:8080', base)
        .replace('127.0.0.1:8082', `127.0.0.1:${auth}`)
        .replace('127.0.0.1:8081', `127.0.0.1:${api}`),
    );
    expect(printed).toHaveLength(expected.length);
    printed.forEach((line, k) => {
      if (expected[k]!.includes('password')) expect(line).toMatch(/^ {2}password {4}\S+/);
      else expect(line).toBe(expected[k]);
    });
    for (const log of ['auth-server.log', 'resource-api.log', 'edge.log', 'seed.log', 'seed-school.log'])
      expect({ log, exists: existsSync(resolve(ROOT, '.data/logs', log)) }).toEqual({ log, exists: true });
    expect((await fetch(`${base}/.well-known/oauth-authorization-server`)).status).toBe(200);

    await start.stop('SIGINT');
    expect(start.tail()).toMatch(/stopped\.\s*$/);
    start = undefined;
  }, 300_000);

  it('gives the demo school a term that ends ahead, so the consent page offers "This term"', () => {
    const env = { ...process.env };
    delete env.SCHOOL_TERM_ENDS;
    const run = spawnSync(
      'bash',
      ['-c', 'source scripts/lib.sh && installation_defaults && echo "$SCHOOL_TERM_ENDS"'],
      {
        cwd: ROOT,
        env,
        encoding: 'utf8',
      },
    );
    const day = run.stdout.trim();
    expect(day).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(Date.parse(`${day}T00:00:00Z`)).toBeGreaterThan(Date.now() + 7 * 86_400_000); // weeks ahead
  });
});
