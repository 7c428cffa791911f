//! The command lines that reproduce a view's figures, from the workbench's
//! state as a scenario (`App::to_scenario`, or a lesson's step): the table
//! command (`compare`, `sweep`, `ops`) and the `plot` that draws its figure.
//! Pure: no I/O.

use crate::catalog::Catalog;
use crate::scenario::{
    self, DEFAULT_PROFILE, DEFAULT_SWEEP_BATCHES, ExploreHardware, ExploreInputs, FLAGSHIP_FAMILY,
    FleetInputs, SWEEP_CONTEXTS, Scenario, ServeModes, Setting, TrainInputs, TrainingSection,
    exact,
};
use crate::solver::Workload;
use crate::solver::serving::Request;
use std::path::Path;

/// A view's command lines, each as its arguments from "ridgeline" on.
#[derive(Debug, Clone, PartialEq)]
pub struct Commands {
    /// Prints the view's table (add `--format csv|markdown|json`).
    pub table: Vec<String>,
    /// Draws the view's plot (add `-o FILE.svg`); None: the view has none.
    pub plot: Option<Vec<String>>,
}

/// The command lines of the scenario's view. `catalog_dir`: the `--catalog`
/// the workbench was opened with.
pub fn commands(
    catalog: &Catalog,
    s: &Scenario,
    catalog_dir: Option<&Path>,
) -> Result<Commands, String> {
    let view = s.view.as_deref().unwrap_or("roofline");
    let mut head = vec!["ridgeline".to_string()];
    if let Some(d) = catalog_dir {
        head.push("--catalog".into());
        head.push(d.display().to_string());
    }
    let wl = workload_flags(s)?;
    let hw = s
        .hardware
        .clone()
        .unwrap_or_else(|| crate::catalog::DEFAULT_HARDWARE.to_string());
    // `ridgeline [--catalog DIR] CMD... FLAGS...`
    let line = |cmd: &[&str], flags: Vec<String>| {
        let mut v = head.clone();
        v.extend(cmd.iter().map(|c| c.to_string()));
        v.extend(flags);
        v
    };
    let with = |cmd: &[&str], hardware: String, extra: &[String], w: &[String]| {
        let mut v = head.clone();
        v.extend(cmd.iter().map(|c| c.to_string()));
        v.push("--hardware".into());
        v.push(hardware);
        v.extend(w.iter().cloned());
        v.extend(extra.iter().cloned());
        v
    };
    match view {
        "roofline" => {
            let list = device_list(
                catalog,
                std::iter::once(hw.as_str()).chain(s.compare.iter().map(String::as_str)),
            );
            Ok(Commands {
                table: with(&["compare"], list.clone(), &[], &wl),
                plot: Some(with(&["plot", "roofline"], list, &[], &wl)),
            })
        }
        "generations" => {
            let family = s.generations.family.as_deref().unwrap_or(FLAGSHIP_FAMILY);
            let marked: Vec<usize> = s
                .compare
                .iter()
                .filter_map(|id| catalog.hardware.iter().position(|e| e.hw.id == *id))
                .collect();
            let ids: Vec<&str> = scenario::family_devices(catalog, family, &marked)
                .into_iter()
                .map(|i| catalog.hardware[i].hw.id.as_str())
                .collect();
            if ids.is_empty() {
                return Err(format!("the family {family} has no devices to compare"));
            }
            let list = ids.join(",");
            Ok(Commands {
                table: with(&["compare"], list.clone(), &[], &wl),
                plot: Some(with(&["plot", "generations"], list, &[], &wl)),
            })
        }
        "sweep" => {
            let (extra, w): (Vec<String>, Vec<String>) = match s.sweep.over.as_deref() {
                Some("context") => (
                    vec![
                        "--contexts".into(),
                        format!("{}..{}", SWEEP_CONTEXTS.0, SWEEP_CONTEXTS.1),
                    ],
                    wl.clone(),
                ),
                _ => {
                    let (lo, hi) = match &s.sweep.batches {
                        Some(b) => {
                            scenario::parse_batches(b).map_err(|e| format!("sweep.batches: {e}"))?
                        }
                        None => DEFAULT_SWEEP_BATCHES,
                    };
                    // The sweep's range takes the place of the batch.
                    let mut w = without(&wl, "--batch");
                    w.push("--batch".into());
                    w.push(format!("{lo}..{hi}"));
                    (Vec::new(), w)
                }
            };
            Ok(Commands {
                table: with(&["sweep"], hw.clone(), &extra, &w),
                plot: Some(with(&["plot", "sweep"], hw, &extra, &w)),
            })
        }
        "operators" => Ok(Commands {
            table: with(&["ops"], hw.clone(), &[], &wl),
            plot: Some(with(&["plot", "operators"], hw, &[], &wl)),
        }),
        "serving" => {
            let mut t = line(&["serve", "--hardware", &hw], Vec::new());
            t.extend(serve_flags(s, &wl)?);
            Ok(Commands {
                table: t,
                plot: None,
            })
        }
        "synthesis" => Ok(Commands {
            table: line(&["synth"], synth_flags(s, &wl)?),
            plot: None,
        }),
        "fleet" => Ok(Commands {
            table: line(&["fleet"], fleet_flags(s)?),
            plot: None,
        }),
        // The table's command and `plot` of the same name, one set of
        // flags: the flags' own, not the workload's.
        "explore" | "training" => {
            let (cmd, flags) = match view {
                "explore" => ("explore", explore_flags(catalog, s, &hw)?),
                _ => ("train", train_flags(catalog, s, &hw)?),
            };
            Ok(Commands {
                table: line(&[cmd], flags.clone()),
                plot: Some(line(&["plot", cmd], flags)),
            })
        }
        other => Err(format!("the {other} view has no command line")),
    }
}

