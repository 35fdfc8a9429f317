//! Number formatting for people: sizes, digit grouping, durations.

/// A byte count in binary units with one decimal: `"75.8 KiB"`; plain bytes below 1 KiB.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    // Lossy above 2^53, which is fine for a one-decimal display.
    let mut value = bytes as f64 / 1024.0;
    let mut unit = "KiB";
    for next in UNITS.iter().skip(1) {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = next;
    }
    format!("{value:.1} {unit}")
}

/// An integer with thousands separators: `"1,810,652"`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A size shown both ways: `"75.8 KiB (77,580 bytes)"`.
pub fn size_with_bytes(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{} bytes", grouped(bytes))
    } else {
        format!("{} ({} bytes)", human_bytes(bytes), grouped(bytes))
    }
}

/// A duration in milliseconds: `"0.4 ms"`, `"12 ms"`, `"1.25 s"`.
pub fn duration_ms(ms: f64) -> String {
    if !ms.is_finite() || ms < 0.0 {
        "?".to_string()
    } else if ms < 10.0 {
        format!("{ms:.1} ms")
    } else if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

/// A memory size given in kB (as perf's HEADER_TOTAL_MEM): `"23.5 GiB (24,684,084 kB)"`.
pub fn mem_kb(kb: u64) -> String {
    format!(
        "{} ({} kB)",
        human_bytes(kb.saturating_mul(1024)),
        grouped(kb)
    )
}

/// A share (0..=1) as a percentage for people: `"12.5%"`, `"<0.1%"`, `"0%"`.
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if !p.is_finite() || p <= 0.0 {
        "0%".to_string()
    } else if p < 0.1 {
        "<0.1%".to_string()
    } else {
        format!("{p:.1}%")
    }
}

/// A timestamp in ns as perf prints it: seconds with 9 decimals (`"3874.783522540"`).
pub fn perf_time(ns: u64) -> String {
    format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

/// A tree's off-CPU total: its time and how many switches it is made of.
pub fn off_cpu_total(ns: u64, switches: u64) -> String {
    format!(
        "{} off-CPU ({} switches)",
        duration_ns(ns),
        grouped(switches)
    )
}

/// A duration in ns for people: `"850 ns"`, `"12.5 µs"`, `"3.25 ms"`, `"1.500 s"`.
pub fn duration_ns(ns: u64) -> String {
    let f = ns as f64;
    if ns < 1_000 {
        format!("{ns} ns")
    } else if ns < 1_000_000 {
        format!("{:.1} µs", f / 1e3)
    } else if ns < 1_000_000_000 {
        format!("{:.2} ms", f / 1e6)
    } else {
        format!("{:.3} s", f / 1e9)
    }
}

/// Parses one time as `perf --time` takes it (seconds, with up to 9 decimals) into ns.
pub fn parse_perf_time(text: &str) -> Option<u64> {
    let text = text.trim();
    let (secs, frac) = text.split_once('.').unwrap_or((text, ""));
    if secs.is_empty() && frac.is_empty() {
        return None;
    }
    let secs: u64 = if secs.is_empty() {
        0
    } else {
        secs.parse().ok()?
    };
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac_ns: u64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<9}").parse().ok()?
    };
    secs.checked_mul(1_000_000_000)?.checked_add(frac_ns)
}

/// Parses a `perf --time` range `"start,end"` (either side may be empty) into inclusive ns.
pub fn parse_perf_range(text: &str) -> Option<(u64, u64)> {
    let (a, b) = text.split_once(',')?;
    let start = if a.trim().is_empty() {
        0
    } else {
        parse_perf_time(a)?
    };
    let end = if b.trim().is_empty() {
        u64::MAX
    } else {
        parse_perf_time(b)?
    };
    (start <= end).then_some((start, end))
}

#[cfg(test)]
mod tests {
    #[test]
    fn perf_times() {
        assert_eq!(perf_time(3_874_783_522_540), "3874.783522540");
        assert_eq!(parse_perf_time("3874.783522540"), Some(3_874_783_522_540));
        assert_eq!(parse_perf_time("3874.78"), Some(3_874_780_000_000));
        assert_eq!(parse_perf_time("12"), Some(12_000_000_000));
        assert_eq!(parse_perf_time("1.0000000001"), None);
        assert_eq!(parse_perf_time("x"), None);
        assert_eq!(
            parse_perf_range("1.5,2"),
            Some((1_500_000_000, 2_000_000_000))
        );
        assert_eq!(parse_perf_range(",2"), Some((0, 2_000_000_000)));
        assert_eq!(parse_perf_range("3,"), Some((3_000_000_000, u64::MAX)));
        assert_eq!(parse_perf_range("3,2"), None);
        assert_eq!(parse_perf_range("3"), None);
    }

    #[test]
    fn percents_and_durations() {
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(0.0004), "<0.1%");
        assert_eq!(percent(0.1234), "12.3%");
        assert_eq!(duration_ns(850), "850 ns");
        assert_eq!(duration_ns(3_250_000), "3.25 ms");
        assert_eq!(duration_ns(1_500_000_000), "1.500 s");
    }

    use super::*;

    #[test]
    fn human_bytes_picks_the_unit() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1024), "1.0 KiB");
        assert_eq!(human_bytes(77_580), "75.8 KiB");
        assert_eq!(human_bytes(1_810_652), "1.7 MiB");
        assert_eq!(human_bytes(5 * 1024 * 1024 * 1024), "5.0 GiB");
        assert_eq!(human_bytes(u64::MAX), "16.0 EiB");
    }

    #[test]
    fn grouped_inserts_commas_every_three_digits() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1_810_652), "1,810,652");
        assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn size_with_bytes_shows_both_forms() {
        assert_eq!(size_with_bytes(300), "300 bytes");
        assert_eq!(size_with_bytes(77_580), "75.8 KiB (77,580 bytes)");
    }

    #[test]
    fn duration_ms_scales() {
        assert_eq!(duration_ms(0.42), "0.4 ms");
        assert_eq!(duration_ms(12.4), "12 ms");
        assert_eq!(duration_ms(1250.0), "1.25 s");
        assert_eq!(duration_ms(f64::NAN), "?");
    }

    #[test]
    fn mem_kb_converts_to_bytes() {
        assert_eq!(mem_kb(24_684_084), "23.5 GiB (24,684,084 kB)");
    }
}
