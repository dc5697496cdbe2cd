/**
 * The memory policy of the Redis that holds the services' state: the services warn at start when it
 * evicts keys (packages/shared/src/redis-memory-policy.ts), and the project's own Redis is started
 * with `noeviction` (scripts/services). A Redis of this file's own, started with an LRU policy as
 * managed services often are, stands for the operator's.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { redisEvictionProblem } from '@school/shared';
import { SERVICES } from '../../../test-support/auth-server.js';
import {
  freePort,
  portAccepts,
  startProcess,
  waitUntil,
  type Started,
} from '../../../test-support/processes.js';

let lru: Started;
let lruClient: Redis;
let ours: Redis;

beforeAll(async () => {
  const port = await freePort();
  lru = startProcess('redis-lru', 'redis-server', [
    '--bind',
    '127.0.0.1',
    '--port',
    String(port),
    '--save',
    '',
    '--appendonly',
    'no',
    '--maxmemory',
    '64mb',
    '--maxmemory-policy',
    'allkeys-lru',
  ]);
  await waitUntil(lru, () => portAccepts(port), 'redis-server with allkeys-lru');
  lruClient = new Redis({ host: '127.0.0.1', port });
  ours = new Redis(SERVICES.redisUrl);
});
afterAll(async () => {
  lruClient.disconnect();
  ours.disconnect();
  await lru.stop();
});

describe("Redis's memory policy", () => {
  it('is called unsafe, with the fix, when Redis evicts keys', async () => {
    const problem = await redisEvictionProblem(lruClient);
    expect(problem).toContain('maxmemory-policy allkeys-lru');
    expect(problem).toContain('set maxmemory-policy noeviction');
  });

  it('is noeviction on the Redis the project starts, and then nothing is said', async () => {
    expect(await ours.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    expect(await redisEvictionProblem(ours)).toBeUndefined();
  });
});
