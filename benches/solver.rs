//! Solver speed with the calibrated `default` profile: one decode
//! evaluation (one device, and eight with tensor parallelism), a full
//! sensitivity, synthesis with ranking over the whole catalog, a fleet
//! search, every shipped measurement predicted, and a sweep of one million
//! points. Figures and the machine they were measured on are in the README.

use criterion::{Criterion, criterion_group, criterion_main};
use ridgeline::catalog::Catalog;
use ridgeline::solver::{self, Assumptions, RankBy, Target, Workload};
use std::hint::black_box;
use std::time::Duration;

fn benches(c: &mut Criterion) {
    let cat = Catalog::builtin();
    let hw = cat.hardware("h100").unwrap().hw.clone();
    let model = cat.model("llama-3.1-8b").unwrap().model.clone();
    let m70 = cat.model("llama-3.1-70b").unwrap().model.clone();
    let wl = Workload::default();
    let a: Assumptions = cat.profile("default").unwrap().assumptions;
    let devices = cat.devices();

    c.bench_function("evaluate decode (llama-3.1-8b on h100)", |b| {
        b.iter(|| solver::evaluate(black_box(&hw), black_box(&model), black_box(&wl), &a).unwrap())
    });
    let tp8 = Workload { tp: 8, ..wl };
    c.bench_function("evaluate decode TP 8 (llama-3.1-70b on 8 h100)", |b| {
        b.iter(|| solver::evaluate(black_box(&hw), black_box(&m70), black_box(&tp8), &a).unwrap())
    });
    c.bench_function(
        "validate: every shipped measurement, each stack's profile",
        |b| b.iter(|| ridgeline::cli::validate::per_stack(black_box(&cat)).len()),
    );
    c.bench_function("sensitivity (8 parameters)", |b| {
        b.iter(|| {
            solver::sensitivity(black_box(&hw), black_box(&model), black_box(&wl), &a, 0.1).unwrap()
        })
    });
    let target = Target {
        latency_s: 0.05,
        min_tokens_per_s: None,
    };
    c.bench_function(
        "synthesis + ranking of the whole catalog (llama-3.1-70b, 50 ms)",
        |b| {
            b.iter(|| {
                let r = solver::synthesize(black_box(&m70), &wl, &a, &target, 0.1).unwrap();
                let m = solver::rank(black_box(&devices), &m70, &wl, &a, &target, RankBy::Cost)
                    .unwrap();
                (r, m)
            })
        },
    );
    let spec = ridgeline::solver::fleet::FleetSpec {
        qps: 1000.0,
        request: ridgeline::solver::serving::Request {
            prompt: 2048.0,
            output: 256.0,
        },
        ttft_sla_s: 0.1,
        itl_sla_s: 0.05,
        budget_usd_per_year: Some(5e6),
        max_utilization: 0.8,
    };
    c.bench_function(
        "fleet search over the whole catalog (llama-3.1-70b, 1000 qps)",
        |b| {
            b.iter(|| {
                ridgeline::solver::fleet::size_fleet(black_box(&devices), &m70, &wl, &spec, &a, 0.3)
                    .unwrap()
            })
        },
    );
    let search = ridgeline::solver::fleet::Search {
        precisions: solver::Precisions::parse_list("bf16,fp8,int4").unwrap(),
        mode: ridgeline::solver::fleet::ModeChoice::Auto,
        shares: vec![0.5, 0.5],
    };
    c.bench_function(
        "fleet::search over the whole catalog (llama-3.1-70b, 1000 qps, bf16/fp8/int4, auto, 2 regions)",
        |b| {
            b.iter(|| {
                ridgeline::solver::fleet::search(black_box(&devices), &m70, &search, &spec, &a, 0.3)
                    .unwrap()
            })
        },
    );
    training(c, &cat, &a);
    operators(c, &cat, &a);
    explore(c, &devices, &m70, &a);
    let mut g = c.benchmark_group("sweep");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function("one million evaluations (batch 1..=1e6)", |b| {
        b.iter(|| {
            let mut acc = 0.0;
            for batch in 1..=1_000_000u32 {
                let w = Workload {
                    batch: batch as f64,
                    ..wl
                };
                acc += solver::evaluate(&hw, &model, &w, &a).map_or(0.0, |e| e.tokens_per_s);
            }
            black_box(acc)
        })
    });
    g.finish();
}

