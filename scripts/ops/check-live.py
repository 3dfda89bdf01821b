#!/usr/bin/python3
"""Evaluates every Grafana panel query and every alert/recording expression through a running
Prometheus's HTTP API, and checks the rules loaded and the targets are up.
Fails when any query errors, a rule is unhealthy, a target is down, or a panel that must show
the traffic of the check (RPCs, games, moves, queue) returns no series.
usage: check-live.py PROMETHEUS_URL DASHBOARD.json RULES.yml"""
import json
import sys
import urllib.parse
import urllib.request

import yaml

URL, DASH, RULES = sys.argv[1:4]
MUST_HAVE_DATA = ["Requests per second by method", "Unary latency percentiles by service",
                  "Active games by game", "Moves per second by game", "Move commit latency",
                  "Queue depth by game", "Queue wait (matched tickets)",
                  "Matches per second by game"]


def api(path, **params):
    with urllib.request.urlopen(URL + path + "?" + urllib.parse.urlencode(params), timeout=30) as r:
        return json.load(r)


def query(expr):
    try:
        answer = api("/api/v1/query", query=expr)
    except urllib.error.HTTPError as e:
        return "error", json.load(e).get("error", str(e)), []
    return answer["status"], answer.get("error", ""), answer["data"]["result"]


def max_over_run(expr, minutes=3):
    import time
    now = time.time()
    answer = api("/api/v1/query_range", query=expr, start=now - 60 * minutes, end=now, step=2)
    values = [float(v) for s in answer["data"]["result"] for _, v in s["values"]
              if v not in ("NaN", "+Inf", "-Inf")]
    return max(values) if values else 0


def short(result):
    out = []
    for s in result[:3]:
        labels = ",".join("%s=%s" % kv for kv in sorted(s["metric"].items()) if kv[0] not in ("instance",))
        out.append("{%s} %.4g" % (labels, float(s["value"][1])))
    return "; ".join(out) + (" ..." if len(result) > 3 else "")


def main():
    failures = []
    targets = api("/api/v1/targets")["data"]["activeTargets"]
    for t in targets:
        print("target %-22s %-28s %s %s" % (t["labels"]["job"], t["scrapeUrl"], t["health"], t["lastError"]))
        if t["health"] != "up":
            failures.append("target down: " + t["scrapeUrl"])

    print("\n-- dashboard panels ($__rate_interval = 1m)")
    dash = json.load(open(DASH))
    for p in dash["panels"]:
        for t in p.get("targets", []):
            expr = t["expr"].replace("$__rate_interval", "1m")
            status, error, result = query(expr)
            print("%-7s %-40s %s %3d series  %s" % (status, p["title"][:40], t["refId"], len(result),
                                                    error or short(result)))
            if status != "success":
                failures.append("panel %r query %s: %s" % (p["title"], t["refId"], error))
            elif p["title"] in MUST_HAVE_DATA:
                # Over the whole run (games finish quickly: "active" may be 0 at the end).
                peak = max_over_run(expr)
                print("        %-40s    peak over the run: %.4g" % (p["title"][:40], peak))
                if not result or not peak:
                    failures.append("panel %r query %s: no non-zero data during the run"
                                    % (p["title"], t["refId"]))

    print("\n-- alert and recording expressions")
    groups = yaml.safe_load(open(RULES))["groups"]
    for g in groups:
        for r in g["rules"]:
            status, error, result = query(r["expr"])
            name = r.get("alert") or r.get("record")
            print("%-7s %-30s %3d series  %s" % (status, name, len(result), error or short(result)))
            if status != "success":
                failures.append("rule %s: %s" % (name, error))

    print("\n-- rules as loaded and evaluated by Prometheus")
    for g in api("/api/v1/rules")["data"]["groups"]:
        for r in g["rules"]:
            print("%-30s health=%-3s state=%-8s %s" % (r["name"], r["health"], r.get("state", "-"),
                                                        r.get("lastError", "")))
            if r["health"] != "ok":
                failures.append("rule %s unhealthy: %s" % (r["name"], r.get("lastError")))

    if failures:
        print("\nFAILED:\n  " + "\n  ".join(failures))
        return 1
    print("\nlive check: every panel query and alert expression evaluated; traffic panels have data")
    return 0


sys.exit(main())
