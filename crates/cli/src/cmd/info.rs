//! `perfscope info`: the header facts of a perf.data.

use std::path::PathBuf;
use std::process::ExitCode;

use perfscope_analysis::summary::Summary;

use super::input::Input;

/// Arguments of `perfscope info`.
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// A perf.data file or a `perf record --threads` directory.
    file: PathBuf,
}

/// Runs `perfscope info`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    let input = Input::read(&args.file)?;
    let s = Summary::from_bytes(&input.bytes);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&s).map_err(|e| e.to_string())?);
    } else {
        print_text(&args.file.display().to_string(), &s);
    }
    for w in &s.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(e) = &s.error {
        eprintln!("error: {}: {e}", args.file.display());
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_text(name: &str, s: &Summary) {
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    println!("file           : {name} ({} bytes)", s.file_size);
    if s.error.is_some() && s.byte_order.is_empty() {
        return;
    }
    println!("byte order     : {}", s.byte_order);
    println!("mode           : {}", if s.pipe_mode { "pipe" } else { "file" });
    if let Some(a) = s.attr_size {
        println!("attr size      : {a}");
    }
    println!("data           : {} bytes at 0x{:x}", s.data_size, s.data_offset);
    println!("hostname       : {}", opt(&s.hostname));
    println!("os release     : {}", opt(&s.os_release));
    println!("perf version   : {}", opt(&s.perf_version));
    println!("arch           : {}", opt(&s.arch));
    let n = |v: Option<u32>| v.map_or_else(|| "-".into(), |v| v.to_string());
    println!("nrcpus online  : {}", n(s.nr_cpus_online));
    println!("nrcpus avail   : {}", n(s.nr_cpus_available));
    println!("cpudesc        : {}", opt(&s.cpu_desc));
    println!("cpuid          : {}", opt(&s.cpuid));
    if let Some(m) = s.total_mem_kb {
        println!("total memory   : {m} kB");
    }
    println!("cmdline        : {}", opt(&s.cmdline));
    for e in &s.events {
        println!("event          : {} (type {}, config 0x{:x}, sample_type {}, {} ids)", e.name, e.type_, e.config, e.sample_type, e.ids);
    }
    println!("features       : {}", s.features.join(" "));
}
