/**
 * What every `school-auth` command that reads or changes the server's storage runs in: the server's
 * own configuration and connections (bootstrap.ts), closed when the command ends, and
 * how it reads its options (how it prints is cli/output.ts).
 * A command that needs only Redis and MongoDB (listing accounts, the audit log) runs `withStorage`:
 * its settings are checked without the secrets and no keys or provider are opened; every other runs
 * `withRuntime`, which refuses to start without them.
 */
import { InvalidArgumentError } from 'commander';
import type { AuthRuntime } from '../bootstrap.js';
import { bootstrap, openStorage, type AuthStorage } from '../bootstrap.js';
import { loadConfig, loadStorageConfig, type AuthConfig, type StorageConfig } from '../config.js';
import { createLogger } from '../logger.js';

/** Opens what `open` opens on the settings `config`, runs `work` on it and closes it. */
async function opened<C, R extends { close(): Promise<void> }, T>(
  config: C,
  open: (config: C) => Promise<R>,
  work: (opened: R, config: C) => Promise<T>,
): Promise<T> {
  const what = await open(config);
  try {
    return await work(what, config);
  } finally {
    await what.close();
  }
}

const logger = () => createLogger('warn', 'school-auth');

/** Runs `work` on the server's storage, keys and provider, closing them afterwards. */
export const withRuntime = <T>(work: (runtime: AuthRuntime, config: AuthConfig) => Promise<T>) =>
  opened(loadConfig(), (config) => bootstrap(config, logger()), work);

/** Runs `work` on Redis and MongoDB alone (no secrets needed), closing them afterwards. */
export const withStorage = <T>(work: (storage: AuthStorage, config: StorageConfig) => Promise<T>) =>
  opened(loadStorageConfig(), (config) => openStorage(config, logger()), work);

/** An option's parser: a whole number from `min` to `max`. */
export const wholeNumber =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER
          ? `Give a whole number, at least ${min}.`
          : `Give a whole number from ${min} to ${max}.`,
      );
    return n;
  };

/** An option's parser: a date (and time) such as 2026-11-01 or 2026-11-01T08:00:00Z. */
export const dateValue = (value: string): Date => {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new InvalidArgumentError('Give a date such as 2026-11-01.');
  return date;
};
