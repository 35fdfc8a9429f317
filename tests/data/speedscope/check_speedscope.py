#!/usr/bin/env python3
"""Validates a speedscope JSON file against speedscope's file-format-schema.json (next to this
script) with the `jsonschema` package, checks what the schema cannot (frame indices in range, one
weight per sample, endValue >= startValue, activeProfileIndex in range), and prints as JSON:

  {"profiles": [{"name", "unit", "weight": summed weights, "samples": n}],
   "folded": {"root;...;leaf": summed weight over all profiles},
   "active": activeProfileIndex}

Exits with status 1 and a message when the file is invalid. Needs `pip install jsonschema`.
Usage: check_speedscope.py FILE.speedscope.json
"""
import json
import os
import sys

import jsonschema


def fail(msg):
    print(f"invalid speedscope file: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "file-format-schema.json")) as f:
        schema = json.load(f)
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    try:
        jsonschema.validate(doc, schema)
    except jsonschema.ValidationError as e:
        fail(e.message)
    frames = doc["shared"]["frames"]
    folded = {}
    profiles = []
    for p in doc["profiles"]:
        if p["type"] != "sampled":
            fail("expected sampled profiles")
        if len(p["weights"]) != len(p["samples"]):
            fail(f"{p['name']}: {len(p['weights'])} weights for {len(p['samples'])} samples")
        if p["endValue"] < p["startValue"]:
            fail(f"{p['name']}: endValue below startValue")
        for stack, w in zip(p["samples"], p["weights"]):
            for i in stack:
                if not (isinstance(i, int) and 0 <= i < len(frames)):
                    fail(f"{p['name']}: frame index {i} out of range")
            key = ";".join(frames[i]["name"] for i in stack)  # root first
            folded[key] = folded.get(key, 0) + w
        profiles.append({"name": p["name"], "unit": p["unit"], "weight": sum(p["weights"]), "samples": len(p["samples"])})
    active = doc.get("activeProfileIndex", 0)
    if profiles and not (0 <= active < len(profiles)):
        fail("activeProfileIndex out of range")
    print(json.dumps({"profiles": profiles, "folded": folded, "active": active}, sort_keys=True))


if __name__ == "__main__":
    main()
