//! The status line: the headline result (latency, tokens/s, bottleneck, fit),
//! the solver's explanation, and messages (errors first).

use crate::solver::units;
use crate::tui::action::Command;
use crate::tui::app::{App, Level, Mode};
use crate::words::Words;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let t = app.theme();
    let wide = area.width >= 120;
    let mut lines = Vec::new();
    match app.shown() {
        Some((an, stale)) => {
            let e = an.eval();
            let mut head = Vec::new();
            if stale {
                head.push(Span::styled(" LAST VALID ", t.stale()));
                head.push(Span::raw(" "));
            }
            let hw = &app.catalog.hardware[an.hw].hw.id;
            let model = &app.catalog.models[an.model].model.id;
            let on = if wide { " on " } else { " · " };
            head.push(Span::styled(
                format!(" {model}{on}{hw}"),
                Style::new().fg(t.title),
            ));
            if an.workload.tp * an.workload.pp > 1 {
                head.push(Span::styled(
                    format!(" x{}", an.workload.tp * an.workload.pp),
                    Style::new().fg(t.title),
                ));
            }
            head.push(Span::styled(" │ ", t.dim()));
            head.push(Span::styled(units::format_time(e.latency_s), t.accent()));
            head.push(Span::styled(" │ ", t.dim()));
            head.push(Span::styled(
                format!(
                    "{} {}",
                    units::format_count(e.tokens_per_s),
                    Words::for_model(&app.catalog.models[an.model]).rate_short()
                ),
                t.accent(),
            ));
            head.push(Span::styled(" │ ", t.dim()));
            head.push(Span::styled(
                format!("{}-bound", e.bottleneck.name()),
                Style::new().fg(t.fg),
            ));
            head.push(Span::styled(" │ ", t.dim()));
            if !wide {
                head.push(if e.memory.fits {
                    Span::styled("fits", t.ok())
                } else {
                    match e.min_devices {
                        Some(p) => {
                            Span::styled(format!("NO FIT: needs {}", p.devices()), t.error())
                        }
                        None => Span::styled("NO FIT", t.error()),
                    }
                });
            } else if e.memory.fits {
                head.push(Span::styled(
                    format!(
                        "fits {} of {}",
                        units::format_bytes(e.memory.footprint.total()),
                        units::format_bytes(e.memory.usable_bytes)
                    ),
                    t.ok(),
                ));
            } else {
                let need = match e.min_devices {
                    Some(p) => format!("needs {} devices (TP {} x PP {})", p.devices(), p.tp, p.pp),
                    None => "no layout up to 4096 devices holds it".to_string(),
                };
                head.push(Span::styled(
                    format!(
                        "DOES NOT FIT: {} > {}; {need}",
                        units::format_bytes(e.memory.footprint.total()),
                        units::format_bytes(e.memory.usable_bytes)
                    ),
                    t.error(),
                ));
            }
            if let Some(view_head) = view_headline(app) {
                // The view's answer first, the shared selection's below it.
                lines.push(view_head);
                lines.push(Line::from(head));
                lines.push(message_line(app).unwrap_or_else(|| hint_line(app)));
                super::lines(frame.buffer_mut(), area, &lines);
                return;
            }
            lines.push(Line::from(head));
            let mut why = format!(" {}", e.explanation());
            for n in &e.notes {
                why.push_str(&format!("; {n}"));
            }
            let message = message_line(app);
            if !wide && message.is_none() {
                // Room for the whole explanation on two lines.
                lines.push(Line::from(Span::styled(why, Style::new().fg(t.fg))));
                super::lines(frame.buffer_mut(), area, &lines[..1]);
                lines.remove(0);
                let rest = Rect {
                    y: area.y + 1,
                    height: area.height.saturating_sub(1),
                    ..area
                };
                frame.render_widget(
                    Paragraph::new(lines)
                        .style(t.base())
                        .wrap(Wrap { trim: false }),
                    rest,
                );
                return;
            }
            lines.push(Line::from(Span::styled(why, Style::new().fg(t.fg))));
        }
        None => {
            lines.push(Line::from(Span::styled(" no result", t.error())));
            lines.push(Line::from(""));
        }
    }
    lines.push(message_line(app).unwrap_or_else(|| hint_line(app)));
    super::lines(frame.buffer_mut(), area, &lines);
}

