#!/usr/bin/python3
"""Writes k8s/monitoring/parlor-dashboard.json (Grafana, schemaVersion 39) from the panel list
below. The JSON is committed; scripts/ops/check-live.py evaluates every panel query against a
live Prometheus. usage: scripts/ops/gen_dashboard.py"""
import json
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
R = "$__rate_interval"
UNARY = 'method!~"Watch.*"'

# (title, unit, [(expr, legend)], width) — rows of 24 columns.
ROWS = [
    ("RPCs", [
        ("Requests per second by method", "reqps",
         [(f"sum by (service, method) (rate(parlor_rpc_requests_total[{R}]))",
           "{{service}} {{method}}")], 12),
        ("Errors per second by method and code", "reqps",
         [(f'sum by (service, method, code) (rate(parlor_rpc_requests_total{{code!="OK"}}[{R}]))',
           "{{method}} {{code}}")], 12),
        ("Unary latency percentiles by service", "s",
         [(f"histogram_quantile({q}, sum by (service, le) "
           f"(rate(parlor_rpc_duration_seconds_bucket{{{UNARY}}}[{R}])))", f"p{int(q*100)} {{{{service}}}}")
          for q in (0.5, 0.9, 0.99)], 12),
        ("Server-error ratio by service", "percentunit",
         [(f'sum by (service) (rate(parlor_rpc_requests_total{{code=~"UNKNOWN|INTERNAL|UNAVAILABLE|DEADLINE_EXCEEDED|DATA_LOSS|UNIMPLEMENTED|RESOURCE_EXHAUSTED"}}[{R}])) '
           f"/ sum by (service) (rate(parlor_rpc_requests_total[{R}]))", "{{service}}")], 12),
    ]),
    ("Games", [
        ("Active games by game", "short",
         [('max by (game) (parlor_sessions_games{status="active"})', "{{game}}")], 8),
        ("Moves per second by game", "ops",
         [(f'sum by (game) (rate(parlor_sessions_actions_total{{result="OK"}}[{R}]))', "{{game}}")], 8),
        ("Rejected moves per second by result", "ops",
         [(f'sum by (game, result) (rate(parlor_sessions_actions_total{{result!="OK"}}[{R}]))',
           "{{game}} {{result}}")], 8),
        ("Move commit latency", "s",
         [(f"histogram_quantile({q}, sum by (le) (rate(parlor_sessions_commit_duration_seconds_bucket[{R}])))",
           f"p{int(q*100)}") for q in (0.5, 0.99)], 8),
        # Every replica's change feed receives every committed change: one flat at 0 while moves
        # commit has lost its feed (alert ParlorSessionsChangeFeedSilent).
        ("Open watch streams; changes received per second by each replica's feed", "short",
         [("sum(parlor_sessions_watch_streams)", "streams"),
          (f"sum by (instance) (rate(parlor_sessions_watch_changes_total[{R}]))",
           "changes/s {{instance}}")], 8),
        ("Deadline timeouts per second", "ops",
         [(f"sum by (game, policy) (rate(parlor_sessions_timeouts_total[{R}]))", "{{game}} {{policy}}")], 8),
        # A replica that wrote a game last reads only its stamp; "whole" reads are games another
        # replica wrote (or just created ones). Mostly whole reads: moves of a game are spread
        # over replicas.
        ("Game rows read per second: by the stamp or whole", "ops",
         [(f"sum by (read, how) (rate(parlor_sessions_game_reads_total[{R}]))", "{{read}} {{how}}")], 8),
    ]),
    ("Matchmaking", [
        ("Queue depth by game", "short",
         [("sum by (game) (max by (game, ranked) (parlor_matchmaking_tickets_waiting))", "{{game}}")], 8),
        ("Queue wait (matched tickets)", "s",
         [(f"histogram_quantile({q}, sum by (game, le) (rate(parlor_matchmaking_wait_seconds_bucket[{R}])))",
           f"p{int(q*100)} {{{{game}}}}") for q in (0.5, 0.9)], 8),
        ("Matches per second by game", "ops",
         [(f"sum by (game) (rate(parlor_matchmaking_matches_total[{R}]))", "{{game}}")], 8),
        # Every replica reports the pools it ran; the oldest over replicas and modes.
        ("Oldest waiting ticket by game", "s",
         [("max by (game) (parlor_matchmaking_oldest_waiting_seconds)", "{{game}}")], 8),
        # The shared notification outbox, as every relaying replica reads it: the max.
        ("Notifications not yet handed over", "short",
         [("max(parlor_matchmaking_notification_outbox_pending)", "rows")], 8),
        ("Oldest notification not yet handed over", "s",
         [("max(parlor_matchmaking_notification_outbox_oldest_age_seconds)", "oldest")], 8),
    ]),
    ("Ratings and delivery", [
        ("Rating updates per second by ladder", "ops",
         [(f"sum by (ladder) (rate(parlor_ratings_updates_total[{R}]))", "{{ladder}}")], 8),
        ("Rejected result reports", "ops",
         [(f"sum by (reason) (rate(parlor_ratings_rejected_reports_total[{R}]))", "{{reason}}")], 8),
        ("Outbox backlog by kind", "short",
         [("max by (kind) (parlor_sessions_outbox_pending)", "{{kind}}")], 8),
    ]),
    ("Notifications", [
        ("Push outcomes per second by platform and result", "ops",
         [(f"sum by (platform, result) (rate(parlor_notifications_deliveries_total[{R}]))",
           "{{platform}} {{result}}")], 8),
        ("Commit to provider acceptance", "s",
         [(f"histogram_quantile({q}, sum by (platform, le) "
           f"(rate(parlor_notifications_commit_to_acceptance_seconds_bucket[{R}])))",
           f"p{int(q*100)} {{{{platform}}}}") for q in (0.5, 0.99)], 8),
        ("Events handed over per second", "ops",
         [(f"sum by (outcome) (rate(parlor_notifications_events_total[{R}]))", "{{outcome}}")], 8),
        # Every replica reads the same shared queue: the max, not the sum.
        ("Push queue depth", "short",
         [("max(parlor_notifications_queue_depth)", "queued")], 8),
        ("Oldest due push (age from commit)", "s",
         [("max(parlor_notifications_queue_oldest_age_seconds)", "oldest")], 8),
        ("Dead tokens removed per second", "ops",
         [(f"sum by (platform) (rate(parlor_notifications_dead_tokens_total[{R}]))",
           "{{platform}}")], 8),
    ]),
    ("Database and pods", [
        ("DB pool connections by service", "short",
         [("sum by (job, state) (parlor_db_connections)", "{{job}} {{state}}")], 8),
        ("DB transactions by outcome", "ops",
         [(f"sum by (outcome) (rate(parlor_db_transactions_total[{R}]))", "{{outcome}}")], 8),
        ("Scrape targets up", "short",
         [('sum by (job) (up{job=~"parlor.*"})', "{{job}}")], 8),
    ]),
    ("Processes", [
        ("CPU seconds per second by service", "short",
         [(f'sum by (job) (rate(process_cpu_seconds_total{{job=~"parlor.*"}}[{R}]))', "{{job}}")], 8),
        ("Resident memory by service", "bytes",
         [('max by (job) (process_resident_memory_bytes{job=~"parlor.*"})', "{{job}}")], 8),
        ("Open files (share of the limit) by service", "percentunit",
         [('max by (job) (process_open_fds{job=~"parlor.*"} / process_max_fds{job=~"parlor.*"})',
           "{{job}}")], 8),
    ]),
]


