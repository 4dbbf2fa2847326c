//! Parquet: the layout this tool writes, and the writer. Reading, in batches of
//! [`READ_ROWS`] rows, is `crate::input::parquet_file`'s; what a file read may claim
//! (counts in its footer, sizes of its pages) is checked first by [`bounds`].
//!
//! **Writing.** The columns are declared from the target format's JSON Schema, not inferred
//! from the data: `string` is `Utf8`, `integer` `Int64`, `number` `Float64`, `boolean`
//! `Boolean`, an array of such items a list of them (an all-empty list column is still
//! typed), an object with a closed set of such properties a struct; a union that admits
//! strings (SWE-bench's "string or array" test lists) is a `Utf8` column of the strings,
//! as Hugging Face publishes SWE-bench; anything else (open objects, other unions, `{}`) is a
//! `Utf8` column of compact JSON text, marked as such. A declared column that no record of
//! the file has is not written. Two more columns make the file carry every record exactly,
//! each written only when some record needs it:
//!
//! - `__extra` (JSON text): the properties a record has that the schema does not declare,
//!   and any declared property whose value does not fit its column's type (a string where
//!   the schema says integer, an integer where it says number, ...), verbatim. Nothing is
//!   dropped and no record is rejected for its shape. A value of a union admitting strings
//!   that is not a string (a test list given as an array) is there too, and its column
//!   holds its JSON text, so that readers of the column see what Hugging Face's would.
//! - `__keys` (list of strings): the record's keys in order, written only when they cannot
//!   be told from the columns: a key order other than the schema's, or a property whose
//!   value is `null` (a null cell otherwise means the property is absent).
//!
//! The file's schema metadata holds `isobench.layout = 1`, which tells the reader to apply
//! these two columns (a file without it is read column for column, nulls as `null`),
//! `isobench.json_style`, the JSON style of the records written (so that converting the
//! file back to JSON writes them in that style), and `huggingface`, the columns as Hugging
//! Face `datasets` features.
//!
//! The columns to write are known only once every record is: a file of one row group
//! (up to [`GROUP_ROWS`] rows) is written at the end from memory; a longer one is written
//! row group by row group, with every column, to a spool file (encoded and compressed on a
//! thread of its own while the next row group is converted), and then the pages of the
//! columns some record had are copied, as they are, row group by row group: each row group
//! is compressed once.

//!
//! All but the layout's names are in the build with the cargo feature `parquet` (on by
//! default): the Arrow and Parquet crates are a fifth of a build. Without it,
//! [`not_built`] is the error every `.parquet` input or output gives.

#[cfg(not(feature = "parquet"))]
mod absent;
#[cfg(feature = "parquet")]
pub mod bounds;
mod compression;
mod layout;
#[cfg(feature = "parquet")]
mod row_bytes;
#[cfg(feature = "parquet")]
mod rows;
#[cfg(feature = "parquet")]
mod schema;
#[cfg(feature = "parquet")]
mod split;
#[cfg(feature = "parquet")]
mod write;

use std::path::Path;

use crate::errors::{AreaError, CliError};

#[cfg(not(feature = "parquet"))]
pub use absent::{ColumnRows, ParquetWriter, RowsBatch};

pub use compression::{ACCEPTED as PARQUET_COMPRESSIONS, ParquetCompression};
pub use layout::{
    ENCODING_KEY, EXTRA_COLUMN, GROUP_BYTES, GROUP_ROWS, HF_KEY, KEYS_COLUMN, LAYOUT_KEY, MAGIC,
    ParquetOptions, READ_ROWS, RowGroups, STYLE_KEY,
};
#[cfg(feature = "parquet")]
pub use rows::{ArrowTable, ColumnRows, RowsBatch};
#[cfg(feature = "parquet")]
pub use write::ParquetWriter;

/// Whether this build reads and writes Parquet (the cargo feature `parquet`).
pub const BUILT: bool = cfg!(feature = "parquet");

/// The error for the Parquet file `path` (an input or an output) in a build without the
/// `parquet` feature.
pub fn not_built(path: &Path) -> CliError {
    NotBuilt(path.to_owned()).into()
}

/// A Parquet file (an input or an output) given to a build without the `parquet` feature.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{}` is a Parquet file, and this build of cargo-isobench has no Parquet support (the cargo feature `parquet` is off)",
    .0.display()
)]
pub struct NotBuilt(pub std::path::PathBuf);

impl AreaError for NotBuilt {
    fn hint(&self) -> Option<String> {
        Some("build it with the feature: drop `--no-default-features` (the default features include `parquet`), or add `--features parquet`, e.g. `cargo install --locked --path cargo-isobench --features parquet`".to_owned())
    }
}

/// Whether a path names a Parquet file (`.parquet`, any case).
pub fn is_parquet(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parquet_names_are_told_by_extension() {
        assert!(is_parquet(Path::new("a/b.parquet")));
        assert!(is_parquet(Path::new("B.PARQUET")));
        assert!(!is_parquet(Path::new("b.jsonl")));
        assert!(!is_parquet(Path::new("parquet")));
    }
}
