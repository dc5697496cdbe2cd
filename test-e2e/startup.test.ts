/**
 * A bad configuration stops each service at start-up with one message naming every problem, exit
 * code 1 and no stack trace.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';

const ROOT = resolve(import.meta.dirname, '..');

describe.each(['auth-server', 'resource-api'])('%s with a bad environment', (service) => {
  it('exits 1 naming every bad variable, without a stack trace', () => {
    const run = spawnSync(process.execPath, [`packages/${service}/dist/main.js`], {
      cwd: ROOT,
      env: { ...process.env, BASE_URL: 'http://school.example/', REDIS_URL: 'not a url', LOG_LEVEL: 'loud' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${service}: invalid configuration`);
    for (const name of ['BASE_URL', 'REDIS_URL', 'LOG_LEVEL']) expect(run.stderr).toContain(name);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
