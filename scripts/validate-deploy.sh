#!/usr/bin/env bash
# Validates deploy/, offline once its tools are installed:
#   - the Kubernetes manifests against the batch/v1 Job schema of Kubernetes 1.32.0 with
#     kubeconform v0.7.0 (-strict: unknown fields are errors). The schemas come from PyPI's
#     kubernetes-validate 1.37.0 (which bundles them, generated from Kubernetes' OpenAPI), made
#     standalone (their /api/_definitions.json references inlined) into tools/k8s-schemas/, since
#     kubeconform would otherwise download them from GitHub;
#   - what the schema cannot say, from the deploy's design: the shard Job is Indexed with
#     completions == parallelism == its SHARDS, every container requests whole CPUs and requests ==
#     limits (Guaranteed QoS, so the static CPU manager pins it), volumes come from a claim;
#     the Job schema has no enum for completionMode, so `Indexd` passes kubeconform and is
#     caught here (the API server would refuse it);
#   - shellcheck (Debian's, 0.9.0 on bookworm) on deploy/'s scripts, this one, and the shell
#     script each container runs.
# Usage: scripts/validate-deploy.sh [MANIFEST...]   (default: deploy/kubernetes/shootout-day.yaml
#        as committed and as render.sh sets other knobs). Exit 0: valid; 1: invalid; 2: bad use.
# Installs into tools/ (TOOLS_DIR overrides): kubeconform-v0.7.0/ (go install),
# kubernetes-validate-venv/ (pip), k8s-schemas/. Idempotent; on success prints one line.
set -euo pipefail

KUBECONFORM_VERSION=v0.7.0
K8S_VALIDATE_VERSION=1.37.0
K8S_VERSION=1.32.0
SCHEMA_KINDS=(job-batch-v1)

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="${TOOLS_DIR:-$root/tools}"
mkdir -p "$tools"
say() { echo "validate-deploy: $*" >&2; }
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

for m in "$@"; do
    [[ -f "$m" ]] || { say "no such manifest: $m"; exit 2; }
done

# --- shellcheck (Debian) --------------------------------------------------------------------
if ! command -v shellcheck >/dev/null 2>&1; then
    say "installing shellcheck (apt-get)"
    if ! sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -q shellcheck >/dev/null 2>&1; then
        sudo_if_needed apt-get update -q >/dev/null
        sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -q shellcheck >/dev/null
    fi
fi

# --- kubeconform (Go module) ----------------------------------------------------------------
kc_dir="$tools/kubeconform-$KUBECONFORM_VERSION"
kc="$kc_dir/kubeconform"
kc_ok() { [[ -x "$kc" ]] && go version -m "$kc" 2>/dev/null | grep -Eq "^[[:space:]]+mod[[:space:]]+github.com/yannh/kubeconform[[:space:]]+$KUBECONFORM_VERSION([[:space:]]|$)"; }
if ! kc_ok; then
    command -v go >/dev/null 2>&1 || { say "error: go not found (needed to install kubeconform $KUBECONFORM_VERSION)"; exit 1; }
    say "installing kubeconform $KUBECONFORM_VERSION (go install into $kc_dir)"
    GOBIN="$kc_dir" go install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
    kc_ok || { say "error: $kc is not kubeconform $KUBECONFORM_VERSION"; exit 1; }
fi

# --- kubernetes-validate (PyPI): the schemas, and PyYAML for the design checks ----------------
venv="$tools/kubernetes-validate-venv"
kv_ok() {
    [[ -x "$venv/bin/python3" ]] && "$venv/bin/python3" - "$K8S_VALIDATE_VERSION" 2>/dev/null <<'PY'
import sys
from importlib.metadata import version
import yaml  # noqa: F401 (a dependency of kubernetes-validate; the design checks use it)
sys.exit(0 if version("kubernetes-validate") == sys.argv[1] else 1)
PY
}
if ! kv_ok; then
    say "installing kubernetes-validate $K8S_VALIDATE_VERSION (pip, into $venv)"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "kubernetes-validate==$K8S_VALIDATE_VERSION"
    kv_ok || { say "error: $venv lacks kubernetes-validate $K8S_VALIDATE_VERSION"; exit 1; }
fi

# --- standalone schemas for kubeconform -------------------------------------------------------
schemas="$tools/k8s-schemas/kubernetes-validate-$K8S_VALIDATE_VERSION/v$K8S_VERSION-standalone-strict"
for kind in "${SCHEMA_KINDS[@]}"; do
    [[ -s "$schemas/$kind.json" ]] && continue
    mkdir -p "$schemas"
    "$venv/bin/python3" - "v$K8S_VERSION-local-strict" "$kind" "$schemas/$kind.json" <<'PY'
import json, sys
from importlib.resources import files
dirname, kind, out = sys.argv[1:]
src = files("kubernetes_validate") / "kubernetes-json-schema" / dirname
defs = json.loads((src / "_definitions.json").read_text())["$defs"]
def local(o):
    if isinstance(o, dict):
        return {k: (v.replace("/api/_definitions.json#", "#") if k == "$ref" and isinstance(v, str)
                    else local(v))
                for k, v in o.items()}
    return [local(x) for x in o] if isinstance(o, list) else o
