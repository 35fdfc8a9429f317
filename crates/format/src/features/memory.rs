//! HEADER_MEM_TOPOLOGY: which memory blocks (`/sys/devices/system/memory/memory*`) belong to
//! each NUMA node.

use alloc::vec::Vec;

use super::{read_count_u64, with_capacity};
use crate::bytes::Bytes;
use crate::endian::Endianness;
use crate::error::{Error, ErrorKind, Result};

/// HEADER_MEM_TOPOLOGY.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemTopology<'a> {
    /// The layout version (1).
    pub version: u64,
    /// `block_size_bytes`: the size of one memory block.
    pub block_size: u64,
    /// The nodes, sorted by node number.
    pub nodes: Vec<MemoryNode<'a>>,
}

/// One node of HEADER_MEM_TOPOLOGY (`struct memory_node`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryNode<'a> {
    /// `node`.
    pub node: u64,
    /// `size`: the number of bits in the bitmap (highest block index + 1).
    pub size: u64,
    /// The bitmap as stored: `u64` words in the file's byte order, bit `i` of word `i / 64`
    /// set when block `i` belongs to the node.
    pub bitmap: &'a [u8],
    /// The byte order of `bitmap`'s words.
    pub endian: Endianness,
}

impl MemoryNode<'_> {
    /// The indexes of the node's memory blocks, ascending.
    pub fn blocks(&self) -> impl Iterator<Item = u64> + '_ {
        let endian = self.endian;
        let size = self.size;
        self.bitmap
            .chunks_exact(8)
            .enumerate()
            .flat_map(move |(w, chunk)| {
                let word = chunk.try_into().map_or(0, |a| endian.u64(a));
                (0..64u64)
                    .filter(move |bit| word & (1 << bit) != 0)
                    .map(move |bit| w as u64 * 64 + bit)
            })
            .filter(move |&i| i < size)
    }

    /// How many blocks the node has (perf's `bitmap_weight`).
    pub fn weight(&self) -> u64 {
        self.blocks().count() as u64
    }
}

/// Parses HEADER_MEM_TOPOLOGY: `u64 version` (1), `u64 block_size`, `u64 nr`, then per node
/// `u64 node`, `u64 size` and a bitmap (`u64 bits` then `ceil(bits / 64)` `u64` words).
pub fn parse_mem_topology(mut b: Bytes<'_>) -> Result<MemTopology<'_>> {
    let at = b.offset();
    let version = b.read_u64("mem_topology version")?;
    if version != 1 {
        return Err(Error::new(
            at,
            ErrorKind::BadValue {
                what: "mem_topology version",
                value: version,
            },
        ));
    }
    let block_size = b.read_u64("mem_topology block_size")?;
    let n = read_count_u64(&mut b, "mem_topology node count", 24)?;
    let mut nodes = with_capacity(n);
    for _ in 0..n {
        let node = b.read_u64("memory node")?;
        let _size = b.read_u64("memory node size")?;
        // The bitmap repeats the size; perf keeps the bitmap's.
        let size = b.read_u64("memory node bitmap size")?;
        let words = size.div_ceil(64);
        let bitmap = b.read_bytes_u64(words.saturating_mul(8), "memory node bitmap")?;
        nodes.push(MemoryNode {
            node,
            size,
            bitmap,
            endian: b.endian(),
        });
    }
    Ok(MemTopology {
        version,
        block_size,
        nodes,
    })
}

#[cfg(test)]
mod tests {
    use super::super::builder::Builder;
    use super::*;

    #[test]
    fn mem_topology_in_both_byte_orders() {
        for endian in [Endianness::Little, Endianness::Big] {
            let mut b = Builder::new(endian);
            b.u64(1).u64(0x800_0000).u64(1);
            // Node 0: blocks 0-23 and 32-199 (200 bits, 4 words).
            b.u64(0).u64(200).u64(200);
            b.u64(0xffff_ffff_00ff_ffff)
                .u64(u64::MAX)
                .u64(u64::MAX)
                .u64(0xff);
            let t = parse_mem_topology(b.bytes(0)).unwrap();
            assert_eq!((t.version, t.block_size, t.nodes.len()), (1, 0x800_0000, 1));
            let node = t.nodes[0];
            assert_eq!(node.weight(), 24 + 168);
            let blocks: Vec<u64> = node.blocks().collect();
            assert_eq!(&blocks[22..26], &[22, 23, 32, 33]);
            assert_eq!(blocks.last(), Some(&199));
        }
    }

    #[test]
    fn a_huge_bitmap_size_is_an_eof_error_not_an_allocation() {
        let mut b = Builder::new(Endianness::Little);
        b.u64(1).u64(4096).u64(1).u64(0).u64(u64::MAX).u64(u64::MAX);
        let err = parse_mem_topology(b.bytes(0)).unwrap_err();
        assert_eq!(err.offset, 48);
        assert!(matches!(
            err.kind,
            ErrorKind::UnexpectedEof {
                what: "memory node bitmap",
                ..
            }
        ));
    }
}
