//! Writing records as Parquet: rows buffered ([`super::rows`]) into row groups of
//! declared columns.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, SyncSender};
use std::thread::{self, JoinHandle};

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::DataType;
use arrow_schema::SchemaRef;
use isobench_core::codec::JsonStyle;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::{ArrowColumnWriter, ArrowRowGroupWriterFactory, compute_leaves};
use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::column::writer::ColumnCloseResult;
use parquet::file::metadata::{
    ColumnChunkMetaData, PageIndexPolicy, ParquetMetaDataOptions, ParquetMetaDataReader,
};
use parquet::file::properties::WriterProperties;
use parquet::file::statistics::Statistics;
use parquet::file::writer::SerializedFileWriter;
use serde_json::{Map, Value};

use super::compression::ParquetCompression;
use super::layout::ParquetOptions;
use super::rows::{ColumnRows, RowsBatch, write_error};

/// Records given to [`ParquetWriter::write`] are laid out in columns this many at a time.
const WRITE_ROWS: usize = 64;

/// Writes records to a Parquet file, a row group at a time (see the module's doc).
#[derive(Debug)]
pub struct ParquetWriter {
    out: File,
    /// The directory a spool file is made in when the records do not fit one row group.
    spool_dir: PathBuf,
    spool: Option<Spool>,
    /// Records given one by one ([`Self::write`]), and the columns used and the JSON
    /// style of every record given.
    rows: ColumnRows,
    /// The codec of every page, and where row groups end.
    options: ParquetOptions,
    /// The open row group's parts not handed to the spool (before it starts).
    parts: Vec<RecordBatch>,
    /// The open row group's rows, and bytes in their arrays counted by [`Self::write_batch`].
    open_rows: usize,
    open_bytes: usize,
}

/// The properties of every file written: pages compressed as `options` say, row groups
/// of at most its rows.
fn writer_properties(options: ParquetOptions) -> io::Result<WriterProperties> {
    Ok(WriterProperties::builder()
        .set_compression(codec(options.compression)?)
        .set_max_row_group_row_count(Some(options.row_groups.rows))
        .build())
}

/// The Parquet codec of `compression` (whose levels were checked when it was parsed).
fn codec(compression: ParquetCompression) -> io::Result<Compression> {
    Ok(match compression {
        ParquetCompression::Zstd(level) => {
            Compression::ZSTD(ZstdLevel::try_new(level).map_err(write_error)?)
        }
        ParquetCompression::Snappy => Compression::SNAPPY,
        ParquetCompression::Gzip(level) => {
            Compression::GZIP(GzipLevel::try_new(level).map_err(write_error)?)
        }
        ParquetCompression::Lz4 => Compression::LZ4_RAW,
        ParquetCompression::None => Compression::UNCOMPRESSED,
    })
}

impl ParquetWriter {
    /// A writer of records following `json_schema` into `file`; a file of more than one
    /// row group is first written to a spool file in `spool_dir` (created exclusively
    /// under an unpredictable name, and removed at once where the system allows it, else
    /// when the writer is dropped). Pages are compressed, and row groups end, as
    /// `options` say.
    pub fn new(
        file: File,
        spool_dir: PathBuf,
        json_schema: &Value,
        options: ParquetOptions,
    ) -> io::Result<Self> {
        let mut rows = ColumnRows::new(json_schema).map_err(io::Error::other)?;
        rows.limits = options.row_groups;
        Ok(Self {
            out: file,
            spool_dir,
            spool: None,
            rows,
            options,
            parts: Vec::new(),
            open_rows: 0,
            open_bytes: 0,
        })
    }

    /// Empty rows of this writer's columns, to fill and give to [`Self::write_batch`].
    pub fn empty_rows(&self) -> ColumnRows {
        self.rows.empty_like()
    }

    /// Sets the JSON style the records are in, unless one is set already.
    pub fn note_style(&mut self, style: JsonStyle) {
        self.rows.note_style(style);
    }

