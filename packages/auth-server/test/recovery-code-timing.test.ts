/**
 * A recovery code costs the same work whoever it is tried for: a typed code is found by its keyed
 * hash and exactly one argon2id hash is verified (a dummy when none is found), for an account with
 * ten unused codes, one without, an unknown account, a malformed code, a right code and a spent one.
 * Counted on the real store over the real MongoDB-protocol server, with the real argon2id check
 * wrapped to count its calls; and, through a running server, the recovery form's answer for an
 * account with ten codes against one for an unknown email, their medians measured side by side.
 * Codes stored before codes had a lookup, or under a cookie secret since dropped, are never found
 * and not counted as left (docs/decisions.md).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import mongoose, { type Connection } from 'mongoose';
import { hashPassword, verifyPassword } from '../src/accounts/password.js';
import { recoveryCodeModel } from '../src/passkeys/recovery-code.model.js';
import { normaliseRecoveryCode, RecoveryCodes } from '../src/passkeys/recovery-codes.js';
import { authServerForFile, SERVICES } from '../../../test-support/auth-server.js';
import { openPasskeySignIn, signInClient } from '../../../test-support/passkey-sign-in.js';

jest.setTimeout(120_000);

const SECRET_A = `recovery-test-secret-a-${randomBytes(16).toString('hex')}`;
const SECRET_B = `recovery-test-secret-b-${randomBytes(16).toString('hex')}`;

let conn: Connection;
let verifications = 0;
/** The real argon2id check (accounts/password.ts), counted. */
const counted = (stored: string | undefined, code: string) => {
  verifications++;
  return verifyPassword(stored, code);
};

/** How many argon2id verifications `work` made, and what it answered. */
async function work<T>(run: () => Promise<T>): Promise<{ verifications: number; answer: T }> {
  const before = verifications;
  const answer = await run();
  return { verifications: verifications - before, answer };
}

beforeAll(async () => {
  conn = await mongoose
    .createConnection(`${SERVICES.mongoBase}/recoverycodes_${randomBytes(6).toString('hex')}`)
    .asPromise();
  await new RecoveryCodes(conn, [SECRET_A]).init();
});
afterAll(async () => {
  await conn?.dropDatabase();
  await conn?.close();
});

describe('trying a recovery code', () => {
  it('verifies exactly one argon2id hash, whoever it is for and whatever is typed', async () => {
    const codes = new RecoveryCodes(conn, [SECRET_A], counted);
    const holder = randomUUID();
    const issued = await codes.generate(holder);
    expect(issued).toHaveLength(10);
    const without = randomUUID();
    const wrong = 'abcd-efgh-jkmn-pqrs';
    expect(issued).not.toContain(wrong);

    const cases: Array<[string, () => Promise<boolean>, boolean]> = [
      ['a wrong code for an account with ten unused codes', () => codes.use(holder, wrong), false],
      ['a wrong code for an account without codes', () => codes.use(without, wrong), false],
      ['a code for no account', () => codes.use(undefined, issued[3]!), false],
      ['a malformed code', () => codes.use(holder, 'x'), false],
      [
        'the last of the ten codes, typed loosely',
        () => codes.use(holder, ` ${issued[9]!.toUpperCase()} `),
        true,
      ],
      ['that code again', () => codes.use(holder, issued[9]!), false],
      ['another account’s right code', () => codes.use(without, issued[0]!), false],
      ['the first code', () => codes.use(holder, issued[0]!), true],
    ];
    for (const [what, run, expected] of cases) {
      await expect(work(run).then((w) => ({ what, ...w }))).resolves.toEqual({
        what,
        verifications: 1,
        answer: expected,
      });
    }
    expect(await codes.unused(holder)).toBe(8);
  });

  it('finds codes made under any cookie secret still configured, and none under a dropped one', async () => {
    const account = randomUUID();
    const [first, second] = await new RecoveryCodes(conn, [SECRET_A]).generate(account);
    // SECRET_B prepended (rotation): codes made under SECRET_A still work.
    const rotated = new RecoveryCodes(conn, [SECRET_B, SECRET_A], counted);
    expect(await rotated.unused(account)).toBe(10);
    await expect(work(() => rotated.use(account, first!))).resolves.toEqual({
      verifications: 1,
      answer: true,
    });
    // SECRET_A dropped: its codes are never found, nor counted as left.
    const dropped = new RecoveryCodes(conn, [SECRET_B], counted);
    expect(await dropped.unused(account)).toBe(0);
    await expect(work(() => dropped.use(account, second!))).resolves.toEqual({
      verifications: 1,
      answer: false,
    });
  });

  it('never finds a code stored without a lookup, and does not count it as left', async () => {
    const account = randomUUID();
    const legacy = ['aaaa-bbbb-cccc-dddd', 'eeee-ffff-gggg-hhhh'];
    await recoveryCodeModel(conn).insertMany(
      await Promise.all(
        legacy.map(async (c) => ({
          _id: randomUUID(),
          accountId: account,
          hash: await hashPassword(normaliseRecoveryCode(c)),
          createdAt: new Date(),
        })),
      ),
    );
    const codes = new RecoveryCodes(conn, [SECRET_A], counted);
    expect(await codes.unused(account)).toBe(0);
    await expect(work(() => codes.use(account, legacy[1]!))).resolves.toEqual({
      verifications: 1,
      answer: false,
    });
  });
});

describe('the recovery-code form', () => {
  const auth = authServerForFile({ LOGIN_ACCOUNT_DELAY_AFTER: '100000' });
  const holder = { email: 'ten.codes@school.test', password: `ten ${randomBytes(9).toString('base64url')}` };
  let clientId: string;

  beforeAll(async () => {
    clientId = await signInClient(auth);
    const id = await auth.running.accounts.upsert({ ...holder, name: 'Ten Codes', role: 'staff' });
    await auth.running.passkeys.recoveryCodes.generate(id);
  });

  let address = 0;
  /** Milliseconds of one wrong-code answer for `email`, from an address of its own (no pair delay). */
  async function wrongCodeMs(email: string): Promise<number> {
    const from = `127.0.9.${++address}`;
    const page = await openPasskeySignIn(auth, clientId, from);
    const action = `/oauth/interaction/${page.uid}/recovery`;
    const form = { csrf: page.csrf, email, code: 'abcd-efgh-jkmn-pqrs' };
    const started = performance.now();
    const answer = await page.browser.request(action, { form });
    const ms = performance.now() - started;
    expect(answer.status).toBe(401);
    return ms;
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

  it('answers a wrong code for an account with ten codes no slower than for an unknown email', async () => {
    const holderMs: number[] = [];
    const unknownMs: number[] = [];
    await wrongCodeMs('warm.up@school.test'); // the dummy hash is made on first use
    for (let i = 0; i < 9; i++) {
      holderMs.push(await wrongCodeMs(holder.email));
      unknownMs.push(await wrongCodeMs(`nobody-${i}@school.test`));
    }
    // Ten argon2id verifications against one would be a ratio near ten; equal work is near one.
    const ratio = median(holderMs) / median(unknownMs);
    expect({ ratio, below: ratio < 3, above: ratio > 1 / 3 }).toMatchObject({ below: true, above: true });
  });
});
