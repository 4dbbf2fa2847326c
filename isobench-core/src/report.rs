//! What a conversion kept, derived, defaulted, dropped and rejected: per-record
//! [`Notes`] gathered into one [`ConversionReport`].

use std::collections::BTreeMap;

use serde::Serialize;

use crate::record::{CanonicalRecord, V1_FIELDS};

/// What happened to a field of one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoteKind {
    /// The target cannot hold the field; it was left out.
    Dropped,
    /// The value was computed from other fields by a published convention.
    Derived,
    /// The value is the target format's documented default.
    Defaulted,
    /// A field the target requires is absent; left out, never invented.
    Missing,
    /// A value the record held, replaced at the user's request (`--replace`); the old
    /// value is kept in `extensions.source.replaced`.
    Replaced,
    /// Anything else the user should know.
    Warning,
}

/// One note about one field of one record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// What happened.
    pub kind: NoteKind,
    /// The field (canonical name, `extensions.<key>`, or the foreign name).
    pub field: String,
    /// The rule applied, or the reason.
    pub detail: String,
}

/// The notes an adapter writes while converting one record.
///
/// A conversion clears and refills one `Notes` per record: the notes it clears are kept
/// aside and their texts' buffers written over by the next ones, so that the same notes
/// on every record (a field every record lacks) allocate nothing after the first.
#[derive(Debug, Clone, Default)]
pub struct Notes {
    notes: Vec<Note>,
    /// Notes cleared, whose buffers the next pushed notes reuse.
    spare: Vec<Note>,
}

impl Notes {
    /// No notes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a note.
    pub fn push(&mut self, kind: NoteKind, field: impl AsRef<str>, detail: impl AsRef<str>) {
        let mut note = self.spare.pop().unwrap_or(Note {
            kind,
            field: String::new(),
            detail: String::new(),
        });
        note.kind = kind;
        note.field.clear();
        note.field.push_str(field.as_ref());
        note.detail.clear();
        note.detail.push_str(detail.as_ref());
        self.notes.push(note);
    }

    /// The target cannot hold `field`.
    pub fn dropped(&mut self, field: impl AsRef<str>, detail: impl AsRef<str>) {
        self.push(NoteKind::Dropped, field, detail);
    }

    /// `field` was derived by `rule`; an earlier note that it is missing is withdrawn (a
    /// field is never both missing and derived).
    pub fn derived(&mut self, field: impl AsRef<str>, rule: impl AsRef<str>) {
        let field = field.as_ref();
        self.notes
            .retain(|n| !(n.kind == NoteKind::Missing && n.field == field));
        self.push(NoteKind::Derived, field, rule);
    }

    /// `field` got the target's default by `rule`.
    pub fn defaulted(&mut self, field: impl AsRef<str>, rule: impl AsRef<str>) {
        self.push(NoteKind::Defaulted, field, rule);
    }

    /// The value `field` held was replaced, by `rule`, at the user's request.
    pub fn replaced(&mut self, field: impl AsRef<str>, rule: impl AsRef<str>) {
        self.push(NoteKind::Replaced, field, rule);
    }

    /// The required `field` is absent (unless it was derived already).
    pub fn missing(&mut self, field: impl AsRef<str>, detail: impl AsRef<str>) {
        let field = field.as_ref();
        if !self
            .notes
            .iter()
            .any(|n| n.kind == NoteKind::Derived && n.field == field)
        {
            self.push(NoteKind::Missing, field, detail);
        }
    }

    /// Something worth saying about `field`.
    pub fn warn(&mut self, field: impl AsRef<str>, detail: impl AsRef<str>) {
        self.push(NoteKind::Warning, field, detail);
    }

    /// The notes, in the order written.
    pub fn iter(&self) -> impl Iterator<Item = &Note> {
        self.notes.iter()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    /// Forgets every note (keeping their buffers for the next ones).
    pub fn clear(&mut self) {
        self.spare.append(&mut self.notes);
    }
}

/// How many records a note concerned, and the first detail seen.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Records concerned.
    pub records: u64,
    /// The rule or reason, as first seen.
    pub detail: String,
}

