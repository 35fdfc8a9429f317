use super::perf_script::{parse_frame, parse_header, FrameLine};
use super::*;
use crate::export::folded::{to_folded_text, FoldedOptions};
use crate::samples::SampleFilter;

fn folded(p: &Profile) -> String {
    to_folded_text(p, &SampleFilter::all(), FoldedOptions::default())
}

#[test]
fn header_with_pid_tid_cpu_and_trailing_frame() {
    let h = parse_header("              mt 26072/26072 [001]  3871.591199657:     250000 cpu-clock:pppH:      7f6fa7c2c3e0 update_active.constprop.0 (/usr/lib/ld.so)").unwrap();
    assert_eq!((h.comm, h.pid, h.tid, h.cpu), ("mt", 26072, 26072, 1));
    assert_eq!(
        (h.time, h.period, h.event),
        (3_871_591_199_657, 250_000, "cpu-clock:pppH")
    );
    assert_eq!(
        h.frame,
        Some(FrameLine {
            ip: 0x7f6f_a7c2_c3e0,
            sym: "update_active.constprop.0",
            dso: Some("/usr/lib/ld.so")
        })
    );
}

#[test]
fn header_shapes_of_other_perf_versions() {
    // Microsecond times, tid only, cpu -1, comm with spaces, an event with a PMU and modifiers.
    let h = parse_header("             perf  3174 [-01]   641.256820:          1       cycles:  ffffffffb96071f4 [unknown] ([kernel.kallsyms])").unwrap();
    assert_eq!(
        (h.comm, h.pid, h.tid, h.cpu, h.time),
        ("perf", 3174, 3174, u32::MAX, 641_256_820_000)
    );
    assert_eq!(h.frame.unwrap().dso, Some("[kernel.kallsyms]"));
    let h = parse_header("Web Content 12/34 10.5: 7 cpu_core/cycles:ppp/: ").unwrap();
    assert_eq!(
        (h.comm, h.pid, h.tid, h.period, h.event, h.frame),
        ("Web Content", 12, 34, 7, "cpu_core/cycles:ppp/", None)
    );
    // Tracepoint fields with parentheses before the frame; a breakpoint's addr before the ip.
    let h = parse_header("  :31770 31767/31770 [000]  3982.075762878:          1  probe_mt:mid: (5614227914a0) x=0xf4628     5614227914a0 mid (/tmp/mt)").unwrap();
    assert_eq!(
        (h.comm, h.frame),
        (
            ":31770",
            Some(FrameLine {
                ip: 0x5614_2279_14a0,
                sym: "mid",
                dso: Some("/tmp/mt")
            })
        )
    );
    let h = parse_header("  mt-nopie 28937/28937  3936.938831651:          1 mem:0x0000000000404078:w:           404078 ffffffff81752b6a elf_load ([kernel.kallsyms])").unwrap();
    assert_eq!(
        (h.event, h.frame.unwrap().ip, h.frame.unwrap().sym),
        (
            "mem:0x0000000000404078:w",
            0xffff_ffff_8175_2b6a,
            "elf_load"
        )
    );
    // Registers after the dso; a tracepoint whose argument is a parenthesized word, no frame.
    let h =
        parse_header("mt 1/1 1.000000001: 1 cpu-clock: 7f23 main+0x1f (/bin/mt) ABI:2    BP:0xee")
            .unwrap();
    assert_eq!(
        h.frame,
        Some(FrameLine {
            ip: 0x7f23,
            sym: "main",
            dso: Some("/bin/mt")
        })
    );
    let h = parse_header("mt 32403/32407 [001]  3997.767731615:          1 lock:contention_begin: 0xffff888627c2ba40 (flags=SPIN)").unwrap();
    assert_eq!(h.frame, None);
    assert!(parse_header("mt 1/1 1.0: PERF_RECORD_COMM exec: mt:1/1").is_none());
    assert!(parse_header("main;work 12").is_none());
    // `-F` without time: the event after the ids anchors the line.
    let h = parse_header("mt 16529/16529 cpu-clock: ").unwrap();
    assert_eq!(
        (h.comm, h.pid, h.tid, h.time, h.event, h.period),
        ("mt", 16529, 16529, 0, "cpu-clock", 1)
    );
    let h = parse_header(
        "  Web Content 7 [002]   250000 cpu-clock:  ffffffff81000000 do_idle ([kernel.kallsyms])",
    )
    .unwrap();
    assert_eq!(
        (h.comm, h.tid, h.cpu, h.period, h.event),
        ("Web Content", 7, 2, 250_000, "cpu-clock")
    );
    assert_eq!(h.frame.unwrap().sym, "do_idle");
    assert!(parse_header("perl;main::run: 5").is_none());
}

