//! `update`: the only place the app's state changes. Each action changes
//! the state, then every figure is recomputed from the solver (`App::recompute`).

use super::action::{Action, Command};
use super::app::{App, DEFAULT_SCENARIO_PATH, KnobEdit, Level, Mode, Pane, filter_box};
use super::knobs::Knob;
use super::scenario_io;
use super::theme::Theme;
use super::views::{View, ViewData, training};
use crate::solver;
use ratatui::style::{Modifier, Style};
use ratatui_textarea::{Input, Key, TextArea};

/// Move within a list of visible entries: the new selection.
fn moved(visible: &[usize], current: usize, delta: isize) -> Option<usize> {
    if visible.is_empty() {
        return None;
    }
    let pos = visible.iter().position(|&i| i == current);
    let next = match pos {
        None => 0,
        Some(p) => (p as isize + delta).clamp(0, visible.len() as isize - 1) as usize,
    };
    Some(visible[next])
}

/// The longest filter, in characters: a filter is a few words.
pub const FILTER_MAX: usize = 256;
/// The longest knob value, in characters: the longest is a list of region
/// ids (the built-in twelve take about 100).
pub const KNOB_MAX: usize = 1024;
/// The longest save path, in characters: Linux's PATH_MAX is 4096 bytes.
pub const PATH_MAX: usize = 4096;

/// Change state for one action, then recompute. The only mutator.
pub fn update(app: &mut App, action: Action) {
    app.dirty = true;
    match action {
        // The terminal's business (the event loop's): draw everything
        // again, change nothing.
        Action::Resize | Action::Do(Command::Redraw | Command::Suspend) => return,
        Action::Input(input) => {
            app.message = None;
            if app.mode == Mode::Save && app.session.confirm.is_some() {
                // A pending "overwrite?" question takes y or n, nothing else.
                if let Key::Char(c @ ('y' | 'Y' | 'n' | 'N')) = input.key {
                    scenario_io::answer(app, c.eq_ignore_ascii_case(&'y'));
                }
            } else {
                edit_entry(app, |t, max| key_into(t, input, max));
            }
            return;
        }
        Action::Paste(text) => {
            app.message = None;
            if entry_limit(app).is_none() {
                let k = app.keymap.first_key(Command::Filter);
                let msg = format!("paste ignored: no entry is open ({k} filters a list)");
                app.say(Level::Info, msg);
                return;
            }
            edit_entry(app, |t, max| paste_into(t, &text, max));
            return;
        }
        Action::Do(cmd) => {
            app.message = None;
            command(app, cmd)
        }
    }
    app.recompute();
}

/// The entry that takes typed and pasted text now, if one does: what it
/// is called and how many characters it takes.
pub(crate) fn entry_limit(app: &App) -> Option<(&'static str, usize)> {
    match app.mode {
        Mode::Filter(_) => Some(("the filter", FILTER_MAX)),
        Mode::Edit => Some(("a knob value", KNOB_MAX)),
        // A pending "overwrite?" question takes y or n, not text.
        Mode::Save if app.session.confirm.is_some() => None,
        Mode::Save | Mode::Import => Some(("the path", PATH_MAX)),
        Mode::Form => Some(("a field", super::form::FIELD_MAX)),
        Mode::Normal | Mode::Help => None,
    }
}

