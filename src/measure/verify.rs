//! `--verify`: every packet a format decodes must equal the parsed source, field by field.
//!
//! On a mismatch the error names the packet and the first field that differs (by its name in
//! `schemas/iex-messages.txt`), so a broken encoder is found from the message alone.

use crate::model::{Field, FieldVisitor, Message, Packet};

/// Where a decoded packet first differs from its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Field path, e.g. `messages[2].TradeReport.price` or `seq`.
    pub field: String,
    pub expected: String,
    pub got: String,
}

/// `None` when equal.
pub fn compare(expected: &Packet, got: &Packet) -> Option<Mismatch> {
    if expected == got {
        return None;
    }
    let field = |name: &str, e: &dyn std::fmt::Debug, g: &dyn std::fmt::Debug| Mismatch {
        field: name.to_owned(),
        expected: format!("{e:?}"),
        got: format!("{g:?}"),
    };
    if expected.seq != got.seq {
        return Some(field("seq", &expected.seq, &got.seq));
    }
    if expected.send_time != got.send_time {
        return Some(field("send_time", &expected.send_time, &got.send_time));
    }
    if expected.messages.len() != got.messages.len() {
        return Some(field(
            "messages.len()",
            &expected.messages.len(),
            &got.messages.len(),
        ));
    }
    let (i, (e, g)) = expected
        .messages
        .iter()
        .zip(&got.messages)
        .enumerate()
        .find(|(_, (e, g))| e != g)?;
    Some(message_field(i, e, g))
}

/// Each field's name and printed value, in the table's order.
#[derive(Default)]
struct Printed(Vec<(&'static str, String)>);

impl FieldVisitor for Printed {
    fn field<T: Field>(&mut self, name: &'static str, value: T) {
        self.0.push((name, format!("{value:?}")));
    }
}

/// Names the first field in which two messages differ, from the message table's field names;
/// the type if the types differ.
fn message_field(index: usize, expected: &Message, got: &Message) -> Mismatch {
    let (ve, vg) = (expected.name(), got.name());
    if ve != vg {
        return Mismatch {
            field: format!("messages[{index}].type"),
            expected: ve.to_owned(),
            got: vg.to_owned(),
        };
    }
    let (mut pe, mut pg) = (Printed::default(), Printed::default());
    expected.visit_fields(&mut pe);
    got.visit_fields(&mut pg);
    match pe.0.iter().zip(&pg.0).find(|(a, b)| a != b) {
        Some(((name, e), (_, g))) => Mismatch {
            field: format!("messages[{index}].{ve}.{name}"),
            expected: e.clone(),
            got: g.clone(),
        },
        None => Mismatch {
            field: format!("messages[{index}]"),
            expected: format!("{expected:?}"),
            got: format!("{got:?}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::{packet, trade};
    use crate::model::*;

    #[test]
    fn names_the_first_differing_field() {
        let a = packet(vec![trade(1, 5), trade(2, 5)]);
        assert_eq!(compare(&a, &a.clone()), None);
        let b = packet(vec![trade(1, 5), trade(3, 5)]);
        assert_eq!(
            compare(&a, &b),
            Some(Mismatch {
                field: "messages[1].TradeReport.price".into(),
                expected: "2".into(),
                got: "3".into()
            })
        );
        let mut c = a.clone();
        c.seq = 7;
        assert_eq!(compare(&a, &c).unwrap().field, "seq");
        let d = packet(vec![trade(1, 5)]);
        assert_eq!(compare(&a, &d).unwrap().field, "messages.len()");
        let mut e = a.clone();
        e.messages[0] = Message::SystemEvent(SystemEvent {
            event: b'O',
            timestamp: 5,
        });
        let m = compare(&a, &e).unwrap();
        assert_eq!(m.field, "messages[0].type");
        assert_eq!(
            (m.expected.as_str(), m.got.as_str()),
            ("TradeReport", "SystemEvent")
        );
    }
}
