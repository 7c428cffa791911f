//! Files on the user's disk, read and written safely. Everything ridgeline
//! saves goes through [`write_atomic`] (scenarios today; a user catalog file
//! written from the workbench and `ridgeline import` later), and files it
//! opens by name can go through [`read_text`].
//!
//! What [`write_atomic`] guarantees:
//!
//! - **All or nothing.** The bytes go to a temporary file in the target's
//!   own directory (so the rename never crosses file systems), which is
//!   flushed to disk (`fsync`) and then renamed over the target. A crash or
//!   a full disk leaves the old file whole, never a half-written one; the
//!   directory is flushed too, so the rename itself survives a power cut.
//! - **No planted files.** The temporary file has an unpredictable name
//!   (`.NAME.<16 hex digits>.tmp`) and is created exclusively (`O_CREAT |
//!   O_EXCL`, Rust's `create_new`), which never follows a symbolic link: a
//!   file or link planted at that name makes the write pick another name,
//!   it is never written through.
//! - **Permissions kept.** Over an existing file, the new file gets the old
//!   one's permission bits (a 0600 file stays 0600), set before any byte is
//!   written; a new file gets the usual 0666 less the umask. The set-id and
//!   sticky bits are not carried over. A file without any write permission
//!   is refused (`PermissionDenied`) rather than silently replaced.
//! - **Links followed, not replaced.** When the target is a symbolic link
//!   (or a chain of them), the file it points to is written and the link is
//!   left in place; [`Written::via_symlink`] says so, so that the caller can
//!   tell the user.
//! - Only a regular file (or nothing) is replaced: a directory, FIFO or
//!   device at the target is an error.
//!
//! Limits: the new file belongs to the user who writes it (a file owned by
//! someone else, rewritten by root, becomes root's), and a file with several
//! hard links is replaced under the name written only, as with every
//! rename-based save.

use std::collections::hash_map::RandomState;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// How a [`write_atomic`] went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The file whose contents are now the new bytes: the path asked for, or
    /// the file its symbolic link points to.
    pub file: PathBuf,
    /// The path asked for was a symbolic link: `file` is where it points.
    pub via_symlink: bool,
    /// A file was there before (and its permissions were kept).
    pub replaced: bool,
}

/// Symbolic links followed before giving up, as Linux's ELOOP limit.
const MAX_LINKS: usize = 40;

/// Temporary names tried before giving up (each one is 64 random bits, so a
/// second try happens only when something was planted or left behind).
const TEMP_TRIES: usize = 16;

/// Replace the contents of `path` with `bytes`, atomically (see the module
/// documentation for every guarantee). On an error nothing at `path`
/// changed and no temporary file is left behind.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<Written> {
    write_with(path, bytes, false)
}

/// [`write_atomic`] for a secret (a private key): the file is readable
/// and writable by its owner alone (mode 0600) from the first moment,
/// whatever the file it replaces allowed.
pub fn write_atomic_private(path: &Path, bytes: &[u8]) -> io::Result<Written> {
    write_with(path, bytes, true)
}

fn write_with(path: &Path, bytes: &[u8], private: bool) -> io::Result<Written> {
    let (file, via_symlink) = resolve_links(path)?;
    let name = file
        .file_name()
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "the path names no file (it ends in a directory)",
            )
        })?
        .to_string_lossy()
        .into_owned();
    let old = match fs::metadata(&file) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Some(m) = &old {
        if !m.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "it is not a regular file (a directory, FIFO or device)",
            ));
        }
        if m.permissions().readonly() {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "the file is read-only; make it writable or choose another name",
            ));
        }
    }
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let (tmp, mut f) = create_temp(&dir, &name, old.as_ref(), private, random_suffix)?;
    let result = (|| {
        if let Some(m) = old.as_ref().filter(|_| !private) {
            f.set_permissions(kept_permissions(m))?;
        }
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, &file)?;
        sync_dir(&dir);
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(Written {
        file,
        via_symlink,
        replaced: old.is_some(),
    })
}

