//! The names and sizes of the layout this tool writes (and reads back): metadata keys,
//! the `__extra` and `__keys` columns, batch and row group sizes.

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
/// Rows per record batch read: a pipeline batch's worth, so that the two batches the reader
/// holds (one decoded ahead of the one read into records) stay small.
pub const READ_ROWS: usize = 64;
/// Rows per row group written.
pub const GROUP_ROWS: usize = 1024;
/// Bytes of the rows' values in their Arrow arrays (`row_bytes`: strings' lengths and
/// fixed widths, nulls and offsets not counted) at which a row group is written even if it
/// has fewer rows.
pub const GROUP_BYTES: usize = 32 << 20;

/// Where a Parquet output's row groups end: at `rows` rows, or once the rows' bytes in
/// their Arrow arrays (strings' lengths and fixed widths) reach `bytes`, whichever comes
/// first. By default [`GROUP_ROWS`] and [`GROUP_BYTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowGroups {
    /// The most rows of a row group (at least 1).
    pub rows: usize,
    /// The bytes at which a row group is full.
    pub bytes: usize,
}

impl Default for RowGroups {
    fn default() -> Self {
        Self {
            rows: GROUP_ROWS,
            bytes: GROUP_BYTES,
        }
    }
}

impl RowGroups {
    /// Whether a row group of `rows` rows and `bytes` bytes is full.
    pub fn full(self, rows: usize, bytes: usize) -> bool {
        rows >= self.rows || bytes >= self.bytes
    }
}

/// How a Parquet output is written: its pages' codec and where its row groups end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ParquetOptions {
    /// The codec of every page (`--parquet-compression`).
    pub compression: super::ParquetCompression,
    /// Where row groups end.
    pub row_groups: RowGroups,
}
