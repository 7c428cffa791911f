//! Everything that can happen to the app. Keys become actions through the
//! keymap; `app::update` is the only place state changes.

use ratatui_textarea::Input;

/// A bindable command: what a key means, independent of the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Command {
    Quit,
    Help,
    NextPane,
    PrevPane,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Increase,
    Decrease,
    Filter,
    Edit,
    Cancel,
    Mark,
    ClearMarks,
    NextTheme,
}

impl Command {
    /// In the order the help screen lists them.
    pub const ALL: [Command; 20] = [
        Command::Up,
        Command::Down,
        Command::Left,
        Command::Right,
        Command::NextPane,
        Command::PrevPane,
        Command::PageUp,
        Command::PageDown,
        Command::Top,
        Command::Bottom,
        Command::Increase,
        Command::Decrease,
        Command::Edit,
        Command::Cancel,
        Command::Filter,
        Command::Mark,
        Command::ClearMarks,
        Command::NextTheme,
        Command::Help,
        Command::Quit,
    ];

    /// The name used in config.toml's [keys] section.
    pub fn name(self) -> &'static str {
        match self {
            Command::Quit => "quit",
            Command::Help => "help",
            Command::NextPane => "next_pane",
            Command::PrevPane => "prev_pane",
            Command::Up => "up",
            Command::Down => "down",
            Command::Left => "left",
            Command::Right => "right",
            Command::PageUp => "page_up",
            Command::PageDown => "page_down",
            Command::Top => "top",
            Command::Bottom => "bottom",
            Command::Increase => "increase",
            Command::Decrease => "decrease",
            Command::Filter => "filter",
            Command::Edit => "edit",
            Command::Cancel => "cancel",
            Command::Mark => "mark",
            Command::ClearMarks => "clear_marks",
            Command::NextTheme => "next_theme",
        }
    }

    /// What it does, for the help screen.
    pub fn describe(self) -> &'static str {
        match self {
            Command::Quit => "quit",
            Command::Help => "show or hide this help",
            Command::NextPane => "focus the next pane",
            Command::PrevPane => "focus the previous pane",
            Command::Up => "move up (from the top row: to the pane bar)",
            Command::Down => "move down (from the pane bar: into the pane)",
            Command::Left => "knobs: step down; elsewhere: previous pane",
            Command::Right => "knobs: step up; elsewhere: next pane",
            Command::PageUp => "move up a page",
            Command::PageDown => "move down a page",
            Command::Top => "first row",
            Command::Bottom => "last row",
            Command::Increase => "step the selected knob up (from any pane)",
            Command::Decrease => "step the selected knob down (from any pane)",
            Command::Filter => "filter the hardware or model list as you type",
            Command::Edit => "type a knob's value (\"8k\", \"50ms\", \"70%\"); confirm",
            Command::Cancel => "cancel the entry or clear the filter",
            Command::Mark => "mark a device to compare (hardware list)",
            Command::ClearMarks => "clear all marks",
            Command::NextTheme => "next colour theme",
        }
    }

    pub fn parse(name: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|c| c.name() == name.trim())
    }
}

/// What `update` consumes.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A bound command.
    Do(Command),
    /// A key for the open text entry (filter or knob value).
    Input(Input),
    /// The terminal changed size: draw again.
    Resize,
}

impl From<Command> for Action {
    fn from(c: Command) -> Action {
        Action::Do(c)
    }
}