/// Create the directory `dir`, which must not exist (`AlreadyExists`
/// otherwise: nothing is overwritten), and write `files` (name, bytes)
/// into it, each with [`write_atomic`]. On a failure the files written and
/// the directory are removed, so that a directory is there only whole.
pub fn write_new_dir(dir: &Path, files: &[(&str, &[u8])]) -> io::Result<()> {
    std::fs::create_dir(dir)?;
    for (i, (name, bytes)) in files.iter().enumerate() {
        if let Err(e) = write_atomic(&dir.join(name), bytes) {
            for (done, _) in &files[..i] {
                let _ = std::fs::remove_file(dir.join(done));
            }
            let _ = std::fs::remove_dir(dir);
            return Err(e);
        }
    }
    Ok(())
}

/// Follow `path` while its last component is a symbolic link: the file a
/// write should replace (which may not exist yet), and whether any link was
/// followed. Relative link targets are read from the link's directory.
pub fn resolve_links(path: &Path) -> io::Result<(PathBuf, bool)> {
    let mut p = path.to_path_buf();
    for hops in 0..=MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            Ok(_) => return Ok((p, hops > 0)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((p, hops > 0)),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("more than {MAX_LINKS} symbolic links in a row"),
    ))
}

/// Create a new temporary file for `name` in `dir`, exclusively, with names
/// from `suffix` (the same call gives a new suffix each time). A name that
/// is taken (by a file, a directory or a planted link) is skipped.
fn create_temp(
    dir: &Path,
    name: &str,
    old: Option<&fs::Metadata>,
    private: bool,
    mut suffix: impl FnMut() -> String,
) -> io::Result<(PathBuf, File)> {
    let mut last = None;
    for _ in 0..TEMP_TRIES {
        let tmp = dir.join(format!(".{name}.{}.tmp", suffix()));
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            // No wider than the file it replaces, from the first moment.
            // (A secret is its owner's alone.)
            opts.mode(match old {
                _ if private => 0o600,
                Some(m) => m.permissions().mode() & 0o777,
                None => 0o666,
            });
        }
        #[cfg(not(unix))]
        let _ = (old, private);
        match opts.open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary name was free")))
}

/// 64 bits no one else can predict: std's `RandomState` keys come from the
/// operating system's random source, mixed with the time and a counter.
fn random_suffix() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    format!("{:016x}", h.finish())
}

/// The permissions a replaced file keeps (without the set-id and sticky bits).
fn kept_permissions(m: &fs::Metadata) -> fs::Permissions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::Permissions::from_mode(m.permissions().mode() & 0o777)
    }
    #[cfg(not(unix))]
    {
        m.permissions()
    }
}

/// Flush a directory's entries (the rename) to disk. Best effort: some file
/// systems refuse to sync a directory, and the data is already safe.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// A path as typed: `~` alone or `~/...` starts at `home`. Anything else
/// (including `~user/...`, and every path when there is no home) is taken
/// as written.
pub fn expand_tilde(text: &str, home: Option<&Path>) -> PathBuf {
    match (text, home) {
        ("~", Some(h)) => h.to_path_buf(),
        (t, Some(h)) if t.starts_with("~/") => h.join(&t[2..]),
        _ => PathBuf::from(text),
    }
}

/// The user's home directory ($HOME, else the password database's).
pub fn home_dir() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf())
}

/// Why a file was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// A directory, FIFO, socket or device.
    NotRegular(&'static str),
    /// Its size, and the most that is read.
    TooLarge {
        size: u64,
        limit: u64,
    },
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
            ReadError::TooLarge { size, limit } => write!(
                f,
                "not read: {size} bytes is over the limit of {limit} bytes ({}); split it into several files",
                crate::solver::units::format_bytes(*limit as f64)
            ),
            ReadError::NotUtf8 => f.write_str("not read: it is not UTF-8 text"),
            ReadError::Missing => f.write_str("cannot read: it does not exist"),
            ReadError::Io(e) => write!(f, "cannot read: {e}"),
        }
    }
}

/// What a file that is not a regular file is, in words ("FIFO (named pipe)").
pub fn kind_of(ft: &std::fs::FileType) -> &'static str {
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

