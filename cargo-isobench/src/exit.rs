//! The documented exit codes.

/// Every record was read and written (or valid).
pub const OK: i32 = 0;
/// Some records were invalid or rejected (or the input held no record).
pub const RECORDS: i32 = 1;
/// A usage or configuration error: nothing was converted.
pub const USAGE: i32 = 2;
/// An input could not be read or the output could not be written.
pub const IO: i32 = 3;