    /// Writes one record. A file is written either record by record
    /// or by [`Self::write_batch`], not both. The records are laid out in columns
    /// [`WRITE_ROWS`] at a time and written as [`Self::write_batch`] writes rows, so
    /// that the row groups are the same either way.
    pub fn write(&mut self, record: Map<String, Value>) -> io::Result<()> {
        self.rows.push(record);
        if self.rows.len() >= WRITE_ROWS || self.rows.group_full() {
            self.write_buffered()?;
        }
        Ok(())
    }

    /// Writes the records buffered by [`Self::write`], if any.
    fn write_buffered(&mut self) -> io::Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let rows = self.rows.take_rows()?;
        self.write_batch(rows)
    }

    /// Writes rows converted apart ([`ColumnRows::take_rows`]), in order: a row group
    /// ends at the row that makes it full, [`RowGroups::rows`] rows or
    /// [`RowGroups::bytes`] of the rows' bytes in their arrays ([`row_bytes`]), whatever the batches handed; the
    /// rows are handed on as slices of their columns, not copied.
    pub fn write_batch(&mut self, rows: RowsBatch) -> io::Result<()> {
        let RowsBatch {
            batch,
            used,
            style,
            sizes,
        } = rows;
        for (mine, theirs) in self.rows.used.iter_mut().zip(used) {
            *mine |= theirs;
        }
        if let Some(style) = style {
            self.rows.note_style(style);
        }
        let limits = self.rows.limits;
        let mut start = 0;
        for (i, size) in sizes.iter().enumerate() {
            self.open_bytes += size;
            if limits.full(self.open_rows + i + 1 - start, self.open_bytes) {
                self.add_part(batch.slice(start, i + 1 - start))?;
                self.close_group()?;
                start = i + 1;
            }
        }
        if start < batch.num_rows() {
            self.add_part(batch.slice(start, batch.num_rows() - start))?;
        }
        Ok(())
    }

    /// Adds rows of every column to the open row group.
    fn add_part(&mut self, part: RecordBatch) -> io::Result<()> {
        self.open_rows += part.num_rows();
        if let Some(spool) = &mut self.spool {
            spool.send(Spooled::Part(part))
        } else {
            self.parts.push(part);
            Ok(())
        }
    }

    /// Ends the open row group: the spool (started with the first) writes it.
    fn close_group(&mut self) -> io::Result<()> {
        if self.spool.is_none() {
            let properties = writer_properties(self.options)?;
            let mut spool = Spool::start(&self.spool_dir, self.rows.full_schema(), properties)?;
            for part in self.parts.drain(..) {
                spool.send(Spooled::Part(part))?;
            }
            self.spool = Some(spool);
        }
        self.open_rows = 0;
        self.open_bytes = 0;
        self.spool
            .as_mut()
            .expect("started above")
            .send(Spooled::Close)
    }

    /// Writes the file, without the columns no record had; the file, to sync.
    pub fn finish(mut self) -> io::Result<File> {
        self.write_buffered()?;
        let any_rows = self.spool.is_some() || self.open_rows > 0;
        let (schema, kept) = self.rows.written_schema(any_rows, false);
        let out = self.out.try_clone()?;
        let properties = writer_properties(self.options)?;
        let mut writer = ArrowWriter::try_new(out, Arc::clone(&schema), Some(properties))
            .map_err(write_error)?;
        match self.spool.take() {
            None => {
                // One row group, written from memory.
                for part in &self.parts {
                    let arrays: Vec<ArrayRef> =
                        kept.iter().map(|&i| Arc::clone(part.column(i))).collect();
                    let part =
                        RecordBatch::try_new(Arc::clone(&schema), arrays).map_err(write_error)?;
                    writer.write(&part).map_err(write_error)?;
                }
                writer.into_inner().map_err(write_error)
            }
            Some(mut spool) => {
                if self.open_rows > 0 {
                    spool.send(Spooled::Close)?;
                }
                let spooled = spool.finish()?;
                splice_columns(&spooled, &kept, writer)
            }
        }
    }
}

/// What the spool's thread is handed.
#[derive(Debug)]
enum Spooled {
    /// Rows of every column, added to the open row group.
    Part(RecordBatch),
    /// The end of the open row group.
    Close,
}

