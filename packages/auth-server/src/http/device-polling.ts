/**
 * The pace of a device polling for its pairing (RFC 8628 §3.5): the token endpoint's shortcut for
 * `grant_type=urn:ietf:params:oauth:grant-type:device_code` (oidc-provider answers
 * `authorization_pending` but never `slow_down`). A device polls at most once per interval, 5 seconds
 * to start with (the default a client assumes when the device authorization names none); a poll
 * sooner is answered `slow_down` and the interval grows by 5 seconds for every later poll of that
 * code. The state is two Redis keys per device code (by a hash of it, never the code): the current
 * interval, and a marker that lives a second less than it (a client waiting exactly its interval is
 * never early). Only a device code that exists is paced (one EXISTS, which writes nothing): this step
 * runs before the row's rate limit, so pacing made-up codes would let anyone write keys and get
 * answers past that limit. Everything else goes on to the row's rate limit, client authentication and
 * oidc-provider.
 */
import { createHash } from 'node:crypto';
import { DEVICE_CODE_GRANT_TYPE, SlowDownError, type RedisClient } from '@school/shared';
import type { Middleware } from 'koa';
import { modelKey } from '../storage/redis-keys.js';
import { requestForm } from './request-form.js';

/** Seconds between polls a device starts with (RFC 8628 §3.2's default). */
export const DEVICE_POLL_INTERVAL = 5;

/** The step; `codeSeconds` is how long a device code lives (the keys live as long). */
export function devicePolling(redis: RedisClient, prefix: string, codeSeconds: number): Middleware {
  /** The new interval when this poll came too soon; undefined when it may go on. */
  async function tooSoon(intervalKey: string, markKey: string): Promise<number | undefined> {
    const interval = Number(await redis.get(intervalKey)) || DEVICE_POLL_INTERVAL;
    if (await redis.set(markKey, '1', 'PX', (interval - 1) * 1000, 'NX')) return undefined;
    const longer = interval + 5;
    await redis.set(intervalKey, String(longer), 'EX', codeSeconds);
    await redis.set(markKey, '1', 'PX', (longer - 1) * 1000);
    return longer;
  }

  return async function paceDevicePolling(ctx, next) {
    const form = ctx.method === 'POST' ? await requestForm(ctx) : undefined;
    const code =
      typeof form === 'object' &&
      form.get('grant_type') === DEVICE_CODE_GRANT_TYPE &&
      form.get('device_code');
    if (!code) {
      await next();
      return;
    }
    if (!(await redis.exists(modelKey(prefix, 'DeviceCode', code)).catch(() => 0))) {
      await next();
      return;
    }
    const id = createHash('sha256').update(code).digest('base64url');
    const intervalKey = `${prefix}devicePollInterval:${id}`;
    const markKey = `${prefix}devicePolled:${id}`;
    const early = await tooSoon(intervalKey, markKey).catch(() => undefined); // Redis down: let it through
    if (early) throw new SlowDownError(early);
    await next();
  };
}
