//! Raw terminal input bytes to key events, for a workbench whose keys come
//! as a byte stream rather than from the local terminal (an SSH channel:
//! `ridgeline share`). The events are the ones crossterm's own reader makes
//! of the same bytes in raw mode, so the keymap reads them alike: arrows,
//! Enter, Esc, Tab, BackTab, Backspace, Insert, Delete, Home, End, PageUp,
//! PageDown, F1-F12 (with their Shift/Alt/Ctrl forms), Ctrl-letters,
//! Alt-keys, printable UTF-8 (an upper-case letter with Shift), and a
//! bracketed paste as one [`Event::Paste`].
//!
//! Nothing here fails: bytes that mean no key (an unknown sequence, invalid
//! UTF-8) are dropped; a sequence cut at the end of a read waits for the
//! next (bounded); a paste is cut at [`PASTE_MAX`] bytes.

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use std::collections::VecDeque;

/// The longest escape sequence kept while waiting for its end: longer ones
/// are garbage and dropped.
const SEQ_MAX: usize = 32;

/// The most bytes of one bracketed paste kept (the rest is dropped): the
/// longest entry of the workbench is 4096 characters (a path), so 64 KiB
/// holds any paste it can take.
pub const PASTE_MAX: usize = 64 * 1024;

const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";

/// Turns a byte stream into events, keeping a sequence cut between two reads.
#[derive(Debug, Default)]
pub struct ByteInput {
    /// The start of a sequence (or UTF-8 character) not yet complete.
    pending: Vec<u8>,
    /// Inside a bracketed paste: the bytes so far.
    paste: Option<Vec<u8>>,
}

/// What the front of a buffer holds.
enum Parsed {
    /// An event (or nothing, for bytes that mean no key) and the bytes used.
    Done(Option<Event>, usize),
    /// The bytes may be the start of a longer sequence: wait for more.
    More,
}

impl ByteInput {
    pub fn new() -> ByteInput {
        ByteInput::default()
    }

    /// Parse `bytes` (one read) and push the events they complete. A lone
    /// Esc at the end of a read is the Esc key, as crossterm reads it when
    /// nothing more is ready.
    pub fn feed(&mut self, bytes: &[u8], out: &mut VecDeque<Event>) {
        let mut buf = std::mem::take(&mut self.pending);
        buf.extend_from_slice(bytes);
        let mut at = 0;
        while at < buf.len() {
            if let Some(paste) = &mut self.paste {
                match find(&buf[at..], PASTE_END) {
                    Some(end) => {
                        keep(paste, &buf[at..at + end]);
                        let text = String::from_utf8_lossy(paste).into_owned();
                        self.paste = None;
                        out.push_back(Event::Paste(text));
                        at += end + PASTE_END.len();
                    }
                    None => {
                        // Keep back what may be the start of the end marker.
                        let rest = &buf[at..];
                        let cut = rest.len() - marker_prefix(rest, PASTE_END);
                        keep(paste, &rest[..cut]);
                        self.pending = rest[cut..].to_vec();
                        return;
                    }
                }
                continue;
            }
            if buf[at..].starts_with(PASTE_START) {
                self.paste = Some(Vec::new());
                at += PASTE_START.len();
                continue;
            }
            match parse(&buf[at..]) {
                Parsed::Done(ev, used) => {
                    if let Some(ev) = ev {
                        out.push_back(ev);
                    }
                    at += used.max(1);
                }
                // Too long to be a key: garbage, dropped.
                Parsed::More if buf.len() - at > SEQ_MAX => return,
                Parsed::More if buf[at..] == [0x1b] => {
                    out.push_back(key(KeyCode::Esc, KeyModifiers::NONE));
                    at += 1;
                }
                Parsed::More => {
                    self.pending = buf[at..].to_vec();
                    return;
                }
            }
        }
    }
}

