//! `ridgeline collective`: one collective over a device's links, level by
//! level (inside the node on the scale-up link, across nodes on the
//! scale-out network), with its time and bus bandwidth.

use super::args::{AlgorithmArg, CollectiveArgs, Format, ProfileArgs};
use super::output::{Fmt, Style, col, render_list, render_record, wrap};
use super::{CliError, Out, write};
use crate::catalog::Catalog;
use crate::solver::collective::{
    Inside, Op, Span, algorithm_name, hierarchical, level_ops, resolve, torus,
};
use crate::solver::{Assumptions, Collective, Torus, units};
use serde_json::{Map, Value, json};

/// The profile's assumptions with `--assume` and `--link-eff` laid over.
pub(crate) fn link_assumptions(cat: &Catalog, p: &ProfileArgs) -> Result<Assumptions, CliError> {
    link_assumptions_on(cat, p, &[])
}

/// [`link_assumptions`] on `devices`: the values of their class where the
/// profile names it (see [`super::profile_on`]).
pub(crate) fn link_assumptions_on(
    cat: &Catalog,
    p: &ProfileArgs,
    devices: &[&crate::catalog::HardwareEntry],
) -> Result<Assumptions, CliError> {
    let mut a = super::profile_on(cat, &p.profile, &p.assume, devices)?.assumptions;
    if let Some(e) = p.link_eff {
        a.link_efficiency = e;
    }
    Ok(a)
}

