//! `perfscope collapse` against perf's folded stacks (`corpus/gen/oracle/*.folded.txt`, made on
//! the recording machine from `perf script`), as multisets of (stack, count) lines.
//!
//! Every sample whose stack differs from perf's must be explained: its stack runs through a
//! binary that is not on this machine (perf had it; we print `[unknown]`), or it is one of the
//! listed unwinder limitations. Skips with a message when the corpus, the workload symlink or
//! this machine's libc (build id checked) are missing.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use perfscope_analysis::builder::{InlineFrames, UnknownNames};
use perfscope_analysis::load::{load_profile, LoadOptions};
use perfscope_analysis::profile::Profile;
use perfscope_analysis::symbols::elf;
use perfscope_analysis::symbols::resolver::{FileProvider, SymbolResolver};

fn shared() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("PERFSCOPE_SHARED") {
        return Some(PathBuf::from(d)).filter(|d| d.join("corpus/gen").is_dir());
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    workspace
        .ancestors()
        .map(|a| a.join("shared"))
        .find(|d| d.join("corpus/gen").is_dir())
}

/// The recording machine ran the workloads from `/tmp/corpus-gen/workloads/`; point that path at
/// the corpus copies. `false` when it cannot be made.
fn link_workloads(gen: &Path) -> bool {
    let link = Path::new("/tmp/corpus-gen/workloads");
    if link.join("mt").is_file() {
        return true;
    }
    let _ = std::fs::create_dir_all("/tmp/corpus-gen");
    #[cfg(unix)]
    if std::os::unix::fs::symlink(gen.join("workloads"), link).is_err()
        && !link.join("mt").is_file()
    {
        return false;
    }
    link.join("mt").is_file()
}

/// The binaries perf found are on this machine with the same build ids (libc and ld.so as the
/// archive of fp-callchain.data records them).
fn system_libraries_match() -> bool {
    let want = [
        (
            "/usr/lib/x86_64-linux-gnu/libc.so.6",
            "93ac61ec5a8eb1396f9fbd350e3169a558528a40",
        ),
        (
            "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
            "7ebc65e52f2bbea498b4040fa92f7238377aaba9",
        ),
    ];
    want.iter().all(|(path, id)| {
        let found = std::fs::read(path).ok().and_then(|b| elf::build_id(&b));
        let hex: Option<String> = found.map(|b| b.iter().map(|x| format!("{x:02x}")).collect());
        let ok = hex.as_deref() == Some(*id);
        if !ok {
            println!("{path}: build id {hex:?}, perf saw {id}");
        }
        ok
    })
}

type Folded = BTreeMap<String, u64>;

fn parse_folded(text: &str) -> Folded {
    let mut out = Folded::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let (stack, count) = line.rsplit_once(' ').unwrap();
        *out.entry(stack.to_owned()).or_default() += count.parse::<u64>().unwrap();
    }
    out
}

/// The oracle generator split `perf script` lines at the first ` (`, so a name containing one
/// (`…get_hash<…ImportData>, ()>::{closure#0}>`) was cut there; perf printed it whole. Compare
/// our names cut the same way.
fn as_oracle_cut(stack: &str) -> String {
    stack
        .split(';')
        .map(|f| f.split(" (").next().unwrap_or(f))
        .collect::<Vec<_>>()
        .join(";")
}

fn extra_args(stem: &str, gen: &Path) -> Vec<String> {
    let mut args = vec![
        "--kallsyms".to_owned(),
        gen.join("extra/kallsyms.gz").display().to_string(),
    ];
    if stem == "python312-perfmap" {
        // perf read /tmp/perf-31813.map on the recording machine; the corpus keeps a copy.
        args.push("--perf-map".into());
        args.push(
            gen.join("extra/python312-perfmap.perf-31813.map")
                .display()
                .to_string(),
        );
    }
    args
}

fn collapse(file: &Path, args: &[String]) -> Folded {
    let out = Command::new(env!("CARGO_BIN_EXE_perfscope"))
        .arg("collapse")
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    parse_folded(&String::from_utf8(out.stdout).unwrap())
}

/// Reads binaries by their recorded paths, like the CLI.
struct LocalFiles;
impl FileProvider for LocalFiles {
    fn read_path(&mut self, path: &str) -> Option<Vec<u8>> {
        path.starts_with('/')
            .then(|| std::fs::read(path).ok())
            .flatten()
    }
    fn read_debug(&mut self, build_id: &[u8]) -> Option<Vec<u8>> {
        let hex: String = build_id.iter().map(|x| format!("{x:02x}")).collect();
        std::fs::read(format!(
            "/usr/lib/debug/.build-id/{}/{}.debug",
            &hex[..2],
            &hex[2..]
        ))
        .ok()
    }
}

