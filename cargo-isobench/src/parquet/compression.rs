//! The compression of a Parquet output's pages (`--parquet-compression`): the codecs this
//! tool writes, which pyarrow (and so Hugging Face `datasets`), `DuckDB` and polars read, and
//! their levels. Known to every build: a build without Parquet still parses the option.

use std::fmt;
use std::ops::RangeInclusive;

/// The zstd levels a Parquet writer takes (those of the `zstd` library, without the
/// negative "fast" levels).
pub const ZSTD_LEVELS: RangeInclusive<i32> = 1..=22;
/// The gzip (deflate) levels a Parquet writer takes.
pub const GZIP_LEVELS: RangeInclusive<u32> = 0..=9;

/// The values `--parquet-compression` takes, as its error messages list them.
pub const ACCEPTED: &str =
    "zstd, zstd:N (N from 1 to 22), snappy, gzip, gzip:N (N from 0 to 9), lz4, none";

/// A Parquet codec and its level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParquetCompression {
    /// Zstandard at a level of [`ZSTD_LEVELS`]. The default is level 1, as pyarrow writes:
    /// on rows of distinct text (the bulk of a benchmark dataset), level 3 spends about
    /// 1.4x the compression CPU for files about 15% smaller, and compression is the
    /// largest part of a conversion's CPU.
    Zstd(i32),
    /// Snappy: what pyarrow and `DuckDB` write by default; files about 1.5x those of zstd
    /// level 1, for little less CPU (reading and converting take most of it).
    Snappy,
    /// Gzip at a level of [`GZIP_LEVELS`] (6 when none is given).
    Gzip(u32),
    /// LZ4 in the `LZ4_RAW` codec: what pyarrow and `DuckDB` write for `lz4` (the older
    /// Hadoop-framed `LZ4` codec is deprecated by the format).
    Lz4,
    /// No compression.
    None,
}

impl Default for ParquetCompression {
    fn default() -> Self {
        Self::Zstd(1)
    }
}

/// The gzip level `gzip` alone means: zlib's default.
const GZIP_DEFAULT: u32 = 6;

impl ParquetCompression {
    /// Parses `zstd`, `zstd:N`, `snappy`, `gzip`, `gzip:N`, `lz4` or `none`; `None` for
    /// anything else, a level out of range included.
    pub fn parse(text: &str) -> Option<Self> {
        let (codec, level) = match text.split_once(':') {
            Some((codec, level)) => (codec, Some(level)),
            None => (text, None),
        };
        match (codec, level) {
            ("zstd", None) => Some(Self::default()),
            ("zstd", Some(level)) => level
                .parse()
                .ok()
                .filter(|n| ZSTD_LEVELS.contains(n))
                .map(Self::Zstd),
            ("gzip", None) => Some(Self::Gzip(GZIP_DEFAULT)),
            ("gzip", Some(level)) => level
                .parse()
                .ok()
                .filter(|n| GZIP_LEVELS.contains(n))
                .map(Self::Gzip),
            ("snappy", None) => Some(Self::Snappy),
            ("lz4", None) => Some(Self::Lz4),
            ("none", None) => Some(Self::None),
            _ => None,
        }
    }
}

impl fmt::Display for ParquetCompression {
    /// The value of `--parquet-compression` that gives it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Zstd(level) => write!(f, "zstd:{level}"),
            Self::Snappy => f.write_str("snappy"),
            Self::Gzip(level) => write!(f, "gzip:{level}"),
            Self::Lz4 => f.write_str("lz4"),
            Self::None => f.write_str("none"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_codec_and_level_parses_and_prints_back() {
        assert_eq!(
            ParquetCompression::parse("zstd"),
            Some(ParquetCompression::Zstd(1))
        );
        assert_eq!(
            ParquetCompression::parse("gzip"),
            Some(ParquetCompression::Gzip(6))
        );
        let mut all = vec![
            ParquetCompression::Snappy,
            ParquetCompression::Lz4,
            ParquetCompression::None,
        ];
        all.extend(ZSTD_LEVELS.map(ParquetCompression::Zstd));
        all.extend(GZIP_LEVELS.map(ParquetCompression::Gzip));
        for codec in all {
            assert_eq!(ParquetCompression::parse(&codec.to_string()), Some(codec));
        }
    }

    #[test]
    fn levels_out_of_range_and_other_names_are_refused() {
        for text in [
            "zstd:0", "zstd:23", "zstd:-1", "zstd:", "zstd:x", "gzip:10", "gzip:-1", "snappy:1",
            "lz4:1", "none:0", "ZSTD", "brotli", "lzo", "lz4_raw", "", ":1",
        ] {
            assert_eq!(ParquetCompression::parse(text), None, "{text}");
        }
    }

    #[test]
    fn the_accepted_values_say_the_ranges() {
        let (z, g) = (&ZSTD_LEVELS, &GZIP_LEVELS);
        assert_eq!(
            ACCEPTED,
            format!(
                "zstd, zstd:N (N from {} to {}), snappy, gzip, gzip:N (N from {} to {}), lz4, none",
                z.start(),
                z.end(),
                g.start(),
                g.end()
            )
        );
    }
}
