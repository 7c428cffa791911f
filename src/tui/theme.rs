//! Themes: TOML files naming a colour for each role on screen. The built-in
//! ones (themes/*.toml) are embedded in the binary; the user's own live in
//! `<config dir>/themes/*.toml` and replace a built-in theme of the same name.
//! A broken file is reported and skipped, never fatal.

use crate::catalog::fields::{Fields, Source, printable};
use crate::catalog::files;
use ratatui::style::{Color, Modifier, Style};
use std::path::Path;
use std::str::FromStr;

/// Colours for every role on screen.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    pub fg: Color,
    pub bg: Color,
    pub dim: Color,
    pub border: Color,
    pub border_focus: Color,
    pub title: Color,
    pub header: Color,
    pub selected_fg: Color,
    pub selected_bg: Color,
    /// Use reverse video for the selection (monochrome terminals).
    pub reverse_selection: bool,
    pub marked: Color,
    pub accent: Color,
    pub ok: Color,
    pub warn: Color,
    pub error: Color,
    pub stale: Color,
    /// One colour per device roof on the plot, used in turn.
    pub roof: Vec<Color>,
    pub effective_roof: Color,
    pub ridge: Color,
    pub op_point: Color,
    pub alt_point: Color,
    /// Sensitivity bars: a larger value slows the step / speeds it up.
    pub slows: Color,
    pub speeds: Color,
    pub binding: Color,
}

/// The name of the default theme.
pub const DEFAULT_THEME: &str = "dark";
/// The theme NO_COLOR selects.
pub const MONO_THEME: &str = "mono";

/// The keys of a theme file.
const KEYS: &[&str] = &[
    "name",
    "fg",
    "bg",
    "dim",
    "border",
    "border_focus",
    "title",
    "header",
    "selected_fg",
    "selected_bg",
    "reverse_selection",
    "marked",
    "accent",
    "ok",
    "warn",
    "error",
    "stale",
    "roof",
    "effective_roof",
    "ridge",
    "op_point",
    "alt_point",
    "slows",
    "speeds",
    "binding",
];

/// The longest theme name: it is shown in the bar.
pub const MAX_NAME: usize = 32;

/// What a colour can be, for messages.
const COLOUR_HELP: &str =
    "use a name (\"light cyan\", \"dark gray\"), an index 0-255 or \"#rrggbb\"";

/// Read one colour value, or record what is wrong with it; a missing key
/// goes to `missing` (reported once for all of them).
fn colour(f: &mut Fields, key: &'static str, missing: &mut Vec<&'static str>) -> Option<Color> {
    let Some(v) = f.value(key) else {
        missing.push(key);
        return None;
    };
    colour_of(f, key, v)
}

fn colour_of(f: &mut Fields, key: &str, v: &toml::Spanned<toml::de::DeValue<'_>>) -> Option<Color> {
    let at = v.span().start;
    match v.get_ref().as_str() {
        Some(s) => match Color::from_str(s) {
            Ok(c) if crate::catalog::fields::unprintable(s).is_none() => Some(c),
            _ => {
                f.problem(at, format!("{key} = {s:?} is not a colour; {COLOUR_HELP}"));
                None
            }
        },
        None => {
            let got = v.get_ref().type_str();
            f.problem(
                at,
                format!("{key} must be a colour string, not {got}; {COLOUR_HELP}"),
            );
            None
        }
    }
}

/// The name: printable, not empty, at most [`MAX_NAME`] characters.
fn name(f: &mut Fields) -> Option<String> {
    let (name, at) = f.string("name")?;
    let n = name.trim();
    if n.is_empty() || n.chars().count() > MAX_NAME {
        f.problem(
            at,
            format!("name = {name:?} must be 1 to {MAX_NAME} characters"),
        );
        return None;
    }
    Some(n.to_string())
}

/// `roof`: a list of at least one colour.
fn roofs(f: &mut Fields, missing: &mut Vec<&'static str>) -> Option<Vec<Color>> {
    let Some(v) = f.value("roof") else {
        missing.push("roof");
        return None;
    };
    let Some(items) = v.get_ref().as_array() else {
        f.problem(
            v.span().start,
            "`roof` must be a list of colours, like [\"light cyan\", \"yellow\"]",
        );
        return None;
    };
    if items.is_empty() {
        f.problem(v.span().start, "`roof` needs at least one colour");
        return None;
    }
    let all: Vec<Option<Color>> = items.iter().map(|c| colour_of(f, "roof", c)).collect();
    all.into_iter().collect()
}

impl Theme {
    /// Parse a theme file. The error lists every problem, each as
    /// `file:line:column: what is wrong`, naming the bad value.
    pub fn parse(file: &str, text: &str) -> Result<Theme, Vec<String>> {
        let src = Source::new(file, text);
        let doc = src
            .parse()
            .map_err(|p| vec![src.diagnostic(p.at, p.message).to_string()])?;
        let mut f = Fields::new(doc.get_ref(), 0, "", KEYS);
        let theme = Self::read(&mut f);
        let problems = f.finish();
        match theme {
            Some(t) if problems.is_empty() => Ok(t),
            _ => Err(src
                .diagnostics(problems)
                .iter()
                .map(|d| d.to_string())
                .collect()),
        }
    }

