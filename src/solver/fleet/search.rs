//! The fleet search over everything a deployment chooses: device,
//! precision, serving mode (aggregated or disaggregated) and layouts, with
//! the load split over regions, each region sized for its own share.
//!
//! A design is a device, a precision, a mode and its layouts (one for an
//! aggregated replica; a prefill and a decode layout for a disaggregated
//! one). Every design is sized in every region at that region's request
//! rate (the fewest replicas that meet both SLAs under the utilization
//! ceiling); the design whose regions cost least in total wins.

use super::super::error::{self, Result, SolverError};
use super::super::fit;
use super::super::roofline;
use super::super::types::{Assumptions, Hardware, Model, Phase, Precisions, Workload};
use super::{
    FleetOption, FleetSpec, Mode, Pool, Pools, cheaper, evaluate_disaggregated, evaluate_option,
};

/// Which serving modes to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModeChoice {
    /// Both: the cheaper wins.
    Auto,
    Aggregated,
    Disaggregated,
}

impl ModeChoice {
    pub const ALL: [ModeChoice; 3] = [
        ModeChoice::Auto,
        ModeChoice::Aggregated,
        ModeChoice::Disaggregated,
    ];
    pub fn name(self) -> &'static str {
        match self {
            ModeChoice::Auto => "auto",
            ModeChoice::Aggregated => "aggregated",
            ModeChoice::Disaggregated => "disaggregated",
        }
    }
    pub fn parse(s: &str) -> Option<ModeChoice> {
        let s = s.trim().to_ascii_lowercase();
        ModeChoice::ALL.into_iter().find(|m| m.name() == s)
    }
    fn modes(self) -> &'static [Mode] {
        match self {
            ModeChoice::Auto => &[Mode::Aggregated, Mode::Disaggregated],
            ModeChoice::Aggregated => &[Mode::Aggregated],
            ModeChoice::Disaggregated => &[Mode::Disaggregated],
        }
    }
}

/// What the search ranges over beyond devices.
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    pub precisions: Vec<Precisions>,
    pub mode: ModeChoice,
    /// Each region's share of the load (summing to 1); one region when
    /// empty.
    pub shares: Vec<f64>,
}

/// The cheapest design, the whole fleet's figures, and each region's.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionalPlan {
    /// The cheapest design's whole fleet: every region's replicas, devices,
    /// cost and power added up; its latencies the worst region's.
    pub best: Option<FleetOption>,
    /// The best design in each region, in the order of the shares.
    pub regions: Vec<FleetOption>,
    /// The cheapest design per device, precision and mode (whole fleets),
    /// cheapest first.
    pub per_design: Vec<FleetOption>,
    pub unpriced: Vec<String>,
    pub reason: Option<String>,
}

