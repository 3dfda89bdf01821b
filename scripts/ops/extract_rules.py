#!/usr/bin/python3
"""Writes the rule groups of a PrometheusRule manifest as a plain Prometheus rules file.
usage: extract_rules.py PROMETHEUSRULE.yaml OUT.rules.yml"""
import sys
import yaml

doc = yaml.safe_load(open(sys.argv[1]))
assert doc["kind"] == "PrometheusRule", doc["kind"]
with open(sys.argv[2], "w") as out:
    yaml.safe_dump({"groups": doc["spec"]["groups"]}, out, sort_keys=False, width=1000)
