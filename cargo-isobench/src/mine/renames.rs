//! Rename detection as `git diff -M` does it, so that mined diffs pair the same files with
//! the same similarity as git's.
//!
//! The facts carried over from git's documented behaviour and its rename scoring:
//!
//! * Sources are the deleted files, destinations the added files (`-M`, no copies).
//! * Exact renames (same blob) come first; a destination takes the first unused source with
//!   its blob, preferring one with the same file name.
//! * Then a destination and a source whose file names are each unique among those left,
//!   and equal, are paired when their similarity is at least halfway between the minimum
//!   and 100% (75% for the default 50%).
//! * Then every remaining pair is scored; each destination keeps its four best sources,
//!   and pairs are taken best first (ties: same file name first), each source and
//!   destination once, down to the minimum score (50%).
//! * A score is the bytes of the destination found in the source over the larger size: both
//!   files are cut into chunks ending at a newline or after 64 bytes (a CR before a newline
//!   not counted in text), each chunk hashed; the bytes of the chunks the two files share
//!   count, per hash the smaller count. A pair whose sizes differ by more than the minimum
//!   allows is not scored. The similarity shown is the score in whole percent, rounded
//!   down.
//! * Files that are not regular (symbolic links, submodules) are renamed only exactly.
//! * More than 1,000 × 1,000 candidate pairs: only exact renames.

use std::collections::HashMap;

/// A score of 100%.
pub const MAX_SCORE: u64 = 60_000;
/// `-M`'s default minimum, 50%.
pub const MIN_SCORE: u64 = MAX_SCORE / 2;
const CANDIDATES_PER_DESTINATION: usize = 4;
const RENAME_LIMIT: u64 = 1_000;
const HASH_BASE: u32 = 107_927;

/// A file on one side of a rename: its path, blob and mode.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Path in the tree.
    pub path: String,
    /// Blob id (hex or raw bytes: only compared for equality).
    pub blob: [u8; 20],
    /// Git file mode (`0o100644`, ...).
    pub mode: u32,
}

/// A pairing: indexes into the sources and destinations given, and the score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    /// Index of the source (deleted file).
    pub src: usize,
    /// Index of the destination (added file).
    pub dst: usize,
    /// Score out of [`MAX_SCORE`].
    pub score: u64,
}

/// The similarity percentage git prints for a score.
pub fn percent(score: u64) -> u64 {
    score * 100 / MAX_SCORE
}

fn is_regular(mode: u32) -> bool {
    mode & 0o170_000 == 0o100_000
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The chunk hashes of `data` and the bytes each covers, sorted by hash.
pub fn chunk_counts(data: &[u8]) -> Vec<(u32, u32)> {
    let check = &data[..data.len().min(8000)];
    let text = memchr::memchr(0, check).is_none();
    let mut counts: HashMap<u32, u32> = HashMap::new();
    let (mut acc1, mut acc2, mut n) = (0u32, 0u32, 0u32);
    for (i, &c) in data.iter().enumerate() {
        if text && c == b'\r' && data.get(i + 1) == Some(&b'\n') {
            continue;
        }
        let old1 = acc1;
        acc1 = (acc1 << 7) ^ (acc2 >> 25);
        acc2 = (acc2 << 7) ^ (old1 >> 25);
        acc1 = acc1.wrapping_add(u32::from(c));
        n += 1;
        if n < 64 && c != b'\n' {
            continue;
        }
        let hash = acc1.wrapping_add(acc2.wrapping_mul(0x61)) % HASH_BASE;
        *counts.entry(hash).or_default() += n;
        n = 0;
        acc1 = 0;
        acc2 = 0;
    }
    // A last chunk without a newline, shorter than 64 bytes, is not counted (as in git).
    let mut sorted: Vec<(u32, u32)> = counts.into_iter().collect();
    sorted.sort_unstable();
    sorted
}

/// The bytes of `dst`'s chunks found in `src` (per hash, the smaller count).
fn copied(src: &[(u32, u32)], dst: &[(u32, u32)]) -> u64 {
    let (mut i, mut j, mut total) = (0, 0, 0u64);
    while i < src.len() && j < dst.len() {
        match src[i].0.cmp(&dst[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                total += u64::from(src[i].1.min(dst[j].1));
                i += 1;
                j += 1;
            }
        }
    }
    total
}

/// Where the rename search reads blobs: their sizes, and their contents when scored.
pub trait Blobs {
    /// The size of a blob.
    fn size(&mut self, blob: &[u8; 20]) -> u64;
    /// The contents of a blob.
    fn content(&mut self, blob: &[u8; 20]) -> Vec<u8>;
}

struct Scorer<'b, B: Blobs> {
    blobs: &'b mut B,
    counts: HashMap<[u8; 20], Vec<(u32, u32)>>,
}