/// Search `devices` x `search.precisions` x modes x layouts for the
/// cheapest fleet that meets both SLAs at `spec.qps`, split over regions.
pub fn search(
    devices: &[Hardware],
    model: &Model,
    search: &Search,
    spec: &FleetSpec,
    a: &Assumptions,
    idle_share: f64,
) -> Result<RegionalPlan> {
    roofline::validate_model(model)?;
    roofline::validate_assumptions(a)?;
    super::validate_spec(spec)?;
    error::unit_interval("idle share", idle_share)?;
    if !model.kind.is_decoder() {
        return Err(SolverError::Unsupported(format!(
            "{} is a single-pass model: fleet sizing is for decoders",
            model.id
        )));
    }
    if search.precisions.is_empty() {
        return Err(SolverError::Unsupported(
            "name at least one precision to search".into(),
        ));
    }
    let shares = if search.shares.is_empty() {
        vec![1.0]
    } else {
        search.shares.clone()
    };
    let total: f64 = shares.iter().sum();
    if shares.iter().any(|s| !(s.is_finite() && *s > 0.0)) || (total - 1.0).abs() > 1e-6 {
        return Err(SolverError::Unsupported(format!(
            "region shares {shares:?} must each be above 0 and add up to 1"
        )));
    }
    let specs: Vec<FleetSpec> = shares
        .iter()
        .map(|s| FleetSpec {
            qps: spec.qps * s,
            budget_usd_per_year: None,
            ..*spec
        })
        .collect();
    let mut per_design: Vec<(FleetOption, Vec<FleetOption>)> = Vec::new();
    let mut unpriced = Vec::new();
    for (i, hw) in devices.iter().enumerate() {
        if roofline::validate_hardware(hw).is_err() {
            continue;
        }
        if hw.price_per_hour_usd.is_none() {
            unpriced.push(hw.id.clone());
            continue;
        }
        for p in &search.precisions {
            if hw.peaks.resolve(p.activations).is_none() {
                continue;
            }
            for &mode in search.mode.modes() {
                // A design sized in every region (regions with the same
                // share have the same sizing: each distinct rate once).
                let sized = |pre: &Workload, dec: &Workload| -> Option<Sized> {
                    let mut parts: Vec<FleetOption> = Vec::with_capacity(specs.len());
                    for (k, s) in specs.iter().enumerate() {
                        let o = match specs[..k].iter().position(|x| x == s) {
                            Some(j) => Some(parts[j].clone()),
                            None => size(i, hw, model, pre, dec, mode, s, a, idle_share),
                        };
                        parts.push(o?);
                    }
                    Some((combine(&parts, spec), parts))
                };
                let mut best: Option<Sized> = None;
                let (pres, decs) = layouts(hw, model, p, spec, a);
                match mode {
                    Mode::Aggregated => {
                        for d in &decs {
                            keep(&mut best, sized(d, d));
                        }
                    }
                    // The pools are sized apart (the prefill layout sets
                    // TTFT and the prefill replicas, the decode layout the
                    // ITL and the decode replicas) and their costs add, so
                    // the cheapest pair is the cheapest decode layout beside
                    // any prefill layout that works, then the cheapest
                    // prefill layout beside it: P + D sizings, not P x D.
                    Mode::Disaggregated => {
                        let mut with: Option<usize> = None;
                        for pre in &pres {
                            for (k, d) in decs.iter().enumerate() {
                                if keep(&mut best, sized(pre, d)) {
                                    with = Some(k);
                                }
                            }
                            if with.is_some() {
                                break;
                            }
                        }
                        if let Some(k) = with {
                            for pre in &pres {
                                keep(&mut best, sized(pre, &decs[k]));
                            }
                        }
                    }
                }
                per_design.extend(best);
            }
        }
    }
    per_design.sort_by(|(x, _), (y, _)| {
        x.cost_per_hour_usd
            .total_cmp(&y.cost_per_hour_usd)
            .then(x.itl_s.total_cmp(&y.itl_s))
    });
    let (best, regions) = match per_design.first() {
        Some((b, r)) => (Some(b.clone()), r.clone()),
        None => (None, Vec::new()),
    };
    let reason = best.is_none().then(|| {
        format!(
            "no priced device, precision and mode meets a {} s TTFT and a {} s inter-token SLA at {} requests/s; loosen an SLA, add a precision (int4, fp8) or devices",
            spec.ttft_sla_s, spec.itl_sla_s, spec.qps
        )
    });
    Ok(RegionalPlan {
        best,
        regions,
        per_design: per_design.into_iter().map(|(o, _)| o).collect(),
        unpriced,
        reason,
    })
}

/// The Pareto front of cost against TTFT among `options`: every option no
/// other is both cheaper (or as cheap) and faster to a first token (or as
/// fast) than, with one strictly better; cheapest first, so TTFT falls
/// down the list. Options that tie on both keep the first.
pub fn front(options: &[FleetOption]) -> Vec<FleetOption> {
    let mut v: Vec<&FleetOption> = options.iter().collect();
    v.sort_by(|x, y| {
        x.cost_per_hour_usd
            .total_cmp(&y.cost_per_hour_usd)
            .then(x.ttft_s.total_cmp(&y.ttft_s))
    });
    let mut out: Vec<FleetOption> = Vec::new();
    for o in v {
        // Sorted by cost: o is on the front when it is faster than every
        // option kept so far (all of them as cheap or cheaper).
        if out.last().is_none_or(|l| o.ttft_s < l.ttft_s) {
            out.push(o.clone());
        }
    }
    out
}

/// A design's whole fleet and its regions' parts.
type Sized = (FleetOption, Vec<FleetOption>);

/// Keep `c` when it is cheaper than the best so far; true when kept.
fn keep(best: &mut Option<Sized>, c: Option<Sized>) -> bool {
    match c {
        Some(c) if best.as_ref().is_none_or(|(b, _)| cheaper(&c.0, b)) => {
            *best = Some(c);
            true
        }
        _ => false,
    }
}

