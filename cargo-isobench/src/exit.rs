//! The documented exit codes.
//!
//! Every command but `diff` uses the first four. `diff` answers a question, as `diff(1)`
//! does: 0 the two datasets hold the same records, 1 they differ ([`DIFFER`], the same
//! number as [`RECORDS`]), and 2 or more no verdict: [`USAGE`], [`IO`], or
//! [`UNCOMPARABLE`].

/// Every record was read and written (or valid); `diff`: the datasets hold the same records.
pub const OK: i32 = 0;
/// Some records were invalid or rejected (or the input held no record).
pub const RECORDS: i32 = 1;
/// `diff`: the two datasets differ (a record added, removed or changed).
pub const DIFFER: i32 = 1;
/// A usage or configuration error: nothing was converted (or compared).
pub const USAGE: i32 = 2;
/// An input could not be read or the output could not be written.
pub const IO: i32 = 3;
/// `diff`: a record could not be compared (unreadable, refused by its format, without an
/// `instance_id`, or repeating one of the same side), so there is no verdict.
pub const UNCOMPARABLE: i32 = 4;
