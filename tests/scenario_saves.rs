//! Saving the workbench (`s`) as a user would: the path typed, `~`, a y/n
//! before overwriting a file this session did not open, a symbolic link
//! written through and said so, permissions kept, and every value of the
//! state reading back equal (a property test over random valid states).

use proptest::prelude::*;
use ratatui_textarea::Key;
use ridgeline::catalog::profile;
use ridgeline::scenario::{ExploreHardware, ExploreInputs};
use ridgeline::scenario::{SynthTarget, written};
use ridgeline::solver::Precisions;
use ridgeline::solver::training::{
    Attention, CrossEntropy, GradPrecision, LowPrecisionStorage, MatmulCeiling, Modules, Optimizer,
    Recompute, TokensToTrain, TrainingAssumptions,
};
use ridgeline::solver::{Accumulate, Assumptions, Collective, Phase, Precision, Workload, fleet};
use ridgeline::tui::app::Level;
use ridgeline::tui::knobs::{Family, Knob, Profile, SweepAxis, TrainInputs, ViewInputs};
use ridgeline::tui::{App, Command, Mode, Pane, View};
use std::path::{Path, PathBuf};

mod common;
use common::{app, go, key, screen, typed};

/// A fresh directory, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "ridgeline-saves-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `s`, the path typed over the selected default, Enter.
fn save_as(a: &mut App, path: &str) {
    go(a, &[Command::Save]);
    typed(a, path);
    go(a, &[Command::Edit]);
}

fn message(a: &App) -> String {
    a.message.as_ref().map(|m| m.1.clone()).unwrap_or_default()
}

fn scenario_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/scenarios")
        .join(name)
}

/// The state a scenario holds.
#[derive(Debug, PartialEq)]
struct State {
    view: View,
    hw: usize,
    model: usize,
    marked: Vec<usize>,
    workload: Workload,
    /// The profile's id, and the assumptions over it.
    profile: String,
    assumptions: Assumptions,
    inputs: ViewInputs,
    title: Option<String>,
    description: Option<String>,
}

fn state(a: &App) -> State {
    State {
        view: a.view,
        hw: a.hw,
        model: a.model,
        marked: a.marked.clone(),
        workload: a.workload,
        profile: a.profile.id.clone(),
        assumptions: a.assumptions,
        inputs: a.view_inputs.clone(),
        title: a.session.title.clone(),
        description: a.session.description.clone(),
    }
}

#[test]
fn a_save_over_a_file_it_did_not_open_asks_first() {
    let d = Dir::new("ask");
    let other = d.0.join("other.toml");
    std::fs::write(&other, "someone else's notes\n").unwrap();
    let mut a = app();
    save_as(&mut a, other.to_str().unwrap());
    // Asked, nothing written.
    assert_eq!(a.mode, Mode::Save);
    assert_eq!(a.session.confirm.as_deref(), Some(other.as_path()));
    assert_eq!(a.message.as_ref().unwrap().0, Level::Warn);
    assert_eq!(
        std::fs::read_to_string(&other).unwrap(),
        "someone else's notes\n"
    );
    // At 80x24, the question and its keys are on screen whole.
    let s = screen(&a, 80, 24);
    assert!(
        s.contains("other.toml: it exists; overwrite it? y/n"),
        "{s}"
    );
    assert!(
        s.contains("y overwrite · n change the path · Esc cancel"),
        "{s}"
    );
    // Other keys and Enter do not answer.
    typed(&mut a, "x");
    go(&mut a, &[Command::Edit]);
    assert!(a.session.confirm.is_some());
    assert_eq!(
        std::fs::read_to_string(&other).unwrap(),
        "someone else's notes\n"
    );
    // n: back to the path, still nothing written.
    typed(&mut a, "n");
    assert_eq!((a.mode, a.session.confirm.is_none()), (Mode::Save, true));
    assert_eq!(a.save_path.lines()[0], other.to_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(&other).unwrap(),
        "someone else's notes\n"
    );
    // Esc while asked: cancelled, nothing written.
    go(&mut a, &[Command::Edit]);
    assert!(a.session.confirm.is_some());
    go(&mut a, &[Command::Cancel]);
    assert_eq!((a.mode, a.session.confirm.is_none()), (Mode::Normal, true));
    assert!(message(&a).contains("nothing written"));
    assert_eq!(
        std::fs::read_to_string(&other).unwrap(),
        "someone else's notes\n"
    );
    // y: written.
    save_as(&mut a, other.to_str().unwrap());
    typed(&mut a, "y");
    assert_eq!(a.mode, Mode::Normal);
    assert!(message(&a).contains("saved"), "{}", message(&a));
    assert!(
        std::fs::read_to_string(&other)
            .unwrap()
            .contains("[workload]")
    );
    // Saved this session: the next save over it does not ask.
    save_as(&mut a, other.to_str().unwrap());
    assert_eq!((a.mode, a.session.confirm.is_none()), (Mode::Normal, true));
    // A new file does not ask either.
    save_as(&mut a, d.0.join("new.toml").to_str().unwrap());
    assert_eq!(a.mode, Mode::Normal);
    assert!(d.0.join("new.toml").exists());
}