/// A record that was not written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejection {
    /// The input file (`-` for stdin).
    pub file: String,
    /// 1-based line (JSONL) or record number (JSON array).
    pub line: u64,
    /// The record's `instance_id`, when it had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<String>,
    /// The field concerned, as a JSON pointer.
    pub pointer: String,
    /// Why.
    pub message: String,
}

/// A warning about one record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordWarning {
    /// The input file.
    pub file: String,
    /// 1-based line or record number.
    pub line: u64,
    /// The record's `instance_id`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<String>,
    /// The field concerned.
    pub field: String,
    /// What to know.
    pub message: String,
}

/// A record written although it lacks what the target requires.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IncompleteRecord {
    /// The input file.
    pub file: String,
    /// 1-based line or record number.
    pub line: u64,
    /// The record's `instance_id`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_id: Option<String>,
    /// The fields it lacks.
    pub lacks: Vec<String>,
}

/// The most rejections and warnings a report lists one by one (all are counted).
pub const MAX_LISTED: usize = 100;

/// The machine-readable report of one conversion (stable JSON: see docs/convert.md).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ConversionReport {
    /// Source format.
    pub from: String,
    /// Target format.
    pub to: String,
    /// Canonical profile.
    pub profile: String,
    /// Input files, in order.
    pub inputs: Vec<String>,
    /// The output file, or `-`.
    pub output: String,
    /// Records read.
    pub read: u64,
    /// Records written.
    pub written: u64,
    /// Records rejected.
    pub rejected: u64,
    /// For each canonical field, how many converted records had it.
    pub coverage: BTreeMap<String, u64>,
    /// Where the target writes each canonical field it can hold: the key (from its
    /// table; empty for a target declared by none). With `coverage`, `dropped`,
    /// `derived` and `defaulted`, every field of every record read is accounted for:
    /// written under this key, reported, or its record rejected.
    pub written_as: BTreeMap<String, String>,
    /// Fields left out because the target cannot hold them.
    pub dropped: BTreeMap<String, Tally>,
    /// Fields computed by a published convention.
    pub derived: BTreeMap<String, Tally>,
    /// Fields given the target's default, or a value given with `--set` where the record
    /// had none.
    pub defaulted: BTreeMap<String, Tally>,
    /// Values the records held, replaced at the user's request (`--replace`); each old
    /// value is kept in the record's `extensions.source.replaced`.
    pub replaced: BTreeMap<String, Tally>,
    /// Required fields absent from the source, left out.
    pub missing: BTreeMap<String, Tally>,
    /// Records written although they lack a field the target requires (`--allow-incomplete`;
    /// for canonical's lossless profile, a v1 field the source has none of).
    pub incomplete: u64,
    /// The first incomplete records, with the fields each lacks.
    pub incomplete_records: Vec<IncompleteRecord>,
    /// Number of warnings.
    pub warning_count: u64,
    /// The first warnings.
    pub warnings: Vec<RecordWarning>,
    /// The first rejections.
    pub rejections: Vec<Rejection>,
}

/// What a report counts of a canonical record: the v1 fields it has and its
/// `instance_id`. Taken before the record is handed to an export that consumes it.
#[derive(Debug, Clone, Default)]
pub struct Covered {
    /// Bit `i` set when the record has `V1_FIELDS[i]`.
    fields: u32,
    /// The record's `instance_id`.
    pub instance_id: Option<String>,
}

impl Covered {
    /// What `record` has.
    pub fn of(record: &CanonicalRecord) -> Self {
        Self {
            fields: record.fields_present(),
            instance_id: record.instance_id.clone(),
        }
    }
}

/// How many records had each v1 field, by field: the coverage of many records, counted
/// without a lookup in [`ConversionReport::coverage`] per field of each record, then
/// added to it at once ([`ConversionReport::add_coverage`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CoverageCounts([u64; V1_FIELDS.len()]);

