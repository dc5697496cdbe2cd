{{/* The name of one component: <release>-<component>. */}}
{{- define "school-api.name" -}}
{{- printf "%s-%s" .root.Release.Name .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of one component. */}}
{{- define "school-api.labels" -}}
app.kubernetes.io/name: {{ .component }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/part-of: school-api
helm.sh/chart: {{ .root.Chart.Name }}-{{ .root.Chart.Version }}
{{- end -}}

{{- define "school-api.selector" -}}
app.kubernetes.io/name: {{ .component }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{/* Where Redis is, the same for both services (REDIS_*), secrets by reference only. */}}
{{- define "school-api.redisEnv" -}}
{{- $r := .Values.redis -}}
{{- if and $r.clusterNodes $r.sentinels }}{{ fail "redis: give clusterNodes or sentinels, not both" }}{{ end -}}
{{- if and $r.sentinels (not $r.sentinelName) }}{{ fail "redis.sentinelName is needed with redis.sentinels" }}{{ end -}}
{{- if $r.urlSecret.name }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef: { name: {{ $r.urlSecret.name | quote }}, key: {{ $r.urlSecret.key | quote }} }
{{- else }}
- name: REDIS_URL
  value: {{ $r.url | quote }}
{{- end }}
{{- with $r.clusterNodes }}
- name: REDIS_CLUSTER_NODES
  value: {{ join "," . | quote }}
{{- end }}
{{- with $r.sentinels }}
- name: REDIS_SENTINELS
  value: {{ join "," . | quote }}
- name: REDIS_SENTINEL_NAME
  value: {{ $r.sentinelName | quote }}
{{- end }}
- name: REDIS_KEY_PREFIX
  value: {{ $r.keyPrefix | quote }}
- name: MONGODB_URI
  valueFrom:
    secretKeyRef: { name: {{ .Values.mongodb.uriSecret.name | quote }}, key: {{ .Values.mongodb.uriSecret.key | quote }} }
- name: BASE_URL
  value: {{ .Values.baseUrl | quote }}
- name: TRUST_PROXY
  value: "true"
{{- end -}}

{{/* Probes on a service's own health endpoints: liveness /healthz (the process answers), readiness /readyz (its dependencies answer). */}}
{{- define "school-api.probes" -}}
livenessProbe:
  httpGet: { path: /healthz, port: http }
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
readinessProbe:
  httpGet: { path: /readyz, port: http }
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 2
startupProbe:
  httpGet: { path: /healthz, port: http }
  periodSeconds: 2
  failureThreshold: 30
{{- end -}}

{{/* Prometheus scrape annotations: the service's own port, where it serves /metrics (METRICS_PATH). */}}
{{- define "school-api.scrape" -}}
{{- if .root.Values.metrics.scrape }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .port | quote }}
prometheus.io/path: "/metrics"
{{- end }}
{{- end -}}

{{/*
The pod's security context: the images' `node` user by number (uid and gid 1000, as their Dockerfiles
say `USER 1000:1000`, so the kubelet can check runAsNonRoot), fsGroup so that user reads the mounted
Secret, and the runtime's default seccomp profile.
*/}}
{{- define "school-api.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 1000
runAsGroup: 1000
fsGroup: 1000
seccompProfile: { type: RuntimeDefault }
{{- end -}}

{{/* The container's: a read-only root filesystem (a private /tmp: school-api.tmpVolume), no privilege escalation, no capabilities. */}}
{{- define "school-api.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities: { drop: [ALL] }
{{- end -}}

{{/* The writable /tmp beside the read-only root filesystem (as compose's tmpfs): its mount, then its volume. */}}
{{- define "school-api.tmpMount" -}}
- { name: tmp, mountPath: /tmp }
{{- end -}}
{{- define "school-api.tmpVolume" -}}
- name: tmp
  emptyDir: { sizeLimit: 64Mi }
{{- end -}}

{{/*
The introspection client's credentials. The auth server knows the static client's secret; the API
introspects as that client, or, while `secrets.apiIntrospectionSecret` names a Secret (the secret's
rotation, docs/deploy.md), as the client whose INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET
it holds.
*/}}
{{- define "school-api.introspectionEnv" -}}
{{- $shared := required "secrets.existingSecret is required" .root.Values.secrets.existingSecret -}}
{{- $own := and .api .root.Values.secrets.apiIntrospectionSecret -}}
{{- if $own }}
- name: INTROSPECTION_CLIENT_ID
  valueFrom:
    secretKeyRef: { name: {{ $own | quote }}, key: INTROSPECTION_CLIENT_ID }
{{- end }}
- name: INTROSPECTION_CLIENT_SECRET
  valueFrom:
    secretKeyRef: { name: {{ ($own | default $shared) | quote }}, key: INTROSPECTION_CLIENT_SECRET }
{{- end -}}
