//! One line of decoded fields per record, for the records table.

use std::fmt::Write as _;

use perfscope_format::features::RawStr;
use perfscope_format::records::{CpuMapData, Mmap2FileId, Record, SampleId, SampleRecord};

fn text(s: &RawStr<'_>) -> String {
    String::from_utf8_lossy(s.as_bytes()).into_owned()
}

/// Entries shown of a record's list (the rest are counted).
const LISTED: usize = 8;

/// The first [`LISTED`] items of `items`, comma-separated, each written by `item`.
fn list<T>(out: &mut String, items: impl Iterator<Item = T>, item: impl Fn(&mut String, T)) {
    for (i, x) in items.enumerate() {
        if i == LISTED {
            out.push_str(", …");
            break;
        }
        if i > 0 {
            out.push(',');
        }
        item(out, x);
    }
}

/// `n thing(s)`.
fn count(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// A `u64` field where all ones means -1.
fn signed(v: u64) -> i64 {
    v as i64
}

/// CPUs as ranges: `CPUs 0-3,8` (`any` for -1).
fn cpus(out: &mut String, cpus: impl Iterator<Item = i32>) {
    out.push_str("CPUs ");
    let mut run: Option<(i32, i32)> = None;
    let mut first = true;
    let mut put = |out: &mut String, (a, b): (i32, i32)| {
        if !first {
            out.push(',');
        }
        first = false;
        let _ = match (a, b) {
            (-1, _) => write!(out, "any"),
            (a, b) if a == b => write!(out, "{a}"),
            (a, b) => write!(out, "{a}-{b}"),
        };
    };
    for c in cpus.take(1 << 16) {
        run = match run {
            Some((a, b)) if c == b + 1 && a >= 0 => Some((a, c)),
            Some(r) => {
                put(out, r);
                Some((c, c))
            }
            None => Some((c, c)),
        };
    }
    match run {
        Some(r) => put(out, r),
        None => out.push_str("none"),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// pid, tid and cpu of a record (`None` where it has none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Who {
    /// Process.
    pub pid: Option<u32>,
    /// Thread.
    pub tid: Option<u32>,
    /// CPU.
    pub cpu: Option<u32>,
}

/// Where a record happened: its own pid/tid when it has them, else its `sample_id` trailer's.
pub fn who(rec: &Record<'_>) -> Who {
    let sid = rec.sample_id().copied().unwrap_or(SampleId::of_event(None));
    let own = match rec {
        Record::Sample(s) => {
            return Who {
                pid: s.pid,
                tid: s.tid,
                cpu: s.cpu,
            }
        }
        Record::Mmap(r) => Some((r.pid, r.tid)),
        Record::Mmap2(r) => Some((r.pid, r.tid)),
        Record::Comm(r) => Some((r.pid, r.tid)),
        Record::Fork(r) | Record::Exit(r) => Some((r.pid, r.tid)),
        Record::Read(r) => Some((r.pid, r.tid)),
        Record::ItraceStart(r) => Some((r.pid, r.tid)),
        Record::Namespaces(r) => Some((r.pid, r.tid)),
        _ => None,
    };
    match own {
        Some((pid, tid)) => Who {
            pid: Some(pid),
            tid: Some(tid),
            cpu: sid.cpu,
        },
        None => Who {
            pid: sid.pid,
            tid: sid.tid,
            cpu: sid.cpu,
        },
    }
}

fn sample(s: &SampleRecord<'_>, event_name: &str, out: &mut String) {
    let _ = write!(out, "{event_name}");
    if let Some(p) = s.period {
        let _ = write!(out, " period={p}");
    }
    if let Some(ip) = s.ip {
        let _ = write!(out, " ip={ip:#x}");
    }
    if let Some(a) = s.addr {
        let _ = write!(out, " addr={a:#x}");
    }
    if let Some(c) = &s.callchain {
        let _ = write!(out, " callchain={}", c.len());
    }
    if let Some(u) = &s.stack_user {
        let _ = write!(out, " stack_user={}B", u.data.len());
    }
    if let Some(w) = &s.weight {
        let _ = write!(out, " weight={w:?}");
    }
    if let Some(r) = s.raw {
        let _ = write!(out, " raw={}B", r.len());
    }
    if s.branch_stack.is_some() {
        out.push_str(" branch_stack");
    }
}

/// The decoded fields of a record as one line: `"/usr/lib/libc.so.6 [0x7f..(0x156000) @ 0x26000]"`.
pub fn describe(rec: &Record<'_>, event_name: impl Fn(u32) -> String) -> String {
    let mut out = String::new();
    match rec {
        Record::Sample(s) => sample(s, &event_name(s.event.0), &mut out),
        Record::Mmap(r) => {
            let _ = write!(
                out,
                "{} [{:#x}({:#x}) @ {:#x}]",
                text(&r.filename),
                r.start,
                r.len,
                r.pgoff
            );
        }
        Record::Mmap2(r) => {
            let _ = write!(
                out,
                "{} [{:#x}({:#x}) @ {:#x}]",
                text(&r.filename),
                r.start,
                r.len,
                r.pgoff
            );
            match r.file_id {
                Mmap2FileId::BuildId(id) => {
                    let _ = write!(out, " build_id={}", hex(id));
                }
                Mmap2FileId::Inode { maj, min, ino, .. } => {
                    let _ = write!(out, " {maj:02x}:{min:02x} {ino}");
                }
            }
            if let Some(prot) = r.prot {
                let _ = write!(out, " prot={prot:#x}");
            }
        }
        Record::Comm(r) => {
            let _ = write!(
                out,
                "{}{}",
                text(&r.comm),
                if r.is_exec() { " (exec)" } else { "" }
            );
        }
        Record::Fork(r) | Record::Exit(r) => {
            let _ = write!(out, "{}/{} parent {}/{}", r.pid, r.tid, r.ppid, r.ptid);
        }
        Record::Lost(r) => {
            let _ = write!(out, "lost={} id={}", r.lost, r.id);
        }
        Record::LostSamples(r) => {
            let _ = write!(out, "lost={}", r.lost);
        }
        Record::Throttle(r) | Record::Unthrottle(r) => {
            let _ = write!(out, "time={} id={}", r.time, r.id);
        }
        Record::Switch(r) | Record::SwitchCpuWide(r) => {
            out.push_str(if r.is_out() { "out" } else { "in" });
            if r.is_out() && r.is_preempt() {
                out.push_str(" preempt");
            }
            if let (Some(p), Some(t)) = (r.next_prev_pid, r.next_prev_tid) {
                let _ = write!(out, " {} {p}/{t}", if r.is_out() { "next" } else { "prev" });
            }
        }
        Record::Ksymbol(r) => {
            let _ = write!(
                out,
                "{} {:#x} len={} type={}",
                text(&r.name),
                r.addr,
                r.len,
                r.ksym_type
            );
        }
        Record::Cgroup(r) => {
            let _ = write!(out, "{} id={}", text(&r.path), r.id);
        }
        Record::Aux(r) => {
            let _ = write!(
                out,
                "offset={:#x} size={:#x} flags={:#x}",
                r.aux_offset, r.aux_size, r.flags
            );
        }
        Record::FinishedRound | Record::FinishedInit => {}
        Record::TimeConv(r) => {
            let _ = write!(
                out,
                "time_shift={} time_mult={} time_zero={}",
                r.time_shift, r.time_mult, r.time_zero
            );
        }
        Record::Unknown(raw) => {
            let _ = write!(out, "{} body bytes", raw.body.len());
        }
        Record::IdIndex(r) => {
            let _ = write!(out, "{}:", count(r.len(), "id"));
            list(&mut out, r.iter(), |out, e| {
                let _ = write!(
                    out,
                    " id {} event {} cpu {} tid {}",
                    e.id,
                    e.idx,
                    signed(e.cpu),
                    signed(e.tid)
                );
            });
        }
        Record::ThreadMap(r) => {
            let _ = write!(out, "{}:", count(r.len(), "thread"));
            list(&mut out, r.iter(), |out, e| {
                let _ = write!(out, " {}", signed(e.pid));
                let comm = text(&e.comm);
                if !comm.is_empty() {
                    let _ = write!(out, " {comm}");
                }
            });
        }
        Record::CpuMap(r) => match r.data {
            CpuMapData::Unknown { type_ } => {
                let _ = write!(out, "a map of type {type_}");
            }
            data => cpus(&mut out, data.cpus()),
        },
        other => {
            // Rare types: their derived Debug form names every field.
            let mut s = format!("{other:?}");
            if s.len() > 400 {
                let mut cut = 400;
                while !s.is_char_boundary(cut) {
                    cut -= 1;
                }
                s.truncate(cut);
                s.push('…');
            }
            out.push_str(&s);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfscope_format::layout::EventTable;
    use perfscope_format::records::{frame_record, parse_record};
    use perfscope_format::Endianness;

    /// A little-endian record of type `type_` with `body`, described.
    fn described(type_: u32, body: &[u8]) -> String {
        let mut bytes = type_.to_le_bytes().to_vec();
        bytes.extend_from_slice(&0u16.to_le_bytes());
        bytes.extend_from_slice(&(8 + body.len() as u16).to_le_bytes());
        bytes.extend_from_slice(body);
        let raw = frame_record(&bytes, 0, Endianness::Little).unwrap();
        let rec = parse_record(&raw, &EventTable::default()).unwrap();
        describe(&rec, |e| format!("ev{e}"))
    }

    fn u64s(words: &[u64]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn maps_and_id_indexes_are_described_by_their_entries() {
        // PERF_RECORD_ID_INDEX (69): nr, then (id, idx, cpu, tid) each.
        let body = u64s(&[2, 57, 0, 0, u64::MAX, 58, 1, 1, u64::MAX]);
        assert_eq!(
            described(69, &body),
            "2 ids: id 57 event 0 cpu 0 tid -1, id 58 event 1 cpu 1 tid -1"
        );
        // Ten entries: the first eight, then the rest counted.
        let mut words = vec![10];
        (0..10).for_each(|i| words.extend([100 + i, 0, i, 7]));
        let text = described(69, &u64s(&words));
        assert!(
            text.starts_with("10 ids: id 100 event 0 cpu 0 tid 7,"),
            "{text}"
        );
        assert!(text.ends_with("id 107 event 0 cpu 7 tid 7, …"), "{text}");
        // PERF_RECORD_THREAD_MAP (73): nr, then (pid, comm[16]) each.
        let mut body = u64s(&[2, 1234]);
        body.extend(b"bash\0\0\0\0\0\0\0\0\0\0\0\0");
        body.extend(u64s(&[u64::MAX]));
        body.extend([0u8; 16]);
        assert_eq!(described(73, &body), "2 threads: 1234 bash, -1");
        assert_eq!(described(73, &u64s(&[0])), "0 threads:");
        // PERF_RECORD_CPU_MAP (74): type 0 (a list: nr, cpu[nr]; 65535 is -1), padded to 8.
        let list: Vec<u8> = [0u16, 5, 65535, 0, 1, 2, 5]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .chain([0u8; 2])
            .collect();
        assert_eq!(described(74, &list), "CPUs any,0-2,5");
        // Type 2: a range (any_cpu, pad, start, end).
        let range = [2u8, 0, 0, 0, 4, 0, 7, 0];
        assert_eq!(described(74, &range), "CPUs 4-7");
    }
}
