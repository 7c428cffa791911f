//! Reading user files safely: only regular files, at most [`MAX_FILE_BYTES`],
//! UTF-8 text. A FIFO named `x.toml` must not block start-up and
//! `/dev/zero` linked as a catalog file must not eat memory, so a file is
//! opened without blocking, checked on the open handle, and read through a
//! limit.

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The largest catalog, theme or config file read: 16 MiB, some 50,000
/// device entries; the built-in catalog is under 100 KB.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Why a file was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// A directory, FIFO, socket or device.
    NotRegular(&'static str),
    TooLarge(u64),
    NotUtf8,
    /// Nothing at the path (a dangling link is an `Io` error instead).
    Missing,
    Io(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotRegular(kind) => write!(
                f,
                "not read: it is a {kind}, not a regular file; replace it with a plain file or remove it"
            ),
            ReadError::TooLarge(n) => write!(
                f,
                "not read: {} bytes is over the limit of {MAX_FILE_BYTES} bytes (16 MiB); split it into several files",
                n
            ),
            ReadError::NotUtf8 => f.write_str("not read: it is not UTF-8 text"),
            ReadError::Missing => f.write_str("does not exist"),
            ReadError::Io(e) => write!(f, "cannot read: {e}"),
        }
    }
}

fn kind_of(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "FIFO (named pipe)";
        }
        if ft.is_socket() {
            return "socket";
        }
        if ft.is_char_device() {
            return "character device";
        }
        if ft.is_block_device() {
            return "block device";
        }
    }
    if ft.is_dir() {
        "directory"
    } else {
        "special file"
    }
}

/// Open for reading without waiting for a writer (a FIFO would block in
/// `open` itself); regular files ignore the flag.
fn open_nonblocking(path: &Path) -> io::Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK);
    }
    o.open(path)
}

/// Read a regular UTF-8 file of at most `limit` bytes.
pub fn read_limited(path: &Path, limit: u64) -> Result<String, ReadError> {
    // Look before opening: opening some devices has effects of its own.
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(if std::fs::symlink_metadata(path).is_ok() {
                ReadError::Io("it is a link to a file that does not exist".into())
            } else {
                ReadError::Missing
            });
        }
        Err(e) => return Err(ReadError::Io(e.to_string())),
    };
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_of(&meta.file_type())));
    }
    let file = open_nonblocking(path).map_err(|e| ReadError::Io(e.to_string()))?;
    // Check the handle too: the path may have been swapped in between.
    let meta = file.metadata().map_err(|e| ReadError::Io(e.to_string()))?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_of(&meta.file_type())));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // One byte more than the limit tells a file that grew while read.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::Io(e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|_| ReadError::NotUtf8)
}

/// Read a user file with the standard limit.
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    read_limited(path, MAX_FILE_BYTES)
}

/// The `*.toml` entries of a directory, sorted. A missing directory has
/// none; one that cannot be listed is an error.
pub fn toml_files_checked(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    Ok(v)
}

/// Why a catalog directory given by the user cannot be used.
pub fn check_dir(dir: &Path) -> Result<(), String> {
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err("does not exist".to_string()),
        Err(e) => Err(format!("cannot be read: {e}")),
        Ok(m) if !m.is_dir() => Err(format!(
            "is a {}, not a directory",
            kind_of(&m.file_type()).replace("special file", "file")
        )),
        Ok(_) => std::fs::read_dir(dir)
            .map(|_| ())
            .map_err(|e| format!("cannot be read: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ridgeline-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_regular_file_within_the_limit_is_read() {
        let d = temp("ok");
        let p = d.join("a.toml");
        std::fs::write(&p, "x = 1\n").unwrap();
        assert_eq!(read_text(&p).unwrap(), "x = 1\n");
        // Ten bytes with a limit of nine: too large, whatever the reader.
        std::fs::write(&p, "0123456789").unwrap();
        assert_eq!(read_limited(&p, 9), Err(ReadError::TooLarge(10)));
        assert!(read_limited(&p, 10).is_ok());
        std::fs::write(&p, [0xff, 0xfe]).unwrap();
        assert_eq!(read_text(&p), Err(ReadError::NotUtf8));
        std::fs::remove_dir_all(&d).ok();
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_a_device_and_a_directory_are_refused_without_blocking() {
        let d = temp("special");
        let fifo = d.join("pipe.toml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Opening a FIFO for reading blocks until a writer comes; this
            // returns at once.
            assert_eq!(
                read_text(&fifo),
                Err(ReadError::NotRegular("FIFO (named pipe)"))
            );
        }
        let zero = d.join("zero.toml");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert_eq!(
            read_text(&zero),
            Err(ReadError::NotRegular("character device"))
        );
        let sub = d.join("dir.toml");
        std::fs::create_dir(&sub).unwrap();
        assert_eq!(read_text(&sub), Err(ReadError::NotRegular("directory")));
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn a_catalog_directory_must_exist_and_be_a_directory() {
        let d = temp("dir");
        assert_eq!(check_dir(&d), Ok(()));
        assert_eq!(check_dir(&d.join("nope")), Err("does not exist".into()));
        let f = d.join("file");
        std::fs::write(&f, "").unwrap();
        assert!(check_dir(&f).unwrap_err().contains("not a directory"));
        std::fs::remove_dir_all(&d).ok();
    }
}
