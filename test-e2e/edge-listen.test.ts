/**
 * Where the edge scripts/start runs listens: on BASE_URL's own host when that is a loopback one, so a
 * laptop's sign-in page, open registration and metadata-document fetches do not face the local
 * network; on every interface only for a public BASE_URL or when EDGE_LISTEN_ADDRESS says so. The
 * configuration is the one scripts/lib.sh writes, nginx really runs it, and the kernel's table of
 * listening sockets says where it listens (no connection to any other address is tried).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { freePort, pollUntil, startProcess } from '../test-support/processes.js';

const ROOT = resolve(import.meta.dirname, '..');

/** The edge configuration scripts/lib.sh writes for this environment; returns its directory. */
function writeEdgeConfig(env: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'edge-listen-'));
  const run = spawnSync('bash', ['-c', `source scripts/lib.sh >/dev/null && write_edge_config "${dir}"`], {
    cwd: ROOT,
    env: { ...process.env, AUTH_UPSTREAM: '127.0.0.1:9', API_UPSTREAM: '127.0.0.1:9', ...env },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`write_edge_config failed: ${run.stderr}`);
  return dir;
}

/** nginx's `listen` line in a written configuration. */
const listenLine = (dir: string) =>
  /^\s*listen ([^;]+);/m.exec(readFileSync(join(dir, 'conf.d/edge.conf'), 'utf8'))![1];

/** The local addresses with a socket listening on `port`, from /proc/net/tcp and tcp6 (hex, as the kernel writes them). */
function listeningOn(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((cols) => cols[1]?.endsWith(`:${hexPort}`) && cols[3] === '0A') // 0A: LISTEN
      .map((cols) => cols[1]!.split(':')[0]!),
  );
}

describe('the edge scripts/start runs', () => {
  it.each([
    ['http://127.0.0.1', '127.0.0.1', '0100007F'],
    ['http://localhost', '127.0.0.1', '0100007F'],
    ['http://[::1]', '[::1]', '00000000000000000000000001000000'],
  ])('listens on loopback only for BASE_URL %s', async (origin, address, kernelAddress) => {
    const port = await freePort();
    const dir = writeEdgeConfig({ BASE_URL: `${origin}:${port}`, LISTEN_PORT: String(port) });
    expect(listenLine(dir)).toBe(`${address}:${port}`);
    const nginx = startProcess('edge', 'nginx', [
      '-c',
      join(dir, 'nginx.conf'),
      '-p',
      dir,
      '-g',
      'daemon off;',
    ]);
    try {
      await pollUntil(() => listeningOn(port).length > 0, 'nginx listening');
      expect(listeningOn(port)).toEqual([kernelAddress]);
    } finally {
      await nginx.stop();
    }
  });

  it('listens on every interface for a public BASE_URL, or where EDGE_LISTEN_ADDRESS says', () => {
    expect(listenLine(writeEdgeConfig({ BASE_URL: 'https://school.example', LISTEN_PORT: '8080' }))).toBe(
      '8080',
    );
    const opened = writeEdgeConfig({
      BASE_URL: 'http://127.0.0.1:8080',
      LISTEN_PORT: '8080',
      EDGE_LISTEN_ADDRESS: '0.0.0.0',
    });
    expect(listenLine(opened)).toBe('0.0.0.0:8080');
  });
});
