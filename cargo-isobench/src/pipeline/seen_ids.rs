//! The repeated-`instance_id` table: every id written so far, kept small.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// What [`super::ordered::Sink`] keeps of an `instance_id`: a 128-bit digest, so that each id costs a
/// small fixed size and no string outlives its batch (long-lived small strings scattered
/// through the heap keep the allocator from giving freed batches back). Two of n ids
/// share a digest with odds of about n² / 2¹²⁹.
pub(super) fn id_digest(id: &str) -> u128 {
    let half = |salt: u8| {
        let mut hasher = DefaultHasher::new();
        salt.hash(&mut hasher);
        id.hash(&mut hasher);
        hasher.finish()
    };
    u128::from(half(0)) << 64 | u128::from(half(1))
}

/// The `instance_id`s written so far, by [`id_digest`], each with where it was first
/// seen (input, line).
///
/// A hash table of every id would cost about 50 bytes an id at its peak (buckets kept
/// half empty, and the old table alongside the new while it grows): most of the memory
/// that grows with the input. Instead, the ids live in a sorted array (24 bytes each),
/// looked up by binary search, and only the latest ones in a small hash table, merged
/// into the array when they reach an eighth of it.
#[derive(Default)]
pub(super) struct SeenIds {
    /// Sorted by digest, each digest once.
    sorted: Vec<SeenId>,
    /// The latest ids, none of them in `sorted`.
    recent: HashMap<u128, (usize, u64)>,
}

/// One entry of [`SeenIds::sorted`]: a digest and where it was first seen, packed into
/// three words (a `u128` would align the entry to 32 bytes).
#[derive(Clone, Copy)]
struct SeenId {
    digest: [u64; 2],
    /// The input's index in the top 24 bits, the line in the other 40.
    at: u64,
}

impl SeenId {
    const LINE_BITS: u32 = 40;

    fn new(digest: u128, (source, line): (usize, u64)) -> Self {
        let source = source as u64;
        debug_assert!(source < 1 << (64 - Self::LINE_BITS) && line < 1 << Self::LINE_BITS);
        Self {
            digest: Self::halves(digest),
            at: source << Self::LINE_BITS | line,
        }
    }

    // Truncation is deliberate: the halves of the digest.
    #[allow(clippy::cast_possible_truncation)]
    fn halves(digest: u128) -> [u64; 2] {
        [(digest >> 64) as u64, digest as u64]
    }

    fn at(self) -> (usize, u64) {
        let source = usize::try_from(self.at >> Self::LINE_BITS).expect("24 bits fit a usize");
        (source, self.at & ((1 << Self::LINE_BITS) - 1))
    }
}

impl SeenIds {
    /// The smallest number of recent ids worth a merge.
    const MIN_MERGE: usize = 4096;

    /// Where `digest` was first seen, if it was; else remembers it as seen at `at`.
    pub(super) fn first_or_insert(
        &mut self,
        digest: u128,
        at: (usize, u64),
    ) -> Option<(usize, u64)> {
        if let Some(first) = self.recent.get(&digest) {
            return Some(*first);
        }
        let key = SeenId::halves(digest);
        if let Ok(i) = self.sorted.binary_search_by_key(&key, |s| s.digest) {
            return Some(self.sorted[i].at());
        }
        self.recent.insert(digest, at);
        if self.recent.len() >= Self::MIN_MERGE.max(self.sorted.len() / 8) {
            self.sorted
                .extend(self.recent.drain().map(|(d, at)| SeenId::new(d, at)));
            self.sorted.sort_unstable_by_key(|s| s.digest);
        }
        None
    }
}