    fn read(f: &mut Fields) -> Option<Theme> {
        let name = name(f);
        let mut missing = Vec::new();
        let mut c = |key| colour(f, key, &mut missing);
        let (fg, bg, dim, border, border_focus, title, header) = (
            c("fg"),
            c("bg"),
            c("dim"),
            c("border"),
            c("border_focus"),
            c("title"),
            c("header"),
        );
        let (selected_fg, selected_bg, marked, accent, ok, warn, error, stale) = (
            c("selected_fg"),
            c("selected_bg"),
            c("marked"),
            c("accent"),
            c("ok"),
            c("warn"),
            c("error"),
            c("stale"),
        );
        let (effective_roof, ridge, op_point, alt_point, slows, speeds, binding) = (
            c("effective_roof"),
            c("ridge"),
            c("op_point"),
            c("alt_point"),
            c("slows"),
            c("speeds"),
            c("binding"),
        );
        let reverse_selection = f.opt_bool("reverse_selection").unwrap_or(false);
        let roof = roofs(f, &mut missing);
        if !missing.is_empty() {
            let n = missing.len();
            let list = if n > 4 {
                format!("{n} roles ({}, ...)", missing[..3].join(", "))
            } else {
                missing.join(", ")
            };
            f.problem(
                0,
                format!("no colour for {list}; every role needs one: start from a copy of themes/dark.toml"),
            );
        }
        Some(Theme {
            name: name?,
            fg: fg?,
            bg: bg?,
            dim: dim?,
            border: border?,
            border_focus: border_focus?,
            title: title?,
            header: header?,
            selected_fg: selected_fg?,
            selected_bg: selected_bg?,
            reverse_selection,
            marked: marked?,
            accent: accent?,
            ok: ok?,
            warn: warn?,
            error: error?,
            stale: stale?,
            roof: roof?,
            effective_roof: effective_roof?,
            ridge: ridge?,
            op_point: op_point?,
            alt_point: alt_point?,
            slows: slows?,
            speeds: speeds?,
            binding: binding?,
        })
    }

    /// The fallback when no theme file can be read: the built-in dark theme
    /// compiled in as plain code.
    pub fn fallback() -> Theme {
        Theme {
            name: DEFAULT_THEME.to_string(),
            fg: Color::Gray,
            bg: Color::Reset,
            dim: Color::DarkGray,
            border: Color::DarkGray,
            border_focus: Color::LightCyan,
            title: Color::White,
            header: Color::LightBlue,
            selected_fg: Color::Black,
            selected_bg: Color::LightCyan,
            reverse_selection: false,
            marked: Color::LightMagenta,
            accent: Color::LightYellow,
            ok: Color::LightGreen,
            warn: Color::Yellow,
            error: Color::LightRed,
            stale: Color::Yellow,
            roof: vec![
                Color::LightCyan,
                Color::LightMagenta,
                Color::LightGreen,
                Color::LightYellow,
                Color::LightBlue,
            ],
            effective_roof: Color::Cyan,
            ridge: Color::DarkGray,
            op_point: Color::LightYellow,
            alt_point: Color::Yellow,
            slows: Color::LightRed,
            speeds: Color::LightGreen,
            binding: Color::LightYellow,
        }
    }

    pub fn base(&self) -> Style {
        Style::new().fg(self.fg).bg(self.bg)
    }
    pub fn dim(&self) -> Style {
        Style::new().fg(self.dim)
    }
    pub fn border(&self, focused: bool) -> Style {
        if focused {
            Style::new()
                .fg(self.border_focus)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().fg(self.border)
        }
    }
    pub fn title(&self, focused: bool) -> Style {
        let s = Style::new().fg(self.title);
        if focused {
            s.add_modifier(Modifier::BOLD).fg(self.border_focus)
        } else {
            s
        }
    }
    pub fn header(&self) -> Style {
        Style::new().fg(self.header).add_modifier(Modifier::BOLD)
    }
    pub fn selected(&self) -> Style {
        if self.reverse_selection {
            Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
        } else {
            Style::new()
                .fg(self.selected_fg)
                .bg(self.selected_bg)
                .add_modifier(Modifier::BOLD)
        }
    }
    pub fn marked(&self) -> Style {
        Style::new().fg(self.marked).add_modifier(Modifier::BOLD)
    }
    pub fn accent(&self) -> Style {
        Style::new().fg(self.accent).add_modifier(Modifier::BOLD)
    }
    pub fn ok(&self) -> Style {
        Style::new().fg(self.ok)
    }
    pub fn warn(&self) -> Style {
        Style::new().fg(self.warn)
    }
    pub fn error(&self) -> Style {
        Style::new().fg(self.error).add_modifier(Modifier::BOLD)
    }
    pub fn stale(&self) -> Style {
        Style::new()
            .fg(self.stale)
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }
    pub fn binding(&self) -> Style {
        Style::new().fg(self.binding).add_modifier(Modifier::BOLD)
    }
    /// The colour of the i-th device roof.
    pub fn roof(&self, i: usize) -> Color {
        self.roof[i % self.roof.len()]
    }
}

