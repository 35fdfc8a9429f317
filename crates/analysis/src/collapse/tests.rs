use super::*;
use crate::builder::{InlineFrames, UnknownNames};
use crate::export::folded::{write_folded, FoldedOptions};
use crate::load::{load_profile, LoadOptions};
use crate::samples::SampleFilter;
use crate::symbols::resolver::SymbolResolver;

/// The general path, as `perfscope collapse --no-symbols` runs it.
pub(crate) fn general(data: &[u8]) -> Vec<u8> {
    let options = LoadOptions {
        resolver: Some(SymbolResolver::new()),
        symbolize: false,
        unknown_names: UnknownNames::ModuleOffset,
        unwind: true,
        inline_frames: InlineFrames::Unwound,
        ..LoadOptions::default()
    };
    let (profile, _) = load_profile(data, &[], options).unwrap();
    let mut out = Vec::new();
    write_folded(
        &profile,
        &SampleFilter::all(),
        FoldedOptions::default(),
        &mut out,
    )
    .unwrap();
    out
}

fn fast(data: &[u8]) -> Vec<u8> {
    let c = collapse(data, &[]).unwrap().unwrap();
    let mut out = Vec::new();
    c.write(&mut out).unwrap();
    out
}

fn test_data(name: &str) -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/").to_owned() + name)
        .unwrap()
}

#[test]
fn the_fast_path_prints_what_the_general_path_prints_for_the_test_files() {
    for name in [
        "example.data",
        "pipe.data",
        "two-events.data",
        "heatmap.data",
    ] {
        let data = test_data(name);
        let want = general(&data);
        assert!(!want.is_empty(), "{name}: no lines");
        assert_eq!(
            String::from_utf8_lossy(&fast(&data)),
            String::from_utf8_lossy(&want),
            "{name}"
        );
    }
}

fn sorted_lines(texts: &Texts, lines: &[(&[&str], u64)]) -> String {
    let mut t = Texts::default();
    let mut l = Lines::default();
    for (tokens, count) in lines {
        let ids: Vec<u32> = tokens.iter().map(|s| t.intern(s.as_bytes())).collect();
        l.count(&ids, *count);
    }
    let _ = texts;
    let mut out = Vec::new();
    l.write(&t, false, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn lines_sort_by_the_bytes_of_the_whole_line() {
    let lines: &[(&[&str], u64)] = &[
        (&["a", "bc"], 1),
        (&["a", "b"], 2),
        (&["a", "b", "c"], 3),
        (&["a b"], 4),
        (&["a"], 10),
        (&["a"], 1),
        (&["a", "b"], 9),
        (&["ab"], 5),
        (&[""], 6),
        (&["", "x"], 7),
    ];
    let got = sorted_lines(&Texts::default(), lines);
    // What `LC_ALL=C sort` gives for the same lines.
    let mut want: Vec<String> = [
        "a;bc 1", "a;b 11", "a;b;c 3", "a b 4", "a 11", "ab 5", " 6", ";x 7",
    ]
    .iter()
    .map(|s| format!("{s}\n"))
    .collect();
    want.sort();
    assert_eq!(got, want.concat());
}

#[test]
fn the_time_order_made_on_either_thread_gives_the_same_lines() {
    for name in ["example.data", "pipe.data", "two-events.data"] {
        let data = test_data(name);
        let want = fast(&data);
        for on_reader in [false, true] {
            let c = threaded(&data, &[], &|_| on_reader).unwrap().unwrap();
            let mut out = Vec::new();
            c.write(&mut out).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(&want),
                "{name}, ordered on the reading thread: {on_reader}"
            );
            assert_eq!(c.diagnostics.samples, c.diagnostics.kept_samples);
        }
    }
}
