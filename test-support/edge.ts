/**
 * The nginx edge on its own: docker/edge.conf.template rendered exactly as scripts/start and the nginx
 * image render it (envsubst of the names in {@link EdgeVars}, nothing else), started as a real nginx
 * process. `startStack` (test-e2e) puts it in front of the real services; the edge's own tests can also
 * point it at upstreams they control (a closed port, a server that never answers); the bench puts it in
 * front of one and of two processes of each service (SCALE).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { httpAnswers, startProcess, waitUntil } from './processes.js';

// The repository's root, from the source (test-support/) or from its build (test-support/dist/).
const ROOT = resolve(import.meta.dirname, basename(import.meta.dirname) === 'dist' ? '../..' : '..');

/** The template's variables (the same list as scripts/lib.sh `write_edge_config` and compose). */
export interface EdgeVars {
  LISTEN_PORT: string;
  /** One or more `host:port`, separated by spaces: the instances of the auth server. */
  AUTH_UPSTREAM: string;
  /** The same for the resource API. */
  API_UPSTREAM: string;
  /** The ingress the edge trusts to name the client in X-Forwarded-For; `unix:` trusts none. */
  EDGE_TRUSTED_PROXY: string;
}

/** The names substituted in the template, and nothing else (nginx's own `$variables` stay). */
export const EDGE_TEMPLATE_NAMES = [
  'LISTEN_PORT',
  'AUTH_UPSTREAM',
  'API_UPSTREAM',
  'EDGE_TRUSTED_PROXY',
] as const;

/**
 * A list of instances as the template's `server ${…_UPSTREAM};` line takes it: `a:1 b:2` becomes
 * `a:1; server b:2` (the same as scripts/lib.sh `write_edge_config`).
 */
export function upstreamServers(list: string): string {
  return list.trim().split(/\s+/).join('; server ');
}

/**
 * Writes nginx.conf (and the rendered edge.conf it includes) into `dir`; returns its path.
 * `edit` may change the rendered server config (test-only stacks, e.g. a shorter read timeout).
 */
export function edgeConfig(dir: string, vars: EdgeVars, edit: (conf: string) => string = (c) => c): string {
  const template = readFileSync(join(ROOT, 'docker/edge.conf.template'), 'utf8');
  const server = template.replace(
    new RegExp(`\\$\\{(${EDGE_TEMPLATE_NAMES.join('|')})\\}`, 'g'),
    (_, k: keyof EdgeVars) => (k.endsWith('_UPSTREAM') ? upstreamServers(vars[k]) : vars[k]),
  );
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  writeFileSync(join(dir, 'edge.conf'), edit(server));
  const main = `${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp/body; proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi; uwsgi_temp_path ${dir}/tmp/uwsgi; scgi_temp_path ${dir}/tmp/scgi;
  include ${dir}/edge.conf;
}`;
  writeFileSync(join(dir, 'nginx.conf'), main);
  return join(dir, 'nginx.conf');
}

/** The arguments that run nginx in the foreground on the config {@link edgeConfig} wrote into `dir`. */
export function nginxArgs(dir: string, conf: string): string[] {
  return ['nginx', '-c', conf, '-p', dir, '-g', 'daemon off;'];
}

/** A running edge without the services (see the top of this file). */
export interface Edge {
  url: string;
  stop(): Promise<void>;
}

/** Starts nginx on `vars.LISTEN_PORT` and resolves once it accepts connections. */
export async function startEdge(vars: EdgeVars, edit?: (conf: string) => string): Promise<Edge> {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-edge-'));
  const [cmd, ...args] = nginxArgs(dir, edgeConfig(dir, vars, edit));
  const nginx = startProcess('the edge', cmd!, args);
  const url = `http://127.0.0.1:${vars.LISTEN_PORT}`;
  try {
    await waitUntil(nginx, () => httpAnswers(`${url}/`), url, 10_000);
  } catch (err) {
    await nginx.stop();
    throw err;
  }
  return { url, stop: () => nginx.stop() };
}
