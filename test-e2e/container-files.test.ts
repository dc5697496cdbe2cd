/**
 * The container files, read as files (test-e2e/containers.test.ts builds and runs them for real): the
 * compose file parses and wires the five services with persistent volumes and the environment the
 * services read, each public image behind a variable that defaults to it; every path a Dockerfile
 * copies exists; and each service starts from exactly the files its Dockerfile copies into the image
 * (built output and package manifests).
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { SERVICES } from '../test-support/auth-server.js';
import { freePort } from '../test-support/processes.js';
import { EDGE_TEMPLATE_NAMES } from '../test-support/edge.js';
import { AUTH_SERVER_NODE_FLAGS } from '../packages/auth-server/dist/node-flags.js';

const ROOT = resolve(import.meta.dirname, '..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

/** A Dockerfile's `CMD` in exec form: the program, then its arguments (the health check's is indented). */
const commandOf = (dockerfile: string) => JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  read_only?: boolean;
  environment?: Record<string, string>;
  volumes?: string[];
  profiles?: string[];
  restart?: string;
  command?: string[];
  healthcheck?: unknown;
  depends_on?: Record<string, unknown>;
}

const compose = parse(read('docker/compose.yaml'), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
};

/** `COPY` instructions of a Dockerfile that copy from the build context (not from a stage). */
function contextCopies(dockerfile: string): string[] {
  return dockerfile
    .split('\n')
    .filter((l) => /^COPY\s/.test(l) && !l.includes('--from='))
    .flatMap((l) =>
      l
        .replace(/^COPY\s+/, '')
        .split(/\s+/)
        .slice(0, -1),
    );
}

/** `COPY --from=build /app/<path> <dest>` sources, as repository paths. */
function imageFiles(dockerfile: string): string[] {
  return [...dockerfile.matchAll(/^COPY --from=build \/app\/(\S+) /gm)]
    .map((m) => m[1]!)
    .filter((p) => p !== 'node_modules');
}

