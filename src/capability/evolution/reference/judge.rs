//! What the reference checks share: the format's answer ([`FormatEvolution`]), the appended
//! fields taken out of what a tool read, and the two directions judged against the source.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

use super::super::harness::{grown, read_forward};
use super::super::v2::{appended_to, Appended, APPENDED};
use crate::capability::cross_language::compare::{self, TheirPacket};
use crate::capability::cross_language::tool::ToolError;
use crate::capability::finding::Finding;
use crate::model::Packet;

/// The format's evolution as its reference implementation reads it, beside the crate's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormatEvolution {
    /// What answered for the format, with its version (`Python avro 1.12.2`).
    pub reference: String,
    /// What the row's own evolution cells measure (`apache-avro 0.22`).
    pub crate_under_test: String,
    /// Why the crate falls short of the specification, in a few words.
    pub crate_defect: String,
    /// The reference implementation's v1 reader on the v2 writer's bytes.
    pub forward: Finding,
    /// The reference implementation's v2 reader on the codec's (v1) bytes.
    pub backward: Finding,
}

/// Removes from `fields` (a message of type `variant` as a tool read it, under the tool's names)
/// the field version 2 appends to that type: `None` for a type that grows none, else the value
/// the tool read (`Some(None)`: it read none).
pub(super) fn take_appended(variant: &str, fields: &mut Map<String, Json>) -> Option<Option<Json>> {
    let a = appended_to(variant)?;
    let key = fields
        .keys()
        .find(|k| compare::snake(k) == a.field)
        .cloned();
    Some(key.and_then(|k| fields.remove(&k)))
}

/// What a reference implementation read: the packets, and per message in order the field
/// version 2 appends to its type as [`take_appended`] found it.
pub(super) struct Read {
    pub packets: Vec<TheirPacket>,
    pub appended: Vec<Option<Option<Json>>>,
}

/// Forward: every v1 field of `source` read exactly (a v1 reader reports no appended field: it
/// would be a field the model lacks).
pub(super) fn forward(source: &[Packet], read: &[TheirPacket]) -> Result<String, String> {
    compare::compare(source, read)?;
    Ok(read_forward(source))
}

/// Backward: every v1 field of `source` read exactly, and each appended field read as `absent`
/// says a reader of bytes without it must (`what`: what that value is, for the finding).
pub(super) fn backward(
    source: &[Packet],
    read: &Read,
    absent: impl Fn(&Appended) -> i128,
    what: &str,
) -> Result<String, String> {
    compare::compare(source, &read.packets)?;
    let messages = source.iter().flat_map(|p| &p.messages);
    for (k, (m, value)) in messages.zip(&read.appended).enumerate() {
        let Some(a) = appended_to(m.name()) else {
            continue;
        };
        let expected = absent(&a);
        let got = match value {
            Some(Some(v)) => compare::integer(v).ok(),
            _ => None,
        };
        if got != Some(expected) {
            let seen = match value {
                Some(Some(v)) => v.to_string(),
                _ => "nothing".to_owned(),
            };
            return Err(format!(
                "message {} (a {}): {} read as {seen}, not {expected} ({what})",
                k + 1,
                a.message,
                a.field
            ));
        }
    }
    let fields: Vec<String> = APPENDED
        .iter()
        .map(|a| format!("{}.{} = {}", a.message, a.field, absent(a)))
        .collect();
    Ok(format!(
        "the v2 reader read every v1 field of {} exactly, and {} ({what})",
        grown(source),
        fields.join(", ")
    ))
}

/// The finding on what a reference implementation read (or why it could not), as `judge` judges
/// it.
pub(super) fn finding<R>(
    read: Result<R, ToolError>,
    judge: impl FnOnce(R) -> Result<String, String>,
    decided_by: String,
) -> Finding {
    let outcome = read.map_err(|e| e.to_string()).and_then(judge);
    super::super::harness::finding(outcome, "", &decided_by)
}

#[cfg(test)]
impl FormatEvolution {
    /// What `check` finds in a scratch folder of its own, asserted to be the format measured
    /// evolving both ways.
    pub(super) fn evolving(check: fn(&std::path::Path) -> FormatEvolution) -> FormatEvolution {
        let dir = tempfile::tempdir().unwrap();
        let found = check(dir.path());
        for f in [&found.forward, &found.backward] {
            assert!(f.yes() && f.measured, "{}", f.answer);
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_appended_field_is_taken_by_its_snake_name() {
        let mut sbe = json!({"price": 1, "matchId": -5})
            .as_object()
            .unwrap()
            .clone();
        assert_eq!(
            take_appended("TradeReport", &mut sbe),
            Some(Some(json!(-5)))
        );
        assert_eq!(sbe.len(), 1);
        let mut avro = json!({"attribution": 0}).as_object().unwrap().clone();
        assert_eq!(take_appended("AddOrder", &mut avro), Some(Some(json!(0))));
        let mut none = Map::new();
        assert_eq!(take_appended("AddOrder", &mut none), Some(None));
        // Trade Break shares Trade Report's struct but does not grow.
        assert_eq!(take_appended("TradeBreak", &mut none), None);
    }
}
