/**
 * RS3's floor: one Redis `GET` of the presented token and its claims as the answer, on bare
 * `node:http`; no client authentication, grant check, rate limit or log line.
 */
import { createServer } from 'node:http';
import { text } from 'node:stream/consumers';
import { Redis } from 'ioredis';
import { modelKey } from '@school/auth-server/dist/storage/redis-keys.js';

const prefix = process.env.REDIS_KEY_PREFIX ?? '';
const redis = new Redis(process.env.REDIS_URL!, { enableAutoPipelining: true });

async function answer(form: URLSearchParams): Promise<object> {
  const token = form.get('token');
  const json = token ? await redis.get(modelKey(prefix, 'AccessToken', token)) : null;
  if (!json) return { active: false };
  const t = JSON.parse(json) as Record<string, unknown>;
  const { accountId: sub, clientId: client_id, scope, exp, iat, aud } = t;
  return { active: true, sub, client_id, scope, exp, iat, aud, token_type: 'Bearer' };
}

createServer((req, res) => {
  // Anything but a POST (the bench's readiness probe) answers an empty object.
  const reply =
    req.method === 'POST' ? text(req).then((b) => answer(new URLSearchParams(b))) : Promise.resolve({});
  reply.then(
    (body) =>
      res
        .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        .end(JSON.stringify(body)),
    () =>
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"temporarily_unavailable"}'),
  );
}).listen(Number(process.env.PORT), '127.0.0.1');
