// Splits what `helm template` rendered of deploy/helm/school-api into what `podman kube play` (4.3)
// can run, for `scripts/containers kube`:
//   node scripts/lib/kube-play.mjs RENDERED.yaml OUTDIR
// Writes OUTDIR/<component>.yaml (one per Deployment) and OUTDIR/plan.json: each Deployment's file
// and the name of the Service that selects it (podman gives no Service a name on the network: the
// script gives it to the pods as a network alias), and the kinds left for the offline checks.
// One substitution, said in plan.json: podman 4.3 refuses Secret volumes ("HostPath, ConfigMap,
// EmptyDir, and PersistentVolumeClaim are currently the only supported VolumeSource"), so a Secret
// volume becomes a ConfigMap volume of the same keys, a ConfigMap the script fills from the Secret's
// file (only on this machine; the chart itself mounts the Secret).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';

const [rendered, out] = process.argv.slice(2);
const docs = parseAllDocuments(readFileSync(rendered, 'utf8'))
  .map((d) => d.toJS())
  .filter(Boolean);
mkdirSync(out, { recursive: true });
const services = docs.filter((d) => d.kind === 'Service');
const plan = { deployments: [], notRun: [], substitutions: [] };
for (const d of docs) {
  if (d.kind !== 'Deployment') {
    if (d.kind !== 'Service') plan.notRun.push(`${d.kind}/${d.metadata.name}`);
    continue;
  }
  const labels = d.spec.template.metadata.labels;
  const service = services.find((s) => Object.entries(s.spec.selector).every(([k, v]) => labels[k] === v));
  const extra = [];
  for (const volume of d.spec.template.spec.volumes ?? []) {
    if (!volume.secret) continue;
    const name = volume.secret.secretName;
    volume.configMap = { name, items: volume.secret.items };
    delete volume.secret;
    extra.push(name);
    plan.substitutions.push(
      `${d.metadata.name}: volume ${volume.name} from ConfigMap ${name} (the Secret's keys)`,
    );
  }
  // podman 4.3 publishes every containerPort on the host (hostPort defaults to containerPort): on
  // this machine that would take ports other work uses, and off loopback. The ports are dropped
  // (the pods are reached on the network, by the Service's name), probes name the number instead.
  for (const container of d.spec.template.spec.containers) {
    const ports = Object.fromEntries((container.ports ?? []).map((p) => [p.name, p.containerPort]));
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
      const get = container[probe]?.httpGet;
      if (get && typeof get.port === 'string') get.port = ports[get.port];
    }
    if (container.ports) {
      plan.substitutions.push(
        `${d.metadata.name}: containerPorts ${Object.values(ports).join(', ')} not published on the host`,
      );
      delete container.ports;
    }
  }
  const component = labels['app.kubernetes.io/name'];
  const file = join(out, `${component}.yaml`);
  writeFileSync(file, stringify(d));
  plan.deployments.push({
    component,
    name: d.metadata.name,
    file,
    alias: service?.metadata.name,
    configMaps: extra,
  });
}
writeFileSync(join(out, 'plan.json'), JSON.stringify(plan, null, 2));
console.log(JSON.stringify(plan));