/// The layouts worth sizing for a device and precision: TP powers of two
/// inside a node that split the heads, each with the fewest pipeline
/// stages that hold what it must: one prompt for a prefill pool, a full
/// sequence for a replica or a decode pool. Returns (prefill, full).
fn layouts(
    hw: &Hardware,
    model: &Model,
    p: &Precisions,
    spec: &FleetSpec,
    a: &Assumptions,
) -> (Vec<Workload>, Vec<Workload>) {
    let req = spec.request;
    let base = p.apply(&Workload::default());
    let of = |phase: Phase, context: f64| -> Vec<Workload> {
        let mut v = Vec::new();
        let mut tp = 1;
        while tp <= fit::max_tp(hw, model) {
            let w = Workload {
                phase,
                batch: 1.0,
                context,
                tp,
                pp: 1,
                ..base
            };
            if fit::tp_splits(model, tp)
                && let Some(pp) = fit::fewest_stages(hw, model, &w, a, tp)
                && fit::linked(hw, model, tp, pp)
            {
                v.push(Workload { pp, ..w });
            }
            tp *= 2;
        }
        v
    };
    (
        of(Phase::Prefill, req.prompt),
        of(Phase::Decode, req.prompt + req.output),
    )
}

/// One design sized at one region's rate; None when it cannot meet the SLAs.
#[allow(clippy::too_many_arguments)]
fn size(
    device: usize,
    hw: &Hardware,
    model: &Model,
    pre: &Workload,
    dec: &Workload,
    mode: Mode,
    spec: &FleetSpec,
    a: &Assumptions,
    idle_share: f64,
) -> Option<FleetOption> {
    let o = match mode {
        Mode::Aggregated => evaluate_option(device, hw, model, dec, spec, a, idle_share, None),
        Mode::Disaggregated => {
            evaluate_disaggregated(device, hw, model, pre, dec, spec, a, idle_share)
        }
    };
    o.ok().flatten().filter(|o| super::meets(o, spec))
}

/// The whole fleet of one design from its regions' parts: replicas,
/// devices, cost, power and load added; latencies and utilization the
/// worst region's.
pub fn combine(parts: &[FleetOption], spec: &FleetSpec) -> FleetOption {
    let mut w = parts[0].clone();
    let sum = |f: fn(&FleetOption) -> f64| parts.iter().map(f).sum::<f64>();
    let max = |f: fn(&FleetOption) -> f64| parts.iter().map(f).fold(f64::MIN, f64::max);
    w.replicas = parts.iter().map(|p| p.replicas).sum();
    w.devices = parts.iter().map(|p| p.devices).sum();
    w.batch = parts.iter().map(|p| p.batch).max().unwrap_or(1);
    w.in_flight = max(|p| p.in_flight);
    w.ttft_s = max(|p| p.ttft_s);
    w.step_s = max(|p| p.step_s);
    w.itl_s = max(|p| p.itl_s);
    w.e2e_s = max(|p| p.e2e_s);
    w.utilization = max(|p| p.utilization);
    w.cost_per_hour_usd = sum(|p| p.cost_per_hour_usd);
    w.qps = sum(|p| p.qps);
    let tokens_per_s = w.qps * spec.request.output;
    w.cost_per_million_tokens_usd =
        super::economics::cost_per_million_tokens(w.cost_per_hour_usd, tokens_per_s)
            .unwrap_or(f64::INFINITY);
    w.power_w = parts.iter().map(|p| p.power_w).sum::<Option<f64>>();
    w.energy_per_token_j = w.power_w.map(|p| p / tokens_per_s);
    w.within_budget = spec.budget_usd_per_year.map(|b| w.cost_per_year_usd() <= b);
    w.pools = parts[0].pools.map(|first| {
        let add = |f: fn(&Pools) -> Pool| -> Pool {
            let ps: Vec<Pool> = parts
                .iter()
                .filter_map(|p| p.pools.map(|x| f(&x)))
                .collect();
            Pool {
                layout: f(&first).layout,
                replicas: ps.iter().map(|p| p.replicas).sum(),
                devices: ps.iter().map(|p| p.devices).sum(),
                utilization: ps.iter().map(|p| p.utilization).fold(0.0, f64::max),
            }
        };
        Pools {
            prefill: add(|p| p.prefill),
            decode: add(|p| p.decode),
        }
    });
    w
}

#[cfg(test)]
mod tests {
    use super::super::{DEFAULT_MAX_UTILIZATION, size_fleet};
    use super::*;
    use crate::solver::serving::Request;
    use crate::solver::tests::{a100, llama8, llama70, rel};
    use crate::solver::{Collective, Precision};