/// The spool file: row groups of every column, encoded and compressed on a thread of
/// their own while the next rows are converted. The channel holds nothing: a part waits
/// until the thread takes it, so that at most the row group being encoded and the part
/// being handed over are in memory.
#[derive(Debug)]
struct Spool {
    parts: Option<SyncSender<Spooled>>,
    thread: Option<JoinHandle<io::Result<File>>>,
}

impl Spool {
    /// A spool file in `dir` of columns `schema`, written with `properties`, and its thread.
    fn start(dir: &Path, schema: SchemaRef, properties: WriterProperties) -> io::Result<Self> {
        let file = tempfile::tempfile_in(dir)?;
        let mut writer = GroupWriter::new(file, schema, properties).map_err(write_error)?;
        let (parts, received) = mpsc::sync_channel::<Spooled>(0);
        let thread = thread::Builder::new()
            .name("parquet-spool".to_owned())
            .spawn(move || {
                for spooled in received {
                    match spooled {
                        Spooled::Part(part) => writer.write(&part).map_err(write_error)?,
                        Spooled::Close => writer.close_group().map_err(write_error)?,
                    }
                }
                writer.finish().map_err(write_error)
            })?;
        Ok(Self {
            parts: Some(parts),
            thread: Some(thread),
        })
    }

    /// Hands `spooled` to the thread; the thread's error if it stopped.
    fn send(&mut self, spooled: Spooled) -> io::Result<()> {
        let sent = self
            .parts
            .as_ref()
            .is_some_and(|parts| parts.send(spooled).is_ok());
        if sent {
            return Ok(());
        }
        Err(self
            .finish()
            .err()
            .unwrap_or_else(|| write_error("the spool's thread stopped taking row groups")))
    }

    /// Waits for the thread to write every row group handed to it; the spool file.
    fn finish(&mut self) -> io::Result<File> {
        drop(self.parts.take());
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(write_error("the spool's thread panicked")),
            None => Err(write_error("the spool is finished already")),
        }
    }
}

/// A Parquet file written a row group at a time, the columns of each part encoded and
/// compressed on two threads: the bytes `ArrowWriter` writes for the same parts, each
/// row group ended by [`GroupWriter::close_group`].
struct GroupWriter {
    file: SerializedFileWriter<File>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    /// The open row group's writers, one per leaf column, and the bytes of Arrow data
    /// handed to each field's so far (what closing its pages costs, about).
    open: Option<(Vec<ArrowColumnWriter>, Vec<usize>)>,
}

impl GroupWriter {
    fn new(
        file: File,
        schema: SchemaRef,
        properties: WriterProperties,
    ) -> parquet::errors::Result<Self> {
        let writer = ArrowWriter::try_new(file, Arc::clone(&schema), Some(properties))?;
        let (file, factory) = writer.into_serialized_writer()?;
        Ok(Self {
            file,
            factory,
            schema,
            open: None,
        })
    }

    /// Adds `part`'s rows to the open row group (opened with the first).
    fn write(&mut self, part: &RecordBatch) -> parquet::errors::Result<()> {
        if part.num_rows() == 0 {
            return Ok(());
        }
        let (writers, weights) = match &mut self.open {
            Some(open) => open,
            open => {
                let group = self.file.flushed_row_groups().len();
                let writers = self.factory.create_column_writers(group)?;
                open.insert((writers, vec![0; self.schema.fields().len()]))
            }
        };
        let mut work = Vec::with_capacity(weights.len());
        let mut rest = writers.as_mut_slice();
        let fields = self.schema.fields().iter().zip(part.columns());
        for ((field, column), weight) in fields.zip(weights.iter_mut()) {
            let leaves = compute_leaves(field, column)?;
            let (mine, others) = std::mem::take(&mut rest).split_at_mut(leaves.len());
            rest = others;
            let bytes = column.to_data().get_slice_memory_size().unwrap_or(0);
            *weight += bytes;
            work.push((bytes, (mine, leaves)));
        }
        on_two_threads(work, |(writers, leaves)| {
            writers
                .iter_mut()
                .zip(&leaves)
                .try_for_each(|(writer, leaf)| writer.write(leaf))
        })?;
        Ok(())
    }

