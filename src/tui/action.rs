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
    Zoom,
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
    View1,
    View2,
    View3,
    View4,
    View5,
    View6,
    View7,
    View8,
    View9,
    SearchLayouts,
    ScalingPlot,
    NextFamily,
    Save,
    Redraw,
    Suspend,
    SortCompare,
    Baseline,
    ImportModel,
    NewEntry,
    EditCopy,
    Lessons,
    NextStep,
    PrevStep,
    Reveal,
    Export,
    CopyCommand,
    Follow,
}

impl Command {
    /// In the order the help screen lists them.
    pub const ALL: [Command; 48] = [
        Command::View1,
        Command::View2,
        Command::View3,
        Command::View4,
        Command::View5,
        Command::View6,
        Command::View7,
        Command::View8,
        Command::View9,
        Command::Up,
        Command::Down,
        Command::Left,
        Command::Right,
        Command::NextPane,
        Command::PrevPane,
        Command::Zoom,
        Command::PageUp,
        Command::PageDown,
        Command::Top,
        Command::Bottom,
        Command::Increase,
        Command::Decrease,
        Command::Edit,
        Command::Cancel,
        Command::Filter,
        Command::NewEntry,
        Command::EditCopy,
        Command::Mark,
        Command::ClearMarks,
        Command::NextFamily,
        Command::SortCompare,
        Command::Baseline,
        Command::SearchLayouts,
        Command::ScalingPlot,
        Command::Save,
        Command::Export,
        Command::CopyCommand,
        Command::ImportModel,
        Command::Lessons,
        Command::NextStep,
        Command::PrevStep,
        Command::Reveal,
        Command::Follow,
        Command::NextTheme,
        Command::Redraw,
        Command::Suspend,
        Command::Help,
        Command::Quit,
    ];

    /// 1 to 9 for the view keys.
    pub fn view_number(self) -> Option<usize> {
        match self {
            Command::View1 => Some(1),
            Command::View2 => Some(2),
            Command::View3 => Some(3),
            Command::View4 => Some(4),
            Command::View5 => Some(5),
            Command::View6 => Some(6),
            Command::View7 => Some(7),
            Command::View8 => Some(8),
            Command::View9 => Some(9),
            _ => None,
        }
    }

    /// The name used in config.toml's [keys] section.
    pub fn name(self) -> &'static str {
        match self {
            Command::Quit => "quit",
            Command::Help => "help",
            Command::NextPane => "next_pane",
            Command::PrevPane => "prev_pane",
            Command::Zoom => "zoom",
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
            Command::View1 => "view_roofline",
            Command::View2 => "view_serving",
            Command::View3 => "view_synthesis",
            Command::View4 => "view_sweep",
            Command::View5 => "view_generations",
            Command::View6 => "view_fleet",
            Command::View7 => "view_training",
            Command::View8 => "view_operators",
            Command::View9 => "view_explore",
            Command::SearchLayouts => "search_layouts",
            Command::ScalingPlot => "scaling_plot",
            Command::NextFamily => "next_family",
            Command::Save => "save",
            Command::Redraw => "redraw",
            Command::Suspend => "suspend",
            Command::SortCompare => "sort_compare",
            Command::Baseline => "baseline",
            Command::ImportModel => "import_model",
            Command::NewEntry => "new_entry",
            Command::EditCopy => "edit_copy",
            Command::Lessons => "lessons",
            Command::NextStep => "next_step",
            Command::PrevStep => "prev_step",
            Command::Reveal => "reveal",
            Command::Export => "export",
            Command::CopyCommand => "copy_command",
            Command::Follow => "follow",
        }
    }

    /// What it does, for the help screen.
    pub fn describe(self) -> &'static str {
        match self {
            Command::Quit => "quit",
            Command::Help => "show or hide this help",
            Command::NextPane => "focus the next pane",
            Command::PrevPane => "focus the previous pane",
            Command::Zoom => "zoom the focused pane to the whole screen, and back",
            Command::Up => "move up (top row: to the pane bar; again: to the views)",
            Command::Down => "move down (from the bar: back into the pane)",
            Command::Left => "knobs: step down; views bar: previous view; else previous pane",
            Command::Right => "knobs: step up; views bar: next view; else next pane",
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
            Command::View1 => "view 1: Roofline (plot, sensitivity, compare)",
            Command::View2 => "view 2: Serving (TTFT, ITL, KV, memory, cost, CO2)",
            Command::View3 => "view 3: Synthesis (what hardware meets a target)",
            Command::View4 => "view 4: Sweep (against batch or context)",
            Command::View5 => "view 5: Generations (a family side by side)",
            Command::View6 => "view 6: Fleet (cheapest fleet for a load and SLAs)",
            Command::View7 => "view 7: Training (step, memory, run, layouts)",
            Command::View8 => "view 8: Operators (where a step's time goes, on the roofline)",
            Command::View9 => {
                "view 9: Explore (the Pareto front of a design space; Enter adopts a point)"
            }
            Command::SearchLayouts => "Training: rank the layouts (Enter on a row adopts it)",
            Command::ScalingPlot => {
                "Training: show or hide the scaling plot (tokens/s against devices, the knee)"
            }
            Command::NextFamily => "next hardware family (Generations), or the marked devices",
            Command::Save => "save the workbench state to a scenario file",
            Command::Redraw => "redraw the whole screen",
            Command::Suspend => "suspend to the shell (fg resumes)",
            Command::SortCompare => "sort a comparison: listed, latency, tokens/s, $/M tok",
            Command::Baseline => "baseline of the speedups: the selected row (again: undo)",
            Command::ImportModel => {
                "import a model from a config.json or a model folder (listed as imported)"
            }
            Command::NewEntry => "a form: your own device (hardware list) or region (region knob)",
            Command::EditCopy => "edit a copy of the selected device or region (your own: edit it)",
            Command::Lessons => "lessons: pick a built-in lesson (Enter starts it on step 1)",
            Command::NextStep => {
                "lesson: next step (pagedown too while the caption is up); after esc: back to the script"
            }
            Command::PrevStep => "lesson: previous step (pageup too while the caption is up)",
            Command::Reveal => "lesson: show or hide the step's answer",
            Command::Export => {
                "export the view: plot.svg, table.csv, table.md, command.sh in a new directory"
            }
            Command::CopyCommand => "copy the view's command line to the clipboard (OSC 52)",
            Command::Follow => {
                "shared session: follow the presenter again (another key: your own way)"
            }
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
    /// Text for the open entry, inserted as one edit: a bracketed paste, or
    /// a run of characters typed faster than the screen is drawn, which the
    /// event loop folds together. Control characters are dropped, line
    /// breaks become spaces, and the entry keeps its length limit.
    Paste(String),
    /// The terminal changed size: draw again.
    Resize,
}

impl From<Command> for Action {
    fn from(c: Command) -> Action {
        Action::Do(c)
    }
}
