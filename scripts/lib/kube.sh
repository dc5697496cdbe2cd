# shellcheck shell=bash
# `scripts/containers kube [down]` (sourced by scripts/containers, which has chosen the engine, the
# images and the project): the Helm chart deploy/helm/school-api rendered with scripts/helm, linted,
# checked against the Kubernetes API schemas offline (kubeconform), and what `podman kube play` can
# run of it run: both Deployments (two replicas each), their Secrets and the signing keys, the
# datastores of docker/kube/datastores.yaml.template, and the nginx edge in front as the Ingress's stand-in,
# published at BASE_URL. What podman cannot run (the Ingress, the HorizontalPodAutoscalers, the
# PodDisruptionBudgets, the NetworkPolicies) is rendered, linted and schema-checked only.
#
# podman 4.3's kube play, as found here, and what this does about it:
#   - a Secret played from YAML is stored in a form its own secretKeyRef cannot read ("secret … is
#     not valid JSON"): the Secrets are created with `podman secret create`, as JSON of their
#     base64 data (the form secretKeyRef reads);
#   - Secret volumes are refused: the signing keys' Secret volume is mounted from a ConfigMap of the
#     same key instead (scripts/lib/kube-play.mjs);
#   - a Service gives no name on the network: the pods of each Deployment get the name of the Service
#     that selects them as a network alias (`--network NET:alias=NAME`), so the names the chart
#     uses (e.g. the API's AUTH_INTERNAL_URL) resolve, to every replica;
#   - health checks (probes) need systemd timers, which this machine lacks: readiness is polled.

kube_release=${KUBE_RELEASE:-school}
kube_dir="$state/kube-$COMPOSE_PROJECT_NAME"
kube_net="$COMPOSE_PROJECT_NAME-kube"
kube_env="$state/$COMPOSE_PROJECT_NAME-kube.env"
KUBECONFORM_VERSION=v0.8.0
KUBERNETES_VALIDATE_VERSION=1.37.0 # the PyPI package whose wheel carries the Kubernetes JSON schemas
KUBERNETES_SCHEMA_VERSION=1.33.0

kube_secret_names=(school-api-secrets school-api-mongodb)

kubeconform_bin() { # built with Go from the module proxy, once
  local bin="$root/.data/bin/kubeconform-$KUBECONFORM_VERSION"
  if [ ! -x "$bin" ]; then
    GOBIN="$root/.data/build/kubeconform" go install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION" \
      >"$state/kubeconform-build.log" 2>&1 || { tail -n 20 "$state/kubeconform-build.log" >&2; echo "building kubeconform failed" >&2; exit 1; }
    mkdir -p "$root/.data/bin" && mv "$root/.data/build/kubeconform/kubeconform" "$bin"
  fi
  echo "$bin"
}

# The JSON schemas of the Kubernetes API, from the wheel of the PyPI package kubernetes-validate, in
# the layout kubeconform reads. Its schemas point into one shared `/api/_definitions.json` (its own
# loader's path), which kubeconform cannot follow: each kind used here gets the definitions inlined.
# The kinds the chart, the datastores and the stand-in render (a kind added here is unpacked on the next run).
kube_schema_kinds=(deployment-apps-v1 service-v1 ingress-networking-v1 horizontalpodautoscaler-autoscaling-v2
  poddisruptionbudget-policy-v1 networkpolicy-networking-v1 configmap-v1 secret-v1 persistentvolumeclaim-v1)
