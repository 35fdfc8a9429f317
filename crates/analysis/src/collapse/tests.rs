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
            let c = threaded(&data, &[], &|_| on_reader, None).unwrap().unwrap();
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

#[test]
fn hex_keys_sort_like_the_bytes_of_their_strings() {
    let mut x = 7u64;
    let mut strings: Vec<(u128, Vec<u8>)> = Vec::new();
    for i in 0..3000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // Every length of hex digits, and small numbers that start each other ("12", "123").
        let n = if i % 3 == 0 { i } else { x >> (x % 64) };
        for sep in [b' ', b';'] {
            let mut s = format!("{n:x}").into_bytes();
            s.push(sep);
            strings.push((lines::hex_key(n, sep), s));
        }
    }
    let mut by_key = strings.clone();
    by_key.sort_by_key(|s| s.0);
    strings.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(
        by_key.iter().map(|s| &s.1).collect::<Vec<_>>(),
        strings.iter().map(|s| &s.1).collect::<Vec<_>>()
    );
}

/// A line's texts (a prefix and an offset, or a name) and its count.
type HexLine<'a> = (&'a [(&'a str, Option<u64>)], u64);

/// Lines of texts made as frame texts are (`prefix` + hex) and as names are, written; and the
/// same lines' text sorted by its bytes.
fn hex_lines(lines: &[HexLine<'_>]) -> (String, String) {
    let mut t = Texts::default();
    let mut l = Lines::default();
    let mut want = Vec::new();
    for (tokens, count) in lines {
        let ids: Vec<u32> = tokens
            .iter()
            .map(|&(text, n)| match n {
                Some(n) => {
                    let p = t.prefix(text.as_bytes());
                    t.intern_hex(p, n)
                }
                None => t.intern(text.as_bytes()),
            })
            .collect();
        l.count(&ids, *count);
        let texts: Vec<String> = tokens
            .iter()
            .map(|&(text, n)| match n {
                Some(n) => format!("{text}{n:x}"),
                None => text.to_owned(),
            })
            .collect();
        want.push(format!("{} {count}\n", texts.join(";")));
    }
    want.sort();
    let mut out = Vec::new();
    l.write(&t, true, &mut out).unwrap();
    (String::from_utf8(out).unwrap(), want.concat())
}

#[test]
fn lines_of_hex_texts_sort_by_their_bytes() {
    let libc = "libc.so.6+0x";
    let k = "[kernel.kallsyms]+0x";
    // Offsets whose digits start each other (12, 123, 12a), a prefix that is another's start
    // ("libc.so.6+0x" and "libc.so+0x"), addresses outside modules ("0x"), and names.
    let lines: &[HexLine<'_>] = &[
        (
            &[
                ("gzip", None),
                (libc, Some(0x12)),
                (k, Some(0xffff_ffff_8100_0000)),
            ],
            1,
        ),
        (
            &[
                ("gzip", None),
                (libc, Some(0x123)),
                (k, Some(0xffff_ffff_8100_0000)),
            ],
            2,
        ),
        (&[("gzip", None), (libc, Some(0x12a))], 3),
        (&[("gzip", None), (libc, Some(0x12))], 4),
        (&[("gzip", None), ("libc.so+0x", Some(0x5))], 5),
        (&[("gzip", None), ("0x", Some(0))], 6),
        (&[("gzip", None), ("0x", Some(0x10))], 7),
        (&[("gzip x", None), (libc, Some(0x1))], 8),
        (&[("sh", None), ("bpf_prog_1", None), (k, Some(0x9))], 9),
    ];
    let (got, want) = hex_lines(lines);
    assert_eq!(got, want);
    // A name that starts with a prefix sorts among its texts: the texts are sorted by their
    // bytes instead (the same order).
    let mut more = lines.to_vec();
    more.push((&[("gzip", None), ("libc.so.6+0x12b", None)], 10));
    let named = [("libc.so.6+0x1", None), (libc, Some(0x1))];
    more.push((&named, 11));
    let (got, want) = hex_lines(&more);
    assert_eq!(got, want);
}

#[test]
fn ranks_by_prefix_are_the_ranks_by_bytes() {
    let mut t = Texts::default();
    let mut x = 3u64;
    let prefixes = [
        "libc.so.6+0x",
        "libc.so+0x",
        "[kernel.kallsyms]+0x",
        "0x",
        "a b+0x",
    ];
    for i in 0..4000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let p = t.prefix(prefixes[(x % 5) as usize].as_bytes());
        // Small numbers, whose digits start each other's, and every length of digits.
        let n = if i % 2 == 0 { i % 300 } else { x >> (x % 64) };
        t.intern_hex(p, n);
        if i % 500 == 0 {
            t.intern(format!("name {i}").as_bytes());
            t.intern(b"a");
        }
    }
    for threads in [false, true] {
        let by_prefix = t
            .ranks_by_prefix(threads)
            .expect("no prefix is another's start");
        assert_eq!(by_prefix, t.ranks_by_bytes(threads), "threads: {threads}");
    }
    // A name that starts with a prefix would sort among its texts.
    t.intern(b"libc.so+0x1;x");
    assert_eq!(t.ranks_by_prefix(false), None);
}
