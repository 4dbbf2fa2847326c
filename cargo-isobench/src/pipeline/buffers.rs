//! The buffer pool: byte buffers handed from the reader to the workers to the writer and
//! back, so that the peak memory does not grow with the input.

/// Bytes of JSON Lines read per batch.
pub(super) const BATCH_BYTES: usize = 1 << 20;

/// Byte buffers of about a batch's size, given back once used (a batch's input by its
/// worker, its output by the writer) and taken for the next batches. Each batch is
/// allocated on one thread and freed on another: fresh buffers for each made glibc's
/// free lists, and so the peak memory, grow with the length of the input. At most `n`
/// buffers wait; `take` never blocks.
pub(super) struct Buffers {
    give: crossbeam_channel::Sender<Vec<u8>>,
    take: crossbeam_channel::Receiver<Vec<u8>>,
}

impl Buffers {
    pub(super) fn new(n: usize) -> Self {
        let (give, take) = crossbeam_channel::bounded(n);
        Self { give, take }
    }

    /// An empty buffer, used before when there is one.
    pub(super) fn take(&self) -> Vec<u8> {
        let mut buffer = self.take.try_recv().unwrap_or_default();
        buffer.clear();
        buffer
    }

    /// Gives `buffer` back: dropped when enough wait already, or when an outsized record
    /// made it much larger than a batch.
    pub(super) fn give(&self, buffer: Vec<u8>) {
        if buffer.capacity() <= 4 * BATCH_BYTES {
            let _ = self.give.try_send(buffer);
        }
    }
}
