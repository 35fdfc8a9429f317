//! The lanes as a list for assistive technology and tests (the canvas draws them): a thread's
//! name, pid/tid and samples, a CPU's samples.
//!
//! A system-wide recording has thousands of lanes (20 100 in a 4 GB one), and the list is made
//! each time the timeline is shown. As yew elements, styled and laid out like any others, they
//! took that recording's tab switch to 0.9-1.6 s: ~0.4 s making the elements, ~1 s of style
//! and layout, 0.1 s removing them again. So the list is one HTML text set on its element, and
//! it holds the first [`MAX_LISTED`] thread lanes (the timeline's order: the busiest processes
//! first) and an item saying how many more there are. (`content-visibility: auto` would have
//! let the browser skip its layout, but Chromium then leaves the items out of the
//! accessibility tree.)

use std::fmt::Write;

use yew::prelude::*;

use crate::protocol::{Overview, ProfileData};
use crate::state::shared::Shared;

/// Thread lanes listed at most (~0.1 s of the page's time to make, style and lay out).
pub const MAX_LISTED: usize = 2000;

/// Properties of [`LaneList`].
#[derive(Properties, PartialEq)]
pub struct LaneListProps {
    /// The profile.
    pub profile: Shared<ProfileData>,
}

/// A visually hidden list of the timeline's lanes.
#[function_component(LaneList)]
pub fn lane_list(props: &LaneListProps) -> Html {
    let list = use_node_ref();
    {
        let list = list.clone();
        // Filled once per profile (yew leaves the children of an element it has none for).
        use_effect_with(props.profile.clone(), move |profile| {
            if let Some(element) = list.cast::<web_sys::Element>() {
                element.set_inner_html(&lane_items(&profile.overview, MAX_LISTED));
            }
        });
    }
    html! {
        <ol ref={list} class="visually-hidden" data-field="lanes" aria-label="Threads and CPUs" />
    }
}

/// The list's items as HTML: the first `max` threads', how many more there are, the CPUs'.
fn lane_items(o: &Overview, max: usize) -> String {
    let listed = o.threads.len().min(max);
    let mut out = String::with_capacity(listed.saturating_mul(160));
    for (i, t) in o.threads.iter().take(listed).enumerate() {
        let _ = write!(
            out,
            r#"<li data-lane="{i}" data-pid="{}" data-tid="{}" data-name=""#,
            t.pid, t.tid
        );
        push_escaped(&mut out, &t.name);
        let _ = write!(out, r#"" data-samples="{}">"#, t.samples);
        push_escaped(&mut out, &t.name);
        let _ = write!(out, " {}/{}: {} samples</li>", t.pid, t.tid, t.samples);
    }
    let more = o.threads.len() - listed;
    if more > 0 {
        let samples: u64 = o.threads.iter().skip(listed).map(|t| t.samples).sum();
        let threads = if more == 1 { "thread" } else { "threads" };
        let _ = write!(
            out,
            r#"<li data-more="{more}" data-samples="{samples}">{more} more {threads}: {samples} samples (not listed; the timeline draws them)</li>"#
        );
    }
    for c in &o.cpus {
        let _ = write!(
            out,
            r#"<li data-cpu="{}" data-samples="{}">CPU {}: {} samples</li>"#,
            c.cpu, c.samples, c.cpu, c.samples
        );
    }
    out
}

/// `text` as HTML text or a quoted attribute's value.
fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{CpuInfo, ThreadInfo};

    #[test]
    fn lane_items_are_escaped_html_with_the_lanes_fields() {
        let o = Overview {
            threads: vec![
                ThreadInfo {
                    pid: 7,
                    tid: 9,
                    name: r#"a<b>&"c'"#.into(),
                    samples: 12,
                    ..ThreadInfo::default()
                },
                ThreadInfo {
                    pid: 1,
                    tid: 1,
                    name: "init".into(),
                    samples: 3,
                    ..ThreadInfo::default()
                },
            ],
            cpus: vec![CpuInfo {
                cpu: 2,
                samples: 15,
            }],
            ..Overview::default()
        };
        assert_eq!(
            lane_items(&o, 2),
            concat!(
                r#"<li data-lane="0" data-pid="7" data-tid="9" data-name="a&lt;b&gt;&amp;&quot;c&#39;" data-samples="12">"#,
                "a&lt;b&gt;&amp;&quot;c&#39; 7/9: 12 samples</li>",
                r#"<li data-lane="1" data-pid="1" data-tid="1" data-name="init" data-samples="3">init 1/1: 3 samples</li>"#,
                r#"<li data-cpu="2" data-samples="15">CPU 2: 15 samples</li>"#,
            )
        );
        // Past `max` threads, one item for the rest.
        assert_eq!(
            lane_items(&o, 1),
            concat!(
                r#"<li data-lane="0" data-pid="7" data-tid="9" data-name="a&lt;b&gt;&amp;&quot;c&#39;" data-samples="12">"#,
                "a&lt;b&gt;&amp;&quot;c&#39; 7/9: 12 samples</li>",
                r#"<li data-more="1" data-samples="3">1 more thread: 3 samples (not listed; the timeline draws them)</li>"#,
                r#"<li data-cpu="2" data-samples="15">CPU 2: 15 samples</li>"#,
            )
        );
    }
}
