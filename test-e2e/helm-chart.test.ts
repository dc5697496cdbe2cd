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
 *   Prometheus scrape annotations for /metrics on their own port;
 * - both run as the Dockerfiles' numeric user, non-root, on a read-only root filesystem with a
 *   private /tmp, without privilege escalation or capabilities, under the runtime's seccomp profile;
 * - their NetworkPolicies, read as Kubernetes applies them, admit to the services' ports only the
 *   ingress controller's pods, the metrics scrapers and (to the auth server) the resource API's pods:
 *   no other pod can be the hop whose X-Forwarded-For the services believe.
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

/** A pod that sends traffic: its namespace and labels (namespaces carry their name as a label). */
interface Sender {
  namespace: string;
  labels: Record<string, string>;
}

/** Whether a label selector (matchLabels only: the chart uses nothing else) selects `labels`. */
function selects(selector: Manifest, labels: Record<string, string>): boolean {
  expect(selector.matchExpressions).toBeUndefined();
  return Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
}

/**
 * Whether the NetworkPolicies of the release (in namespace `default`, as `helm template` renders it)
 * let `from` reach TCP `port` of a pod labelled `target`, by Kubernetes' rules: a pod no policy
 * selects takes everything; a selected one only what some rule admits (a rule without ports admits
 * every port, one without peers every peer; a peer with only a podSelector means the policy's own
 * namespace). ipBlock peers name addresses, not pods: they admit no pod here.
 */
function admits(policies: Manifest[], target: Record<string, string>, port: number, from: Sender): boolean {
  const selecting = policies.filter(
    (p) => selects(p.spec.podSelector, target) && (p.spec.policyTypes ?? ['Ingress']).includes('Ingress'),
  );
  if (!selecting.length) return true;
  const namespaceLabels = { 'kubernetes.io/metadata.name': from.namespace };
  return selecting.some((p) =>
    (p.spec.ingress ?? []).some(
      (rule: Manifest) =>
        (!rule.ports?.length ||
          rule.ports.some((q: Manifest) => q.port === port && (q.protocol ?? 'TCP') === 'TCP')) &&
        (!rule.from?.length ||
          rule.from.some(
            (peer: Manifest) =>
              !peer.ipBlock &&
              (peer.namespaceSelector
                ? selects(peer.namespaceSelector, namespaceLabels)
                : from.namespace === 'default') &&
              (!peer.podSelector || selects(peer.podSelector, from.labels)),
          )),
    ),
  );
}

