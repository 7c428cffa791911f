//! Reading `[keys]` from config.toml: every problem at its
//! file:line:column (an unknown command, a bad key, a conflict), only a
//! regular file within the size limit.

use super::{CTRL_C, Key, Keymap};
use crate::catalog::fields::{Problem, Problems, Source, printable};
use crate::catalog::files;
use crate::tui::action::Command;
use std::collections::BTreeMap;
use std::path::Path;
use toml::de::{DeTable, DeValue};

/// The tables config.toml may hold; any other is reported (a `[key]` typo
/// would otherwise be ignored in silence). Add a section here when a new
/// one is read.
pub const SECTIONS: [&str; 1] = ["keys"];

impl Keymap {
    /// The default keymap with the `[keys]` table of a config file laid over
    /// it. Returns the problems found (unknown commands, bad keys, conflicts),
    /// each as `file:line:column: what is wrong`; where two commands claim a
    /// key, the one set in the config wins.
    pub fn from_config(file: &str, text: &str) -> (Keymap, Vec<String>) {
        let src = Source::new(file, text);
        let mut km = Keymap::default();
        let mut problems = Problems::default();
        match src.parse() {
            Ok(doc) => km.lay_over(doc.get_ref(), &mut problems),
            Err(p) => problems.push(p),
        }
        let problems = src.diagnostics(problems);
        (km, problems.iter().map(|d| d.to_string()).collect())
    }

    /// The keymap of a config file: the defaults when there is none; only a
    /// regular file within the size limit is read (a FIFO must not block
    /// start-up), and a file that is not is one of the problems.
    pub fn from_file(path: &Path) -> (Keymap, Vec<String>) {
        let name = path.display().to_string();
        match files::read_text(path) {
            Ok(text) => Keymap::from_config(&name, &text),
            Err(files::ReadError::Missing) => (Keymap::default(), Vec::new()),
            Err(e) => (
                Keymap::default(),
                vec![format!("{}: {e}", printable(&name))],
            ),
        }
    }

    /// Lay the `[keys]` table of a parsed config file over this keymap.
    fn lay_over(&mut self, doc: &DeTable, problems: &mut Problems) {
        let problem = |at: usize, message: String| Problem { at, message };
        for (k, _) in doc.iter() {
            if !SECTIONS.contains(&k.get_ref().as_ref()) {
                problems.push(problem(
                    k.span().start,
                    format!(
                        "unknown table `{}`; config.toml holds {}",
                        printable(k.get_ref()),
                        SECTIONS.map(|s| format!("[{s}]")).join(", ")
                    ),
                ));
            }
        }
        let Some(keys) = doc.get("keys") else {
            return;
        };
        let Some(keys) = keys.get_ref().as_table() else {
            problems.push(problem(
                keys.span().start,
                "`keys` must be a table: [keys]".into(),
            ));
            return;
        };
        // Where each binding set in the file is written.
        let mut written: BTreeMap<(Command, Key), usize> = BTreeMap::new();
        let mut overridden = Vec::new();
        for (name, value) in keys.iter() {
            let Some(cmd) = Command::parse(name.get_ref()) else {
                problems.push(problem(
                    name.span().start,
                    format!(
                        "[keys] unknown command `{}`; the commands are {}",
                        printable(name.get_ref()),
                        Command::ALL.map(|c| c.name()).join(", ")
                    ),
                ));
                continue;
            };
            let how = "write a key as \"x\" or [\"x\", \"y\"]";
            let texts: Vec<(&str, usize)> = match value.get_ref() {
                DeValue::String(s) => vec![(s.as_ref(), value.span().start)],
                DeValue::Array(a) => a
                    .iter()
                    .filter_map(|v| match v.get_ref().as_str() {
                        Some(s) => Some((s, v.span().start)),
                        None => {
                            problems.push(problem(
                                v.span().start,
                                format!("[keys] {}: {how}", cmd.name()),
                            ));
                            None
                        }
                    })
                    .collect(),
                _ => {
                    problems.push(problem(
                        value.span().start,
                        format!("[keys] {}: {how}", cmd.name()),
                    ));
                    continue;
                }
            };
            let mut parsed = Vec::new();
            for (t, at) in texts {
                match Key::parse(t) {
                    Ok(k) => {
                        written.entry((cmd, k)).or_insert(at);
                        parsed.push(k);
                    }
                    Err(e) => problems.push(problem(at, format!("[keys] {}: {e}", cmd.name()))),
                }
            }
            if parsed.is_empty() {
                continue;
            }
            if cmd == Command::Quit && !parsed.contains(&CTRL_C) {
                parsed.push(CTRL_C);
            }
            self.bindings.insert(cmd, parsed);
            overridden.push(cmd);
        }
        // Conflicts: a key claimed by two commands. The file's bindings
        // come first, so they win over the defaults.
        let mut owner: BTreeMap<Key, Command> = BTreeMap::new();
        let mut order: Vec<Command> = overridden.clone();
        order.extend(Command::ALL.iter().filter(|c| !overridden.contains(c)));
        let mut drop: Vec<(Command, Key)> = Vec::new();
        for cmd in order {
            for k in self.bindings.get(&cmd).cloned().unwrap_or_default() {
                match owner.get(&k) {
                    Some(first) if *first != cmd => {
                        let at = written
                            .get(&(cmd, k))
                            .or_else(|| written.get(&(*first, k)))
                            .copied()
                            .unwrap_or(0);
                        problems.push(problem(
                            at,
                            format!(
                                "key conflict: {k} is bound to both {} and {}; {} keeps it",
                                first.name(),
                                cmd.name(),
                                first.name()
                            ),
                        ));
                        drop.push((cmd, k));
                    }
                    _ => {
                        owner.insert(k, cmd);
                    }
                }
            }
        }
        for (cmd, k) in drop {
            if let Some(v) = self.bindings.get_mut(&cmd) {
                v.retain(|x| *x != k);
            }
        }
    }
}