impl<B: Blobs> Scorer<'_, B> {
    fn score(&mut self, src: &Candidate, dst: &Candidate, minimum: u64) -> u64 {
        if !is_regular(src.mode) || !is_regular(dst.mode) {
            return 0;
        }
        let (a, b) = (self.blobs.size(&src.blob), self.blobs.size(&dst.blob));
        let (max, min) = (a.max(b), a.min(b));
        if max * (MAX_SCORE - minimum) < (max - min) * MAX_SCORE {
            return 0;
        }
        if b == 0 {
            return 0;
        }
        for blob in [src.blob, dst.blob] {
            if !self.counts.contains_key(&blob) {
                let data = self.blobs.content(&blob);
                self.counts.insert(blob, chunk_counts(&data));
            }
        }
        copied(&self.counts[&src.blob], &self.counts[&dst.blob]) * MAX_SCORE / max
    }
}

/// A scored candidate pair of the matrix.
#[derive(Clone, Copy)]
struct Scored {
    src: usize,
    dst: usize,
    score: u64,
    same_name: bool,
}

/// The renames among deleted files `srcs` and added files `dsts` (each sorted by path).
pub fn find<B: Blobs>(srcs: &[Candidate], dsts: &[Candidate], blobs: &mut B) -> Vec<Pair> {
    let mut pairs = Vec::new();
    if srcs.is_empty() || dsts.is_empty() {
        return pairs;
    }
    let mut src_used = vec![false; srcs.len()];
    let mut dst_paired = vec![false; dsts.len()];
    // Exact renames.
    let mut by_blob: HashMap<[u8; 20], Vec<usize>> = HashMap::new();
    for (i, s) in srcs.iter().enumerate() {
        by_blob.entry(s.blob).or_default().push(i);
    }
    for (d, dst) in dsts.iter().enumerate() {
        let Some(found) = by_blob.get(&dst.blob) else {
            continue;
        };
        let mut best: Option<(usize, u8)> = None;
        for &s in found.iter().take(100) {
            let src = &srcs[s];
            if (!is_regular(src.mode) || !is_regular(dst.mode)) && src.mode != dst.mode {
                continue;
            }
            if src_used[s] {
                continue;
            }
            let score = 1 + u8::from(basename(&src.path) == basename(&dst.path));
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((s, score));
                if score == 2 {
                    break;
                }
            }
        }
        if let Some((s, _)) = best {
            src_used[s] = true;
            dst_paired[d] = true;
            pairs.push(Pair {
                src: s,
                dst: d,
                score: MAX_SCORE,
            });
        }
    }
    let left_dsts = dst_paired.iter().filter(|p| !**p).count() as u64;
    let left_srcs = src_used.iter().filter(|u| !**u).count() as u64;
    if left_dsts == 0 || left_srcs == 0 {
        return pairs;
    }
    let mut scorer = Scorer {
        blobs,
        counts: HashMap::new(),
    };
    // Same unique file name.
    let basename_min = MIN_SCORE + (MAX_SCORE - MIN_SCORE) / 2;
    let mut src_names: HashMap<&str, Option<usize>> = HashMap::new();
    for (i, s) in srcs.iter().enumerate().filter(|(i, _)| !src_used[*i]) {
        src_names
            .entry(basename(&s.path))
            .and_modify(|e| *e = None)
            .or_insert(Some(i));
    }
    let mut dst_names: HashMap<&str, Option<usize>> = HashMap::new();
    for (i, d) in dsts.iter().enumerate().filter(|(i, _)| !dst_paired[*i]) {
        dst_names
            .entry(basename(&d.path))
            .and_modify(|e| *e = None)
            .or_insert(Some(i));
    }
    for (s, src) in srcs.iter().enumerate() {
        if src_used[s] {
            continue;
        }
        let name = basename(&src.path);
        let (Some(Some(_)), Some(Some(d))) = (src_names.get(name), dst_names.get(name)) else {
            continue;
        };
        let d = *d;
        if dst_paired[d] {
            continue;
        }
        let score = scorer.score(src, &dsts[d], basename_min);
        if score >= basename_min {
            src_used[s] = true;
            dst_paired[d] = true;
            pairs.push(Pair {
                src: s,
                dst: d,
                score,
            });
        }
    }
    let left_dsts = dst_paired.iter().filter(|p| !**p).count() as u64;
    let left_srcs = src_used.iter().filter(|u| !**u).count() as u64;
    if left_dsts == 0 || left_srcs == 0 || left_dsts * left_srcs > RENAME_LIMIT * RENAME_LIMIT {
        return pairs;
    }
    // The best four sources of each destination, then the best pairs first.
    // Greater is better.
    let rank = |m: &Option<Scored>| m.map(|m| (1u8, m.score, m.same_name));
    let mut matrix: Vec<Option<Scored>> = Vec::new();
    for (d, dst) in dsts.iter().enumerate() {
        if dst_paired[d] {
            continue;
        }
        let mut best = [None; CANDIDATES_PER_DESTINATION];
        for (s, src) in srcs.iter().enumerate() {
            if src_used[s] {
                continue;
            }
            let this = Some(Scored {
                src: s,
                dst: d,
                score: scorer.score(src, dst, MIN_SCORE),
                same_name: basename(&src.path) == basename(&dst.path),
            });
            let mut worst = 0;
            for i in 1..CANDIDATES_PER_DESTINATION {
                if rank(&best[i]) < rank(&best[worst]) {
                    worst = i;
                }
            }
            if rank(&best[worst]) < rank(&this) {
                best[worst] = this;
            }
        }
        matrix.extend(best);
    }
    matrix.sort_by_key(|m| std::cmp::Reverse(rank(m)));
    for m in matrix.into_iter().flatten() {
        if m.score < MIN_SCORE {
            break;
        }
        if dst_paired[m.dst] || src_used[m.src] {
            continue;
        }
        dst_paired[m.dst] = true;
        src_used[m.src] = true;
        pairs.push(Pair {
            src: m.src,
            dst: m.dst,
            score: m.score,
        });
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Mem(HashMap<[u8; 20], Vec<u8>>);

    impl Blobs for Mem {
        fn size(&mut self, blob: &[u8; 20]) -> u64 {
            self.0[blob].len() as u64
        }
        fn content(&mut self, blob: &[u8; 20]) -> Vec<u8> {
            self.0[blob].clone()
        }
    }

    fn id(n: u8) -> [u8; 20] {
        [n; 20]
    }

    #[test]
    fn chunks_end_at_newlines_or_64_bytes_and_a_short_tail_is_not_counted() {
        let counts = chunk_counts(b"ab\ncd\nab\n");
        let total: u32 = counts.iter().map(|c| c.1).sum();
        assert_eq!(total, 9);
        assert_eq!(counts.len(), 2);
        // 130 bytes without a newline: two chunks of 64, the 2-byte tail dropped.
        let long = vec![b'x'; 130];
        assert_eq!(chunk_counts(&long).iter().map(|c| c.1).sum::<u32>(), 128);
        // A CR before a newline is not counted in text.
        assert_eq!(chunk_counts(b"ab\r\n"), chunk_counts(b"ab\n"));
    }

    #[test]
    fn exact_first_then_best_scores_each_file_once() {
        let body: Vec<u8> = (0..40)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let mut edited = body.clone();
        edited.extend_from_slice(b"one more\n");
        let blobs = Mem(HashMap::from([
            (id(1), body.clone()),
            (id(2), edited),
            (id(3), b"unrelated\n".repeat(40)),
        ]));
        let c = |path: &str, blob: u8| Candidate {
            path: path.into(),
            blob: id(blob),
            mode: 0o100_644,
        };
        let srcs = [c("a/old.py", 1), c("b/gone.txt", 3)];
        let dsts = [c("x/new.py", 2), c("y/old.py", 1)];
        let pairs = find(&srcs, &dsts, &mut { blobs });
        assert_eq!(
            pairs,
            vec![Pair {
                src: 0,
                dst: 1,
                score: MAX_SCORE
            }]
        );
    }
}
