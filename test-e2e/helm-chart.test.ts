/**
 * The Helm chart (deploy/helm/school-api), checked offline with the pinned Helm (scripts/helm):
 * `helm lint`, and `helm template` rendered for each Redis shape, then read as Kubernetes would:
 *
 * - every path the nginx edge routes (docker/edge.conf.template) reaches the same service through the
 *   Ingress, and the Ingress routes nothing the edge does not;
 * - every probe is a GET of a path that the real service answers 200 on its own port (both services
 *   are started here and asked), on the port the container listens on;
 * - no secret is inlined: secret values come from existing Secrets by reference, the chart renders
 *   no Secret, and no plain value carries a credential;
 * - both services run >= 2 replicas with requests, a PodDisruptionBudget, a CPU autoscaler, and the
 *   Prometheus scrape annotations for /metrics on their own port.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { startTestAuthServer, type TestAuthServer } from '../test-support/auth-server.js';
import { startTestResourceApi, type TestResourceApi } from '../test-support/resource-api.js';

const root = join(import.meta.dirname, '..');
const chart = join(root, 'deploy', 'helm', 'school-api');
const helm = (...args: string[]) =>
  execFileSync(join(root, 'scripts', 'helm'), args, { encoding: 'utf8', timeout: 900_000 });

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return -- rendered manifests are untyped YAML, read by path; each expectation checks the shape it reads */
type Manifest = any;

const SHAPES: Record<string, string[]> = {
  'one Redis node': [],
  'a Redis Cluster': ['--set', 'redis.clusterNodes={redis-0.redis:6379,redis-1.redis:6379}'],
  'Redis Sentinel': ['--set', 'redis.sentinels={sentinel:26379}', '--set', 'redis.sentinelName=main'],
};
const render = (args: string[]): Manifest[] =>
  parseAllDocuments(helm('template', 'school', chart, ...args))
    .map((d) => d.toJS())
    .filter(Boolean);

/** The edge's routes: `location [=] <path> { … proxy_pass http://<upstream>; }`. */
function edgeRoutes(): Array<{ path: string; exact: boolean; service: 'auth-server' | 'resource-api' }> {
  const conf = readFileSync(join(root, 'docker', 'edge.conf.template'), 'utf8');
  const routes = [];
  for (const m of conf.matchAll(/^\s*location\s+(=\s+)?(\/\S*)\s+\{[^}]*proxy_pass http:\/\/(\w+);/gm)) {
    routes.push({
      path: m[2]!,
      exact: Boolean(m[1]),
      service: m[3] === 'auth_server' ? ('auth-server' as const) : ('resource-api' as const),
    });
  }
  return routes;
}

/** The service the Ingress sends `path` to, by Kubernetes' rules (Exact first, then longest Prefix). */
function ingressTarget(ingress: Manifest, path: string): string | undefined {
  const paths: Manifest[] = ingress.spec.rules[0].http.paths;
  const exact = paths.find((p) => p.pathType === 'Exact' && p.path === path);
  if (exact) return exact.backend.service.name;
  const parts = (p: string) => p.split('/').filter(Boolean);
  const prefixes = paths
    .filter((p) => p.pathType === 'Prefix')
    .filter((p) => parts(p.path).every((seg: string, i: number) => parts(path)[i] === seg))
    .sort((a, b) => parts(b.path).length - parts(a.path).length);
  return prefixes[0]?.backend.service.name;
}

let auth: TestAuthServer;
let api: TestResourceApi;
beforeAll(async () => {
  helm('version'); // builds the pinned Helm on first use (minutes, once)
  auth = await startTestAuthServer();
  api = await startTestResourceApi(auth);
}, 900_000);
afterAll(async () => {
  await api?.stop();
  await auth?.stop();
});

it('passes helm lint', () => {
  expect(helm('lint', chart, '--strict')).toMatch(/0 chart\(s\) failed/);
});