#[test]
fn a_file_opened_this_session_is_saved_over_without_asking() {
    let d = Dir::new("opened");
    let p = d.0.join("mine.toml");
    std::fs::copy(scenario_path("capstone-fleet.toml"), &p).unwrap();
    let mut a = app();
    a.open_scenario(&p).unwrap();
    save_as(&mut a, p.to_str().unwrap());
    assert_eq!(a.mode, Mode::Normal, "{}", message(&a));
    assert!(message(&a).contains("saved"));
    // Another name of the same file (`dir/./mine.toml`) is the same file.
    save_as(&mut a, d.0.join(".").join("mine.toml").to_str().unwrap());
    assert_eq!(a.mode, Mode::Normal);
}

#[test]
fn tilde_in_a_typed_path_is_the_home_directory() {
    let home = Dir::new("home");
    let mut a = app();
    a.session.home = Some(home.0.clone());
    save_as(&mut a, "~/run.toml");
    assert_eq!(a.mode, Mode::Normal, "{}", message(&a));
    assert!(home.0.join("run.toml").exists());
    assert!(message(&a).contains(&home.0.join("run.toml").display().to_string()));
    assert!(!Path::new("~").exists(), "no directory named ~ was made");
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_is_written_through_said_so_and_permissions_kept() {
    use std::os::unix::fs::PermissionsExt;
    let d = Dir::new("link");
    let real = d.0.join("real.toml");
    std::fs::write(&real, "old\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = d.0.join("link.toml");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let mut a = app();
    save_as(&mut a, link.to_str().unwrap());
    typed(&mut a, "y");
    let m = message(&a);
    assert!(
        m.contains("through the link") && m.contains("real.toml"),
        "{m}"
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&real)
            .unwrap()
            .contains("[workload]")
    );
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // No temporary file is left beside it.
    let mut names: Vec<_> = std::fs::read_dir(&d.0)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["link.toml", "real.toml"]);
}

#[test]
fn a_failed_save_keeps_the_entry_and_says_why() {
    let mut a = app();
    save_as(&mut a, "/proc/no/such/dir/x.toml");
    assert_eq!(a.mode, Mode::Save);
    assert_eq!(a.message.as_ref().unwrap().0, Level::Error);
    let s = screen(&a, 80, 24);
    assert!(s.contains("not saved: /proc/no/such/dir/x.toml"), "{s}");
    // A directory is not a file to overwrite: said at once, no question.
    go(&mut a, &[Command::Cancel]);
    let d = Dir::new("isdir");
    save_as(&mut a, d.0.to_str().unwrap());
    assert!(a.session.confirm.is_none());
    assert!(message(&a).contains("is a directory"), "{}", message(&a));
    go(&mut a, &[Command::Cancel]);
    assert_eq!(a.mode, Mode::Normal);
}

/// Type `text` into knob `k` of the view on screen.
fn set_knob(a: &mut App, k: Knob, text: &str) {
    a.focus = Pane::Knobs;
    a.in_bar = false;
    a.knob = a
        .knobs()
        .iter()
        .position(|x| *x == k)
        .expect("knob in view");
    go(a, &[Command::Edit]);
    for _ in 0..40 {
        key(a, Key::Backspace);
    }
    typed(a, text);
    go(a, &[Command::Edit]);
    assert_eq!(
        a.mode,
        Mode::Normal,
        "{k:?} {text}: {:?}",
        a.edit.as_ref().map(|e| &e.error)
    );
}

