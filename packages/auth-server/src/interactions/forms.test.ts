import { describe, expect, it } from '@jest/globals';
import { consentForm, loginForm } from './forms.js';

describe('the login form schema', () => {
  it('reads a missing or repeated email or password as empty, like a wrong password', () => {
    expect(loginForm.parse({ csrf: 't', email: ['a@x', 'b@x'] })).toEqual({
      csrf: 't',
      email: '',
      password: '',
    });
  });

  it('cuts an overlong email or password instead of refusing the form', () => {
    const form = loginForm.parse({ csrf: 't', email: 'e'.repeat(400), password: 'p'.repeat(2000) });
    expect([form.email.length, form.password.length]).toEqual([320, 1024]);
  });

  it('refuses a form without exactly one CSRF token', () => {
    expect(loginForm.safeParse({ email: 'a@x', password: 'p' }).success).toBe(false);
    expect(consentForm.safeParse({ csrf: ['t', 'u'] }).success).toBe(false);
    expect(consentForm.safeParse(undefined).success).toBe(false);
  });
});
