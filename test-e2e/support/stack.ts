/**
 * Starts the whole service the way an operator runs it — the built auth server and resource API as
 * real processes, and nginx with docker/edge.conf.template unchanged — on free loopback ports, with
 * its own Redis key prefix and MongoDB database. End-to-end tests talk to `baseUrl` (the edge) only.
 * Like scripts/start, it can run several instances of each service behind the edge (`instances`);
 * with several auth servers the API introspects through the edge, as scripts/start sets it up.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dropAuthStorage, SERVICES } from '../../test-support/auth-server.js';
import {
  freePort,
  httpAnswers,
  startProcess,
  waitUntil,
  type Started,
} from '../../test-support/processes.js';
import { edgeConfig, nginxArgs } from '../../test-support/edge.js';
import { AUTH_SERVER_NODE_FLAGS } from '../../packages/auth-server/dist/node-flags.js';

const ROOT = resolve(import.meta.dirname, '../..');
const AUTH_MAIN = 'packages/auth-server/dist/main.js';

/**
 * The admin the stack is seeded with. The password is made for each run: `seed-admin` refuses every
 * password written in this repository.
 */
export const E2E_ADMIN = {
  email: 'admin@e2e.test',
  password: `e2e admin ${randomBytes(9).toString('base64url')}`,
  name: 'Erin Admin',
};

/** A running stack. */
export interface Stack {
  /** The public origin: the issuer and the resource identifier. */
  baseUrl: string;
  /** Where the edge really listens (differs from baseUrl only in the scheme, for https stacks). */
  edgeUrl: string;
  /** The first auth server's own URL (its port, not the edge). */
  authUrl: string;
  /** The first resource API's own URL. */
  apiUrl: string;
  /** Every instance's own URL, in order (the first is `authUrl`, resp. `apiUrl`). */
  authUrls: string[];
  apiUrls: string[];
  /**
   * Every process by name: `auth-server`, `resource-api` (the first instances), `auth-server-2`,
   * `resource-api-2`, … and `edge`; `logs` and `exits` use the same names.
   */
  processes: Record<string, Started>;
  env: Record<string, string>;
  /** The captured output of each process (structured JSON log lines). */
  logs: Record<string, string[]>;
  /** Each process's exit code once it has exited (null if killed by a signal). */
  exits: Record<string, number | null>;
  stop(): Promise<void>;
}

/** Starts one of the stack's processes from the repository root, its output in `logs[name]`. */
function run(
  name: string,
  args: string[],
  env: Record<string, string>,
  logs: Record<string, string[]>,
  exits: Record<string, number | null>,
): Started {
  const p = startProcess(name, args[0]!, args.slice(1), { cwd: ROOT, env: { ...process.env, ...env } });
  logs[name] = p.lines;
  p.child.once('exit', (code) => (exits[name] = code));
  return p;
}

/** The name of instance `k` (from 0) of a service: `auth-server`, `auth-server-2`, … */
export function instanceName(service: 'auth-server' | 'resource-api', k: number): string {
  return k === 0 ? service : `${service}-${k + 1}`;
}

async function freePorts(n: number): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < n; i++) ports.push(await freePort());
  return ports;
}

