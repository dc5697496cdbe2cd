/**
 * oidc-provider prints its notices and warnings as plain text through `console.info` and
 * `console.warn` (lib/helpers/attention.js), which would break the service's stream of JSON log
 * lines. Here they become log lines of their own (`"source":"oidc-provider"`), at the level
 * oidc-provider meant; anything else written to the console passes through unchanged.
 *
 * One is expected in every process, at its first form request: "already parsed request body
 * detected". It is ours by design (the rate limiter reads the form first, http/rate-limit.ts; see
 * docs/configuration.md), so it is logged at `info` and says so.
 */
import type { Logger } from '../logger.js';

const PREFIX = /^oidc-provider (?:WARNING|NOTICE): /;
// oidc-provider colours the text when the stream is a terminal.
// eslint-disable-next-line no-control-regex
const TERMINAL_COLOUR = /\x1b\[[0-9;]*m/g;
const EXPECTED = /^already parsed request body detected/;

/** Routes oidc-provider's console notices into `logger` as JSON lines, for the whole process. */
export function logProviderNotices(logger: Logger): void {
  for (const method of ['info', 'warn'] as const) {
    // Replacing the console's methods is the only way in: oidc-provider has no logger option.
    // eslint-disable-next-line no-console
    const original = console[method].bind(console);
    // eslint-disable-next-line no-console
    console[method] = (...args: unknown[]) => {
      const text = typeof args[0] === 'string' ? args[0].replace(TERMINAL_COLOUR, '') : undefined;
      if (args.length !== 1 || text === undefined || !PREFIX.test(text)) return original(...args);
      const message = text.replace(PREFIX, '');
      if (EXPECTED.test(message))
        logger.info({ source: 'oidc-provider', expected: 'the rate limiter reads the form first' }, message);
      else logger[method]({ source: 'oidc-provider' }, message);
    };
  }
}
