/**
 * What every `school-auth` command that reads or changes the server's storage runs in: the server's
 * own configuration and connections (bootstrap.ts), closed when the command ends, and how it prints.
 * A command that needs only Redis and MongoDB (listing accounts, the audit log) runs `withStorage`:
 * its settings are checked without the secrets and no keys or provider are opened; every other runs
 * `withRuntime`, which refuses to start without them.
 */
import { terminalJson } from '@school/shared';
import { InvalidArgumentError } from 'commander';
import type { AuthRuntime } from '../bootstrap.js';
import { bootstrap, openStorage, type AuthStorage } from '../bootstrap.js';
import { loadConfig, loadStorageConfig, type AuthConfig, type StorageConfig } from '../config.js';
import { createLogger } from '../logger.js';

/** Runs `work` on the server's storage, closing it afterwards. */
export async function withRuntime<T>(
  work: (runtime: AuthRuntime, config: AuthConfig) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  const runtime = await bootstrap(config, createLogger('warn', 'school-auth'));
  try {
    return await work(runtime, config);
  } finally {
    await runtime.close();
  }
}

/** Runs `work` on Redis and MongoDB alone (no secrets needed), closing them afterwards. */
export async function withStorage<T>(
  work: (storage: AuthStorage, config: StorageConfig) => Promise<T>,
): Promise<T> {
  const config = loadStorageConfig();
  const storage = await openStorage(config, createLogger('warn', 'school-auth'));
  try {
    return await work(storage, config);
  } finally {
    await storage.close();
  }
}

/** Prints `value` as indented JSON, what a terminal would act on escaped. */
export const print = (value: unknown) => console.log(terminalJson(value, 2));

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
