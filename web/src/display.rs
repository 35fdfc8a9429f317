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
    format!("{} ({} kB)", human_bytes(kb.saturating_mul(1024)), grouped(kb))
}

#[cfg(test)]
mod tests {
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
