//! Catalog, theme and config files: read through [`fsutil::read_text`]
//! (only regular files, at most [`MAX_FILE_BYTES`], UTF-8 text: a FIFO named
//! `x.toml` must not block start-up and `/dev/zero` linked as a catalog file
//! must not eat memory), and the `*.toml` files of a directory.

use crate::fsutil;
pub use crate::fsutil::ReadError;
use std::io;
use std::path::{Path, PathBuf};

/// The largest catalog, theme or config file read: 16 MiB, some 50,000
/// device entries; the built-in catalog is under 100 KB.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Read a user file with the standard limit.
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    fsutil::read_text(path, MAX_FILE_BYTES)
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
            fsutil::kind_of(&m.file_type()).replace("special file", "file")
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
        assert_eq!(
            fsutil::read_text(&p, 9),
            Err(ReadError::TooLarge { size: 10, limit: 9 })
        );
        assert!(fsutil::read_text(&p, 10).is_ok());
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
