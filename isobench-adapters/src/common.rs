//! What several built-in adapters share: the repository release a SWE-bench-like harness
//! looks up, and SWE-bench's evaluation image of an instance.

use isobench_core::CanonicalRecord;
use isobench_core::table::io::Exporter;
use isobench_core::vocab::{self, Source};

/// The repository release (`X.Y`) a record is written with, which SWE-bench-like
/// harnesses use as a key of their spec table: for a record of the format being written,
/// its own `version`, whatever it looks like; otherwise the source's release kept beside
/// a derived `version`, or `version` itself unless it is an environment signature,
/// which no such harness can look up: then nothing, noted as dropped.
pub(crate) fn release<'r>(w: &mut Exporter<'_, 'r, '_>) -> Option<&'r str> {
    let record: &'r CanonicalRecord = w.record;
    if w.same_format() {
        return record.version.as_deref();
    }
    if let Some(release) = record.ext_str(vocab::UPSTREAM_VERSION) {
        return Some(release);
    }
    let version = record.version.as_deref()?;
    if isobench_core::envsig::is_signature(version) {
        let format = w.format().to_owned();
        w.notes.dropped(
            "version",
            format!("an environment signature, not a release {format}'s harness can look up"),
        );
        return None;
    }
    Some(version)
}

/// The rule [`swe_bench_image`] follows, for `derived` notes.
pub(crate) const SWE_BENCH_IMAGE_RULE: &str = "SWE-bench's evaluation image of the instance, `swebench/sweb.eval.x86_64.<instance_id, lower-cased, `__` as `_1776_`>:latest`";

/// SWE-bench's published image name for a record that came from SWE-bench: its
/// per-instance evaluation image (the environment at `base_commit`).
pub(crate) fn swe_bench_image(record: &CanonicalRecord) -> Option<String> {
    if Source::format_of(&record.extensions) != Some("swe-bench") {
        return None;
    }
    let id = record
        .instance_id
        .as_deref()?
        .to_lowercase()
        .replace("__", "_1776_");
    Some(format!("swebench/sweb.eval.x86_64.{id}:latest"))
}
