//! Parquet: the layout this tool writes, and the writer. (Reading is
//! `crate::input::parquet_file`'s.)
//!
//! **Reading.** A file is read in record batches of [`READ_ROWS`] rows, row group by row
//! group, never whole. Each row becomes a JSON object with the columns in file order:
//! strings, integers, floats, booleans, lists (arrays), structs and maps (objects), nulls;
//! timestamps and dates become ISO 8601 strings and dictionary-encoded columns their values.
//! A column whose field metadata says `isobench.encoding = json` holds JSON text, parsed
//! back into the value it encodes.
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
//! row group by row group, with every column, to a spool file, and then copied, row group
//! by row group, without the columns no record had.

mod schema;
mod write;

use std::path::Path;

pub use write::{ArrowTable, ColumnRows, ParquetWriter};

/// The four bytes every Parquet file starts (and ends) with.
pub const MAGIC: &[u8; 4] = b"PAR1";
/// Field metadata key marking a column of JSON text.
pub const ENCODING_KEY: &str = "isobench.encoding";
/// Schema metadata key marking a file laid out by this writer.
pub const LAYOUT_KEY: &str = "isobench.layout";
/// Schema metadata key of the JSON style of the records written (`compact`, `spaced`).
pub const STYLE_KEY: &str = "isobench.json_style";
/// Schema metadata key of the columns as Hugging Face `datasets` features.
pub const HF_KEY: &str = "huggingface";
/// The column of undeclared (or ill-typed) properties.
pub const EXTRA_COLUMN: &str = "__extra";
/// The column of key orders, when the columns cannot tell them.
pub const KEYS_COLUMN: &str = "__keys";
/// Rows per record batch read.
pub const READ_ROWS: usize = 256;
/// Rows per row group written.
pub const GROUP_ROWS: usize = 1024;
/// Bytes of JSON input after which a row group is written even if it has fewer rows.
pub const GROUP_BYTES: usize = 32 << 20;

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
