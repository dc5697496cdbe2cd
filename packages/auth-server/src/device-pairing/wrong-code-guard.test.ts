/**
 * The wrong-code throttle against real Redis: an account is refused after its allowance, an address
 * after its own (whichever accounts it tries), a right code does not count, and a refusal says for
 * how long.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { SERVICES } from '../../../../test-support/auth-server.js';
import { WrongCodeGuard } from './wrong-code-guard.js';

const redis = new Redis(SERVICES.redisUrl);
afterAll(() => redis.disconnect());

const guard = () =>
  new WrongCodeGuard(redis, `test:${randomBytes(5).toString('hex')}:`, {
    perAccount: 3,
    perAddress: 5,
    windowSeconds: 900,
  });

describe('the wrong-code throttle', () => {
  it('refuses an account after its allowance, for the rest of the window', async () => {
    const g = guard();
    for (let i = 0; i < 3; i++) expect(await g.before('acct-1', '192.0.2.1')).toBe(0);
    const refused = await g.before('acct-1', '192.0.2.1');
    expect(refused).toBeGreaterThan(800);
    expect(refused).toBeLessThanOrEqual(900);
    expect(await g.before('acct-2', '192.0.2.1')).toBe(0); // another account from the same address
  });

  it('refuses an address after its allowance, whichever accounts it tries', async () => {
    const g = guard();
    for (let i = 0; i < 5; i++) expect(await g.before(`acct-${i}`, '2001:db8:1:2::1')).toBe(0);
    // Another address of the same /64 is the same address here.
    expect(await g.before('acct-9', '2001:db8:1:2::ffff')).toBeGreaterThan(0);
    expect(await g.before('acct-9', '198.51.100.7')).toBe(0);
  });

  it('does not count right codes', async () => {
    const g = guard();
    for (let i = 0; i < 10; i++) {
      expect(await g.before('acct-1', '192.0.2.1')).toBe(0);
      await g.right('acct-1', '192.0.2.1');
    }
  });
});
