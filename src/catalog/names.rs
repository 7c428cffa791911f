//! The ids and aliases of one kind of entry in a hash map, so that adding
//! an entry, replacing one and looking one up take constant time however
//! large the catalog is, and so that two entries claiming one name are
//! caught: the first keeps it, the later one is reported.

use super::fields::{Problem, Problems};
use std::collections::{HashMap, HashSet};

/// What the index needs to know of an entry.
pub trait Named {
    /// "device", "model" or "region".
    const WHAT: &'static str;
    fn id(&self) -> &str;
    fn aliases(&self) -> &[String];
    fn set_aliases(&mut self, aliases: Vec<String>);
}

/// Where an entry was defined.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub builtin: bool,
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A new entry with where it and its names are written.
pub struct Incoming<E> {
    pub entry: E,
    pub place: Place,
    /// Byte offsets of the id and of each alias in the file being read.
    pub id_at: usize,
    pub alias_at: Vec<usize>,
}

/// The names of one list: lower-case name -> (index in the list, is an alias).
#[derive(Debug, Clone, Default)]
pub struct Names {
    map: HashMap<String, (usize, bool)>,
    places: Vec<Place>,
}

impl Names {
    /// The index of the entry with this id or alias (lower-case).
    pub fn get(&self, name: &str) -> Option<usize> {
        self.map.get(name).map(|&(i, _)| i)
    }

    /// Add `new` to `list`, or replace the built-in entry with its id.
    /// Returns a note when a built-in entry was replaced; a name another
    /// entry holds is a problem: a taken id skips the entry, a taken alias
    /// is dropped.
    pub fn add<E: Named>(
        &mut self,
        list: &mut Vec<E>,
        mut new: Incoming<E>,
        problems: &mut Problems,
    ) -> Option<String> {
        let what = E::WHAT;
        let id = new.entry.id().to_string();
        match self.map.get(&id) {
            None => {
                self.store(list, list.len(), new, problems);
                None
            }
            Some(&(i, false)) if self.places[i].builtin && !new.place.builtin => {
                let note = format!(
                    "{what} `{id}` replaces the built-in one from {}",
                    self.places[i].file
                );
                // The names that reached the built-in entry still reach it.
                let mut all = new.entry.aliases().to_vec();
                let mut have: HashSet<String> = all.iter().cloned().collect();
                for a in list[i].aliases() {
                    if have.insert(a.clone()) {
                        all.push(a.clone());
                        new.alias_at.push(new.id_at);
                    }
                }
                new.entry.set_aliases(all);
                self.store(list, i, new, problems);
                Some(note)
            }
            Some(&(i, is_alias)) => {
                let how = if is_alias {
                    format!("is already an alias of {what} `{}`", list[i].id())
                } else {
                    "is already defined".to_string()
                };
                problems.push(Problem {
                    at: new.id_at,
                    message: format!(
                        "{what} `{id}`: the id {how} at {}; this entry is skipped (rename one of them)",
                        self.places[i]
                    ),
                });
                None
            }
        }
    }

    /// Register the id and every free alias of `new` at `slot` (a new
    /// index, or the one it replaces) and store it there.
    fn store<E: Named>(
        &mut self,
        list: &mut Vec<E>,
        slot: usize,
        new: Incoming<E>,
        problems: &mut Problems,
    ) {
        let Incoming {
            mut entry,
            place,
            id_at,
            alias_at,
        } = new;
        let what = E::WHAT;
        let id = entry.id().to_string();
        let mut kept: Vec<String> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        for (k, alias) in entry.aliases().iter().enumerate() {
            if *alias == id || !seen.insert(alias.as_str()) {
                continue;
            }
            match self.map.get(alias.as_str()) {
                Some(&(j, is_alias)) if j != slot => {
                    let how = if is_alias { "an alias" } else { "the id" };
                    problems.push(Problem {
                        at: alias_at.get(k).copied().unwrap_or(id_at),
                        message: format!(
                            "{what} `{id}`: the alias `{alias}` is already {how} of {what} `{}` ({}); this alias is dropped",
                            list[j].id(),
                            self.places[j]
                        ),
                    });
                }
                _ => kept.push(alias.clone()),
            }
        }
        for a in &kept {
            self.map.insert(a.clone(), (slot, true));
        }
        self.map.insert(id, (slot, false));
        entry.set_aliases(kept);
        if slot == list.len() {
            list.push(entry);
            self.places.push(place);
        } else {
            list[slot] = entry;
            self.places[slot] = place;
        }
    }
}
