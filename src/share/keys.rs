//! The keys of `ridgeline share`: the server's host key (made on first
//! start, kept in the config directory readable by its owner alone, and
//! refused when others can read it) and the authorized keys of the users
//! who may connect (an OpenSSH `authorized_keys` file).

use crate::fsutil;
use russh::keys::ssh_key::LineEnding;
use russh::keys::ssh_key::private::Ed25519Keypair;
use russh::keys::{HashAlg, PrivateKey, PublicKey};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The host key's file name in the config directory.
pub const HOST_KEY_FILE: &str = "share_host_ed25519_key";

/// The largest authorized-keys file read (a line per key; 1 MiB holds
/// thousands).
const AUTHORIZED_MAX: u64 = 1 << 20;

/// The largest host key file read (an Ed25519 key is about 400 bytes).
const HOST_KEY_MAX: u64 = 64 * 1024;

/// A path as the messages show it: control and format characters escaped.
pub fn shown(path: &Path) -> String {
    crate::catalog::fields::printable(&path.display().to_string()).into_owned()
}

/// A key's SHA-256 fingerprint as OpenSSH prints it (`SHA256:...`).
pub fn fingerprint(key: &PublicKey) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

/// Where the host key lives: `dir/share_host_ed25519_key`.
pub fn host_key_path(config_dir: &Path) -> PathBuf {
    config_dir.join(HOST_KEY_FILE)
}

/// The host key and whether it was made just now.
pub struct HostKey {
    pub key: PrivateKey,
    pub path: PathBuf,
    pub created: bool,
}

/// Read the host key at `path`, or make one there if there is none. A key
/// that others can read is refused (as sshd does): it may have been seen.
pub fn load_or_create_host_key(path: &Path) -> Result<HostKey, String> {
    let shown = shown(path);
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let key = new_host_key()?;
            let text = key
                .to_openssh(LineEnding::LF)
                .map_err(|e| format!("cannot encode the new host key: {e}"))?;
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| {
                    format!(
                        "cannot create {} for the host key: {e}; set RIDGELINE_CONFIG_DIR to a writable directory",
                        super::keys::shown(dir)
                    )
                })?;
            }
            fsutil::write_atomic_private(path, text.as_bytes())
                .map_err(|e| format!("cannot write the host key {shown}: {e}"))?;
            Ok(HostKey {
                key,
                path: path.to_path_buf(),
                created: true,
            })
        }
        Err(e) => Err(format!("cannot read the host key {shown}: {e}")),
        Ok(meta) => {
            if !meta.is_file() {
                return Err(format!(
                    "the host key {shown} is not a regular file; remove it and a new key is made"
                ));
            }
            check_private(path, &meta)?;
            let text = read_limited(path, HOST_KEY_MAX)
                .map_err(|e| format!("cannot read the host key {shown}: {e}"))?;
            let key = PrivateKey::from_openssh(text.as_bytes()).map_err(|e| {
                format!(
                    "the host key {shown} is not an OpenSSH private key ({e}); remove it and a new key is made"
                )
            })?;
            if key.is_encrypted() {
                return Err(format!(
                    "the host key {shown} is encrypted with a passphrase; give a key without one, or remove it and a new key is made"
                ));
            }
            Ok(HostKey {
                key,
                path: path.to_path_buf(),
                created: false,
            })
        }
    }
}

/// Refuse a secret that others than its owner can read or write.
#[cfg(unix)]
fn check_private(path: &Path, meta: &std::fs::Metadata) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        let p = shown(path);
        return Err(format!(
            "the host key {p} can be read or written by others (mode {mode:04o}); it is refused: run `chmod 600 {p}`, or remove it and a new key is made"
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_: &Path, _: &std::fs::Metadata) -> Result<(), String> {
    Ok(())
}

/// A new Ed25519 key from the operating system's random source.
fn new_host_key() -> Result<PrivateKey, String> {
    let mut seed = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut seed))
        .map_err(|e| format!("cannot read random bytes for a host key: {e}"))?;
    let pair = Ed25519Keypair::from_seed(&seed);
    seed.fill(0);
    Ok(PrivateKey::from(pair))
}

fn read_limited(path: &Path, limit: u64) -> Result<String, String> {
    fsutil::read_text(path, limit).map_err(|e| e.to_string())
}