/// The selected device and the marked ones, each once (as the Roofline
/// view compares them), by the catalog's id where it knows the name.
fn device_list<'a>(catalog: &Catalog, names: impl Iterator<Item = &'a str>) -> String {
    let mut ids: Vec<String> = Vec::new();
    for n in names {
        let id = catalog
            .hardware(n)
            .map(|e| e.hw.id.clone())
            .unwrap_or_else(|_| n.to_string());
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids.join(",")
}

/// `flags` without `flag` and its value.
fn without(flags: &[String], flag: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip = false;
    for f in flags {
        if skip {
            skip = false;
        } else if f == flag {
            skip = true;
        } else {
            out.push(f.clone());
        }
    }
    out
}

/// Flags being written, `--flag value` pairs.
struct Flags(Vec<String>);

impl Flags {
    /// The scenario's `--model`, when it names one.
    fn new(s: &Scenario) -> Flags {
        let mut f = Flags(Vec::new());
        if let Some(m) = &s.model {
            f.put("--model", m.clone());
        }
        f
    }
    fn put(&mut self, flag: &str, x: String) {
        self.0.push(flag.to_string());
        self.0.push(x);
    }
}

/// The workload and assumption flags of a scenario: each value it sets
/// that differs from the command line's default (`Workload::default()`, the
/// default profile), written so that the command line reads it back equal.
/// Precisions are always written when set: the command line's weights
/// default to a model's checkpoint precision.
pub fn workload_flags(s: &Scenario) -> Result<Vec<String>, String> {
    let d = Workload::default();
    let mut v = Flags::new(s);
    let w = &s.workload;
    if let Some(p) = w.phase.as_deref().filter(|p| *p != d.phase.name()) {
        v.put("--phase", p.to_string());
    }
    if let Some(b) = w.batch.filter(|b| *b != d.batch) {
        v.put("--batch", whole("batch", b)?);
    }
    if let Some(c) = w.context.filter(|c| *c != d.context) {
        v.put("--context", whole("context", c)?);
    }
    let (wt, ac, kv) = (&w.weights, &w.activations, &w.kv);
    match (&w.precision, wt, ac, kv) {
        // All three alike: one flag says it.
        (None, Some(a), Some(b), Some(c)) if a == b && b == c => v.put("--precision", a.clone()),
        // None set: the scenario's default, said (not the checkpoint's).
        (None, None, None, None) => v.put("--precision", d.weights.name().to_string()),
        _ => {
            for (f, p) in [
                ("--precision", &w.precision),
                ("--weights", wt),
                ("--activations", ac),
                ("--kv", kv),
            ] {
                if let Some(p) = p {
                    v.put(f, p.clone());
                }
            }
        }
    }
    if let Some(t) = w.tp.filter(|t| *t != d.tp) {
        v.put("--tp", t.to_string());
    }
    if let Some(p) = w.pp.filter(|p| *p != d.pp) {
        v.put("--pp", p.to_string());
    }
    assumption_flags(s, &mut v.0);
    Ok(v.0)
}

/// The calibration profile (when not the default) and each assumption the
/// scenario sets over it, as `--profile` and `--assume KEY=VALUE`.
fn assumption_flags(s: &Scenario, v: &mut Vec<String>) {
    let a = &s.assumptions;
    if let Some(p) = a.profile.as_deref().filter(|p| *p != DEFAULT_PROFILE) {
        v.extend(["--profile".to_string(), p.to_string()]);
    }
    for (k, x) in &a.values {
        let x = match x {
            Setting::Number(n) => exact::number(*n),
            Setting::Text(t) => t.clone(),
        };
        v.extend(["--assume".to_string(), format!("{k}={x}")]);
    }
}

/// The carbon region of `serve` and `train` when none is given (their
/// `--region` default, which is the workbench's first region too).
const CLI_REGION: &str = "us-east";

/// `--region` for the scenario's carbon region, when not the default.
fn region_flag(s: &Scenario, v: &mut Vec<String>) {
    if let Some(r) = s.serving.region.as_deref().filter(|r| *r != CLI_REGION) {
        v.extend(["--region".to_string(), r.to_string()]);
    }
}

/// The request of `[serving]` as `--prompt` and `--output`, each when not
/// the default (`serve`, `explore` and `fleet` take both).
fn request_flags(s: &Scenario) -> Result<Vec<String>, String> {
    let mut v = Vec::new();
    let r = Request::default();
    for (f, x, d) in [
        ("--prompt", s.serving.prompt, r.prompt),
        ("--output", s.serving.output, r.output),
    ] {
        if let Some(x) = x.filter(|x| *x != d) {
            v.extend([f.to_string(), whole(&f[2..], x)?]);
        }
    }
    Ok(v)
}

/// The flags of `ridgeline serve` for the scenario's Serving view, after
/// the workload's (`wl`, from `workload_flags`): those less the phase and
/// the context (a request sets both), the request's prompt and output
/// when not the default, the carbon region, and the batching when
/// continuous with each of its settings off the default (static batching
/// takes none of them).
pub fn serve_flags(s: &Scenario, wl: &[String]) -> Result<Vec<String>, String> {
    let mut v = without(&without(wl, "--phase"), "--context");
    v.extend(request_flags(s)?);
    region_flag(s, &mut v);
    let m = s.serve_modes().map_err(|p| problems(&p))?;
    if m.continuous {
        let d = ServeModes::default();
        v.extend(["--batching".to_string(), "continuous".to_string()]);
        if m.token_budget != d.token_budget {
            v.extend([
                "--token-budget".to_string(),
                whole("token budget", m.token_budget)?,
            ]);
        }
        if m.prefix_hit != d.prefix_hit {
            v.extend(["--prefix-hit".to_string(), exact::number(m.prefix_hit)]);
        }
        if let Some(draft) = &m.draft {
            v.extend(["--draft".to_string(), draft.clone()]);
            if m.proposed != d.proposed {
                v.extend(["--proposed".to_string(), m.proposed.to_string()]);
            }
            if m.acceptance != d.acceptance {
                v.extend(["--acceptance".to_string(), exact::number(m.acceptance)]);
            }
        }
    }
    Ok(v)
}

/// The flags of `ridgeline synth` for the scenario's Synthesis view: the
/// workload's (`wl`, from `workload_flags`) and its target, written with
/// its kind ("50ms itl"), which decides the phase as the view does. The
/// devices ranked (all), their order (cost) and the share of the time
/// given to communication are `synth`'s defaults and the view's.
pub fn synth_flags(s: &Scenario, wl: &[String]) -> Result<Vec<String>, String> {
    let t = s.target().map_err(|p| problems(&p))?;
    let t = t.unwrap_or(scenario::DEFAULT_SYNTH_TARGET);
    let mut v = wl.to_vec();
    v.extend(["--target".to_string(), exact::target(&t)]);
    Ok(v)
}

/// The flags of `ridgeline fleet` for the scenario's Fleet view: the
/// model, the load and the two SLAs (which `fleet` requires), the request
/// when not the default, and each of `[fleet]` off `fleet`'s default
/// (regions, budget, highest utilization, precisions searched, mode,
/// shares), then the assumptions. All devices are searched, as the view
/// searches the catalog's.
pub fn fleet_flags(s: &Scenario) -> Result<Vec<String>, String> {
    let f = s.fleet_inputs().map_err(|p| problems(&p))?;
    let d = FleetInputs::default();
    let mut v = Flags::new(s);
    v.put("--qps", exact::number(f.qps));
    v.put("--ttft", exact::time(f.ttft_s));
    v.put("--itl", exact::time(f.itl_s));
    v.0.extend(request_flags(s)?);
    if f.regions != d.regions {
        v.put("--region", f.regions.join(","));
    }
    if let Some(b) = f.budget_usd_per_year {
        v.put("--budget", exact::count(b));
    }
    if f.max_utilization != d.max_utilization {
        v.put("--max-utilization", exact::number(f.max_utilization));
    }
    let (pf, pd) = (
        scenario::precisions_text(&f.precisions),
        scenario::precisions_text(&d.precisions),
    );
    if pf != pd {
        v.put("--precisions", pf);
    }
    if f.mode != d.mode {
        v.put("--mode", f.mode.name().to_string());
    }
    if !f.shares.is_empty() {
        let shares: Vec<String> = f.shares.iter().map(|x| exact::number(*x)).collect();
        v.put("--share", shares.join(","));
    }
    assumption_flags(s, &mut v.0);
    Ok(v.0)
}

/// The flags of `ridgeline explore` for the scenario's Explore view: the
/// model, each axis and limit of `[explore]` off the default (the view's
/// defaults are `explore`'s), its two objectives, the request of
/// `[serving]` (one prompt and one output, as the view searches) and the
/// assumptions. The marked devices are named by id, the selected first.
pub fn explore_flags(catalog: &Catalog, s: &Scenario, hw: &str) -> Result<Vec<String>, String> {
    let e = s.explore_inputs().map_err(|p| problems(&p))?;
    let d = ExploreInputs::default();
    let mut v = Flags::new(s);
    if e.hardware != d.hardware {
        v.put(
            "--hardware",
            match e.hardware {
                ExploreHardware::Marked => device_list(
                    catalog,
                    std::iter::once(hw).chain(s.compare.iter().map(String::as_str)),
                ),
                h => h.name().to_string(),
            },
        );
    }
    let (pe, pd) = (
        scenario::precisions_text(&e.precisions),
        scenario::precisions_text(&d.precisions),
    );
    if pe != pd {
        v.put("--precision", pe);
    }
    // Each axis is the powers of two from 1 up to its top and the top,
    // which "1..TOP" means to `explore` too.
    for (f, x, dx) in [
        ("--tp", e.tp as u64, d.tp as u64),
        ("--pp", e.pp as u64, d.pp as u64),
        ("--batch", e.batch, d.batch),
    ] {
        if x != dx {
            v.put(
                f,
                if x == 1 {
                    "1".into()
                } else {
                    format!("1..{x}")
                },
            );
        }
    }
    v.0.extend(request_flags(s)?);
    if (e.x, e.y) != (d.x, d.y) {
        v.put("--objectives", format!("{},{}", e.x.name(), e.y.name()));
    }
    for (f, x) in [("--ttft", e.ttft_s), ("--itl", e.itl_s)] {
        if let Some(x) = x {
            v.put(f, exact::time(x));
        }
    }
    assumption_flags(s, &mut v.0);
    Ok(v.0)
}

/// A scenario's problems in one line.
fn problems(p: &[crate::scenario::Problem]) -> String {
    p.iter()
        .map(|(key, why)| format!("{key}: {why}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `x` as a whole number the command line takes (1 or more), or why not.
fn whole(what: &str, x: f64) -> Result<String, String> {
    if x.fract() != 0.0 || x < 1.0 {
        Err(format!(
            "{what} {}: the command line takes a whole {what} of 1 or more",
            exact::number(x)
        ))
    } else {
        Ok(exact::number(x))
    }
}

/// The flags of `ridgeline train` for the scenario's Training view: the
/// model, the device, the run's number format (the workload's weights, as
/// the view takes it), the carbon region when not the default, each
/// `[training]` value that differs from the view's default (which is
/// `train`'s: both take the solver's `DEFAULTS`, and the training keys of
/// the scenario's profile, which `--profile` gives the command too), and
/// the assumptions.
pub fn train_flags(catalog: &Catalog, s: &Scenario, hardware: &str) -> Result<Vec<String>, String> {
    let stack = catalog
        .profile(s.assumptions.profile_id())
        .map_or_else(|_| Default::default(), |p| p.training);
    let inputs = s.training_inputs_over(&stack).map_err(|p| problems(&p))?;
    let t = TrainingSection::of(&inputs);
    let d = TrainingSection::of(&TrainInputs {
        assumptions: stack,
        ..TrainInputs::default()
    });
    let mut v = Flags::new(s);
    v.put("--hardware", hardware.to_string());
    let w = &s.workload;
    let precision = w
        .weights
        .clone()
        .or_else(|| w.precision.clone())
        .unwrap_or_else(|| Workload::default().weights.name().to_string());
    v.put("--precision", precision);
    // (flag, this run's value, the default's), each written as the
    // scenario writes it, which the command line reads back equal.
    let text = |x: &Option<String>| x.clone().unwrap_or_default();
    let num = |x: Option<f64>| x.map(exact::number).unwrap_or_default();
    let int = |x: Option<u32>| x.map(|n| n.to_string()).unwrap_or_default();
    let pairs: [(&str, String, String); 32] = [
        ("--devices", int(t.devices), int(d.devices)),
        ("--tp", int(t.tp), int(d.tp)),
        ("--pp", int(t.pp), int(d.pp)),
        ("--interleave", int(t.v), int(d.v)),
        ("--ep", int(t.ep), int(d.ep)),
        ("--cp", int(t.cp), int(d.cp)),
        (
            "--zero",
            t.zero.map(|z| z.to_string()).unwrap_or_default(),
            d.zero.map(|z| z.to_string()).unwrap_or_default(),
        ),
        ("--recompute", text(&t.recompute), text(&d.recompute)),
        ("--attention", text(&t.attention), text(&d.attention)),
        ("--edge-layers", int(t.edge_layers), int(d.edge_layers)),
        ("--contiguous", int(t.contiguous), int(d.contiguous)),
        ("--global-batch", num(t.global_batch), num(d.global_batch)),
        ("--micro-batch", int(t.micro_batch), int(d.micro_batch)),
        ("--seq", num(t.seq), num(d.seq)),
        ("--tokens", text(&t.tokens), text(&d.tokens)),
        ("--optimizer", text(&t.optimizer), text(&d.optimizer)),
        ("--dp-overlap", num(t.dp_overlap), num(d.dp_overlap)),
        ("--tp-overlap", num(t.tp_overlap), num(d.tp_overlap)),
        ("--ep-overlap", num(t.ep_overlap), num(d.ep_overlap)),
        ("--cp-overlap", num(t.cp_overlap), num(d.cp_overlap)),
        (
            "--overlap-slowdown",
            num(t.overlap_slowdown),
            num(d.overlap_slowdown),
        ),
        ("--mtbf", text(&t.mtbf), text(&d.mtbf)),
        (
            "--checkpoint-bandwidth",
            text(&t.checkpoint_bandwidth),
            text(&d.checkpoint_bandwidth),
        ),
        ("--restart", text(&t.restart), text(&d.restart)),
        (
            "--moe-token-time",
            text(&t.moe_token_time),
            text(&d.moe_token_time),
        ),
        (
            "--attention-eff",
            num(t.attention_efficiency),
            num(d.attention_efficiency),
        ),
        ("--moe-capacity", num(t.moe_capacity), num(d.moe_capacity)),
        (
            "--matmul-ceiling",
            text(&t.matmul_ceiling),
            text(&d.matmul_ceiling),
        ),
        (
            "--cross-entropy",
            text(&t.cross_entropy),
            text(&d.cross_entropy),
        ),
        (
            "--low-precision-storage",
            text(&t.low_precision_storage),
            text(&d.low_precision_storage),
        ),
        (
            "--grad-precision",
            text(&t.grad_precision),
            text(&d.grad_precision),
        ),
        (
            "--allocator-overhead",
            num(t.allocator_overhead),
            num(d.allocator_overhead),
        ),
    ];
    for (f, x, dx) in pairs {
        if x != dx {
            v.put(f, x);
        }
    }
    if t.dropout == Some(true) {
        v.0.push("--dropout".into());
    }
    region_flag(s, &mut v.0);
    assumption_flags(s, &mut v.0);
    Ok(v.0)
}

/// One argument as a POSIX shell reads it back: bare when it holds only
/// characters a shell leaves alone, else in single quotes.
pub fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:=,+-@%".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A command line as a shell line.
pub fn shell_line(args: &[String]) -> String {
    args.iter()
        .map(|a| shell_word(a))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_quote_what_a_shell_would_read() {
        assert_eq!(shell_word("h100-sxm,a100"), "h100-sxm,a100");
        assert_eq!(shell_word("kernel_time=3us"), "kernel_time=3us");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn without_drops_a_flag_and_its_value() {
        let v: Vec<String> = ["--batch", "8", "--tp", "2"].map(String::from).to_vec();
        assert_eq!(without(&v, "--batch"), ["--tp", "2"]);
    }

    #[test]
    fn a_training_key_is_written_where_it_differs_from_the_profiles() {
        // A profile with TP overlap 0.5 (megatron-core's, set so here): a
        // run that keeps it needs no
        // --tp-overlap (--profile gives it), one set back to 0 needs
        // `--tp-overlap 0`, which the solver's default alone would omit.
        let mut cat = Catalog::builtin();
        let p = cat.profiles.iter_mut().find(|p| p.id == "megatron-core");
        p.unwrap().training.tp_overlap = 0.5;
        let mut s = Scenario::default();
        s.assumptions.profile = Some("megatron-core".into());
        let flags = |s: &Scenario| train_flags(&cat, s, "h100").unwrap();
        let kept = flags(&s);
        assert!(kept.contains(&"megatron-core".to_string()), "{kept:?}");
        assert!(!kept.contains(&"--tp-overlap".to_string()), "{kept:?}");
        s.training.tp_overlap = Some(0.0);
        let back = flags(&s);
        let at = back.iter().position(|f| f == "--tp-overlap").unwrap();
        assert_eq!(back[at + 1], "0", "{back:?}");
    }

    #[test]
    fn the_loss_and_fp8_storage_are_written_where_they_differ_from_the_profiles() {
        // The torchtitan profile's loss is eager and its fp8 held at bf16
        // (catalog/profiles/torchtitan.toml): kept, neither flag is
        // written; a loss set back to fused is, as `--cross-entropy fused`.
        let cat = Catalog::builtin();
        let mut s = Scenario::default();
        s.assumptions.profile = Some("torchtitan".into());
        s.training.cross_entropy = Some("eager".into());
        s.training.low_precision_storage = Some("bf16".into());
        let flags = |s: &Scenario| train_flags(&cat, s, "h100").unwrap();
        let kept = flags(&s);
        assert!(!kept.contains(&"--cross-entropy".to_string()), "{kept:?}");
        assert!(
            !kept.contains(&"--low-precision-storage".to_string()),
            "{kept:?}"
        );
        s.training.cross_entropy = Some("fused".into());
        let back = flags(&s);
        let at = back.iter().position(|f| f == "--cross-entropy").unwrap();
        assert_eq!(back[at + 1], "fused", "{back:?}");
        // The gradients' width likewise: the profile's (param) is not
        // written, fp32 is.
        assert!(!back.contains(&"--grad-precision".to_string()), "{back:?}");
        s.training.grad_precision = Some("fp32".into());
        let wide = flags(&s);
        let at = wide.iter().position(|f| f == "--grad-precision").unwrap();
        assert_eq!(wide[at + 1], "fp32", "{wide:?}");
        // The allocator's overhead too: the profile's 0.15 is not written,
        // 0.25 is, as the number the flag reads back.
        s.training.allocator_overhead = Some(0.15);
        assert!(
            !flags(&s).contains(&"--allocator-overhead".to_string()),
            "{:?}",
            flags(&s)
        );
        s.training.allocator_overhead = Some(0.25);
        let pool = flags(&s);
        let at = pool
            .iter()
            .position(|f| f == "--allocator-overhead")
            .unwrap();
        assert_eq!(pool[at + 1], "0.25", "{pool:?}");
    }

    #[test]
    fn a_fractional_batch_is_refused_with_the_reason() {
        let mut s = Scenario::default();
        s.workload.batch = Some(1.5);
        let e = workload_flags(&s).unwrap_err();
        assert!(e.contains("whole batch of 1 or more"), "{e}");
    }
}
