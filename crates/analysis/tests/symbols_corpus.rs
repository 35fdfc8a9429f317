#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Symbol sources against perf's own output in the corpus oracles and against binutils.
//!
//! Truth: `perf script` callchain lines (address, symbol, dso) in `corpus/gen/oracle/*.script.txt`,
//! and `nm` / `addr2line` run on the same files.

#[path = "symbols_common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::process::Command;

use perfscope_analysis::symbols::archive::{build_id_hex, PerfArchive};
use perfscope_analysis::symbols::elf::{self, ElfSymbols};
use perfscope_analysis::symbols::jitdump::JitDump;
use perfscope_analysis::symbols::kallsyms::Kallsyms;
use perfscope_analysis::symbols::perf_map::PerfMap;

fn read(path: impl AsRef<std::path::Path>) -> Vec<u8> {
    std::fs::read(path.as_ref()).unwrap_or_else(|e| panic!("{}: {e}", path.as_ref().display()))
}

fn oracle_scripts(gen: &std::path::Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(gen.join("oracle")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".script.txt") {
            out.push((
                stem.to_owned(),
                String::from_utf8_lossy(&read(&path)).into_owned(),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn kallsyms_names_every_kernel_frame_like_perf_script() {
    let Some(shared) = common::shared_dir("kallsyms_names_every_kernel_frame_like_perf_script")
    else {
        return;
    };
    let gen = shared.join("corpus/gen");
    let mut kallsyms = Kallsyms::parse(&read(gen.join("extra/kallsyms.gz"))).unwrap();
    assert!(
        kallsyms.table().len() > 100_000,
        "{}",
        kallsyms.table().len()
    );
    let (mut checked, mut files) = (0usize, 0usize);
    let mut mismatches = Vec::new();
    for (stem, text) in oracle_scripts(&gen) {
        let Some((map_name, pgoff)) = common::kernel_map(&text) else {
            continue;
        };
        assert_eq!(
            kallsyms.relocate_for_map(&map_name, pgoff),
            0,
            "{stem}: same boot as kallsyms.gz"
        );
        files += 1;
        for f in common::script_frames(&text)
            .into_iter()
            .filter(|f| f.dso == "[kernel.kallsyms]")
        {
            let ours = kallsyms.lookup(f.addr).map_or("[unknown]", |s| s.name);
            checked += 1;
            if ours != f.sym {
                mismatches.push(format!("{stem}: {:x} perf={} ours={ours}", f.addr, f.sym));
            }
        }
    }
    println!("kernel frames checked: {checked} in {files} files");
    assert!(checked > 10_000, "{checked}");
    assert!(
        mismatches.is_empty(),
        "{} mismatches, first: {:#?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(20)]
    );
}

/// User-space frames of fp-callchain.data resolved from nothing but its perf archive.
#[test]
fn archive_alone_names_fp_callchain_user_frames_like_perf_script() {
    let Some(shared) =
        common::shared_dir("archive_alone_names_fp_callchain_user_frames_like_perf_script")
    else {
        return;
    };
    let gen = shared.join("corpus/gen");
    let archive = PerfArchive::parse(&read(gen.join("extra/fp-callchain.data.tar.bz2"))).unwrap();
    let by_path: BTreeMap<&str, (&[u8], ElfSymbols)> = archive
        .iter()
        .filter_map(|(id, e)| {
            let elf = e.elf.as_deref()?;
            let syms = ElfSymbols::parse_with_debug(elf, e.debug.as_deref()).unwrap();
            assert_eq!(syms.build_id(), Some(id), "{}", e.dso_path);
            Some((e.dso_path.as_str(), (id, syms)))
        })
        .collect();
    let paths: Vec<_> = by_path.keys().copied().collect();
    assert_eq!(
        paths,
        vec![
            "/tmp/corpus-gen/workloads/mt",
            "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
            "/usr/lib/x86_64-linux-gnu/libc.so.6"
        ]
    );
    assert_eq!(
        build_id_hex(by_path["/usr/lib/x86_64-linux-gnu/libc.so.6"].0),
        "93ac61ec5a8eb1396f9fbd350e3169a558528a40"
    );
    let text =
        String::from_utf8_lossy(&read(gen.join("oracle/fp-callchain.script.txt"))).into_owned();
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for f in common::script_frames(&text) {
        let Some((_, syms)) = by_path.get(f.dso.as_str()) else {
            continue;
        };
        let ours = syms
            .lookup_file_offset(f.addr)
            .map_or("[unknown]", |s| s.name);
        checked += 1;
        if ours != f.sym {
            mismatches.push(format!(
                "{}: {:x} perf={} ours={ours}",
                f.dso, f.addr, f.sym
            ));
        }
    }
    println!("user frames checked: {checked}");
    assert!(checked > 2_000, "{checked}");
    assert!(
        mismatches.is_empty(),
        "{} mismatches: {:#?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(20)]
    );
}

/// Every file-relative user frame of every oracle whose DSO exists on this machine with the
/// build id perf saw (checked through the archive for libc/ld.so/mt) resolves to perf's name.
#[test]
fn local_elf_files_name_user_frames_like_perf_script() {
    let Some(shared) = common::shared_dir("local_elf_files_name_user_frames_like_perf_script")
    else {
        return;
    };
    let gen = shared.join("corpus/gen");
    let archive = PerfArchive::parse(&read(gen.join("extra/fp-callchain.data.tar.bz2"))).unwrap();
    let mut local: BTreeMap<String, ElfSymbols> = BTreeMap::new();
    for (id, e) in archive.iter() {
        let local_path = match e.dso_path.strip_prefix("/tmp/corpus-gen/workloads/") {
            Some(rest) => gen.join("workloads").join(rest),
            None => std::path::PathBuf::from(&e.dso_path),
        };
        let Ok(bytes) = std::fs::read(&local_path) else {
            continue;
        };
        if elf::build_id(&bytes).as_deref() != Some(id) {
            println!("{}: local build id differs, not compared", e.dso_path);
            continue;
        }
        let hex = build_id_hex(id);
        let debug = std::fs::read(format!(
            "/usr/lib/debug/.build-id/{}/{}.debug",
            &hex[..2],
            &hex[2..]
        ))
        .ok();
        local.insert(
            e.dso_path.clone(),
            ElfSymbols::parse_with_debug(&bytes, debug.as_deref()).unwrap(),
        );
    }
    if local.is_empty() {
        println!("skipping: none of the recorded DSOs is on this machine");
        return;
    }
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for (stem, text) in oracle_scripts(&gen) {
        for f in common::script_frames(&text) {
            let Some(syms) = local.get(&f.dso) else {
                continue;
            };
            let ours = syms
                .lookup_file_offset(f.addr)
                .map_or("[unknown]", |s| s.name);
            checked += 1;
            if ours != f.sym {
                mismatches.push(format!(
                    "{stem} {}: {:x} perf={} ours={ours}",
                    f.dso, f.addr, f.sym
                ));
            }
        }
    }
    println!(
        "user frames checked against local files: {checked} ({} DSOs)",
        local.len()
    );
    assert!(
        mismatches.is_empty(),
        "{} mismatches: {:#?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(20)]
    );
}

fn nm(args: &[&str], path: &std::path::Path) -> Option<String> {
    let out = Command::new("nm").args(args).arg(path).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Our function table of `mt` equals `nm`'s text symbols with a size (`nm -S`, types T/t/W/i).
#[test]
fn mt_functions_match_nm() {
    let Some(shared) = common::shared_dir("mt_functions_match_nm") else {
        return;
    };
    let path = shared.join("corpus/gen/workloads/mt");
    let Some(out) = nm(&["-S", "--defined-only"], &path) else {
        println!("skipping mt_functions_match_nm: nm not available");
        return;
    };
    let syms = ElfSymbols::parse(&read(&path)).unwrap();
    let mut from_nm: Vec<(u64, u64, String)> = out
        .lines()
        .filter_map(|l| {
            let f: Vec<_> = l.split_whitespace().collect();
            match f.as_slice() {
                [addr, size, kind, name] if matches!(*kind, "T" | "t" | "W" | "i") => Some((
                    u64::from_str_radix(addr, 16).ok()?,
                    u64::from_str_radix(size, 16).ok()?,
                    (*name).to_owned(),
                )),
                _ => None,
            }
        })
        .collect();
    from_nm.sort();
    // nm lists sized symbols; ours also has unsized ones (closed at the next symbol).
    let ours: Vec<(u64, u64, String)> = syms
        .table()
        .iter()
        .filter(|s| from_nm.iter().any(|(a, _, n)| *a == s.start && n == s.name))
        .map(|s| (s.start, s.end - s.start, s.name.to_owned()))
        .collect();
    assert_eq!(ours, from_nm);
    let leaf = syms.lookup_file_offset(0x147e).unwrap();
    assert_eq!((leaf.name, leaf.start, leaf.offset), ("leaf", 0x1460, 0x1e));
}

/// libc's exported functions (`nm -D`) are all found, with nm's addresses.
#[test]
fn libc_dynamic_functions_match_nm_dynamic() {
    let path = std::path::Path::new("/usr/lib/x86_64-linux-gnu/libc.so.6");
    let (Ok(bytes), Some(out)) = (std::fs::read(path), nm(&["-D", "--defined-only"], path)) else {
        println!("skipping libc_dynamic_functions_match_nm_dynamic: no libc or nm");
        return;
    };
    let syms = ElfSymbols::parse(&bytes).unwrap();
    let mut checked = 0;
    for l in out.lines() {
        let f: Vec<_> = l.split_whitespace().collect();
        let [addr, kind, name] = f.as_slice() else {
            continue;
        };
        if !matches!(*kind, "T" | "i") {
            continue;
        }
        let name = name.split('@').next().unwrap();
        let addr = u64::from_str_radix(addr, 16).unwrap();
        let found = syms
            .lookup_vaddr(addr)
            .unwrap_or_else(|| panic!("{name} at {addr:x} not found"));
        assert_eq!(found.start, addr, "{name}");
        checked += 1;
    }
    println!("libc exported functions checked: {checked}");
    assert!(checked > 1000, "{checked}");
}

#[cfg(feature = "dwarf")]
#[test]
fn mt_dwarf_lines_match_addr2line() {
    use perfscope_analysis::symbols::dwarf::DwarfContext;
    let Some(shared) = common::shared_dir("mt_dwarf_lines_match_addr2line") else {
        return;
    };
    let path = shared.join("corpus/gen/workloads/mt");
    let ctx = DwarfContext::parse(&read(&path))
        .unwrap()
        .expect("mt has DWARF");
    for addr in [0x147eu64, 0x14c9, 0x1507, 0x14a5, 0x1120] {
        let Ok(out) = Command::new("addr2line")
            .args(["-f", "-i", "-e"])
            .arg(&path)
            .arg(format!("{addr:x}"))
            .output()
        else {
            println!("skipping mt_dwarf_lines_match_addr2line: no addr2line");
            return;
        };
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        let expected: Vec<(String, String)> = lines
            .chunks(2)
            .map(|c| {
                let (file, line) = c[1].rsplit_once(':').unwrap();
                let line = line.split_whitespace().next().unwrap();
                (
                    c[0].to_owned(),
                    format!("{}:{line}", file.rsplit('/').next().unwrap()),
                )
            })
            .collect();
        let ours: Vec<(String, String)> = ctx
            .frames(addr)
            .unwrap()
            .into_iter()
            .map(|f| {
                let file = f.file.unwrap_or_default();
                (
                    f.function.unwrap_or_default(),
                    format!(
                        "{}:{}",
                        file.rsplit('/').next().unwrap(),
                        f.line.unwrap_or(0)
                    ),
                )
            })
            .collect();
        assert_eq!(ours, expected, "at {addr:x}");
    }
}

#[test]
fn python312_perf_map_names_match_perf_script() {
    let Some(shared) = common::shared_dir("python312_perf_map_names_match_perf_script") else {
        return;
    };
    let gen = shared.join("corpus/gen");
    let bytes = read(gen.join("extra/python312-perfmap.perf-31813.map"));
    let map = PerfMap::parse(&bytes);
    assert_eq!(map.skipped_lines(), 0);
    let lines = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    assert!(
        map.table().len() <= lines && map.table().len() > 100,
        "{} of {lines}",
        map.table().len()
    );
    let text = String::from_utf8_lossy(&read(gen.join("oracle/python312-perfmap.script.txt")))
        .into_owned();
    let frames: Vec<_> = common::script_frames(&text)
        .into_iter()
        .filter(|f| f.dso == "/tmp/perf-31813.map")
        .collect();
    assert_eq!(frames.len(), 84);
    for f in frames {
        assert_eq!(
            map.table().lookup(f.addr).map(|s| s.name),
            Some(f.sym.as_str()),
            "{:x}",
            f.addr
        );
    }
}

#[test]
fn python313_jitdump_covers_the_jitted_frames() {
    let Some(shared) = common::shared_dir("python313_jitdump_covers_the_jitted_frames") else {
        return;
    };
    let gen = shared.join("corpus/gen");
    let dump = JitDump::parse(&read(gen.join("extra/python313-jit.jit-31909.dump"))).unwrap();
    // Header, decoded by hand from `xxd`: version 1, total_size 0x28, pid 0x7ca5 = 31909.
    assert_eq!((dump.version, dump.pid, dump.elf_mach), (1, 31909, 0));
    assert_eq!(dump.truncated, None);
    assert!(!dump.code_loads.is_empty());
    assert!(
        dump.code_loads
            .iter()
            .all(|l| l.pid == 31909 && l.name.starts_with("py::")),
        "{:?}",
        dump.code_loads[0]
    );
    let table = dump.table();
    // perf script (without perf inject --jit) leaves these [unknown] in /tmp/perf-31909.map;
    // the jitdump knows them.
    let text =
        String::from_utf8_lossy(&read(gen.join("oracle/python313-jit.script.txt"))).into_owned();
    let frames: Vec<_> = common::script_frames(&text)
        .into_iter()
        .filter(|f| f.dso == "/tmp/perf-31909.map")
        .collect();
    assert_eq!(frames.len(), 86);
    let named = frames
        .iter()
        .filter(|f| table.lookup(f.addr).is_some())
        .count();
    println!(
        "jitted frames named from the jitdump: {named} of {}; first load {:?}",
        frames.len(),
        dump.code_loads[0]
    );
    assert_eq!(named, frames.len());
}

struct LocalFiles(std::path::PathBuf);

impl perfscope_analysis::symbols::resolver::FileProvider for LocalFiles {
    fn read_path(&mut self, path: &str) -> Option<Vec<u8>> {
        let rel = path.strip_prefix("/tmp/corpus-gen/workloads/")?;
        std::fs::read(self.0.join(rel)).ok()
    }
}

#[test]
fn resolver_picks_build_id_then_path_and_rejects_wrong_build_ids() {
    use perfscope_analysis::symbols::archive::parse_hex_build_id;
    use perfscope_analysis::symbols::resolver::{ModuleRef, SymbolResolver};
    let Some(shared) =
        common::shared_dir("resolver_picks_build_id_then_path_and_rejects_wrong_build_ids")
    else {
        return;
    };
    let gen = shared.join("corpus/gen");
    let mut r = SymbolResolver::new();
    r.add_archive(PerfArchive::parse(&read(gen.join("extra/fp-callchain.data.tar.bz2"))).unwrap())
        .unwrap();
    assert_eq!(
        r.set_kernel_map("[kernel.kallsyms]_text", 0xffff_ffff_8100_0000),
        0
    );
    let libc_id = parse_hex_build_id("93ac61ec5a8eb1396f9fbd350e3169a558528a40").unwrap();
    let libc = ModuleRef {
        path: "/usr/lib/x86_64-linux-gnu/libc.so.6",
        build_id: Some(&libc_id),
    };
    // From fp-callchain.script.txt: `16e0ba __memset_avx512_unaligned_erms (libc.so.6)`,
    // `ffffffff821f26e7 exc_page_fault ([kernel.kallsyms])`.
    let s = r.lookup(libc, 0x16e0ba).unwrap();
    assert_eq!(s.name, "__memset_avx512_unaligned_erms");
    let kernel = ModuleRef {
        path: "[kernel.kallsyms]",
        build_id: None,
    };
    assert_eq!(
        r.lookup(kernel, 0xffff_ffff_821f_26e7).unwrap().name,
        "exc_page_fault"
    );

    // By path through the provider, when the build id matches (or none was recorded)...
    let mut r = SymbolResolver::new();
    r.set_provider(Box::new(LocalFiles(gen.join("workloads"))));
    let mt_id = parse_hex_build_id("8d278aae627ef2cbf618b3b4feddbfa223e77033").unwrap();
    let mt = ModuleRef {
        path: "/tmp/corpus-gen/workloads/mt",
        build_id: Some(&mt_id),
    };
    let leaf = r.lookup(mt, 0x147e).unwrap();
    assert_eq!((leaf.name.as_str(), leaf.offset), ("leaf", 0x1e));
    let mt_no_id = ModuleRef {
        path: "/tmp/corpus-gen/workloads/mt",
        build_id: None,
    };
    assert_eq!(r.lookup(mt_no_id, 0x14c9).unwrap().name, "top");
    // ...but not when the recorded build id is another one.
    let wrong = [0u8; 20];
    assert_eq!(
        r.lookup(
            ModuleRef {
                path: "/tmp/corpus-gen/workloads/mt",
                build_id: Some(&wrong)
            },
            0x147e
        ),
        None
    );
    // No kallsyms given: kernel addresses stay unnamed.
    assert_eq!(
        r.lookup(
            ModuleRef {
                path: "[kernel.kallsyms]",
                build_id: None
            },
            0xffff_ffff_821f_26e7
        ),
        None
    );

    // JIT maps: the perf map of the pid.
    r.add_perf_map(
        31813,
        &read(gen.join("extra/python312-perfmap.perf-31813.map")),
    );
    let jit = ModuleRef {
        path: "/tmp/perf-31813.map",
        build_id: None,
    };
    assert_eq!(
        r.lookup(jit, 0x7fe1_5dcb_97c1).unwrap().name,
        "py::collatz_len:/tmp/corpus-gen/workloads/work.py"
    );
}
