//! The pcapng block types and limits, and the error every block parser gives for a malformed
//! block.

use crate::error::{At, Error};

/// Section Header Block type: the same four bytes in either byte order.
pub const SHB_TYPE: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];
pub const IDB_TYPE: u32 = 0x0000_0001;
pub const SPB_TYPE: u32 = 0x0000_0003;
pub const EPB_TYPE: u32 = 0x0000_0006;
pub const BYTE_ORDER_MAGIC: u32 = 0x1a2b_3c4d;
/// Interfaces one section may declare before we call the file hostile.
pub const MAX_INTERFACES: usize = 1 << 16;

pub(crate) fn malformed(at: At, detail: &str) -> Error {
    Error::Malformed {
        what: "pcapng block",
        at,
        detail: detail.to_owned(),
    }
}
