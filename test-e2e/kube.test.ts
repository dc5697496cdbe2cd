/**
 * The Helm chart run for real (scripts/containers kube): rendered with the pinned Helm, linted, checked
 * against the Kubernetes API's JSON schemas offline (kubeconform; schemas from the kubernetes-validate
 * package), and what `podman kube play` can run of it run on this machine: both Deployments with two
 * replicas each, their Secrets and the signing keys, with the nginx edge in front as the Ingress's
 * stand-in. A client completes the flow through it. What podman cannot run (the Ingress, the
 * autoscalers, the disruption budgets) is checked offline only; so is the example values file of
 * docs/deploy.md. Run alone by scripts/test, after the compose suite; everything it creates is removed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { freePort } from '../test-support/processes.js';
import { postForm, registerClient, signIn, type Tokens } from '../test-support/oauth-flow.js';
import { adminFrom, engine, recordFigures, ROOT, runScript, type Project } from './support/containers.js';

const MINUTE = 60_000;
const RELEASE = 'school';
let project: Project;
let admin: { email: string; password: string };
const env = () => ({ COMPOSE_PROJECT_NAME: project.name, BASE_URL: project.baseUrl });
const kubeDir = () => join(ROOT, '.data/containers', `kube-${project.name}`);

/** kubeconform as scripts/containers kube built it, with the schemas it unpacked. */
function kubeconform(file: string): { status: number | null; output: string } {
  const bin = readdirSync(join(ROOT, '.data/bin')).find((f) => f.startsWith('kubeconform-'))!;
  const run = spawnSync(
    join(ROOT, '.data/bin', bin),
    [
      '-strict',
      '-summary',
      '-kubernetes-version',
      '1.33.0',
      '-schema-location',
      `${join(ROOT, '.data/kube-schemas/bundled')}/{{ .NormalizedKubernetesVersion }}-local-strict/{{ .ResourceKind }}{{ .KindSuffix }}.json`,
      file,
    ],
    { encoding: 'utf8' },
  );
  return { status: run.status, output: run.stdout + run.stderr };
}

beforeAll(async () => {
  project = { name: 'school-kube-e2e', baseUrl: `http://127.0.0.1:${await freePort()}` };
  await runScript('containers', ['kube', 'down'], env()).catch(() => undefined);
  const up = await runScript('containers', ['kube'], env());
  admin = adminFrom(up.stdout);
  const timings = Object.fromEntries(
    readFileSync(join(ROOT, '.data/containers', `${project.name}.timings`), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('=')),
  ) as Record<string, string>;
  recordFigures({
    kube_up_total_seconds: up.seconds,
    kube_play_to_serving_seconds: Number(timings.serving_seconds),
  });
}, 20 * MINUTE);

afterAll(async () => {
  await runScript('containers', ['kube', 'down'], env()).catch(() => undefined);
}, 5 * MINUTE);

it('runs both Deployments with two replicas each, as the non-root user, behind the edge', () => {
  const names = engine('ps', '--format', '{{.Names}}').split('\n');
  for (const component of ['auth-server', 'resource-api']) {
    const pods = names.filter((n) => new RegExp(`^${RELEASE}-${component}-pod-\\d+-${component}$`).test(n));
    expect([component, pods.length]).toEqual([component, 2]);
    for (const c of pods) expect([c, engine('exec', c, 'id', '-u')]).toEqual([c, '1000']);
  }
  expect(names).toContain(`${RELEASE}-edge`);
});

it(
  'passes the flow through it: register, sign in and consent, exchange, API, refresh, revoke, 401',
  async () => {
    const auth = { issuer: project.baseUrl };
    const client = await registerClient(auth);
    const tokens: Tokens = await signIn(auth, client, {
      scope: 'openid courses:read offline_access',
      account: admin,
      resource: project.baseUrl,
    });
    const api = async (token: string) =>
      (await fetch(`${project.baseUrl}/api/v1/courses`, { headers: { authorization: `Bearer ${token}` } }))
        .status;
    expect(await api(tokens.access_token)).toBe(200);
    const refreshed = await postForm(`${project.baseUrl}/api/oauth/token`, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: client.clientId,
      resource: project.baseUrl,
    });
    expect(refreshed.status).toBe(200);
    const next = refreshed.body as unknown as Tokens;
    expect(await api(next.access_token)).toBe(200);
    await postForm(`${project.baseUrl}/api/oauth/revoke`, {
      token: next.refresh_token!,
      client_id: client.clientId,
    });
    for (let i = 0; i < 4; i++) expect(await api(next.access_token)).toBe(401);
  },
  5 * MINUTE,
);

it('checks what podman cannot run (Ingress, autoscalers, disruption budgets, network policies) offline, and kubeconform refuses a broken manifest', () => {
  const plan = JSON.parse(readFileSync(join(kubeDir(), 'play/plan.json'), 'utf8')) as { notRun: string[] };
  expect(plan.notRun).toEqual(
    expect.arrayContaining([`Ingress/${RELEASE}-edge`, `PodDisruptionBudget/${RELEASE}-auth-server`]),
  );
  const defaults = readFileSync(join(kubeDir(), 'kubeconform-defaults.txt'), 'utf8');
  // Two Deployments, Services, autoscalers, disruption budgets and network policies, and the Ingress.
  expect(defaults).toMatch(/Valid: 11, Invalid: 0, Errors: 0, Skipped: 0/);
  const rendered = readFileSync(join(kubeDir(), 'rendered-defaults.yaml'), 'utf8');
  for (const kind of [
    'Ingress',
    'HorizontalPodAutoscaler',
    'PodDisruptionBudget',
    'NetworkPolicy',
    'Deployment',
    'Service',
  ])
    expect(rendered).toContain(`kind: ${kind}\n`);
  const broken = join(mkdtempSync(join(tmpdir(), 'kubeconform-')), 'broken.yaml');
  writeFileSync(
    broken,
    rendered
      .replace('minAvailable: 1', 'minAvailable: [1]') // a PodDisruptionBudget: no array there
      .replace('averageUtilization: 70', 'averageUtilization: seventy'), // an autoscaler: an integer
  );
  const result = kubeconform(broken);
  expect(result.status).not.toBe(0);
  expect(result.output).toMatch(/Valid: 9, Invalid: 2/);
});

it('renders, lints and schema-checks the example values file of docs/deploy.md', () => {
  const doc = readFileSync(join(ROOT, 'docs/deploy.md'), 'utf8');
  const values = /<!-- example-values -->\s*```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
  expect(values).toBeDefined();
  const dir = mkdtempSync(join(tmpdir(), 'values-'));
  writeFileSync(join(dir, 'values.yaml'), values!);
  const helm = (...args: string[]) => {
    const run = spawnSync(join(ROOT, 'scripts/helm'), args, { encoding: 'utf8' });
    expect([args[0], run.status, run.stderr]).toEqual([args[0], 0, expect.any(String)]);
    return run.stdout;
  };
  helm('lint', '--strict', join(ROOT, 'deploy/helm/school-api'), '-f', join(dir, 'values.yaml'));
  writeFileSync(
    join(dir, 'rendered.yaml'),
    helm('template', RELEASE, join(ROOT, 'deploy/helm/school-api'), '-f', join(dir, 'values.yaml')),
  );
  const result = kubeconform(join(dir, 'rendered.yaml'));
  expect([result.status, result.output]).toEqual([
    0,
    expect.stringMatching(/Invalid: 0, Errors: 0, Skipped: 0/),
  ]);
});
