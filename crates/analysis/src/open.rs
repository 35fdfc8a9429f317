//! [`open`]: tells a perf.data (file or pipe mode, or a directory's `data` file) from a
//! perfscope share file, so the app and the CLI accept either wherever they accept one.

use crate::export::share::{from_share, is_share, ShareError, SharedProfile};

/// What a file turned out to be.
#[derive(Debug)]
pub enum Opened {
    /// Not a share file: read it as a perf.data (the perf.data reader reports what is wrong
    /// with it if it is not one either).
    PerfData,
    /// A share file, read: the profile with its names, threads, samples and header summary.
    Share(Box<SharedProfile>),
}

/// Reads `bytes` as a share file when they start with its magic; otherwise says it is a
/// perf.data, to be read with the perf.data loader.
///
/// ```
/// use perfscope_analysis::export::share::{to_share, ShareOptions};
/// use perfscope_analysis::open::{open, Opened};
/// use perfscope_analysis::text_samples::profile_from_text_samples;
///
/// assert!(matches!(open(b"PERFILE2...").unwrap(), Opened::PerfData));
/// let p = profile_from_text_samples("main\n").unwrap();
/// let Opened::Share(shared) = open(&to_share(&p, None, &ShareOptions::default())).unwrap() else { panic!() };
/// assert_eq!(shared.profile.samples.len(), 1);
/// ```
pub fn open(bytes: &[u8]) -> Result<Opened, ShareError> {
    if is_share(bytes) {
        from_share(bytes).map(|s| Opened::Share(Box::new(s)))
    } else {
        Ok(Opened::PerfData)
    }
}
