use std::io::Read as _;

use super::*;
use crate::export::share::read::ShareErrorKind;
use crate::feature_summary::BuildIdSummary;
use crate::ids::ThreadIndex;
use crate::text_samples::profile_from_text_samples;

type FrameDump = (
    String,
    Option<String>,
    Option<String>,
    Option<Vec<u8>>,
    u64,
    u16,
);
type SampleDump = (u64, u32, u32, String, u32, String, u64, Vec<FrameDump>);

/// Every sample with everything it refers to spelled out, so two profiles with different
/// table orders compare equal when they say the same.
fn dump(p: &Profile) -> Vec<SampleDump> {
    let module = |m: Option<ModuleIndex>| {
        m.and_then(|m| p.modules.get(m))
            .map(|m| (p.strings.get(m.path).to_owned(), m.build_id.clone()))
    };
    (0..p.samples.len())
        .map(|i| {
            let s = p.samples.get(i).unwrap();
            let t = p.threads.get(s.thread).unwrap();
            let frames = p
                .stacks
                .frames_leaf_first(s.stack)
                .map(|f| {
                    let fr = p.frames.get(f).unwrap();
                    let func = p.funcs.get(fr.func).unwrap();
                    let fm = module(fr.module);
                    (
                        p.strings.get(func.name).to_owned(),
                        module(func.module).map(|m| m.0),
                        fm.as_ref().map(|m| m.0.clone()),
                        fm.and_then(|m| m.1),
                        fr.address,
                        fr.inline_depth,
                    )
                })
                .collect();
            (
                s.time,
                t.pid,
                t.tid,
                p.strings.get(t.name).to_owned(),
                s.cpu,
                p.event_name(s.event).to_owned(),
                s.period,
                frames,
            )
        })
        .collect()
}

const TEXT: &str = "
comm:   app app app worker worker
pid:    7   7   7   7      9
tid:    7   7   7   8      9
time:   500 100 900 300    300
cpu:    0   1   4294967295 3 2
event:  cycles cycles instructions cycles cycles
period: 10  20  30  40     50
main                     main  main  start  idle
a[lib:/home/alice/app]   b     a     run
c[lib:/usr/lib/libc.so.6]
";

fn profile() -> Profile {
    let mut p = profile_from_text_samples(TEXT).unwrap();
    // An inlined frame with a build id, as the DWARF resolver makes them.
    let m = p
        .intern_module("/home/alice/app", Some(&[0xde, 0xad, 0xbe, 0xef]))
        .unwrap();
    let outer = p.intern_func("outer", Some(m)).unwrap();
    let inner = p.intern_func("inner<T>", Some(m)).unwrap();
    let f0 = p.intern_frame(outer, Some(m), 0x1234, 0).unwrap();
    let f1 = p.intern_frame(inner, Some(m), 0x1234, 1).unwrap();
    let stack = p.stacks.intern_path(&[f0, f1]).unwrap();
    let mut s = p.samples.get(0).unwrap();
    s.stack = stack;
    s.time = u64::MAX; // extreme values survive the delta coding
    s.period = u64::MAX;
    p.push_sample(s).unwrap();
    s.stack = None;
    s.time = 0;
    p.push_sample(s).unwrap();
    p
}