def main():
    panels, pid, y = [], 1, 0
    for row_title, row in ROWS:
        panels.append({"type": "row", "title": row_title, "id": pid, "collapsed": False,
                       "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}, "panels": []})
        pid += 1
        y += 1
        x = 0
        for title, unit, targets, width in row:
            if x + width > 24:
                x, y = 0, y + 8
            panels.append({
                "type": "timeseries", "title": title, "id": pid,
                "datasource": {"type": "prometheus", "uid": "${datasource}"},
                "gridPos": {"h": 8, "w": width, "x": x, "y": y},
                "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
                "options": {"legend": {"displayMode": "list", "placement": "bottom"},
                            "tooltip": {"mode": "multi"}},
                "targets": [{"refId": chr(ord("A") + i), "expr": e, "legendFormat": legend,
                             "datasource": {"type": "prometheus", "uid": "${datasource}"}}
                            for i, (e, legend) in enumerate(targets)],
            })
            pid += 1
            x += width
        y += 8
    dash = {
        "uid": "parlor-overview", "title": "Parlor", "tags": ["parlor"], "timezone": "utc",
        "schemaVersion": 39, "version": 1, "editable": True, "refresh": "30s",
        "time": {"from": "now-1h", "to": "now"},
        "templating": {"list": [{"name": "datasource", "type": "datasource", "query": "prometheus",
                                 "label": "Prometheus", "current": {}}]},
        "annotations": {"list": []},
        "panels": panels,
    }
    path = os.path.join(ROOT, "k8s", "monitoring", "parlor-dashboard.json")
    with open(path, "w") as f:
        json.dump(dash, f, indent=2)
        f.write("\n")
    print("wrote %s: %d panels" % (path, sum(p["type"] != "row" for p in panels)))


main()