    /// Ends the open row group: its columns' last pages are compressed (on two threads)
    /// and the column chunks appended to the file in order.
    fn close_group(&mut self) -> parquet::errors::Result<()> {
        let Some((writers, weights)) = self.open.take() else {
            return Ok(());
        };
        // Each field's writers, closed by whichever thread takes them.
        let mut writers = writers.into_iter();
        let mut work = Vec::with_capacity(weights.len());
        for (field, weight) in self.schema.fields().iter().zip(weights) {
            let leaves = leaf_count(field.data_type());
            work.push((weight, writers.by_ref().take(leaves).collect::<Vec<_>>()));
        }
        let closed = on_two_threads(work, |writers| {
            writers
                .into_iter()
                .map(ArrowColumnWriter::close)
                .collect::<parquet::errors::Result<Vec<_>>>()
        })?;
        let mut group = self.file.next_row_group()?;
        for chunk in closed.into_iter().flatten() {
            chunk.append_to_row_group(&mut group)?;
        }
        group.close()?;
        Ok(())
    }

    /// Ends the open row group and writes the footer; the file.
    fn finish(mut self) -> parquet::errors::Result<File> {
        self.close_group()?;
        self.file.into_inner()
    }
}

/// How many leaf columns (Parquet columns) a field of `data_type` is written as.
fn leaf_count(data_type: &DataType) -> usize {
    match data_type {
        DataType::List(item) | DataType::LargeList(item) | DataType::FixedSizeList(item, _) => {
            leaf_count(item.data_type())
        }
        DataType::Struct(fields) => fields.iter().map(|f| leaf_count(f.data_type())).sum(),
        DataType::Map(entries, _) => leaf_count(entries.data_type()),
        _ => 1,
    }
}

/// Runs `task` on every item of `work` (each with its weight), split between this
/// thread and one other so that each gets about half of the weight; the results in the
/// order of `work`, or the first error.
fn on_two_threads<T: Send, R: Send>(
    work: Vec<(usize, T)>,
    task: impl Fn(T) -> parquet::errors::Result<R> + Sync,
) -> parquet::errors::Result<Vec<R>> {
    let mut order: Vec<usize> = (0..work.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(work[i].0));
    let mut there_of = vec![false; work.len()];
    let (mut here_weight, mut there_weight) = (0, 0);
    for i in order {
        if here_weight <= there_weight {
            here_weight += work[i].0;
        } else {
            there_weight += work[i].0;
            there_of[i] = true;
        }
    }
    let run = |items: Vec<(usize, T)>| -> parquet::errors::Result<Vec<(usize, R)>> {
        items
            .into_iter()
            .map(|(i, item)| Ok((i, task(item)?)))
            .collect()
    };
    let (mut here, mut there) = (Vec::new(), Vec::new());
    for (i, (_, item)) in work.into_iter().enumerate() {
        if there_of[i] {
            there.push((i, item));
        } else {
            here.push((i, item));
        }
    }
    let mut done = if there.is_empty() || there_weight < PARALLEL_BYTES {
        here.extend(there);
        run(here)?
    } else {
        thread::scope(|scope| {
            let other = scope.spawn(|| run(there));
            let mine = run(here);
            let theirs = other.join().unwrap_or_else(|_| {
                Err(parquet::errors::ParquetError::General(
                    "a column's encoding thread panicked".to_owned(),
                ))
            });
            let mut mine = mine?;
            mine.extend(theirs?);
            Ok::<_, parquet::errors::ParquetError>(mine)
        })?
    };
    done.sort_unstable_by_key(|(i, _)| *i);
    Ok(done.into_iter().map(|(_, r)| r).collect())
}

/// Below this many bytes of Arrow data for the second thread, the columns are encoded
/// on one: starting a thread costs more than it saves.
const PARALLEL_BYTES: usize = 64 * 1024;

