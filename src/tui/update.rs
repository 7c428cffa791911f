//! `update`: the only place the app's state changes. Each action changes
//! the state, then every figure is recomputed from the solver (`App::recompute`).

use super::action::{Action, Command};
use super::app::{App, DEFAULT_SCENARIO_PATH, KnobEdit, Level, Mode, Pane, filter_box};
use super::knobs::Knob;
use super::theme::Theme;
use super::views::View;
use crate::solver;
use ratatui::style::{Modifier, Style};
use ratatui_textarea::TextArea;
use std::path::Path;

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

/// Change state for one action, then recompute. The only mutator.
pub fn update(app: &mut App, action: Action) {
    app.dirty = true;
    if action != Action::Resize {
        app.message = None;
    }
    match action {
        Action::Resize => return,
        Action::Input(input) => {
            match app.mode {
                Mode::Filter(pane) => {
                    let t = if pane == Pane::Models {
                        &mut app.model_filter
                    } else {
                        &mut app.hw_filter
                    };
                    t.input(input);
                    app.recompute();
                    follow_filter(app, pane);
                }
                Mode::Edit => {
                    if let Some(e) = app.edit.as_mut() {
                        e.text.input(input);
                    }
                    apply_entry(app);
                }
                Mode::Save => {
                    app.save_path.input(input);
                }
                _ => {}
            }
            return;
        }
        Action::Do(cmd) => command(app, cmd),
    }
    app.recompute();
}

/// After the filter changed: keep the selection on a visible row.
fn follow_filter(app: &mut App, pane: Pane) {
    let (visible, sel) = if pane == Pane::Models {
        (&app.model_visible, app.model)
    } else {
        (&app.hw_visible, app.hw)
    };
    if !visible.contains(&sel)
        && let Some(&first) = visible.first()
    {
        if pane == Pane::Models {
            app.model = first;
        } else {
            app.hw = first;
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
    let i = k.step(&app.inputs(), up, &app.choices);
    let v = k.value(&i);
    app.set_inputs(i);
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
                Command::Up | Command::PageUp => {
                    app.help_scroll = app.help_scroll.saturating_sub(1)
                }
                Command::Down | Command::PageDown => {
                    app.help_scroll = (app.help_scroll + 1).min(Command::ALL.len())
                }
                _ => {}
            }
            return;
        }
        Mode::Save => {
            match cmd {
                Command::Quit => app.quit = true,
                Command::Edit => {
                    app.mode = Mode::Normal;
                    let text = app.save_path.lines().first().cloned().unwrap_or_default();
                    let text = text.trim();
                    let path = if text.is_empty() {
                        DEFAULT_SCENARIO_PATH
                    } else {
                        text
                    };
                    match app.to_scenario().save(Path::new(path)) {
                        Ok(()) => app.say(Level::Info, format!("scenario saved to {path}")),
                        Err(e) => app.say(Level::Error, format!("not saved: {path}: {e}")),
                    }
                }
                Command::Cancel => {
                    app.mode = Mode::Normal;
                    app.say(Level::Info, "save cancelled");
                }
                _ => {}
            }
            return;
        }
        Mode::Normal => {}
    }
    match cmd {
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
        | Command::View6 => {
            let n = cmd.view_number().unwrap_or(1);
            let v = View::ALL[(n - 1).min(5)];
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
        Command::Save => {
            app.mode = Mode::Save;
            app.in_bar = false;
            app.bar_view = false;
            let mut t = filter_box(DEFAULT_SCENARIO_PATH);
            t.select_all();
            style_entry(&mut t, app.theme());
            app.save_path = t;
        }
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
            let theme = app.theme().clone();
            if app.focus == Pane::Models {
                style_entry(&mut app.model_filter, &theme);
            } else {
                style_entry(&mut app.hw_filter, &theme);
            }
        }
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
            if app.in_bar {
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
                // Nothing to cancel: dismiss the start-up notices.
                app.notices.clear();
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
fn style_entry(t: &mut TextArea<'static>, theme: &Theme) {
    t.set_style(theme.base());
    t.set_cursor_style(Style::new().add_modifier(Modifier::REVERSED));
    t.set_selection_style(theme.selected());
    t.set_cursor_line_style(Style::new());
}
