//! `ridgeline lesson`: list, show and check lessons (src/lesson): scripted
//! tutorials whose captions the solver fills in and whose expectations it
//! is held to.

use super::output::{Style, markdown, wrap};
use super::{CliError, Out, write};
use crate::catalog::Catalog;
use crate::lesson::{self, Lesson};
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct LessonArgs {
    #[command(subcommand)]
    pub action: Option<LessonAction>,
    /// Give a lesson in the workbench (presenter mode): a lesson file
    /// (TOML), or a built-in lesson's name. Its steps drive the workbench;
    /// pagedown or ] steps on, pageup or [ back, a reveals the answer, esc
    /// leaves the script with the state kept (] returns to it).
    #[arg(value_name = "FILE|NAME")]
    pub lesson: Option<String>,
}

impl LessonArgs {
    /// The lesson to give in the workbench: named with no subcommand.
    pub fn presented(&self) -> Option<&str> {
        match (&self.action, &self.lesson) {
            (None, Some(l)) => Some(l),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Subcommand)]
pub enum LessonAction {
    /// The built-in lessons: name, title, steps and what each reproduces.
    List,
    /// Print each step: its number, its caption with the figures filled
    /// in, its question and answer.
    Show {
        /// A lesson file (TOML), or a built-in lesson's name.
        #[arg(value_name = "FILE|NAME")]
        lesson: String,
    },
    /// Run every step and check every expectation; exit 1 with the list of
    /// those that fail, 2 when the file has a problem.
    Check {
        /// A lesson file (TOML), or a built-in lesson's name.
        #[arg(value_name = "FILE|NAME")]
        lesson: String,
    },
    /// Write a handout: a new directory holding handout.md, every step's
    /// caption filled in, its question and answer, and a table of its
    /// figures and expectations.
    Export {
        /// A lesson file (TOML), or a built-in lesson's name.
        #[arg(value_name = "FILE|NAME")]
        lesson: String,
        /// The directory to create (it must not exist: nothing is
        /// overwritten).
        #[arg(long, short = 'o', value_name = "DIR")]
        out: PathBuf,
    },
}

/// The figures every step's table shows, before those it expects.
const TABLE: [&str; 10] = [
    "hardware",
    "model",
    "latency",
    "tokens_per_s",
    "binding",
    "intensity",
    "ridge",
    "memory",
    "usable",
    "fits",
];

pub(super) fn lesson(
    cat: &Catalog,
    a: &LessonArgs,
    style: Style,
    out: Out,
) -> Result<(), CliError> {
    let Some(action) = &a.action else {
        // `ridgeline lesson NAME` opens the workbench (main.rs); here only
        // when there is no name.
        return Err(CliError::Input(match &a.lesson {
            Some(l) => format!(
                "lesson {l}: giving a lesson needs the workbench; run `ridgeline lesson {l}` in a terminal"
            ),
            None => format!(
                "name a lesson to give it in the workbench (`ridgeline lesson knobs`), or a subcommand: list, show, check, export; the built-in lessons are: {}",
                lesson::names().join(", ")
            ),
        }));
    };
    match action {
        LessonAction::List => list(cat, style, out),
        LessonAction::Show { lesson } => show(cat, &open(cat, lesson)?, style, out),
        LessonAction::Check { lesson } => check(cat, &open(cat, lesson)?, style, out),
        LessonAction::Export { lesson, out: dir } => {
            export(cat, &open(cat, lesson)?, dir, style, out)
        }
    }
}

fn open(cat: &Catalog, name: &str) -> Result<Lesson, CliError> {
    Lesson::open(name, cat).map_err(|e| CliError::Input(e.to_string()))
}

fn list(cat: &Catalog, style: Style, out: Out) -> Result<(), CliError> {
    let mut s = String::new();
    for (name, _) in lesson::BUILT_IN {
        let l = open(cat, name)?;
        s.push_str(&wrap(
            &format!(
                "{name}: {} ({} steps)\n  reproduces {}\n",
                l.title,
                l.steps.len(),
                l.reproduces
            ),
            style.width,
        ));
    }
    s.push_str(&wrap(
        "\n`ridgeline lesson NAME` gives a lesson in the workbench; `ridgeline lesson show NAME` prints it; `ridgeline lesson check NAME` checks it.\n",
        style.width,
    ));
    write(out, &s)
}

fn show(cat: &Catalog, l: &Lesson, style: Style, out: Out) -> Result<(), CliError> {
    let w = style.width;
    let mut s = wrap(&format!("{}\n", l.title), w);
    s.push_str(&wrap(&format!("reproduces {}\n", l.reproduces), w));
    if let Some(d) = &l.description {
        s.push_str(&wrap(&format!("{d}\n"), w));
    }
    let n = l.steps.len();
    for i in 0..n {
        let shown = l.show(i, cat).map_err(|e| {
            CliError::Input(format!(
                "{}: step {}: its figures cannot be computed: {e}",
                l.file,
                i + 1
            ))
        })?;
        s.push('\n');
        s.push_str(&wrap(&format!("{}/{n} {}\n", i + 1, shown.caption), w));
        if let Some(q) = &shown.question {
            s.push_str(&wrap(&format!("  Q: {q}\n"), w));
        }
        if let Some(a) = &shown.answer {
            s.push_str(&wrap(&format!("  A: {a}\n"), w));
        }
    }
    write(out, &s)
}

fn check(cat: &Catalog, l: &Lesson, style: Style, out: Out) -> Result<(), CliError> {
    let (failures, checked) = l.check(cat);
    let steps = l.steps.len();
    if failures.is_empty() {
        let s = format!(
            "{}: {steps} steps, {checked} expectations, all hold\n",
            l.title
        );
        return write(out, &wrap(&s, style.width));
    }
    let mut s = String::new();
    for f in &failures {
        s.push_str(&wrap(
            &format!(
                "{}:{}:{}: step {}: {}\n",
                crate::catalog::fields::printable(&l.file),
                f.line,
                f.column,
                f.step,
                f.message
            ),
            style.width,
        ));
    }
    write(out, &s)?;
    Err(CliError::Check(format!(
        "{}: {} problems (listed above); {checked} expectations checked",
        l.title,
        failures.len()
    )))
}

/// The handout of a lesson, in Markdown.
fn handout(
    cat: &Catalog,
    l: &Lesson,
    plots: &[Option<(String, String)>],
) -> Result<String, CliError> {
    let mut s = format!("# {}\n\nReproduces {}.\n", l.title, l.reproduces);
    if let Some(d) = &l.description {
        s.push_str(&format!("\n{d}\n"));
    }
    let n = l.steps.len();
    for (i, step) in l.steps.iter().enumerate() {
        let shown = l.show(i, cat).map_err(|e| {
            CliError::Input(format!(
                "{}: step {}: its figures cannot be computed: {e}",
                l.file,
                i + 1
            ))
        })?;
        s.push_str(&format!(
            "\n## Step {} of {n}\n\n{}\n",
            i + 1,
            shown.caption
        ));
        if let Some(q) = &shown.question {
            s.push_str(&format!("\n**Question.** {q}\n"));
        }
        if let Some(a) = &shown.answer {
            s.push_str(&format!("\n**Answer.** {a}\n"));
        }
        let mut names: Vec<&str> = TABLE.to_vec();
        for x in &step.expect {
            if !names.contains(&x.figure) {
                names.push(x.figure);
            }
        }
        let rows: Vec<Vec<String>> = names
            .iter()
            .filter_map(|name| {
                let f = shown.figures.get(name)?;
                let expected = step
                    .expect
                    .iter()
                    .filter(|x| x.figure == *name)
                    .map(|x| {
                        let verdict = if x.want.holds(&f.value) {
                            "holds"
                        } else {
                            "DOES NOT HOLD"
                        };
                        format!("{} = {}: {verdict}", x.key, x.want.text())
                    })
                    .collect::<Vec<_>>()
                    .join("; ");
                Some(vec![name.to_string(), f.shown.clone(), expected])
            })
            .collect();
        let headers = ["figure", "value", "expected"].map(String::from);
        s.push('\n');
        s.push_str(&markdown(&headers, &rows, &[false, true, false]));
        if let Some(Some((file, _))) = plots.get(i) {
            s.push_str(&format!("\n![Step {} of {n}: the plot]({file})\n", i + 1));
        }
    }
    Ok(s)
}

/// Each step's plot, as the workbench's `X` would export it from the
/// step's state (`export::commands`): (file name, SVG), or None for a
/// step whose view has no plot.
fn step_plots(cat: &Catalog, l: &Lesson) -> Result<Vec<Option<(String, String)>>, CliError> {
    l.steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let plot = match crate::export::commands(cat, &step.state, None) {
                Ok(c) => c.plot,
                // A view without a command line has no plot to take away.
                Err(_) => None,
            };
            let Some(args) = plot else { return Ok(None) };
            let mut args = args;
            args.extend(["-o".to_string(), "-".to_string()]);
            let fig = super::plot::figure_of(cat, &args).map_err(|e| {
                CliError::Input(format!(
                    "{}: step {}: its plot cannot be drawn: {e}",
                    l.file,
                    i + 1
                ))
            })?;
            Ok(Some((format!("step-{}.svg", i + 1), fig.svg())))
        })
        .collect()
}

/// Create `dir` (it must not exist) and write the handout and each step's
/// plot into it atomically; on a failure the directory created is removed.
fn export(cat: &Catalog, l: &Lesson, dir: &Path, style: Style, out: Out) -> Result<(), CliError> {
    let plots = step_plots(cat, l)?;
    let text = handout(cat, l, &plots)?;
    let shown = crate::catalog::fields::printable(&dir.display().to_string()).into_owned();
    let mut files: Vec<(&str, &[u8])> = vec![("handout.md", text.as_bytes())];
    for (name, svg) in plots.iter().flatten() {
        files.push((name, svg.as_bytes()));
    }
    if let Err(e) = crate::fsutil::write_new_dir(dir, &files) {
        let why = if e.kind() == std::io::ErrorKind::AlreadyExists {
            "it exists: export writes a new directory, so that nothing is overwritten; choose another name".to_string()
        } else {
            format!("it cannot be written: {e}")
        };
        return Err(CliError::Input(format!("-o {shown}: {why}")));
    }
    write(
        out,
        &wrap(
            &format!(
                "wrote {shown}/handout.md: {}, {} steps, {} plots\n",
                l.title,
                l.steps.len(),
                plots.iter().flatten().count()
            ),
            style.width,
        ),
    )
}
