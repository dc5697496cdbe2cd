import { describe, expect, it } from '@jest/globals';
import { registeredClientId } from './registered-client-id.js';

describe('registeredClientId', () => {
  it('is 22 base64url characters, never starting with - or _, and never repeats', () => {
    const ids = Array.from({ length: 5000 }, registeredClientId);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{21}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
