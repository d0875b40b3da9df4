//! dbn: documented, not measured. DBN's records are the `dbn` crate's fixed `repr(C)` layouts,
//! versioned as a whole (DBN version 1, 2, 3: the version a stream's metadata header states):
//! there is no field of our own to append, so the version 2 schema the other formats' checks
//! grow cannot be written in DBN. What DBN's own versioning gives is answered from the crate's
//! documentation: its decoders upgrade version 1 and 2 records to version 3
//! (`VersionUpgradePolicy::UpgradeToV3`, filling the fields a version added), so a newer reader
//! reads older bytes; a reader does not read records of a version newer than it knows.

use crate::capability::finding::Finding;
use crate::formats::dbn::Dbn;

const SOURCE: &str = "dbn crate 0.73 docs: dbn::VersionUpgradePolicy (UpgradeToV3), dbn::compat \
    (the v1 and v2 records and their conversion to v3); the DBN version in Metadata";

/// DBN's answer in both directions, documented.
impl super::Evolves for Dbn {
    fn evolution() -> (Finding, Finding) {
        let forward = Finding::documented(
            false,
            "a field is added only by a new DBN version, and a reader does not read records of a \
             version newer than the one it knows (DBN has no skippable fields)",
            SOURCE,
        );
        let backward = Finding::documented(
            true,
            "DBN's own versions only: the crate's decoders upgrade version 1 and 2 records to \
             version 3, the fields a version added at their defaults, where the stream's metadata \
             states the older version; a field of our own cannot be added (the layouts are the \
             crate's)",
            SOURCE,
        );
        (forward, backward)
    }
}
