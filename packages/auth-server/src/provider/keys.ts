/**
 * Signing keys: generated with jose on first start, then read from a file on every start, so ID
 * tokens stay verifiable across restarts and all instances sharing the file sign with the same keys.
 *
 * The file is a JWKS of private keys. The first key of each algorithm signs; every key is published
 * at the JWKS URI. To rotate (docs/operators.md, "Rotating signing keys"): add a new key at the end, restart
 * every instance so the new public key is published, then move it to the front and restart again.
 * `ES256` signs ID tokens by default (fast, small); `RS256` is there for clients that ask for it.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

/** A private signing key as oidc-provider's `jwks.keys` takes it. */
export type SigningJwk = JWK & { kid: string; alg: string; use: 'sig' };

/** The algorithms a key may have: ES256 signs ID tokens by default, RS256 for clients that ask. */
export const SIGNING_ALGORITHMS = ['ES256', 'RS256'] as const;

/** A new private signing key of `alg`, with a fresh key id. */
export async function generateSigningKey(alg: (typeof SIGNING_ALGORITHMS)[number]): Promise<SigningJwk> {
  const { privateKey } = await generateKeyPair(alg, {
    extractable: true,
    ...(alg === 'RS256' ? { modulusLength: 2048 } : {}),
  });
  return { ...(await exportJWK(privateKey)), kid: `${alg.toLowerCase()}-${randomUUID()}`, alg, use: 'sig' };
}

/** A new key set: one ES256 and one RS256 key, as the server creates on first start. */
export async function newKeySet(): Promise<SigningJwk[]> {
  return [await generateSigningKey('ES256'), await generateSigningKey('RS256')];
}

/** The keys of a JWKS file's text; throws, naming `file`, when it is not one. */
export function parseKeySet(text: string, file: string): SigningJwk[] {
  let doc: { keys?: SigningJwk[] };
  try {
    doc = JSON.parse(text) as { keys?: SigningJwk[] };
  } catch (err) {
    throw new Error(`${file}: not a JSON key set (${(err as Error).message})`);
  }
  if (typeof doc !== 'object' || doc === null) throw new Error(`${file}: not a JSON key set`);
  if (!Array.isArray(doc.keys) || doc.keys.length === 0) throw new Error(`${file}: no "keys" array`);
  for (const k of doc.keys) {
    if (!k.kid || !k.alg || !('d' in k))
      throw new Error(`${file}: every key needs kid, alg and its private part`);
  }
  return doc.keys;
}

/**
 * Reads the signing keys from `file`, creating it (mode 0600) with one ES256 and one RS256 key when
 * absent. Creation is exclusive, so two instances starting at once end up with the same keys.
 */
export async function loadOrCreateKeys(file: string): Promise<SigningJwk[]> {
  try {
    return parseKeySet(await readFile(file, 'utf8'), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const keys = await newKeySet();
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, `${JSON.stringify({ keys }, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
    return keys;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return parseKeySet(await readFile(file, 'utf8'), file); // another instance won the race
  }
}
