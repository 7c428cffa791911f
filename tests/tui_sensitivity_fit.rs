//! The Sensitivity pane is of the configuration that runs (issue 18, 1):
//! where the selection does not fit, its elasticities are those on the
//! fewest devices that hold it, the same configuration the plot and the
//! status line show, and its title says so; where nothing holds it, it
//! shows no elasticities.

mod common;

use common::{hw, model, screen};
use ridgeline::solver::{self, Workload, units};
use ridgeline::tui::panes::headline;
use ridgeline::tui::{App, Pane};

fn on(hw_id: &str, model_id: &str) -> App {
    let mut a = common::app();
    a.hw = hw(&a, hw_id);
    a.model = model(&a, model_id);
    a.recompute();
    a
}

#[test]
fn seventy_b_on_one_a100_shows_the_elasticities_of_two_labelled() {
    let a = on("a100-sxm-80gb", "llama-3.1-70b");
    let an = a.current.as_ref().unwrap();
    // bf16: 70.55e9 params x 2 B = 141.1 GB of weights against 80 GB x 0.9
    // = 72 GB usable: it does not fit on one. On TP 2 each device holds
    // 70.55 GB of weights and half the 1.34 GB of KV, 71.2 GB: it fits.
    assert!(!an.sens.base.memory.fits);
    let run = an.running_sens().expect("two devices hold it");
    assert_eq!((run.base.parallelism.tp, run.base.parallelism.pp), (2, 1));
    assert!(run.base.memory.fits);
    // The same configuration the status line's headline gives figures for.
    let ans = headline::answer(&a).expect("the roofline answers on 2");
    assert_eq!((ans.workload.tp, ans.workload.pp), (2, 1));
    // Its elasticities are the solver's at TP 2, not the ones as asked.
    let entry = |i: usize| &a.catalog.hardware[i].hw;
    let at2 = solver::sensitivity(
        entry(a.hw),
        &a.catalog.models[a.model].model,
        &Workload {
            tp: 2,
            pp: 1,
            ..a.workload
        },
        &a.assumptions,
        ridgeline::tui::app::PERTURB,
    )
    .unwrap();
    assert_eq!(run, &at2);
    let bw = |s: &solver::Sensitivity| {
        s.rows
            .iter()
            .find(|r| r.param == solver::Param::MemoryBandwidth)
            .unwrap()
            .elasticity
    };
    let (shown, asked) = (
        units::format_number(bw(run)),
        units::format_number(bw(&an.sens)),
    );
    assert_ne!(shown, asked, "the two configurations differ here");
    let s = screen(&a, 160, 48);
    assert!(s.contains("Sensitivity on 2 x a100-sxm-80gb (TP 2)"), "{s}");
    let row = s
        .lines()
        .find(|l| l.contains("memory bandwidth  "))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(row.contains(&shown) && !row.contains(&asked), "{row}");
}

#[test]
fn at_80x24_the_label_keeps_the_count_and_a_fitting_selection_has_none() {
    let mut a = on("a100-sxm-80gb", "llama-3.1-70b");
    a.focus = Pane::Sensitivity;
    let s = screen(&a, 80, 24);
    let title = s.lines().find(|l| l.contains("┌ Sensitivity")).unwrap();
    assert!(title.contains("Sensitivity on 2"), "{s}");

    // Llama 3.1 8B on an H100 fits as asked: no label, the table as asked.
    let mut a = on("h100-sxm", "llama-3.1-8b");
    a.focus = Pane::Sensitivity;
    let an = a.current.as_ref().unwrap();
    assert!(an.sens.base.memory.fits);
    assert_eq!(an.running_sens(), Some(&an.sens));
    let s = screen(&a, 80, 24);
    let title = s.lines().find(|l| l.contains("┌ Sensitivity")).unwrap();
    assert!(!title.contains(" on "), "{title}");
}

#[test]
fn where_nothing_holds_it_the_pane_shows_no_elasticities() {
    // Llama 3.1 405B in bf16 (812 GB of weights) on an RTX 4090: 24 GB x
    // 0.9 usable, and its figures give no link, so no layout holds it.
    let mut a = on("rtx-4090", "llama-3.1-405b");
    a.focus = Pane::Sensitivity;
    let an = a.current.as_ref().unwrap();
    assert!(an.running_sens().is_none());
    let s = screen(&a, 80, 24);
    assert!(s.contains("no layout holds it"), "{s}");
    assert!(!s.contains("memory bandwidth "), "{s}");
}
