//! The built-in adapters of `cargo isobench`: `canonical`, `swe-bench`, `swe-smith`,
//! `minisandbox`, `swe-perf`, `gso`, and `harbor` (task folders, written and read back). Each registers itself with `inventory`, so
//! linking this crate is enough to find them all in [`isobench_core::Registry::builtin`].
//!
//! ```
//! use isobench_core::{Notes, Registry, adapter::ExportOptions};
//!
//! isobench_adapters::link();
//! let registry = Registry::builtin();
//! let swe_bench = registry.get("swe-bench").expect("built in");
//! let row = serde_json::json!({
//!     "repo": "octo/widgets", "instance_id": "octo__widgets-7",
//!     "base_commit": "0123456789abcdef0123456789abcdef01234567",
//!     "patch": "", "test_patch": "", "problem_statement": "Sorting is slow",
//!     "hints_text": "", "created_at": "2024-05-01T10:00:00Z", "version": "1.4",
//!     "FAIL_TO_PASS": "[\"tests/test_sort.py::test_big\"]", "PASS_TO_PASS": "[]",
//!     "environment_setup_commit": "0123456789abcdef0123456789abcdef01234567"
//! });
//! let mut notes = Notes::new();
//! let canonical = swe_bench.import(row.as_object().unwrap().clone(), &mut notes)?;
//! assert_eq!(canonical.ext_list("fail_to_pass").unwrap(), ["tests/test_sort.py::test_big"]);
//! let back = swe_bench.export(&canonical, &ExportOptions::default(), &mut notes)?;
//! assert_eq!(serde_json::Value::Object(back), row);
//! # Ok::<(), isobench_core::RecordError>(())
//! ```
#![forbid(unsafe_code)]

mod canonical;
mod common;
mod gso;
mod harbor;
mod minisandbox;
mod smith_family;
mod smith_profiles;
mod swe_bench;
mod swe_perf;
mod swe_smith;

pub use canonical::Canonical;
pub use smith_profiles::{SmithProfile, SmithProfiles};
pub use swe_bench::Accepted5x;

/// The names of the built-in adapters.
pub const BUILTIN: [&str; 7] = [
    "canonical",
    "gso",
    "harbor",
    "minisandbox",
    "swe-bench",
    "swe-perf",
    "swe-smith",
];

/// Makes sure this crate, and with it every built-in adapter's registration, is linked
/// into the program. Call it once before [`isobench_core::Registry::builtin`].
pub fn link() {
    // Referencing the crate is what matters; the registrations run at load time.
    std::hint::black_box(&BUILTIN);
}