#[test]
fn frame_lines() {
    assert_eq!(
        parse_frame("\t    7f16c893a8a8 std::vector<int, std::allocator<int> >::push(int const&)+0x1a (/usr/lib/libx.so (deleted))"),
        Some(FrameLine { ip: 0x7f16_c893_a8a8, sym: "std::vector<int, std::allocator<int> >::push(int const&)", dso: Some("/usr/lib/libx.so (deleted)") })
    );
    assert_eq!(
        parse_frame("\t 0 [unknown] ([unknown])"),
        Some(FrameLine {
            ip: 0,
            sym: "[unknown]",
            dso: None
        })
    );
    assert_eq!(
        parse_frame("\t 10 main"),
        Some(FrameLine {
            ip: 0x10,
            sym: "main",
            dso: None
        })
    );
    assert_eq!(parse_frame("\t  srcline.c:12"), None);
}

const SCRIPT: &str = "\
mt 10/11 [001]  1.000000500:     250000 cpu-clock:pppH: 
\t           15389 leaf+0x9 (/bin/mt)
\t           15300 main (/bin/mt)

mt 10/11  1.000001000: PERF_RECORD_MMAP2 10/11: [0x1(0x2) @ 0 00:00 0 0]: r-xp /bin/mt
mt 10/12 [000]  1.000002000:     250000 cpu-clock:pppH: 
\t           15300 main (/bin/mt)

other 20/20  2.5:  7 page-faults:  ffffffff81000000 do_fault ([kernel.kallsyms])
";

#[test]
fn perf_script_samples_keep_their_fields() {
    assert_eq!(detect(SCRIPT.as_bytes()), Some(TextKind::PerfScript));
    let imp = import_text(SCRIPT.as_bytes()).unwrap();
    let p = &imp.profile;
    assert_eq!(p.samples.len(), 3);
    assert_eq!(
        p.samples.times().to_vec(),
        vec![1_000_000_500, 1_000_002_000, 2_500_000_000]
    );
    assert_eq!(p.samples.cpus().collect::<Vec<_>>(), vec![1, 0, u32::MAX]);
    assert_eq!(
        p.samples.periods().collect::<Vec<_>>(),
        vec![250_000, 250_000, 7]
    );
    let tids: Vec<u32> = p
        .samples
        .thread
        .iter()
        .map(|&t| p.threads.get(t).unwrap().tid)
        .collect();
    assert_eq!(tids, vec![11, 12, 20]);
    let events: Vec<&str> = p.samples.events().map(|e| p.event_name(e)).collect();
    assert_eq!(
        events,
        vec!["cpu-clock:pppH", "cpu-clock:pppH", "page-faults"]
    );
    assert_eq!(folded(p), "mt;main 1\nmt;main;leaf 1\nother;do_fault 1\n");
    assert_eq!(imp.skipped_lines, 0);
}

#[test]
fn folded_round_trips() {
    let text = "a;main;f 3\na;main;g 1\nb 2\nb;x:y;z 5\n";
    assert_eq!(detect(text.as_bytes()), Some(TextKind::Folded));
    let imp = import_text(text.as_bytes()).unwrap();
    assert_eq!(imp.profile.samples.len(), 11);
    assert_eq!(folded(&imp.profile), text);
}

#[test]
fn errors_name_the_line() {
    let e =
        folded::import(b"a;b 1\n\na;c x\n", &folded::FoldedImportOptions::default()).unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.to_string().starts_with("line 3: "), "{e}");
    let e = perf_script::import(b"\nhello world\n").unwrap_err();
    assert_eq!(e.line, 2);
    assert_eq!(detect(b"PERFILE2\0\0\0"), None);
    assert_eq!(detect(b"hello world\n"), None);
    assert!(import_text(b"hello world\n").is_err());
}

#[test]
fn garbage_never_panics() {
    // A deterministic xorshift stream of bytes biased towards the characters the parsers look at.
    let alphabet = b" \t\n;:/[]()+0x1f9a.-PERF_RECORD_";
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for len in [1usize, 7, 64, 300, 2000] {
        for _ in 0..200 {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    alphabet[(state % alphabet.len() as u64) as usize]
                })
                .collect();
            let _ = detect(&bytes);
            let _ = import_text(&bytes);
            let _ = perf_script::import(&bytes);
            let _ = folded::import(&bytes, &folded::FoldedImportOptions::default());
        }
    }
}
