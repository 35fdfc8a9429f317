//! One line of decoded fields per record, for the records table.

use std::fmt::Write as _;

use perfscope_format::features::RawStr;
use perfscope_format::records::{Mmap2FileId, Record, SampleId, SampleRecord};

fn text(s: &RawStr<'_>) -> String {
    String::from_utf8_lossy(s.as_bytes()).into_owned()
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
