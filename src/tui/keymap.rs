//! Keys to commands. Defaults follow terminal conventions; `[keys]` in
//! config.toml overrides them (`mark = "m"` or `up = ["up", "k"]`), and
//! conflicting bindings are reported. The help screen is generated from the
//! keymap, so it cannot drift from it.

use super::action::{Action, Command};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use std::collections::BTreeMap;
use std::fmt;

mod config;
pub use config::SECTIONS;

/// A key with its modifiers (shift is folded into the character).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub code: KeyCodeOrd,
    pub ctrl: bool,
    pub alt: bool,
}

/// `KeyCode` subset that the keymap can bind, ordered for stable output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyCodeOrd {
    Char(char),
    F(u8),
    Enter,
    Esc,
    Tab,
    BackTab,
    Backspace,
    Delete,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
}

impl Key {
    pub const fn plain(code: KeyCodeOrd) -> Key {
        Key {
            code,
            ctrl: false,
            alt: false,
        }
    }
    pub const fn ch(c: char) -> Key {
        Key::plain(KeyCodeOrd::Char(c))
    }
    pub const fn ctrl(c: char) -> Key {
        Key {
            code: KeyCodeOrd::Char(c),
            ctrl: true,
            alt: false,
        }
    }

    /// The key of a terminal event, if it is one the keymap can bind.
    pub fn from_event(ev: &KeyEvent) -> Option<Key> {
        let code = match ev.code {
            KeyCode::Char(c) => KeyCodeOrd::Char(c),
            KeyCode::F(n) => KeyCodeOrd::F(n),
            KeyCode::Enter => KeyCodeOrd::Enter,
            KeyCode::Esc => KeyCodeOrd::Esc,
            KeyCode::Tab if ev.modifiers.contains(KeyModifiers::SHIFT) => KeyCodeOrd::BackTab,
            KeyCode::Tab => KeyCodeOrd::Tab,
            KeyCode::BackTab => KeyCodeOrd::BackTab,
            KeyCode::Backspace => KeyCodeOrd::Backspace,
            KeyCode::Delete => KeyCodeOrd::Delete,
            KeyCode::Up => KeyCodeOrd::Up,
            KeyCode::Down => KeyCodeOrd::Down,
            KeyCode::Left => KeyCodeOrd::Left,
            KeyCode::Right => KeyCodeOrd::Right,
            KeyCode::PageUp => KeyCodeOrd::PageUp,
            KeyCode::PageDown => KeyCodeOrd::PageDown,
            KeyCode::Home => KeyCodeOrd::Home,
            KeyCode::End => KeyCodeOrd::End,
            _ => return None,
        };
        let code = match code {
            // Ctrl-letter arrives lower-case from most terminals.
            KeyCodeOrd::Char(c) if ev.modifiers.contains(KeyModifiers::CONTROL) => {
                KeyCodeOrd::Char(c.to_ascii_lowercase())
            }
            c => c,
        };
        Some(Key {
            code,
            ctrl: ev.modifiers.contains(KeyModifiers::CONTROL),
            alt: ev.modifiers.contains(KeyModifiers::ALT),
        })
    }

