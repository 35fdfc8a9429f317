#!/usr/bin/env python3
"""Decodes a gzipped pprof profile with Google's protobuf runtime against profile.proto (next to
this script) and prints what it holds as JSON, for perfscope's tests to compare with the profile
it exported:

  {"sample_types": [[type, unit], ...], "totals": [sum of each value column],
   "folded": {"root;...;leaf": [values...]}, "threads": {"name/pid/tid": [values...]},
   "mappings": [[filename, build_id, has_functions], ...], "default_sample_type": str,
   "period_type": [type, unit], "period": int, "duration_nanos": int, "time_nanos": int,
   "comments": [str], "samples": number of pprof samples, "locations": n, "functions": n}

It also checks the structural rules profile.proto states (as pprof's CheckValid does) and exits
with status 1 and a message when one is broken. Needs `pip install protobuf grpcio-tools`.
Usage: check_pprof.py FILE.pb.gz
"""
import gzip
import json
import os
import sys
import tempfile


def load_profile_pb2():
    from grpc_tools import protoc

    here = os.path.dirname(os.path.abspath(__file__))
    out = tempfile.mkdtemp(prefix="perfscope-pprof-")
    rc = protoc.main(["protoc", f"-I{here}", f"--python_out={out}", os.path.join(here, "profile.proto")])
    if rc != 0:
        sys.exit(f"protoc failed with status {rc}")
    sys.path.insert(0, out)
    import profile_pb2  # noqa: E402

    return profile_pb2


def fail(msg):
    print(f"invalid pprof: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    pb2 = load_profile_pb2()
    with open(sys.argv[1], "rb") as f:
        raw = f.read()
    if raw[:2] != b"\x1f\x8b":
        fail("not gzip-compressed")
    p = pb2.Profile()
    p.ParseFromString(gzip.decompress(raw))
    strings = list(p.string_table)
    if not strings or strings[0] != "":
        fail("string_table[0] must be empty")

    def s(i):
        if i < 0 or i >= len(strings):
            fail(f"string index {i} out of range")
        return strings[i]

    n = len(p.sample_type)
    mappings = {}
    for m in p.mapping:
        if m.id == 0 or m.id in mappings:
            fail(f"mapping id {m.id} zero or repeated")
        if m.memory_limit < m.memory_start:
            fail(f"mapping {m.id}: limit below start")
        mappings[m.id] = m
    functions = {}
    for fn in p.function:
        if fn.id == 0 or fn.id in functions:
            fail(f"function id {fn.id} zero or repeated")
        functions[fn.id] = s(fn.name)
        s(fn.system_name)
    locations = {}
    for loc in p.location:
        if loc.id == 0 or loc.id in locations:
            fail(f"location id {loc.id} zero or repeated")
        if loc.mapping_id != 0:
            m = mappings.get(loc.mapping_id) or fail(f"location {loc.id}: no mapping {loc.mapping_id}")
            if not (m.memory_start <= loc.address < m.memory_limit):
                fail(f"location {loc.id}: address {loc.address:#x} outside mapping {m.id}")
        names = []
        for line in loc.line:
            if line.function_id not in functions:
                fail(f"location {loc.id}: no function {line.function_id}")
            names.append(functions[line.function_id])
        if not names:
            fail(f"location {loc.id} has no line")
        locations[loc.id] = names

    totals = [0] * n
    folded = {}
    threads = {}
    for sample in p.sample:
        if len(sample.value) != n:
            fail(f"sample has {len(sample.value)} values for {n} sample types")
        frames = []
        for lid in reversed(sample.location_id):  # leaf is location_id[0]
            if lid not in locations:
                fail(f"sample refers to missing location {lid}")
            frames.extend(reversed(locations[lid]))  # the last line is the caller
        key = ";".join(frames)
        acc = folded.setdefault(key, [0] * n)
        labels = {}
        for label in sample.label:
            labels[s(label.key)] = s(label.str) if label.str else label.num
        tkey = f"{labels.get('thread', '')}/{labels.get('pid', '')}/{labels.get('tid', '')}"
        tacc = threads.setdefault(tkey, [0] * n)
        for i, v in enumerate(sample.value):
            totals[i] += v
            acc[i] += v
            tacc[i] += v

    print(json.dumps({
        "sample_types": [[s(t.type), s(t.unit)] for t in p.sample_type],
        "totals": totals,
        "folded": folded,
        "threads": threads,
        "mappings": [[s(m.filename), s(m.build_id), m.has_functions] for m in p.mapping],
        "default_sample_type": s(p.default_sample_type),
        "period_type": [s(p.period_type.type), s(p.period_type.unit)],
        "period": p.period,
        "duration_nanos": p.duration_nanos,
        "time_nanos": p.time_nanos,
        "comments": [s(c) for c in p.comment],
        "samples": len(p.sample),
        "locations": len(p.location),
        "functions": len(p.function),
    }, sort_keys=True))


if __name__ == "__main__":
    main()