fn load(file: &Path, gen: &Path, stem: &str, symbolize: bool) -> Profile {
    let mut r = SymbolResolver::new();
    r.set_provider(Box::new(LocalFiles));
    r.set_kallsyms(&std::fs::read(gen.join("extra/kallsyms.gz")).unwrap())
        .unwrap();
    if stem == "python312-perfmap" {
        r.add_perf_map(
            31813,
            &std::fs::read(gen.join("extra/python312-perfmap.perf-31813.map")).unwrap(),
        );
    }
    let options = LoadOptions {
        resolver: Some(r),
        symbolize,
        unknown_names: if symbolize {
            UnknownNames::Unknown
        } else {
            UnknownNames::ModuleOffset
        },
        inline_frames: InlineFrames::Unwound,
        ..LoadOptions::default()
    };
    load_profile(&std::fs::read(file).unwrap(), &[], options)
        .unwrap()
        .0
}

/// Each sample's folded line (comm first), in sample order.
fn sample_lines(p: &Profile) -> Vec<String> {
    (0..p.samples.len())
        .map(|i| {
            let s = p.samples.get(i).unwrap();
            let mut line = p.thread_name(s.thread).replace(' ', "_");
            let mut frames: Vec<_> = p.stacks.frames_leaf_first(s.stack).collect();
            frames.reverse();
            for f in frames {
                line.push(';');
                line.push_str(
                    &p.frame_func(f)
                        .map_or("[unknown]", |func| p.func_name(func))
                        .replace(';', ":"),
                );
            }
            line
        })
        .collect()
}

/// The module paths of each sample's frames, in sample order.
fn sample_modules(p: &Profile) -> Vec<Vec<(String, Option<Vec<u8>>)>> {
    (0..p.samples.len())
        .map(|i| {
            let s = p.samples.get(i).unwrap();
            p.stacks
                .frames_leaf_first(s.stack)
                .filter_map(|f| p.frames.get(f)?.module)
                .filter_map(|m| p.modules.get(m))
                .map(|m| (p.strings.get(m.path).to_owned(), m.build_id.clone()))
                .collect()
        })
        .collect()
}

/// Whether perf's binary for a module is on this machine (same build id when one is recorded).
fn available(path: &str, build_id: Option<&[u8]>, cache: &mut HashMap<String, bool>) -> bool {
    if !path.starts_with('/') || path.starts_with("/tmp/perf-") || path.starts_with("/memfd:") {
        return true; // kernel, [vdso], JIT maps: no binary to miss
    }
    *cache
        .entry(path.to_owned())
        .or_insert_with(|| match std::fs::read(path) {
            Ok(bytes) => build_id.is_none() || elf::build_id(&bytes).as_deref() == build_id,
            Err(_) => false,
        })
}

/// Known disagreements that are not about missing binaries: (file, a frame of the stack, why).
const KNOWN_LIMITS: &[(&str, &str, &str)] = &[
    (
        "syswide-g",
        "<alloc::raw_vec::RawVec<rustc_attr_parsing::parser::PathParser<&rustc_ast::ast::Path>>>::grow_one",
        "librustc_driver has six identical-code aliases at 0x52067c2 (GLOBAL, same size); perf \
         picked `RawVec<&rustc_codegen_llvm::llvm::ffi::Value>>::grow_one`, not the longest name \
         its choose_best_symbol() rule says; both name the same code",
    ),
    (
    "python313-jit",
    "_dl_runtime_resolve_xsavec",
    "framehop cannot unwind _dl_runtime_resolve_xsavec, whose CFA is kept in rbx (framehop tracks \
     only rip/rsp/rbp); perf's libunwind restores every register and goes on to the callers",
)];

