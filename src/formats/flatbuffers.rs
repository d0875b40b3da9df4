//! placeholder
use super::{DecodeError, Format, Sink};
use crate::model::Packet;
#[derive(Default)]
pub struct FlatBuffers;
impl Format for FlatBuffers {
    const NAME: &'static str = "flatbuffers";
    fn encode(&mut self, _packet: &Packet, _out: &mut Vec<u8>) {}
    fn decode<K: Sink>(&mut self, _bytes: &[u8], _sink: &mut K) -> Result<usize, DecodeError> { Err(DecodeError::Malformed("todo")) }
    fn decode_packet(&mut self, _bytes: &[u8]) -> Result<(Packet, usize), DecodeError> { Err(DecodeError::Malformed("todo")) }
}
