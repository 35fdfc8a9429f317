#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets from the shared perf.data corpus.
#
#   fuzz/seed.sh            # uses $PERFSCOPE_SHARED, else ../shared next to the workspace root
#
# Writes fuzz/corpus/{file,stream,feature,sample,elf}/ (git-ignored; existing entries are kept, so
# the corpus the fuzzers grew survives a re-seed):
# - file:    every perf.data of corpus/{public,gen,bigendian}, the public fuzz files included,
#            and the data/data.N files of the directory-format recording;
# - stream:  every pipe-mode file as a pipe stream, and every file-mode data section as a
#            records-only stream (byte 0 = mode, then chunk sizes; see fuzz_targets/stream.rs),
#            each with one of a few chunkings;
# - feature: every feature section of the file-mode files and every HEADER_FEATURE payload of
#            the pipe-mode files (byte 0 = id | big-endian bit, byte 1 + 8 bytes = context;
#            see fuzz_targets/feature.rs);
# - sample:  kernel records (SAMPLE and the others, at most 4 per event and type) of every
#            uncompressed file, each with the attr of its event (bytes 0-3 = flags, type, misc;
#            see fuzz_targets/sample.rs);
# - elf:     the committed test binaries (tests/data/diff) and the corpus's workloads, each in
#            both modes (byte 0 = DWARF mode; see fuzz_targets/elf.rs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=${PERFSCOPE_SHARED:-$here/../../shared}
if [ ! -d "$shared/corpus" ]; then
  echo "seed.sh: no corpus at $shared/corpus (set PERFSCOPE_SHARED); seeding the elf target only" >&2
  mkdir -p "$here/corpus/file" "$here/corpus/stream" "$here/corpus/feature" "$here/corpus/sample"
fi
exec python3 - "$shared/corpus" "$here/corpus" "$here/../tests/data/diff" <<'PY'
import hashlib, os, struct, sys

src, dst, bins = sys.argv[1], sys.argv[2], sys.argv[3]
for t in ("file", "stream", "feature", "sample", "elf"):
    os.makedirs(os.path.join(dst, t), exist_ok=True)
counts = {"file": 0, "stream": 0, "feature": 0, "sample": 0, "elf": 0}

def put(target, data):
    name = hashlib.sha1(data).hexdigest()
    path = os.path.join(dst, target, name)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)
        counts[target] += 1

def inputs():
    for sub in ("public", "gen", "bigendian"):
        root = os.path.join(src, sub)
        for d, dirs, files in os.walk(root):
            dirs[:] = sorted(x for x in dirs if x not in ("oracle", "extra", "workloads"))
            for f in sorted(files):
                if f.endswith(".md"):
                    continue
                with open(os.path.join(d, f), "rb") as fh:
                    yield fh.read()

# Chunkings for the stream target: (count - 1) in bits 0-2 of byte 0, then u16 sizes - 1.
CHUNKINGS = [[4095], [0, 6, 12, 1000], [63, 8191, 2, 255], [65535]]

streams = [0]

def stream_seed(mode, stream):
    # One chunking per stream, in turn (the fuzzer varies them).
    sizes = CHUNKINGS[streams[0] % len(CHUNKINGS)]
    streams[0] += 1
    head = bytes([mode | (len(sizes) - 1)]) + b"".join(struct.pack("<H", s) for s in sizes)
    put("stream", head + stream)

def feature_seed(fid, big, section, ctx):
    avail, online = ctx if ctx else (0, 0)
    head = bytes([(fid & 0x3F) | (0x80 if big else 0), 1 if ctx else 0])
    put("feature", head + struct.pack("<II", avail, online) + section)

def attr_bytes(raw, e):
    """An attr as many bytes long as its size field says (0 means 64), zero-filled."""
    if len(raw) < 8:
        return None
    (size,) = struct.unpack(e + "I", raw[4:8])
    size = size or 64
    if size < 64 or size > 4096:
        return None
    return raw[:size].ljust(size, b"\0")

IP, TID, TIME, ADDR, ID, IDENTIFIER = 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 6, 1 << 16

def sample_seeds(events, records, big, e):
    """events: [(attr bytes, ids)]; records: [(type, misc, body)]. Each kernel record becomes a
    seed under its own event alone (routed by its id as perf does), at most 4 per (event, type)."""
    if not events:
        return
    by_id = {i: n for n, (_, ids) in enumerate(events) for i in ids}
    (stype,) = struct.unpack(e + "Q", events[0][0][24:32])
    seen = {}
    for typ, misc, body in records:
        if not 1 <= typ <= 22:
            continue
        n = 0
        if len(events) > 1:
            if stype & IDENTIFIER:
                pos = 0 if typ == 9 else len(body) - 8
            elif stype & ID and typ == 9:
                pos = 8 * bin(stype & (IP | TID | TIME | ADDR)).count("1")
            else:
                continue
            if pos < 0 or pos + 8 > len(body):
                continue
            (sid,) = struct.unpack(e + "Q", body[pos:pos + 8])
            n = by_id.get(sid, 0)
        k = (n, typ)
        seen[k] = seen.get(k, 0) + 1
        if seen[k] > 4:
            continue
        head = bytes([0x80 if big else 0, typ]) + struct.pack("<H", misc)
        put("sample", head + events[n][0] + body)