    /// Read "q", "ctrl-c", "shift-tab", "pagedown", "space", "f1", "?".
    pub fn parse(s: &str) -> Result<Key, String> {
        let mut ctrl = false;
        let mut alt = false;
        let mut shift = false;
        let mut rest = s.trim();
        if rest.is_empty() {
            return Err("an empty key".to_string());
        }
        loop {
            let lower = rest.to_ascii_lowercase();
            let mut stripped = false;
            for (p, which) in [
                ("ctrl-", 0),
                ("c-", 0),
                ("alt-", 1),
                ("m-", 1),
                ("shift-", 2),
            ] {
                if lower.starts_with(p) && rest.len() > p.len() {
                    match which {
                        0 => ctrl = true,
                        1 => alt = true,
                        _ => shift = true,
                    }
                    rest = &rest[p.len()..];
                    stripped = true;
                    break;
                }
            }
            if !stripped {
                break;
            }
        }
        let code = match rest.to_ascii_lowercase().as_str() {
            "enter" | "return" => KeyCodeOrd::Enter,
            "esc" | "escape" => KeyCodeOrd::Esc,
            "tab" if shift => KeyCodeOrd::BackTab,
            "tab" => KeyCodeOrd::Tab,
            "backtab" => KeyCodeOrd::BackTab,
            "backspace" => KeyCodeOrd::Backspace,
            "delete" | "del" => KeyCodeOrd::Delete,
            "up" => KeyCodeOrd::Up,
            "down" => KeyCodeOrd::Down,
            "left" => KeyCodeOrd::Left,
            "right" => KeyCodeOrd::Right,
            "pageup" | "pgup" => KeyCodeOrd::PageUp,
            "pagedown" | "pgdown" | "pgdn" => KeyCodeOrd::PageDown,
            "home" => KeyCodeOrd::Home,
            "end" => KeyCodeOrd::End,
            "space" => KeyCodeOrd::Char(' '),
            "minus" => KeyCodeOrd::Char('-'),
            "plus" => KeyCodeOrd::Char('+'),
            f if f.len() >= 2 && f.starts_with('f') && f[1..].parse::<u8>().is_ok() => {
                let n: u8 = f[1..].parse().unwrap_or(0);
                if !(1..=24).contains(&n) {
                    return Err(format!("unknown key {s:?}"));
                }
                KeyCodeOrd::F(n)
            }
            _ => {
                let mut chars = rest.chars();
                match (chars.next(), chars.next()) {
                    (Some(_), None) if crate::catalog::fields::unprintable(rest).is_some() => {
                        return Err(format!(
                            "{s:?} is a control character, not a key; write \"esc\", \"tab\" or \"ctrl-x\""
                        ));
                    }
                    (Some(c), None) => {
                        let c = if shift { c.to_ascii_uppercase() } else { c };
                        KeyCodeOrd::Char(if ctrl { c.to_ascii_lowercase() } else { c })
                    }
                    _ => return Err(format!("unknown key {s:?}")),
                }
            }
        };
        Ok(Key { code, ctrl, alt })
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("ctrl-")?;
        }
        if self.alt {
            f.write_str("alt-")?;
        }
        match self.code {
            KeyCodeOrd::Char(' ') => f.write_str("space"),
            KeyCodeOrd::Char(c) => write!(f, "{c}"),
            KeyCodeOrd::F(n) => write!(f, "f{n}"),
            KeyCodeOrd::Enter => f.write_str("enter"),
            KeyCodeOrd::Esc => f.write_str("esc"),
            KeyCodeOrd::Tab => f.write_str("tab"),
            KeyCodeOrd::BackTab => f.write_str("shift-tab"),
            KeyCodeOrd::Backspace => f.write_str("backspace"),
            KeyCodeOrd::Delete => f.write_str("delete"),
            KeyCodeOrd::Up => f.write_str("up"),
            KeyCodeOrd::Down => f.write_str("down"),
            KeyCodeOrd::Left => f.write_str("left"),
            KeyCodeOrd::Right => f.write_str("right"),
            KeyCodeOrd::PageUp => f.write_str("pageup"),
            KeyCodeOrd::PageDown => f.write_str("pagedown"),
            KeyCodeOrd::Home => f.write_str("home"),
            KeyCodeOrd::End => f.write_str("end"),
        }
    }
}

/// Ctrl-C always quits, whatever the config says.
pub const CTRL_C: Key = Key {
    code: KeyCodeOrd::Char('c'),
    ctrl: true,
    alt: false,
};

/// The bindings, command by command.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    bindings: BTreeMap<Command, Vec<Key>>,
}