pub fn collective(
    cat: &Catalog,
    args: &CollectiveArgs,
    style: Style,
    out: Out,
) -> Result<(), CliError> {
    let hw = &cat.hardware(&args.hardware)?.hw;
    super::no_training_keys(&args.profile.assume)?;
    let mut a = link_assumptions(cat, &args.profile)?;
    if let Some(alg) = args.algorithm {
        a.collective = match alg {
            AlgorithmArg::Ring => Collective::Ring,
            AlgorithmArg::Tree => Collective::Tree,
            AlgorithmArg::Auto => Collective::Auto,
        };
    }
    let (op, n) = (args.op, args.devices);
    if n < 2 {
        return Err(CliError::Input(
            "--devices: a collective needs 2 or more devices".into(),
        ));
    }
    let per_node = hw.devices_per_node.max(1);
    // A point-to-point send goes from the first rank to the last.
    let span = if op == Op::PointToPoint {
        Span::of(2, n - 1, per_node)
    } else {
        Span::of(n, 1, per_node)
    };
    // On a torus (TPU ICI) the job gets the smallest slice that holds it
    // and the group runs on that slice's axes, one link each way per
    // neighbour; elsewhere every port reaches any peer.
    let inside = match &hw.torus {
        Some(t) => {
            let slice = t.slice(n.min(per_node));
            let stride = if op == Op::PointToPoint { n - 1 } else { 1 };
            Inside::Torus(torus::place(&slice, span.inside, stride))
        }
        None => Inside::Switch,
    };
    let up = hw
        .torus
        .map(|t| t.link_bandwidth)
        .or(hw.link_bandwidth)
        .or(hw.scaleout_bandwidth);
    let across = hw.scaleout_bandwidth;
    let ops = level_ops(op, args.bytes, span);
    if ops[0].is_some() && up.is_none() {
        return Err(CliError::Input(format!(
            "--hardware {}: the catalog gives it no link between devices, so no collective can be modelled on it",
            hw.id
        )));
    }
    if ops[1].is_some() && across.is_none() {
        return Err(CliError::Input(format!(
            "--devices {n}: {} spans {per_node} devices per node and the catalog gives it no scale-out bandwidth; use at most {per_node} devices",
            hw.id
        )));
    }
    let (up_bw, out_bw) = (up.unwrap_or(1.0), across.unwrap_or(1.0));
    let levels = hierarchical(op, args.bytes, span, inside, up_bw, out_bw, &a);
    let time = levels.time(up_bw, out_bw, a.link_efficiency);
    let mut rows = Vec::new();
    let mut main: Option<(f64, &str)> = None;
    for (i, (name, cost, bw)) in [
        ("scale-up", levels.up, up_bw),
        ("scale-out", levels.out, out_bw),
    ]
    .into_iter()
    .enumerate()
    {
        let Some((lop, bytes, ranks)) = ops[i] else {
            continue;
        };
        let alg = match (i, inside) {
            (0, Inside::Torus(_)) if lop != Op::PointToPoint => "torus",
            _ => algorithm_name(lop, resolve(lop, bytes, ranks, bw, &a)),
        };
        let t = cost.time(bw, a.link_efficiency);
        if main.is_none_or(|(best, _)| t > best) {
            main = Some((t, alg));
        }
        let mut r = Map::new();
        r.insert("level".into(), json!(name));
        r.insert("ranks".into(), json!(ranks));
        r.insert("op".into(), json!(lop.name()));
        r.insert("algorithm".into(), json!(alg));
        r.insert("link_bandwidth_bytes_per_s".into(), json!(bw));
        if let (0, Inside::Torus(p)) = (i, inside) {
            r.insert("torus_axes".into(), json!(p.describe()));
        }
        r.insert("bytes_per_link".into(), json!(cost.link_bytes));
        r.insert("fixed_s".into(), json!(cost.fixed_s));
        r.insert("time_s".into(), json!(t));
        rows.push(r);
    }
    let algorithm = main.map_or("ring", |(_, alg)| alg);
    let algbw = args.bytes / time;
    let mut rec = Map::new();
    rec.insert("op".into(), json!(op.name()));
    rec.insert("bytes".into(), json!(args.bytes));
    rec.insert("devices".into(), json!(n));
    rec.insert("hardware".into(), json!(hw.id));
    rec.insert("devices_per_node".into(), json!(per_node));
    if let Some(t) = &hw.torus {
        rec.insert(
            "torus_slice".into(),
            json!(Torus::shape_of(&t.slice(n.min(per_node)).dims)),
        );
    }
    rec.insert("algorithm".into(), json!(algorithm));
    rec.insert("time_s".into(), json!(time));
    rec.insert("algorithm_bandwidth_bytes_per_s".into(), json!(algbw));
    rec.insert(
        "bus_bandwidth_bytes_per_s".into(),
        json!(algbw * op.bus_factor(if op == Op::PointToPoint { 2 } else { n })),
    );
    rec.insert("link_efficiency".into(), json!(a.link_efficiency));
    rec.insert(
        "levels".into(),
        Value::Array(rows.iter().cloned().map(Value::Object).collect()),
    );
    let fmt = args.profile.format;
    if fmt == Format::Json {
        return write(out, &render_record(&rec, &[], fmt));
    }
    const COLS: &[super::output::Col] = &[
        col("time", "time_s", Fmt::Time),
        col("algorithm (slowest level)", "algorithm", Fmt::Text),
        col(
            "algorithm bandwidth",
            "algorithm_bandwidth_bytes_per_s",
            Fmt::Bandwidth,
        ),
        col("bus bandwidth", "bus_bandwidth_bytes_per_s", Fmt::Bandwidth),
    ];
    const LEVELS: &[super::output::Col] = &[
        col("level", "level", Fmt::Text),
        col("ranks", "ranks", Fmt::Int),
        col("op", "op", Fmt::Text),
        col("algorithm", "algorithm", Fmt::Text),
        col("axes", "torus_axes", Fmt::Text).opt(2),
        col("link", "link_bandwidth_bytes_per_s", Fmt::Bandwidth),
        col("bytes/link", "bytes_per_link", Fmt::Bytes),
        col("fixed", "fixed_s", Fmt::Time).opt(1),
        col("time", "time_s", Fmt::Time),
    ];
    let mut text = String::new();
    if fmt == Format::Table || fmt == Format::Markdown {
        let joined = match &hw.torus {
            Some(t) => format!(
                "a {} slice of the {} ICI torus",
                Torus::shape_of(&t.slice(n.min(per_node)).dims),
                t.shape()
            ),
            None => format!("{per_node} per node"),
        };
        text.push_str(&wrap(
            &format!(
                "{} of {} over {n} {} ({joined}), link efficiency {}\n\n",
                op.name(),
                units::format_bytes(args.bytes),
                hw.name,
                units::format_number(a.link_efficiency)
            ),
            style.width,
        ));
    }
    text.push_str(&render_record(&rec, COLS, fmt));
    if fmt != Format::Csv {
        text.push('\n');
        text.push_str(&render_list(&rows, LEVELS, fmt, style));
        if op == Op::AllReduce && rows.len() == 2 {
            text.push_str(&wrap(
                "scale-up: a reduce-scatter before the scale-out all-reduce and an all-gather after it; its bytes and time are both.\n",
                style.width,
            ));
        }
    }
    write(out, &text)
}
