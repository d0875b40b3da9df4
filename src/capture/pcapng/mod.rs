//! pcapng: a sequence of blocks `(type u32, total_length u32, body, total_length u32)`.
//!
//! A file may hold several sections, each opened by a Section Header Block whose byte-order magic
//! sets the byte order of every block up to the next section. Interface Description Blocks give
//! each interface's link type and timestamp unit; Enhanced and Simple Packet Blocks carry frames.
//! Any other block is skipped by its length. One file per block type, as in the spec.

mod block;
mod interface;
pub mod layout;
mod packet;
mod section;

pub(crate) use block::next;
pub use block::Section;
pub use interface::{Interface, TsResolution};
pub use layout::{BYTE_ORDER_MAGIC, EPB_TYPE, IDB_TYPE, MAX_INTERFACES, SHB_TYPE, SPB_TYPE};
pub use packet::EnhancedPacketHeader;
pub use section::SectionHeader;