schema = json.loads((src / f"{kind}.json").read_text())
schema.pop("$id", None)
schema = local(schema)
schema["$defs"] = local(defs)
with open(out + ".tmp", "w") as f:
    json.dump(schema, f)
PY
    mv "$schemas/$kind.json.tmp" "$schemas/$kind.json"
done

# --- the manifests ----------------------------------------------------------------------------
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
manifests=("$@")
if [[ ${#manifests[@]} -eq 0 ]]; then
    "$root/deploy/kubernetes/render.sh" --shards 16 --cpus 2 --memory 4Gi --claim nfs-shared \
        --file /data/in/20240102.pcap.gz --out /data/out/20240102 --name day-20240102 \
        --run-opts "--formats sbe,capnp --lenient" >"$work/rendered.yaml"
    manifests=("$root/deploy/kubernetes/shootout-day.yaml" "$work/rendered.yaml")
fi
failed=0
for m in "${manifests[@]}"; do
    if ! out="$("$kc" -strict -summary -schema-location "$schemas/{{.ResourceKind}}{{.KindSuffix}}.json" "$m" 2>&1)"; then
        printf '%s\n' "$out" | sed "s|^|validate-deploy: kubeconform: |" >&2
        failed=1
    fi
    mkdir -p "$work/scripts"
    if ! "$venv/bin/python3" - "$m" "$work/scripts" <<'PY'
import re, sys, yaml
path, script_dir = sys.argv[1:]
errors = []
def err(where, msg):
    errors.append(f"{path}: {where}: {msg}")
def whole_cpus(q):
    return isinstance(q, int) or (isinstance(q, str) and re.fullmatch(r"[1-9][0-9]*", q))
docs = [d for d in yaml.safe_load_all(open(path)) if d]
if not docs:
    err("file", "no objects")
for k, d in enumerate(docs):
    kind, name = d.get("kind"), (d.get("metadata") or {}).get("name", f"#{k}")
    where = f"{kind} {name}"
    if kind != "Job":
        err(where, "only batch/v1 Jobs belong in this manifest")
        continue
    spec = d.get("spec") or {}
    pod = ((spec.get("template") or {}).get("spec")) or {}
    containers = (pod.get("containers") or []) + (pod.get("initContainers") or [])
    if (d.get("metadata", {}).get("labels") or {}).get("step") == "shards":
        if spec.get("completionMode") != "Indexed":
            err(where, f"completionMode must be Indexed, got {spec.get('completionMode')!r}")
        c, p = spec.get("completions"), spec.get("parallelism")
        if c != p:
            err(where, f"completions ({c}) and parallelism ({p}) differ")
        for ct in containers:
            n = {e.get("name"): e.get("value") for e in ct.get("env") or []}.get("SHARDS")
            if n is not None and str(n) != str(c):
                err(where, f"container {ct.get('name')}: env SHARDS={n} but completions={c}")
            if "JOB_COMPLETION_INDEX" not in " ".join(ct.get("command") or []):
                err(where, f"container {ct.get('name')}: its command does not use JOB_COMPLETION_INDEX")
    for ct in containers:
        cw = f"{where}: container {ct.get('name')}"
        res = ct.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        for r in ("cpu", "memory"):
            if r not in req or r not in lim:
                err(cw, f"{r} needs both a request and a limit (Guaranteed QoS)")
            elif str(req[r]) != str(lim[r]):
                err(cw, f"{r} request {req[r]} != limit {lim[r]} (Guaranteed QoS needs them equal)")
        if "cpu" in req and not whole_cpus(req["cpu"]):
            err(cw, f"cpu {req['cpu']!r} is not a whole number of CPUs (the static CPU manager pins only those)")
        cmd = ct.get("command") or []
        if len(cmd) == 3 and cmd[0] in ("/bin/sh", "sh") and cmd[1] == "-c":
            with open(f"{script_dir}/{name}.{ct.get('name')}.sh", "w") as f:
                f.write("#!/bin/sh\n" + cmd[2])
    for v in pod.get("volumes") or []:
        if "persistentVolumeClaim" not in v:
            err(f"{where}: volume {v.get('name')}", "must be a persistentVolumeClaim (ReadWriteMany)")
for e in errors:
    print(f"validate-deploy: {e}", file=sys.stderr)
sys.exit(1 if errors else 0)
PY
    then
        failed=1
    fi
done

# --- shellcheck -------------------------------------------------------------------------------
shopt -s nullglob
scripts=("$root"/deploy/*.sh "$root"/deploy/*/*.sh "$root"/deploy/*/*.sbatch "$root/scripts/validate-deploy.sh"
    "$root"/tests/deploy/*.sh "$work"/scripts/*.sh)
if ! (cd "$root" && shellcheck -x "${scripts[@]}") >&2; then
    failed=1
fi

if [[ $failed -ne 0 ]]; then
    say "INVALID (see above)"
    exit 1
fi
echo "validate-deploy: ${#manifests[@]} manifest(s) valid (kubeconform $KUBECONFORM_VERSION -strict, Kubernetes $K8S_VERSION Job schema, design checks); shellcheck clean on ${#scripts[@]} script(s)"