#[test]
fn typed_values_read_back_equal_and_the_title_is_kept() {
    // The first version wrote three significant digits: 12.345us came back
    // as 12.3us, 123.45ms as 123ms and 999999s as 16667min.
    let d = Dir::new("exact");
    let mut a = app();
    a.open_scenario(&scenario_path("capstone-fleet.toml"))
        .unwrap();
    set_knob(&mut a, Knob::Overhead, "12.345us");
    set_knob(&mut a, Knob::TtftSla, "123.45ms");
    set_knob(&mut a, Knob::ItlSla, "999999s");
    set_knob(&mut a, Knob::Budget, "1.2345M");
    go(&mut a, &[Command::View1]);
    set_knob(&mut a, Knob::Batch, "1.5");
    assert_eq!(a.assumptions.overhead_s, 12.345 / 1e6);
    let p = d.0.join("exact.toml");
    save_as(&mut a, p.to_str().unwrap());
    let text = std::fs::read_to_string(&p).unwrap();
    for want in [
        "overhead = \"12.345us\"",
        "ttft = \"123.45ms\"",
        "itl = \"999999s\"",
        "budget = \"1.2345M\"",
        "batch = 1.5",
        "title = \"Capstone: Llama 3 70B",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    let mut b = app();
    b.open_scenario(&p).unwrap();
    assert_eq!(state(&b), state(&a));
    assert_eq!(b.view_data, a.view_data);
}

#[test]
fn a_description_is_kept() {
    let d = Dir::new("desc");
    let p = d.0.join("d.toml");
    std::fs::write(&p, "title = \"T\"\ndescription = \"\"\"two\nlines\"\"\"\n").unwrap();
    let mut a = app();
    a.open_scenario(&p).unwrap();
    save_as(&mut a, p.to_str().unwrap());
    let mut b = app();
    b.open_scenario(&p).unwrap();
    assert_eq!(b.session.description.as_deref(), Some("two\nlines"));
    assert_eq!(b.session.title.as_deref(), Some("T"));
}

/// A number spread over magnitudes: 10^e with e uniform in [lo, hi].
fn magnitude(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (lo..=hi).prop_map(|e| 10f64.powf(e))
}

/// Any training run the scenario reads: degrees from 1 to 65536, ZeRO 0-3,
/// every recomputation (the named levels and any set of modules), offload
/// on or off, whole batches and sequences within their bounds,
/// tokens to train from 1 to 1e16 or chinchilla, either optimizer and any
/// training assumptions the solver takes.
fn any_training() -> impl Strategy<Value = TrainInputs> {
    (
        (
            prop::sample::select(Optimizer::ALL.to_vec()),
            any_training_assumptions(),
        ),
        prop::array::uniform6(1u32..=65536),
        0u8..=3,
        prop_oneof![
            prop::sample::select(Recompute::ALL.to_vec()),
            // Any non-empty set of Megatron-Core's modules.
            prop::sample::subsequence(Modules::NAMED.to_vec(), 1..=Modules::NAMED.len()).prop_map(
                |v| Recompute::Modules(v.iter().fold(Modules::default(), |m, (x, _)| m.with(*x)))
            ),
        ],
        (1u64..=1_000_000_000_000).prop_map(|x| x as f64),
        1u32..=65536,
        prop::option::of((1u64..=1_000_000_000).prop_map(|x| x as f64)),
        prop_oneof![
            Just(TokensToTrain::Chinchilla),
            magnitude(0.0, 16.0).prop_map(TokensToTrain::Tokens),
        ],
        (
            prop::sample::select(Attention::ALL.to_vec()),
            any::<bool>(),
            any::<bool>(),
            0u32..=65536,
            0u32..=65536,
        ),
    )
        .prop_map(
            |(
                (optimizer, assumptions),
                [devices, tp, pp, v, ep, cp],
                zero,
                recompute,
                global_batch,
                micro_batch,
                seq,
                tokens,
                (attention, dropout, offload, edge_layers, contiguous),
            )| {
                TrainInputs {
                    devices,
                    tp,
                    pp,
                    v,
                    ep,
                    cp,
                    zero,
                    recompute,
                    attention,
                    dropout,
                    offload,
                    edge_layers,
                    contiguous,
                    global_batch,
                    micro_batch,
                    seq,
                    tokens,
                    optimizer,
                    assumptions,
                }
            },
        )
}

/// Overlaps anywhere from 0 to 1 (the ends included), an MTBF from a
/// millisecond to 1e12 s, a checkpoint bandwidth from 1 B/s to 1e15 B/s and
/// a restart of 0 or from a millisecond to 1e7 s, an MoE token time of 0
/// or from a nanosecond to a millisecond.
fn any_training_assumptions() -> impl Strategy<Value = TrainingAssumptions> {
    let share = || prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0f64];
    (
        [share(), share(), share(), share(), share(), share()],
        magnitude(-3.0, 12.0),
        magnitude(0.0, 15.0),
        prop_oneof![Just(0.0), magnitude(-3.0, 7.0)],
        prop_oneof![Just(1.0), 1.0..=16.0f64],
        prop_oneof![Just(1.0), 0.01..=1.0f64],
        prop_oneof![Just(0.0), magnitude(-9.0, -3.0)],
        (
            prop::sample::select(MatmulCeiling::ALL.to_vec()),
            prop::sample::select(CrossEntropy::ALL.to_vec()),
            prop::sample::select(LowPrecisionStorage::ALL.to_vec()),
            prop::sample::select(GradPrecision::ALL.to_vec()),
        ),
    )
        .prop_map(
            |(
                [dp, tp, ep, cp, overlap_slowdown, allocator_overhead],
                device_mtbf_s,
                checkpoint_bandwidth,
                restart_s,
                moe_capacity,
                attention_efficiency,
                moe_token_time_s,
                (matmul_ceiling, cross_entropy, low_precision_storage, grad_precision),
            )| {
                TrainingAssumptions {
                    dp_overlap: dp,
                    tp_overlap: tp,
                    ep_overlap: ep,
                    cp_overlap: cp,
                    overlap_slowdown,
                    device_mtbf_s,
                    checkpoint_bandwidth,
                    restart_s,
                    moe_capacity,
                    attention_efficiency,
                    moe_token_time_s,
                    matmul_ceiling,
                    cross_entropy,
                    low_precision_storage,
                    grad_precision,
                    allocator_overhead,
                }
            },
        )
}

