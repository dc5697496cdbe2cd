// One step of the README's signing-key rotation on KEYS_FILE, run inside an auth-server container
// (its `jose`, its keys volume) by `scripts/containers rotate-keys`:
//   add      append a new ES256 key: published at /api/oauth/jwks after a restart, not yet signing
//   promote  move the newest key to the front: it signs from the next restart on
//   retire   remove the older key of the front key's algorithm (once its tokens have expired)
// Prints the key ids in their new order.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { exportJWK, generateKeyPair } from 'jose';

const step = process.argv.slice(1).filter((a) => a !== '-')[0];
const file = process.env.KEYS_FILE;
const jwks = JSON.parse(readFileSync(file, 'utf8'));
if (step === 'add') {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  jwks.keys.push({ ...(await exportJWK(privateKey)), kid: `es256-${Date.now()}`, alg: 'ES256', use: 'sig' });
} else if (step === 'promote') {
  jwks.keys.unshift(jwks.keys.pop());
} else if (step === 'retire') {
  const front = jwks.keys[0];
  const older = jwks.keys.findIndex((k, i) => i > 0 && k.alg === front.alg && k.kty === front.kty);
  if (older < 0) throw new Error(`no older ${front.alg} key to retire`);
  jwks.keys.splice(older, 1);
} else {
  throw new Error('usage: add | promote | retire');
}
writeFileSync(`${file}.new`, JSON.stringify(jwks, null, 2), { mode: 0o600 });
renameSync(`${file}.new`, file);
console.log(JSON.stringify({ keys: jwks.keys.map((k) => `${k.kid} (${k.alg})`) }));