/// The headline of a view other than the roofline: its answer in one line.
fn view_headline<'a>(app: &App) -> Option<Line<'a>> {
    use crate::tui::views::ViewData;
    let t = app.theme();
    let (d, stale) = app.shown_view()?;
    let sep = || Span::styled(" │ ", t.dim());
    let mut v = Vec::new();
    if stale {
        v.push(Span::styled(" LAST VALID ", t.stale()));
    }
    let title = Style::new().fg(t.title);
    match d {
        ViewData::Roofline => return None,
        ViewData::Serving(s) => {
            let sv = &s.serving;
            v.push(Span::styled(" serving", title));
            v.push(sep());
            v.push(Span::styled(
                format!("TTFT {}", units::format_time(sv.ttft_s)),
                t.accent(),
            ));
            v.push(sep());
            v.push(Span::styled(
                format!("ITL {}", units::format_time(sv.itl_s)),
                t.accent(),
            ));
            v.push(sep());
            v.push(Span::styled(
                format!(
                    "{} tok/s per user",
                    units::format_count(sv.tokens_per_s_per_user)
                ),
                t.accent(),
            ));
            v.push(sep());
            v.push(if sv.fits {
                Span::styled(format!("up to {} sequences", sv.max_concurrent), t.ok())
            } else {
                Span::styled("DOES NOT FIT at full context", t.error())
            });
        }
        ViewData::Synthesis(s) => {
            v.push(Span::styled(format!(" target {}", s.target), title));
            v.push(sep());
            match (s.requirement.feasible, s.matches.first()) {
                (false, _) => v.push(Span::styled("infeasible", t.error())),
                (true, None) => v.push(Span::styled("no catalog device meets it", t.warn())),
                (true, Some(m)) => {
                    v.push(Span::styled(
                        format!("{} layouts meet it", s.matches.len()),
                        t.ok(),
                    ));
                    v.push(sep());
                    v.push(Span::styled(
                        format!(
                            "cheapest {} x{} {}/h",
                            m.hardware_id,
                            m.devices(),
                            super::serving::usd(m.cost_per_hour_usd)
                        ),
                        t.accent(),
                    ));
                }
            }
        }
        ViewData::Sweep(s) => {
            v.push(Span::styled(" sweep", title));
            v.push(sep());
            if let Some((x, e)) = s
                .points
                .iter()
                .max_by(|a, b| a.1.tokens_per_s.total_cmp(&b.1.tokens_per_s))
            {
                v.push(Span::styled(
                    format!(
                        "most {} {} at {}",
                        units::format_count(e.tokens_per_s),
                        Words::for_model(&app.catalog.models[app.model]).rate_short(),
                        units::format_count(*x)
                    ),
                    t.accent(),
                ));
                v.push(sep());
            }
            v.push(Span::styled(
                match s.crossover {
                    Some(c) => format!("crossover at batch {}", units::format_number(c)),
                    None => "no crossover".to_string(),
                },
                Style::new().fg(t.fg),
            ));
        }
        ViewData::Generations(g) => {
            v.push(Span::styled(format!(" {}", g.label), title));
            v.push(sep());
            v.push(Span::styled(
                format!("{} devices", g.analysis.compare.len()),
                t.accent(),
            ));
            v.push(sep());
            v.push(Span::styled(
                super::generations::verdict(app, &g.analysis)
                    .trim()
                    .to_string(),
                Style::new().fg(t.fg),
            ));
        }
        ViewData::Fleet(f) => match &f.plan.best {
            None => {
                v.push(Span::styled(" fleet", title));
                v.push(sep());
                v.push(Span::styled("no configuration meets the SLAs", t.error()));
            }
            Some(o) => {
                v.push(Span::styled(
                    format!(
                        " {} TP {} x {} replicas = {} devices",
                        o.hardware_id, o.layout.tp, o.replicas, o.devices
                    ),
                    title,
                ));
                v.push(sep());
                v.push(Span::styled(
                    format!("{}/h", super::serving::usd(Some(o.cost_per_hour_usd))),
                    t.accent(),
                ));
                v.push(sep());
                v.push(match o.within_budget {
                    Some(true) => Span::styled("within budget", t.ok()),
                    Some(false) => Span::styled("OVER BUDGET", t.error()),
                    None => Span::styled("no budget", t.dim()),
                });
            }
        },
    }
    Some(Line::from(v))
}

