#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets from the shared perf.data corpus.
#
#   fuzz/seed.sh            # uses $PERFSCOPE_SHARED, else ../shared next to the workspace root
#
# Writes fuzz/corpus/{file,stream,feature}/ (git-ignored; existing entries are kept, so the
# corpus the fuzzers grew survives a re-seed):
# - file:    every perf.data of corpus/{public,gen,bigendian}, the public fuzz files included,
#            and the data/data.N files of the directory-format recording;
# - stream:  every pipe-mode file as a pipe stream, and every file-mode data section as a
#            records-only stream (byte 0 = mode, then chunk sizes; see fuzz_targets/stream.rs),
#            each with one of a few chunkings;
# - feature: every feature section of the file-mode files and every HEADER_FEATURE payload of
#            the pipe-mode files (byte 0 = id | big-endian bit, byte 1 + 8 bytes = context;
#            see fuzz_targets/feature.rs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=${PERFSCOPE_SHARED:-$here/../../shared}
if [ ! -d "$shared/corpus" ]; then
  echo "seed.sh: no corpus at $shared/corpus (set PERFSCOPE_SHARED); seeding with nothing" >&2
  mkdir -p "$here/corpus/file" "$here/corpus/stream" "$here/corpus/feature"
  exit 0
fi
exec python3 - "$shared/corpus" "$here/corpus" <<'PY'
import hashlib, os, struct, sys

src, dst = sys.argv[1], sys.argv[2]
for t in ("file", "stream", "feature"):
    os.makedirs(os.path.join(dst, t), exist_ok=True)
counts = {"file": 0, "stream": 0, "feature": 0}

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

def stream_seed(mode, stream):
    # One chunking per stream, in turn (the fuzzer varies them).
    sizes = CHUNKINGS[counts["stream"] % len(CHUNKINGS)]
    head = bytes([mode | (len(sizes) - 1)]) + b"".join(struct.pack("<H", s) for s in sizes)
    put("stream", head + stream)

def feature_seed(fid, big, section, ctx):
    avail, online = ctx if ctx else (0, 0)
    head = bytes([(fid & 0x3F) | (0x80 if big else 0), 1 if ctx else 0])
    put("feature", head + struct.pack("<II", avail, online) + section)

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
        off, ctx = 16, None
        while off + 8 <= len(data):
            typ, misc, size = struct.unpack(e + "IHH", data[off:off + 8])
            if size < 8:
                break
            body = data[off + 8:off + size]
            if typ == 80 and len(body) >= 8:
                (fid,) = struct.unpack(e + "Q", body[:8])
                if fid == 7:
                    ctx = nrcpus(body[8:], e)
                feature_seed(fid, big, body[8:], ctx)
            extra = 0
            if typ == 71 and len(body) >= 8:  # AUXTRACE: u64 size of the payload after it
                (extra,) = struct.unpack(e + "Q", body[:8])
            elif typ == 66 and len(body) >= 4:  # TRACING_DATA: u32 size, payload after it
                (extra,) = struct.unpack(e + "I", body[:4])
            off += size + extra
        continue
    if hsize < 104 or len(data) < 104:
        continue
    # File mode: struct perf_file_header { magic, size, attr_size, attrs, data, event_types,
    # adds_features[4] }; the feature table follows the data section, one section per bit.
    doff, dsize = struct.unpack(e + "QQ", data[40:56])
    stream_seed(0x80 | (0x40 if big else 0), data[doff:doff + dsize] if dsize else data[doff:])
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

print("seed.sh: new seeds: " + ", ".join(f"{k} {v}" for k, v in counts.items()), file=sys.stderr)
PY
