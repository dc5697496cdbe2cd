/**
 * The container suites' tools: `scripts/containers` and `scripts/standin-images` run as an operator
 * runs them (their output kept, a failure thrown with it), the container engine (podman here, with
 * the project's containers.conf; docker where an engine answers), the figures each suite measures, and
 * a steady load that counts what failed while an operation runs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

/** The engine `scripts/containers` picks: docker where an engine answers, podman otherwise. */
export const ENGINE =
  process.env.CONTAINER_ENGINE ??
  (spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0 ? 'docker' : 'podman');

const engineEnv = { ...process.env, CONTAINERS_CONF: join(ROOT, 'docker/podman/containers.conf') };

/** Runs the engine (`podman …`); returns its trimmed output, throws with it on failure. */
export function engine(...args: string[]): string {
  const run = spawnSync(ENGINE, args, { env: engineEnv, encoding: 'utf8', timeout: 300_000 });
  if (run.status !== 0)
    throw new Error(`${ENGINE} ${args.join(' ')}: ${run.status}\n${run.stdout}${run.stderr}`);
  return run.stdout.trim();
}

/** The same, returning only whether it succeeded. */
export function engineOk(...args: string[]): boolean {
  return spawnSync(ENGINE, args, { env: engineEnv, stdio: 'ignore', timeout: 120_000 }).status === 0;
}

/** What one run of a project script printed, and how long it took. */
export interface ScriptRun {
  stdout: string;
  stderr: string;
  seconds: number;
}

/** Runs `scripts/<script> args` with `env` added; rejects with its output unless it exits 0. */
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<ScriptRun> {
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(join(ROOT, 'scripts', script), args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => {
      const seconds = (Date.now() - started) / 1000;
      if (code === 0) resolvePromise({ stdout, stderr, seconds });
      else reject(new Error(`scripts/${script} ${args.join(' ')} exited ${code}:\n${stdout}\n${stderr}`));
    });
  });
}

/** A compose project started by `scripts/containers`, by its name and public origin. */
export interface Project {
  name: string;
  baseUrl: string;
  replicas?: number;
}

export function projectEnv(p: Project): Record<string, string> {
  return {
    COMPOSE_PROJECT_NAME: p.name,
    BASE_URL: p.baseUrl,
    AUTH_SERVER_REPLICAS: String(p.replicas ?? 1),
    RESOURCE_API_REPLICAS: String(p.replicas ?? 1),
  };
}

/** `scripts/containers args` for project `p`. */
export function containers(p: Project, ...args: string[]): Promise<ScriptRun> {
  return runScript('containers', args, projectEnv(p));
}

