#!/usr/bin/python3
"""Evaluates every Grafana panel query and every alert/recording expression through a running
Prometheus's HTTP API, and checks the rules loaded and the targets are up.
Fails when any query errors, a rule is unhealthy, a target is down, any panel query returns no
series, a panel that must show the traffic of the check (RPCs, games, moves, queue) had no
non-zero value during the run, a service lacks its process_* metrics, or (with gRPC addresses)
server reflection does not list and describe grpc.health.v1.Health.
usage: check-live.py PROMETHEUS_URL DASHBOARD.json RULES.yml [GRPC_ADDRESS...]"""
import json
import sys
import urllib.parse
import urllib.request

import yaml

URL, DASH, RULES = sys.argv[1:4]
GRPC_ADDRESSES = sys.argv[4:]
PROCESS_METRICS = ["process_cpu_seconds_total", "process_resident_memory_bytes",
                   "process_virtual_memory_bytes", "process_open_fds", "process_max_fds",
                   "process_start_time_seconds"]
MUST_HAVE_DATA = ["Requests per second by method", "Unary latency percentiles by service",
                  "Active games by game", "Moves per second by game", "Move commit latency",
                  "Queue depth by game", "Queue wait (matched tickets)",
                  "Matches per second by game",
                  # sessions' outbox hands the games' your-turn events to notifications
                  "Events handed over per second"]


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


def _varint(data, i):
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, i


def _fields(data):
    i, out = 0, []
    while i < len(data):
        key, i = _varint(data, i)
        if key & 7 == 0:
            value, i = _varint(data, i)
        elif key & 7 == 2:
            length, i = _varint(data, i)
            value, i = data[i:i + length], i + length
        else:
            raise ValueError("unexpected wire type %d" % (key & 7))
        out.append((key >> 3, value))
    return out


def reflect_health(address):
    """(listed, described): ServerReflection list_services names grpc.health.v1.Health, and
    file_containing_symbol finds its file. Raw protobuf: no reflection stubs needed."""
    import grpc
    symbol = b"grpc.health.v1.Health"
    requests = [b"\x3a\x00", b"\x22" + bytes([len(symbol)]) + symbol]  # list_services=7, symbol=4
    listed = described = False
    with grpc.insecure_channel(address) as channel:
        call = channel.stream_stream("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                                     request_serializer=lambda x: x, response_deserializer=lambda x: x)
        for response in call(iter(requests), timeout=10):
            for number, value in _fields(response):
                if number == 6:  # list_services_response
                    names = [dict(_fields(s)).get(1) for _, s in _fields(value)]
                    listed = symbol in names
                elif number == 4:  # file_descriptor_response
                    described = any(symbol.split(b".")[-1] in f for _, f in _fields(value))
    return listed, described


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
            elif not result:
                failures.append("panel %r query %s: no data" % (p["title"], t["refId"]))
            elif p["title"] in MUST_HAVE_DATA:
                # Over the whole run (games finish quickly: "active" may be 0 at the end).
                peak = max_over_run(expr)
                print("        %-40s    peak over the run: %.4g" % (p["title"][:40], peak))
                if not result or not peak:
                    failures.append("panel %r query %s: no non-zero data during the run"
                                    % (p["title"], t["refId"]))

    print("\n-- process metrics of every service")
    jobs = sorted({t["labels"]["job"] for t in targets})
    for m in PROCESS_METRICS:
        status, error, result = query('count by (job) (%s{job=~"parlor.*"})' % m)
        have = sorted(r["metric"]["job"] for r in result)
        print("%-32s %s" % (m, ", ".join(have) or error))
        if have != jobs:
            failures.append("%s missing for %s" % (m, sorted(set(jobs) - set(have))))

    if GRPC_ADDRESSES:
        print("\n-- server reflection")
        for address in GRPC_ADDRESSES:
            listed, described = reflect_health(address)
            print("%-22s grpc.health.v1.Health listed: %s, described: %s" % (address, listed, described))
            if not (listed and described):
                failures.append("%s: reflection does not list and describe grpc.health.v1.Health"
                                % address)

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