impl CoverageCounts {
    /// Counts the fields a record has.
    pub fn count(&mut self, covered: &Covered) {
        for (i, n) in self.0.iter_mut().enumerate() {
            *n += u64::from(covered.fields >> i & 1);
        }
    }
}

/// Whether a note before the `k`th of `notes` has its kind and field.
fn noted_before(notes: &Notes, k: usize) -> bool {
    let note = &notes.notes[k];
    notes.notes[..k]
        .iter()
        .any(|n| n.kind == note.kind && n.field == note.field)
}

impl ConversionReport {
    /// An empty report for a conversion.
    pub fn new(from: &str, to: &str, profile: &str) -> Self {
        Self {
            from: from.to_owned(),
            to: to.to_owned(),
            profile: profile.to_owned(),
            ..Self::default()
        }
    }

    /// Counts a converted record: its canonical coverage and its notes.
    pub fn record_converted(
        &mut self,
        canonical: &CanonicalRecord,
        notes: &Notes,
        file: &str,
        line: u64,
    ) {
        self.record_covered(&Covered::of(canonical), notes, file, line);
    }

    /// Counts a converted record from what [`Covered`] kept of it.
    pub fn record_covered(&mut self, covered: &Covered, notes: &Notes, file: &str, line: u64) {
        self.record_covered_listing(covered, notes, file, line, true);
    }

    /// [`ConversionReport::record_covered`], listing the record among the incomplete
    /// ones only when `list_incomplete` (it is counted either way): a report of a later
    /// part of a conversion whose earlier parts already list as many as a report keeps
    /// lists none, since [`ConversionReport::merge`] would drop them.
    pub fn record_covered_listing(
        &mut self,
        covered: &Covered,
        notes: &Notes,
        file: &str,
        line: u64,
        list_incomplete: bool,
    ) {
        let mut counts = CoverageCounts::default();
        counts.count(covered);
        self.add_coverage(&mut counts);
        self.record_notes_listing(covered, notes, file, line, list_incomplete);
    }

    /// Adds `counts` to [`ConversionReport::coverage`], and empties them.
    pub fn add_coverage(&mut self, counts: &mut CoverageCounts) {
        for (field, n) in V1_FIELDS.into_iter().zip(std::mem::take(&mut counts.0)) {
            if n == 0 {
                continue;
            }
            // The key is allocated once per conversion, not once per record.
            match self.coverage.get_mut(field) {
                Some(count) => *count += n,
                None => {
                    self.coverage.insert(field.to_owned(), n);
                }
            }
        }
    }

    /// [`ConversionReport::record_covered_listing`] but for the record's coverage, which
    /// its caller counts in a [`CoverageCounts`] and adds once for many records.
    pub fn record_notes_listing(
        &mut self,
        covered: &Covered,
        notes: &Notes,
        file: &str,
        line: u64,
        list_incomplete: bool,
    ) {
        // The fields it lacks, each once, in the order first noted: only listed ones
        // are collected.
        let missing = || {
            notes
                .iter()
                .enumerate()
                .filter(|&(k, n)| n.kind == NoteKind::Missing && !noted_before(notes, k))
        };
        if missing().next().is_some() {
            self.incomplete += 1;
            if list_incomplete && self.incomplete_records.len() < MAX_LISTED {
                self.incomplete_records.push(IncompleteRecord {
                    file: file.to_owned(),
                    line,
                    instance_id: covered.instance_id.clone(),
                    lacks: missing().map(|(_, n)| n.field.clone()).collect(),
                });
            }
        }
        for (k, note) in notes.iter().enumerate() {
            if note.kind == NoteKind::Warning {
                self.warning_count += 1;
                if self.warnings.len() < MAX_LISTED {
                    self.warnings.push(RecordWarning {
                        file: file.to_owned(),
                        line,
                        instance_id: covered.instance_id.clone(),
                        field: note.field.clone(),
                        message: note.detail.clone(),
                    });
                }
                continue;
            }
            // A field counts once per record and kind.
            if noted_before(notes, k) {
                continue;
            }
            let table = match note.kind {
                NoteKind::Dropped => &mut self.dropped,
                NoteKind::Derived => &mut self.derived,
                NoteKind::Defaulted => &mut self.defaulted,
                NoteKind::Replaced => &mut self.replaced,
                NoteKind::Missing => &mut self.missing,
                NoteKind::Warning => unreachable!("warnings are handled above"),
            };
            let tally = match table.get_mut(&note.field) {
                Some(tally) => tally,
                None => table.entry(note.field.clone()).or_default(),
            };
            tally.records += 1;
            if tally.detail.is_empty() {
                tally.detail.clone_from(&note.detail);
            }
        }
    }

