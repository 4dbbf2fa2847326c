//! The summary a conversion prints on stderr, read from its report.
//!
//! It says what needs attention and nothing else: a conversion that wrote every record
//! and lost nothing says so in one line. A canonical field the source format never has
//! (SWE-bench has no `head_commit`) and that the lossless profile leaves out, as it
//! promises, is no warning; a field the source format has but some records lack is
//! listed. A run that stopped says how far it read and that nothing was written, not
//! what it would have written.

use std::fmt::Write as _;

use isobench_core::ConversionReport;

/// What the summary needs to know of the conversion besides its report.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The canonical fields the source format's import fills when a record has them
    /// (its adapter's `fills`); empty when the adapter does not say.
    pub source_fills: &'a [String],
}

impl Context<'_> {
    /// Whether `field`, missing from records written to `report.to`, is one the source
    /// format never has and the target leaves out without harm: canonical's lossless
    /// profile keeps only what the source has.
    fn never_in_source(&self, report: &ConversionReport, field: &str) -> bool {
        report.to == "canonical"
            && report.profile == "lossless"
            && !self.source_fills.is_empty()
            && !self.source_fills.iter().any(|f| f == field)
    }
}

/// The summary of a conversion that ran to its end.
pub fn finished(report: &ConversionReport, context: Context<'_>) -> String {
    let mut out = String::new();
    let head = format!("{} -> {} ({})", report.from, report.to, report.profile);
    let missing: Vec<_> = report
        .missing
        .iter()
        .filter(|(field, _)| !context.never_in_source(report, field))
        .collect();
    // Every missing field one the source has: the report's count of incomplete records
    // is theirs.
    let all_missing_count = missing.len() == report.missing.len();
    let clean = report.all_written()
        && missing.is_empty()
        && report.dropped.is_empty()
        && report.warning_count == 0;
    if clean {
        let _ = writeln!(
            out,
            "{head}: read {}, written {}: every record converted, nothing lost",
            report.read, report.written
        );
    } else {
        let _ = writeln!(
            out,
            "{head}: read {}, written {}, rejected {}",
            report.read, report.written, report.rejected
        );
    }
    if !missing.is_empty() {
        if all_missing_count && report.incomplete > 0 {
            let _ = writeln!(
                out,
                "  incomplete: {} record(s) written without a field {} requires",
                report.incomplete, report.to
            );
        }
        let _ = writeln!(
            out,
            "  missing (required by the target, absent from the record):"
        );
        for (field, tally) in missing {
            let _ = writeln!(
                out,
                "    {field}: {} record(s); {}",
                tally.records, tally.detail
            );
        }
    }
    for (title, table) in [
        ("derived", &report.derived),
        ("defaulted", &report.defaulted),
        (
            "replaced (`--replace`; the old values kept in `extensions.source.replaced`)",
            &report.replaced,
        ),
        ("dropped (the target cannot hold them)", &report.dropped),
    ] {
        if table.is_empty() {
            continue;
        }
        let _ = writeln!(out, "  {title}:");
        for (field, tally) in table {
            let _ = writeln!(
                out,
                "    {field}: {} record(s); {}",
                tally.records, tally.detail
            );
        }
    }
    if report.warning_count > 0 {
        let _ = writeln!(out, "  warnings: {}", report.warning_count);
        for w in report.warnings.iter().take(5) {
            let id = w.instance_id.as_deref().unwrap_or("?");
            let _ = writeln!(
                out,
                "    {}:{} ({id}) {}: {}",
                w.file, w.line, w.field, w.message
            );
        }
    }
    out
}

/// The summary of a conversion stopped by an error (printed after it): how far it read,
/// and that nothing was written.
pub fn stopped(report: &ConversionReport, streams: bool) -> String {
    let written = if streams && report.written > 0 {
        "what reached the output before it stopped stays there"
    } else {
        "nothing was written"
    };
    format!(
        "{} -> {} ({}): stopped after reading {} record(s); {written}\n",
        report.from, report.to, report.profile, report.read
    )
}

#[cfg(test)]
mod tests {
    use isobench_core::report::Tally;

    use super::*;

    fn report(to: &str, missing: &[&str]) -> ConversionReport {
        let mut report = ConversionReport::new("swe-bench", to, "lossless");
        report.read = 3;
        report.written = 3;
        for field in missing {
            report.missing.insert(
                (*field).to_owned(),
                Tally {
                    records: 3,
                    detail: "left out".into(),
                },
            );
        }
        report.incomplete = 3;
        report
    }

    fn fills() -> Vec<String> {
        vec!["repo".into(), "created_at".into()]
    }

    #[test]
    fn fields_the_source_never_has_leave_one_line() {
        let fills = fills();
        let context = Context {
            source_fills: &fills,
        };
        let text = finished(&report("canonical", &["head_commit"]), context);
        assert_eq!(
            text,
            "swe-bench -> canonical (lossless): read 3, written 3: every record converted, nothing lost\n"
        );
    }

    #[test]
    fn a_field_the_source_has_but_records_lack_is_listed() {
        let fills = fills();
        let context = Context {
            source_fills: &fills,
        };
        let text = finished(&report("canonical", &["created_at"]), context);
        assert!(text.contains("incomplete: 3 record(s)"), "{text}");
        assert!(text.contains("created_at: 3 record(s)"), "{text}");
        // With one the source never has beside it, the record count is not the report's.
        let text = finished(
            &report("canonical", &["created_at", "head_commit"]),
            context,
        );
        assert!(!text.contains("incomplete"), "{text}");
        assert!(text.contains("created_at: 3"), "{text}");
        assert!(!text.contains("head_commit"), "{text}");
    }

    #[test]
    fn another_targets_requirements_stay_warnings() {
        let fills = fills();
        let context = Context {
            source_fills: &fills,
        };
        let text = finished(&report("swe-perf", &["head_commit"]), context);
        assert!(text.contains("head_commit: 3 record(s)"), "{text}");
        // An adapter that does not say what it fills: nothing is assumed.
        let text = finished(
            &report("canonical", &["head_commit"]),
            Context { source_fills: &[] },
        );
        assert!(text.contains("head_commit: 3 record(s)"), "{text}");
    }

    #[test]
    fn a_stopped_run_says_what_its_output_holds() {
        let mut r = report("canonical", &["head_commit"]);
        r.written = 7;
        // A file is put in place whole, or not at all.
        let text = stopped(&r, false);
        assert!(!text.contains("written 7"), "{text}");
        assert!(!text.contains("incomplete"), "{text}");
        assert!(text.ends_with("nothing was written\n"), "{text}");
        // Standard output, a pipe or a device got the records as they came.
        let text = stopped(&r, true);
        assert!(
            text.ends_with("what reached the output before it stopped stays there\n"),
            "{text}"
        );
        r.written = 0;
        assert!(stopped(&r, true).ends_with("nothing was written\n"));
    }
}
