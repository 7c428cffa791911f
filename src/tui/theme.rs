//! Themes: TOML files naming a colour for each role on screen. The built-in
//! ones (themes/*.toml) are embedded in the binary; the user's own live in
//! `<config dir>/themes/*.toml` and replace a built-in theme of the same name.
//! A broken file is reported and skipped, never fatal.

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use std::path::Path;

/// Colours for every role on screen.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
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
    #[serde(default)]
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

impl Theme {
    /// Parse a theme file; the error names the file, line and column.
    pub fn parse(file: &str, text: &str) -> Result<Theme, String> {
        let theme: Theme = toml::from_str(text).map_err(|e| {
            let (line, col) = e.span().map_or((1, 1), |s| line_col(text, s.start));
            format!("{file}:{line}:{col}: {}", e.message().trim())
        })?;
        if theme.roof.is_empty() {
            return Err(format!("{file}: `roof` needs at least one colour"));
        }
        Ok(theme)
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

/// 1-based line and column of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(offset, |i| offset - i - 1) + 1;
    (line, col)
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
                Err(e) => problems.push(format!("theme {e}")),
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

/// Read `<dir>/*.toml` as (path, text); unreadable files become problems.
pub fn read_user_themes(dir: &Path, problems: &mut Vec<String>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in crate::catalog::toml_files(dir) {
        match std::fs::read_to_string(&p) {
            Ok(t) => out.push((p.display().to_string(), t)),
            Err(e) => problems.push(format!("theme {}: cannot read: {e}", p.display())),
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
        assert_eq!(set.problems.len(), 1);
        assert!(
            set.problems[0].starts_with("theme my/bad.toml:2:"),
            "{}",
            set.problems[0]
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
