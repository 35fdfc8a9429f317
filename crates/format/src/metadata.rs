//! What a reader must know before decoding records — the events (attrs and their ids) and the
//! header features — built the same way from a file's header sections and from the HEADER_ATTR,
//! HEADER_FEATURE and EVENT_UPDATE records of a pipe-mode stream.

use alloc::string::String;
use alloc::vec::Vec;

use crate::attr::EventAttr;
use crate::bytes::Bytes;
use crate::constants::{HeaderFeature, RecordType};
use crate::endian::Endianness;
use crate::error::Error;
use crate::error::Result;
use crate::features::RawStr;
use crate::file::{FileAttr, FileLayout, PerfFile, ReadAt};
use crate::layout::{EventIndex, EventTable};
use crate::records::{
    check_sample, check_sample_ids, parse_record, parse_record_into, parse_sample_brief, RawRecord,
    Record, SampleBrief, SampleIds,
};

/// A header feature's bytes with the absolute offset they were found at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureSection {
    /// Which feature.
    pub feature: HeaderFeature,
    /// Absolute offset of the first byte.
    pub offset: u64,
    /// The section (file mode) or the record payload after the feature id (pipe mode).
    pub bytes: Vec<u8>,
}

/// `PERF_EVENT_UPDATE__NAME`: the kind of EVENT_UPDATE record that carries an event name.
pub const EVENT_UPDATE_NAME: u64 = 2;

/// The events and features of a file or stream.
#[derive(Debug, Clone)]
pub struct Metadata {
    /// Byte order.
    pub endian: Endianness,
    /// Pipe mode.
    pub pipe: bool,
    /// The events, in file order.
    pub attrs: Vec<FileAttr>,
    /// Header features, in the order found.
    pub features: Vec<FeatureSection>,
    /// Event names from EVENT_UPDATE records, by sample id.
    pub update_names: Vec<(u64, String)>,
    /// How to route and lay out records: the events with their ids and groups, kept in step
    /// with `attrs` (HEADER_ATTR, ID_INDEX and GROUP_DESC update it).
    pub events: EventTable,
    /// The stream uses the pre-upstream Google pipe format (see
    /// [`crate::stream::StreamDecoder::legacy_google`]): records 69..=80 are header features.
    pub legacy_google: bool,
}

impl Metadata {
    /// The metadata of a file-mode perf.data.
    pub fn from_file(file: &PerfFile<'_>) -> Metadata {
        let features = file
            .feature_sections()
            .map(|(feature, b)| FeatureSection {
                feature,
                offset: b.offset(),
                bytes: b.remaining().to_vec(),
            })
            .collect();
        Metadata::from_parts(file.endian(), file.attrs.clone(), features)
    }

    /// The metadata of a file-mode perf.data read through random access: the feature sections
    /// of `layout` are read from `r`. A section that cannot be read is left out and its error
    /// returned with the metadata.
    pub fn from_layout(layout: &FileLayout, r: &mut impl ReadAt) -> (Metadata, Vec<Error>) {
        let mut errors = Vec::new();
        let mut features = Vec::new();
        for &(feature, section) in &layout.features {
            match r.read_at(section.offset, section.size) {
                Ok(bytes) => features.push(FeatureSection {
                    feature,
                    offset: section.offset,
                    bytes,
                }),
                Err(e) => errors.push(e),
            }
        }
        (
            Metadata::from_parts(layout.header.endian, layout.attrs.clone(), features),
            errors,
        )
    }

    fn from_parts(
        endian: Endianness,
        attrs: Vec<FileAttr>,
        features: Vec<FeatureSection>,
    ) -> Metadata {
        let events = EventTable::new(attrs.iter().map(|a| (a.attr, a.ids.as_slice())));
        let mut meta = Metadata {
            endian,
            pipe: false,
            attrs,
            features,
            update_names: Vec::new(),
            events,
            legacy_google: false,
        };
        meta.apply_groups();
        meta
    }

    /// Empty metadata for a pipe-mode stream; fill it with [`Metadata::observe`].
    pub fn pipe(endian: Endianness) -> Metadata {
        Metadata {
            endian,
            pipe: true,
            attrs: Vec::new(),
            features: Vec::new(),
            update_names: Vec::new(),
            events: EventTable::default(),
            legacy_google: false,
        }
    }