/// The keys of an `authorized_keys` file (options before a key are
/// allowed and ignored; blank lines and `#` comments skipped). Every line
/// that is not a key is an error naming its line.
pub fn read_authorized_keys(path: &Path) -> Result<Vec<PublicKey>, String> {
    read_keys(
        path,
        "--authorized-keys",
        "so nobody could connect; add the users' public keys (~/.ssh/id_ed25519.pub), one a line",
    )
}

/// The keys of a file in the `authorized_keys` format given with `flag`;
/// `empty` says what an empty file would mean and what to do.
pub fn read_keys(path: &Path, flag: &str, empty: &str) -> Result<Vec<PublicKey>, String> {
    let shown = shown(path);
    let text = read_limited(path, AUTHORIZED_MAX).map_err(|e| format!("{flag} {shown}: {e}"))?;
    let keys = parse_authorized_keys(&text).map_err(|(line, why)| {
        format!(
            "{flag} {shown}:{line}: not a public key ({why}); each line holds one, as in ~/.ssh/authorized_keys (ssh-ed25519 AAAA... comment)"
        )
    })?;
    if keys.is_empty() {
        return Err(format!("{flag} {shown}: the file holds no key, {empty}"));
    }
    Ok(keys)
}

/// The keys of an `authorized_keys` text, or the first bad line (1-based)
/// and why.
pub fn parse_authorized_keys(text: &str) -> Result<Vec<PublicKey>, (usize, String)> {
    let mut keys = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let key = PublicKey::from_openssh(line).or_else(|first| {
            // Options come first: try from each later word that names a
            // key type.
            line.match_indices(' ')
                .map(|(at, _)| &line[at + 1..])
                .filter(|rest| rest.starts_with("ssh-") || rest.starts_with("ecdsa-"))
                .find_map(|rest| PublicKey::from_openssh(rest).ok())
                .ok_or_else(|| (i + 1, first.to_string()))
        })?;
        keys.push(key);
    }
    Ok(keys)
}

/// True when `key` is one of `keys` (the key itself; comments differ).
pub fn is_authorized(keys: &[PublicKey], key: &PublicKey) -> bool {
    keys.iter().any(|k| k.key_data() == key.key_data())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Two keys made with `ssh-keygen -t ed25519` for these tests only.
    const ALICE: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIC38DhLx5yqM4xZgsvheCxx3R09mxDHhGJteubkuspY7 alice@example";
    const BOB: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIC6ZLeuIf8JbwSdFIdWFcgozPHkRrjEZ4r/TuPRcOoBC bob@example";

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ridgeline-keys-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn authorized_keys_parse_with_options_comments_and_blank_lines() {
        let text = format!("# team\n\n{ALICE}\nno-pty,command=\"x y\" {BOB}\n");
        let keys = parse_authorized_keys(&text).unwrap();
        assert_eq!(keys.len(), 2);
        let bob = PublicKey::from_openssh(BOB).unwrap();
        assert!(is_authorized(&keys, &bob));
        let alice_alone = parse_authorized_keys(ALICE).unwrap();
        assert!(!is_authorized(&alice_alone, &bob));
        // Line 3 is not a key.
        let bad = format!("{ALICE}\n\nnot a key\n");
        assert_eq!(parse_authorized_keys(&bad).unwrap_err().0, 3);
    }

    #[cfg(unix)]
    #[test]
    fn the_host_key_is_made_once_owner_only_and_refused_when_others_can_read_it() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("host");
        let p = host_key_path(&d);
        let made = load_or_create_host_key(&p).unwrap();
        assert!(made.created);
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // The second start reads the same key.
        let again = load_or_create_host_key(&p).unwrap();
        assert!(!again.created);
        assert_eq!(
            fingerprint(again.key.public_key()),
            fingerprint(made.key.public_key())
        );
        assert!(fingerprint(made.key.public_key()).starts_with("SHA256:"));
        // World-readable: refused, with the fix.
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = load_or_create_host_key(&p).err().unwrap();
        assert!(e.contains("mode 0644") && e.contains("chmod 600"), "{e}");
        // Group-readable too.
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        assert!(load_or_create_host_key(&p).is_err());
        // Garbage in the file: refused with what to do.
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::write(&p, "garbage").unwrap();
        let e = load_or_create_host_key(&p).err().unwrap();
        assert!(e.contains("not an OpenSSH private key"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
