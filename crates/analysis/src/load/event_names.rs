//! Event names for the loader, from what the metadata and the records seen so far say — the
//! same sources, in the same order, as [`crate::summary::Summary`] (which reads the whole input
//! at once): an EVENT_UPDATE name, HEADER_EVENT_DESC (by sample id, else by position), the
//! tracing data for tracepoints (`sys:name`), else the name perf derives from the attr.

use perfscope_format::bytes::{until_nul, Bytes};
use perfscope_format::constants::attr_type;
use perfscope_format::features::event_desc::parse_event_desc;
use perfscope_format::features::tracing_data::{parse_tracing_data, MAGIC};
use perfscope_format::metadata::{Metadata, EVENT_UPDATE_NAME};
use perfscope_format::records::RawRecord;
use perfscope_format::HeaderFeature;

use crate::event_name::derived_name;

/// What naming the events needs, gathered while records stream by: feed it every record
/// with [`EventNames::observe`], ask [`EventNames::name`] at any time (the answer uses what was
/// seen so far).
///
/// ```
/// use perfscope_analysis::load::EventNames;
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/two-events.data")).unwrap();
/// let mut names = EventNames::default();
/// let meta = perfscope_format::walk::walk(&bytes, &[], |_, _, item| {
///     if let perfscope_format::walk::Item::Record(rec) = item {
///         names.observe(rec);
///     }
/// })
/// .unwrap();
/// let all: Vec<String> = (0..meta.attrs.len()).map(|i| names.name(&meta, i)).collect();
/// assert_eq!(all.len(), 2);
/// ```
#[derive(Debug, Default)]
pub struct EventNames {
    /// EVENT_UPDATE NAME records: (sample id, name).
    updates: Vec<(u64, String)>,
    /// Tracepoint ids and `sys:name` from a HEADER_TRACING_DATA record (pipe mode).
    record_tracepoints: Vec<(u64, String)>,
    /// The ids of each HEADER_ATTR record (pipe mode), in order. The metadata's ids also hold
    /// those of ID_INDEX records, whose `idx` perf reads as a per-CPU index, not an event.
    header_attr_ids: Vec<Vec<u64>>,
}

impl EventNames {
    /// Learns from a record (EVENT_UPDATE names, HEADER_TRACING_DATA tracepoint names);
    /// returns whether it was one of those.
    pub fn observe(&mut self, rec: &RawRecord<'_>) -> bool {
        match rec.type_() {
            perfscope_format::RecordType::EVENT_UPDATE => self.event_update(rec),
            perfscope_format::RecordType::HEADER_TRACING_DATA => self.tracing_data_record(rec),
            perfscope_format::RecordType::HEADER_ATTR => self.header_attr(rec),
            _ => return false,
        }
        true
    }

    /// A HEADER_ATTR record: the attr, then its ids.
    fn header_attr(&mut self, rec: &RawRecord<'_>) {
        let mut ids = Vec::new();
        if let Ok((_, len)) = perfscope_format::EventAttr::parse(&rec.body_bytes()) {
            let mut b = rec.body_bytes();
            if b.skip(len as usize, "attr").is_ok() {
                while let Ok(id) = b.read_u64("attr id") {
                    ids.push(id);
                }
            }
        }
        self.header_attr_ids.push(ids);
    }

    /// An EVENT_UPDATE record.
    fn event_update(&mut self, rec: &RawRecord<'_>) {
        let mut b = rec.body_bytes();
        if let (Ok(EVENT_UPDATE_NAME), Ok(id)) = (
            b.read_u64("event_update type"),
            b.read_u64("event_update id"),
        ) {
            let name = until_nul(b.remaining());
            self.updates
                .push((id, String::from_utf8_lossy(name).into_owned()));
        }
    }

    /// A HEADER_TRACING_DATA record: perf puts the trace data after the record (not counted in
    /// `header.size`), simpleperf inside it after the u32 size.
    fn tracing_data_record(&mut self, rec: &RawRecord<'_>) {
        let inside = rec.body.get(4..).filter(|b| b.starts_with(&MAGIC));
        let payload = match inside {
            Some(b) => Bytes::new(b, rec.offset + 12, rec.endian),
            None => Bytes::new(
                rec.payload,
                rec.offset + 8 + rec.body.len() as u64,
                rec.endian,
            ),
        };
        if let Ok(t) = parse_tracing_data(payload) {
            for e in &t.events {
                if let (Some(id), Some(name)) = (e.id, e.name) {
                    self.record_tracepoints
                        .push((id, format!("{}:{}", e.system, name)));
                }
            }
        }
    }

    /// The name of event `i` (attr order) of `meta`.
    /// The name of event `i` (attr order) of `meta`, as perf names it.
    pub fn name(&self, meta: &Metadata, i: usize) -> String {
        let Some(attr) = meta.attrs.get(i) else {
            return format!("event {i}");
        };
        let ids = match self.header_attr_ids.get(i) {
            Some(ids) if meta.pipe => ids.as_slice(),
            _ => attr.ids.as_slice(),
        };
        if let Some((_, name)) = self.updates.iter().rev().find(|(id, _)| ids.contains(id)) {
            return name.clone();
        }
        if let Some(b) = meta.feature(HeaderFeature::EVENT_DESC) {
            if let Ok(descs) = parse_event_desc(b) {
                let by_id = descs
                    .iter()
                    .find(|d| d.ids.iter().any(|id| ids.contains(id)));
                if let Some(d) = by_id.or_else(|| descs.get(i)) {
                    return d.name.to_string();
                }
            }
        }
        if attr.attr.type_ == attr_type::TRACEPOINT {
            let config = attr.attr.config;
            if let Some((_, name)) = self.record_tracepoints.iter().find(|(id, _)| *id == config) {
                return name.clone();
            }
            if let Some(b) = meta.feature(HeaderFeature::TRACING_DATA) {
                if let Ok(t) = parse_tracing_data(b) {
                    let named = t.events.iter().find_map(|e| {
                        e.name
                            .filter(|_| e.id == Some(config))
                            .map(|n| (e.system, n))
                    });
                    if let Some((system, name)) = named {
                        return format!("{system}:{name}");
                    }
                }
            }
        }
        derived_name(&attr.attr)
    }
}
