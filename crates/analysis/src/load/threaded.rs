//! [`load`] on two threads, for the command line: the records pass in the two halves the
//! page's two workers run ([`super::handover`]). A thread of its own walks the file, puts the
//! records in time order and decodes the samples ([`DeliveryWriter`]); the calling thread
//! keeps the threads, maps, symbols and stacks ([`ProfileLoader::take_deliveries`]). The
//! same profile, timeline and diagnostics as [`load`] (`tests/load_threaded.rs`).
//!
//! A pipe stream (its metadata grows with its records, so the two halves would read it at
//! different points) and a `perf record --threads` directory are loaded on one thread.

use std::sync::mpsc::{channel, sync_channel};

use perfscope_format::header::Magic;
use perfscope_format::metadata::Metadata;
use perfscope_format::walk::{walk, Item};

use super::{load, LoadError, LoadExtras, LoadOptions, Loaded, ProfileLoader};

/// The writer hands over its operations in buffers of about this many bytes (a sample's are
/// tens of bytes; a buffer is a few milliseconds of either half's work).
const BATCH: usize = 1 << 20;
/// Room past [`BATCH`] for the record that fills a buffer (and the ones it releases), so
/// that it is not grown.
const SLACK: usize = 64 << 10;
/// Buffers written ahead of the loader, at most.
const AHEAD: usize = 8;

/// What the walking thread sends, in file order.
enum Handed {
    /// Operations for [`ProfileLoader::take_deliveries`], and the metadata they need (sent
    /// with the first buffer only: a file's does not change).
    Ops(Option<Box<Metadata>>, Vec<u8>),
    /// A record the walk could not read (after the operations of the records before it).
    Error(perfscope_format::Error),
}

/// [`load`] with the records pass on two threads (see the module docs): the same result.
///
/// ```
/// use perfscope_analysis::load::{load, load_threaded, LoadExtras, LoadOptions};
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/example.data")).unwrap();
/// let two = load_threaded(&bytes, &[], LoadOptions::default(), LoadExtras::default()).unwrap();
/// let one = load(&bytes, &[], LoadOptions::default(), LoadExtras::default()).unwrap();
/// assert_eq!(two.profile.samples.len(), one.profile.samples.len());
/// ```
pub fn load_threaded(
    data: &[u8],
    extra: &[&[u8]],
    options: LoadOptions,
    extras: LoadExtras,
) -> Result<Loaded, LoadError> {
    let magic = Magic::parse(data).map_err(LoadError::Format)?;
    if magic.pipe || !extra.is_empty() {
        return load(data, extra, options, extras);
    }
    let mut loader = ProfileLoader::with_extras(options, extras);
    let mut writer = loader.delivery_writer();
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = sync_channel::<Handed>(AHEAD);
        // Buffers the loader is done with, for the writer to fill again.
        let (empty_tx, empty_rx) = channel::<Vec<u8>>();
        let walking = scope.spawn(move || {
            let fresh = || {
                empty_rx
                    .try_recv()
                    .unwrap_or_else(|_| Vec::with_capacity(BATCH + SLACK))
            };
            let mut ops = fresh();
            let mut first = true;
            // A closed channel: the loader stopped taking (it does not before the end).
            let mut send = |meta: &Metadata, ops: Vec<u8>| {
                let meta = std::mem::take(&mut first).then(|| Box::new(meta.clone()));
                let _ = full_tx.send(Handed::Ops(meta, ops));
            };
            let walked = walk(data, &[], |meta, _, item| match item {
                Item::Record(rec) => {
                    writer.push(meta, rec, &mut ops);
                    if ops.len() >= BATCH {
                        send(meta, std::mem::replace(&mut ops, fresh()));
                    }
                }
                Item::Error(e) => {
                    send(meta, std::mem::replace(&mut ops, fresh()));
                    let _ = full_tx.send(Handed::Error(*e));
                }
            });
            if let Ok(meta) = &walked {
                writer.finish(meta, &mut ops);
                send(meta, ops);
            }
            walked
        });
        let mut meta: Option<Box<Metadata>> = None;
        let mut bad = None;
        for handed in full_rx {
            match handed {
                Handed::Ops(sent, ops) => {
                    if sent.is_some() {
                        meta = sent;
                    }
                    if let (Some(m), None) = (meta.as_deref(), bad) {
                        bad = loader.take_deliveries(m, &ops).err();
                    }
                    let mut ops = ops;
                    ops.clear();
                    let _ = empty_tx.send(ops);
                }
                Handed::Error(e) => loader.push_error(e),
            }
        }
        let walked = walking
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e))
            .map_err(LoadError::Format)?;
        match bad {
            // The writer and the loader are made for each other: a buffer one wrote that the
            // other cannot read is a bug here, not in the file.
            Some(e) => Err(LoadError::Handover(e)),
            None => loader.finish_loaded(&walked),
        }
    })
}
