/**
 * What every `school-auth` command that reads or changes the server's storage runs in: the server's
 * own configuration and connections (bootstrap.ts), closed when the command ends, and how it prints.
 */
import { terminalJson } from '@school/shared';
import { InvalidArgumentError } from 'commander';
import type { AuthRuntime } from '../bootstrap.js';
import { bootstrap } from '../bootstrap.js';
import { loadConfig, type AuthConfig } from '../config.js';
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

/** Prints `value` as indented JSON, what a terminal would act on escaped. */
export const print = (value: unknown) => console.log(terminalJson(value, 2));

/**
 * A time as every command prints it: ISO 8601 in UTC (`2026-11-29T07:40:00.000Z`), from Unix seconds;
 * undefined (left out of the JSON) when there is none.
 */
export const isoTime = (seconds: number | undefined) =>
  seconds === undefined ? undefined : new Date(seconds * 1000).toISOString();

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
