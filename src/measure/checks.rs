//! The checks every run makes outside the timed regions: each packet decoded whole, the
//! complete decode's checksum the source's, `--verify`'s field-by-field comparison, and each
//! format's aggregation the source's.

use crate::formats::Aggregate;
use crate::model::Packet;

use super::config::RunError;
use super::runner::{PacketStat, Runner};
use super::stats::FormatResult;
use super::verify;
use super::workload::Workload;

/// A pass timed per unit (`workload` of `format`), as its checks of the packets' lengths see it.
#[derive(Debug, Clone, Copy)]
pub struct PassCheck<'a> {
    pub format: &'static str,
    pub workload: Workload,
    /// What the pass reported, one per packet decoded so far.
    pub stats: &'a [PacketStat],
    /// Where the encoder ended each packet of the window.
    pub ends: &'a [usize],
    /// The window's source packets.
    pub packets: &'a [Packet],
    /// The number of the window's first packet in the input.
    pub first_packet: u64,
}

impl PassCheck<'_> {
    /// A per-packet decode must report every packet of the window, each ending where the
    /// encoder's did: a decoder that stops early, or claims more or fewer bytes than a packet
    /// has, is caught here even where its values happen to be right.
    pub fn each_packet_whole(&self) -> Result<(), RunError> {
        self.ends_agree()?;
        if self.stats.len() == self.ends.len() {
            return Ok(());
        }
        let what = format!(
            "the {} read {} packets, the encoder wrote {}",
            self.workload.name(),
            self.stats.len(),
            self.ends.len()
        );
        Err(in_window(self.format, self.first_packet, what))
    }

    /// The packets decoded so far each ended where the encoder's did. Also asked when a decode
    /// fails: a wrong length before it is the cause to name, not the failure it led to.
    pub fn ends_agree(&self) -> Result<(), RunError> {
        let Self { stats, ends, .. } = *self;
        let Some(at) = stats.iter().zip(ends).position(|(s, &e)| s.end != e) else {
            return Ok(());
        };
        let start = if at == 0 { 0 } else { ends[at - 1] };
        Err(RunError::Disagree {
            format: self.format,
            what: format!(
                "packet {} (seq {}): the {} used {} bytes, the encoder wrote {}",
                self.first_packet + at as u64,
                self.packets[at].seq,
                self.workload.name(),
                stats[at].end.saturating_sub(start),
                ends[at] - start
            ),
        })
    }
}

/// `format` disagrees with the source in the window starting at packet `first_packet`.
pub fn in_window(format: &'static str, first_packet: u64, what: String) -> RunError {
    RunError::Disagree {
        format,
        what: format!("window starting at packet {first_packet}: {what}"),
    }
}

/// The error for a packet whose complete decode does not give the source's checksum: decoded
/// back into the model and compared field by field, so the message names the field.
pub fn checksum_mismatch(
    runner: &mut dyn Runner,
    start: usize,
    expected: &Packet,
    packet: u64,
) -> RunError {
    let format = runner.name();
    match runner.decode_packet_at(start) {
        Ok(got) => mismatch(format, packet, expected, &got).unwrap_or_else(|| RunError::Disagree {
            format,
            what: format!(
                "packet {packet} (seq {}): the complete decode's checksum differs from the \
                 source's, yet the packet decodes back equal",
                expected.seq
            ),
        }),
        Err(cause) => RunError::Decode {
            format,
            packet,
            seq: expected.seq,
            cause,
        },
    }
}

/// Decodes the runner's buffer back into packets and compares each with its source.
pub fn verify_window(
    runner: &mut dyn Runner,
    source: &[Packet],
    first_packet: u64,
    decoded: &mut Vec<Packet>,
) -> Result<(), RunError> {
    decoded.clear();
    let format = runner.name();
    runner
        .decode_packets(decoded)
        .map_err(|source_err| RunError::Decode {
            format,
            packet: first_packet + decoded.len() as u64,
            seq: source.get(decoded.len()).map_or(0, |p| p.seq),
            cause: source_err,
        })?;
    if decoded.len() != source.len() {
        return Err(RunError::Disagree {
            format,
            what: format!(
                "window starting at packet {first_packet} decodes to {} packets, not {}",
                decoded.len(),
                source.len()
            ),
        });
    }
    let wrong = (source.iter().zip(decoded.iter()).enumerate())
        .find_map(|(i, (expected, got))| mismatch(format, first_packet + i as u64, expected, got));
    wrong.map_or(Ok(()), Err)
}