    /// Adds the counts of `part`, a report of records that come after this one's (a
    /// later batch of the same conversion); lists keep their first entries.
    pub fn merge(&mut self, part: ConversionReport) {
        self.read += part.read;
        self.written += part.written;
        self.rejected += part.rejected;
        for (field, n) in part.coverage {
            *self.coverage.entry(field).or_default() += n;
        }
        for (table, part) in [
            (&mut self.dropped, part.dropped),
            (&mut self.derived, part.derived),
            (&mut self.defaulted, part.defaulted),
            (&mut self.replaced, part.replaced),
            (&mut self.missing, part.missing),
        ] {
            for (field, tally) in part {
                let into = table.entry(field).or_default();
                into.records += tally.records;
                if into.detail.is_empty() {
                    into.detail = tally.detail;
                }
            }
        }
        self.incomplete += part.incomplete;
        let room = MAX_LISTED.saturating_sub(self.incomplete_records.len());
        self.incomplete_records
            .extend(part.incomplete_records.into_iter().take(room));
        self.warning_count += part.warning_count;
        let room = MAX_LISTED.saturating_sub(self.warnings.len());
        self.warnings.extend(part.warnings.into_iter().take(room));
    }

    /// Counts a rejected record.
    pub fn record_rejected(&mut self, rejection: Rejection) {
        self.rejected += 1;
        if self.rejections.len() < MAX_LISTED {
            self.rejections.push(rejection);
        }
    }

    /// Whether every record read was written.
    pub fn all_written(&self) -> bool {
        self.rejected == 0 && self.read == self.written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Records whose coverage is counted apart and added at once, before or after
        /// their notes, make the report that counting each record whole makes: coverage,
        /// tallies, incomplete records and warnings.
        #[test]
        fn coverage_counted_apart_adds_up_to_counting_each_record(
            records in proptest::collection::vec(
                (0u32..(1 << V1_FIELDS.len()), proptest::collection::vec(0usize..4, 0..4)),
                0..12,
            ),
            added_in_parts in proptest::bool::ANY,
        ) {
            let fields = ["repo", "patch", "head_commit"];
            let noted = |kinds: &[usize]| {
                let mut notes = Notes::new();
                for (i, &kind) in kinds.iter().enumerate() {
                    let field = fields[i % fields.len()];
                    match kind {
                        0 => notes.missing(field, "absent"),
                        1 => notes.dropped(field, "left out"),
                        2 => notes.warn(field, "odd"),
                        _ => notes.missing(field, "absent again"),
                    }
                }
                notes
            };
            let mut whole = ConversionReport::new("a", "b", "lossless");
            let mut apart = whole.clone();
            let mut counts = CoverageCounts::default();
            for (line, (mask, kinds)) in (1..).zip(&records) {
                let covered = Covered { fields: *mask, instance_id: Some(format!("i{line}")) };
                let notes = noted(kinds);
                whole.record_covered_listing(&covered, &notes, "f", line, true);
                counts.count(&covered);
                apart.record_notes_listing(&covered, &notes, "f", line, true);
                if added_in_parts && line % 3 == 0 {
                    apart.add_coverage(&mut counts);
                }
            }
            apart.add_coverage(&mut counts);
            proptest::prop_assert_eq!(&counts, &CoverageCounts::default());
            proptest::prop_assert_eq!(apart, whole);
        }
    }

