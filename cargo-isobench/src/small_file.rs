//! Reading a small file a checkout can plant (`isobench.toml`, a plugin index under
//! `target/`, a clone's `.git/shallow`, a `Cargo.toml` above a scaffold): whatever the
//! path names (a link to `/proc/self/pagemap`, a device, a named pipe, a file of gigabytes),
//! the read ends, and takes at most [`MAX_BYTES`].

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The most bytes such a file may hold: far more than any of them needs.
pub const MAX_BYTES: u64 = 1 << 20;

/// The bytes of the small file `path`, or why it is not one: it is not a regular file
/// (looked at before it is opened, so a named pipe is never opened, and again once it is),
/// it lies under `/proc` or `/sys` (whose files say nothing true of their size), or it holds
/// more than [`MAX_BYTES`]. The error is of kind `InvalidData` for those, and the open's or
/// read's own otherwise (`NotFound` for a file that is not there).
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    let real = std::fs::canonicalize(path)?;
    if real.starts_with("/proc") || real.starts_with("/sys") {
        return Err(refused(format!(
            "it is `{}`, a file of the system, not one of the checkout",
            real.display()
        )));
    }
    if !std::fs::metadata(&real)?.is_file() {
        return Err(refused("it is not a regular file".to_owned()));
    }
    let file = File::open(&real)?;
    if !file.metadata()?.is_file() {
        return Err(refused("it is not a regular file".to_owned()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(refused(format!(
            "it holds more than {MAX_BYTES} bytes, more than such a file needs"
        )));
    }
    Ok(bytes)
}

/// [`read`], as UTF-8 text.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read(path)?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()))
}

fn refused(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_regular_file_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.toml");
        std::fs::write(&path, "x = 1\n").unwrap();
        assert_eq!(read_to_string(&path).unwrap(), "x = 1\n");
    }

    #[test]
    fn system_files_directories_and_large_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let large = dir.path().join("large");
        let too_many = usize::try_from(MAX_BYTES).unwrap() + 1;
        std::fs::write(&large, vec![b' '; too_many]).unwrap();
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink("/proc/self/pagemap", &link).unwrap();
            let err = read(&link).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err}");
        }
        for path in [dir.path(), &large] {
            let err = read(path).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err}");
        }
        assert_eq!(
            read(&dir.path().join("absent")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }
}