impl Default for Keymap {
    fn default() -> Self {
        use KeyCodeOrd as K;
        let p = Key::plain;
        let c = Key::ch;
        let mut b = BTreeMap::new();
        b.insert(Command::Quit, vec![c('q'), CTRL_C]);
        b.insert(Command::Help, vec![c('?'), p(K::F(1))]);
        b.insert(Command::NextPane, vec![p(K::Tab)]);
        b.insert(Command::PrevPane, vec![p(K::BackTab)]);
        b.insert(Command::Zoom, vec![c('z')]);
        b.insert(Command::Up, vec![p(K::Up), c('k')]);
        b.insert(Command::Down, vec![p(K::Down), c('j')]);
        b.insert(Command::Left, vec![p(K::Left), c('h')]);
        b.insert(Command::Right, vec![p(K::Right), c('l')]);
        b.insert(Command::PageUp, vec![p(K::PageUp)]);
        b.insert(Command::PageDown, vec![p(K::PageDown)]);
        b.insert(Command::Top, vec![p(K::Home), c('g')]);
        b.insert(Command::Bottom, vec![p(K::End), c('G')]);
        b.insert(Command::Increase, vec![c('+'), c('=')]);
        b.insert(Command::Decrease, vec![c('-'), c('_')]);
        b.insert(Command::Filter, vec![c('/')]);
        b.insert(Command::Edit, vec![p(K::Enter)]);
        b.insert(Command::Cancel, vec![p(K::Esc)]);
        b.insert(Command::Mark, vec![c(' ')]);
        b.insert(Command::ClearMarks, vec![c('x')]);
        b.insert(Command::NextTheme, vec![c('t')]);
        b.insert(Command::View1, vec![c('1')]);
        b.insert(Command::View2, vec![c('2')]);
        b.insert(Command::View3, vec![c('3')]);
        b.insert(Command::View4, vec![c('4')]);
        b.insert(Command::View5, vec![c('5')]);
        b.insert(Command::View6, vec![c('6')]);
        b.insert(Command::View7, vec![c('7')]);
        b.insert(Command::View8, vec![c('8')]);
        b.insert(Command::View9, vec![c('9')]);
        b.insert(Command::SearchLayouts, vec![c('r')]);
        b.insert(Command::ScalingPlot, vec![c('c')]);
        b.insert(Command::NextFamily, vec![c('f')]);
        b.insert(Command::Save, vec![c('s')]);
        b.insert(Command::Redraw, vec![Key::ctrl('l')]);
        b.insert(Command::Suspend, vec![Key::ctrl('z')]);
        b.insert(Command::SortCompare, vec![c('o')]);
        b.insert(Command::Baseline, vec![c('b')]);
        b.insert(Command::ImportModel, vec![c('i')]);
        b.insert(Command::NewEntry, vec![c('n')]);
        b.insert(Command::EditCopy, vec![c('e')]);
        b.insert(Command::Lessons, vec![c('L')]);
        b.insert(Command::NextStep, vec![c(']')]);
        b.insert(Command::PrevStep, vec![c('[')]);
        b.insert(Command::Reveal, vec![c('a')]);
        b.insert(Command::Export, vec![c('X')]);
        b.insert(Command::CopyCommand, vec![c('y')]);
        b.insert(Command::Follow, vec![c('F')]);
        Keymap { bindings: b }
    }
}

impl Keymap {
    /// The command bound to a key.
    pub fn command(&self, key: Key) -> Option<Command> {
        if key == CTRL_C {
            return Some(Command::Quit);
        }
        self.bindings
            .iter()
            .find(|(_, keys)| keys.contains(&key))
            .map(|(c, _)| *c)
    }

    /// The keys of a command.
    pub fn keys(&self, cmd: Command) -> &[Key] {
        self.bindings.get(&cmd).map_or(&[], |v| v.as_slice())
    }

    /// "up, k" for the help screen and hints.
    pub fn keys_text(&self, cmd: Command) -> String {
        let v: Vec<String> = self.keys(cmd).iter().map(|k| k.to_string()).collect();
        if v.is_empty() {
            "(unbound)".to_string()
        } else {
            v.join(", ")
        }
    }

