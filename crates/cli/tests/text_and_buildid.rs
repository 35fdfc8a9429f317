//! `perfscope` on `perf script` text and folded stacks (perf's oracles as input), and symbol
//! lookup in perf's build-id cache (`--buildid-dir`, `$HOME/.debug`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use perfscope_analysis::symbols::archive::build_id_hex;
use perfscope_analysis::symbols::elf::build_id;

/// Runs perfscope with `HOME` set to `home`; (exit code, stdout, stderr).
fn run(home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_perfscope"))
        .args(args)
        .env("HOME", home)
        .env_remove("PERF_BUILDID_DIR")
        .output()
        .expect("run perfscope");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("perfscope-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn sorted(text: &str) -> Vec<&str> {
    let mut v: Vec<&str> = text.lines().collect();
    v.sort_unstable();
    v
}

/// Folded stacks (`stack count` lines) as counts by stack, with a PLT entry's frame (`name@plt`)
/// and `_init` made one frame. The workload `mt` has a classic lazy PLT right after `.init`,
/// and its `_init` has size 0 in `.symtab`. perf 6.1 extends such a symbol to the next one
/// before it adds the `@plt` symbols, so `_init` overlaps the whole PLT. Its lookup then
/// returns whichever of the overlapping symbols it meets first in its tree: a sample at 0x1036
/// in `_exit`'s entry printed as `_init+0x36`, where perfscope says `_exit@plt` (the entry's
/// own name, which perf gives the same address when the tree meets it first). A recording
/// only rarely has a sample in the PLT.
fn plt_alike(folded: &str) -> std::collections::BTreeMap<String, u64> {
    let mut counts = std::collections::BTreeMap::new();
    for line in folded.lines() {
        let (stack, count) = line.rsplit_once(' ').expect("a count");
        let stack: Vec<&str> = stack
            .split(';')
            .map(|f| {
                if f == "_init" || f.ends_with("@plt") {
                    "[_init or @plt]"
                } else {
                    f
                }
            })
            .collect();
        *counts.entry(stack.join(";")).or_insert(0) += count.parse::<u64>().expect("a count");
    }
    counts
}

#[test]
fn collapse_of_perf_script_text_is_perfs_folded_oracle() {
    let Some(root) = common::corpus_root() else {
        return;
    };
    let oracle = root.join("gen/oracle");
    let home = temp_dir("text-home");
    let script = oracle.join("fp-callchain.script.txt");
    let folded = std::fs::read_to_string(oracle.join("fp-callchain.folded.txt")).unwrap();
    let (code, out, err) = run(&home, &["collapse", script.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(sorted(&out), sorted(&folded));
    // Folded stacks in, folded stacks out.
    let (code, out, err) = run(
        &home,
        &[
            "collapse",
            oracle.join("fp-callchain.folded.txt").to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, folded);
    // report: the leaf with the most samples and its count, from the folded oracle.
    let mut by_leaf: std::collections::BTreeMap<&str, u64> = std::collections::BTreeMap::new();
    for l in folded.lines() {
        let (stack, n) = l.rsplit_once(' ').unwrap();
        *by_leaf
            .entry(stack.rsplit(';').next().unwrap())
            .or_default() += n.parse::<u64>().unwrap();
    }
    let (top, n) = by_leaf.iter().max_by_key(|(_, &n)| n).unwrap();
    let (code, out, err) = run(&home, &["report", "--samples", script.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let row = out
        .lines()
        .find(|l| l.split_whitespace().nth(3) == Some(top))
        .unwrap_or_else(|| panic!("{top} not in\n{out}"));
    assert_eq!(
        row.split_whitespace().nth(2),
        Some(n.to_string().as_str()),
        "{row}: expected {n} samples"
    );
    // The --pid filter applies to text input too.
    let (code, out, _) = run(&home, &["collapse", "--pid", "1", script.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (0, ""));
    let svg = home.join("f.svg");
    let (code, _, err) = run(
        &home,
        &[
            "flamegraph",
            "-o",
            svg.to_str().unwrap(),
            script.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(&svg).unwrap().contains("worker"));
    let (code, out, err) = run(
        &home,
        &[
            "export",
            "--format",
            "speedscope",
            "-o",
            "-",
            script.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"worker\""), "{}", &out[..out.len().min(300)]);
    let _ = std::fs::remove_dir_all(&home);
}

/// Copies `workloads/mt` into a build-id cache laid out by `layout`; checks its functions are
/// named only with the cache (the recorded path is hidden by `--symfs`).
#[test]
fn binaries_are_found_in_the_build_id_cache() {
    let Some(root) = common::corpus_root() else {
        return;
    };
    let data = root.join("gen/fp-callchain.data");
    let mt = std::fs::read(root.join("gen/workloads/mt")).unwrap();
    let id = build_id_hex(&build_id(&mt).unwrap());
    let recorded = "/tmp/corpus-gen/workloads/mt";
    let home = temp_dir("buildid-home");
    let empty = home.join("nothing-here");
    let args = |extra: &[&str]| {
        let mut v = vec![
            "collapse".to_owned(),
            "--symfs".into(),
            empty.display().to_string(),
        ];
        v.extend(extra.iter().map(|s| (*s).to_owned()));
        v.push(data.display().to_string());
        v
    };
    let collapse = |home: &Path, extra: &[&str]| {
        let a = args(extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let (code, out, err) = run(home, &a);
        assert!(code == 0 || !err.is_empty(), "{err}");
        out
    };
    // perf's folded oracle has these frames of mt: worker, top, leaf.
    let oracle = std::fs::read_to_string(root.join("gen/oracle/fp-callchain.folded.txt")).unwrap();
    assert!(oracle.contains(";worker;top;leaf "));
    assert!(
        !collapse(&home, &[]).contains(";worker;top;leaf"),
        "found without a cache"
    );

    // `--buildid-dir DIR` with DIR/.build-id/xx/yyyy…/elf.
    let cache = home.join("cache");
    let by_id = cache.join(".build-id").join(&id[..2]).join(&id[2..]);
    std::fs::create_dir_all(&by_id).unwrap();
    std::fs::write(by_id.join("elf"), &mt).unwrap();
    assert!(
        collapse(&home, &["--buildid-dir", cache.to_str().unwrap()]).contains(";worker;top;leaf")
    );

    // `$HOME/.debug/<path>/<build id>/elf`.
    let by_path = home
        .join(".debug")
        .join(recorded.trim_start_matches('/'))
        .join(&id);
    std::fs::create_dir_all(&by_path).unwrap();
    std::fs::write(by_path.join("elf"), &mt).unwrap();
    assert!(collapse(&home, &[]).contains(";worker;top;leaf"));

    // A cached file with another build id is not used.
    std::fs::write(
        by_path.join("elf"),
        std::fs::read(root.join("gen/workloads/mt-nopie")).unwrap(),
    )
    .unwrap();
    assert!(!collapse(&home, &[]).contains(";worker;top;leaf"));
    let _ = std::fs::remove_dir_all(&home);
}

/// A recording made here, now: perfscope reads the running kernel's /proc/kallsyms (no
/// `--kallsyms`) and the local binaries as perf does, so collapsing the perf.data gives the
/// same folded stacks as collapsing `perf script`'s text of it. Skips without perf or root.
#[test]
fn fresh_recording_matches_its_perf_script_text() {
    let Some(root) = common::corpus_root() else {
        return;
    };
    let dir = temp_dir("fresh");
    let data = dir.join("k.data");
    let mt = root.join("gen/workloads/mt");
    let rec = Command::new("perf")
        .args([
            "record",
            "-q",
            "-o",
            data.to_str().unwrap(),
            "-e",
            "cpu-clock",
            "-g",
            "--",
            mt.to_str().unwrap(),
            "2",
            "1",
        ])
        .output();
    let kallsyms = std::fs::read_to_string("/proc/kallsyms").unwrap_or_default();
    let visible = kallsyms.lines().any(|l| !l.starts_with("0000000000000000"));
    match rec {
        Ok(o) if o.status.success() && visible => {}
        _ => {
            eprintln!("SKIPPED: perf record failed or /proc/kallsyms has no addresses here");
            return;
        }
    }
    let script = Command::new("perf")
        .args(["script", "-i", data.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(script.status.success());
    let text = dir.join("k.script");
    std::fs::write(&text, &script.stdout).unwrap();
    let (code, from_data, err) = run(&dir, &["collapse", data.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, from_text, err) = run(&dir, &["collapse", text.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(plt_alike(&from_data), plt_alike(&from_text));
    // Other field sets perf script prints (no time, tid only, period, symoff, srcline lines).
    for fields in [
        "comm,pid,tid,event,ip,sym,dso",
        "comm,tid,period,event,ip,sym,dso",
        "comm,tid,time,ip,sym",
        "comm,pid,tid,time,period,event,ip,sym,symoff,dso,srcline",
    ] {
        let out = Command::new("perf")
            .args(["script", "-i", data.to_str().unwrap(), "-F", fields])
            .output()
            .unwrap();
        assert!(
            out.status.success() && !out.stdout.is_empty(),
            "perf script -F {fields}"
        );
        std::fs::write(&text, &out.stdout).unwrap();
        let (code, folded, err) = run(&dir, &["collapse", text.to_str().unwrap()]);
        assert_eq!(code, 0, "-F {fields}: {err}");
        assert_eq!(plt_alike(&folded), plt_alike(&from_data), "-F {fields}");
    }
    // Kernel frames are named (perf script names them from the same /proc/kallsyms).
    let script = String::from_utf8_lossy(&script.stdout).into_owned();
    let kernel_sym = script
        .lines()
        .find(|l| l.ends_with("([kernel.kallsyms])") && !l.contains("[unknown]"))
        .expect("a named kernel frame");
    let name = kernel_sym
        .split_whitespace()
        .nth(1)
        .unwrap()
        .split("+0x")
        .next()
        .unwrap();
    assert!(from_data.contains(&format!(";{name}")), "{name} missing");
    let _ = std::fs::remove_dir_all(&dir);
}