kube_schemas() {
  local dir="$root/.data/kube-schemas"
  local bundled="$dir/bundled/v$KUBERNETES_SCHEMA_VERSION-local-strict"
  local kind complete=true
  [ -f "$bundled/.complete-$KUBERNETES_VALIDATE_VERSION" ] || complete=false
  for kind in "${kube_schema_kinds[@]}"; do [ -f "$bundled/$kind.json" ] || complete=false; done
  if [ "$complete" = false ]; then
    local tmp
    tmp=$(mktemp -d)
    python3 -m pip download -q --no-deps -d "$tmp" "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" >"$state/schemas.log" 2>&1 ||
      { tail -n 20 "$state/schemas.log" >&2; echo "could not fetch the schemas (kubernetes-validate)" >&2; exit 1; }
    python3 -m zipfile -e "$tmp"/kubernetes_validate-*.whl "$tmp/wheel"
    rm -rf "$bundled" && mkdir -p "$bundled"
    python3 - "$tmp/wheel/kubernetes_validate/kubernetes-json-schema/v$KUBERNETES_SCHEMA_VERSION-local-strict" "$bundled" \
      "${kube_schema_kinds[@]}" <<'PY'
import json, os, sys
src, out, *kinds = sys.argv[1:]
defs = json.load(open(os.path.join(src, "_definitions.json")))["$defs"]
for name in kinds:
    text = open(os.path.join(src, name + ".json")).read().replace('"/api/_definitions.json#/$defs/', '"#/$defs/')
    schema = json.loads(text)
    schema["$defs"] = defs
    json.dump(schema, open(os.path.join(out, name + ".json"), "w"))
PY
    rm -rf "$tmp"
    touch "$bundled/.complete-$KUBERNETES_VALIDATE_VERSION"
  fi
  echo "$dir/bundled"
}

kube_check() { # render, lint, schema-check: prints what it checked
  local values=("$@")
  scripts/helm lint --strict deploy/helm/school-api "${values[@]}" >"$kube_dir/lint.log" 2>&1 ||
    { cat "$kube_dir/lint.log" >&2; echo "helm lint failed" >&2; exit 1; }
  scripts/helm template "$kube_release" deploy/helm/school-api "${values[@]}" >"$kube_dir/rendered.yaml"
  local schemas
  schemas=$(kube_schemas)
  "$(kubeconform_bin)" -strict -summary -output json -kubernetes-version "$KUBERNETES_SCHEMA_VERSION" \
    -schema-location "$schemas/{{ .NormalizedKubernetesVersion }}-local-strict/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
    "$kube_dir/rendered.yaml" >"$kube_dir/kubeconform.json" ||
    { cat "$kube_dir/kubeconform.json" >&2; echo "kubeconform found invalid resources" >&2; exit 1; }
}

