//! Folded stacks, as `inferno-collapse-perf` and `stackcollapse-perf.pl` write them: one
//! `comm;root;…;leaf count` line per distinct (command, stack), the command name first with
//! spaces turned into `_`, `;` inside frame names turned into `:`, lines in byte order
//! (`LC_ALL=C sort`). A sample without frames gives a line with the command alone.

use rustc_hash::FxHashMap;

use crate::flame_graph::WeightKind;
use crate::ids::{StackIndex, StringIndex};
use crate::profile::Profile;
use crate::samples::SampleFilter;

/// Options for [`folded_lines`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoldedOptions {
    /// Put the command name (comm) first, as perf's collapsers do.
    pub include_comm: bool,
    /// Count samples or sum periods.
    pub weight: WeightKind,
}

impl Default for FoldedOptions {
    fn default() -> Self {
        FoldedOptions { include_comm: true, weight: WeightKind::Samples }
    }
}

fn push_frame(line: &mut String, name: &str) {
    if !line.is_empty() {
        line.push(';');
    }
    if name.contains(';') {
        line.extend(name.chars().map(|c| if c == ';' { ':' } else { c }));
    } else {
        line.push_str(name);
    }
}

/// The folded lines (`"stack"`, count) of the samples that pass `filter`, sorted by the bytes of
/// the whole output line.
pub fn folded_lines(profile: &Profile, filter: &SampleFilter, options: FoldedOptions) -> Vec<(String, u64)> {
    let all = *filter == SampleFilter::all();
    let mut counts: FxHashMap<(Option<StringIndex>, Option<StackIndex>), u64> = FxHashMap::default();
    let s = &profile.samples;
    for i in 0..s.len() {
        if !all && !filter.matches(s, &profile.threads, i) {
            continue;
        }
        let (Some(&thread), Some(&stack), Some(&period)) = (s.thread.get(i), s.stack.get(i), s.period.get(i)) else {
            continue;
        };
        let comm = if options.include_comm { profile.threads.get(thread).map(|t| t.name) } else { None };
        let w = match options.weight {
            WeightKind::Samples => 1,
            WeightKind::Period => period,
        };
        let c = counts.entry((comm, stack)).or_default();
        *c = c.saturating_add(w);
    }
    let mut comms: FxHashMap<StringIndex, String> = FxHashMap::default();
    let mut frames = Vec::new();
    let mut lines: Vec<(String, u64)> = Vec::with_capacity(counts.len());
    for ((comm, stack), count) in counts {
        let mut line = String::with_capacity(128);
        if let Some(comm) = comm {
            let name = comms.entry(comm).or_insert_with(|| profile.strings.get(comm).replace(' ', "_"));
            line.push_str(name);
        }
        frames.clear();
        frames.extend(profile.stacks.frames_leaf_first(stack));
        for &f in frames.iter().rev() {
            let name = profile.frame_func(f).map_or("[unknown]", |func| profile.func_name(func));
            push_frame(&mut line, name);
        }
        lines.push((line, count));
    }
    // Different stacks can print the same: two addresses of one function, or frames whose
    // names only differ before `;` is replaced. Lines are merged by their text.
    lines.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut merged: Vec<(String, u64)> = Vec::with_capacity(lines.len());
    for (line, count) in lines {
        match merged.last_mut() {
            Some(last) if last.0 == line => last.1 = last.1.saturating_add(count),
            _ => merged.push((line, count)),
        }
    }
    // Then in the byte order of the whole `stack count` line (`LC_ALL=C sort`): append the
    // count, sort (nearly sorted already), cut it off again.
    let mut with_counts: Vec<(String, u64, usize)> = merged
        .into_iter()
        .map(|(mut line, count)| {
            let len = line.len();
            line.push(' ');
            line.push_str(&count.to_string());
            (line, count, len)
        })
        .collect();
    with_counts.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    with_counts
        .into_iter()
        .map(|(mut line, count, len)| {
            line.truncate(len);
            (line, count)
        })
        .collect()
}

/// The folded text: one `stack count` line each, newline-terminated.
pub fn to_folded_text(profile: &Profile, filter: &SampleFilter, options: FoldedOptions) -> String {
    let mut out = String::new();
    for (stack, count) in folded_lines(profile, filter, options) {
        out.push_str(&stack);
        out.push(' ');
        out.push_str(&count.to_string());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
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
            to_folded_text(&p, &SampleFilter::all(), FoldedOptions { include_comm: false, weight: WeightKind::Period }),
            "main 40\nmain;a:b 40\nmain;c 20\n"
        );
        let mut p = p;
        let spaced = p.strings.intern("my app").unwrap();
        p.threads.set_name(crate::ids::ThreadIndex(0), spaced);
        assert_eq!(
            to_folded_text(&p, &SampleFilter { tids: vec![1], ..Default::default() }, FoldedOptions::default()),
            "my_app;main;a:b 2\nmy_app;main;c 1\nother;main 1\n"
        );
    }
}