/// Every theme available, in cycling order, with the problems found.
#[derive(Debug, Clone)]
pub struct ThemeSet {
    pub themes: Vec<Theme>,
    pub problems: Vec<String>,
}

impl ThemeSet {
    /// Built-in files first (the default one leading), then user files; a
    /// user theme with a built-in name replaces it in place.
    pub fn load(builtin: &[(&str, &str)], user: &[(String, String)]) -> ThemeSet {
        let mut themes: Vec<Theme> = Vec::new();
        let mut problems = Vec::new();
        let mut add =
            |file: &str, text: &str, themes: &mut Vec<Theme>| match Theme::parse(file, text) {
                Ok(t) => match themes.iter().position(|x| x.name == t.name) {
                    Some(i) => themes[i] = t,
                    None => themes.push(t),
                },
                Err(e) => problems.extend(e.into_iter().map(|e| format!("theme {e}"))),
            };
        for (file, text) in builtin {
            add(file, text, &mut themes);
        }
        if let Some(i) = themes.iter().position(|t| t.name == DEFAULT_THEME) {
            let t = themes.remove(i);
            themes.insert(0, t);
        }
        for (file, text) in user {
            add(file, text, &mut themes);
        }
        if themes.is_empty() {
            themes.push(Theme::fallback());
        }
        ThemeSet { themes, problems }
    }

    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.themes
            .iter()
            .position(|t| t.name.eq_ignore_ascii_case(name))
    }
}

/// Read `<dir>/*.toml` as (path, text): regular files within the size
/// limit; the others, and a directory that cannot be listed, become problems.
pub fn read_user_themes(dir: &Path, problems: &mut Vec<String>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let paths = match files::toml_files_checked(dir) {
        Ok(p) => p,
        Err(e) => {
            let d = printable(&dir.display().to_string()).into_owned();
            problems.push(format!("themes {d}: cannot list the directory: {e}"));
            return out;
        }
    };
    for p in paths {
        let name = p.display().to_string();
        match files::read_text(&p) {
            Ok(t) => out.push((name, t)),
            Err(e) => problems.push(format!("theme {}: {e}", printable(&name))),
        }
    }
    out
}

/// True when NO_COLOR is set to a non-empty value (https://no-color.org).
pub fn no_color(get: impl Fn(&str) -> Option<String>) -> bool {
    get("NO_COLOR").is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_theme_parses_and_dark_leads() {
        let set = ThemeSet::load(crate::catalog::builtin_themes(), &[]);
        assert!(set.problems.is_empty(), "{:?}", set.problems);
        let names: Vec<_> = set.themes.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names[0], "dark");
        for n in ["light", "high-contrast", "mono"] {
            assert!(names.contains(&n), "{n} missing from {names:?}");
        }
    }

    #[test]
    fn the_fallback_is_the_dark_file() {
        let set = ThemeSet::load(crate::catalog::builtin_themes(), &[]);
        assert_eq!(set.themes[0], Theme::fallback());
    }

    #[test]
    fn a_broken_user_theme_is_reported_and_skipped() {
        let user = vec![
            (
                "my/bad.toml".to_string(),
                "name = \"bad\"\nfg = \"not-a-colour\"\n".to_string(),
            ),
            (
                "my/red.toml".to_string(),
                include_str!("../../themes/dark.toml").replace("\"dark\"", "\"red\""),
            ),
        ];
        let set = ThemeSet::load(crate::catalog::builtin_themes(), &user);
        // The bad value, then every colour left out, in one line.
        assert_eq!(set.problems.len(), 2, "{:?}", set.problems);
        assert_eq!(
            set.problems[0],
            "theme my/bad.toml:1:1: no colour for 22 roles (bg, dim, border, ...); every role \
             needs one: start from a copy of themes/dark.toml"
        );
        assert!(
            set.problems[1].starts_with(
                "theme my/bad.toml:2:6: fg = \"not-a-colour\" is not a colour; use a name"
            ),
            "{}",
            set.problems[1]
        );
        assert!(set.index_of("red").is_some());
        assert!(set.index_of("bad").is_none());
    }

    #[test]
    fn no_color_needs_a_non_empty_value() {
        assert!(!no_color(|_| None));
        assert!(!no_color(|_| Some(String::new())));
        assert!(no_color(|_| Some("1".into())));
    }
}
