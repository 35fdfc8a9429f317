//! [`EventMap`]: attr index (the summary's event order, used by the protocol) ↔ the profile's
//! event index (`load_profile` adds events in order of first use).

use perfscope_analysis::ids::EventIndex;
use perfscope_analysis::profile::Profile;
use perfscope_analysis::summary::Summary;

/// Both directions of the event numbering.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventMap {
    /// Per attr: its profile event, when it has samples.
    pub to_profile: Vec<Option<EventIndex>>,
    /// Per profile event: its attr.
    pub to_attr: Vec<u32>,
}

impl EventMap {
    /// Matches profile events to attrs by name (the profile names events as the summary does);
    /// attrs with one name are matched in order.
    pub fn new(summary: &Summary, profile: &Profile) -> EventMap {
        let mut to_profile = vec![None; summary.events.len()];
        let mut to_attr = Vec::with_capacity(profile.events.len());
        for i in 0..profile.events.len() {
            let e = EventIndex(i as u32);
            let name = profile.event_name(e);
            let attr = summary
                .events
                .iter()
                .enumerate()
                .position(|(j, s)| s.name == name && to_profile.get(j) == Some(&None))
                .unwrap_or_else(|| {
                    // Not in the summary (should not happen): a slot of its own.
                    to_profile.push(None);
                    to_profile.len() - 1
                });
            if let Some(slot) = to_profile.get_mut(attr) {
                *slot = Some(e);
            }
            to_attr.push(attr as u32);
        }
        EventMap {
            to_profile,
            to_attr,
        }
    }

    /// Number of attrs (events in protocol numbering).
    pub fn attrs(&self) -> usize {
        self.to_profile.len()
    }

    /// The attr of a profile event.
    pub fn attr(&self, e: EventIndex) -> u32 {
        self.to_attr.get(e.index()).copied().unwrap_or(e.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfscope_analysis::summary::EventSummary;

    #[test]
    fn maps_by_name_in_order() {
        let summary = Summary {
            events: ["cycles", "task-clock", "cycles"]
                .iter()
                .map(|n| EventSummary {
                    name: (*n).into(),
                    ..EventSummary::default()
                })
                .collect(),
            ..Summary::default()
        };
        let mut p = Profile::new();
        p.add_event("task-clock").unwrap();
        p.add_event("cycles").unwrap();
        p.add_event("cycles").unwrap();
        let m = EventMap::new(&summary, &p);
        assert_eq!(m.to_attr, vec![1, 0, 2]);
        assert_eq!(
            m.to_profile,
            vec![
                Some(EventIndex(1)),
                Some(EventIndex(0)),
                Some(EventIndex(2))
            ]
        );
        assert_eq!(m.attr(EventIndex(0)), 1);
    }
}
