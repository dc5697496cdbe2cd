/**
 * The schemathesis run (`scripts/fuzz`): every operation of `/openapi.json`, against a whole
 * stack started the way an operator runs it (test-e2e/support/stack.ts: the built auth server and
 * resource API as processes, nginx with the edge config, a seeded school and admin).
 *
 * Each service is fuzzed on its own port (the resource API's operations at the API, the rest at the
 * auth server), so a finding names the service that answered; `FUZZ_THROUGH_EDGE=1` sends everything
 * through the edge instead (nginx answers some hostile requests itself).
 *
 * A token with every scope (the 35 API scopes and openid/profile/email, unbound so userinfo takes it
 * too) is obtained through the real flow — registration, authorization code + PKCE through the
 * login and consent pages, code exchange — and handed to schemathesis for the `oauth2` security
 * scheme, so every operation is fuzzed with the full view (and the ignored_auth check also tries
 * each one without the token).
 *
 * Checks: schemathesis' own (no 5xx, status codes, content types, response headers and bodies
 * against the document, negative data refused, auth not ignored, 405 with Allow for undocumented
 * methods) plus `checks.py` (RFC 6749 error bodies, the API's security headers). Where no generated
 * value can be right, the harness hands over real ones (schemathesis.toml, checks.py): a seeded form,
 * seeded items for the ids the document's examples only show as a sample, and its registered client
 * for the authorization endpoint. The run is bounded by `FUZZ_MAX_EXAMPLES` per operation and
 * phase; any finding fails it (schemathesis exits non-zero).
 * Not part of `npm test` (its name does not match `*.test.ts`); `scripts/fuzz` runs it.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { API_SCOPE_NAMES } from '@school/shared';
import { REGISTRY } from '../../src/areas/index.js';
import { SAMPLE_ID } from '../../src/lib/openapi.js';
import { E2E_ADMIN, startStack, type Stack } from '../../../../test-e2e/support/stack.js';
import { REDIRECT, TokenSource } from '../../../../test-support/tokens.js';

const ROOT = resolve(import.meta.dirname, '../../../..');
const HERE = resolve(ROOT, 'packages/resource-api/test/fuzz');
const REPORTS = resolve(ROOT, '.data/fuzz');
const SCHEMATHESIS = process.env.SCHEMATHESIS ?? resolve(ROOT, '.data/venv/bin/schemathesis');
const MAX_EXAMPLES = process.env.FUZZ_MAX_EXAMPLES ?? '50';
const BUDGET_MS = 9 * 60_000;
const THROUGH_EDGE = process.env.FUZZ_THROUGH_EDGE === '1';
/** The resource API's paths (docs/decisions.md); every other documented path is the auth server's. */
const API_PATHS = '^/(api/v1/|openapi\\.json$|auth\\.md$|\\.well-known/oauth-protected-resource$)';

let stack: Stack;
let token: string;
/** What schemathesis.toml and checks.py read, beyond the token: seeded ids and the test client. */
let data: Record<string, string>;

/** The id of a seeded item of `area`. */
async function firstId(area: string): Promise<string> {
  const res = await fetch(`${stack.apiUrl}/api/v1/${area}?limit=1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await res.json()) as { data: { id: string }[] }).data[0]!.id;
}

/**
 * For each body field an example names another item in (`{ref:<area>}`, shown as SAMPLE_ID in the
 * document), a seeded id of that area: checks.py puts it in place of the sample id.
 */
async function exampleReferences(): Promise<Record<string, string>> {
  const fields: Record<string, string> = {};
  const ids = new Map<string, string>(); // one list request per area, however many fields name it
  for (const op of REGISTRY.flatMap((area) => area.operations))
    for (const [field, value] of Object.entries((op.example?.body ?? {}) as Record<string, unknown>)) {
      const area = /^\{ref:(\w+)\}$/.exec(String(value))?.[1];
      if (!area) continue;
      if (!ids.has(area)) ids.set(area, await firstId(area));
      fields[field] = ids.get(area)!;
    }
  return fields;
}

beforeAll(async () => {
  mkdirSync(REPORTS, { recursive: true });
  // Open registration's limit (60 a minute per address) would answer nearly every generated
  // registration 429 and leave the endpoint's validation unfuzzed; the limit has its own tests.
  stack = await startStack({
    LOG_LEVEL: 'warn',
    RATE_LIMIT_REGISTRATION: '1000000',
    RATE_LIMIT_AUTHORIZATION: '1000000',
  });
  const tokens = new TokenSource({ issuer: stack.baseUrl }, E2E_ADMIN);
  token = await tokens.token(['openid', 'profile', 'email', ...API_SCOPE_NAMES]);
  data = {
    FUZZ_FORM_ID: await firstId('forms'),
    FUZZ_EXAMPLE_REFERENCES: JSON.stringify({ sample: SAMPLE_ID, fields: await exampleReferences() }),
    FUZZ_CLIENT_ID: (await tokens.client()).clientId,
    FUZZ_REDIRECT_URI: REDIRECT,
  };
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** Runs schemathesis to completion, its output going straight to the terminal; resolves its exit code. */
function schemathesis(args: string[], env: Record<string, string>, budgetMs: number): Promise<number> {
  return new Promise((done, fail) => {
    // Run in .data/fuzz: schemathesis and Hypothesis keep their caches in the working directory.
    const child = spawn(SCHEMATHESIS, args, {
      cwd: REPORTS,
      env: {
        ...process.env,
        ...env,
        PYTHONPATH: HERE,
        PYTHONDONTWRITEBYTECODE: '1',
        SCHEMATHESIS_HOOKS: 'checks',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), budgetMs);
    child.once('error', fail);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      done(code ?? (signal ? 128 : 1));
    });
  });
}

/** One schemathesis run over the operations `filter` selects, sent to `url`. */
function fuzz(name: string, url: string, filter: string[], budgetMs: number): Promise<number> {
  return schemathesis(
    [
      '--config-file',
      resolve(HERE, 'schemathesis.toml'),
      'run',
      `${stack.baseUrl}/openapi.json`,
      '--url',
      url,
      ...filter,
      '--max-examples',
      MAX_EXAMPLES,
      '--report',
      'junit',
      '--report-junit-path',
      resolve(REPORTS, `${name}.junit.xml`),
    ],
    { FUZZ_TOKEN: token, ...data },
    budgetMs,
  );
}

function lastLogLines(): string {
  return Object.entries(stack.logs)
    .map(([name, lines]) => `--- ${name}\n${lines.join('').slice(-4000)}`)
    .join('\n');
}

it(
  'finds nothing in any operation of /openapi.json',
  async () => {
    const runs = THROUGH_EDGE
      ? [await fuzz('edge', stack.baseUrl, [], BUDGET_MS)]
      : [
          await fuzz('resource-api', stack.apiUrl, ['--include-path-regex', API_PATHS], BUDGET_MS / 2),
          await fuzz('auth-server', stack.authUrl, ['--exclude-path-regex', API_PATHS], BUDGET_MS / 2),
        ];
    if (runs.some((code) => code !== 0))
      console.error(
        `schemathesis exited with ${runs.join(', ')}; the stack's last log lines:\n${lastLogLines()}`,
      );
    expect(runs).toEqual(runs.map(() => 0));
  },
  BUDGET_MS + 30_000,
);
