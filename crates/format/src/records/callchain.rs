//! Callchains (PERF_SAMPLE_CALLCHAIN, PERF_RECORD_CALLCHAIN_DEFERRED): a zero-copy view of the
//! `u64 ips[nr]` array with its context markers.

use core::iter::FusedIterator;

use super::array::{U64Array, U64Iter};
use super::sample_id::SampleId;
use crate::bytes::Bytes;
use crate::constants::callchain_context as ctx;
use crate::error::{Error, ErrorKind, Result};

/// `struct ip_callchain`: the `nr` entries of a callchain, newest frame first, as the kernel wrote
/// them. Entries at or above [`ctx::MAX`] are context markers (`PERF_CONTEXT_KERNEL`, `_USER`, …)
/// that say which address space the following addresses belong to; `PERF_CONTEXT_USER_DEFERRED`
/// is followed by a cookie naming a later PERF_RECORD_CALLCHAIN_DEFERRED that holds the user part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Callchain<'a> {
    ips: U64Array<'a>,
}

impl<'a> Callchain<'a> {
    /// A view of `ips`.
    pub const fn new(ips: U64Array<'a>) -> Self {
        Callchain { ips }
    }

    /// Reads `u64 nr` and `nr` entries.
    pub(crate) fn parse(b: &mut Bytes<'a>) -> Result<Self> {
        let at = b.offset();
        let nr = b.read_u64("callchain nr")?;
        let bytes = read_array(b, nr, 8, at, "callchain")?;
        Ok(Callchain {
            ips: U64Array::new(bytes, b.endian()),
        })
    }

    /// The raw entries, markers included (`nr` of them).
    pub const fn ips(&self) -> U64Array<'a> {
        self.ips
    }

    /// The number of entries, markers included.
    pub const fn len(&self) -> usize {
        self.ips.len()
    }

    /// Whether the callchain has no entry.
    pub const fn is_empty(&self) -> bool {
        self.ips.is_empty()
    }

    /// The entries, with markers told apart from addresses.
    pub fn items(&self) -> CallchainItems<'a> {
        CallchainItems {
            ips: self.ips.iter(),
        }
    }

    /// The addresses only, each with the context marker in force for it (0 before any marker).
    pub fn frames(&self) -> CallchainFrames<'a> {
        CallchainFrames {
            items: self.items(),
            context: 0,
        }
    }

    /// The cookie of a deferred user callchain, if the kernel deferred the user part.
    pub fn deferred_cookie(&self) -> Option<u64> {
        self.items().find_map(|i| match i {
            CallchainItem::UserDeferred { cookie } => Some(cookie),
            _ => None,
        })
    }
}

/// Reads `nr` items of `item_size` bytes, refusing counts the remaining bytes cannot hold.
pub(crate) fn read_array<'a>(
    b: &mut Bytes<'a>,
    nr: u64,
    item_size: u64,
    nr_at: u64,
    what: &'static str,
) -> Result<&'a [u8]> {
    let available = b.len() as u64;
    match nr.checked_mul(item_size) {
        Some(len) if len <= available => b.read_bytes_u64(len, what),
        _ => Err(Error::new(
            nr_at,
            ErrorKind::UnexpectedEof {
                what,
                needed: nr.saturating_mul(item_size),
                available,
            },
        )),
    }
}

/// One entry of a callchain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallchainItem {
    /// An instruction address (the sampled ip, then return addresses).
    Address(u64),
    /// A context marker (`PERF_CONTEXT_HV`, `_KERNEL`, `_USER`, `_GUEST*`, or unknown ones).
    Context(u64),
    /// `PERF_CONTEXT_USER_DEFERRED` and the cookie that follows it.
    UserDeferred {
        /// Matches the `cookie` of a PERF_RECORD_CALLCHAIN_DEFERRED.
        cookie: u64,
    },
}

/// Iterator over [`CallchainItem`]s.
#[derive(Debug, Clone)]
pub struct CallchainItems<'a> {
    ips: U64Iter<'a>,
}