    /// The first key of a command, for short hints.
    pub fn first_key(&self, cmd: Command) -> String {
        self.keys(cmd)
            .first()
            .map_or_else(|| "?".to_string(), |k| k.to_string())
    }

    /// Help rows: (keys, description), in Command::ALL order; the view
    /// keys share one row ("1 Roofline, 2 Serving, ...").
    pub fn help_rows(&self) -> Vec<(String, String)> {
        let mut rows = Vec::new();
        let views: Vec<Command> = Command::ALL
            .iter()
            .copied()
            .filter(|c| c.view_number().is_some())
            .collect();
        let titles = [
            "Roofline",
            "Serving",
            "Synthesis",
            "Sweep",
            "Generations",
            "Fleet",
            "Training",
            "Operators",
            "Explore",
        ];
        let keys: Vec<String> = views.iter().map(|c| self.keys_text(*c)).collect();
        let desc: Vec<String> = views
            .iter()
            .zip(titles)
            .map(|(c, t)| format!("{} {t}", self.first_key(*c)))
            .collect();
        let plain = keys
            .iter()
            .enumerate()
            .all(|(i, k)| *k == (i + 1).to_string());
        let keys = if plain {
            format!("1-{}", keys.len())
        } else {
            keys.join(" ")
        };
        rows.push((keys, desc.join(" ")));
        for c in Command::ALL.iter().filter(|c| c.view_number().is_none()) {
            rows.push((self.keys_text(*c), c.describe().to_string()));
        }
        rows
    }
}

impl Keymap {
    /// The key table as Markdown, for docs/workbench.md (a test keeps its
    /// copy equal to it).
    pub fn markdown(&self) -> String {
        let mut out = String::from("| keys | what |\n|---|---|\n");
        for (k, d) in self.help_rows() {
            let keys: Vec<String> = k.split(", ").map(|x| format!("`{x}`")).collect();
            out.push_str(&format!(
                "| {} | {} |\n",
                keys.join(", "),
                d.replace('|', "\\|")
            ));
        }
        out
    }
}

/// What the keys drive at the moment (the app says which, `App::keys`):
/// commands, or text typed into an entry, where Up/Down still move the
/// list under a filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    Commands,
    Text {
        list: bool,
    },
    /// A form of several entries: Tab and Up/Down move between them,
    /// Ctrl-S saves.
    Form,
}