    #[test]
    fn notes_are_tallied_once_per_record_and_kind() {
        let mut report = ConversionReport::new("a", "b", "lossless");
        let record = CanonicalRecord {
            repo: Some("o/r".into()),
            ..CanonicalRecord::default()
        };
        let mut notes = Notes::new();
        notes.missing("head_commit", "not in a SWE-bench record");
        notes.missing("head_commit", "said twice");
        notes.warn("created_at", "no zone");
        report.record_converted(&record, &notes, "f.jsonl", 3);
        report.record_converted(&record, &notes, "f.jsonl", 4);
        assert_eq!(report.missing["head_commit"].records, 2);
        assert_eq!(report.incomplete, 2);
        assert_eq!(report.incomplete_records[1].lacks, ["head_commit"]);
        assert_eq!(
            report.missing["head_commit"].detail,
            "not in a SWE-bench record"
        );
        assert_eq!(report.coverage["repo"], 2);
        assert_eq!(report.warning_count, 2);
        assert_eq!(report.warnings[1].line, 4);
    }

    #[test]
    fn a_derived_field_is_not_also_missing() {
        let mut notes = Notes::new();
        notes.missing("head_commit", "not in a SWE-bench record");
        notes.missing("created_at", "absent");
        notes.derived("head_commit", "from the pull request");
        notes.missing("head_commit", "said after the derivation");
        let kinds: Vec<(NoteKind, &str)> =
            notes.iter().map(|n| (n.kind, n.field.as_str())).collect();
        assert_eq!(
            kinds,
            vec![
                (NoteKind::Missing, "created_at"),
                (NoteKind::Derived, "head_commit")
            ]
        );
        let mut report = ConversionReport::new("swe-bench", "canonical", "lossless");
        report.record_converted(&CanonicalRecord::default(), &notes, "f.jsonl", 1);
        assert!(!report.missing.contains_key("head_commit"));
        assert_eq!(report.derived["head_commit"].records, 1);
    }

    /// A `Notes` cleared and refilled for each record (as a conversion does, reusing
    /// the cleared notes' buffers) says of each record what that record's notes say:
    /// nothing of an earlier record's longer or shorter texts is left.
    #[test]
    fn notes_refilled_after_clear_hold_only_the_new_texts() {
        let mut notes = Notes::new();
        let mut report = ConversionReport::new("swe-bench", "canonical", "lossless");
        notes.missing("environment_setup_commit_and_more", "a long first reason");
        notes.missing("b", "x");
        notes.dropped("c", "gone");
        report.record_converted(&CanonicalRecord::default(), &notes, "f.jsonl", 1);
        notes.clear();
        assert!(notes.is_empty());
        notes.missing("b", "y");
        notes.missing("a", "a second, longer reason than before");
        notes.missing("b", "said twice");
        report.record_converted(&CanonicalRecord::default(), &notes, "f.jsonl", 2);
        let texts: Vec<(NoteKind, &str, &str)> = notes
            .iter()
            .map(|n| (n.kind, n.field.as_str(), n.detail.as_str()))
            .collect();
        assert_eq!(
            texts,
            vec![
                (NoteKind::Missing, "b", "y"),
                (
                    NoteKind::Missing,
                    "a",
                    "a second, longer reason than before"
                ),
                (NoteKind::Missing, "b", "said twice"),
            ]
        );
        assert_eq!(
            report.incomplete_records[0].lacks,
            ["environment_setup_commit_and_more", "b"]
        );
        assert_eq!(report.incomplete_records[1].lacks, ["b", "a"]);
        assert_eq!(report.missing["b"].records, 2);
        assert_eq!(report.missing["b"].detail, "x");
        assert_eq!(report.missing["a"].records, 1);
        assert_eq!(report.dropped["c"].records, 1);
        assert_eq!(report.incomplete, 2);
    }
}