impl Iterator for CallchainItems<'_> {
    type Item = CallchainItem;

    #[inline]
    fn next(&mut self) -> Option<CallchainItem> {
        let ip = self.ips.next()?;
        Some(if ip < ctx::MAX {
            CallchainItem::Address(ip)
        } else if ip == ctx::USER_DEFERRED {
            match self.ips.next() {
                Some(cookie) => CallchainItem::UserDeferred { cookie },
                None => CallchainItem::Context(ip),
            }
        } else {
            CallchainItem::Context(ip)
        })
    }
}

impl FusedIterator for CallchainItems<'_> {}

/// An address of a callchain with its context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallchainFrame {
    /// The address.
    pub addr: u64,
    /// The last context marker before it ([`ctx::KERNEL`], [`ctx::USER`], …; 0 if none).
    pub context: u64,
}

/// Iterator over the addresses of a callchain.
#[derive(Debug, Clone)]
pub struct CallchainFrames<'a> {
    items: CallchainItems<'a>,
    context: u64,
}

impl Iterator for CallchainFrames<'_> {
    type Item = CallchainFrame;

    #[inline]
    fn next(&mut self) -> Option<CallchainFrame> {
        loop {
            match self.items.next()? {
                CallchainItem::Address(addr) => {
                    return Some(CallchainFrame {
                        addr,
                        context: self.context,
                    })
                }
                CallchainItem::Context(c) => self.context = c,
                CallchainItem::UserDeferred { .. } => self.context = ctx::USER_DEFERRED,
            }
        }
    }
}

impl FusedIterator for CallchainFrames<'_> {}

/// PERF_RECORD_CALLCHAIN_DEFERRED: the user part of callchains whose samples carried
/// `PERF_CONTEXT_USER_DEFERRED` and this record's `cookie`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallchainDeferredRecord<'a> {
    /// `cookie`.
    pub cookie: u64,
    /// `nr` and `ips[nr]`.
    pub callchain: Callchain<'a>,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl<'a> CallchainDeferredRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>, sample_id: SampleId) -> Result<Self> {
        let cookie = b.read_u64("callchain_deferred cookie")?;
        let callchain = Callchain::parse(&mut b)?;
        Ok(CallchainDeferredRecord {
            cookie,
            callchain,
            sample_id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endian::Endianness;
    use crate::testutil::Builder;
    use alloc::vec::Vec;

    #[test]
    fn items_and_frames_tell_markers_from_addresses() {
        for e in [Endianness::Little, Endianness::Big] {
            let data = Builder::new(e)
                .u64(6)
                .u64s(&[
                    ctx::KERNEL,
                    0xffff_8000,
                    ctx::USER,
                    0x4000,
                    ctx::USER_DEFERRED,
                    77,
                ])
                .into_vec();
            let cc = Callchain::parse(&mut Bytes::new(&data, 0, e)).unwrap();
            assert_eq!(cc.len(), 6);
            let items: Vec<_> = cc.items().collect();
            assert_eq!(
                items,
                [
                    CallchainItem::Context(ctx::KERNEL),
                    CallchainItem::Address(0xffff_8000),
                    CallchainItem::Context(ctx::USER),
                    CallchainItem::Address(0x4000),
                    CallchainItem::UserDeferred { cookie: 77 },
                ]
            );
            let frames: Vec<_> = cc.frames().collect();
            assert_eq!(
                frames,
                [
                    CallchainFrame {
                        addr: 0xffff_8000,
                        context: ctx::KERNEL
                    },
                    CallchainFrame {
                        addr: 0x4000,
                        context: ctx::USER
                    }
                ]
            );
            assert_eq!(cc.deferred_cookie(), Some(77));
        }
    }

    #[test]
    fn a_count_larger_than_the_record_is_an_error_at_the_count() {
        let e = Endianness::Little;
        let data = Builder::new(e).u64(3).u64(1).into_vec();
        let err = Callchain::parse(&mut Bytes::new(&data, 0x30, e)).unwrap_err();
        assert_eq!(
            err,
            Error::new(
                0x30,
                ErrorKind::UnexpectedEof {
                    what: "callchain",
                    needed: 24,
                    available: 8
                }
            )
        );
    }
}