/// Add `bytes` to a paste, up to [`PASTE_MAX`].
fn keep(paste: &mut Vec<u8>, bytes: &[u8]) {
    let room = PASTE_MAX.saturating_sub(paste.len());
    paste.extend_from_slice(&bytes[..bytes.len().min(room)]);
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// How many bytes at the end of `buf` are a proper start of `marker`.
fn marker_prefix(buf: &[u8], marker: &[u8]) -> usize {
    (1..marker.len())
        .rev()
        .find(|&n| buf.len() >= n && buf[buf.len() - n..] == marker[..n])
        .unwrap_or(0)
}

fn key(code: KeyCode, mods: KeyModifiers) -> Event {
    Event::Key(KeyEvent::new(code, mods))
}

/// A character key, with Shift for an upper-case letter (as crossterm).
fn char_key(c: char, mods: KeyModifiers) -> Event {
    let shift = if c.is_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    key(KeyCode::Char(c), mods | shift)
}

/// The key at the front of `buf` (not empty).
fn parse(buf: &[u8]) -> Parsed {
    let none = KeyModifiers::NONE;
    let ctrl = KeyModifiers::CONTROL;
    let done = |code, mods| Parsed::Done(Some(key(code, mods)), 1);
    match buf[0] {
        0x1b => escape(buf),
        b'\r' => done(KeyCode::Enter, none),
        b'\t' => done(KeyCode::Tab, none),
        0x7f => done(KeyCode::Backspace, none),
        // Raw mode: \n is Ctrl-J, as crossterm reads it.
        c @ 0x01..=0x1a => done(KeyCode::Char((c - 1 + b'a') as char), ctrl),
        c @ 0x1c..=0x1f => done(KeyCode::Char((c - 0x1c + b'4') as char), ctrl),
        0 => done(KeyCode::Char(' '), ctrl),
        _ => utf8(buf, none),
    }
}

/// One UTF-8 character at the front of `buf`.
fn utf8(buf: &[u8], mods: KeyModifiers) -> Parsed {
    let len = match buf[0] {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        // A continuation byte or an invalid lead: not a character.
        _ => return Parsed::Done(None, 1),
    };
    if buf.len() < len {
        // The rest may come with the next read, unless what is here is
        // already not a continuation.
        return if buf[1..].iter().all(|b| b & 0xc0 == 0x80) {
            Parsed::More
        } else {
            Parsed::Done(None, 1)
        };
    }
    match std::str::from_utf8(&buf[..len]) {
        Ok(s) => match s.chars().next() {
            Some(c) => Parsed::Done(Some(char_key(c, mods)), len),
            None => Parsed::Done(None, len),
        },
        Err(_) => Parsed::Done(None, 1),
    }
}

/// A sequence starting with Esc.
fn escape(buf: &[u8]) -> Parsed {
    let Some(&second) = buf.get(1) else {
        return Parsed::More;
    };
    match second {
        b'[' => csi(buf),
        b'O' => match buf.get(2) {
            None => Parsed::More,
            Some(&b) => Parsed::Done(ss3_key(b).map(|code| key(code, KeyModifiers::NONE)), 3),
        },
        // Esc, then whatever the second Esc starts.
        0x1b => Parsed::Done(Some(key(KeyCode::Esc, KeyModifiers::NONE)), 1),
        // Alt and a key: the key as it would be alone, with Alt.
        _ => match parse(&buf[1..]) {
            Parsed::Done(Some(Event::Key(mut k)), used) => {
                k.modifiers |= KeyModifiers::ALT;
                Parsed::Done(Some(Event::Key(k)), used + 1)
            }
            Parsed::Done(other, used) => Parsed::Done(other, used + 1),
            Parsed::More => Parsed::More,
        },
    }
}

/// The key of `Esc O x` (application cursor keys, F1-F4).
fn ss3_key(b: u8) -> Option<KeyCode> {
    Some(match b {
        b'A' => KeyCode::Up,
        b'B' => KeyCode::Down,
        b'C' => KeyCode::Right,
        b'D' => KeyCode::Left,
        b'H' => KeyCode::Home,
        b'F' => KeyCode::End,
        b'P'..=b'S' => KeyCode::F(1 + b - b'P'),
        _ => return None,
    })
}

/// `Esc [ params final`.
fn csi(buf: &[u8]) -> Parsed {
    // Parameters and intermediates, then one final byte.
    let Some(end) = buf[2..].iter().position(|b| (0x40..=0x7e).contains(b)) else {
        return if buf[2..].iter().all(|b| (0x20..=0x3f).contains(b)) {
            Parsed::More
        } else {
            // A byte that belongs in no sequence: drop the Esc [ only.
            Parsed::Done(None, 2)
        };
    };
    let used = 2 + end + 1;
    let params = &buf[2..2 + end];
    let fin = buf[2 + end];
    let nums: Vec<u16> = std::str::from_utf8(params)
        .unwrap_or("")
        .split(';')
        .map(|p| p.parse().unwrap_or(0))
        .collect();
    let mods = modifiers(nums.get(1).copied().unwrap_or(1));
    let code = match fin {
        b'A' => Some(KeyCode::Up),
        b'B' => Some(KeyCode::Down),
        b'C' => Some(KeyCode::Right),
        b'D' => Some(KeyCode::Left),
        b'H' => Some(KeyCode::Home),
        b'F' => Some(KeyCode::End),
        b'P'..=b'S' => Some(KeyCode::F(1 + fin - b'P')),
        b'Z' => {
            return Parsed::Done(
                Some(key(KeyCode::BackTab, KeyModifiers::SHIFT | mods)),
                used,
            );
        }
        b'~' => tilde_key(nums[0]),
        _ => None,
    };
    Parsed::Done(code.map(|c| key(c, mods)), used)
}

/// The key of `Esc [ n ~`.
fn tilde_key(n: u16) -> Option<KeyCode> {
    Some(match n {
        1 | 7 => KeyCode::Home,
        2 => KeyCode::Insert,
        3 => KeyCode::Delete,
        4 | 8 => KeyCode::End,
        5 => KeyCode::PageUp,
        6 => KeyCode::PageDown,
        11..=15 => KeyCode::F((n - 10) as u8),
        17..=21 => KeyCode::F((n - 11) as u8),
        23..=24 => KeyCode::F((n - 12) as u8),
        _ => return None,
    })
}

/// xterm's modifier parameter: 1 + (Shift 1, Alt 2, Ctrl 4).
fn modifiers(m: u16) -> KeyModifiers {
    let bits = m.saturating_sub(1);
    let mut mods = KeyModifiers::NONE;
    if bits & 1 != 0 {
        mods |= KeyModifiers::SHIFT;
    }
    if bits & 2 != 0 {
        mods |= KeyModifiers::ALT;
    }
    if bits & 4 != 0 {
        mods |= KeyModifiers::CONTROL;
    }
    mods
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(chunks: &[&[u8]]) -> Vec<Event> {
        let mut p = ByteInput::new();
        let mut out = VecDeque::new();
        for c in chunks {
            p.feed(c, &mut out);
        }
        out.into()
    }

    fn k(code: KeyCode) -> Event {
        key(code, KeyModifiers::NONE)
    }

    fn m(code: KeyCode, mods: KeyModifiers) -> Event {
        key(code, mods)
    }

    #[test]
    fn the_keys_the_workbench_uses() {
        use KeyCode::*;
        // The bytes xterm (and tmux, and an SSH client passing them on)
        // sends for each key in its normal cursor mode.
        let cases: &[(&[u8], Event)] = &[
            (b"\x1b[A", k(Up)),
            (b"\x1b[B", k(Down)),
            (b"\x1b[C", k(Right)),
            (b"\x1b[D", k(Left)),
            (b"\x1bOA", k(Up)),
            (b"\r", k(Enter)),
            (b"\t", k(Tab)),
            (b"\x1b[Z", m(BackTab, KeyModifiers::SHIFT)),
            (b"\x7f", k(Backspace)),
            (b"\x1b[5~", k(PageUp)),
            (b"\x1b[6~", k(PageDown)),
            (b"\x1b[H", k(Home)),
            (b"\x1b[F", k(End)),
            (b"\x1b[1~", k(Home)),
            (b"\x1b[4~", k(End)),
            (b"\x1b[3~", k(Delete)),
            (b"\x1bOP", k(F(1))),
            (b"\x1b[15~", k(F(5))),
            (b"\x1b[24~", k(F(12))),
            // Ctrl-C is 0x03: the third letter with Ctrl.
            (b"\x03", m(Char('c'), KeyModifiers::CONTROL)),
            // Ctrl-S is 0x13 = 19: the 19th letter.
            (b"\x13", m(Char('s'), KeyModifiers::CONTROL)),
            (b"q", k(Char('q'))),
            (b"Q", m(Char('Q'), KeyModifiers::SHIFT)),
            // Ctrl-Right: modifier parameter 5 = 1 + Ctrl (4).
            (b"\x1b[1;5C", m(Right, KeyModifiers::CONTROL)),
            // Shift-Up: 2 = 1 + Shift (1).
            (b"\x1b[1;2A", m(Up, KeyModifiers::SHIFT)),
            (b"\x1bx", m(Char('x'), KeyModifiers::ALT)),
            // "é" is U+00E9: C3 A9 in UTF-8.
            ("é".as_bytes(), k(Char('é'))),
        ];
        for (bytes, want) in cases {
            assert_eq!(events(&[bytes]), vec![want.clone()], "{bytes:?}");
        }
    }

    #[test]
    fn a_lone_esc_at_the_end_of_a_read_is_the_esc_key() {
        assert_eq!(events(&[b"\x1b"]), vec![k(KeyCode::Esc)]);
        assert_eq!(
            events(&[b"\x1b\x1b[A"]),
            vec![k(KeyCode::Esc), k(KeyCode::Up)]
        );
    }

    #[test]
    fn a_sequence_or_character_cut_between_reads_is_joined() {
        assert_eq!(events(&[b"\x1b[", b"6~"]), vec![k(KeyCode::PageDown)]);
        assert_eq!(events(&[b"\xc3", b"\xa9"]), vec![k(KeyCode::Char('é'))]);
    }

    #[test]
    fn a_bracketed_paste_is_one_event_even_across_reads() {
        let got = events(&[b"a\x1b[200~x\x1b[A", b"y\x1b[2", b"01~b"]);
        assert_eq!(
            got,
            vec![
                k(KeyCode::Char('a')),
                Event::Paste("x\x1b[Ay".into()),
                k(KeyCode::Char('b')),
            ]
        );
    }

    #[test]
    fn a_paste_is_cut_at_the_limit() {
        let mut bytes = PASTE_START.to_vec();
        bytes.extend(std::iter::repeat_n(b'z', PASTE_MAX + 10));
        bytes.extend_from_slice(PASTE_END);
        match events(&[&bytes]).as_slice() {
            [Event::Paste(t)] => assert_eq!(t.len(), PASTE_MAX),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn garbage_makes_no_key_and_does_not_swallow_what_follows() {
        // 0xff is never in UTF-8; 0x80 is a continuation with no lead; an
        // unknown final byte `x` ends a sequence that means nothing.
        let got = events(&[b"\xff\x80\x1b[99x\x1b[99~q"]);
        assert_eq!(got, vec![k(KeyCode::Char('q'))]);
        // An endless parameter run is dropped once past the bound.
        let mut long = b"\x1b[".to_vec();
        long.extend(std::iter::repeat_n(b'1', 100));
        assert_eq!(events(&[&long, b"q"]), vec![k(KeyCode::Char('q'))]);
    }
}
