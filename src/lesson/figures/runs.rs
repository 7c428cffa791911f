//! The figures of a step beyond one step of the roofline: a serving
//! replica with its batching mode and disaggregated pools (`serve.*`,
//! `disagg.*`), and a training step with its whole run (`train.*`).

use super::{Figure, Value, joined, none, num, text};
use crate::catalog::Catalog;
use crate::scenario::Scenario;
use crate::solver::{self, Workload, units};

/// The names of the serving figures, in `DEFS` order.
pub(super) const SERVING: [&str; 10] = [
    "serve.ttft",
    "serve.itl",
    "serve.e2e",
    "serve.tokens_per_s",
    "serve.cost_per_mtok",
    "serve.tokens_per_step",
    "disagg.ttft",
    "disagg.itl",
    "disagg.transfer",
    "disagg.ratio",
];

/// One replica serving the state's `[serving]` request with its batching
/// mode (`solver::serving::serve`, or `solver::batching::continuous` under
/// continuous batching, as `ridgeline serve` and the Serving view), and
/// the same request on disaggregated prefill and decode pools of the same
/// device at the fleet's QPS (`solver::batching::disaggregated`). All
/// "none" for a model that is not a decoder; the pools "none" for a device
/// without a scale-out network.
pub(super) fn serving(
    catalog: &Catalog,
    s: &Scenario,
    hw: &solver::Hardware,
    model: &solver::Model,
    wl: &Workload,
    a: &solver::Assumptions,
) -> Result<Vec<Figure>, String> {
    use crate::solver::{batching, economics, serving};
    if !model.kind.is_decoder() {
        return Ok(SERVING.iter().map(|n| none(n)).collect());
    }
    let req = s.request().map_err(joined)?;
    let modes = s.serve_modes().map_err(joined)?;
    let err = |e: solver::SolverError| e.to_string();
    // A replica that does not fit runs nowhere as asked: as `ridgeline
    // serve` prints it, static batching's figures are those on the fewest
    // devices that hold it, and continuous batching has none.
    let asked = wl.tp * wl.pp;
    let running = if modes.continuous {
        let draft = match &modes.draft {
            Some(d) => Some(
                &catalog
                    .model(d)
                    .map_err(|e| format!("serving.draft: {e}"))?
                    .model,
            ),
            None => None,
        };
        let c =
            batching::continuous(hw, model, wl, &req, &modes.batching(draft), a).map_err(err)?;
        c.fits.then_some((
            (
                c.ttft_s,
                c.itl_s,
                c.e2e_s,
                c.tokens_per_s,
                c.tokens_per_step,
            ),
            asked,
        ))
    } else {
        let r = serving::serve(hw, model, wl, &req, a).map_err(err)?;
        let (r, devices) = if r.fits {
            (Some(r), asked)
        } else {
            match serving::at_fewest_devices(hw, model, wl, &req, a).map_err(err)? {
                Some((p, r)) => (Some(r), p.devices()),
                None => (None, asked),
            }
        };
        r.map(|r| {
            (
                (r.ttft_batch_s, r.itl_s, r.e2e_batch_s, r.tokens_per_s, 1.0),
                devices,
            )
        })
    };
    let ms = |name: &'static str, x: f64| num(name, x * 1e3, units::format_time(x));
    let mut f = match running {
        Some(((ttft, itl, e2e, rate, per_step), devices)) => {
            let e = economics::economics(hw, devices, rate, 1.0, economics::DEFAULT_IDLE_SHARE);
            vec![
                ms("serve.ttft", ttft),
                ms("serve.itl", itl),
                num("serve.e2e", e2e, units::format_time(e2e)),
                num("serve.tokens_per_s", rate, units::format_number(rate)),
                match e.cost_per_million_tokens_usd {
                    Some(x) => num("serve.cost_per_mtok", x, units::format_usd(x)),
                    None => none("serve.cost_per_mtok"),
                },
                num(
                    "serve.tokens_per_step",
                    per_step,
                    units::format_number(per_step),
                ),
            ]
        }
        None => SERVING[..6].iter().map(|n| none(n)).collect(),
    };
    let qps = s.fleet_inputs().map_err(joined)?.qps;
    match batching::disaggregated(hw, wl, hw, wl, model, &req, qps, true, a) {
        Ok(d) => f.extend([
            ms("disagg.ttft", d.ttft_s),
            ms("disagg.itl", d.itl_s),
            ms("disagg.transfer", d.transfer_s),
            num("disagg.ratio", d.ratio(), units::format_number(d.ratio())),
        ]),
        // A device without a scale-out network has no pools to send
        // between.
        Err(_) if hw.scaleout_bandwidth.is_none() => f.extend(SERVING[6..].iter().map(|n| none(n))),
        Err(e) => return Err(e.to_string()),
    }
    Ok(f)
}

