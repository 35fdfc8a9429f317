//! Exports: folded stacks (the input of inferno and FlameGraph.pl), a standalone SVG flame
//! graph, pprof's `profile.proto`, speedscope's JSON, and perfscope's own share file.

pub mod folded;
pub mod pprof;
pub mod share;
pub mod speedscope;
pub mod svg;

use crate::ids::EventIndex;
use crate::profile::Profile;

/// The events of the samples `kept`, in event order (each event marked, rather than every
/// sample's event listed and sorted).
pub(crate) fn events_used(profile: &Profile, kept: &[usize]) -> Vec<EventIndex> {
    let mut used = vec![false; profile.events.len()];
    for &i in kept {
        if let Some(u) = profile
            .samples
            .event(i)
            .and_then(|e| used.get_mut(e.index()))
        {
            *u = true;
        }
    }
    (0..used.len())
        .filter(|&e| used.get(e) == Some(&true))
        .map(|e| EventIndex(e as u32))
        .collect()
}