describe.each(Object.entries(SHAPES))('rendered for %s', (_shape, args) => {
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = render(args);
  });
  const ofKind = (kind: string) => manifests.filter((m) => m.kind === kind);
  const deployment = (component: string) =>
    ofKind('Deployment').find((d) => d.metadata.labels['app.kubernetes.io/name'] === component);

  it('routes every path the edge routes to the same service, and nothing else', () => {
    const [ingress] = ofKind('Ingress');
    const routes = edgeRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(10);
    for (const route of routes) {
      const samples = route.exact ? [route.path] : [route.path, `${route.path.replace(/\/$/, '')}/x/y`];
      for (const sample of samples)
        expect([sample, ingressTarget(ingress, sample)]).toEqual([sample, `school-${route.service}`]);
    }
    for (const p of ingress.spec.rules[0].http.paths) {
      expect(routes.some((r) => r.path === p.path)).toBe(true);
    }
    // The home page is `/` exactly: nothing below it goes anywhere the edge does not send it.
    expect(ingressTarget(ingress, '/')).toBe('school-auth-server');
    expect(ingressTarget(ingress, '/admin')).toBeUndefined();
  });

  it('probes only endpoints the real services answer 200 on their own port', async () => {
    const urls: Record<string, string> = { 'auth-server': auth.issuer, 'resource-api': api.url };
    for (const component of ['auth-server', 'resource-api']) {
      const container = deployment(component).spec.template.spec.containers[0];
      const port = container.ports.find((p: Manifest) => p.name === 'http').containerPort;
      const portVar = component === 'auth-server' ? 'AUTH_PORT' : 'API_PORT';
      expect(container.env.find((e: Manifest) => e.name === portVar).value).toBe(String(port));
      for (const kind of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
        const probe = container[kind].httpGet;
        expect(probe.port).toBe('http');
        const res = await fetch(`${urls[component]}${probe.path}`);
        expect([component, probe.path, res.status]).toEqual([component, probe.path, 200]);
      }
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    }
  });

  it("points Prometheus at each service's own port, where the real service serves its metrics", async () => {
    const [ingress] = ofKind('Ingress');
    expect(ingressTarget(ingress, '/metrics')).toBeUndefined();
    const services: Record<string, [string, string]> = {
      'auth-server': [auth.issuer, 'auth_http_request_duration_seconds'],
      'resource-api': [api.url, 'api_http_request_duration_seconds'],
    };
    for (const [component, [url, metric]] of Object.entries(services)) {
      const d = deployment(component);
      const annotations = d.spec.template.metadata.annotations;
      const http = d.spec.template.spec.containers[0].ports.find((p: Manifest) => p.name === 'http');
      expect(annotations['prometheus.io/port']).toBe(String(http.containerPort));
      // The test services listen on other ports than the chart's; the path is what they serve there.
      const res = await fetch(`${url}${annotations['prometheus.io/path']}`);
      expect([component, res.status]).toEqual([component, 200]);
      expect(await res.text()).toContain(`# TYPE ${metric} histogram`);
    }
  });

  it('inlines no secret: every secret is a reference to an existing Secret', () => {
    expect(ofKind('Secret')).toEqual([]);
    const secretish = /SECRET|PASSWORD|MONGODB_URI|COOKIE/;
    for (const d of ofKind('Deployment')) {
      for (const e of d.spec.template.spec.containers[0].env) {
        if (secretish.test(e.name))
          expect([e.name, e.valueFrom?.secretKeyRef?.name]).toEqual([e.name, expect.any(String)]);
        if (e.value !== undefined) {
          expect(e.value).not.toMatch(/:\/\/[^/@]*:[^/@]*@/); // no URL with a password
          expect(e.value).not.toMatch(/[0-9a-f]{32}/i); // no generated secret
        }
      }
    }
    const keys = deployment('auth-server').spec.template.spec.volumes.find(
      (v: Manifest) => v.name === 'signing-keys',
    );
    expect(keys.secret.secretName).toBe('school-api-signing-keys');
  });

  it('runs each service on >= 2 replicas with requests, a PodDisruptionBudget, a CPU autoscaler and scrape annotations', () => {
    for (const component of ['auth-server', 'resource-api']) {
      const d = deployment(component);
      const name = d.metadata.name;
      const hpa = ofKind('HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === name);
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(hpa.spec.metrics[0].resource.name).toBe('cpu');
      const pdb = ofKind('PodDisruptionBudget').find((p) => p.metadata.name === name);
      expect(pdb.spec.selector.matchLabels).toEqual(d.spec.selector.matchLabels);
      const container = d.spec.template.spec.containers[0];
      expect(container.resources.requests).toMatchObject({
        cpu: expect.any(String),
        memory: expect.any(String),
      });
      const port = container.ports[0].containerPort;
      expect(d.spec.template.metadata.annotations).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(port),
        'prometheus.io/path': '/metrics',
      });
    }
  });
});

it('names the Redis shape in both services, and refuses a cluster and Sentinel together', () => {
  const env = (m: Manifest[]) =>
    Object.fromEntries(
      m
        .find((d) => d.kind === 'Deployment')
        .spec.template.spec.containers[0].env.map((e: Manifest) => [e.name, e.value]),
    );
  expect(env(render(SHAPES['a Redis Cluster']!)).REDIS_CLUSTER_NODES).toBe(
    'redis-0.redis:6379,redis-1.redis:6379',
  );
  expect(env(render(SHAPES['Redis Sentinel']!))).toMatchObject({
    REDIS_SENTINELS: 'sentinel:26379',
    REDIS_SENTINEL_NAME: 'main',
  });
  expect(() => render([...SHAPES['a Redis Cluster']!, ...SHAPES['Redis Sentinel']!])).toThrow(/not both/);
});

it('renders with replicas and no autoscaler when autoscaling is off, still >= 2', () => {
  const m = render(['--set', 'autoscaling.enabled=false']);
  expect(m.filter((d) => d.kind === 'HorizontalPodAutoscaler')).toEqual([]);
  for (const d of m.filter((x) => x.kind === 'Deployment')) expect(d.spec.replicas).toBeGreaterThanOrEqual(2);
});