/// Any valid workbench state over the built-in catalog.
/// Any Explore view settings a scenario can hold: two different
/// objectives, any devices choice, one to four named precisions and maybe
/// a mixed one, degrees, batch and limits over their whole ranges.
fn any_explore() -> impl Strategy<Value = ExploreInputs> {
    use ridgeline::solver::explore::Objective;
    let n = Objective::ALL.len();
    (
        (0..n, 1..n),
        prop::sample::select(ExploreHardware::ALL.to_vec()),
        prop::sample::subsequence(Precision::ALL.to_vec(), 1..=4).prop_shuffle(),
        prop::option::of(prop::array::uniform3(prop::sample::select(
            Precision::ALL.to_vec(),
        ))),
        (1u32..=65536, 1u32..=65536, 1u64..=(1 << 20)),
        (
            prop::option::of(magnitude(-6.0, 4.0)),
            prop::option::of(magnitude(-6.0, 4.0)),
            prop::bool::ANY,
        ),
    )
        .prop_map(
            move |((x, dy), hardware, named, mixed, (tp, pp, batch), (ttft, itl, infeasible))| {
                let mut precisions: Vec<Precisions> =
                    named.into_iter().map(Precisions::named).collect();
                if let Some([w, a, kv]) = mixed {
                    let p = Precisions {
                        weights: w,
                        activations: a,
                        kv,
                    };
                    if !precisions.contains(&p) {
                        precisions.push(p);
                    }
                }
                ExploreInputs {
                    x: Objective::ALL[x],
                    y: Objective::ALL[(x + dy) % n],
                    hardware,
                    precisions,
                    tp,
                    pp,
                    batch,
                    ttft_s: ttft,
                    itl_s: itl,
                    infeasible,
                }
            },
        )
}