/// What a terminal key event means to `keymap` when the keys drive `keys`.
pub fn action_for(keymap: &Keymap, keys: Keys, ev: &KeyEvent) -> Option<Action> {
    if ev.kind == KeyEventKind::Release {
        return None;
    }
    let key = Key::from_event(ev)?;
    match keys {
        Keys::Form => match key.code {
            KeyCodeOrd::Tab if !key.ctrl => Some(Command::Down.into()),
            KeyCodeOrd::BackTab => Some(Command::Up.into()),
            KeyCodeOrd::Up if !key.ctrl => Some(Command::Up.into()),
            KeyCodeOrd::Down if !key.ctrl => Some(Command::Down.into()),
            KeyCodeOrd::Char('s') if key.ctrl && !key.alt => Some(Command::Save.into()),
            _ => action_for(keymap, Keys::Text { list: false }, ev),
        },
        Keys::Text { list } => {
            if key == CTRL_C {
                return Some(Command::Quit.into());
            }
            // Control keys that act on the terminal work while typing too.
            if key.ctrl
                && let Some(cmd @ (Command::Redraw | Command::Suspend)) = keymap.command(key)
            {
                return Some(cmd.into());
            }
            match key.code {
                KeyCodeOrd::Enter if !key.ctrl && !key.alt => Some(Command::Edit.into()),
                KeyCodeOrd::Esc => Some(Command::Cancel.into()),
                KeyCodeOrd::Up if list => Some(Command::Up.into()),
                KeyCodeOrd::Down if list => Some(Command::Down.into()),
                KeyCodeOrd::Tab | KeyCodeOrd::BackTab => None,
                _ => Some(Action::Input((*ev).into())),
            }
        }
        Keys::Commands => keymap.command(key).map(Action::Do),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_keys() {
        for s in [
            "q",
            "ctrl-c",
            "shift-tab",
            "pagedown",
            "space",
            "f1",
            "?",
            "G",
            "alt-x",
            "enter",
        ] {
            let k = Key::parse(s).unwrap();
            assert_eq!(k.to_string(), s, "{s}");
        }
        assert_eq!(Key::parse("C-c").unwrap(), CTRL_C);
        assert_eq!(
            Key::parse("backtab").unwrap(),
            Key::plain(KeyCodeOrd::BackTab)
        );
        assert!(Key::parse("").is_err());
        assert!(Key::parse("hyper-space-bar").is_err());
        assert!(Key::parse("f99").is_err());
    }

    #[test]
    fn defaults_follow_conventions() {
        let km = Keymap::default();
        assert_eq!(km.command(Key::ch('q')), Some(Command::Quit));
        assert_eq!(km.command(CTRL_C), Some(Command::Quit));
        assert_eq!(km.command(Key::ch('?')), Some(Command::Help));
        assert_eq!(km.command(Key::ch('/')), Some(Command::Filter));
        assert_eq!(km.command(Key::ch('j')), Some(Command::Down));
        assert_eq!(km.command(Key::ch(' ')), Some(Command::Mark));
        assert_eq!(
            km.command(Key::plain(KeyCodeOrd::BackTab)),
            Some(Command::PrevPane)
        );
        assert_eq!(km.command(Key::ch('t')), Some(Command::NextTheme));
    }

    #[test]
    fn no_key_is_bound_twice_by_default() {
        let km = Keymap::default();
        let mut seen = std::collections::HashMap::new();
        for c in Command::ALL {
            for k in km.keys(c) {
                assert!(seen.insert(*k, c).is_none(), "{k} bound twice");
            }
        }
    }

    #[test]
    fn config_overrides_and_reports_conflicts() {
        let text = "[keys]\nmark = \"t\"\nquit = [\"x\"]\nfly = \"f\"\nup = \"hyper-up\"\n";
        let (km, problems) = Keymap::from_config("config.toml", text);
        assert_eq!(km.command(Key::ch('t')), Some(Command::Mark));
        assert_eq!(km.command(Key::ch('x')), Some(Command::Quit));
        assert_eq!(
            km.command(CTRL_C),
            Some(Command::Quit),
            "ctrl-c always quits"
        );
        assert_eq!(km.command(Key::ch('q')), None);
        assert_eq!(km.command(Key::ch(' ')), None, "space is no longer mark");
        let all = problems.join("\n");
        assert!(
            all.contains("key conflict: t is bound to both mark and next_theme"),
            "{all}"
        );
        assert!(
            all.contains("x is bound to both quit and clear_marks"),
            "{all}"
        );
        assert!(all.contains("unknown command `fly`"), "{all}");
        assert!(all.contains("unknown key \"hyper-up\""), "{all}");
        // The loser of a conflict no longer has the key.
        assert!(!km.keys(Command::NextTheme).contains(&Key::ch('t')));
    }

    #[test]
    fn help_is_generated_from_the_keymap() {
        let (km, _) = Keymap::from_config("c", "[keys]\nmark = \"m\"\n");
        let rows = km.help_rows();
        assert_eq!(
            rows.len(),
            Command::ALL.len() - 8,
            "nine view keys, one row"
        );
        assert_eq!(rows[0].0, "1-9");
        assert!(rows[0].1.contains("6 Fleet"), "{}", rows[0].1);
        let mark = rows
            .iter()
            .find(|(_, d)| *d == Command::Mark.describe())
            .unwrap();
        assert_eq!(mark.0, "m");
    }
}
