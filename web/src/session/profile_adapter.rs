//! TEMPORARY: feeds `perfscope_analysis::builder::ProfileBuilder` directly until the `profile`
//! branch's `perfscope_analysis::load::load_profile` (time order by FINISHED_ROUND, DWARF
//! unwinding, KSYMBOL, build-id records) is merged into main; then this file goes away and
//! [`load_profile`] calls that one. Kept deliberately small: records are collected, sorted by
//! time (stable, so records without a time keep their place after the record before them) and
//! fed to the builder. No DWARF unwinding: DWARF-mode samples keep their leaf frame only.

use std::collections::HashMap;

use perfscope_analysis::builder::{CpuMode, ProfileBuilder, SampleInput, UnknownNames};
use perfscope_analysis::delivery::SampleDelivery;
use perfscope_analysis::ids::EventIndex;
use perfscope_analysis::profile::Profile;
use perfscope_analysis::symbols::resolver::SymbolResolver;
use perfscope_format::constants::{misc, HeaderFeature, RecordType};
use perfscope_format::features::build_id::{parse_build_id_record, parse_build_ids};
use perfscope_format::records::{Mmap2FileId, Record};
use perfscope_format::walk::{walk, Item};

enum Pending {
    Mmap { pid: u32, start: u64, len: u64, pgoff: u64, filename: String, build_id: Option<Vec<u8>> },
    Comm { pid: u32, tid: u32, name: String },
    Fork { ppid: u32, ptid: u32, pid: u32, tid: u32 },
    Sample { pid: u32, tid: u32, time: u64, cpu: u32, event: u32, period: u64, ip: u64, kernel: bool, callchain: Vec<u64> },
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn is_kernel(misc_bits: u16) -> bool {
    matches!(misc_bits & misc::CPUMODE_MASK, misc::KERNEL | misc::HYPERVISOR | misc::GUEST_KERNEL)
}

/// Builds the profile of `data` (a whole perf.data) with `resolver`; events are named
/// `event_names[i]` in attr order.
pub fn load_profile(data: &[u8], resolver: Option<SymbolResolver>, event_names: &[String]) -> Result<Profile, String> {
    let mut pending: Vec<(u64, Pending)> = Vec::new();
    let mut build_ids: HashMap<String, Vec<u8>> = HashMap::new();
    let mut delivery = SampleDelivery::new();
    let mut last_time = 0u64;
    let mut attrs = 0usize;
    let meta = walk(data, &[], |meta, _, item| {
        let Item::Record(raw) = item else { return };
        attrs = attrs.max(meta.events.len());
        if raw.type_() == RecordType::HEADER_BUILD_ID {
            if let Ok(e) = parse_build_id_record(raw.header.misc, raw.body_bytes()) {
                build_ids.insert(lossy(e.filename.as_bytes()), e.build_id.to_vec());
            }
            return;
        }
        let Ok(rec) = meta.parse(raw) else { return };
        let time = rec.time().unwrap_or(last_time);
        last_time = time;
        match rec {
            Record::Mmap(r) => pending.push((
                time,
                Pending::Mmap { pid: r.pid, start: r.start, len: r.len, pgoff: r.pgoff, filename: lossy(r.filename.as_bytes()), build_id: None },
            )),
            Record::Mmap2(r) => {
                let build_id = match r.file_id {
                    Mmap2FileId::BuildId(id) => Some(id.to_vec()),
                    Mmap2FileId::Inode { .. } => None,
                };
                let filename = lossy(r.filename.as_bytes());
                pending.push((time, Pending::Mmap { pid: r.pid, start: r.start, len: r.len, pgoff: r.pgoff, filename, build_id }));
            }
            Record::Comm(r) => pending.push((time, Pending::Comm { pid: r.pid, tid: r.tid, name: lossy(r.comm.as_bytes()) })),
            Record::Fork(r) => pending.push((time, Pending::Fork { ppid: r.ppid, ptid: r.ptid, pid: r.pid, tid: r.tid })),
            Record::Sample(s) => {
                let callchain: Vec<u64> = s.callchain.map(|c| c.ips().iter().collect()).unwrap_or_default();
                let (pid, tid) = (s.pid.unwrap_or(u32::MAX), s.tid.unwrap_or(u32::MAX));
                let (cpu, ip, kernel) = (s.cpu.unwrap_or(u32::MAX), s.ip.unwrap_or(0), is_kernel(s.misc));
                let s_time = s.time.unwrap_or(time);
                delivery.deliver(&meta.events, &s, |event, period| {
                    pending.push((
                        time,
                        Pending::Sample { pid, tid, time: s_time, cpu, event: event.0, period, ip, kernel, callchain: callchain.clone() },
                    ));
                });
            }
            _ => {}
        }
    })
    .map_err(|e| e.to_string())?;
    if let Some(b) = meta.feature(HeaderFeature::BUILD_ID) {
        if let Ok(entries) = parse_build_ids(b) {
            for e in entries {
                build_ids.entry(lossy(e.filename.as_bytes())).or_insert_with(|| e.build_id.to_vec());
            }
        }
    }
    attrs = attrs.max(meta.events.len());
    // Stable: equal times keep file order.
    pending.sort_by_key(|(t, _)| *t);

    let mut builder = ProfileBuilder::new(resolver);
    builder.unknown_names = UnknownNames::ModuleOffset;
    let cap = |e: perfscope_analysis::ids::CapacityError| e.to_string();
    for i in 0..attrs {
        let name = event_names.get(i).cloned().unwrap_or_else(|| format!("event {i}"));
        builder.add_event(&name).map_err(cap)?;
    }
    for (_, p) in pending {
        match p {
            Pending::Mmap { pid, start, len, pgoff, filename, build_id } => {
                let id = build_id.or_else(|| build_ids.get(&filename).cloned());
                builder.mmap(pid, start, len, pgoff, &filename, id.as_deref()).map_err(cap)?;
            }
            Pending::Comm { pid, tid, name } => builder.comm(pid, tid, &name).map_err(cap)?,
            Pending::Fork { ppid, ptid, pid, tid } => builder.fork(ppid, ptid, pid, tid).map_err(cap)?,
            Pending::Sample { pid, tid, time, cpu, event, period, ip, kernel, callchain } => {
                let input = SampleInput {
                    pid,
                    tid,
                    time,
                    cpu,
                    event: EventIndex(event),
                    period,
                    ip,
                    ip_mode: if kernel { CpuMode::Kernel } else { CpuMode::User },
                    callchain: &callchain,
                };
                builder.sample(&input).map_err(cap)?;
            }
        }
    }
    Ok(builder.finish())
}