fn any_state(a: &App) -> impl Strategy<Value = State> + use<> {
    let (n_hw, n_models) = (a.catalog.hardware.len(), a.catalog.models.len());
    let regions = a.choices.regions.clone();
    let families = a.choices.families.clone();
    let workload = (
        prop::sample::select(vec![Phase::Decode, Phase::Prefill]),
        prop_oneof![(1u32..100_000).prop_map(f64::from), magnitude(0.0, 9.0)],
        prop_oneof![(1u32..1_000_000).prop_map(f64::from), magnitude(0.0, 9.0)],
        prop::array::uniform3(prop::sample::select(Precision::ALL.to_vec())),
        // TP x PP is at most 65536 devices (validate_workload).
        (1u32..=65536).prop_flat_map(|tp| (Just(tp), 1u32..=65536 / tp)),
    )
        .prop_map(|(phase, batch, context, [w, act, kv], (tp, pp))| Workload {
            phase,
            batch,
            context,
            weights: w,
            activations: act,
            kv,
            tp,
            pp,
        });
    let fraction = || magnitude(-6.0, 0.0);
    let any = (
        (fraction(), fraction(), fraction(), fraction()),
        (fraction(), fraction(), fraction(), fraction()),
        // Times of 0 and from 1 ns to 1 s (the most an assumption takes).
        prop::array::uniform6(prop_oneof![Just(0.0), magnitude(-9.0, 0.0)]),
        prop::array::uniform6(0.0..=1.0f64),
        (
            prop_oneof![Just(0.0), magnitude(0.0, 6.0)],
            prop::sample::select(Collective::ALL.to_vec()),
            prop::sample::select(Accumulate::ALL.to_vec()),
        ),
    )
        .prop_map(
            |((c, m, l, u), (lp, at, d8, d4), t, [pco, w, b0, bf, bd, bq], (rows, alg, acc))| {
                Assumptions {
                    compute_efficiency: c,
                    memory_efficiency: m,
                    link_efficiency: l,
                    usable_memory: u,
                    low_precision_efficiency: lp,
                    attention_efficiency: at,
                    dequant_8bit: d8,
                    dequant_4bit: d4,
                    overhead_s: t[0],
                    link_latency_s: t[1],
                    kernel_s: t[2],
                    request_s: t[3],
                    moe_layer_s: t[4],
                    collective_s: t[5],
                    prefill_comm_overlap: pco,
                    overlap: w,
                    band_base: b0,
                    band_fixed: bf,
                    band_devices: bd,
                    band_quantized: bq,
                    gemm_half_rows: rows,
                    collective: alg,
                    accumulate: acc,
                }
            },
        );
    // A profile of the catalog, and each assumption either the profile's
    // or another value.
    let profiles: Vec<(String, Assumptions)> = a
        .catalog
        .profiles
        .iter()
        .map(|p| (p.id.clone(), p.assumptions))
        .collect();
    let assumptions = (
        prop::sample::select(profiles),
        any,
        prop::collection::vec(prop::bool::ANY, profile::KEYS.len()),
    )
        .prop_map(|((id, base), other, keep)| {
            let mut a = base;
            for (k, keep) in profile::KEYS.iter().zip(keep) {
                if !keep {
                    profile::set(&mut a, k.key, written(&other, k.key).value()).unwrap();
                }
            }
            (id, a)
        });
    let target = (0..4u8, magnitude(-6.0, 4.0)).prop_map(|(k, x)| match k {
        0 => SynthTarget::Itl(x),
        1 => SynthTarget::Ttft(x),
        2 => SynthTarget::PerUser(x),
        _ => SynthTarget::Aggregate(x),
    });
    let family = prop_oneof![
        prop::sample::select(families).prop_map(Family::Named),
        Just(Family::Marked),
    ];
    let inputs = (
        (magnitude(0.0, 9.0), magnitude(0.0, 9.0)),
        prop::sample::select(regions.clone()),
        target,
        prop::sample::select(vec![SweepAxis::Batch, SweepAxis::Context]),
        (1u64..10_000, 0u64..10_000),
        family,
        // Requests/s and utilisation stay where the fleet's integer counts
        // do not overflow (1e9 requests/s at 1e-6 utilisation overflows
        // replicas x devices: issue 8, section 5).
        (
            magnitude(-3.0, 7.0),
            magnitude(-6.0, 4.0),
            magnitude(-6.0, 4.0),
        ),
        prop::sample::subsequence(regions.clone(), 1..=regions.len()).prop_shuffle(),
        (
            prop::option::of(magnitude(0.0, 12.0)),
            magnitude(-2.0, 0.0),
            // The fleet search: precisions, mode and share weights (equal
            // shares when None).
            prop::sample::subsequence(vec!["bf16", "fp8", "int4", "fp4", "int4/bf16/fp8"], 1..=5)
                .prop_shuffle(),
            prop::sample::select(fleet::ModeChoice::ALL.to_vec()),
            prop::option::of(prop::collection::vec(1u32..100, 64)),
        ),
        any_training(),
        any_serve_modes(),
        any_explore(),
    )
        .prop_map(
            |(
                (prompt, output),
                region,
                target,
                sweep,
                (lo, span),
                family,
                (qps, ttft, itl),
                regions,
                (budget, u, precisions, mode, weights),
                train,
                serve,
                explore,
            )| {
                // Shares: weights over their sum, one per region (within
                // the 1e-6 of 1 a share list is checked to).
                let shares = weights.map_or(Vec::new(), |w| {
                    let w = &w[..regions.len().min(w.len())];
                    let sum: u32 = w.iter().sum();
                    w.iter().map(|x| *x as f64 / sum as f64).collect()
                });
                ViewInputs {
                    request: ridgeline::solver::serving::Request { prompt, output },
                    region,
                    target,
                    sweep,
                    batches: (lo, lo + span),
                    family,
                    qps,
                    ttft_s: ttft,
                    itl_s: itl,
                    regions,
                    budget,
                    max_utilization: u,
                    shares,
                    precisions: ridgeline::solver::Precisions::parse_list(&precisions.join(","))
                        .unwrap(),
                    mode,
                    train,
                    serve,
                    explore,
                }
            },
        );
    let meta = (
        prop::option::of("[ -~]{0,40}"),
        prop::option::of("[ -~\n\t\"\\\\]{0,80}"),
    );
    (
        (
            prop::sample::select(View::ALL.to_vec()),
            0..n_hw,
            0..n_models,
        ),
        prop::sample::subsequence((0..n_hw).collect::<Vec<_>>(), 0..4).prop_shuffle(),
        workload,
        assumptions,
        inputs,
        meta,
    )
        .prop_map(
            |(
                (view, hw, model),
                marked,
                workload,
                (profile, assumptions),
                inputs,
                (title, description),
            )| {
                State {
                    view,
                    hw,
                    model,
                    marked,
                    workload,
                    profile,
                    assumptions,
                    inputs,
                    title,
                    description,
                }
            },
        )
}