/** Seeds, starts both services and the edge; resolves when every process answers. */
export async function startStack(
  extraEnv: Record<string, string> = {},
  /** `https`: BASE_URL is https, as behind a TLS-terminating proxy in front of the edge. */
  publicScheme: 'http' | 'https' = 'http',
  /** How many instances of each service (default 1 each). */
  instances: { auth?: number; api?: number } = {},
  /**
   * The public host name: `localhost` for WebAuthn, which refuses an IP address as the relying
   * party (Chromium maps `localhost` to loopback itself; the tests' own requests go to `edgeUrl`).
   */
  publicHost = '127.0.0.1',
): Promise<Stack> {
  const edgePort = await freePort();
  const [authPorts, apiPorts] = [await freePorts(instances.auth ?? 1), await freePorts(instances.api ?? 1)];
  const [authPort, apiPort] = [authPorts[0]!, apiPorts[0]!];
  const id = randomBytes(5).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), 'e2e-stack-'));
  const baseUrl = `${publicScheme}://${publicHost}:${edgePort}`;
  const edgeUrl = `http://127.0.0.1:${edgePort}`;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    BASE_URL: baseUrl,
    AUTH_PORT: String(authPort),
    API_PORT: String(apiPort),
    AUTH_INTERNAL_URL: authPorts.length > 1 ? edgeUrl : `http://127.0.0.1:${authPort}`,
    TRUST_PROXY: 'true',
    REDIS_URL: SERVICES.redisUrl,
    REDIS_KEY_PREFIX: `e2e:${id}:`,
    MONGODB_URI: `${SERVICES.mongoBase}/e2e_${id}`,
    KEYS_FILE: join(dir, 'jwks.json'),
    INTROSPECTION_CLIENT_SECRET: 'e2e-introspection-secret-0123456789abcdef',
    SEED_ADMIN_EMAIL: E2E_ADMIN.email,
    SEED_ADMIN_PASSWORD: E2E_ADMIN.password,
    SEED_ADMIN_NAME: E2E_ADMIN.name,
    LOG_LEVEL: 'info',
    ...extraEnv,
  };
  const node = process.execPath;
  for (const script of [
    'packages/auth-server/dist/cli/main.js seed-admin',
    'packages/resource-api/dist/seed.js',
  ]) {
    const seeded = spawnSync(node, script.split(' '), {
      cwd: ROOT,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    if (seeded.status !== 0) throw new Error(`${script} failed:\n${seeded.stderr}`);
  }

  const logs: Record<string, string[]> = {};
  const exits: Record<string, number | null> = {};
  const processes: Record<string, Started> = {};
  const urls = (ports: number[]) => ports.map((p) => `http://127.0.0.1:${p}`);
  const stack: Stack = {
    baseUrl,
    edgeUrl,
    authUrl: `http://127.0.0.1:${authPort}`,
    apiUrl: `http://127.0.0.1:${apiPort}`,
    authUrls: urls(authPorts),
    apiUrls: urls(apiPorts),
    processes,
    env,
    logs,
    exits,
    async stop() {
      await Promise.all(Object.values(processes).map((c) => c.stop()));
      await dropAuthStorage({
        REDIS_URL: SERVICES.redisUrl,
        REDIS_KEY_PREFIX: env.REDIS_KEY_PREFIX!,
        MONGODB_URI: env.MONGODB_URI!,
      });
    },
  };
  const start = async (name: string, script: string, portVar: string, port: number) => {
    // The auth server with its Node flags, as every launcher starts it (src/node-flags.ts).
    const flags = script === AUTH_MAIN ? AUTH_SERVER_NODE_FLAGS : [];
    const p = run(name, [node, ...flags, script], { ...env, [portVar]: String(port) }, logs, exits);
    processes[name] = p;
    // Generous: under the whole suite's load a process can take many seconds to load its modules.
    await waitUntil(p, () => httpAnswers(`http://127.0.0.1:${port}/healthz`), 'its /healthz', 45_000);
  };
  try {
    // The first auth server creates the signing keys; the other auth servers start once it has.
    const [firstAuth, ...apis] = [
      start('auth-server', AUTH_MAIN, 'AUTH_PORT', authPort),
      ...apiPorts.map((port, i) =>
        start(instanceName('resource-api', i), 'packages/resource-api/dist/main.js', 'API_PORT', port),
      ),
    ];
    const otherAuths = firstAuth.then(() =>
      Promise.all(
        authPorts
          .slice(1)
          .map((port, i) => start(instanceName('auth-server', i + 1), AUTH_MAIN, 'AUTH_PORT', port)),
      ),
    );
    await Promise.all([firstAuth, ...apis, otherAuths]);
    const edgeVars = {
      LISTEN_PORT: String(edgePort),
      AUTH_UPSTREAM: authPorts.map((p) => `127.0.0.1:${p}`).join(' '),
      API_UPSTREAM: apiPorts.map((p) => `127.0.0.1:${p}`).join(' '),
      EDGE_TRUSTED_PROXY: extraEnv.EDGE_TRUSTED_PROXY ?? 'unix:',
    };
    const edge = run('edge', nginxArgs(dir, edgeConfig(dir, edgeVars)), env, logs, exits);
    processes.edge = edge;
    const metadata = `${edgeUrl}/.well-known/oauth-authorization-server`;
    await waitUntil(edge, () => httpAnswers(metadata), metadata, 20_000);
    // Whatever answers on the edge's port must be this stack: a port taken by another server would
    // otherwise pass every request of the suite to someone else's.
    const { issuer } = (await (await fetch(metadata)).json()) as { issuer?: unknown };
    if (issuer !== baseUrl) throw new Error(`the edge's port answers for ${String(issuer)}, not ${baseUrl}`);
  } catch (err) {
    await stack.stop();
    throw err;
  }
  return stack;
}

/** Runs `school-auth` against `stack`, as an operator would, with `input` on stdin; returns its JSON. */
export function schoolAuth(stack: Stack, args: string[], input?: string): Record<string, string> {
  const run = spawnSync(process.execPath, ['packages/auth-server/dist/cli/main.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...stack.env },
    encoding: 'utf8',
    input,
  });
  if (run.status !== 0) throw new Error(`school-auth ${args.join(' ')} failed:\n${run.stderr}`);
  return JSON.parse(run.stdout) as Record<string, string>;
}

/**
 * A staff account named `name` made with `school-auth accounts create-staff` on `stack`, with an email
 * of its own (the first name and random characters): its email and the password the command made.
 */
export function createStaff(stack: Stack, name: string): { email: string; password: string } {
  const email = `${name.split(' ')[0]!.toLowerCase()}-${randomBytes(3).toString('hex')}@e2e.test`;
  const made = schoolAuth(stack, ['accounts', 'create-staff', '--email', email, '--name', name]);
  return { email: made.email!, password: made.password! };
}

/** Gives `email` the role `role`, made first with `ceiling` as the scopes it may allow (`school-auth roles`). */
export function giveRole(stack: Stack, email: string, role: string, ceiling: readonly string[]): void {
  schoolAuth(stack, ['roles', 'create', role, '--label', role, '--scopes', ...ceiling]);
  schoolAuth(stack, ['accounts', 'set-role', email, role]);
}