/// Change the open entry with `edit` (which returns how many characters
/// the limit left out), then recompute once.
fn edit_entry(app: &mut App, edit: impl FnOnce(&mut TextArea<'static>, usize) -> usize) {
    let Some((what, max)) = entry_limit(app) else {
        return;
    };
    let left_out = match app.mode {
        Mode::Filter(pane) => {
            let t = if pane == Pane::Models {
                &mut app.model_filter
            } else {
                &mut app.hw_filter
            };
            let n = edit(t, max);
            app.recompute();
            follow_filter(app, pane);
            n
        }
        Mode::Edit => {
            let n = app.edit.as_mut().map_or(0, |e| edit(&mut e.text, max));
            apply_entry(app);
            n
        }
        Mode::Import => edit(&mut app.import_path, max),
        Mode::Form => {
            let n = super::form::focused_text(app).map_or(0, |t| edit(t, max));
            super::form::edited(app);
            n
        }
        _ => edit(&mut app.save_path, max),
    };
    if left_out > 0 {
        let msg = format!("{what} takes at most {max} characters; {left_out} left out");
        app.say(Level::Warn, msg);
    }
}

fn chars(t: &TextArea) -> usize {
    t.lines().iter().map(|l| l.chars().count()).sum()
}

/// One key into an entry. A key that would break the line is ignored (an
/// entry is one line); one that takes the entry past `max` characters is
/// undone. Returns the characters left out.
fn key_into(t: &mut TextArea<'static>, input: Input, max: usize) -> usize {
    let breaks = matches!(input.key, Key::Enter | Key::Char('\n' | '\r'))
        || (input.ctrl && input.key == Key::Char('m'));
    if breaks {
        return 0;
    }
    let before = chars(t);
    t.input(input);
    let after = chars(t);
    if after > max && after > before {
        t.undo();
        return after - before;
    }
    0
}

/// Pasted text as one edit: line breaks and tabs become spaces, other
/// control characters (escape sequences inside the paste) are dropped, a
/// final line break is left out, and the text is cut to what fits in
/// `max`. Returns the characters left out.
fn paste_into(t: &mut TextArea<'static>, text: &str, max: usize) -> usize {
    let clean = text.trim_end_matches(['\r', '\n']).chars().filter_map(|c| {
        if matches!(c, '\n' | '\r' | '\t') {
            Some(' ')
        } else if c.is_control() {
            None
        } else {
            Some(c)
        }
    });
    // The selection (all of a knob's value when its entry opens) is replaced.
    let selected = t
        .selection_range()
        .map_or(0, |((_, a), (_, b))| b.saturating_sub(a));
    let room = max.saturating_sub(chars(t).saturating_sub(selected));
    let (mut kept, mut n, mut left_out) = (String::new(), 0, 0);
    for c in clean {
        if n < room {
            kept.push(c);
            n += 1;
        } else {
            left_out += 1;
        }
    }
    if !kept.is_empty() {
        t.insert_str(&kept);
    }
    left_out
}

/// After the filter changed: the anchor when it passes the filter, else
/// the first row that does, else the anchor again (nothing passes). A
/// function of the filter's text, so a burst typed at once lands where the
/// same keys typed one by one do.
fn follow_filter(app: &mut App, pane: Pane) {
    let (visible, sel) = if pane == Pane::Models {
        (&app.model_visible, app.model)
    } else {
        (&app.hw_visible, app.hw)
    };
    let anchor = app.filter_anchor;
    let target = if visible.contains(&anchor) {
        anchor
    } else {
        visible.first().copied().unwrap_or(anchor)
    };
    if target != sel {
        if pane == Pane::Models {
            app.model = target;
        } else {
            app.hw = target;
        }
        app.recompute();
    }
}

/// Read the entry's text; apply it when the solver accepts it.
fn apply_entry(app: &mut App) {
    let Some(edit) = app.edit.as_mut() else {
        return;
    };
    let text = edit.text.lines().first().cloned().unwrap_or_default();
    let parsed = edit.knob.parse(&text, &edit.before, &app.choices);
    match parsed {
        Err(e) => edit.error = Some(e),
        Ok(i) => {
            let checked = solver::roofline::validate_workload(&i.wl)
                .and_then(|_| solver::roofline::validate_assumptions(&i.a))
                .and_then(|_| solver::serving::validate_request(&i.v.request));
            match checked {
                Err(e) => edit.error = Some(e.to_string()),
                Ok(()) => {
                    edit.error = None;
                    app.set_inputs(i);
                    app.recompute();
                }
            }
        }
    }
}

fn move_selection(app: &mut App, delta: isize, to_bar_at_top: bool) {
    match app.focus {
        Pane::Hardware | Pane::Models => {
            let models = app.focus == Pane::Models;
            let (visible, cur) = if models {
                (&app.model_visible, app.model)
            } else {
                (&app.hw_visible, app.hw)
            };
            let at_top = visible.first().is_none_or(|&f| f == cur);
            if delta < 0 && at_top && to_bar_at_top {
                app.in_bar = true;
                return;
            }
            if let Some(n) = moved(visible, cur, delta) {
                if models {
                    app.model = n;
                } else {
                    app.hw = n;
                }
                app.filter_anchor = n;
            }
        }
        Pane::Knobs => {
            if delta < 0 && app.knob == 0 && to_bar_at_top {
                app.in_bar = true;
                return;
            }
            let n = app.knobs().len() as isize;
            app.knob = (app.knob as isize + delta).clamp(0, n - 1) as usize;
        }
        Pane::View | Pane::Compare => {
            // The Synthesis and Fleet tables scroll, a comparison's cursor
            // moves; from their top, Up goes to the bar.
            if delta < 0 && app.view_scroll == 0 && to_bar_at_top {
                app.in_bar = true;
                return;
            }
            let rows = app.view_rows();
            app.view_scroll = (app.view_scroll as isize + delta)
                .clamp(0, rows.saturating_sub(1) as isize) as usize;
        }
        _ => {
            if delta < 0 && to_bar_at_top {
                app.in_bar = true;
            }
        }
    }
}

fn step_knob(app: &mut App, up: bool) {
    let k = app.selected_knob();
    if let Some(why) = k.not_applicable(&app.catalog.models[app.model]) {
        return app.say(Level::Info, why);
    }
    let model = app.catalog.models.get(app.model).map(|m| &m.model);
    let i = k.step_for(&app.inputs(), up, &app.choices, model);
    app.set_inputs(i);
    // A profile's values for the device's class, before it is named.
    app.follow_device_class();
    let v = k.value(&app.inputs());
    app.say(Level::Info, format!("{} {v}", k.label()));
}

fn command(app: &mut App, cmd: Command) {
    // Text entries take only confirm, cancel, quit and list moves.
    match app.mode {
        Mode::Filter(pane) => {
            match cmd {
                Command::Quit => app.quit = true,
                Command::Edit => {
                    app.mode = Mode::Normal;
                    let n = if pane == Pane::Models {
                        app.model_visible.len()
                    } else {
                        app.hw_visible.len()
                    };
                    app.say(
                        Level::Info,
                        format!("filter kept: {n} shown; Esc clears it"),
                    );
                }
                Command::Cancel => {
                    if pane == Pane::Models {
                        app.model_filter = filter_box("");
                    } else {
                        app.hw_filter = filter_box("");
                    }
                    app.mode = Mode::Normal;
                }
                Command::Up => move_selection(app, -1, false),
                Command::Down => move_selection(app, 1, false),
                _ => {}
            }
            return;
        }
        Mode::Edit => {
            match cmd {
                Command::Quit => app.quit = true,
                Command::Edit => {
                    let Some(e) = &app.edit else { return };
                    if let Some(err) = &e.error {
                        let msg = format!("not applied: {err}; fix it or press Esc");
                        app.say(Level::Error, msg);
                    } else {
                        let k = e.knob;
                        app.edit = None;
                        app.mode = Mode::Normal;
                        let v = k.value(&app.inputs());
                        app.say(Level::Info, format!("{} set to {v}", k.label()));
                    }
                }
                Command::Cancel => {
                    if let Some(e) = app.edit.take() {
                        app.set_inputs(e.before);
                    }
                    app.mode = Mode::Normal;
                    app.say(Level::Info, "entry cancelled");
                }
                _ => {}
            }
            return;
        }
        Mode::Help => {
            match cmd {
                Command::Quit => app.quit = true,
                Command::Help | Command::Cancel | Command::Edit => app.mode = Mode::Normal,
                Command::Up | Command::PageUp | Command::Top => {
                    let by = match cmd {
                        Command::Up => 1,
                        Command::PageUp => 10,
                        _ => usize::MAX,
                    };
                    app.help_scroll = app.help_scroll.saturating_sub(by)
                }
                Command::Down | Command::PageDown | Command::Bottom => {
                    let by = match cmd {
                        Command::Down => 1,
                        Command::PageDown => 10,
                        _ => usize::MAX,
                    };
                    app.help_scroll = app
                        .help_scroll
                        .saturating_add(by)
                        .min(crate::tui::panes::help::max_scroll(app))
                }
                _ => {}
            }
            return;
        }
        Mode::Import => {
            match cmd {
                Command::Quit => app.quit = true,
                Command::Edit => super::import::submit(app),
                Command::Cancel => super::import::cancel(app),
                _ => {}
            }
            return;
        }
        Mode::Form => return super::form::command(app, cmd),
        Mode::Save => {
            match cmd {
                Command::Quit => app.quit = true,
                Command::Edit if app.session.confirm.is_some() => app.say(
                    Level::Warn,
                    "y overwrites the file, n changes the path, Esc cancels",
                ),
                Command::Edit => scenario_io::submit(app),
                Command::Cancel => scenario_io::cancel(app),
                _ => {}
            }
            return;
        }
        Mode::Normal => {}
    }
    // A lesson's keys, and the picker while it is open.
    if super::lesson::command(app, cmd) {
        return;
    }
    match cmd {
        // Handled before `command` (the event loop acts on the terminal).
        Command::Redraw | Command::Suspend => {}
        // Handled by the presenter (`lesson::command`).
        Command::Lessons | Command::NextStep | Command::PrevStep | Command::Reveal => {}
        Command::Quit => app.quit = true,
        Command::Help => {
            app.mode = Mode::Help;
            app.help_scroll = 0;
        }
        Command::NextPane => {
            app.focus = app.focus.next_in(app.view);
            app.in_bar = false;
            app.bar_view = false;
        }
        Command::PrevPane => {
            app.focus = app.focus.prev_in(app.view);
            app.in_bar = false;
            app.bar_view = false;
        }
        Command::Zoom => app.zoom = !app.zoom,
        Command::Up => {
            if app.in_bar {
                app.bar_view = true;
            } else {
                move_selection(app, -1, true)
            }
        }
        Command::Down => {
            if app.bar_view {
                app.bar_view = false;
            } else if app.in_bar {
                app.in_bar = false;
            } else {
                move_selection(app, 1, false)
            }
        }
        Command::View1
        | Command::View2
        | Command::View3
        | Command::View4
        | Command::View5
        | Command::View6
        | Command::View7
        | Command::View8
        | Command::View9 => {
            let n = cmd.view_number().unwrap_or(1);
            let v = View::ALL[(n - 1).min(View::ALL.len() - 1)];
            app.set_view(v);
            app.say(Level::Info, format!("{} view", v.title()));
        }
        Command::NextFamily => {
            let i = app.inputs();
            let next = Knob::Family.step(&i, true, &app.choices);
            let label = Knob::Family.value(&next);
            app.set_inputs(next);
            if app.view != View::Generations {
                app.set_view(View::Generations);
            }
            app.say(Level::Info, format!("family {label}"));
        }
        Command::Save if app.session.guest => scenario_io::export(app),
        Command::ImportModel | Command::Export if app.session.guest => {
            app.say(Level::Warn, scenario_io::GUEST_NO_FILES)
        }
        Command::Export => super::export::export_view(app),
        Command::CopyCommand => super::export::copy_command(app),
        Command::Follow => follow_again(app),
        Command::Save => {
            app.mode = Mode::Save;
            app.in_bar = false;
            app.bar_view = false;
            let mut t = filter_box(DEFAULT_SCENARIO_PATH);
            t.select_all();
            style_entry(&mut t, app.theme());
            app.save_path = t;
            app.session.confirm = None;
        }
        Command::ImportModel => super::import::open(app),
        Command::PageUp => move_selection(app, -10, false),
        Command::PageDown => move_selection(app, 10, false),
        Command::Top => move_selection(app, -100_000, false),
        Command::Bottom => move_selection(app, 100_000, false),
        Command::Left | Command::Right => {
            let up = cmd == Command::Right;
            if app.bar_view {
                let v = if up { app.view.next() } else { app.view.prev() };
                app.set_view(v);
                app.in_bar = true;
                app.bar_view = true;
            } else if app.focus == Pane::Knobs && !app.in_bar {
                step_knob(app, up);
            } else {
                app.focus = if up {
                    app.focus.next_in(app.view)
                } else {
                    app.focus.prev_in(app.view)
                };
            }
        }
        Command::Increase => step_knob(app, true),
        Command::Decrease => step_knob(app, false),
        Command::Filter => {
            if !app.focus.is_picker() {
                app.focus = Pane::Hardware;
            }
            app.in_bar = false;
            app.mode = Mode::Filter(app.focus);
            app.filter_anchor = if app.focus == Pane::Models {
                app.model
            } else {
                app.hw
            };
            let theme = app.theme().clone();
            if app.focus == Pane::Models {
                style_entry(&mut app.model_filter, &theme);
            } else {
                style_entry(&mut app.hw_filter, &theme);
            }
        }
        Command::SearchLayouts => search_layouts(app),
        Command::ScalingPlot => scaling_plot(app),
        Command::Edit if adopt_layout(app) => {}
        Command::Edit if adopt_point(app) => {}
        Command::Edit => {
            let target_entry =
                app.view == View::Synthesis && app.focus == Pane::View && !app.in_bar;
            if target_entry {
                // Enter on the Synthesis pane types the target, in place.
                app.knob = app
                    .knobs()
                    .iter()
                    .position(|k| *k == Knob::Target)
                    .unwrap_or(0);
            }
            if app.in_bar {
                app.in_bar = false;
                app.bar_view = false;
            } else if let Some(why) = (app.focus == Pane::Knobs)
                .then(|| {
                    app.selected_knob()
                        .not_applicable(&app.catalog.models[app.model])
                })
                .flatten()
            {
                app.say(Level::Info, why);
            } else if app.focus == Pane::Knobs || target_entry {
                let knob = app.selected_knob();
                let before = app.inputs();
                let mut text = filter_box(&knob.value(&before));
                text.select_all();
                style_entry(&mut text, app.theme());
                app.edit = Some(KnobEdit {
                    knob,
                    text,
                    error: None,
                    before,
                });
                app.mode = Mode::Edit;
            } else if app.focus.is_picker() {
                app.focus = app.focus.next_in(app.view);
            }
        }
        Command::Cancel => {
            if !app.notices.is_empty() {
                // The start-up problems panel is on top: Esc closes it first.
                app.notices.clear();
            } else if app.in_bar {
                app.in_bar = false;
                app.bar_view = false;
            } else if app.focus.is_picker() && !app.filter_text(app.focus).is_empty() {
                if app.focus == Pane::Models {
                    app.model_filter = filter_box("");
                } else {
                    app.hw_filter = filter_box("");
                }
                app.say(Level::Info, "filter cleared");
            } else {
                // Nothing else to cancel: leave the lesson, if one is on.
                super::lesson::leave(app);
            }
        }
        Command::Mark => {
            if app.focus == Pane::Hardware && !app.in_bar {
                let i = app.hw;
                let id = app.catalog.hardware[i].hw.id.clone();
                if let Some(p) = app.marked.iter().position(|&m| m == i) {
                    app.marked.remove(p);
                    app.say(Level::Info, format!("unmarked {id}"));
                } else {
                    app.marked.push(i);
                    app.say(Level::Info, format!("marked {id} for comparison"));
                }
            } else {
                let k = app.keymap.first_key(Command::Mark);
                app.say(
                    Level::Info,
                    format!("{k} marks devices in the Hardware list"),
                );
            }
        }
        Command::SortCompare => {
            // The cursor stays on its device as the rows move.
            let on = app.selected_compared().map(|(_, c)| c.hw);
            app.compare_sort = app.compare_sort.next();
            app.recompute();
            if let Some((an, _)) = app.selected_compared()
                && let Some(p) = an.order.iter().position(|&i| Some(an.compare[i].hw) == on)
            {
                app.view_scroll = p;
            }
            app.say(
                Level::Info,
                format!("comparison sorted by {}", app.compare_sort.name()),
            );
        }
        Command::Baseline => pick_baseline(app),
        Command::NewEntry => super::form::open(app, false),
        Command::EditCopy => super::form::open(app, true),
        Command::ClearMarks => {
            app.marked.clear();
            app.say(Level::Info, "marks cleared");
        }
        Command::NextTheme => {
            app.theme = (app.theme + 1) % app.themes.themes.len();
            let name = app.theme().name.clone();
            app.say(Level::Info, format!("theme {name}"));
        }
    }
}

/// Take the figures a worker has computed since the last frame (the
/// scaling curve): when the one on screen changes, every figure is
/// recomputed with it (the curve is kept, so that is quick) and the frame
/// is drawn again. The event loop calls this before each frame.
pub fn land(app: &mut App) {
    if app.train_curve.land() {
        app.recompute();
        app.dirty = true;
    }
}

/// Wait at most `limit` for the figures a worker is computing and take
/// them as [`land`] does (tests and benches of the worker; without one
/// they are already there). True when they have landed.
pub fn settle(app: &mut App, limit: std::time::Duration) -> bool {
    let pending = app.train_curve.pending();
    let landed = app.train_curve.wait(limit);
    if pending && landed {
        app.recompute();
        app.dirty = true;
    }
    landed
}

/// Show or hide the Training view's scaling plot (from any pane of that
/// view).
fn scaling_plot(app: &mut App) {
    if app.view != View::Training {
        let k = app.keymap.first_key(Command::View7);
        let msg = format!("the scaling plot is in the Training view ({k})");
        return app.say(Level::Info, msg);
    }
    app.train_scaling = !app.train_scaling;
    app.recompute();
    let k = app.keymap.first_key(Command::ScalingPlot);
    let msg = if app.train_scaling {
        format!("scaling plot: each device count's fastest layout; {k} hides it")
    } else {
        format!("scaling plot hidden; {k} shows it")
    };
    app.say(Level::Info, msg);
}

/// Run the Training view's layout search for its inputs (from any pane of
/// that view); the cursor goes to the fastest layout.
fn search_layouts(app: &mut App) {
    if app.view != View::Training {
        let k = app.keymap.first_key(Command::View7);
        let msg = format!("the layout search is in the Training view ({k})");
        return app.say(Level::Info, msg);
    }
    let (Some(hw), Some(m)) = (
        app.catalog.hardware.get(app.hw),
        app.catalog.models.get(app.model),
    ) else {
        return;
    };
    let t = app.view_inputs.train;
    let precision = app.workload.weights;
    let a = app.assumptions;
    match training::search(&hw.hw, &m.model, &t, precision, &a) {
        Err(e) => app.say(Level::Error, format!("no layout search: {e}")),
        Ok(s) => {
            let msg = match s.ranked.first() {
                Some(best) => format!(
                    "{} layouts tried, {} fit; fastest {}: Enter adopts a row",
                    s.tried,
                    s.fitting,
                    super::panes::training::layout_text(&best.run.layout)
                ),
                None => format!(
                    "{} layouts of {} devices tried: none fits ({} too big, {} need a missing link)",
                    s.tried, t.devices, s.too_big, s.no_link
                ),
            };
            let key = training::search_key(app.hw, app.model, &m.model, &t, precision, &a);
            app.train_search = Some(training::SearchRun { key, search: s });
            app.focus = Pane::View;
            app.in_bar = false;
            app.bar_view = false;
            app.view_scroll = training::SECTIONS;
            app.say(Level::Info, msg);
        }
    }
}

/// Enter on a ranked layout of the Training view adopts it. False when the
/// cursor is not on one (Enter then does what it does elsewhere).
fn adopt_layout(app: &mut App) -> bool {
    if app.view != View::Training || app.focus != Pane::View || app.in_bar {
        return false;
    }
    let Some((ViewData::Training(d), _)) = app.shown_view() else {
        return false;
    };
    let Some(c) =
        training::picked(d, app.view_scroll).and_then(|i| d.search.as_ref().map(|s| s.ranked[i]))
    else {
        return false;
    };
    app.view_inputs.train = training::adopt(&app.view_inputs.train, &c.run);
    app.say(
        Level::Info,
        format!(
            "adopted {}, ZeRO {}, recompute {}, micro-batch {}",
            super::panes::training::layout_text(&c.run.layout),
            c.run.zero,
            c.run.recompute.name(),
            c.run.micro_batch
        ),
    );
    true
}

/// Enter on a point of the Explore view's front makes it the workbench's
/// selection: its device, precision, TP, PP and batch. False when the
/// cursor is not on one.
fn adopt_point(app: &mut App) -> bool {
    if app.view != View::Explore || app.focus != Pane::View || app.in_bar {
        return false;
    }
    let Some((ViewData::Explore(d), _)) = app.shown_view() else {
        return false;
    };
    let Some(c) = d.front_point(app.view_scroll).map(|p| d.choice(p)) else {
        return false;
    };
    app.hw = c.hw;
    app.workload = super::views::explore::adopt(&app.workload, &c);
    let id = app.catalog.hardware[c.hw].hw.id.clone();
    app.say(
        Level::Info,
        format!(
            "selected {id}, {}, TP {}, PP {}, batch {}",
            c.precisions.label(),
            c.tp,
            c.pp,
            c.batch
        ),
    );
    true
}

/// The device at the comparison's selected row becomes the baseline of the
/// speedups; on the baseline again, back to the first that fits. A device
/// that does not fit cannot be one (it has no speed to compare).
fn pick_baseline(app: &mut App) {
    let table = match app.view {
        View::Roofline => Pane::Compare,
        _ => Pane::View,
    };
    let focused = app.focus == table && !app.in_bar;
    let Some((an, c)) = app.selected_compared().filter(|_| focused) else {
        app.say(
            Level::Info,
            "b picks the baseline at the selected row of the Compare pane or the Generations table",
        );
        return;
    };
    let id = app.catalog.hardware[c.hw].hw.id.clone();
    let current = an.baseline.map(|b| an.compare[b].hw);
    if let Some(v) = c.verdict().filter(|v| !v.fits()) {
        let text = format!("{id} cannot be the baseline: {}", v.headline(&id));
        app.say(Level::Warn, text);
    } else if current == Some(c.hw) && app.baseline == Some(c.hw) {
        app.baseline = None;
        app.say(Level::Info, "baseline: the first device that fits");
    } else if c.fits() {
        app.baseline = Some(c.hw);
        app.say(Level::Info, format!("baseline {id}"));
    }
}

/// Give an entry box the theme's colours (when it opens).
pub(crate) fn style_entry(t: &mut TextArea<'static>, theme: &Theme) {
    t.set_style(theme.base());
    t.set_cursor_style(Style::new().add_modifier(Modifier::REVERSED));
    t.set_selection_style(theme.selected());
    t.set_cursor_line_style(Style::new());
}

/// `F`: back to following the presenter, after a key went one's own way.
/// The session lays the presenter's latest state on the workbench.
fn follow_again(app: &mut App) {
    use super::follow::Room;
    let msg = match &app.room {
        Some(Room::OnOwn(p)) => {
            let p = p.clone();
            app.room = Some(Room::Following(p.clone()));
            format!("following {p} again")
        }
        Some(Room::Following(p)) => format!("already following {p}"),
        Some(Room::Presenting { .. }) => "you are the presenter: the others follow you".into(),
        None => "nobody to follow: F follows the presenter of a shared session".into(),
    };
    app.say(Level::Info, msg);
}
