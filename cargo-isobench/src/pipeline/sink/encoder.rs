//! The two ends of an output: the [`Encoder`] each worker hands its records to, and the
//! [`Sink`] that writes what the encoders made, in input order; and the held values a
//! record goes to its encoder with ([`HeldValues`]).

use isobench_core::Registered;
use isobench_core::codec::JsonStyle;
use isobench_core::passthrough::{Held, Placed, Route};
use isobench_core::registry::HeldOrder;
use serde_json::{Map, Value};

use crate::errors::CliError;
use crate::pipeline::paths::FastPaths;

/// A worker's end of the output: takes the records of a batch, one at a time, and gives
/// them encoded once the batch is done.
pub(in crate::pipeline) trait Encoder: Send {
    /// A batch's records, encoded.
    type Batch: Send;

    /// Starts a batch read from `input_bytes` bytes of text (room for its records).
    fn begin(&mut self, input_bytes: usize);

    /// Adds one exported record, the target's contract met, with the values the reader
    /// held outside it, if any; `style`: the record's JSON style.
    fn record(
        &mut self,
        record: Map<String, Value>,
        held: Option<&HeldValues<'_>>,
        style: JsonStyle,
    );

    /// The records added since [`Encoder::begin`], encoded.
    fn finish(&mut self) -> Self::Batch;

    /// The style in which the reader holds the texts of values that pass, given the
    /// output's style.
    fn held_style(&self, style: JsonStyle) -> JsonStyle {
        style
    }

    /// For each of `routes`, whether a string it holds is best held as its own bytes
    /// rather than its JSON text (it goes as it is into a string column); `None` when
    /// none is. (Strings are held so only by the Parquet reader.)
    #[cfg(feature = "parquet")]
    fn raw_strings(&self, routes: &[Route<'_>]) -> Option<Vec<bool>> {
        let _ = routes;
        None
    }

    /// Adds to `paths` how the batch's records were laid into an output of columns
    /// (nothing for any other output): called before [`Self::finish`].
    fn count_laid(&self, paths: &mut FastPaths) {
        let _ = paths;
    }
}

/// Where encoded batches are written, in input order.
pub(in crate::pipeline) trait Sink {
    /// What each worker encodes its records with.
    type Encoder: Encoder;

    /// A fresh encoder, for one worker.
    fn encoder(&self) -> Self::Encoder;

    /// Writes a batch's records.
    fn write(&mut self, batch: <Self::Encoder as Encoder>::Batch) -> Result<(), CliError>;

    /// Completes the output (see [`RecordWriter::finish`]).
    fn finish(self) -> Result<(), CliError>;

    /// Whether what is written reaches the destination as it goes (see
    /// [`RecordWriter::streams`]): a run that stops has then written the batches before.
    fn streams(&self) -> bool {
        false
    }
}

/// A record's held values, as its encoder sees them: the texts the reader held
/// (`held`, some in the record's text `raw`), by the conversion's `routes`, and what
/// the target format `to` kept of the record to place them (`order`).
pub(in crate::pipeline) struct HeldValues<'r> {
    pub(in crate::pipeline) to: &'r Registered,
    pub(in crate::pipeline) routes: &'r [Route<'r>],
    pub(in crate::pipeline) order: &'r HeldOrder,
    pub(in crate::pipeline) held: &'r Held,
    pub(in crate::pipeline) raw: &'r [u8],
}

impl<'r> HeldValues<'r> {
    /// Where the held texts go in `out`, the record exported.
    pub(in crate::pipeline) fn placed(&self, out: &Map<String, Value>) -> Vec<Placed<'r>> {
        self.placed_from(out, self.held)
    }

    /// Where the texts of `held` (the record's, or a copy of them) go in `out`.
    pub(super) fn placed_from<'h>(
        &self,
        out: &Map<String, Value>,
        held: &'h Held,
    ) -> Vec<Placed<'h>>
    where
        'r: 'h,
    {
        let routes = self.routes;
        // Sized at once: collected from a filter, the vector was grown once more.
        let mut texts = Vec::with_capacity(routes.len());
        texts.extend((0..routes.len()).filter_map(|i| Some((routes[i], held.text(self.raw, i)?))));
        self.to.place_held(self.order, out, &texts)
    }

    /// The routes that hold a text, in order (those [`Self::placed`] places, in its
    /// order).
    pub(in crate::pipeline) fn holding(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.routes.len()).filter(|&i| self.held.holds(i))
    }
}