    fn spec(qps: f64) -> FleetSpec {
        FleetSpec {
            qps,
            request: Request {
                prompt: 2048.0,
                output: 256.0,
            },
            ttft_sla_s: 0.5,
            itl_sla_s: 0.05,
            budget_usd_per_year: None,
            max_utilization: DEFAULT_MAX_UTILIZATION,
        }
    }

    fn one(p: Precision, mode: ModeChoice) -> Search {
        Search {
            precisions: vec![Precisions::named(p)],
            mode,
            shares: Vec::new(),
        }
    }

    fn a() -> Assumptions {
        Assumptions {
            collective: Collective::Auto,
            ..Assumptions::default()
        }
    }

    #[test]
    fn one_precision_aggregated_in_one_region_is_the_plain_fleet() {
        let devices = vec![a100()];
        let s = spec(50.0);
        let plain = size_fleet(&devices, &llama8(), &Workload::default(), &s, &a(), 0.3)
            .unwrap()
            .best
            .unwrap();
        let r = search(
            &devices,
            &llama8(),
            &one(Precision::Bf16, ModeChoice::Aggregated),
            &s,
            &a(),
            0.3,
        )
        .unwrap();
        let best = r.best.unwrap();
        assert_eq!(best.cost_per_hour_usd, plain.cost_per_hour_usd);
        assert_eq!(best.replicas, plain.replicas);
        assert_eq!(best.mode, Mode::Aggregated);
        assert_eq!(r.regions.len(), 1);
    }

    #[test]
    fn more_choices_never_cost_more() {
        let devices = vec![a100()];
        let s = spec(200.0);
        let cost = |search: &Search| {
            super::search(&devices, &llama70(), search, &s, &a(), 0.3)
                .unwrap()
                .best
                .map_or(f64::INFINITY, |b| b.cost_per_hour_usd)
        };
        let bf16 = cost(&one(Precision::Bf16, ModeChoice::Aggregated));
        let all = Search {
            precisions: [Precision::Bf16, Precision::Fp8, Precision::Int4]
                .into_iter()
                .map(Precisions::named)
                .collect(),
            mode: ModeChoice::Aggregated,
            shares: Vec::new(),
        };
        assert!(cost(&all) <= bf16);
        let agg = cost(&one(Precision::Bf16, ModeChoice::Aggregated));
        let dis = cost(&one(Precision::Bf16, ModeChoice::Disaggregated));
        let auto = cost(&one(Precision::Bf16, ModeChoice::Auto));
        assert_eq!(auto, agg.min(dis));
        assert!(
            dis.is_finite(),
            "the A100 has a NIC: disaggregation is possible"
        );
    }

    #[test]
    fn each_region_is_sized_for_its_share_and_the_whole_adds_them_up() {
        let devices = vec![a100()];
        let s = spec(100.0);
        let search_two = Search {
            shares: vec![0.7, 0.3],
            ..one(Precision::Bf16, ModeChoice::Auto)
        };
        let r = search(&devices, &llama8(), &search_two, &s, &a(), 0.3).unwrap();
        let best = r.best.unwrap();
        assert_eq!(r.regions.len(), 2);
        assert!(rel(r.regions[0].qps, 70.0) < 1e-12 && rel(r.regions[1].qps, 30.0) < 1e-12);
        assert_eq!(best.replicas, r.regions[0].replicas + r.regions[1].replicas);
        assert_eq!(best.devices, r.regions[0].devices + r.regions[1].devices);
        assert!(
            rel(
                best.cost_per_hour_usd,
                r.regions[0].cost_per_hour_usd + r.regions[1].cost_per_hour_usd
            ) < 1e-12
        );
        // The busier region needs at least as many replicas.
        assert!(r.regions[0].replicas >= r.regions[1].replicas);
    }

    #[test]
    fn equal_shares_size_each_region_as_one_region_at_its_rate() {
        let devices = vec![a100()];
        let two = Search {
            shares: vec![0.5, 0.5],
            ..one(Precision::Bf16, ModeChoice::Auto)
        };
        let r = search(&devices, &llama8(), &two, &spec(100.0), &a(), 0.3).unwrap();
        let half = search(
            &devices,
            &llama8(),
            &one(Precision::Bf16, ModeChoice::Auto),
            &spec(50.0),
            &a(),
            0.3,
        )
        .unwrap();
        // Each region is the best single-region fleet at 50 requests/s.
        assert_eq!(r.regions[0], half.best.clone().unwrap());
        assert_eq!(r.regions[1], half.best.unwrap());
    }

