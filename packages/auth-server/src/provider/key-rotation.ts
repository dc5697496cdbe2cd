/**
 * The steps of rotating the signing keys in KEYS_FILE (docs/operators.md, "Rotating signing keys"),
 * for `school-auth keys`. The first key of each algorithm signs; every key is published for
 * verification. So a rotation is three steps, each followed by a restart of every instance:
 *
 *   add       a new key at the end of the file: published, not yet signing
 *   activate  that key to the front: it signs from now on, the old one still verifies
 *   retire    an old key, once what it signed has expired
 *
 * The file is rewritten whole through a temporary file and a rename (mode 0600), so an instance
 * starting meanwhile reads the old set or the new one, never half of one.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { generateSigningKey, parseKeySet, type SigningJwk, SIGNING_ALGORITHMS } from './keys.js';

/** A key as `keys list` shows it. */
export interface KeySummary {
  kid: string;
  alg: string;
  /** `signing`: the first key of its algorithm; `verification`: published, signs nothing. */
  role: 'signing' | 'verification';
}

/** A step refused, with the reason in words. */
export class KeyRotationRefused extends Error {}

/** What each key of `keys` does. */
export function describeKeys(keys: SigningJwk[]): KeySummary[] {
  return keys.map((k) => ({
    kid: k.kid,
    alg: k.alg,
    role: keys.find((other) => other.alg === k.alg) === k ? 'signing' : 'verification',
  }));
}

async function readKeys(file: string): Promise<SigningJwk[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new KeyRotationRefused(`there is no key file at ${file} (KEYS_FILE)`);
    throw err;
  }
  return parseKeySet(text, file);
}

async function writeKeys(file: string, keys: SigningJwk[]): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ keys }, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

function findKey(keys: SigningJwk[], kid: string, file: string): SigningJwk {
  const key = keys.find((k) => k.kid === kid);
  if (!key) throw new KeyRotationRefused(`there is no key ${kid} in ${file}`);
  return key;
}

/** Adds a new key of `alg` at the end of the file (published, not signing); returns it, described. */
export async function addKey(file: string, alg: string): Promise<KeySummary> {
  const algorithm = SIGNING_ALGORITHMS.find((a) => a === alg);
  if (!algorithm)
    throw new KeyRotationRefused(`the algorithm must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
  const keys = await readKeys(file);
  const key = await generateSigningKey(algorithm);
  await writeKeys(file, [...keys, key]);
  return { kid: key.kid, alg: key.alg, role: 'verification' };
}

/** Moves the key `kid` to the front, so it signs for its algorithm; returns every key, described. */
export async function activateKey(file: string, kid: string): Promise<KeySummary[]> {
  const keys = await readKeys(file);
  const key = findKey(keys, kid, file);
  const next = [key, ...keys.filter((k) => k !== key)];
  await writeKeys(file, next);
  return describeKeys(next);
}

/**
 * Removes the key `kid`; refused for the key that signs for its algorithm (activate another first),
 * which is also the case of the only key of an algorithm. Returns the keys left, described.
 */
export async function retireKey(file: string, kid: string): Promise<KeySummary[]> {
  const keys = await readKeys(file);
  const key = findKey(keys, kid, file);
  if (describeKeys(keys).find((k) => k.kid === kid)?.role === 'signing')
    throw new KeyRotationRefused(`${kid} signs ${key.alg} tokens now: activate another ${key.alg} key first`);
  const next = keys.filter((k) => k !== key);
  await writeKeys(file, next);
  return describeKeys(next);
}

/** Every key of the file, described. */
export async function listKeys(file: string): Promise<KeySummary[]> {
  return describeKeys(await readKeys(file));
}