/// Training: one evaluation (Llama 3.1 405B on 16,384 H100s as Llama 3
/// ran it), the same with its seven elasticities, and the layout search
/// over every layout of 16,384 devices.
fn training(c: &mut Criterion, cat: &Catalog, a: &Assumptions) {
    use ridgeline::solver::training::{self, Layout, Recompute, TrainingAssumptions, TrainingRun};
    let hw = cat.hardware("h100").unwrap().hw.clone();
    let model = cat.model("llama-3.1-405b").unwrap().model.clone();
    let t = TrainingAssumptions::default();
    let run = TrainingRun {
        global_batch_tokens: 16.0 * 1024.0 * 1024.0,
        seq: 8192.0,
        layout: Layout {
            dp: 128,
            tp: 8,
            pp: 16,
            v: 2,
            ..Layout::default()
        },
        zero: 1,
        recompute: Recompute::Selective,
        ..TrainingRun::default()
    };
    c.bench_function("training evaluation (llama-3.1-405b, 16384 h100)", |b| {
        b.iter(|| training::evaluate(black_box(&hw), black_box(&model), &run, a, &t).unwrap())
    });
    let tr = training::evaluate(&hw, &model, &run, a, &t).unwrap();
    let d = training::decoder(&model).unwrap();
    c.bench_function("training elasticities (7 knobs, 14 steps)", |b| {
        b.iter(|| {
            training::step::elasticities(black_box(&hw), d, &tr.params, &tr.flops, &run, a, &t)
                .unwrap()
        })
    });
    c.bench_function("training layout search (llama-3.1-405b, 16384 h100)", |b| {
        b.iter(|| training::search(black_box(&hw), &model, &run, 16384, a, &t, 10).unwrap())
    });
}

/// The operator breakdown of one step (every operator on its own
/// roofline, both step totals): a dense decoder, DeepSeek-V3 (MLA, MoE with
/// dense layers and shared experts) in prefill over eight devices with its
/// all-reduces, and ResNet-50 (its layer list when the catalog has one).
fn operators(c: &mut Criterion, cat: &Catalog, a: &Assumptions) {
    use ridgeline::solver::{Phase, ops};
    let hw = cat.hardware("h100").unwrap().hw.clone();
    for (id, wl) in [
        ("llama-3.1-8b", Workload::default()),
        (
            "deepseek-v3",
            Workload {
                phase: Phase::Prefill,
                batch: 4.0,
                context: 2048.0,
                tp: 8,
                ..Workload::default()
            },
        ),
        (
            "resnet-50",
            Workload {
                batch: 32.0,
                ..Workload::default()
            },
        ),
    ] {
        let model = cat.model(id).unwrap().model.clone();
        c.bench_function(&format!("operator breakdown ({id} on h100)"), |b| {
            b.iter(|| ops::breakdown(black_box(&hw), black_box(&model), &wl, a).unwrap())
        });
    }
}

/// Explore: 10^5 serving configurations of Llama 3.1 70B (every catalog
/// device x 3 precisions x TP 1-8 x PP 1-2 x batches x 2 prompts x 2
/// outputs, with as many batches as make at least 100,000) and the front on ITL
/// and cost.
fn explore(c: &mut Criterion, devices: &[solver::Hardware], m70: &solver::Model, a: &Assumptions) {
    use solver::Precision;
    use solver::explore::{Axes, Limits, Objective, Precisions};
    let mut axes = Axes {
        hardware: devices.to_vec(),
        precisions: [Precision::Bf16, Precision::Fp8, Precision::Int4]
            .into_iter()
            .map(Precisions::named)
            .collect(),
        tp: vec![1, 2, 4, 8],
        pp: vec![1, 2],
        batch: Vec::new(),
        prompt: vec![512.0, 2048.0],
        output: vec![128.0, 512.0],
    };
    let per_batch = axes.hardware.len() * 3 * 4 * 2 * 2 * 2;
    let batches = 100_000usize.div_ceil(per_batch);
    axes.batch = (1..=batches).map(|b| b as f64).collect();
    let n = axes.size();
    let objs = [Objective::Itl, Objective::Cost];
    let mut g = c.benchmark_group("explore");
    g.sample_size(10);
    g.bench_function(
        format!("{n} configurations and the front (llama-3.1-70b)"),
        |b| {
            b.iter(|| {
                solver::explore::explore(black_box(m70), &axes, &Limits::default(), &objs, a, 0.3)
                    .unwrap()
                    .front
                    .len()
            })
        },
    );
    // Streamed, as `explore --all` runs: each point handed over and
    // dropped, only the front kept.
    g.bench_function(
        format!("{n} configurations streamed, the front kept (llama-3.1-70b)"),
        |b| {
            b.iter(|| {
                let mut feasible = 0usize;
                let s = solver::explore::explore_each(
                    black_box(m70),
                    &axes,
                    &Limits::default(),
                    &objs,
                    a,
                    0.3,
                    |_, p| {
                        feasible += usize::from(p.figures.is_some());
                        std::ops::ControlFlow::Continue(())
                    },
                )
                .unwrap();
                (s.front.len(), feasible)
            })
        },
    );
    g.finish();
}

criterion_group!(solver_benches, benches);
criterion_main!(solver_benches);
