//! Which ways a conversion's records took through the pipeline.

/// Which ways a conversion's records took: how many were read with the values the
/// conversion only moves held as text, passed to the output unread
/// ([`super::ConvertPlan::pass_through`]), and, for a Parquet output, how its rows were laid
/// into the columns. A conversion gives the same output whichever ways it takes; these
/// say whether the quicker ones ran.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FastPaths {
    /// Records read with values held.
    pub held: u64,
    /// Parquet rows laid into the columns straight from the exported record and its
    /// held texts.
    pub laid: u64,
    /// Parquet rows parsed into the columns from the record written as text.
    pub parsed: u64,
    /// Parquet rows pushed as the values exported (nothing held).
    pub pushed: u64,
    /// Parquet cells laid from a string held as its own bytes (read from Parquet).
    pub raw_cells: u64,
}

impl FastPaths {
    /// Adds the counts of `more`.
    pub(super) fn add(&mut self, more: Self) {
        let Self {
            held,
            laid,
            parsed,
            pushed,
            raw_cells,
        } = more;
        self.held += held;
        self.laid += laid;
        self.parsed += parsed;
        self.pushed += pushed;
        self.raw_cells += raw_cells;
    }
}