/// Packet number `packet` of `format`, decoded back to `got`, compared field by field with its
/// source `want`: the first field that differs, if one does.
fn mismatch(format: &'static str, packet: u64, want: &Packet, got: &Packet) -> Option<RunError> {
    verify::compare(want, got).map(|m| RunError::Mismatch {
        format,
        packet,
        seq: want.seq,
        field: m.field,
        expected: m.expected,
        got: m.got,
    })
}

/// Every format must have carried every message and produced the reference aggregation, in the
/// per-packet passes (`per_packet`: the packets of the windows timed per packet) and in the batch
/// passes (`batch`: the packets after the warm-up of the windows timed whole).
pub fn cross_check<'r>(
    results: impl IntoIterator<Item = &'r FormatResult>,
    per_packet: &Aggregate,
    batch: &Aggregate,
    messages: u64,
) -> Result<(), RunError> {
    for r in results {
        let disagree = |what: String| RunError::Disagree {
            format: r.name,
            what,
        };
        if r.messages_encoded != messages {
            return Err(disagree(format!(
                "serialized {} messages, the input has {messages}",
                r.messages_encoded
            )));
        }
        for (pass, got, want) in [
            ("", &r.aggregate, per_packet),
            ("batch ", &r.batch_aggregate, batch),
        ] {
            if got.messages != want.messages {
                return Err(disagree(format!(
                    "{pass}deserialized {} messages, the packets it decoded hold {}",
                    got.messages, want.messages
                )));
            }
            if got != want {
                let differing = want
                    .sorted()
                    .into_iter()
                    .find(|(s, v)| got.get(s) != Some(v))
                    .map(|(s, v)| match got.get(&s) {
                        Some(g) => format!("symbol {s}: {}", v.difference(g)),
                        None => format!("symbol {s}: expected {v:?}, got nothing"),
                    })
                    .unwrap_or_else(|| "symbols, packets or sequence numbers differ".to_owned());
                return Err(disagree(format!(
                    "{pass}aggregate differs from the source: {differing}"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    //! Formats broken on purpose: each must make a default run (no `--verify`) fail with an
    //! error that says what is wrong, so the checks are shown to be able to fail.

    use super::super::config::Config;
    use super::super::outcome::Outcome;
    use super::super::runner::runner;
    use super::super::shootout::run_with;
    use super::super::stored::StoredMode;
    use super::super::twins::Twin;
    use super::*;
    use crate::formats::{raw::Raw, DecodeError, Documented, Format, Sink, Visitor};
    use crate::model::{Message, Packet, Side};
    use crate::stream::IexReader;

    // What a broken format does (its `FAULT`): to a packet before encoding it (a to e), or on
    // top of reading the codec's correct bytes (f to k).
    /// (a) Leaves out the last message of every packet with two or more.
    const DROP_MESSAGE: u8 = 0;
    /// (b) Adds 1 to the price of every trade report (a tick inside the day's range).
    const TRADE_PRICE: u8 = 1;
    /// (c) Swaps the first two messages of every packet with two or more.
    const SWAP_MESSAGES: u8 = 2;
    /// (d) Adds 1 ns to the timestamp of every price level update.
    const TIMESTAMP: u8 = 3;
    /// (e) Changes the round lot size of every security directory message.
    const ADMIN_FIELD: u8 = 4;
    /// None: the control, which must pass.
    pub(in super::super) const NOTHING: u8 = 5;
    /// (f) The complete decode claims the rest of the window after one packet in 50, so the
    /// window's decode stops early.
    const STOP_EARLY: u8 = 6;
    /// (g) The complete decode leaves out every trade report's `trade_id` (reads it as 0).
    const SKIP_FIELD: u8 = 7;
    /// (h) The selective decode hands over, for a price level strictly inside its symbol's
    /// range so far, another price strictly inside it: sums and extremes stay right.
    const NON_EXTREME_PRICE: u8 = 8;
    /// (i) Both decodes swap the first two messages of every packet with two or more.
    const SWAP_DECODED: u8 = 9;
    /// (j) The complete decode reports one byte more than each packet has.
    const MORE_BYTES: u8 = 10;
    /// (k) The complete decode reads the size of each trade, price level, quote bid and
    /// order one more (a field `dbn` carries, unlike `trade_id`).
    pub(in super::super) const SIZE: u8 = 11;

    fn apply(fault: u8, p: &mut Packet) {
        let n = p.messages.len();
        match fault {
            DROP_MESSAGE if n >= 2 => {
                p.messages.pop();
            }
            SWAP_MESSAGES if n >= 2 => p.messages.swap(0, 1),
            _ => {}
        }
        for m in &mut p.messages {
            match (fault, m) {
                (TRADE_PRICE, Message::TradeReport(t)) => t.price += 1,
                (TIMESTAMP, Message::PriceLevelUpdate(u)) => u.timestamp += 1,
                (ADMIN_FIELD, Message::SecurityDirectory(d)) => d.round_lot_size += 1,
                _ => {}
            }
        }
    }

    /// `F` (`raw` unless named), broken as `FAULT` says.
    #[derive(Default)]
    pub(in super::super) struct Broken<const FAULT: u8, F = Raw> {
        raw: F,
        scratch: Packet,
        /// Calls of each workload (encode, selective, complete decode).
        pub(in super::super) calls: [u32; 3],
        /// For `NonExtremePrice`.
        ranges: Ranges,
    }

    /// Price ranges so far, per symbol and side.
    type Ranges = std::collections::HashMap<([u8; 8], bool), (i64, i64)>;

    /// For a price strictly inside its range so far (`key`'s in `ranges`), another price
    /// strictly inside it (`NonExtremePrice`); any other price as it is.
    fn misprice(ranges: &mut Ranges, key: ([u8; 8], bool), price: i64) -> i64 {
        let range = ranges.entry(key).or_insert((price, price));
        let (lo, hi) = *range;
        *range = (lo.min(price), hi.max(price));
        match lo < price && price < hi && hi - lo >= 3 {
            true if price == lo + 1 => lo + 2,
            true => lo + 1,
            false => price,
        }
    }

    impl<const FAULT: u8, F: Format> Format for Broken<FAULT, F> {
        const NAME: &'static str = "broken";
        const DOCUMENTED: Documented = F::DOCUMENTED;
        const OTHER_LANGUAGES: crate::formats::OtherLanguages = F::OTHER_LANGUAGES;
        const LOSSY: Option<crate::formats::Lossy> = F::LOSSY;
        const STREAM: bool = F::STREAM;

        fn encode(&mut self, packet: &Packet, out: &mut Vec<u8>) -> usize {
            self.calls[0] += 1;
            self.scratch.clone_from(packet);
            apply(FAULT, &mut self.scratch);
            self.raw.encode(&self.scratch, out)
        }

        fn decode<K: Sink>(&mut self, bytes: &[u8], sink: &mut K) -> Result<usize, DecodeError> {
            self.calls[1] += 1;
            if !matches!(FAULT, NON_EXTREME_PRICE | SWAP_DECODED) {
                return self.raw.decode(bytes, sink);
            }
            // The selective decode of the packet as broken, through the model.
            let used = self.raw.decode_all(bytes, &mut self.scratch)?;
            let (p, ranges) = (&mut self.scratch, &mut self.ranges);
            if FAULT == SWAP_DECODED && p.messages.len() >= 2 {
                p.messages.swap(0, 1);
            }
            for m in &mut p.messages {
                if let (NON_EXTREME_PRICE, Message::PriceLevelUpdate(u)) = (FAULT, m) {
                    u.price = misprice(ranges, (u.symbol.0, u.side == Side::Buy), u.price);
                }
            }
            crate::formats::aggregate::visit_packet(p, sink);
            Ok(used)
        }

        fn decode_all<V: Visitor>(
            &mut self,
            bytes: &[u8],
            v: &mut V,
        ) -> Result<usize, DecodeError> {
            let mut used = self.raw.decode_all(bytes, &mut self.scratch)?;
            self.calls[2] += 1;
            let p = &mut self.scratch;
            match FAULT {
                STOP_EARLY if self.calls[2].is_multiple_of(50) => used = bytes.len(),
                SKIP_FIELD => {
                    for m in &mut p.messages {
                        if let Message::TradeReport(t) = m {
                            t.trade_id = 0;
                        }
                    }
                }
                SWAP_DECODED if p.messages.len() >= 2 => p.messages.swap(0, 1),
                MORE_BYTES => used += 1,
                SIZE => {
                    for m in &mut p.messages {
                        match m {
                            Message::TradeReport(t) => t.size += 1,
                            Message::PriceLevelUpdate(l) => l.size += 1,
                            Message::QuoteUpdate(q) => q.bid_size += 1,
                            Message::AddOrder(a) => a.size += 1,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
            v.packet(p.seq, p.send_time);
            for m in &p.messages {
                v.message(*m);
            }
            Ok(used)
        }
    }

    /// A run of `runners` over a synthetic day's first 3,000 packets in windows of 512, no size
    /// as stored, the rest as `config` says.
    pub(in super::super) fn run_over(
        runners: Vec<Box<dyn Runner>>,
        config: Config,
    ) -> Result<Outcome, RunError> {
        let bytes = super::super::synthetic_capture(3_000);
        let config = Config {
            stored: StoredMode::None,
            window: 512,
            ..config
        };
        let reader = IexReader::new(&bytes[..], false).unwrap();
        run_with(reader, &config, runners, |_| {})
    }

    /// The error a default run (no `--verify`) of `raw` and `broken` ends with; it must end
    /// with one.
    fn failure_of(broken: Box<dyn Runner>) -> String {
        match run_over(vec![runner::<Raw>(), broken], Config::default()) {
            Ok(_) => panic!("a broken format passed the run's checks"),
            Err(e) => {
                eprintln!("{e}");
                e.to_string()
            }
        }
    }

    fn failure<const FAULT: u8>() -> String {
        failure_of(runner::<Broken<FAULT>>())
    }

    /// One test per broken format: the run fails with an error that starts with `$start` and
    /// says each of `$says`.
    macro_rules! fails_the_run {
        ($($test:ident: $failure:expr, $start:literal, [$($says:literal),*];)*) => {$(
            #[test]
            fn $test() {
                let e = $failure;
                assert!(e.starts_with($start), "{e}");
                $(assert!(e.contains($says), "{e}");)*
            }
        )*};
    }

    fails_the_run! {
        a_complete_decode_that_stops_early_fails_the_run: failure::<STOP_EARLY>(),
            "broken: packet 50 (seq ", ["): the complete decode used ", " bytes, the encoder wrote "];
        a_complete_decode_that_skips_a_field_fails_the_run: failure::<SKIP_FIELD>(),
            "broken: ", ["].TradeReport.trade_id should be "];
        a_wrong_price_that_is_no_extreme_fails_the_run: failure::<NON_EXTREME_PRICE>(),
            "broken: aggregate differs from the source: symbol ",
            ["the same sums and extremes, but not the same values in order"];
        a_decoder_that_swaps_messages_fails_the_run: failure::<SWAP_DECODED>(),
            "broken: packet ", [": messages[0]."];
        a_decoder_that_claims_more_bytes_than_it_read_fails_the_run: failure::<MORE_BYTES>(),
            "broken: packet 1 (seq ", ["): the complete decode used ", " bytes, the encoder wrote "];
        a_broken_twin_fails_the_run_like_its_original:
            failure_of(runner::<Twin<Broken<SKIP_FIELD>, 1>>()),
            "broken.twin: ", ["].TradeReport.trade_id should be "];
        a_twin_whose_encoder_drops_a_message_fails_the_run:
            failure_of(runner::<Twin<Broken<DROP_MESSAGE>, 1>>()),
            "broken.twin: packet ", ["messages.len() should be "];
        a_dropped_message_fails_the_run: failure::<DROP_MESSAGE>(),
            "broken: packet ", ["messages.len() should be "];
        a_price_changed_within_the_range_fails_the_run: failure::<TRADE_PRICE>(),
            "broken: ", ["].TradeReport.price should be "];
        swapped_messages_fail_the_run: failure::<SWAP_MESSAGES>(),
            "broken: ", [": messages[0]."];
        an_altered_timestamp_fails_the_run: failure::<TIMESTAMP>(),
            "broken: ", ["].PriceLevelUpdate.timestamp should be "];
        an_altered_administrative_field_fails_the_run: failure::<ADMIN_FIELD>(),
            "broken: ", ["].SecurityDirectory.round_lot_size should be "];
    }

    /// The control passes; an encoder that writes every message but one, and says so, is caught
    /// by the count even before the checksums are compared.
    #[test]
    fn the_control_passes_and_the_encoders_count_is_checked() {
        let control = vec![runner::<Raw>(), runner::<Broken<NOTHING>>()];
        let mut o = run_over(control, Config::default()).unwrap();
        assert_eq!(o.formats[1].messages_encoded, o.messages);
        o.formats[1].messages_encoded -= 1;
        // raw passed every check, so its aggregates are the references of each pass.
        let (per_packet, batch) = (
            o.formats[0].aggregate.clone(),
            o.formats[0].batch_aggregate.clone(),
        );
        let e = cross_check(&o.formats, &per_packet, &batch, o.messages)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("broken: serialized "), "{e}");
    }
}
