//! `perfscope stats`: record counts per type, counted the way `perf report --stats` counts them.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use perfscope_analysis::delivery::{carries_reads, SampleDelivery};
use perfscope_analysis::load::EventNames;
use perfscope_format::metadata::Metadata;
use perfscope_format::walk::Item;
use perfscope_format::{EventIndex, RawRecord, Record, RecordType};

use super::input::Input;
use super::walk::walk;

/// Arguments of `perfscope stats`.
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// A perf.data file or a `perf record --threads` directory.
    file: PathBuf,
}

/// Runs `perfscope stats`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    let input = Input::read(&args.file)?;
    let mut t = Tally::default();
    let result = walk(&input, |meta, _, item| match item {
        // A sample is counted here, small enough to be inlined into the walk (a call per
        // record, and the record handed over in memory, cost a quarter of the time).
        Item::Record(rec) if rec.type_() == RecordType::SAMPLE => {
            t.samples += 1;
            // Checked, not decoded (decoding cost more than the rest of the walk), unless
            // read values make perf deliver it once per moved counter.
            match meta.check_sample(rec) {
                Ok(e) if !carries_reads(&meta.events, e) => match t.per_event.get_mut(e.0 as usize)
                {
                    Some(n) => *n += 1,
                    None => t.first_of_event(e.0 as usize),
                },
                checked => t.read_values(meta, rec, checked),
            }
        }
        Item::Record(rec) => t.other(rec),
        Item::Error(e) => t.errors.push(e.to_string()),
    });
    let Tally {
        mut by_type,
        samples,
        mut counts,
        per_event,
        mut delivered,
        mut errors,
        names,
        ..
    } = t;
    if let Some(n) = by_type.get_mut(RecordType::SAMPLE.0 as usize) {
        *n += samples;
    }
    for (t, n) in (0u32..).zip(by_type).filter(|(_, n)| *n > 0) {
        counts.insert(t, n);
    }
    for (e, n) in (0u32..).zip(per_event).filter(|(_, n)| *n > 0) {
        *delivered.entry(e).or_default() += n;
    }
    let per_event = delivered;
    let meta = result.map_err(|e| errors.push(e.to_string())).ok();
    // Named in the same pass (a second walk for the names took as long as the counting).
    let event_name = |i: u32| match &meta {
        Some(m) if (i as usize) < m.attrs.len() => names.name(m, i as usize),
        _ => format!("event {i}"),
    };
    let name = |t: u32| match &meta {
        Some(m) => m.record_type_name(RecordType(t)),
        None => RecordType(t)
            .name()
            .map_or_else(|| format!("UNKNOWN_{t}"), str::to_string),
    };
    let total: u64 = counts.values().sum();
    if args.json {
        let records: serde_json::Map<String, serde_json::Value> = counts
            .iter()
            .map(|(t, n)| (name(*t), (*n).into()))
            .collect();
        let mut samples = serde_json::Map::new();
        for (e, n) in &per_event {
            let name = event_name(*e);
            let prev = samples
                .get(&name)
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0);
            samples.insert(name, (prev + n).into());
        }
        let obj = serde_json::json!({ "records": records, "samples": samples, "errors": errors });
        println!("{obj}");
    } else {
        println!("{:>20} events: {:>10}", "TOTAL", total);
        for (t, n) in &counts {
            println!("{:>20} events: {:>10}", name(*t), n);
        }
        for (e, n) in &per_event {
            println!("{} stats:", event_name(*e));
            println!("{:>20} events: {:>10}", "SAMPLE", n);
        }
    }
    for e in &errors {
        eprintln!("error: {}: {e}", args.file.display());
    }
    Ok(if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// What `stats` counts while walking.
struct Tally {
    /// Records by type: counted in an array (a map lookup per record was a tenth of the time),
    /// with the types past it in `counts`.
    by_type: [u64; 128],
    counts: BTreeMap<u32, u64>,
    /// SAMPLE records (apart from `by_type`, which they are added to at the end).
    samples: u64,
    /// Samples per event index (the indices are dense), and in `delivered` those delivered per
    /// read value.
    per_event: Vec<u64>,
    delivered: BTreeMap<u32, u64>,
    errors: Vec<String>,
    delivery: SampleDelivery,
    names: EventNames,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            by_type: [0; 128],
            counts: BTreeMap::new(),
            samples: 0,
            per_event: Vec::new(),
            delivered: BTreeMap::new(),
            errors: Vec::new(),
            delivery: SampleDelivery::new(),
            names: EventNames::default(),
        }
    }
}

impl Tally {
    /// The first sample of event `i`.
    #[cold]
    #[inline(never)]
    fn first_of_event(&mut self, i: usize) {
        if self.per_event.len() <= i {
            self.per_event.resize(i + 1, 0);
        }
        if let Some(n) = self.per_event.get_mut(i) {
            *n += 1;
        }
    }

    /// A sample that failed its check, or that perf delivers once per moved counter.
    #[cold]
    #[inline(never)]
    fn read_values(
        &mut self,
        meta: &Metadata,
        rec: &RawRecord<'_>,
        checked: perfscope_format::Result<EventIndex>,
    ) {
        if let Err(e) = checked {
            return self.errors.push(e.to_string());
        }
        match meta.parse(rec) {
            Ok(Record::Sample(s)) => {
                let delivered = &mut self.delivered;
                self.delivery.deliver(&meta.events, &s, |e, _| {
                    *delivered.entry(e.0).or_default() += 1;
                });
            }
            Ok(_) => {}
            Err(e) => self.errors.push(e.to_string()),
        }
    }

    /// A record other than a sample. Event names come from metadata records only (a call per
    /// sample was 6 % of the walk).
    #[inline(never)]
    fn other(&mut self, rec: &RawRecord<'_>) {
        self.names.observe(rec);
        match self.by_type.get_mut(rec.type_().0 as usize) {
            Some(n) => *n += 1,
            None => *self.counts.entry(rec.type_().0).or_default() += 1,
        }
    }
}
