#!/usr/bin/env bash
# Checks k8s/monitoring/prometheusrule.yaml: extracts its rule groups, then
# `promtool check rules` and `promtool test rules` (k8s/monitoring/alerts-test.yaml).
# usage: scripts/ops/check-rules.sh [WORK_DIR]
# Without WORK_DIR it works in a directory of its own, removed when it exits (also on failure
# or a signal); with one, what it wrote stays there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [ $# -ge 1 ]; then
  WORK="$1"
else
  WORK="$(mktemp -d /tmp/parlor-rules.XXXXXX)"
  trap 'rm -rf "$WORK"' EXIT
  trap 'exit 129' HUP
  trap 'exit 130' INT
  trap 'exit 143' TERM
fi
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
PROMTOOL="${PROMTOOL:-$(command -v promtool || true)}"
[ -x "$PROMTOOL" ] || { echo "promtool not found (Debian package prometheus)"; exit 1; }
/usr/bin/python3 "$ROOT/scripts/ops/extract_rules.py" "$ROOT/k8s/monitoring/prometheusrule.yaml" \
  "$WORK/parlor.rules.yml"
cp "$ROOT/k8s/monitoring/alerts-test.yaml" "$WORK/alerts-test.yaml"
cd "$WORK"
echo "+ promtool check rules parlor.rules.yml"
"$PROMTOOL" check rules parlor.rules.yml
echo "+ promtool test rules alerts-test.yaml"
"$PROMTOOL" test rules alerts-test.yaml
# Every alert of the rules file must have a firing and a not-firing case in the tests.
# Every alert has a runbook_url whose anchor is a heading of docs/OPERATIONS.md.
/usr/bin/python3 - "$WORK/parlor.rules.yml" "$WORK/alerts-test.yaml" "$ROOT/docs/OPERATIONS.md" <<'PY'
import re, sys, yaml
rules = yaml.safe_load(open(sys.argv[1]))
anchors = {re.sub(r"[^a-z0-9 _-]", "", h.strip().lower()).replace(" ", "-")
           for h in re.findall(r"^#+ (.*)$", open(sys.argv[3]).read(), re.M)}
bad = []
for g in rules["groups"]:
    for r in g["rules"]:
        if "alert" not in r:
            continue
        url = r.get("annotations", {}).get("runbook_url", "")
        if "#" not in url or url.split("#", 1)[1] not in anchors:
            bad.append("%s: runbook_url %r has no heading in docs/OPERATIONS.md" % (r["alert"], url))
if bad:
    sys.exit("\n".join(bad))
tests = yaml.safe_load(open(sys.argv[2]))
alerts = {r["alert"] for g in rules["groups"] for r in g["rules"] if "alert" in r}
fires, quiet = set(), set()
for t in tests["tests"]:
    for a in t.get("alert_rule_test", []):
        (fires if a.get("exp_alerts") else quiet).add(a["alertname"])
missing = sorted((alerts - fires) | (alerts - quiet))
for name in sorted(alerts):
    print("  %-30s firing case: %-3s  not-firing case: %s"
          % (name, "yes" if name in fires else "NO", "yes" if name in quiet else "NO"))
if missing:
    sys.exit("alerts without both test cases: " + ", ".join(missing))
print("%d alerts, each tested firing and not firing" % len(alerts))
PY