/// Any valid state, saved and opened again, is the same state. (Two apps
/// serve every case: building one reads the whole catalog.)
#[test]
fn any_valid_state_saved_and_reopened_is_equal() {
    use proptest::test_runner::{Config, TestRunner};
    use std::cell::RefCell;
    let d = Dir::new("prop");
    let p = d.0.join("s.toml");
    let (a, b) = (RefCell::new(app()), RefCell::new(app()));
    let strategy = any_state(&a.borrow());
    let mut runner = TestRunner::new(Config {
        cases: 256,
        ..Config::default()
    });
    let result = runner.run(&strategy, |s| {
        let (mut a, mut b) = (a.borrow_mut(), b.borrow_mut());
        a.view = s.view;
        a.hw = s.hw;
        a.model = s.model;
        a.marked = s.marked.clone();
        a.workload = s.workload;
        // The profile on the selected device, as the workbench holds it.
        let entry = a.catalog.profile(&s.profile).unwrap();
        let on = entry.on(&a.catalog.hardware[s.hw]);
        a.profile = Profile {
            id: s.profile.clone(),
            base: on.assumptions,
            class: on.class,
            training: entry.training,
        };
        a.assumptions = s.assumptions;
        a.view_inputs = s.inputs.clone();
        a.session.title = s.title.clone();
        a.session.description = s.description.clone();
        a.to_scenario().save(&p).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let opened = b.open_scenario(&p);
        prop_assert!(opened.is_ok(), "{:?}\n{}", opened, text);
        prop_assert_eq!(state(&b), s, "{}", text);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// The Serving view's batching: any valid settings, a draft among the
/// catalog's decoders or none.
fn any_serve_modes() -> impl Strategy<Value = ridgeline::scenario::ServeModes> {
    (
        any::<bool>(),
        1u64..1_000_000,
        0.0f64..0.999,
        prop::option::of(prop::sample::select(vec![
            "llama-3.2-1b".to_string(),
            "qwen2.5-0.5b".to_string(),
        ])),
        1u32..=64,
        0.0f64..=1.0,
    )
        .prop_map(
            |(continuous, budget, hit, draft, k, a)| ridgeline::scenario::ServeModes {
                continuous,
                token_budget: budget as f64,
                prefix_hit: hit,
                draft,
                proposed: k,
                acceptance: a,
            },
        )
}