    /// Decodes a record with this file's events.
    pub fn parse<'r>(&self, rec: &RawRecord<'r>) -> Result<Record<'r>> {
        parse_record(rec, &self.events)
    }

    /// Decodes a record into `out` (see [`parse_record_into`]).
    pub fn parse_into<'r>(&self, rec: &RawRecord<'r>, out: &mut Record<'r>) -> Result<()> {
        parse_record_into(rec, &self.events, out)
    }

    /// The fields of a SAMPLE record that a profile's stacks and weights are made of (see
    /// [`parse_sample_brief`]).
    pub fn sample_brief<'r>(&self, rec: &RawRecord<'r>) -> Result<SampleBrief<'r>> {
        parse_sample_brief(rec, &self.events)
    }

    /// Checks a SAMPLE record and returns its event (see [`check_sample`]).
    pub fn check_sample(&self, rec: &RawRecord<'_>) -> Result<EventIndex> {
        check_sample(rec, &self.events)
    }

    /// Checks a SAMPLE record and returns its event, process, thread, time and CPU (see
    /// [`check_sample_ids`]).
    pub fn sample_ids(&self, rec: &RawRecord<'_>) -> Result<SampleIds> {
        check_sample_ids(rec, &self.events)
    }

    /// Sets the event groups from HEADER_GROUP_DESC, when present and readable.
    fn apply_groups(&mut self) {
        let Some(bytes) = self.feature(HeaderFeature::GROUP_DESC) else {
            return;
        };
        if let Ok(groups) = crate::features::pmu::parse_group_desc(bytes) {
            let groups: Vec<(u32, u32)> = groups
                .iter()
                .map(|g| (g.leader_idx, g.nr_members))
                .collect();
            self.events.set_groups(groups);
        }
    }

    /// Whether [`Metadata::observe`] adds what records of type `t` say to the metadata
    /// (HEADER_ATTR, HEADER_FEATURE, EVENT_UPDATE, a legacy Google stream's features; not
    /// ID_INDEX, which it only checks): the records another reader of a pipe stream must be
    /// given to know its events.
    pub fn grows_from(&self, t: RecordType) -> bool {
        self.legacy_feature(t).is_some()
            || matches!(
                t,
                RecordType::HEADER_ATTR | RecordType::HEADER_FEATURE | RecordType::EVENT_UPDATE
            )
    }

    /// Learns from a metadata record (HEADER_ATTR, HEADER_FEATURE, EVENT_UPDATE with a name).
    /// Returns whether the record was one of those. Other records are ignored.
    pub fn observe(&mut self, rec: &RawRecord<'_>) -> Result<bool> {
        if let Some(feature) = self.legacy_feature(rec.type_()) {
            let body = rec.body_bytes();
            self.features.push(FeatureSection {
                feature,
                offset: body.offset(),
                bytes: body.remaining().to_vec(),
            });
            return Ok(true);
        }
        match rec.type_() {
            RecordType::HEADER_ATTR => {
                // struct perf_record_header_attr { header; perf_event_attr attr; u64 id[]; }
                let body = rec.body_bytes();
                let (attr, len) = EventAttr::parse(&body)?;
                let mut ids_bytes = body;
                let skip = (len as usize).min(ids_bytes.len());
                ids_bytes.skip(skip, "header attr")?;
                let mut ids = Vec::with_capacity(ids_bytes.len() / 8);
                while ids_bytes.len() >= 8 {
                    ids.push(ids_bytes.read_u64("header attr id")?);
                }
                self.events.push_event(attr, &ids);
                self.attrs.push(FileAttr { attr, ids });
                Ok(true)
            }
            RecordType::HEADER_FEATURE => {
                // struct perf_record_header_feature { header; u64 feat_id; char data[]; }
                let mut body = rec.body_bytes();
                let id = body.read_u64("feature id")?;
                let feature = HeaderFeature(u32::try_from(id).unwrap_or(u32::MAX));
                self.features.push(FeatureSection {
                    feature,
                    offset: body.offset(),
                    bytes: body.remaining().to_vec(),
                });
                if feature == HeaderFeature::GROUP_DESC {
                    self.apply_groups();
                }
                Ok(true)
            }
            RecordType::ID_INDEX => {
                // Which mmap (`idx`), CPU and thread each sample id belongs to. perf
                // (`perf_event__process_id_index`) only annotates ids it already knows from the
                // attrs: `idx` is the per-CPU/per-thread mmap index, not the attr, so the record
                // says nothing about which event an id is. Checked for well-formedness only.
                self.parse(rec)?;
                Ok(true)
            }
            RecordType::EVENT_UPDATE => {
                // struct perf_record_event_update { header; u64 type; u64 id; union { ... } }
                let mut body = rec.body_bytes();
                let kind = body.read_u64("event update type")?;
                let id = body.read_u64("event update id")?;
                if kind == EVENT_UPDATE_NAME {
                    let name = RawStr(crate::bytes::until_nul(body.remaining()));
                    self.update_names.push((id, alloc::format!("{name}")));
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// For a legacy Google stream, the header feature a record of type `t` carries.
    pub fn legacy_feature(&self, t: RecordType) -> Option<HeaderFeature> {
        (self.legacy_google && (69..=80).contains(&t.0)).then(|| HeaderFeature(t.0 - 66))
    }

    /// The name of a record type in this file's dialect: perf's name, `LEGACY_GOOGLE_HEADER_<feature>`
    /// for the features of a legacy Google stream, `UNKNOWN_<n>` for types nobody names.
    pub fn record_type_name(&self, t: RecordType) -> String {
        if let Some(f) = self.legacy_feature(t) {
            return alloc::format!("LEGACY_GOOGLE_HEADER_{f}");
        }
        match t.name() {
            Some(n) => String::from(n),
            None => alloc::format!("UNKNOWN_{}", t.0),
        }
    }

    /// The bytes of feature `f`, if present.
    pub fn feature(&self, f: HeaderFeature) -> Option<Bytes<'_>> {
        self.features
            .iter()
            .find(|s| s.feature == f)
            .map(|s| Bytes::new(&s.bytes, s.offset, self.endian))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{raw, Builder};

    fn attr(e: Endianness) -> Vec<u8> {
        // perf_event_attr, 64 bytes: type, size, config, period, sample_type (IP|TID|TIME|ID), ...
        Builder::new(e)
            .u32(1)
            .u32(64)
            .u64(0)
            .u64(4000)
            .u64(0x47)
            .u64(0)
            .u64(0)
            .u32(0)
            .u32(0)
            .u64(0)
            .into_vec()
    }

    #[test]
    fn id_index_does_not_move_ids_between_events() {
        for e in [Endianness::Little, Endianness::Big] {
            let mut m = Metadata::pipe(e);
            // Two events: ids 11, 12 belong to the first, 21, 22 to the second.
            let a0 = Builder::new(e)
                .bytes(&attr(e))
                .u64s(&[11, 12])
                .record(64, 0);
            let a1 = Builder::new(e)
                .bytes(&attr(e))
                .u64s(&[21, 22])
                .record(64, 0);
            assert!(m.observe(&raw(&a0, 0, e)).unwrap());
            assert!(m.observe(&raw(&a1, 0, e)).unwrap());
            // ID_INDEX entries {id, idx, cpu, tid}: `idx` is the mmap index (here the CPU), so
            // id 21 with idx 0 must stay with the second event (as perf's evlist__id2sid keeps it).
            let ix = Builder::new(e)
                .u64(4)
                .u64s(&[
                    11,
                    0,
                    0,
                    u64::MAX,
                    21,
                    0,
                    0,
                    u64::MAX,
                    12,
                    1,
                    1,
                    u64::MAX,
                    22,
                    1,
                    1,
                    u64::MAX,
                ])
                .record(69, 0);
            assert!(m.observe(&raw(&ix, 0, e)).unwrap());
            let of = |id| m.events.event_of_id(id).map(|x| x.index());
            assert_eq!(
                [of(11), of(12), of(21), of(22)],
                [Some(0), Some(0), Some(1), Some(1)]
            );
            assert_eq!(m.attrs[0].ids, [11, 12]);
            assert_eq!(m.attrs[1].ids, [21, 22]);
        }
    }
}