#[test]
fn collapse_equals_perf_folded_stacks() {
    let Some(shared) = shared() else {
        println!("skipped: no shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let gen = shared.join("corpus/gen");
    if !link_workloads(&gen) {
        println!(
            "skipped: cannot link /tmp/corpus-gen/workloads to {}",
            gen.join("workloads").display()
        );
        return;
    }
    if !system_libraries_match() {
        println!(
            "skipped: this machine's libc/ld.so are not the ones perf resolved the corpus with"
        );
        return;
    }
    let mut stems: Vec<String> = std::fs::read_dir(gen.join("oracle"))
        .unwrap()
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .to_str()?
                .strip_suffix(".folded.txt")
                .map(str::to_owned)
        })
        .filter(|s| gen.join(format!("{s}.data")).exists())
        .collect();
    stems.sort();
    assert!(stems.len() >= 15, "{stems:?}");
    let mut missing_cache = HashMap::new();
    let mut report = Vec::new();
    let mut unexplained = Vec::new();
    for stem in &stems {
        let file = gen.join(format!("{stem}.data"));
        let oracle = parse_folded(
            &std::fs::read_to_string(gen.join(format!("oracle/{stem}.folded.txt"))).unwrap(),
        );
        let ours = collapse(&file, &extra_args(stem, &gen));
        let total: u64 = oracle.values().sum();
        assert_eq!(ours.values().sum::<u64>(), total, "{stem}: sample count");
        // Multiset intersection, with our names cut as the oracle's were.
        let mut left = oracle.clone();
        let mut matched = 0;
        for (stack, n) in &ours {
            if let Some(o) = left.get_mut(&as_oracle_cut(stack)) {
                let m = (*o).min(*n);
                *o -= m;
                matched += m;
            }
        }
        // Explain every other sample: pair the library's per-sample stacks (the same code the
        // CLI runs) with the modules they go through.
        let (named, modules) = (
            load(&file, &gen, stem, true),
            load(&file, &gen, stem, false),
        );
        let lines = sample_lines(&named);
        let mods = sample_modules(&modules);
        assert_eq!(lines.len(), mods.len());
        let mut left = oracle.clone();
        let (mut missing_binary, mut known) = (0u64, 0u64);
        let through_missing: Vec<bool> = mods
            .iter()
            .map(|m| {
                m.iter()
                    .any(|(p, id)| !available(p, id.as_deref(), &mut missing_cache))
            })
            .collect();
        // Pair the samples that go through binaries we have first, so that a stack perf also
        // could not name (`rustc;[unknown]`) is not taken by one we merely lack the binary for.
        let order = (0..lines.len())
            .filter(|&i| !through_missing[i])
            .chain((0..lines.len()).filter(|&i| through_missing[i]));
        for i in order {
            let line = &lines[i];
            match left.get_mut(&as_oracle_cut(line)) {
                Some(n) if *n > 0 => *n -= 1,
                _ => {
                    if through_missing[i] {
                        missing_binary += 1;
                    } else if KNOWN_LIMITS
                        .iter()
                        .any(|(s, frame, _)| s == stem && line.contains(frame))
                    {
                        known += 1;
                    } else {
                        let names: Vec<&str> = mods[i].iter().map(|(p, _)| p.as_str()).collect();
                        unexplained
                            .push(format!("{stem}: {line}  (modules, leaf first: {names:?})"));
                    }
                }
            }
        }
        report.push(format!(
            "{stem:18} {matched:5}/{total:5} samples equal ({:6.2}%), {missing_binary} through binaries missing here, {known} known differences",
            100.0 * matched as f64 / total.max(1) as f64
        ));
    }
    println!("{}", report.join("\n"));
    assert!(
        unexplained.is_empty(),
        "{} unexplained stacks:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
}

/// DWARF-mode files (`--call-graph dwarf`): at least 95% of samples equal perf's (task target).
#[test]
fn dwarf_mode_stacks_agree_with_perf() {
    let Some(shared) = shared() else {
        println!("skipped: no shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let gen = shared.join("corpus/gen");
    if !link_workloads(&gen) || !system_libraries_match() {
        println!("skipped: workloads or system libraries not as recorded");
        return;
    }
    let (mut matched, mut total) = (0u64, 0u64);
    for stem in [
        "dwarf",
        "kitchen-sink",
        "python312-perfmap",
        "python313-jit",
    ] {
        let oracle = parse_folded(
            &std::fs::read_to_string(gen.join(format!("oracle/{stem}.folded.txt"))).unwrap(),
        );
        let ours = collapse(&gen.join(format!("{stem}.data")), &extra_args(stem, &gen));
        let m: u64 = oracle
            .iter()
            .map(|(s, n)| (*n).min(ours.get(s).copied().unwrap_or(0)))
            .sum();
        let t: u64 = oracle.values().sum();
        println!("{stem:18} {m}/{t}");
        matched += m;
        total += t;
    }
    println!("dwarf-mode total: {matched}/{total}");
    assert!(matched * 100 >= total * 95, "{matched}/{total}");
    assert!(
        matched >= total - 1,
        "only the known _dl_runtime_resolve_xsavec sample differs: {matched}/{total}"
    );
}

/// Only the perf archive (no local binaries: `--symfs` pointing nowhere) names fp-callchain's
/// user frames as perf did.
#[test]
fn archive_alone_gives_perfs_user_names() {
    let Some(shared) = shared() else {
        println!("skipped: no shared corpus (set PERFSCOPE_SHARED)");
        return;
    };
    let gen = shared.join("corpus/gen");
    let oracle =
        parse_folded(&std::fs::read_to_string(gen.join("oracle/fp-callchain.folded.txt")).unwrap());
    let archive = gen
        .join("extra/fp-callchain.data.tar.bz2")
        .display()
        .to_string();
    let kallsyms = gen.join("extra/kallsyms.gz").display().to_string();
    // No build-id cache either (this machine's ~/.debug may hold the recorded binaries).
    let args: Vec<String> = [
        "--symfs",
        "/nonexistent",
        "--buildid-dir",
        "/nonexistent",
        "--archive",
        &archive,
        "--kallsyms",
        &kallsyms,
    ]
    .map(String::from)
    .to_vec();
    let ours = collapse(&gen.join("fp-callchain.data"), &args);
    assert_eq!(ours, oracle);
    // Without the archive nothing in user space has a name.
    let bare = collapse(
        &gen.join("fp-callchain.data"),
        &["--symfs", "/nonexistent", "--buildid-dir", "/nonexistent"].map(String::from),
    );
    assert!(bare.keys().all(|s| !s.contains("__libc_start_call_main")));
    assert!(bare.keys().any(|s| s.starts_with("mt;[unknown]")));
}