def frame(data, off, e):
    """Yields (type, misc, body) of the records in data[off:], skipping trailing payloads."""
    while off + 8 <= len(data):
        typ, misc, size = struct.unpack(e + "IHH", data[off:off + 8])
        if size < 8 or off + size > len(data):
            return
        body = data[off + 8:off + size]
        yield typ, misc, body
        extra = 0
        if typ == 71 and len(body) >= 8:  # AUXTRACE: u64 size of the payload after it
            (extra,) = struct.unpack(e + "Q", body[:8])
        elif typ == 66 and len(body) >= 4:  # TRACING_DATA: u32 size, payload after it
            (extra,) = struct.unpack(e + "I", body[:4])
        off += size + extra

def nrcpus(section, e):
    if len(section) >= 8:
        return struct.unpack(e + "II", section[:8])
    return None

for data in inputs():
    put("file", data)
    magic = data[:8]
    if magic == b"PERFILE2":
        e, big = "<", False
    elif magic == b"2ELIFREP":
        e, big = ">", True
    else:
        continue
    if len(data) < 16:
        continue
    (hsize,) = struct.unpack(e + "Q", data[8:16])
    if hsize == 16:
        # Pipe mode: the stream as is; HEADER_FEATURE (80) payloads as feature sections.
        stream_seed(0, data)
        ctx, events, records = None, [], []
        for typ, misc, body in frame(data, 16, e):
            if typ == 80 and len(body) >= 8:
                (fid,) = struct.unpack(e + "Q", body[:8])
                if fid == 7:
                    ctx = nrcpus(body[8:], e)
                feature_seed(fid, big, body[8:], ctx)
            elif typ == 64:  # HEADER_ATTR: the attr, then its ids
                a = attr_bytes(body, e)
                if a:
                    ids = body[len(a):]
                    events.append((a, [struct.unpack(e + "Q", ids[i:i + 8])[0] for i in range(0, len(ids) - 7, 8)]))
            else:
                records.append((typ, misc, body))
        sample_seeds(events, records, big, e)
        continue
    if hsize < 104 or len(data) < 104:
        continue
    # File mode: struct perf_file_header { magic, size, attr_size, attrs, data, event_types,
    # adds_features[4] }; the feature table follows the data section, one section per bit.
    (attr_size,) = struct.unpack(e + "Q", data[16:24])
    aoff, asize = struct.unpack(e + "QQ", data[24:40])
    doff, dsize = struct.unpack(e + "QQ", data[40:56])
    section = data[doff:doff + dsize] if dsize else data[doff:]
    stream_seed(0x80 | (0x40 if big else 0), section)
    events = []
    if 64 <= attr_size <= 4096:
        for at in range(aoff, aoff + asize - attr_size + 1, attr_size):
            entry = data[at:at + attr_size]
            a = attr_bytes(entry, e)
            if not a or len(entry) < attr_size:
                break
            ioff, isize = struct.unpack(e + "QQ", entry[-16:])
            raw_ids = data[ioff:ioff + isize]
            events.append((a, [struct.unpack(e + "Q", raw_ids[i:i + 8])[0] for i in range(0, len(raw_ids) - 7, 8)]))
    sample_seeds(events, frame(section, 0, e), big, e)
    bits = data[72:104]
    words = struct.unpack(e + "QQQQ", bits)
    features = [w * 64 + b for w in range(4) for b in range(64) if words[w] >> b & 1]
    table, ctx = doff + dsize, None
    for i, fid in enumerate(features):
        at = table + 16 * i
        if dsize == 0 or at + 16 > len(data):
            break
        foff, fsize = struct.unpack(e + "QQ", data[at:at + 16])
        section = data[foff:foff + fsize]
        if len(section) != fsize:
            continue
        if fid == 7:
            ctx = nrcpus(section, e)
        feature_seed(fid, big, section, ctx)

# ELF files for the elf target: the committed ones, and the corpus's workloads when there.
for d in (bins, os.path.join(src, "gen", "workloads")):
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        with open(os.path.join(d, f), "rb") as fh:
            data = fh.read()
        if data[:4] == b"\x7fELF" and len(data) <= 65536:
            for mode in (0, 1):
                put("elf", bytes([mode]) + data)

print("seed.sh: new seeds: " + ", ".join(f"{k} {v}" for k, v in counts.items()), file=sys.stderr)
PY
