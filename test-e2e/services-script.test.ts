/**
 * scripts/services as an operator meets it: `status` names the ports the services were really
 * started on, not the defaults, and `stop` ends what `start` began. Run in a directory of its own
 * (the repository's scripts, a `.data/` of its own), with a real Redis on a free loopback port; the
 * MongoDB-protocol server is the suites' own (MONGODB_URI), so it is reported as external.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { freePort, portAccepts } from '../test-support/processes.js';

const ROOT = resolve(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'services-'));
symlinkSync(join(ROOT, 'scripts'), join(dir, 'scripts'));
const mongo = process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27027/school';

const services = (env: Record<string, string>, ...args: string[]) =>
  execFileSync(join(dir, 'scripts/services'), args, {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
  });

afterAll(() => {
  services({}, 'stop');
  rmSync(dir, { recursive: true, force: true });
});

describe('scripts/services', () => {
  it('reports the port Redis was started on, and stops it', async () => {
    const port = await freePort();
    services({ SERVICES_REDIS_PORT: String(port), MONGODB_URI: mongo }, 'start');
    expect(await portAccepts(port)).toBe(true);
    // A later status, without the variable that chose the port, names that port.
    expect(services({}, 'status')).toBe(`redis: 127.0.0.1:${port}\nmongo: stopped\n`);
    expect(services({ MONGODB_URI: mongo }, 'status')).toContain(`mongo: ${mongo} (external)`);
    services({}, 'stop');
    expect(await portAccepts(port)).toBe(false);
    expect(services({}, 'status')).toBe('redis: stopped\nmongo: stopped\n');
  });
});
