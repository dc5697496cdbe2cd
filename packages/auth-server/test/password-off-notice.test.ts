/**
 * With PASSWORD_FALLBACK=false an account's first passkey switches its password off, and the first
 * passkey can only be added on the password's strength. When someone else added it, the owner's
 * right password is refused: the refusal then says that a passkey was added after only the password
 * was typed, when, and what to do, so the owner is not left without a clue. A passkey added after a
 * passkey's proof, or long ago, gets the plain refusal.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { authServerForFile } from '../../../test-support/auth-server.js';
import { FormBrowser, openAccountPage } from '../../../test-support/form-browser.js';

const auth = authServerForFile({ PASSWORD_FALLBACK: 'false' });
const account = (name: string) => ({
  email: `${name}@school.test`,
  password: `${name} ${randomBytes(9).toString('base64url')}`,
});
const owner = account('olga');
const careful = account('cara');

beforeAll(async () => {
  const passkey = (accountId: string, proof: 'password' | 'passkey') =>
    auth.running.passkeys.store.add({
      _id: randomBytes(16).toString('base64url'),
      accountId,
      publicKey: randomBytes(32).toString('base64url'),
      counter: 0,
      transports: ['internal'],
      name: 'A key',
      proof,
      addedInSession: 'another-session',
    });
  await passkey(
    await auth.running.accounts.upsert({ ...owner, name: 'Olga Owner', role: 'staff' }),
    'password',
  );
  await passkey(
    await auth.running.accounts.upsert({ ...careful, name: 'Cara Care', role: 'staff' }),
    'passkey',
  );
});

const signInWithPassword = (who: { email: string; password: string }) =>
  openAccountPage(new FormBrowser(auth.issuer), '/oauth/account/apps', who);

describe('a right password refused because a passkey switched it off', () => {
  it('says that a passkey was added after only the password, when, and what to do', async () => {
    const page = await signInWithPassword(owner);
    expect(page.status).toBe(403);
    expect(page.body).toContain('Password sign-in is switched off for this account.');
    const today = new Date().toISOString().slice(0, 10);
    expect(page.body).toContain(
      `A passkey was added to this account on ${today} by someone who typed its password. If that was not you, ask your school’s admin to remove it and change your password.`,
    );
  });

  it('is the plain refusal when the passkey was added after a passkey’s proof', async () => {
    const page = await signInWithPassword(careful);
    expect(page.status).toBe(403);
    expect(page.body).toContain('Password sign-in is switched off for this account.');
    expect(page.body).not.toContain('A passkey was added');
  });
});
