{{/*
Names, labels and the per-service view of the values.
*/}}

{{/* Chart name, overridable. */}}
{{- define "agent-memory.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-scoped base name: <release>-<chart>, or the release name when it contains the chart name. */}}
{{- define "agent-memory.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* chart label value: <name>-<version> */}}
{{- define "agent-memory.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels shared by every object of the release. */}}
{{- define "agent-memory.labels" -}}
helm.sh/chart: {{ include "agent-memory.chart" . }}
app.kubernetes.io/name: {{ include "agent-memory.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: {{ include "agent-memory.name" . }}
{{- end -}}

{{/* Selector labels of the release (no component). */}}
{{- define "agent-memory.selectorLabels" -}}
app.kubernetes.io/name: {{ include "agent-memory.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Object name of one process: <fullname>-<service>. Argument: dict "root" $ "name" <service>. */}}
{{- define "agent-memory.componentName" -}}
{{- printf "%s-%s" (include "agent-memory.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of one process. Argument: dict "root" $ "name" <service>. */}}
{{- define "agent-memory.componentLabels" -}}
{{ include "agent-memory.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* Selector labels of one process. Argument: dict "root" $ "name" <service>. */}}
{{- define "agent-memory.componentSelectorLabels" -}}
{{ include "agent-memory.selectorLabels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/*
Deep merge with override semantics, YAML out: maps merge key by key, any other value (lists, scalars,
false, 0, "") replaces, and null removes the key. Sprig's mergeOverwrite is not used because it skips
"empty" overrides, so `enabled: false` or `replicas: 0` could not override a default.
Argument: dict "base" <map> "over" <map>.
*/}}
{{- define "agent-memory.deepMerge" -}}
{{- $out := deepCopy (default dict .base) -}}
{{- range $k, $v := (default dict .over) -}}
{{- if kindIs "invalid" $v -}}
{{- $_ := unset $out $k -}}
{{- else if and (kindIs "map" $v) (kindIs "map" (get $out $k)) -}}
{{- $_ := set $out $k (include "agent-memory.deepMerge" (dict "base" (get $out $k) "over" $v) | fromYaml) -}}
{{- else -}}
{{- $_ := set $out $k $v -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/*
The effective settings of one process: serviceDefaults merged with services.<name>, YAML out.
Argument: dict "root" $ "name" <service>.
*/}}
{{- define "agent-memory.service" -}}
{{- include "agent-memory.deepMerge" (dict "base" .root.Values.serviceDefaults "over" (default dict (get .root.Values.services .name))) -}}
{{- end -}}

{{/* Image reference: repository@digest, or repository:tag (tag defaults to appVersion). */}}
{{- define "agent-memory.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* ServiceAccount name. */}}
{{- define "agent-memory.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "agent-memory.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Name of the Secret the pods read: existingSecret, else the chart's dev Secret. */}}
{{- define "agent-memory.secretName" -}}
{{- if .Values.existingSecret -}}
{{- .Values.existingSecret -}}
{{- else -}}
{{- printf "%s-secret" (include "agent-memory.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* Name of the shared ConfigMap. */}}
{{- define "agent-memory.configMapName" -}}
{{- printf "%s-config" (include "agent-memory.fullname" .) -}}
{{- end -}}

{{/* Secret environment (secretKeyRef into the Secret); QDRANT_API_KEY and PAYMENT_SETTLER_PRIVATE_KEY are
optional. */}}
{{- define "agent-memory.secretEnv" -}}
{{- $secret := include "agent-memory.secretName" . -}}
{{- range $key := list "DATABASE_URL" "REDIS_URL" "S3_ACCESS_KEY" "S3_SECRET_KEY" "QDRANT_API_KEY" "PAYMENT_SECRET_KEY" "PAYMENT_SETTLER_PRIVATE_KEY" }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $key }}
      {{- if has $key (list "QDRANT_API_KEY" "PAYMENT_SETTLER_PRIVATE_KEY") }}
      optional: true
      {{- end }}
{{- end }}
{{- end -}}

{{/* Pod-level settings shared by the Deployments and the migration Job (not the ServiceAccount). */}}
{{- define "agent-memory.podCommon" -}}
automountServiceAccountToken: {{ .Values.serviceAccount.automountServiceAccountToken }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end -}}

{{/* Secret keys of the bus credentials: a NATS password per process, and the gateway's signing key pair. */}}
{{- define "agent-memory.busSecretKeys" -}}
{{- $keys := list "BUS_SIGNING_PRIVATE_KEY" "BUS_SIGNING_PUBLIC_KEY" -}}
{{- range $name := keys .Values.services | sortAlpha -}}
{{- $keys = append $keys (include "agent-memory.natsPasswordKey" $name) -}}
{{- end -}}
{{- toJson $keys -}}
{{- end -}}

{{/* Secret key of the NATS password of process <name>: NATS_PASSWORD_<NAME> (as deploy/nats/agent-memory.conf reads it). */}}
{{- define "agent-memory.natsPasswordKey" -}}
{{- printf "NATS_PASSWORD_%s" (. | upper | replace "-" "_") -}}
{{- end -}}

{{/*
Bus credentials of one process (docs/deployment.md, "NATS users"): its NATS user and password, and
the gateway's signing key (gateway) or its public half (every other process). Argument: dict "root" $ "name" <service>.
*/}}
{{- define "agent-memory.busEnv" -}}
{{- $secret := include "agent-memory.secretName" .root -}}
- name: NATS_USER
  value: {{ .name | quote }}
- name: NATS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ include "agent-memory.natsPasswordKey" .name }}
- name: {{ ternary "BUS_SIGNING_PRIVATE_KEY" "BUS_SIGNING_PUBLIC_KEY" (eq .name "gateway") }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ ternary "BUS_SIGNING_PRIVATE_KEY" "BUS_SIGNING_PUBLIC_KEY" (eq .name "gateway") }}
{{- end -}}
