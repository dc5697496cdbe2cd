/**
 * RS3's floor: the least an introspection endpoint can do, on bare `node:http`: one Redis `GET` of the
 * presented token (the key our adapter writes) and its claims as the answer, or `{"active":false}`. No
 * client authentication, grant check, rate limit or log line. An API pointed at it pays the hop itself
 * and nothing of ours.
 *
 *   REDIS_URL=… REDIS_KEY_PREFIX=… node bench/dist/servers/bare-introspection.js PORT
 */
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { modelKey } from '@school/auth-server/dist/storage/redis-keys.js';

const port = Number(process.argv[2]);
const prefix = process.env.REDIS_KEY_PREFIX ?? '';
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: true });

interface StoredAccessToken {
  accountId?: string;
  clientId?: string;
  scope?: string;
  exp?: number;
  iat?: number;
  aud?: string | string[];
}

async function answer(form: URLSearchParams): Promise<object> {
  const token = form.get('token');
  // The key the adapter writes (a grant-bound token's key carries its grant's hash tag).
  const json = token ? await redis.get(modelKey(prefix, 'AccessToken', token)) : null;
  if (!json) return { active: false };
  const t = JSON.parse(json) as StoredAccessToken;
  return {
    active: true,
    sub: t.accountId,
    client_id: t.clientId,
    scope: t.scope,
    exp: t.exp,
    iat: t.iat,
    aud: t.aud,
    token_type: 'Bearer',
  };
}

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    // Anything but a POST (the bench's readiness probe) answers an empty object.
    const reply = req.method === 'POST' ? answer(form) : Promise.resolve({});
    reply.then(
      (body) => {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(body));
      },
      () => {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end('{"error":"temporarily_unavailable","error_description":"storage unreachable"}');
      },
    );
  });
}).listen(port, '127.0.0.1');
