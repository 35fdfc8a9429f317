//! `perfscope info --json` on every `gen` and `bigendian` corpus file gives the hostname, os
//! release, arch, perf version, CPUs and event names that `perf report --header-only` printed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::*;

/// The value of `# key : value` in perf's header output.
fn header_value(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let rest = l.strip_prefix("# ")?;
        let (k, v) = rest.split_once(" : ")?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

#[test]
fn info_json_matches_perf_header() {
    let Some(root) = corpus_root() else { return };
    let mut checked = 0;
    let mut failures = Vec::new();
    for f in corpus_files(&root)
        .into_iter()
        .filter(|f| f.set != "public")
    {
        let oracle = std::fs::read_to_string(format!("{}.header.txt", f.oracle.display()))
            .unwrap_or_default();
        if oracle.trim().is_empty() {
            continue;
        }
        let (code, stdout, stderr) =
            perfscope(&["info".as_ref(), "--json".as_ref(), f.path.as_os_str()]);
        let json: serde_json::Value = match serde_json::from_str(&stdout) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!(
                    "{}: exit {code}, bad JSON {e}: {stderr}",
                    f.manifest_name
                ));
                continue;
            }
        };
        for (key, field) in [
            ("hostname", "hostname"),
            ("os release", "os_release"),
            ("arch", "arch"),
            ("perf version", "perf_version"),
            ("nrcpus online", "nr_cpus_online"),
            ("nrcpus avail", "nr_cpus_available"),
            ("cpudesc", "cpu_desc"),
        ] {
            let want = header_value(&oracle, key);
            let got = match &json[field] {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Number(n) => Some(n.to_string()),
                _ => None,
            };
            if want != got {
                failures.push(format!(
                    "{}: {key}: perf {want:?}, perfscope {got:?}",
                    f.manifest_name
                ));
            }
        }
        // perf prints the command line with a space after every argument.
        let want_cmd = header_value(&oracle, "cmdline");
        let got_cmd = json["cmdline"].as_str().map(str::to_string);
        if want_cmd.as_deref().map(str::trim_end) != got_cmd.as_deref() {
            failures.push(format!(
                "{}: cmdline: perf {want_cmd:?}, perfscope {got_cmd:?}",
                f.manifest_name
            ));
        }
        let want_events: Vec<String> = oracle
            .lines()
            .filter_map(|l| {
                l.strip_prefix("# event : name = ")?
                    .split(',')
                    .next()
                    .map(str::to_string)
            })
            .collect();
        let got_events: Vec<String> = json["events"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e["name"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if want_events != got_events {
            failures.push(format!(
                "{}: events: perf {want_events:?}, perfscope {got_events:?}",
                f.manifest_name
            ));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 40, "only {checked} files checked");
}