/// Read a text file the user named: only a regular file (a FIFO would
/// block forever, `/dev/zero` never ends; the file is opened without
/// blocking and checked again on the open handle), at most `limit` bytes,
/// UTF-8. Errors say what was wrong in words a user can act on.
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
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
        return Err(ReadError::TooLarge {
            size: meta.len(),
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // One byte more than the limit tells a file that grew while read.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::Io(e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            size: bytes.len() as u64,
            limit,
        });
    }
    String::from_utf8(bytes).map_err(|_| ReadError::NotUtf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system's temporary one, removed on drop.
    struct Dir(PathBuf);
    impl Dir {
        fn new(tag: &str) -> Dir {
            let p = std::env::temp_dir().join(format!(
                "ridgeline-fsutil-{tag}-{}-{}",
                std::process::id(),
                random_suffix()
            ));
            fs::create_dir_all(&p).unwrap();
            Dir(p)
        }
        fn names(&self) -> Vec<String> {
            let mut v: Vec<String> = fs::read_dir(&self.0)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn writes_a_new_file_and_replaces_an_old_one_leaving_no_temporary() {
        let d = Dir::new("new");
        let p = d.0.join("s.toml");
        let w = write_atomic(&p, b"one").unwrap();
        assert_eq!(
            (w.file.as_path(), w.via_symlink, w.replaced),
            (p.as_path(), false, false)
        );
        let w = write_atomic(&p, b"two").unwrap();
        assert!(w.replaced);
        assert_eq!(fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(d.names(), ["s.toml"]);
        // Into a directory that does not exist: an error, nothing left.
        assert!(write_atomic(&d.0.join("missing/s.toml"), b"x").is_err());
        // Over a directory: an error, the directory untouched.
        fs::create_dir(d.0.join("sub")).unwrap();
        let e = write_atomic(&d.0.join("sub"), b"x").unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        assert!(d.0.join("sub").is_dir());
        assert_eq!(d.names(), ["s.toml", "sub"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_at_the_old_predictable_temporary_name_is_not_written_through() {
        // The first version wrote `.NAME.tmp-PID` with File::create, which
        // follows a link planted there: the save overwrote the link's target.
        let d = Dir::new("plant");
        let victim = d.0.join("victim.txt");
        fs::write(&victim, "precious").unwrap();
        let planted = d.0.join(format!(".s.toml.tmp-{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let p = d.0.join("s.toml");
        write_atomic(&p, b"new").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        assert!(
            fs::symlink_metadata(&planted)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_taken_temporary_name_is_skipped_never_opened() {
        // Names planted at the first two names tried (a link to a victim, a
        // plain file): the third is used, the victim and the file untouched.
        let d = Dir::new("taken");
        let victim = d.0.join("victim.txt");
        fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, d.0.join(".s.toml.a.tmp")).unwrap();
        fs::write(d.0.join(".s.toml.b.tmp"), "mine").unwrap();
        let mut names = ["a", "b", "c"].into_iter();
        let (tmp, mut f) =
            create_temp(&d.0, "s.toml", None, false, || names.next().unwrap().into()).unwrap();
        assert_eq!(tmp, d.0.join(".s.toml.c.tmp"));
        f.write_all(b"x").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(
            fs::read_to_string(d.0.join(".s.toml.b.tmp")).unwrap(),
            "mine"
        );
        // When every name is taken: an error, not a write through a link.
        let e = create_temp(&d.0, "s.toml", None, false, || "a".into()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    }

    #[test]
    fn temporary_names_differ_every_time() {
        let a: std::collections::HashSet<String> = (0..1000).map(|_| random_suffix()).collect();
        assert_eq!(a.len(), 1000);
        assert!(a.iter().all(|s| s.len() == 16));
    }

    #[cfg(unix)]
    #[test]
    fn permissions_of_the_replaced_file_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let d = Dir::new("perm");
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        for m in [0o600, 0o640, 0o755] {
            let p = d.0.join(format!("f{m:o}"));
            fs::write(&p, "old").unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(m)).unwrap();
            write_atomic(&p, b"new").unwrap();
            assert_eq!(mode(&p), m, "{m:o}");
        }
        // A read-only file is refused and left as it was.
        let p = d.0.join("ro");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o444)).unwrap();
        let e = write_atomic(&p, b"new").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(fs::read_to_string(&p).unwrap(), "old");
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_written_through_and_kept() {
        use std::os::unix::fs::symlink;
        let d = Dir::new("link");
        fs::create_dir(d.0.join("real")).unwrap();
        let real = d.0.join("real/s.toml");
        fs::write(&real, "old").unwrap();
        // A relative link, and a link to that link.
        symlink("real/s.toml", d.0.join("link.toml")).unwrap();
        symlink("link.toml", d.0.join("link2.toml")).unwrap();
        let w = write_atomic(&d.0.join("link2.toml"), b"new").unwrap();
        assert!(w.via_symlink && w.replaced);
        assert_eq!(
            fs::canonicalize(&w.file).unwrap(),
            fs::canonicalize(&real).unwrap()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        for l in ["link.toml", "link2.toml"] {
            assert!(
                fs::symlink_metadata(d.0.join(l))
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
        }
        // A dangling link: the file it names is created.
        symlink("real/later.toml", d.0.join("dangling.toml")).unwrap();
        let w = write_atomic(&d.0.join("dangling.toml"), b"x").unwrap();
        assert!(w.via_symlink && !w.replaced);
        assert_eq!(
            fs::read_to_string(d.0.join("real/later.toml")).unwrap(),
            "x"
        );
        // A loop of links: an error.
        symlink("loop-b", d.0.join("loop-a")).unwrap();
        symlink("loop-a", d.0.join("loop-b")).unwrap();
        assert!(write_atomic(&d.0.join("loop-a"), b"x").is_err());
    }

    #[test]
    fn tilde_is_the_home_directory() {
        let home = Path::new("/home/ada");
        assert_eq!(expand_tilde("~", Some(home)), PathBuf::from("/home/ada"));
        assert_eq!(
            expand_tilde("~/runs/a.toml", Some(home)),
            PathBuf::from("/home/ada/runs/a.toml")
        );
        assert_eq!(
            expand_tilde("~bob/a.toml", Some(home)),
            PathBuf::from("~bob/a.toml")
        );
        assert_eq!(expand_tilde("a/~/b", Some(home)), PathBuf::from("a/~/b"));
        assert_eq!(expand_tilde("~/a", None), PathBuf::from("~/a"));
    }

    #[cfg(unix)]
    #[test]
    fn reads_only_regular_files_within_the_limit() {
        let d = Dir::new("read");
        let p = d.0.join("a.toml");
        fs::write(&p, "0123456789").unwrap();
        assert_eq!(read_text(&p, 10).unwrap(), "0123456789");
        let e = read_text(&p, 9).unwrap_err();
        assert_eq!(e, ReadError::TooLarge { size: 10, limit: 9 });
        assert!(e.to_string().contains("over the limit of 9 bytes"), "{e}");
        let e = read_text(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let e = read_text(&d.0, 1 << 20).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        // A FIFO is refused without waiting for a writer.
        let fifo = d.0.join("fifo.toml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = read_text(&fifo, 1 << 20).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
        fs::write(&p, [0xff, 0xfe]).unwrap();
        assert!(read_text(&p, 10).unwrap_err().to_string().contains("UTF-8"));
    }

    #[cfg(unix)]
    #[test]
    fn a_private_write_is_the_owners_alone_even_over_a_wider_file() {
        use std::os::unix::fs::PermissionsExt;
        let d = Dir::new("private");
        let p = d.0.join("key");
        write_atomic_private(&p, b"secret").unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&p), 0o600);
        // A world-readable file replaced: the new one is 0600 all the same.
        fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).unwrap();
        write_atomic_private(&p, b"other").unwrap();
        assert_eq!(mode(&p), 0o600);
        assert_eq!(fs::read(&p).unwrap(), b"other");
    }
}
