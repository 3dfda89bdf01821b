#!/usr/bin/python3
"""Offline checks of the Grafana dashboard and the alert rules:
  - every panel query parses as PromQL (each becomes a recording rule for `promtool check rules`);
  - every parlor_* metric a query or alert uses is one the services register
    (prometheus-cpp `.Name("parlor_...")` in services/), so a renamed metric fails here;
  - the panels the operators need are there.
usage: scripts/ops/check-dashboard.py"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DASH = os.path.join(ROOT, "k8s", "monitoring", "parlor-dashboard.json")
RULES = os.path.join(ROOT, "k8s", "monitoring", "prometheusrule.yaml")
REQUIRED_PANELS = ["Requests per second by method", "Errors per second by method and code",
                   "Unary latency percentiles by service", "Active games by game",
                   "Moves per second by game", "Queue depth by game",
                   "Queue wait (matched tickets)", "Rating updates per second by ladder",
                   "Outbox backlog by kind"]


def panel_queries(dash):
    for p in dash["panels"]:
        for t in p.get("targets", []):
            yield p["title"], t["refId"], t["expr"].replace("$__rate_interval", "1m")


def exported_metrics():
    names = set()
    for path in glob.glob(os.path.join(ROOT, "services", "**", "*.cc"), recursive=True):
        if path.endswith("_test.cc") or "/bench/" in path or "/load/" in path:
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            names.update(re.findall(r'\.Name\(\s*"(parlor_[a-z0-9_]+)"', f.read()))
    return names


def main():
    failures = []
    dash = json.load(open(DASH))
    queries = list(panel_queries(dash))
    titles = {p["title"] for p in dash["panels"]}
    for want in REQUIRED_PANELS:
        if want not in titles:
            failures.append("missing panel: " + want)
    for p in dash["panels"]:
        if p["type"] != "row" and not p.get("targets"):
            failures.append("panel without query: " + p["title"])

    promtool = shutil.which("promtool")
    if not promtool:
        sys.exit("promtool not found (Debian package prometheus)")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "dashboard.rules.yml")
        rules = [{"record": "dashboard:q%d" % i, "expr": q} for i, (_, _, q) in enumerate(queries)]
        yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, open(path, "w"))
        r = subprocess.run([promtool, "check", "rules", path], capture_output=True, text=True)
        print(r.stdout.strip().replace(path, "dashboard queries"))
        if r.returncode != 0:
            failures.append("promtool rejects a panel query:\n" + r.stderr)

    alerts = yaml.safe_load(open(RULES))["spec"]["groups"]
    exprs = [q for _, _, q in queries] + [r["expr"] for g in alerts for r in g["rules"]]
    used = set()
    for e in exprs:
        for m in re.findall(r"\b(parlor_[a-z0-9_]+)", e):
            used.add(re.sub(r"_(bucket|count|sum)$", "", m))
    exported = exported_metrics()
    for m in sorted(used):
        ok = m in exported
        print("  %-42s %s" % (m, "registered in services/" if ok else "NOT REGISTERED by any service"))
        if not ok:
            failures.append("unknown metric " + m)
    print("%d panels, %d panel queries, %d alert/record expressions, %d parlor_* metrics used"
          % (sum(p["type"] != "row" for p in dash["panels"]), len(queries),
             len(exprs) - len(queries), len(used)))
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    return 0


sys.exit(main())
