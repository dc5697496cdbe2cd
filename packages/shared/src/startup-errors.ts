/**
 * Start-up failures that say what is wrong and where.
 *
 * A service that cannot start should name the setting to fix: the variable, the address it points at
 * (with any password taken out, since the message lands in logs and terminals) or the file. Drivers
 * do not: ioredis says "Connection is closed.", the MongoDB driver a bare `ECONNREFUSED`, JSON.parse
 * a position without the file. So every step of a start-up is run through {@link attempt}, which
 * turns its failure into one such line, and the steps that do not depend on each other run together
 * ({@link allOrProblems}) so one start reports every problem at once, not the first one.
 */

/** Thrown when a service cannot start; `problems` are the lines to print, one per problem. */
export class StartupError extends Error {
  constructor(readonly problems: string[]) {
    super(`cannot start:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'StartupError';
  }
}

/**
 * `url` with its password replaced by `***` (a user name alone, which may be a token, too). A URL the
 * WHATWG parser refuses (`mongodb://a:1,b:2/db` lists hosts) gets the same by pattern.
 */
export function redactUrl(url: string): string {
  if (!URL.canParse(url))
    return url.replace(
      /\/\/([^/@]*)@/,
      (_, user: string) => `//${user.includes(':') ? `${user.split(':')[0]}:***` : '***'}@`,
    );
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  else if (parsed.username) parsed.username = '***';
  return parsed.toString();
}

/** The most telling text of an error: its message, else its code, else its name. */
function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  const message = err.message || code || err.name;
  return cause && !message.includes(cause) ? `${message} (${cause})` : message;
}

/**
 * Runs one start-up step; a failure becomes a {@link StartupError} saying `what` failed (e.g.
 * `REDIS_URL: cannot connect to redis://127.0.0.1:6390/`) followed by the driver's reason.
 */
export async function attempt<T>(what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof StartupError) throw err;
    throw new StartupError([`${what}: ${reasonOf(err)}`]);
  }
}

/**
 * Awaits independent start-up steps together; if any fail, throws one {@link StartupError} listing
 * every failure (the caller closes whatever the others opened).
 */
export async function allOrProblems<T extends readonly unknown[]>(steps: {
  [K in keyof T]: Promise<T[K]>;
}): Promise<T> {
  const settled = await Promise.allSettled(steps);
  const problems = settled.flatMap((s) =>
    s.status === 'fulfilled'
      ? []
      : s.reason instanceof StartupError
        ? s.reason.problems
        : [reasonOf(s.reason)],
  );
  if (problems.length) throw new StartupError(problems);
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
