//! JSON text outputs: JSON Lines (a file, stdout, or nothing under `--dry-run`) and one
//! JSON array. A worker writes its batch's records as text, held texts in place; the
//! sink writes that text as it is.

use isobench_core::codec::JsonStyle;
use isobench_core::passthrough;
use serde_json::{Map, Value};

use super::encoder::{Encoder, HeldValues, Sink};
use crate::errors::CliError;
use crate::output::RecordWriter;
use crate::pipeline::buffers::Buffers;

/// A batch's records as JSON text, back to back.
#[derive(Debug, Default)]
pub(in crate::pipeline) struct JsonText {
    /// The records, each followed by its separator (a line end, or between the elements
    /// of an array, a comma and a line end).
    pub(in crate::pipeline) out: Vec<u8>,
    /// Where each record of `out` ends (before what follows it).
    pub(in crate::pipeline) ends: Vec<usize>,
}

/// Writes `record` into `out` in `style`, its held texts in place.
fn write_record(
    out: &mut Vec<u8>,
    record: &Map<String, Value>,
    held: Option<&HeldValues<'_>>,
    style: JsonStyle,
) {
    match held {
        Some(held) => passthrough::write_object_holding(style, out, record, &held.placed(record)),
        None => style.write_object(out, record),
    }
}

/// Records as JSON Lines: each followed by a line end.
pub(in crate::pipeline) struct LinesEncoder<'b> {
    buffers: &'b Buffers,
    text: JsonText,
}

impl<'b> LinesEncoder<'b> {
    /// An encoder whose text buffers come from `buffers`.
    pub(in crate::pipeline) fn new(buffers: &'b Buffers) -> Self {
        Self {
            buffers,
            text: JsonText::default(),
        }
    }
}

impl Encoder for LinesEncoder<'_> {
    type Batch = JsonText;

    fn begin(&mut self, input_bytes: usize) {
        let mut out = self.buffers.take();
        out.reserve(input_bytes + input_bytes / 4);
        self.text = JsonText {
            out,
            ends: Vec::new(),
        };
    }

    fn record(
        &mut self,
        record: Map<String, Value>,
        held: Option<&HeldValues<'_>>,
        style: JsonStyle,
    ) {
        let out = &mut self.text.out;
        write_record(out, &record, held, style);
        self.text.ends.push(out.len());
        out.push(b'\n');
    }

    fn finish(&mut self) -> JsonText {
        std::mem::take(&mut self.text)
    }
}

/// Records as elements of one JSON array: a batch's elements separated by a comma and
/// a line end (the sink writes what comes before the batch's first).
pub(in crate::pipeline) struct ArrayEncoder<'b> {
    lines: LinesEncoder<'b>,
}

impl Encoder for ArrayEncoder<'_> {
    type Batch = JsonText;

    fn begin(&mut self, input_bytes: usize) {
        self.lines.begin(input_bytes);
    }

    fn record(
        &mut self,
        record: Map<String, Value>,
        held: Option<&HeldValues<'_>>,
        style: JsonStyle,
    ) {
        let text = &mut self.lines.text;
        if !text.ends.is_empty() {
            text.out.extend_from_slice(b",\n");
        }
        write_record(&mut text.out, &record, held, style);
        text.ends.push(text.out.len());
    }

    fn finish(&mut self) -> JsonText {
        self.lines.finish()
    }
}

/// JSON Lines written as the workers wrote them.
pub(in crate::pipeline) struct LinesSink<'b> {
    writer: RecordWriter,
    buffers: &'b Buffers,
}

impl<'b> LinesSink<'b> {
    pub(super) fn new(writer: RecordWriter, buffers: &'b Buffers) -> Self {
        Self { writer, buffers }
    }
}

impl<'b> Sink for LinesSink<'b> {
    type Encoder = LinesEncoder<'b>;

    fn encoder(&self) -> LinesEncoder<'b> {
        LinesEncoder::new(self.buffers)
    }

    fn write(&mut self, JsonText { out, ends }: JsonText) -> Result<(), CliError> {
        self.writer.write_lines(&out, &ends)?;
        self.buffers.give(out);
        Ok(())
    }

    fn finish(self) -> Result<(), CliError> {
        self.writer.finish()
    }

    fn streams(&self) -> bool {
        self.writer.streams()
    }
}

/// One JSON array, its elements written as the workers wrote them.
pub(in crate::pipeline) struct ArraySink<'b> {
    writer: RecordWriter,
    buffers: &'b Buffers,
}

impl<'b> ArraySink<'b> {
    pub(super) fn new(writer: RecordWriter, buffers: &'b Buffers) -> Self {
        Self { writer, buffers }
    }
}

impl<'b> Sink for ArraySink<'b> {
    type Encoder = ArrayEncoder<'b>;

    fn encoder(&self) -> ArrayEncoder<'b> {
        ArrayEncoder {
            lines: LinesEncoder::new(self.buffers),
        }
    }

    fn write(&mut self, JsonText { out, ends }: JsonText) -> Result<(), CliError> {
        self.writer.write_array_part(&out, ends.len())?;
        self.buffers.give(out);
        Ok(())
    }

    fn finish(self) -> Result<(), CliError> {
        self.writer.finish()
    }

    fn streams(&self) -> bool {
        self.writer.streams()
    }
}