/// Writes the columns `kept` of every row group of the spool file as a row group of
/// `writer`'s file: their pages are copied as they are, compressed once.
fn splice_columns(spool: &File, kept: &[usize], writer: ArrowWriter<File>) -> io::Result<File> {
    // The pages' encoding statistics are kept as written, not folded into a mask.
    let options = ParquetMetaDataOptions::new().with_encoding_stats_as_mask(false);
    let metadata = ParquetMetaDataReader::new()
        .with_page_index_policy(PageIndexPolicy::Optional)
        .with_metadata_options(Some(options))
        .parse_and_finish(spool)
        .map_err(write_error)?;
    let columns = metadata.file_metadata().schema_descr();
    let leaves: Vec<usize> = (0..columns.num_columns())
        .filter(|&leaf| kept.contains(&columns.get_column_root_idx(leaf)))
        .collect();
    let (mut file, _) = writer.into_serialized_writer().map_err(write_error)?;
    for (g, group) in metadata.row_groups().iter().enumerate() {
        let mut row_group = file.next_row_group().map_err(write_error)?;
        for &leaf in &leaves {
            let chunk = as_written(group.column(leaf)).map_err(write_error)?;
            let close = ColumnCloseResult {
                bytes_written: u64::try_from(chunk.compressed_size()).map_err(write_error)?,
                rows_written: u64::try_from(group.num_rows()).map_err(write_error)?,
                metadata: chunk,
                bloom_filter: None,
                column_index: metadata.column_index().map(|index| index[g][leaf].clone()),
                offset_index: metadata.offset_index().map(|index| index[g][leaf].clone()),
            };
            row_group.append_column(spool, close).map_err(write_error)?;
        }
        row_group.close().map_err(write_error)?;
    }
    file.into_inner().map_err(write_error)
}

