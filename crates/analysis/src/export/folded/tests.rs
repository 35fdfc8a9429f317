use super::*;
use crate::ids::ThreadIndex;
use crate::samples::Sample;
use crate::text_samples::profile_from_text_samples;

#[test]
fn folded_like_stackcollapse_perf() {
    let p = profile_from_text_samples(
        "
comm:   my_app my_app my_app other
period: 10     20     30     40
main    main   main   main
a;b     c      a;b
",
    )
    .unwrap();
    // The DSL splits on whitespace, so "my app" is spelled my_app here; spaces are tested
    // through a renamed thread below.
    assert_eq!(
        to_folded_text(&p, &SampleFilter::all(), FoldedOptions::default()),
        "my_app;main;a:b 2\nmy_app;main;c 1\nother;main 1\n"
    );
    assert_eq!(
        to_folded_text(
            &p,
            &SampleFilter::all(),
            FoldedOptions {
                include_comm: false,
                weight: WeightKind::Period
            }
        ),
        "main 40\nmain;a:b 40\nmain;c 20\n"
    );
    let mut p = p;
    let spaced = p.strings.intern("my app").unwrap();
    p.threads.set_name(ThreadIndex(0), spaced);
    assert_eq!(
        to_folded_text(
            &p,
            &SampleFilter {
                tids: vec![1],
                ..Default::default()
            },
            FoldedOptions::default()
        ),
        "my_app;main;a:b 2\nmy_app;main;c 1\nother;main 1\n"
    );
}

/// The definition: every line built as a string (the command and the frames joined by `;`), lines that print the same merged, all sorted
/// by the bytes of `stack count`.
fn reference(profile: &Profile, options: FoldedOptions) -> String {
    let mut merged: std::collections::BTreeMap<String, u64> = Default::default();
    let s = &profile.samples;
    for i in 0..s.len() {
        let mut parts = Vec::new();
        if options.include_comm {
            parts.push(
                profile
                    .thread_name(s.thread.get(i).copied().unwrap())
                    .replace(' ', "_"),
            );
        }
        let frames: Vec<_> = profile
            .stacks
            .frames_leaf_first(s.stack(i).unwrap())
            .collect();
        for f in frames.iter().rev() {
            parts.push(
                profile
                    .func_name(profile.frame_func(*f).unwrap())
                    .replace(';', ":"),
            );
        }
        let line = parts.join(";");
        let w = match options.weight {
            WeightKind::Samples => 1,
            WeightKind::Period => s.period(i).unwrap(),
        };
        *merged.entry(line).or_default() += w;
    }
    let mut lines: Vec<String> = merged
        .into_iter()
        .map(|(l, c)| format!("{l} {c}"))
        .collect();
    lines.sort();
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn tree_order_equals_sorting_whole_lines_for_names_that_prefix_each_other() {
    // Names that are prefixes of each other, hold ' ', ';' (printed ':'), bytes below and above
    // ' ' and ';', digits (like counts), the empty name, and two texts that print the same.
    let names = [
        "a", "a b", "a;b", "a:b", "a+x", "a0", "a 1", "a!", "a~", "", " ", "b", "b;", "0", "a 10",
    ];
    // Odd seeds: commands that print the same or hold `;` (merged command nodes); even seeds:
    // commands apart (stacks placed without lookups where frame texts are unique).
    let merging = ["sh", "s h", "s_h", "x;y", "x", ""];
    let apart = ["sh", "s h", "x", "y", "bash"];
    for seed in 1..200u64 {
        let comms: &[&str] = if seed % 2 == 1 { &merging } else { &apart };
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut p = Profile::new();
        let event = p.add_event("e").unwrap();
        let threads: Vec<ThreadIndex> = comms
            .iter()
            .enumerate()
            .map(|(i, c)| p.add_thread(1, i as u32, c).unwrap())
            .collect();
        let mut frames: Vec<_> = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let f = p.intern_func(n, None).unwrap();
                p.intern_frame(f, None, i as u64, 0).unwrap()
            })
            .collect();
        // Two more addresses of `a` and `b`: frames that print the same text.
        for (n, addr) in [("a", 100), ("b", 101)] {
            let f = p.intern_func(n, None).unwrap();
            frames.push(p.intern_frame(f, None, addr, 0).unwrap());
        }
        for _ in 0..40 {
            let depth = rng.next(4);
            let mut stack = None;
            for _ in 0..depth {
                stack = Some(
                    p.stacks
                        .intern(stack, frames[rng.next(frames.len())])
                        .unwrap(),
                );
            }
            let thread = threads[rng.next(threads.len())];
            let period = 1 + rng.next(12) as u64;
            p.push_sample(Sample {
                time: 0,
                thread,
                cpu: 0,
                event,
                stack,
                period,
            })
            .unwrap();
        }
        for options in [
            FoldedOptions::default(),
            FoldedOptions {
                include_comm: false,
                weight: WeightKind::Period,
            },
            FoldedOptions {
                include_comm: true,
                weight: WeightKind::Period,
            },
        ] {
            assert_eq!(
                to_folded_text(&p, &SampleFilter::all(), options),
                reference(&p, options),
                "seed {seed} {options:?}"
            );
        }
    }
}
