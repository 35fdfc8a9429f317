//! `module+0xoffset` names of frames without symbols: made once per (module, offset) and added
//! to the string table without a lookup, except where modules share a file name. Whatever the
//! path taken, equal texts must share one string (the folded export and the flame graph's name
//! order rely on it), and the folded lines must merge the modules' equal stacks as
//! `inferno-collapse-perf` merges equal lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::{BTreeMap, HashMap};

use perfscope_analysis::builder::{CpuMode, ProfileBuilder, SampleInput, UnknownNames};
use perfscope_analysis::export::folded::{to_folded_text, FoldedOptions};
use perfscope_analysis::ids::StringIndex;
use perfscope_analysis::profile::Profile;
use perfscope_analysis::samples::SampleFilter;

/// `dirs` processes (pid 100 + i, command "bs"), each running `/build/d{i}/build-script-build`
/// mapped at 0x40_0000 (file offset 0), plus a shared `/usr/lib/libc.so.6`; each process has
/// samples at offsets 0x10 and 0x20 of its binary (0x20 with libc 0x99 as caller), and process
/// i also at 0x100 + i; and one sample outside every mapping (`0x…` name).
fn profile(dirs: u32) -> Profile {
    let mut b = ProfileBuilder::new(None);
    b.unknown_names = UnknownNames::ModuleOffset;
    let ev = b.add_event("cpu-clock").unwrap();
    let mut time = 1;
    for i in 0..dirs {
        let pid = 100 + i;
        b.comm(pid, pid, "bs").unwrap();
        let path = format!("/build/d{i}/build-script-build");
        b.mmap(pid, 0x40_0000, 0x1000, 0, &path, None).unwrap();
        b.mmap(pid, 0x7000_0000, 0x1000, 0, "/usr/lib/libc.so.6", None)
            .unwrap();
        for (ip, chain) in [
            (0x40_0010, vec![0x40_0010]),
            (0x40_0020, vec![0x40_0020, 0x7000_0099]),
            (0x40_0100 + u64::from(i), vec![0x40_0100 + u64::from(i)]),
        ] {
            b.sample(&SampleInput {
                pid,
                tid: pid,
                time,
                cpu: 0,
                event: ev,
                period: 1,
                ip,
                ip_mode: CpuMode::User,
                callchain: &chain,
            })
            .unwrap();
            time += 1;
        }
    }
    b.sample(&SampleInput {
        pid: 100,
        tid: 100,
        time,
        cpu: 0,
        event: ev,
        period: 1,
        ip: 0x1234,
        ip_mode: CpuMode::User,
        callchain: &[0x1234],
    })
    .unwrap();
    b.finish()
}

fn check(dirs: u32) {
    let p = profile(dirs);
    // Every text once in the table, and found by it.
    let mut seen: HashMap<&str, StringIndex> = HashMap::new();
    for i in 0..p.strings.len() {
        let i = StringIndex(i as u32);
        let text = p.strings.get(i);
        assert_eq!(seen.insert(text, i), None, "{text:?} twice ({dirs} dirs)");
        assert_eq!(p.strings.find(text), Some(i), "{text:?} ({dirs} dirs)");
    }
    // One function per module and offset: the binary's three offsets in each module, libc's.
    let names: Vec<&str> = (0..p.funcs.len())
        .map(|f| p.func_name(perfscope_analysis::ids::FuncIndex(f as u32)))
        .collect();
    let count = |n: &str| names.iter().filter(|&&m| m == n).count();
    assert_eq!(count("build-script-build+0x10"), dirs as usize);
    assert_eq!(count("build-script-build+0x20"), dirs as usize);
    assert_eq!(count("build-script-build+0x100"), 1);
    assert_eq!(count("libc.so.6+0x99"), 1);
    assert_eq!(count("0x1234"), 1);
    // The folded lines, by hand: the same stacks of every module merge.
    let mut want: BTreeMap<String, u32> = BTreeMap::new();
    want.insert("bs;build-script-build+0x10".into(), dirs);
    want.insert("bs;libc.so.6+0x99;build-script-build+0x20".into(), dirs);
    want.insert("bs;0x1234".into(), 1);
    for i in 0..dirs {
        want.insert(format!("bs;build-script-build+0x{:x}", 0x100 + i), 1);
    }
    let want: String = want.iter().map(|(s, n)| format!("{s} {n}\n")).collect();
    assert_eq!(
        to_folded_text(&p, &SampleFilter::all(), FoldedOptions::default()),
        want,
        "{dirs} dirs"
    );
}

#[test]
fn one_module_per_file_name() {
    check(1);
}

#[test]
fn modules_sharing_a_file_name_share_its_offset_names() {
    check(3);
}

#[test]
fn many_modules_sharing_a_file_name_share_its_offset_names() {
    // Past the 16 modules whose frames are probed, the names are interned.
    check(20);
}