/** The secrets file of project `p` (the compose --env-file), as a map. */
export function projectSecrets(p: Project): Record<string, string> {
  const file = join(ROOT, '.data/containers', `${p.name}.env`);
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** The containers of one service of project `p`, by compose's labels. */
export function containersOf(p: Project, service: string): string[] {
  return engine(
    'ps',
    '-a',
    '--filter',
    `label=com.docker.compose.project=${p.name}`,
    '--filter',
    `label=com.docker.compose.service=${service}`,
    '--format',
    '{{.Names}}',
  )
    .split('\n')
    .filter(Boolean)
    .sort();
}

/**
 * The last warnings and errors the resource API's containers of project `p` logged (pino's level 40 and
 * up), each cut to 300 characters: why a request got a 503, for a failure's message.
 */
export function apiTrouble(p: Project, last = 10): string[] {
  return containersOf(p, 'resource-api')
    .flatMap((c) => {
      const out = spawnSync(ENGINE, ['logs', c], { encoding: 'utf8', maxBuffer: 1 << 28 });
      return `${out.stdout}\n${out.stderr}`.split('\n').filter((l) => /"level":(4|5|6)\d/.test(l));
    })
    .slice(-last)
    .map((l) => l.slice(0, 300));
}

/** Removes everything of project `p` (containers, network, volumes, secrets file), whatever state it is in. */
export async function removeProject(p: Project): Promise<void> {
  // What every container printed, kept for a failure's diagnosis: .data/containers/<project>-last.log.
  const logs = await containers(p, 'logs').catch(() => undefined);
  if (logs) writeFileSync(join(ROOT, `.data/containers/${p.name}-last.log`), logs.stdout + logs.stderr);
  await containers(p, 'down', '--volumes').catch(() => undefined);
  const ids = engine('ps', '-aq', '--filter', `label=com.docker.compose.project=${p.name}`)
    .split('\n')
    .filter(Boolean);
  if (ids.length) engineOk('rm', '-f', ...ids);
  for (const v of ['redis-data', 'mongo-data', 'auth-keys']) engineOk('volume', 'rm', '-f', `${p.name}_${v}`);
  engineOk('network', 'rm', '-f', `${p.name}_default`);
}

/** The block `scripts/containers up` prints: the admin's email and password. */
export function adminFrom(stdout: string): { email: string; password: string } {
  const email = /^\s+admin\s+(\S+)$/m.exec(stdout)?.[1];
  const password = /^\s+password\s+(\S+)$/m.exec(stdout)?.[1];
  if (!email || !password) throw new Error(`no admin in:\n${stdout}`);
  return { email, password };
}

/** The figures the suites measure, kept in .data/containers/figures.json across files and printed. */
export function recordFigures(figures: Record<string, number | string>): void {
  const file = join(ROOT, '.data/containers/figures.json');
  mkdirSync(join(ROOT, '.data/containers'), { recursive: true });
  const all = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  writeFileSync(file, JSON.stringify({ ...all, ...figures, measured_at: new Date().toISOString() }, null, 2));
  for (const [k, v] of Object.entries(figures)) console.log(`figure: ${k} = ${v}`);
}

/** One request of a steady load: resolves with its status (0: no answer). */
export type Probe = () => Promise<number>;

/** What a steady load saw: requests sent and those that failed (an unexpected status, or none). */
export interface LoadResult {
  requests: number;
  failed: number;
  failures: string[];
}

/** Error codes of a connection closed before any answer (undici's `SocketError`, or the system's). */
const CLOSED_BEFORE_ANSWER: ReadonlySet<string> = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/**
 * The probe's status; a probe whose keep-alive connection was closed under it before any answer (the
 * edge's old workers close their idle connections on a reload) is sent once more, as browsers and
 * HTTP clients resend such a request (RFC 9110 §9.2.2; every probe here is safe to repeat).
 */
async function statusOf(probe: Probe): Promise<number> {
  try {
    return await probe();
  } catch (err) {
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    if (typeof code !== 'string' || !CLOSED_BEFORE_ANSWER.has(code)) return 0;
    await new Promise((r) => setTimeout(r, 50)); // the pool drops the other closed connections meanwhile
    return probe().catch(() => 0);
  }
}

/**
 * Runs `probes` round robin from `workers` concurrent loops until `during` settles, then stops; a
 * request fails when its status is not in `ok` (0: no answer, even after the one resend of
 * {@link statusOf}). Bounded: at most `maxSeconds`.
 */
export async function underLoad<T>(
  probes: Array<{ name: string; probe: Probe; ok: number[] }>,
  during: Promise<T>,
  { workers = 4, maxSeconds = 300 } = {},
): Promise<{ result: T; load: LoadResult }> {
  let done = false;
  const deadline = Date.now() + maxSeconds * 1000;
  const load: LoadResult = { requests: 0, failed: 0, failures: [] };
  const settled = during.finally(() => (done = true));
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = w; !done && Date.now() < deadline; i++) {
      const { name, probe, ok } = probes[i % probes.length]!;
      const sent = Date.now();
      const status = await statusOf(probe);
      load.requests++;
      if (!ok.includes(status)) {
        load.failed++;
        if (load.failures.length < 20)
          load.failures.push(
            `${name}: ${status} after ${Date.now() - sent} ms, at ${new Date(sent).toISOString()}`,
          );
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  const result = await settled;
  await Promise.all(loops);
  return { result, load };
}