/// The names of the training figures, in `DEFS` order.
pub(super) const TRAINING: [&str; 13] = [
    "train.step",
    "train.tokens_per_s",
    "train.binding",
    "train.mfu",
    "train.memory",
    "train.fits",
    "train.dp_comm",
    "train.tp_comm",
    "train.tp_comm_time",
    "train.bubble",
    "train.critical_tokens",
    "train.days",
    "train.goodput",
];

/// One training step of the state's `[training]` run at the weights'
/// precision (the Training view's step and run, `solver::training`); all
/// "none" for a model that is not a decoder. A layout the devices do not
/// split into is an error that says so.
pub(super) fn training(
    catalog: &Catalog,
    s: &Scenario,
    hw: &solver::Hardware,
    model: &solver::Model,
    precision: solver::Precision,
    a: &solver::Assumptions,
) -> Result<Vec<Figure>, String> {
    use solver::training::{self as tr, run};
    if tr::decoder(model).is_err() {
        return Ok(TRAINING.iter().map(|n| none(n)).collect());
    }
    // Training keys the section leaves out are its profile's, as the
    // workbench and `ridgeline train --profile` take them.
    let stack = catalog
        .profile(s.assumptions.profile_id())
        .map_or_else(|_| Default::default(), |p| p.training);
    let t = s.training_inputs_over(&stack).map_err(joined)?;
    let r = t
        .run(model, precision)
        .map_err(|e| format!("training: {e}"))?;
    let e = tr::evaluate(hw, model, &r, a, &t.assumptions).map_err(|e| e.to_string())?;
    let spec = run::RunSpec {
        tokens: t.tokens,
        idle_share: crate::solver::economics::DEFAULT_IDLE_SHARE,
        grid: None,
    };
    let rf = run::run_figures(hw, &e, &spec, &t.assumptions);
    let st = &e.step;
    let share = |x: f64| x / st.step_time_s;
    let pct = |name: &'static str, x: f64| num(name, x * 100.0, units::format_percent(x));
    let days = rf.time_to_train_s / 86_400.0;
    let figures = vec![
        num(
            "train.step",
            st.step_time_s,
            units::format_time(st.step_time_s),
        ),
        num(
            "train.tokens_per_s",
            st.tokens_per_s,
            units::format_number(st.tokens_per_s),
        ),
        text("train.binding", st.binding.name()),
        pct("train.mfu", st.mfu),
        num(
            "train.memory",
            e.memory.total() / 1e9,
            units::format_bytes(e.memory.total()),
        ),
        Figure {
            name: "train.fits",
            value: Value::Bool(e.memory.fits),
            shown: if e.memory.fits { "yes" } else { "no" }.into(),
        },
        pct("train.dp_comm", share(st.comm.dp.exposed_s)),
        pct("train.tp_comm", share(st.comm.tp.exposed_s)),
        num(
            "train.tp_comm_time",
            st.comm.tp.time_s * 1e3,
            units::format_time(st.comm.tp.time_s),
        ),
        pct("train.bubble", st.bubble_fraction),
        match e.critical_batch_tokens_per_device {
            Some(x) => num("train.critical_tokens", x, units::format_number(x)),
            None => none("train.critical_tokens"),
        },
        num("train.days", days, units::format_number(days)),
        pct("train.goodput", rf.goodput),
    ];
    // A step that does not fit does not run: only its memory and the
    // verdict are figures, as `ridgeline train` prints them.
    Ok(if e.memory.fits {
        figures
    } else {
        figures
            .into_iter()
            .map(|f| match f.name {
                "train.memory" | "train.fits" => f,
                name => none(name),
            })
            .collect()
    })
}