/// A column chunk's metadata as the writer made it, from the metadata read back: the
/// writer also fills the deprecated `min`/`max` statistics of a column of signed order,
/// which reading folds into `min_value`/`max_value` and forgets.
fn as_written(chunk: &ColumnChunkMetaData) -> parquet::errors::Result<ColumnChunkMetaData> {
    let Some(statistics) = chunk.statistics() else {
        return Ok(chunk.clone());
    };
    let signed = chunk.column_descr().sort_order().is_signed();
    let statistics = match statistics.clone() {
        Statistics::Boolean(s) => Statistics::Boolean(s.with_backwards_compatible_min_max(signed)),
        Statistics::Int32(s) => Statistics::Int32(s.with_backwards_compatible_min_max(signed)),
        Statistics::Int64(s) => Statistics::Int64(s.with_backwards_compatible_min_max(signed)),
        Statistics::Int96(s) => Statistics::Int96(s.with_backwards_compatible_min_max(signed)),
        Statistics::Float(s) => Statistics::Float(s.with_backwards_compatible_min_max(signed)),
        Statistics::Double(s) => Statistics::Double(s.with_backwards_compatible_min_max(signed)),
        Statistics::ByteArray(s) => {
            Statistics::ByteArray(s.with_backwards_compatible_min_max(signed))
        }
        Statistics::FixedLenByteArray(s) => {
            Statistics::FixedLenByteArray(s.with_backwards_compatible_min_max(signed))
        }
    };
    chunk
        .clone()
        .into_builder()
        .set_statistics(statistics)
        .build()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::layout::GROUP_ROWS;
    use super::super::rows::ArrowTable;
    use super::*;

    /// Records of nested and flat columns, some only in a few rows, over several row groups.
    fn records(n: usize) -> (Value, Vec<Map<String, Value>>) {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "n": {"type": "integer"},
                "runs": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"base": {"type": "array", "items": {"type": "number"}}},
                    "additionalProperties": false
                }},
                "late": {"type": "string"},
                "never": {"type": "boolean"}
            }
        });
        let records = (0..n)
            .map(|i| {
                let mut record =
                    json!({"id": format!("r{i}"), "n": i, "runs": [{"base": [0.25, 0.5]}]});
                if i == n - 1 {
                    record["late"] = json!("last");
                }
                if i % 700 == 3 {
                    record["undeclared"] = json!({"i": i});
                }
                record.as_object().unwrap().clone()
            })
            .collect();
        (schema, records)
    }

    /// The same records written as the table of the columns some record has, a row group
    /// per record batch, by a plain `ArrowWriter`: what the spool's splice must equal.
    fn written_directly(schema: &Value, records: &[Map<String, Value>]) -> Vec<u8> {
        let mut table = ArrowTable::new(schema).unwrap();
        for record in records {
            table.push(record.clone()).unwrap();
        }
        let (schema, batches) = table.finish(false).unwrap();
        let mut out = Vec::new();
        let properties = writer_properties(ParquetOptions::default()).unwrap();
        let mut writer = ArrowWriter::try_new(&mut out, schema, Some(properties)).unwrap();
        for batch in &batches {
            writer.write(batch).unwrap();
            writer.flush().unwrap();
        }
        writer.close().unwrap();
        out
    }

    /// `records` written one by one by a [`ParquetWriter`] into `t.parquet` in `dir`
    /// (its spool directory too); the file's path.
    fn written_by_parquet_writer(
        dir: &Path,
        schema: &Value,
        records: &[Map<String, Value>],
    ) -> PathBuf {
        let path = dir.join("t.parquet");
        let mut writer = ParquetWriter::new(
            File::create(&path).unwrap(),
            dir.to_owned(),
            schema,
            ParquetOptions::default(),
        )
        .unwrap();
        for record in records {
            writer.write(record.clone()).unwrap();
        }
        writer.finish().unwrap();
        path
    }

    #[test]
    fn files_of_many_row_groups_are_the_batches_written_once() {
        for n in [1, GROUP_ROWS, GROUP_ROWS + 1, 3 * GROUP_ROWS + 17] {
            let (schema, records) = records(n);
            let dir = tempfile::tempdir().unwrap();
            let path = written_by_parquet_writer(dir.path(), &schema, &records);
            let written = std::fs::read(&path).unwrap();
            let direct = written_directly(&schema, &records);
            assert!(written == direct, "{n} records");
            // The column no record has is left out, the one only the last record has is in.
            let metadata = ParquetMetaDataReader::new()
                .parse_and_finish(&File::open(&path).unwrap())
                .unwrap();
            let columns = metadata.file_metadata().schema_descr();
            let roots: Vec<&str> = columns
                .root_schema()
                .get_fields()
                .iter()
                .map(|f| f.name())
                .collect();
            assert!(
                !roots.contains(&"never") && roots.contains(&"late"),
                "{roots:?}"
            );
            assert_eq!(metadata.num_row_groups(), n.div_ceil(GROUP_ROWS));
            assert_eq!(
                std::fs::read_dir(dir.path()).unwrap().count(),
                1,
                "no spool left"
            );
        }
    }

    #[test]
    fn columns_encoded_on_two_threads_are_the_bytes_one_writer_writes() {
        // Long texts in two columns: each part holds more than `PARALLEL_BYTES` for the
        // second thread, so both encode.
        let (schema, mut records) = records(2 * GROUP_ROWS + 5);
        for (i, record) in records.iter_mut().enumerate() {
            record.insert("id".into(), json!(format!("{i}-{}", "é\"x".repeat(60))));
            record.insert("late".into(), json!(format!("{}-{i}", "y\n".repeat(90))));
        }
        let texts: usize = records[..GROUP_ROWS]
            .iter()
            .map(|r| r["id"].as_str().unwrap().len())
            .sum();
        assert!(texts > 2 * PARALLEL_BYTES, "{texts}");
        let dir = tempfile::tempdir().unwrap();
        let path = written_by_parquet_writer(dir.path(), &schema, &records);
        assert!(std::fs::read(&path).unwrap() == written_directly(&schema, &records));
    }

    #[test]
    fn the_levels_parsed_are_the_levels_the_writer_takes() {
        use super::super::compression::{GZIP_LEVELS, ZSTD_LEVELS};
        for level in ZSTD_LEVELS {
            assert!(
                codec(ParquetCompression::Zstd(level)).is_ok(),
                "zstd {level}"
            );
        }
        for level in GZIP_LEVELS {
            assert!(
                codec(ParquetCompression::Gzip(level)).is_ok(),
                "gzip {level}"
            );
        }
        for level in [ZSTD_LEVELS.start() - 1, ZSTD_LEVELS.end() + 1] {
            assert!(
                codec(ParquetCompression::Zstd(level)).is_err(),
                "zstd {level}"
            );
        }
        assert!(codec(ParquetCompression::Gzip(GZIP_LEVELS.end() + 1)).is_err());
    }
}
