//! Progress on stderr: a one-line count and throughput while converting, and a final
//! line, only when stderr is a terminal.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// A one-line progress count on stderr, only when stderr is a terminal.
pub(super) struct Progress {
    enabled: bool,
    total: Option<u64>,
    bytes: u64,
    started: Instant,
    last: Instant,
    shown: bool,
}

impl Progress {
    pub(super) fn new(total: Option<u64>) -> Self {
        let now = Instant::now();
        Self {
            enabled: std::io::stderr().is_terminal(),
            total,
            bytes: 0,
            started: now,
            last: now,
            shown: false,
        }
    }

    pub(super) fn tick(&mut self, read: u64, bytes: u64) {
        self.bytes += bytes;
        if !self.enabled || self.last.elapsed() < Duration::from_millis(500) {
            return;
        }
        self.last = Instant::now();
        let (_, mb, speed, rate) = self.rates(read);
        let eta = match self.total {
            #[allow(clippy::cast_precision_loss)] // an estimate for display
            Some(total) if speed > 0.0 => {
                format!(
                    ", ETA {:.0} s",
                    (total.saturating_sub(self.bytes) as f64 / 1e6) / speed
                )
            }
            _ => String::new(),
        };
        eprint!("\r\x1b[K{read} records, {mb:.0} MB ({speed:.0} MB/s, {rate:.0} records/s{eta})");
        let _ = std::io::stderr().flush();
        self.shown = true;
    }

    /// Replaces the progress line with a final one: records, megabytes and throughput.
    pub(super) fn finish(&mut self, read: u64) {
        if !self.enabled {
            return;
        }
        self.clear();
        let (secs, mb, speed, rate) = self.rates(read);
        eprintln!(
            "{read} records, {mb:.1} MB in {secs:.1} s ({speed:.0} MB/s, {rate:.0} records/s)"
        );
    }

    /// Seconds so far, megabytes read, MB/s and records/s.
    fn rates(&self, read: u64) -> (f64, f64, f64, f64) {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        #[allow(clippy::cast_precision_loss)] // rates for display
        let (mb, rate) = (self.bytes as f64 / 1e6, read as f64 / secs);
        (secs, mb, mb / secs, rate)
    }

    pub(super) fn clear(&mut self) {
        if self.shown {
            eprint!("\r\x1b[K");
            self.shown = false;
        }
    }
}
