//! Interface Description Block: link type, snap length and the timestamp unit (`if_tsresol`).

use nom::number::complete::{i64 as ni64, u16 as nu16, u32 as nu32};
use nom::number::Endianness;
use nom::{IResult, Parser};

use crate::capture::record::parsed;
use crate::error::{At, Result};

const OPT_END: u16 = 0;
const OPT_IF_TSRESOL: u16 = 9;
const OPT_IF_TSOFFSET: u16 = 14;

/// Units of an interface's timestamps: `10^-n` or `2^-n` seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TsResolution {
    Pow10(u8),
    Pow2(u8),
}

impl Default for TsResolution {
    /// The spec's default: microseconds.
    fn default() -> Self {
        TsResolution::Pow10(6)
    }
}

impl TsResolution {
    pub fn from_option(byte: u8) -> TsResolution {
        if byte & 0x80 == 0 {
            TsResolution::Pow10(byte)
        } else {
            TsResolution::Pow2(byte & 0x7f)
        }
    }

    /// Converts a raw timestamp to nanoseconds, saturating instead of overflowing.
    #[inline]
    pub fn to_nanos(self, ts: u64) -> u64 {
        match self {
            TsResolution::Pow10(9) => ts,
            TsResolution::Pow10(n) if n < 9 => ts.saturating_mul(10u64.pow(u32::from(9 - n))),
            TsResolution::Pow10(n) => ts / 10u64.saturating_pow(u32::from(n - 9)),
            TsResolution::Pow2(n) => {
                let ns = (u128::from(ts) * 1_000_000_000) >> n.min(127);
                u64::try_from(ns).unwrap_or(u64::MAX)
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Interface {
    pub link_type: u32,
    pub snaplen: u32,
    pub ts_resolution: TsResolution,
    /// `if_tsoffset`: seconds to add to every timestamp.
    pub ts_offset: i64,
}

impl Interface {
    pub fn parse(body: &[u8], endian: Endianness) -> IResult<&[u8], Interface> {
        let (mut rest, (link_type, _reserved, snaplen)) =
            (nu16(endian), nu16(endian), nu32(endian)).parse(body)?;
        let mut iface = Interface {
            link_type: u32::from(link_type),
            snaplen,
            ..Interface::default()
        };
        // Options: (code u16, length u16, value padded to 4). Stop at the end marker or when the
        // body runs out: options are advisory, a bad one must not lose the interface.
        while rest.len() >= 4 {
            let Ok((value, (code, len))) = (nu16::<_, ()>(endian), nu16(endian)).parse(rest) else {
                break;
            };
            let len = usize::from(len);
            let padded = (len + 3) & !3;
            if code == OPT_END || padded > value.len() {
                break;
            }
            match (code, len) {
                (OPT_IF_TSRESOL, 1) => iface.ts_resolution = TsResolution::from_option(value[0]),
                (OPT_IF_TSOFFSET, 8) => {
                    if let Ok((_, off)) = ni64::<_, ()>(endian).parse(value) {
                        iface.ts_offset = off;
                    }
                }
                _ => {}
            }
            rest = &value[padded..];
        }
        Ok((rest, iface))
    }

    #[inline]
    pub fn timestamp_nanos(&self, raw: u64) -> u64 {
        let ns = self.ts_resolution.to_nanos(raw);
        ns.saturating_add_signed(self.ts_offset.saturating_mul(1_000_000_000))
    }
}

pub(super) fn read(body: &[u8], endian: Endianness, at: At) -> Result<Interface> {
    parsed(
        Interface::parse(body, endian),
        "pcapng interface description block",
        at,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolutions_convert_to_nanoseconds() {
        assert_eq!(TsResolution::default().to_nanos(1_500_000), 1_500_000_000);
        assert_eq!(TsResolution::from_option(9).to_nanos(42), 42);
        assert_eq!(TsResolution::from_option(3).to_nanos(2), 2_000_000);
        assert_eq!(TsResolution::from_option(12).to_nanos(5_000), 5);
        // 2^-10 s units: 1024 units = 1 s.
        assert_eq!(
            TsResolution::from_option(0x8a).to_nanos(1024),
            1_000_000_000
        );
        assert_eq!(TsResolution::from_option(0).to_nanos(u64::MAX), u64::MAX);
    }
}
