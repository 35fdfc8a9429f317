//! `module+0xoffset` names of frames without symbols: made once per (module, offset) and added
//! to the string table without a lookup, except where modules share a file name. Whatever the
//! path taken, equal texts must share one string (the folded export and the flame graph's name
//! order rely on it), and the folded lines must merge the modules' equal stacks as
//! `inferno-collapse-perf` merges equal lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::{BTreeMap, HashMap};

mod common;

use perfscope_analysis::builder::{CpuMode, ProfileBuilder, SampleInput, UnknownNames};
use perfscope_analysis::export::folded::{to_folded_text, FoldedOptions};
use perfscope_analysis::ids::StringIndex;
use perfscope_analysis::load::{load_profile, LoadOptions};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::samples::SampleFilter;

/// `dirs` processes (pid 100 + i, command "bs"), each running `/build/d{i}/build-script-build`
/// mapped at 0x40_0000 (file offset 0), plus a shared `/usr/lib/libc.so.6`; each process has
/// samples at offsets 0x10 and 0x20 of its binary (0x20 with libc 0x99 as caller), and process
/// i also at 0x100 + i; and one sample outside every mapping (`0x…` name).
fn profile(dirs: u32) -> Profile {
    profile_named(dirs, UnknownNames::ModuleOffset)
}

/// [`profile`] with frames without symbols named as `names` says.
fn profile_named(dirs: u32, names: UnknownNames) -> Profile {
    let mut b = ProfileBuilder::new(None);
    b.unknown_names = names;
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

#[test]
fn one_frame_per_module_merges_every_address_of_it() {
    // `UnknownNames::Module`: each module's addresses are one frame `[file name]`, as
    // stackcollapse-perf names them; outside every mapping `[unknown]`. Modules that share a
    // file name are still two functions (and frames), with one name.
    let p = profile_named(3, UnknownNames::Module);
    let mut names: Vec<&str> = (0..p.funcs.len())
        .map(|f| p.func_name(perfscope_analysis::ids::FuncIndex(f as u32)))
        .collect();
    names.sort_unstable();
    let mut want_names = vec!["[build-script-build]"; 3];
    want_names.extend(["[libc.so.6]", "[unknown]"]);
    assert_eq!(names, want_names);
    assert_eq!(p.frames.len(), 5);
    // Stacks: [build-script-build] of each module (merging its two leaf addresses), the one
    // libc's [libc.so.6] and under it each module's [build-script-build], [unknown].
    assert_eq!(p.stacks.len(), 3 + 1 + 3 + 1);
    let want = "bs;[build-script-build] 6\nbs;[libc.so.6];[build-script-build] 3\nbs;[unknown] 1\n";
    assert_eq!(
        to_folded_text(&p, &SampleFilter::all(), FoldedOptions::default()),
        want
    );
}

/// Each sample's frames, root first, as texts: the function's name, or with `merge` an offset
/// name (`file+0xoffset` of the frame's module, `0xoffset` outside any) as `[file]` or
/// `[unknown]`.
fn sample_frames(p: &Profile, merge: bool) -> Vec<Vec<String>> {
    (0..p.samples.len())
        .map(|i| {
            let s = p.samples.get(i).unwrap();
            let mut out: Vec<String> = p
                .stacks
                .frames_leaf_first(s.stack)
                .map(|f| {
                    let frame = p.frames.get(f).unwrap();
                    let name = p.func_name(frame.func).to_owned();
                    if !merge {
                        return name;
                    }
                    let file = frame.module.and_then(|m| p.modules.get(m)).map(|m| {
                        let path = p.strings.get(m.path);
                        path.rsplit('/').next().unwrap_or(path).to_owned()
                    });
                    match file {
                        // `[kernel.kallsyms]` stays as it is.
                        Some(file) if name == format!("{file}+0x{:x}", frame.address) => {
                            if file.starts_with('[') && file.ends_with(']') {
                                file
                            } else {
                                format!("[{file}]")
                            }
                        }
                        None if name == format!("0x{:x}", frame.address) => "[unknown]".into(),
                        _ => name,
                    }
                })
                .collect();
            out.reverse();
            out
        })
        .collect()
}

#[test]
fn one_frame_per_module_on_the_corpus_names_what_offset_names_name() {
    // Every sample of every recording: its frames with one frame per module are its frames
    // with offset names (checked against perf's own text elsewhere), each offset name read
    // as its module's `[file]`.
    let Some(root) = common::shared() else {
        eprintln!("skipped: ../shared (the corpus) is absent");
        return;
    };
    let mut checked = 0;
    for (file, _, _) in common::corpus_files(&root) {
        let data = common::read_input(&file);
        let load = |names| {
            let options = LoadOptions {
                symbolize: false,
                unknown_names: names,
                ..LoadOptions::default()
            };
            load_profile(&data, &[], options).map(|(p, _)| p)
        };
        let (Ok(offsets), Ok(modules)) =
            (load(UnknownNames::ModuleOffset), load(UnknownNames::Module))
        else {
            continue;
        };
        assert_eq!(
            sample_frames(&modules, false),
            sample_frames(&offsets, true),
            "{}",
            file.display()
        );
        assert!(modules.stacks.len() <= offsets.stacks.len());
        checked += usize::from(!offsets.samples.is_empty());
    }
    assert!(checked >= 20, "only {checked} recordings with samples");
}
