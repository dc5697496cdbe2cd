/**
 * The set-up most resource-API test files share: a test auth server, the API in front of it with the
 * demo school seeded, and a token source, for the whole file ({@link schoolForFile}). Not a test file
 * itself.
 */
import { seedSchool } from '../src/seed/seed-school.js';
import { startTestAuthServer, type TestAuthServer } from '../../../test-support/auth-server.js';
import {
  call,
  startTestResourceApi,
  type Answer,
  type TestResourceApi,
} from '../../../test-support/resource-api.js';
import { sharedForFile } from '../../../test-support/for-file.js';
import { TokenSource } from '../../../test-support/tokens.js';

/** A running auth server + seeded API + tokens. */
export interface School {
  auth: TestAuthServer;
  api: TestResourceApi;
  tokens: TokenSource;
  /** Calls the API with a token holding exactly `scopes` (bound to the API). */
  as(scopes: string | string[], path: string, init?: Parameters<typeof call>[2]): Promise<Answer>;
  /** Calls the API anonymously. */
  anon(path: string, init?: Parameters<typeof call>[2]): Promise<Answer>;
  stop(): Promise<void>;
}

/** Starts everything; `env` overrides API settings. */
export async function startSchool(env: Record<string, string> = {}): Promise<School> {
  const auth = await startTestAuthServer();
  const api = await startTestResourceApi(auth, env);
  await seedSchool(api.running.connection);
  const tokens = new TokenSource(auth);
  return {
    auth,
    api,
    tokens,
    async as(scopes, path, init = {}) {
      const token = await tokens.token(Array.isArray(scopes) ? scopes : [scopes], { resource: auth.issuer });
      return call(api.url, path, { ...init, token });
    },
    anon: (path, init) => call(api.url, path, init),
    async stop() {
      await api.stop();
      await auth.stop();
    },
  };
}

/**
 * The School a file's tests share: started with `env` before the file's tests (a `beforeAll` declared
 * after this call sees it started), stopped after them ({@link sharedForFile}).
 */
export function schoolForFile(env: Record<string, string> = {}): School {
  return sharedForFile(() => startSchool(env));
}

/** The `data` of a list answer. */
export function items<T = Record<string, unknown>>(res: Answer): T[] {
  return (res.body as { data: T[] }).data;
}

/** The wire paths of a 400 answer's problems. */
export function problemPaths(res: Answer): string[] {
  return ((res.body as { problems?: { path: string }[] }).problems ?? []).map((p) => p.path);
}