fn summary() -> Summary {
    Summary {
        hostname: Some("alices-laptop".into()),
        cmdline: Some(
            "/usr/bin/perf record -g -o /home/alice/secret-project/perf.data ./app".into(),
        ),
        cmdline_args: Some(vec![
            "/usr/bin/perf".into(),
            "record".into(),
            "/home/alice/secret-project/perf.data".into(),
        ]),
        os_release: Some("6.1.0".into()),
        build_ids: vec![BuildIdSummary {
            cpumode: "user".into(),
            build_id: "deadbeef".into(),
            filename: "/home/alice/app".into(),
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// The decompressed body, read with flate2 directly rather than through `from_share`.
fn raw_body(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&bytes[HEADER_SIZE..])
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn round_trip_keeps_every_sample_and_name() {
    let p = profile();
    let bytes = to_share(&p, Some(&summary()), &ShareOptions::default());
    assert_eq!(&bytes[..16], b"PERFSCOPE-SHARE\0");
    assert_eq!(&bytes[16..21], &[1, 0, 0, 0, 1]);
    assert_eq!(
        u64::from_le_bytes(bytes[24..32].try_into().unwrap()),
        raw_body(&bytes).len() as u64
    );
    assert!(is_share(&bytes));
    let back = from_share(&bytes).unwrap();
    assert_eq!(dump(&back.profile), dump(&p));
    assert_eq!(back.summary, Some(summary()));
    assert_eq!(back.privacy, PrivacyOptions::default());
    assert_eq!(
        back.exporter,
        format!("perfscope {}", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(back.profile.events.len(), 2);
    // Spot checks against the text: sample 2 is `main;a` of `app` on an unknown CPU.
    let d = dump(&back.profile);
    assert_eq!(
        (d[2].0, d[2].4, d[2].5.as_str(), d[2].6),
        (900, u32::MAX, "instructions", 30)
    );
    assert_eq!(
        d[0].7.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
        ["c", "a", "main"]
    );
    assert_eq!(
        d[5].7
            .iter()
            .map(|f| (f.0.as_str(), f.5))
            .collect::<Vec<_>>(),
        [("inner<T>", 1), ("outer", 0)]
    );
    assert_eq!(d[5].7[0].3, Some(vec![0xde, 0xad, 0xbe, 0xef]));
    assert_eq!((d[5].0, d[5].6), (u64::MAX, u64::MAX));
    assert!(d[6].7.is_empty());
}

#[test]
fn a_filter_writes_only_what_its_samples_use() {
    let p = profile();
    let filter = SampleFilter {
        tids: vec![8],
        ..Default::default()
    };
    let bytes = to_share(
        &p,
        None,
        &ShareOptions {
            filter,
            ..Default::default()
        },
    );
    let back = from_share(&bytes).unwrap();
    assert_eq!(back.profile.samples.len(), 1);
    assert_eq!(back.profile.threads.len(), 1);
    assert_eq!(back.profile.stacks.len(), 2); // start, start;run
    assert_eq!(back.profile.funcs.len(), 2);
    assert!(back.profile.modules.is_empty());
    assert_eq!(back.summary, None);
    let body = raw_body(&bytes);
    assert!(contains(&body, "run") && contains(&body, "worker"));
    for gone in ["alice", "libc", "main", "idle", "app", "outer"] {
        assert!(!contains(&body, gone), "{gone} leaked");
    }
}

#[test]
fn privacy_options_remove_what_they_say_from_the_bytes() {
    let p = profile();
    let sm = summary();
    let body_with = |privacy: PrivacyOptions| {
        let bytes = to_share(
            &p,
            Some(&sm),
            &ShareOptions {
                privacy,
                ..Default::default()
            },
        );
        (raw_body(&bytes), from_share(&bytes).unwrap())
    };
    let (plain, _) = body_with(PrivacyOptions::default());
    for s in [
        "alices-laptop",
        "secret-project",
        "/home/alice/app",
        "/usr/lib/libc.so.6",
        "worker",
    ] {
        assert!(contains(&plain, s), "{s} should be there without options");
    }

    let (b, back) = body_with(PrivacyOptions {
        strip_hostname: true,
        ..Default::default()
    });
    assert!(!contains(&b, "alices-laptop"));
    assert!(contains(&b, "secret-project") && contains(&b, "/home/alice/app"));
    assert_eq!(back.summary.unwrap().hostname, None);

    let (b, back) = body_with(PrivacyOptions {
        strip_cmdline: true,
        ..Default::default()
    });
    assert!(!contains(&b, "secret-project") && !contains(&b, "record -g"));
    assert!(contains(&b, "alices-laptop"));
    let s = back.summary.unwrap();
    assert_eq!((s.cmdline, s.cmdline_args), (None, None));

    let (b, back) = body_with(PrivacyOptions {
        strip_paths: true,
        ..Default::default()
    });
    assert!(!contains(&b, "/home/alice/app") && !contains(&b, "/usr/lib/libc.so.6"));
    // ... but the command line still has its paths unless it is stripped too.
    assert!(contains(&b, "secret-project"));
    let mods: Vec<&str> = (0..back.profile.modules.len() as u32)
        .map(|i| {
            back.profile
                .strings
                .get(back.profile.modules.get(ModuleIndex(i)).unwrap().path)
        })
        .collect();
    assert_eq!(mods, ["app", "libc.so.6", "app"]); // the DSL's app (no build id) and the one with one
    assert_eq!(back.summary.unwrap().build_ids[0].filename, "app");

    let (b, back) = body_with(PrivacyOptions {
        strip_thread_names: true,
        ..Default::default()
    });
    assert!(!contains(&b, "worker"));
    let names: Vec<&str> = (0..back.profile.threads.len() as u32)
        .map(|i| back.profile.thread_name(ThreadIndex(i)))
        .collect();
    assert_eq!(names, ["thread-7", "thread-8", "thread-9"]);

    let (b, back) = body_with(PrivacyOptions::all());
    for s in ["alices-laptop", "secret-project", "/home", "/usr", "worker"] {
        assert!(!contains(&b, s), "{s} leaked");
    }
    assert_eq!(back.privacy, PrivacyOptions::all());
    // Names of functions are what sharing is for.
    assert_eq!(dump(&back.profile).len(), dump(&p).len());
    assert!(contains(&b, "inner<T>"));
}

#[test]
fn header_errors_name_what_is_wrong() {
    let bytes = to_share(&profile(), None, &ShareOptions::default());
    let kind = |b: &[u8]| from_share(b).unwrap_err().kind;
    assert_eq!(kind(b"PERFILE2"), ShareErrorKind::NotShareFile);
    assert_eq!(kind(&bytes[..20]), ShareErrorKind::TruncatedHeader);
    let mut b = bytes.clone();
    b[16] = 2;
    let e = from_share(&b).unwrap_err();
    assert_eq!(
        (e.offset, e.kind.clone()),
        (16, ShareErrorKind::UnsupportedVersion(2))
    );
    assert_eq!(e.to_string(), "share file: at offset 0x10: format version 2 is newer than this perfscope reads (1); update perfscope");
    let mut b = bytes.clone();
    b[20] = 2;
    assert_eq!(kind(&b), ShareErrorKind::UnsupportedCompression(2));
    let mut b = bytes.clone();
    b[24] ^= 1;
    assert!(matches!(kind(&b), ShareErrorKind::BodySize { .. }));
    let mut b = bytes.clone();
    b[31] = 0x80;
    assert!(matches!(kind(&b), ShareErrorKind::BodyTooLarge(_)));
    // 1 GiB declared for a few hundred compressed bytes: refused before inflating.
    let mut b = bytes.clone();
    b[24..32].copy_from_slice(&(1u64 << 30).to_le_bytes());
    assert_eq!(
        kind(&b),
        ShareErrorKind::ImplausibleBodySize {
            declared: 1 << 30,
            compressed: bytes.len() as u64 - 32
        }
    );
}

/// Recompresses a hand-made body behind a valid header.
fn wrap(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&[1, 0, 0, 0]);
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    let mut enc = flate2::write::GzEncoder::new(out, flate2::Compression::fast());
    enc.write_all(body).unwrap();
    enc.finish().unwrap()
}

#[test]
fn body_references_must_point_backwards() {
    // exporter "x", no privacy, no summary, strings ["f"], no module, one function, one frame,
    // then a stack whose prefix is itself (index 0 + 1).
    let body = [
        1, b'x', 0, 0, 1, 1, b'f', 0, 1, 0, 0, 1, 0, 0, 0x10, 0, 1, 1, 0,
    ];
    let e = from_share(&wrap(&body)).unwrap_err();
    assert_eq!(
        e.kind,
        ShareErrorKind::BadIndex {
            table: "stack prefix",
            index: 0,
            len: 0
        }
    );
    assert_eq!((e.offset, e.in_body), (17, true));
    assert_eq!(e.to_string(), "share file: at decompressed body offset 0x11: stack prefix refers to entry 0, but only 0 may be referred to");
    // The same with a root stack, no threads, no events, no samples: a valid empty profile.
    let mut ok = body;
    ok[17] = 0;
    let mut ok = ok.to_vec();
    ok.extend_from_slice(&[0, 0, 0]);
    let back = from_share(&wrap(&ok)).unwrap();
    assert_eq!(
        (back.profile.stacks.len(), back.profile.samples.len()),
        (1, 0)
    );
    ok.push(0);
    assert_eq!(
        from_share(&wrap(&ok)).unwrap_err().kind,
        ShareErrorKind::TrailingBytes(1)
    );
}

#[test]
fn damaged_bodies_give_errors_not_panics() {
    let p = profile();
    let body = raw_body(&to_share(&p, Some(&summary()), &ShareOptions::default()));
    for cut in 0..body.len() {
        assert!(from_share(&wrap(&body[..cut])).is_err(), "cut at {cut}");
    }
    // Flip every byte in turn: an error or a profile, never a panic; a result that reads must
    // still have valid references.
    for i in 0..body.len() {
        let mut b = body.clone();
        b[i] ^= 0xff;
        if let Ok(back) = from_share(&wrap(&b)) {
            let _ = dump(&back.profile);
        }
    }
}
