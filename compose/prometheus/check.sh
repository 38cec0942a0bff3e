#!/usr/bin/env bash
# compose/prometheus without a running stack (make test, a few seconds): the generated rules and
# dashboards current and naming only catalog.py's metrics, the rules valid, their promtool unit
# tests passing, and the three scrape configurations (make run's, compose's, Kubernetes') valid.
# compose/prometheus/test_stack.py then checks them against the running services.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v promtool >/dev/null || { echo "check.sh: promtool is not installed (make deps installs prometheus)" >&2; exit 2; }
python3 "$here/generate.py" --check
promtool check rules "$here/rules/"*.yml
promtool test rules "$here/tests/"*.test.yml
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/targets"
echo '[]' >"$scratch/targets/rendezvous.json"
ln -s "$here/rules" "$scratch/rules"
cp "$here/prometheus.yml" "$here/prometheus.compose.yml" "$scratch/"
# Debian's promtool is built without Kubernetes discovery: the Kubernetes file is checked with its
# kubernetes_sd_configs read as file_sd_configs and its rules at their path here; everything else
# (relabelling, intervals) as it is.
python3 - "$here/prometheus.k8s.yml" "$scratch/prometheus.k8s.yml" <<'PY'
import sys, yaml
config = yaml.safe_load(open(sys.argv[1]))
assert config["rule_files"] == ["/etc/prometheus/rendezvous.rules.yml"], config["rule_files"]
config["rule_files"] = ["rules/rendezvous.rules.yml"]
for job in config["scrape_configs"]:
    assert job.pop("kubernetes_sd_configs"), job
    job["file_sd_configs"] = [{"files": ["targets/*.json"]}]
yaml.safe_dump(config, open(sys.argv[2], "w"))
PY
for config in prometheus.yml prometheus.compose.yml prometheus.k8s.yml; do
    promtool check config --syntax-only "$scratch/$config" >/dev/null
done
echo "check.sh: ok: rules and dashboards current, rules valid and their unit tests pass, 3 scrape configurations valid"
