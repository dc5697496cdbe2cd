/**
 * The Node.js flags the auth server runs with, defined once: every launcher (scripts/start, the
 * Dockerfile's CMD, `npm start`, the end-to-end stack, the bench) passes them, and a test holds the
 * ones outside TypeScript to this list.
 *
 * `--experimental-async-context-frame` (Node 22.7 and later; the default from Node 24). oidc-provider
 * keeps each request's context in an AsyncLocalStorage (`als.run` around every route). On Node 22 that
 * store is built on async_hooks by default, and once one is in use every promise, `process.nextTick`
 * and socket of the whole process pays its init hook. With the flag, the store rides on V8's
 * continuation data instead, at no cost per asynchronous step. Measured (bench/PERFORMANCE.md,
 * "AsyncLocalStorage without async_hooks"): a promise-and-nextTick loop inside `als.run` went from
 * 533-892 ms to 307-441 ms, the same as with no store at all; AS1's CPU per introspection from 295
 * to 192 µs in back-to-back runs.
 */

/** The flags, in the order a launcher passes them before the script. */
export const AUTH_SERVER_NODE_FLAGS: readonly string[] = ['--experimental-async-context-frame'];

/**
 * The flags this process was started without (given on the command line or in NODE_OPTIONS), so
 * that `main` can say so: the server still works without them, only slower.
 */
export function missingNodeFlags(
  execArgv: readonly string[] = process.execArgv,
  // Node's own variable, read by Node before any of our code runs: not a setting of ours for config.ts.
  // eslint-disable-next-line no-restricted-properties
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)]);
  return AUTH_SERVER_NODE_FLAGS.filter((flag) => !given.has(flag));
}