describe('the compose file', () => {
  it('runs MongoDB, Redis, both services, the edge and the one-off admin seed, with persistent data and keys', () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      'auth-server',
      'edge',
      'mongo',
      'redis',
      'resource-api',
      'seed-admin',
    ]);
    // The public images by default; the variables select local stand-ins (scripts/standin-images).
    expect(compose.services.mongo!.image).toBe('${MONGO_IMAGE:-mongo:7}');
    expect(compose.services.redis!.image).toBe('${REDIS_IMAGE:-redis:7}');
    expect(compose.services.edge!.image).toBe('${NGINX_IMAGE:-nginx:1.27}');
    expect(Object.keys(compose.volumes).sort()).toEqual(['auth-keys', 'mongo-data', 'redis-data']);
    expect(compose.services.mongo!.volumes).toContain('mongo-data:/data/db');
    expect(compose.services.redis!.volumes).toContain('redis-data:/data');
    expect(compose.services['auth-server']!.volumes).toContain('auth-keys:/var/lib/school-auth');
    expect(compose.services['auth-server']!.environment!.KEYS_FILE).toMatch(/^\/var\/lib\/school-auth\//);
  });

  it('uses the one edge config of the repository and only environment variables the services read', () => {
    expect(compose.services.edge!.volumes).toContain(
      './edge.conf.template:/etc/nginx/templates/default.conf.template:ro',
    );
    for (const [name, pkg] of [
      ['auth-server', 'auth-server'],
      ['resource-api', 'resource-api'],
      ['seed-admin', 'auth-server'],
    ] as const) {
      const env = compose.services[name]!.environment!;
      const readers = [
        `packages/${pkg}/src/config.ts`,
        'packages/shared/src/config-fields.ts', // the fields both services share (REDIS_URL, …)
        ...(pkg === 'auth-server'
          ? ['packages/auth-server/src/cli/main.ts', 'packages/auth-server/src/cli/seed-config.ts']
          : []),
      ]
        .map(read)
        .join('\n');
      for (const key of Object.keys(env))
        expect({ key, known: readers.includes(`${key}:`) }).toEqual({ key, known: true });
      for (const key of ['BASE_URL', 'REDIS_URL', 'MONGODB_URI', 'INTROSPECTION_CLIENT_SECRET'])
        expect(env).toHaveProperty(key);
    }
    expect(compose.services['resource-api']!.environment!.AUTH_INTERNAL_URL).toBe(
      '${AUTH_INTERNAL_URL:-http://auth-server:8082}',
    );
  });

  it('fills every variable of the edge template, as scripts/start and the end-to-end harness do', () => {
    const names = [
      ...new Set([...read('docker/edge.conf.template').matchAll(/\$\{([A-Z_]+)\}/g)].map((m) => m[1]!)),
    ];
    expect(names.sort()).toEqual([...EDGE_TEMPLATE_NAMES].sort());
    const edge = compose.services.edge!.environment!;
    const filter = new RegExp(edge.NGINX_ENVSUBST_FILTER!);
    const envsubst = /envsubst '([^']*)'/.exec(read('scripts/lib.sh'))?.[1] ?? '';
    for (const name of names) {
      expect({ name, compose: name in edge, filtered: filter.test(name) }).toEqual({
        name,
        compose: true,
        filtered: true,
      });
      expect(envsubst).toContain(`\${${name}}`);
    }
  });

  it('gives the admin’s password only to the one-off seed, never to a long-running service', () => {
    // A password in the long-running auth server's environment is readable for its whole life (by
    // `inspect`, /proc, a crash dump); only `--profile seed run --rm seed-admin` needs it.
    for (const [name, service] of Object.entries(compose.services)) {
      if (name === 'seed-admin') continue;
      expect({
        name,
        env: Object.keys(service.environment ?? {}).filter((k) => k.startsWith('SEED_')),
      }).toEqual({
        name,
        env: [],
      });
    }
    const seed = compose.services['seed-admin']!;
    expect(seed.profiles).toEqual(['seed']); // `up` never starts it
    expect(seed.restart).toBe('no');
    expect(seed.read_only).toBe(true);
    expect(seed.image).toBe(compose.services['auth-server']!.image);
    expect(seed.command).toEqual(['node', 'packages/auth-server/dist/cli/main.js', 'seed-admin']);
    expect(seed.environment!.SEED_ADMIN_PASSWORD).toBe('${SEED_ADMIN_PASSWORD:-}');
    expect(seed.volumes).toEqual(compose.services['auth-server']!.volumes); // the server's signing keys
    // The docs and the script seed through it.
    for (const file of ['docs/deploy.md', 'docs/operators.md', 'docker/compose.yaml'])
      expect({ file, seeds: read(file).includes('--profile seed run --rm seed-admin') }).toEqual({
        file,
        seeds: true,
      });
    expect(read('scripts/containers')).toContain('dc --profile seed run --rm --no-deps -T seed-admin');
  });

  it('is run, in the docs and in its own comments, with the .env file of the repository root', () => {
    // The file sits in docker/, so compose looks for .env there: every command, also `run` for the
    // seeds, must name the repository root's .env, or the secrets and the admin's password are unset.
    const commands = ['README.md', 'docs/operators.md', 'docker/compose.yaml'].flatMap((file) =>
      read(file)
        .split('\n')
        .filter((line) => line.includes('docker compose '))
        .map((line) => ({ file, line: line.replace(/^#\s*/, '').trim() })),
    );
    expect(commands.filter(({ line }) => line.includes(' run --rm ')).length).toBeGreaterThanOrEqual(3);
    for (const { file, line } of commands) {
      expect({
        file,
        line,
        ok: line.startsWith('docker compose --env-file .env -f docker/compose.yaml '),
      }).toEqual({
        file,
        line,
        ok: true,
      });
    }
  });

  it('builds each service from its Dockerfile at the repository root, on the public Node.js image by default', () => {
    for (const name of ['auth-server', 'resource-api']) {
      expect(compose.services[name]!.build).toEqual({
        context: '..',
        dockerfile: `docker/${name}.Dockerfile`,
        args: { NODE_IMAGE: '${NODE_IMAGE:-node:22-bookworm-slim}' },
      });
      expect(compose.services[name]!.read_only).toBe(true);
    }
  });
});

describe.each([
  { service: 'auth-server', port: 'AUTH_PORT' },
  { service: 'resource-api', port: 'API_PORT' },
])('the $service Dockerfile', ({ service, port }) => {
  const dockerfile = read(`docker/${service}.Dockerfile`);

  it('is multi-stage on Node 22 LTS, production-only, non-root, with a health check', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:22-bookworm-slim$/m);
    expect(dockerfile.match(/^FROM \$\{NODE_IMAGE\}/gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/--omit=dev/);
    expect(dockerfile).toMatch(/^ENV NODE_ENV=production/m);
    // Numeric (the base image's `node` user), so Kubernetes can check runAsNonRoot without a lookup.
    expect(dockerfile).toMatch(/^USER 1000:1000$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK /m);
    expect(dockerfile).toContain(`/healthz`);
  });

  it('copies only paths that exist in the repository', () => {
    for (const path of contextCopies(dockerfile)) expect(existsSync(join(ROOT, path))).toBe(true);
  });

  it('starts from exactly the files it copies into the image and answers its health check', async () => {
    const image = mkdtempSync(join(tmpdir(), `image-${service}-`));
    for (const path of imageFiles(dockerfile)) {
      // The build stage creates packages/<service>/node_modules even when npm hoisted everything.
      if (path.endsWith('/node_modules') && !existsSync(join(ROOT, path))) continue;
      expect(existsSync(join(ROOT, path))).toBe(true);
      mkdirSync(dirname(join(image, path)), { recursive: true });
      cpSync(join(ROOT, path), join(image, path), { recursive: true, verbatimSymlinks: true });
    }
    symlinkSync(join(ROOT, 'node_modules'), join(image, 'node_modules'));
    const [program, ...args] = commandOf(dockerfile);
    expect(program).toBe('node');
    const listen = await freePort();
    const child = spawn(process.execPath, args, {
      cwd: image,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        [port]: String(listen),
        REDIS_URL: SERVICES.redisUrl,
        MONGODB_URI: `${SERVICES.mongoBase}/image_check`,
        KEYS_FILE: join(image, 'keys.json'),
        AUTH_INTERNAL_URL: 'http://127.0.0.1:9',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    try {
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        status = await fetch(`http://127.0.0.1:${listen}/healthz`).then(
          (r) => r.status,
          () => 0,
        );
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect({ status, output: status === 200 ? '' : output }).toEqual({ status: 200, output: '' });
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    }
  });
});

describe('the auth server’s Node flags (packages/auth-server/src/node-flags.ts)', () => {
  // Every launcher outside TypeScript spells them out; the TypeScript ones import the list.
  const launchers = {
    'docker/auth-server.Dockerfile': commandOf(read('docker/auth-server.Dockerfile')).join(' '),
    'scripts/start': read('scripts/start')
      .split('\n')
      .find((line) => line.includes('packages/auth-server/dist/main.js') && !line.trim().startsWith('#'))!,
    'npm start': (JSON.parse(read('packages/auth-server/package.json')) as { scripts: { start: string } })
      .scripts.start,
  };

  it.each(Object.entries(launchers))('%s passes them before the script', (_, command) => {
    const words = command.split(/\s+/);
    const script = words.findIndex((w) => /dist\/main\.js$/.test(w));
    expect(script).toBeGreaterThan(0);
    for (const flag of AUTH_SERVER_NODE_FLAGS) {
      expect(words.slice(0, script)).toContain(flag);
    }
  });
});

describe('docs/deploy.md', () => {
  const doc = read('docs/deploy.md');
  const suites = read('test-e2e/containers.test.ts') + read('test-e2e/kube.test.ts');

  it('shows only scripts/containers commands the container suites run', () => {
    const commands = [...doc.matchAll(/scripts\/containers ([a-z-]+)(?: ([a-z-]+))?/g)].map((m) => [
      m[1]!,
      m[2],
    ]);
    expect(commands.length).toBeGreaterThan(10);
    for (const [sub, arg] of commands) {
      // Each suite runs them as containers(stack, 'sub', 'arg') or runScript('containers', ['sub', …]).
      const runs =
        suites.includes(`'${sub}'`) && (!arg || !/^[a-z]+$/.test(arg) || suites.includes(`'${arg}'`));
      expect({ sub, arg, runs }).toEqual({ sub, arg, runs: true });
    }
  });

  it('is linked from the README', () => {
    expect(read('README.md')).toContain('(docs/deploy.md)');
  });
});