/// The third line: why there is no result, else the last message, else a
/// hint (start-up problems have their own panel, panes/problems.rs).
fn message_line<'a>(app: &App) -> Option<Line<'a>> {
    let t = app.theme();
    if let Err(e) = &app.current {
        return Some(Line::from(Span::styled(format!(" error: {e}"), t.error())));
    }
    if app.mode == Mode::Save && app.message.is_none() {
        return Some(hint_line(app));
    }
    if let Err(e) = &app.view_data {
        return Some(Line::from(Span::styled(
            format!(" {}: {e}", app.view.title()),
            t.error(),
        )));
    }
    if let Some(edit) = &app.edit
        && let Some(e) = &edit.error
    {
        return Some(Line::from(Span::styled(
            format!(" {}: {e}", edit.knob.label()),
            t.error(),
        )));
    }
    if let Some((level, text)) = &app.message {
        let style = match level {
            Level::Info => Style::new().fg(t.fg),
            Level::Warn => t.warn(),
            Level::Error => t.error(),
        };
        return Some(Line::from(Span::styled(format!(" {text}"), style)));
    }
    if app.mode != Mode::Normal {
        return Some(hint_line(app));
    }
    None
}

/// Keys worth knowing in the current mode.
fn hint_line<'a>(app: &App) -> Line<'a> {
    let t = app.theme();
    let k = |c| app.keymap.first_key(c);
    let hint = match app.mode {
        Mode::Filter(_) => " type to filter · up/down move · Enter keep · Esc clear".to_string(),
        Mode::Edit => " Enter apply · Esc cancel".to_string(),
        Mode::Save if app.session.confirm.is_some() => {
            " y overwrite · n change the path · Esc cancel".to_string()
        }
        Mode::Save => " type a path · Enter save · Esc cancel".to_string(),
        _ => format!(
            " {} help · 1-6 views · {} filter · {} mark · {} edit · {} save · {} quit",
            k(Command::Help),
            k(Command::Filter),
            k(Command::Mark),
            k(Command::Edit),
            k(Command::Save),
            k(Command::Quit)
        ),
    };
    Line::from(Span::styled(hint, t.dim()))
}

/// The save entry: a path for the scenario file, over the status line.
pub fn render_save(app: &App, frame: &mut Frame, screen: Rect) {
    use ratatui::widgets::{Block, Borders, Clear};
    let t = app.theme();
    let confirm = app.session.confirm.as_ref();
    let width = 64u16.min(screen.width);
    let r = Rect::new(
        screen.x,
        screen.bottom().saturating_sub(6),
        width,
        3.min(screen.height),
    );
    frame.render_widget(Clear, r);
    let b = Block::new()
        .borders(Borders::ALL)
        .border_style(t.border(true))
        .style(t.base())
        .title(Line::from(Span::styled(
            if confirm.is_some() {
                " overwrite? "
            } else {
                " save scenario to "
            },
            t.title(true),
        )))
        .title_bottom(Line::from(Span::styled(
            if confirm.is_some() {
                " y overwrite · n change the path · Esc cancel "
            } else {
                " Enter save · Esc cancel "
            },
            t.dim(),
        )));
    let inner = b.inner(r);
    frame.render_widget(b, r);
    match confirm {
        Some(path) => {
            // The end of the path is the part that tells files apart.
            let tail = ": it exists; overwrite it? y/n";
            let room = (inner.width as usize).saturating_sub(tail.chars().count());
            let p = path.display().to_string();
            let n = p.chars().count();
            let shown = if n <= room {
                p
            } else {
                let keep: String = p.chars().skip(n + 3 - room.max(3)).collect();
                format!("...{keep}")
            };
            frame.render_widget(
                Line::from(Span::styled(format!("{shown}{tail}"), t.warn())),
                inner,
            );
        }
        None => frame.render_widget(&app.save_path, inner),
    }
}