kube_secret() { # kube_secret NAME KEY=FILE...: a podman secret in the form kube play's secretKeyRef reads
  local name=$1 json="{" sep="" pair
  shift
  for pair in "$@"; do
    json+="$sep\"${pair%%=*}\":\"$(base64 -w0 <"${pair#*=}")\""
    sep=,
  done
  podman secret rm "$name" >/dev/null 2>&1 || true
  printf '%s}' "$json" | podman secret create "$name" - >/dev/null
}

kube_wait() { # kube_wait CONTAINER URL-ON-ITS-OWN-PORT
  local deadline=$((SECONDS + 90))
  until answers_ok "$1" "$2"; do # scripts/containers
    [ $SECONDS -lt $deadline ] || { echo "scripts/containers kube: $1 is not ready at $2; its log:" >&2; podman logs --tail 30 "$1" >&2; exit 1; }
    sleep 1
  done
}

kube_down() {
  local f
  for f in "$kube_dir"/play/*.yaml "$kube_dir/datastores.yaml"; do
    [ -f "$f" ] && podman kube down "$f" >/dev/null 2>&1 || true
  done
  podman rm -f "$kube_release-edge" >/dev/null 2>&1 || true
  for f in "${kube_secret_names[@]}"; do podman secret rm "$f" >/dev/null 2>&1 || true; done
  # The claims' volumes, and the volume kube play makes of the keys' ConfigMap.
  podman volume rm -f "$kube_release-redis-data" "$kube_release-mongo-data" school-api-signing-keys >/dev/null 2>&1 || true
  podman network rm -f "$kube_net" >/dev/null 2>&1 || true
}

kube_up() {
  [ "$engine" = podman ] || { echo "scripts/containers kube needs podman (kube play)" >&2; exit 1; }
  local started=$SECONDS
  ensure_node_modules
  mkdir -p "$kube_dir"
  : >"$timings"
  kube_down
  use_images
  build_images
  # This installation's secrets, and the signing keys, produced as docs/deploy.md says.
  [ -f "$kube_env" ] || (umask 077 && echo "# scripts/containers kube: this installation's secrets (mode 0600)" >"$kube_env")
  ensure_secrets "$kube_env"
  local keys="$kube_dir/jwks.json"
  if [ ! -s "$keys" ]; then
    rm -f "$keys"
    (umask 077 && podman run --rm "$AUTH_SERVER_IMAGE" node packages/auth-server/dist/cli/main.js keys generate >"$keys.new")
    mv "$keys.new" "$keys"
  fi
  # Render, lint and check everything, then run what podman can.
  local values=(-f docker/kube/values.yaml --set "baseUrl=$BASE_URL" --set "redis.url=redis://$kube_release-redis:6379"
    --set "images.authServer.repository=${AUTH_SERVER_IMAGE%:*}" --set "images.authServer.tag=${AUTH_SERVER_IMAGE##*:}"
    --set "images.resourceApi.repository=${RESOURCE_API_IMAGE%:*}" --set "images.resourceApi.tag=${RESOURCE_API_IMAGE##*:}")
  kube_check "${values[@]}"
  # The chart with autoscaling and the Ingress as an operator has them, checked the same way.
  scripts/helm template "$kube_release" deploy/helm/school-api >"$kube_dir/rendered-defaults.yaml"
  "$(kubeconform_bin)" -strict -summary -kubernetes-version "$KUBERNETES_SCHEMA_VERSION" \
    -schema-location "$(kube_schemas)/{{ .NormalizedKubernetesVersion }}-local-strict/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
    "$kube_dir/rendered-defaults.yaml" >"$kube_dir/kubeconform-defaults.txt" ||
    { cat "$kube_dir/kubeconform-defaults.txt" >&2; exit 1; }
  rm -rf "$kube_dir/play"
  node scripts/lib/kube-play.mjs "$kube_dir/rendered.yaml" "$kube_dir/play" >"$kube_dir/plan.json.log"
  local serving=$SECONDS
  podman network create "$kube_net" >/dev/null
  local tmp
  tmp=$(mktemp -d)
  printf '%s' "$COOKIE_SECRETS" >"$tmp/c" && printf '%s' "$INTROSPECTION_CLIENT_SECRET" >"$tmp/i" && printf '%s' "$SEED_ADMIN_PASSWORD" >"$tmp/s"
  printf 'mongodb://%s-mongo:27017/school' "$kube_release" >"$tmp/m"
  kube_secret school-api-secrets "COOKIE_SECRETS=$tmp/c" "INTROSPECTION_CLIENT_SECRET=$tmp/i" "SEED_ADMIN_PASSWORD=$tmp/s"
  kube_secret school-api-mongodb "MONGODB_URI=$tmp/m"
  rm -rf "$tmp"
  RELEASE=$kube_release envsubst '${RELEASE} ${REDIS_IMAGE} ${MONGO_IMAGE}' <docker/kube/datastores.yaml.template >"$kube_dir/datastores.yaml"
  # The datastores: each Deployment with its own name on the network, as a Service would give it.
  local d
  for d in redis mongo; do
    node -e '
const { parseAllDocuments, stringify } = require("yaml");
const [file, name] = process.argv.slice(1);
const docs = parseAllDocuments(require("fs").readFileSync(file, "utf8")).map((d) => d.toJS());
console.log(docs.filter((d) => d.kind === "PersistentVolumeClaim" ? d.metadata.name.endsWith(name + "-data") : d.metadata.name.endsWith("-" + name)).map((d) => stringify(d)).join("---\n"));' \
      "$kube_dir/datastores.yaml" "$d" >"$kube_dir/play/datastore-$d.yaml"
    podman kube play --network "$kube_net:alias=$kube_release-$d" "$kube_dir/play/datastore-$d.yaml" >>"$kube_dir/play.log" 2>&1 ||
      { tail -n 20 "$kube_dir/play.log" >&2; exit 1; }
  done
  # The services, in order, each file with the ConfigMap standing in for its Secret volume.
  local component file alias
  for component in auth-server resource-api; do
    file="$kube_dir/play/$component.yaml"
    alias=$(node -p "require('$kube_dir/play/plan.json').deployments.find((d) => d.component === '$component').alias")
    if [ "$component" = auth-server ]; then
      node -e '
const { stringify } = require("yaml");
const [file, keys] = process.argv.slice(1);
const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "school-api-signing-keys" }, data: { "jwks.json": require("fs").readFileSync(keys, "utf8") } };
require("fs").writeFileSync(file, stringify(cm) + "---\n" + require("fs").readFileSync(file, "utf8"));' "$file" "$keys"
    fi
    podman kube play --network "$kube_net:alias=$alias" "$file" >>"$kube_dir/play.log" 2>&1 ||
      { tail -n 20 "$kube_dir/play.log" >&2; exit 1; }
    local port=8082
    [ "$component" = auth-server ] || port=8081
    for c in $(podman ps --format '{{.Names}}' | grep -E "^$kube_release-$component-pod-[0-9]+-$component$"); do
      kube_wait "$c" "http://127.0.0.1:$port/healthz"
    done
    if [ "$component" = auth-server ]; then
      # The seed-admin step, as `kubectl exec deploy/<release>-auth-server -- …` does it in a cluster.
      admin=$(podman exec -e "SEED_ADMIN_PASSWORD=$SEED_ADMIN_PASSWORD" "$kube_release-auth-server-pod-0-auth-server" \
        node packages/auth-server/dist/cli/main.js seed-admin 2>"$kube_dir/seed.log") || { cat "$kube_dir/seed.log" >&2; exit 1; }
    fi
  done
  for c in $(podman ps --format '{{.Names}}' | grep -E "^$kube_release-resource-api-pod-[0-9]+-resource-api$"); do
    kube_wait "$c" "http://127.0.0.1:8081/readyz"
  done
  # The Ingress's stand-in: the edge, routing exactly the Ingress's paths to the two Services.
  podman run -d --name "$kube_release-edge" --network "$kube_net" -p "127.0.0.1:$EDGE_PORT:8080" \
    -e LISTEN_PORT=8080 -e "AUTH_UPSTREAM=$kube_release-auth-server:8082" -e "API_UPSTREAM=$kube_release-resource-api:8081" \
    -e EDGE_TRUSTED_PROXY=unix: -e 'NGINX_ENVSUBST_FILTER=^(LISTEN_PORT|AUTH_UPSTREAM|API_UPSTREAM|EDGE_TRUSTED_PROXY)$' \
    -v "$root/docker/edge.conf.template:/etc/nginx/templates/default.conf.template:ro" "${NGINX_IMAGE:-nginx:1.27}" >/dev/null
  wait_http "http://127.0.0.1:$EDGE_PORT/.well-known/oauth-authorization-server" edge "$kube_dir/play.log"
  wait_api_checks_tokens # scripts/containers: the API, through the edge, refuses an unknown token with 401
  echo "serving_seconds=$((SECONDS - serving))" >>"$timings"
  echo "up_seconds=$((SECONDS - started))" >>"$timings"
  node -e '
const a = JSON.parse(process.argv[1]);
const plan = require(process.argv[2]);
console.log(`
The school API is running from the Helm chart (podman kube play) at ${process.env.BASE_URL}

  discovery   ${process.env.BASE_URL}/.well-known/oauth-authorization-server
  admin       ${a.email}
  password    ${a.password ?? "(unchanged: " + a.note + ")"}
  secrets     ${process.argv[3]} (generated for this installation, mode 0600)
  ran         ${plan.deployments.map((d) => d.name + " (Service " + d.alias + ")").join(", ")}, datastores, the edge as the Ingress
  checked     ${plan.notRun.join(", ")}: rendered, helm lint, kubeconform (not run by podman)
  substituted ${plan.substitutions.join("; ")}

scripts/containers kube down`);' "$admin" "$kube_dir/play/plan.json" "${kube_env#"$root/"}"
}

case "${1:-up}" in
up) kube_up ;;
down) kube_down ;;
*) usage ;;
esac
