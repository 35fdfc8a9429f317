//! Summary tests on synthetic streams.
use super::*;
use perfscope_format::{AttrFlags, Endianness};

struct Stream {
    e: Endianness,
    buf: Vec<u8>,
}

impl Stream {
    fn new(e: Endianness) -> Stream {
        let mut buf = match e {
            Endianness::Little => b"PERFILE2".to_vec(),
            Endianness::Big => b"2ELIFREP".to_vec(),
        };
        buf.extend(e.u64_bytes(16));
        Stream { e, buf }
    }

    fn record(&mut self, type_: u32, body: &[u8]) {
        self.buf.extend(self.e.u32_bytes(type_));
        self.buf.extend(self.e.u16_bytes(0));
        self.buf.extend(self.e.u16_bytes((8 + body.len()) as u16));
        self.buf.extend(body);
    }

    fn u32(&self, v: u32) -> Vec<u8> {
        self.e.u32_bytes(v).to_vec()
    }

    fn u64(&self, v: u64) -> Vec<u8> {
        self.e.u64_bytes(v).to_vec()
    }

    fn string(&self, s: &str) -> Vec<u8> {
        let len = (s.len() + 1).next_multiple_of(64);
        let mut v = self.u32(len as u32);
        v.extend(s.as_bytes());
        v.resize(4 + len, 0);
        v
    }

    /// A 64-byte (PERF_ATTR_SIZE_VER0) attr; `flags` in little-endian bit order.
    fn attr(&self, type_: u32, config: u64, flags: u64) -> Vec<u8> {
        let word = match self.e {
            Endianness::Little => flags,
            Endianness::Big => flags.reverse_bits(),
        };
        let mut v = [
            self.u32(type_),
            self.u32(64),
            self.u64(config),
            self.u64(4000),
            self.u64(7),
        ]
        .concat();
        v.extend(self.u64(0));
        v.extend(self.u64(word));
        v.resize(64, 0);
        v
    }
}

#[test]
fn pipe_mode_names_events_from_event_update_then_event_desc_by_id_then_perf_rules() {
    for e in [Endianness::Little, Endianness::Big] {
        let mut s = Stream::new(e);
        let feature = |s: &Stream, id: u64, body: Vec<u8>| [s.u64(id), body].concat();
        let host = feature(&s, 3, s.string("box"));
        s.record(80, &host);
        let nr = feature(&s, 7, [s.u32(4), s.u32(2)].concat());
        s.record(80, &nr);
        // EVENT_DESC lists the events in the other order than the attrs: match by id.
        let mut desc = [s.u32(2), s.u32(64)].concat();
        for (name, id) in [("second", 200u64), ("first", 100)] {
            desc.extend(s.attr(1, 0, 0));
            desc.extend(s.u32(1));
            desc.extend(s.string(name));
            desc.extend(s.u64(id));
        }
        let desc = feature(&s, 12, desc);
        s.record(80, &desc);
        let end = s.u64(32);
        s.record(80, &end); // perf ≤ 6.16's end-of-features marker
        for (type_, config, id) in [(1u32, 0u64, 100u64), (1, 1, 200), (0, 0, 300)] {
            let body = [s.attr(type_, config, AttrFlags::EXCLUDE_GUEST), s.u64(id)].concat();
            s.record(64, &body);
        }
        let mut update = [s.u64(2), s.u64(200)].concat();
        update.extend(b"renamed\0");
        s.record(78, &update);

        let sum = Summary::from_bytes(&s.buf);
        assert_eq!(
            (sum.error.as_deref(), sum.warnings.len()),
            (None, 0),
            "{:?}",
            sum.warnings
        );
        assert!(sum.pipe_mode);
        assert_eq!(sum.byte_order, e.name());
        assert_eq!(sum.features, ["HOSTNAME", "NRCPUS", "EVENT_DESC"]);
        assert_eq!(sum.hostname.as_deref(), Some("box"));
        assert_eq!(
            (sum.nr_cpus_available, sum.nr_cpus_online),
            (Some(4), Some(2))
        );
        let names: Vec<(&str, &str)> = sum
            .events
            .iter()
            .map(|e| (e.name.as_str(), e.name_source.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("first", "event_desc"),
                ("renamed", "event_update"),
                ("cycles", "derived")
            ]
        );
        assert_eq!(sum.events[1].sample_ids, [200]);
        assert_eq!(sum.events[2].attr, "size = 64, { sample_period, sample_freq } = 4000, sample_type = IP|TID|TIME, exclude_guest = 1");
    }
}

#[test]
fn not_perf_data_is_an_error_with_nothing_else() {
    let s = Summary::from_bytes(b"hello world, not a profile");
    assert!(s
        .error
        .unwrap()
        .starts_with("at offset 0x0: expected the perf.data magic"));
    assert!(s.events.is_empty() && s.byte_order.is_empty());
}

/// Found by the `file` fuzz target (a 5 s timeout): a GROUP_DESC group's `nr_members` is a u32
/// from the file, and `finish` walked every index from the leader to leader + nr_members — four
/// billion steps for nr_members = 0xffffffff — looking for events, twice per group.
#[test]
fn group_desc_with_a_huge_member_count_is_clamped_to_the_events() {
    let run = || {
        let mut s = Stream::new(Endianness::Little);
        let mut groups = s.u32(3);
        for (name, leader) in [("a", 0u32), ("b", 1), ("c", 9)] {
            groups.extend(s.string(name));
            groups.extend(s.u32(leader));
            groups.extend(s.u32(u32::MAX));
        }
        s.record(80, &[s.u64(17), groups].concat()); // HEADER_GROUP_DESC
        for (config, id) in [(0u64, 1u64), (1, 2)] {
            s.record(
                64,
                &[s.attr(0, config, AttrFlags::EXCLUDE_GUEST), s.u64(id)].concat(),
            );
        }
        Summary::from_bytes(&s.buf)
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run());
    });
    let sum = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("Summary::from_bytes still running after 10 s");
    assert_eq!(
        (sum.error.as_deref(), sum.warnings.len()),
        (None, 0),
        "{:?}",
        sum.warnings
    );
    let groups: Vec<(Option<&str>, u32, Vec<&str>)> = sum
        .groups
        .iter()
        .map(|g| {
            (
                g.name.as_deref(),
                g.leader_idx,
                g.members.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        groups,
        [
            (Some("a"), 0, vec!["cycles", "instructions"]),
            (Some("b"), 1, vec!["instructions"]),
            (Some("c"), 9, vec![])
        ]
    );
    // Group "b" comes last among those that reach event 1.
    let leaders: Vec<Option<usize>> = sum.events.iter().map(|e| e.group_leader).collect();
    assert_eq!(leaders, [Some(0), Some(1)]);
}