    #[test]
    fn a_disaggregated_option_sizes_each_pool_on_its_own() {
        let s = spec(20.0);
        let wl = Workload::default();
        let o = evaluate_disaggregated(0, &a100(), &llama8(), &wl, &wl, &s, &a(), 0.3)
            .unwrap()
            .unwrap();
        let pools = o.pools.unwrap();
        // Prefill replicas: ceil(20 / (0.8 / prefill)); TTFT = prefill +
        // the 268 MB cache over 25 GB/s at 0.8 (13.4 ms) + 2 us.
        let prefill = o.ttft_s - (268_435_456.0 / 20e9 + 2e-6);
        assert_eq!(
            pools.prefill.replicas,
            (20.0 * prefill / 0.8 - 1e-9).ceil() as u64
        );
        // The decode batch is the largest whose step meets the 50 ms SLA.
        assert!(o.itl_s <= 0.05);
        assert_eq!(o.replicas, pools.prefill.replicas + pools.decode.replicas);
        assert_eq!(o.devices, pools.prefill.devices + pools.decode.devices);
        assert!(o.utilization <= 0.8 + 1e-12);
    }

    #[test]
    fn the_front_is_every_option_no_other_beats_on_cost_and_ttft() {
        let devices = vec![a100()];
        let all = Search {
            precisions: [Precision::Bf16, Precision::Fp8, Precision::Int4]
                .into_iter()
                .map(Precisions::named)
                .collect(),
            mode: ModeChoice::Auto,
            shares: Vec::new(),
        };
        let r = search(&devices, &llama8(), &all, &spec(100.0), &a(), 0.3).unwrap();
        let f = front(&r.per_design);
        assert!(!f.is_empty());
        // The cheapest option is always on the front.
        assert_eq!(f[0].cost_per_hour_usd, r.per_design[0].cost_per_hour_usd);
        let beats = |x: &FleetOption, y: &FleetOption| {
            x.cost_per_hour_usd <= y.cost_per_hour_usd
                && x.ttft_s <= y.ttft_s
                && (x.cost_per_hour_usd < y.cost_per_hour_usd || x.ttft_s < y.ttft_s)
        };
        for p in &f {
            assert!(!r.per_design.iter().any(|o| beats(o, p)), "{p:?} is beaten");
        }
        for o in &r.per_design {
            assert!(
                f.iter().any(|p| p == o || beats(p, o)),
                "{o:?} is neither on the front nor beaten by it"
            );
        }
        // Cheapest first, each faster than the one before.
        assert!(
            f.windows(2)
                .all(|w| w[1].cost_per_hour_usd >= w[0].cost_per_hour_usd
                    && w[1].ttft_s < w[0].ttft_s)
        );
    }

    #[test]
    fn the_separable_search_of_the_pools_finds_the_cheapest_pair() {
        // Every prefill layout beside every decode layout, sized directly,
        // against the search's two passes: the same cheapest cost.
        for (model, qps) in [(llama8(), 40.0), (llama70(), 300.0)] {
            let s = spec(qps);
            let p = Precisions::named(Precision::Bf16);
            let (pres, decs) = layouts(&a100(), &model, &p, &s, &a());
            let mut all = f64::INFINITY;
            for pre in &pres {
                for d in &decs {
                    if let Some(o) =
                        evaluate_disaggregated(0, &a100(), &model, pre, d, &s, &a(), 0.3)
                            .unwrap()
                            .filter(|o| super::super::meets(o, &s))
                    {
                        all = all.min(o.cost_per_hour_usd);
                    }
                }
            }
            let found = search(
                &[a100()],
                &model,
                &one(Precision::Bf16, ModeChoice::Disaggregated),
                &s,
                &a(),
                0.3,
            )
            .unwrap()
            .best
            .map_or(f64::INFINITY, |b| b.cost_per_hour_usd);
            assert!(all.is_finite(), "{}", model.id);
            assert_eq!(found, all, "{}", model.id);
        }
    }

    #[test]
    fn bad_searches_are_refused() {
        let devices = vec![a100()];
        let bad_shares = Search {
            shares: vec![0.5, 0.4],
            ..one(Precision::Bf16, ModeChoice::Auto)
        };
        let e = search(&devices, &llama8(), &bad_shares, &spec(10.0), &a(), 0.3).unwrap_err();
        assert!(e.to_string().contains("add up to 1"), "{e}");
        let none = Search {
            precisions: Vec::new(),
            ..one(Precision::Bf16, ModeChoice::Auto)
        };
        assert!(search(&devices, &llama8(), &none, &spec(10.0), &a(), 0.3).is_err());
    }
}
