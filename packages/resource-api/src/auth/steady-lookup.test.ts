/**
 * The steady lookup with an injected resolver (no test resolves names through the machine's DNS): a
 * fresh answer is used at once, a stalled or failing resolver falls back to its last answer, a name
 * never resolved waits for the resolver, and concurrent connections share one lookup.
 */
import { describe, expect, it } from '@jest/globals';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { steadyLookup, type LookupFunction, type Resolve } from './steady-lookup.js';

const A: LookupAddress[] = [{ address: '127.0.0.2', family: 4 }];
const B: LookupAddress[] = [
  { address: '127.0.0.3', family: 4 },
  { address: '::1', family: 6 },
];

/** A resolver answering from a script the test changes between calls; counts its calls. */
function scriptedResolver() {
  const state: { next: () => Promise<LookupAddress[]>; calls: number } = {
    next: () => Promise.resolve(A),
    calls: 0,
  };
  const resolve: Resolve = () => {
    state.calls++;
    return state.next();
  };
  return { state, resolve };
}

const never = () => new Promise<LookupAddress[]>(() => undefined);

/** One lookup as net.connect makes it: all addresses (Node's default family autoselection). */
function lookupAll(lookup: LookupFunction, options: LookupOptions = { all: true }) {
  return new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((done) =>
    lookup('auth-server.test', options, (err, address, family) => done({ err, address, family })),
  );
}

describe('the steady lookup', () => {
  it('uses each fresh answer at once: a changed address is the next connection’s', async () => {
    const { state, resolve } = scriptedResolver();
    const lookup = steadyLookup({ resolve, patienceMs: 50 });
    expect((await lookupAll(lookup)).address).toEqual(A);
    state.next = () => Promise.resolve(B);
    expect((await lookupAll(lookup)).address).toEqual(B);
    expect(state.calls).toBe(2);
  });

  it('answers with the last addresses when the resolver stalls past its patience', async () => {
    const { state, resolve } = scriptedResolver();
    const lookup = steadyLookup({ resolve, patienceMs: 50 });
    await lookupAll(lookup);
    state.next = never;
    expect(await lookupAll(lookup)).toEqual({ err: null, address: A, family: undefined });
  });

  it('answers with the last addresses when the resolver fails', async () => {
    const { state, resolve } = scriptedResolver();
    const lookup = steadyLookup({ resolve, patienceMs: 10_000 });
    await lookupAll(lookup);
    state.next = () =>
      Promise.reject(Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' }));
    expect((await lookupAll(lookup)).address).toEqual(A);
  });

  it('passes the resolver’s error on for a name it never answered', async () => {
    const { state, resolve } = scriptedResolver();
    state.next = () =>
      Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    const result = await lookupAll(steadyLookup({ resolve, patienceMs: 10 }));
    expect(result.err?.code).toBe('ENOTFOUND');
    expect(result.address).toEqual([]);
  });

  it('waits past its patience for a name it never answered', async () => {
    const { state, resolve } = scriptedResolver();
    let answer: (a: LookupAddress[]) => void = () => undefined;
    state.next = () => new Promise((r) => (answer = r));
    const pending = lookupAll(steadyLookup({ resolve, patienceMs: 10 }));
    await new Promise((r) => setTimeout(r, 60));
    answer(B);
    expect((await pending).address).toEqual(B);
  });

  it('shares one lookup among connections made while it is in flight', async () => {
    const { state, resolve } = scriptedResolver();
    let answer: (a: LookupAddress[]) => void = () => undefined;
    state.next = () => new Promise((r) => (answer = r));
    const lookup = steadyLookup({ resolve, patienceMs: 10 });
    const all = [lookupAll(lookup), lookupAll(lookup), lookupAll(lookup)];
    answer(A);
    expect((await Promise.all(all)).map((r) => r.address)).toEqual([A, A, A]);
    expect(state.calls).toBe(1);
  });

  it('answers a single address, of the family asked for, when `all` is not set', async () => {
    const { state, resolve } = scriptedResolver();
    state.next = () => Promise.resolve(B);
    const lookup = steadyLookup({ resolve });
    expect(await lookupAll(lookup, { family: 6 })).toEqual({ err: null, address: '::1', family: 6 });
    expect(await lookupAll(lookup, {})).toEqual({ err: null, address: '127.0.0.3', family: 4 });
    expect((await lookupAll(lookup, { family: 4, all: true })).address).toEqual([B[0]]);
  });
});