const INGRESS_NGINX: Sender = {
  namespace: 'ingress-nginx',
  labels: { 'app.kubernetes.io/name': 'ingress-nginx', 'app.kubernetes.io/component': 'controller' },
};
const PROMETHEUS: Sender = { namespace: 'monitoring', labels: { 'app.kubernetes.io/name': 'prometheus' } };

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

  it('runs each service as the Dockerfile’s numeric user, read-only, unprivileged, with a private /tmp', () => {
    for (const component of ['auth-server', 'resource-api']) {
      const spec = deployment(component).spec.template.spec;
      const dockerfile = readFileSync(join(root, 'docker', `${component}.Dockerfile`), 'utf8');
      const [, uid, gid] = /^USER (\d+):(\d+)$/m.exec(dockerfile)!;
      expect(Number(uid)).toBeGreaterThan(0);
      expect([component, spec.securityContext]).toEqual([
        component,
        {
          runAsNonRoot: true,
          runAsUser: Number(uid),
          runAsGroup: Number(gid),
          fsGroup: Number(gid), // so that user reads a mounted Secret (mode 0400, owned by root otherwise)
          seccompProfile: { type: 'RuntimeDefault' },
        },
      ]);
      const [container] = spec.containers;
      expect([component, container.securityContext]).toEqual([
        component,
        { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
      ]);
      const tmp = container.volumeMounts.find((m: Manifest) => m.mountPath === '/tmp');
      expect(spec.volumes.find((v: Manifest) => v.name === tmp.name).emptyDir).toBeDefined();
      // Nothing else writable: every other mount is read-only.
      for (const m of container.volumeMounts.filter((x: Manifest) => x !== tmp))
        expect(m.readOnly).toBe(true);
    }
  });

  it('admits to the services’ ports only the ingress controller, the metrics scrapers and the API', () => {
    const policies = ofKind('NetworkPolicy');
    expect(policies).toHaveLength(2);
    const target = (component: string) => {
      const d = deployment(component);
      const port = d.spec.template.spec.containers[0].ports[0].containerPort as number;
      return { labels: d.spec.template.metadata.labels as Record<string, string>, port };
    };
    const authServer = target('auth-server');
    const api = target('resource-api');
    const reaches = (from: Sender, to: { labels: Record<string, string>; port: number }) =>
      admits(policies, to.labels, to.port, from);
    for (const to of [authServer, api]) {
      expect(reaches(INGRESS_NGINX, to)).toBe(true);
      expect(reaches(PROMETHEUS, to)).toBe(true);
      // Any other pod: in the release's namespace, in the controller's, or wearing its labels elsewhere.
      expect(reaches({ namespace: 'default', labels: { app: 'debug' } }, to)).toBe(false);
      expect(reaches({ namespace: 'ingress-nginx', labels: { app: 'other' } }, to)).toBe(false);
      expect(reaches({ namespace: 'default', labels: INGRESS_NGINX.labels }, to)).toBe(false);
      expect(reaches({ namespace: 'monitoring', labels: { app: 'grafana' } }, to)).toBe(false);
    }
    // The API introspects at the auth server; nothing reaches the API from the auth server's side.
    expect(reaches({ namespace: 'default', labels: api.labels }, authServer)).toBe(true);
    expect(reaches({ namespace: 'default', labels: authServer.labels }, api)).toBe(false);
    const otherRelease = { ...api.labels, 'app.kubernetes.io/instance': 'other' };
    expect(reaches({ namespace: 'default', labels: otherRelease }, authServer)).toBe(false);
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

it('admits the ingress controller and scrapers the values name, and refuses to admit everyone', () => {
  const traefik: Sender = { namespace: 'traefik', labels: { 'app.kubernetes.io/name': 'traefik' } };
  const m = render([
    '--set-json',
    'networkPolicy.ingressControllers=[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"traefik"}},"podSelector":{"matchLabels":{"app.kubernetes.io/name":"traefik"}}}]',
    '--set-json',
    'networkPolicy.metricsScrapers=[]',
  ]);
  const policies = m.filter((d) => d.kind === 'NetworkPolicy');
  for (const d of m.filter((x) => x.kind === 'Deployment')) {
    const labels = d.spec.template.metadata.labels;
    const port = d.spec.template.spec.containers[0].ports[0].containerPort;
    expect(admits(policies, labels, port, traefik)).toBe(true);
    expect(admits(policies, labels, port, INGRESS_NGINX)).toBe(false);
    expect(admits(policies, labels, port, PROMETHEUS)).toBe(false);
  }
  // No ingress controller named: a rule without peers would admit every pod, so the chart refuses.
  expect(() => render(['--set-json', 'networkPolicy.ingressControllers=[]'])).toThrow(/ingressControllers/);
  expect(render(['--set', 'networkPolicy.enabled=false']).filter((d) => d.kind === 'NetworkPolicy')).toEqual(
    [],
  );
});

it('lets the resource API alone use a second introspecting client while the secret is rotated', () => {
  const introspection = (m: Manifest[], component: string) =>
    Object.fromEntries(
      m
        .find((d) => d.kind === 'Deployment' && d.metadata.labels['app.kubernetes.io/name'] === component)
        .spec.template.spec.containers[0].env.filter((e: Manifest) => e.name.startsWith('INTROSPECTION_'))
        .map((e: Manifest) => [e.name, e.valueFrom?.secretKeyRef]),
    );
  const usual = render(SHAPES['one Redis node']!);
  const shared = { name: 'school-api-secrets', key: 'INTROSPECTION_CLIENT_SECRET' };
  expect(introspection(usual, 'resource-api')).toEqual({ INTROSPECTION_CLIENT_SECRET: shared });
  expect(introspection(usual, 'auth-server')).toEqual({ INTROSPECTION_CLIENT_SECRET: shared });
  const rotating = render([...SHAPES['one Redis node']!, '--set', 'secrets.apiIntrospectionSecret=rotation']);
  expect(introspection(rotating, 'resource-api')).toEqual({
    INTROSPECTION_CLIENT_ID: { name: 'rotation', key: 'INTROSPECTION_CLIENT_ID' },
    INTROSPECTION_CLIENT_SECRET: { name: 'rotation', key: 'INTROSPECTION_CLIENT_SECRET' },
  });
  expect(introspection(rotating, 'auth-server')).toEqual({ INTROSPECTION_CLIENT_SECRET: shared });
});
