//! The shipped measurements against the shipped profiles: a change that
//! makes the model worse fails here. Each measurement is predicted with the
//! profile of its stack (`ridgeline validate` without `--profile`).

use ridgeline::catalog::Catalog;
use ridgeline::cli::validate::{
    check, leave_one_source_out, loso_summary, on_device, per_stack, summary, summary_table,
};
use ridgeline::solver::calibration::Metric;

/// The built-in catalog with its published measurements.
fn catalog() -> Catalog {
    let mut c = Catalog::builtin();
    c.add_measurements(None);
    c
}

#[test]
fn at_least_forty_measurements_over_several_devices_precisions_and_metrics_are_shipped() {
    let cat = catalog();
    assert!(cat.diagnostics.is_empty(), "{:?}", cat.diagnostics);
    let ms = &cat.measurements;
    assert!(ms.len() >= 40, "{}", ms.len());
    let count = |f: &dyn Fn(&ridgeline::catalog::Measurement) -> String| {
        let mut v: Vec<String> = ms.iter().map(f).collect();
        v.sort();
        v.dedup();
        v.len()
    };
    assert!(count(&|m| m.hardware.clone()) >= 8);
    assert!(count(&|m| m.run.weights.name().to_string()) >= 4);
    assert!(count(&|m| m.stack.clone()) >= 5);
    for metric in [
        Metric::TtftS,
        Metric::OutputTokensPerS,
        Metric::ItlS,
        Metric::E2eS,
    ] {
        assert!(ms.iter().any(|m| m.metric == metric), "{metric:?}");
    }
    assert!(ms.iter().any(|m| m.run.tp >= 8) && ms.iter().any(|m| m.run.batch >= 32.0));
    for m in ms {
        assert!(m.source.starts_with("http"), "{}: {}", m.id, m.source);
        assert!(!m.quote.trim().is_empty(), "{}", m.id);
    }
}

#[test]
fn every_measurement_is_predicted_but_a_layout_the_catalog_gives_no_link() {
    let cat = catalog();
    for c in per_stack(&cat) {
        if let Err(e) = &c.prediction {
            // Two RTX 4090s over PCIe: the catalog gives the card no link.
            assert!(e.contains("no link"), "{}: {e}", c.measurement.id);
        }
    }
}

#[test]
fn the_serving_stacks_are_within_ten_percent_at_the_median_and_sixty_at_worst() {
    // The serving stacks (all but llama.cpp), each with its own profile.
    // The worst cases are SGLang v0.5.7's DeepSeek-R1 under the `sglang`
    // profile fitted on v0.4.1 (+191%: docs/validation.md), short-prompt
    // TTFT under TP 4 (TensorRT-LLM) and MLC's 4-bit kernels, which the
    // default profile's dequantization (fitted on gpt-fast's int4)
    // underrates.
    let cat = catalog();
    let checked = per_stack(&cat);
    let s = summary(&checked, |c| c.measurement.stack != "llama.cpp");
    assert!(s.count >= 60, "{}", s.count);
    assert!(s.median_abs_error <= 0.10, "{s:?}");
    assert!(s.worst_abs_error <= 2.0, "{s:?}");
    // Every stack but SGLang, whose profile is fitted on one version, still
    // within 60% at worst: vLLM's 2025 Qwen3-30B-A3B, +57% held out (+49%
    // while the vLLM profile fitted its own efficiencies: one time per MoE
    // layer holds neither its early-2024 Mixtral steps nor its 2025 Qwen3
    // ones, and the refit on times alone moved it from 40 to 80 us).
    let w = summary(&checked, |c| {
        !["llama.cpp", "sglang"].contains(&c.measurement.stack.as_str())
    });
    assert!(w.worst_abs_error <= 0.60, "{w:?}");
    // Held out alone: 9.8% since the stack profiles fit their times only
    // (13.5% while they also fitted their own efficiencies,
    // docs/validation.md). A guard against getting worse.
    let h = summary(&checked, |c| c.measurement.stack != "llama.cpp" && !c.fit);
    assert!(h.median_abs_error <= 0.10, "{h:?}");
    // Each source left out: 10.5% with the stack profiles fitting their
    // times and the efficiencies the default's; 18.5% while each stack
    // profile fitted its own efficiencies on its few sources (the two
    // batch-1 DeepSeek-R1 rows of 2026-12-06 had pulled it from 17.2%).
    // The bar is 12%: a guard that holds it.
    let loso = leave_one_source_out(&cat, &checked, &[]);
    let l = loso_summary(&checked, &loso, |c| c.measurement.stack != "llama.cpp");
    assert_eq!(l.count, s.count);
    assert!(l.median_abs_error <= 0.11, "{l:?}");
}

#[test]
fn llama_cpp_stays_where_it_is() {
    // llama.cpp prefills at a quarter to a third of a CUDA GPU's tensor
    // peak and its Q4_K_M carries 4.5-6 bits per weight; with values per
    // device class (catalog/profiles/llama-cpp.toml: HBM, GDDR, Apple) the
    // held-out half is 9.3% off at the median, 65.8% at worst (the H100
    // PCIe's Q4_K_M prefill, +66%: llama.cpp's Ampere-style kernels reach
    // less of Hopper's peak than of an A100's). Before (classes datacenter /
    // consumer / apple, the 4090 against its FP32-accumulate peak): 15.2%
    // and 45.1%; one profile for every class: 14.3% and 202%; `ridgeline
    // validate --summary`. A guard against getting worse, not a claim.
    let cat = catalog();
    let own = per_stack(&cat);
    let s = summary(&own, |c| c.measurement.stack == "llama.cpp");
    assert!(s.median_abs_error <= 0.10, "{s:?}");
    assert!(s.worst_abs_error <= 0.7, "{s:?}");
    let h = summary(&own, |c| c.measurement.stack == "llama.cpp" && !c.fit);
    assert!(h.median_abs_error <= 0.10, "{h:?}");
    assert!(h.worst_abs_error <= 0.7, "{h:?}");
    // Each source left out: 10.8% (14.4% with the old classes).
    let loso = leave_one_source_out(&cat, &own, &[]);
    let l = loso_summary(&own, &loso, |c| c.measurement.stack == "llama.cpp");
    assert!(l.median_abs_error <= 0.12, "{l:?}");
}

/// A number of `[profile.class.CLASS]` in catalog/profiles/llama-cpp.toml,
/// read with the TOML parser, not through the catalog.
fn class_value(class: &str, key: &str) -> f64 {
    let text = include_str!("../catalog/profiles/llama-cpp.toml");
    let t: toml::Table = text.parse().unwrap();
    t["profile"][0]["class"][class][key].as_float().unwrap()
}

#[test]
fn a_llama_cpp_measurement_gets_the_values_of_its_device_class() {
    let cat = catalog();
    let own = per_stack(&cat);
    let on = |id: &str| own.iter().find(|c| c.measurement.id == id).unwrap();
    let a100 = on("llama-cpp-llama-3-8b-a100-sxm-q4km-pp512");
    assert_eq!(a100.class.map(|k| k.name()), Some("hbm"));
    let m2 = on("llama-cpp-llama-3-8b-m2-ultra-f16-pp512");
    assert_eq!(m2.class.map(|k| k.name()), Some("apple"));
    // The RTX 4090 (GDDR6X) and the L40S (GDDR6) are one class: one Ada
    // die, GDDR memory, whatever the market.
    let rtx = on("llama-cpp-llama-3-8b-rtx-4090-f16-pp512");
    let l40s = on("llama-cpp-llama-3-8b-l40s-q4km-pp512");
    assert_eq!(rtx.class.map(|k| k.name()), Some("gddr"));
    assert_eq!(l40s.class.map(|k| k.name()), Some("gddr"));
    let base = cat.profile("llama.cpp").unwrap().assumptions;
    for (c, class) in [(a100, "hbm"), (m2, "apple"), (rtx, "gddr"), (l40s, "gddr")] {
        for key in ["compute_efficiency", "memory_efficiency"] {
            let a = &mut c.assumptions.clone();
            let got = *ridgeline::catalog::profile::number_mut(a, key).unwrap();
            assert_eq!(got, class_value(class, key), "{class} {key}");
        }
        // Each class sets its own time per kernel (the CUDA classes and
        // Metal differ); a key no class sets is the base value.
        let t: toml::Table = include_str!("../catalog/profiles/llama-cpp.toml")
            .parse()
            .unwrap();
        let kernel = t["profile"][0]["class"][class]["kernel_time"]
            .as_str()
            .unwrap()
            .to_string();
        let want =
            ridgeline::solver::units::parse(&kernel, ridgeline::solver::units::Kind::Time).unwrap();
        assert!((c.assumptions.kernel_s - want).abs() < 1e-12, "{class}");
        assert_eq!(c.assumptions.dequant_4bit, base.dequant_4bit);
        // llama.cpp's cuBLAS calls accumulate fp16 GEMMs in fp16.
        assert_eq!(
            c.assumptions.accumulate,
            ridgeline::solver::Accumulate::Fp16
        );
    }
    // Every other stack's profile has no classes: its measurements get
    // its one set of values, as before classes.
    for c in own.iter().filter(|c| c.measurement.stack != "llama.cpp") {
        let p = cat.profile(&c.profile).unwrap();
        assert!(p.classes.is_empty(), "{}", p.id);
        assert_eq!((c.class, c.assumptions), (None, p.assumptions));
    }
}

/// Each llama.cpp measurement's leave-one-source-out prediction, by id, in
/// `cat` and in `cat` with the profiles' class tables taken away (every
/// class then gets the base values, as a profile without classes).
fn llama_cpp_loso(cat: &Catalog) -> Vec<(String, Option<f64>, Option<f64>)> {
    let own = per_stack(cat);
    let loso = leave_one_source_out(cat, &own, &[]);
    let mut flat = cat.clone();
    for p in flat.profiles.iter_mut() {
        p.classes.clear();
    }
    let own_flat = per_stack(&flat);
    let loso_flat = leave_one_source_out(&flat, &own_flat, &[]);
    own.iter()
        .zip(&loso)
        .zip(&loso_flat)
        .filter(|((c, _), _)| c.measurement.stack == "llama.cpp")
        .map(|((c, l), lf)| {
            (
                c.measurement.id.clone(),
                l.map(|p| p.value),
                lf.map(|p| p.value),
            )
        })
        .collect()
}

#[test]
fn leaving_a_source_out_refits_a_class_only_on_the_other_sources_of_that_class() {
    // `hbm` has two sources (XiongjieDai's CUDA table and llama.cpp
    // PR #6017's A100 PCIe), `apple` two (XiongjieDai's Apple table and
    // llama.cpp PR #10238's M2 Ultra): each one left out has its class
    // refitted on the other, which moves its predictions. Without the
    // second sources each of those classes has one source: left out, no
    // figure of its class is left to fit on, so it is predicted with the
    // base values refitted on the other sources, the same prediction as a
    // profile without classes makes.
    let cat = catalog();
    let own = per_stack(&cat);
    let class = |id: &str| {
        let c = own.iter().find(|c| c.measurement.id == id).unwrap();
        c.class.map(|k| k.name())
    };
    let apple = "llama-cpp-llama-3-8b-m2-ultra-q4km-pp512";
    let a100 = "llama-cpp-llama-3-8b-a100-sxm-q4km-pp512";
    assert_eq!(class(apple), Some("apple"));
    assert_eq!(class(a100), Some("hbm"));
    let get = |rows: &[(String, Option<f64>, Option<f64>)], id: &str| {
        let r = rows.iter().find(|r| r.0 == id).unwrap();
        (r.1.unwrap(), r.2.unwrap())
    };
    let both = llama_cpp_loso(&cat);
    for id in [a100, apple] {
        let (l, flat) = get(&both, id);
        assert!((l / flat - 1.0).abs() > 0.01, "{id}: {l} {flat}");
    }
    let mut one = catalog();
    one.measurements.retain(|m| {
        !m.origin.ends_with("llama-cpp-pr10238.toml")
            && !m.origin.ends_with("llama-cpp-pr6017.toml")
    });
    assert_eq!(one.measurements.len() + 7, cat.measurements.len());
    let alone = llama_cpp_loso(&one);
    let mut n = 0;
    for (id, l, lf) in &alone {
        if matches!(class(id), Some("hbm" | "apple")) {
            assert_eq!(l, lf, "{id}");
            n += 1;
        }
    }
    // HBM: XiongjieDai's 26 figures on A100s and the H100 PCIe; Apple:
    // XiongjieDai's 21 on the M2 Ultra and M3 Max.
    assert_eq!(n, 26 + 21);
}

#[test]
fn the_bands_hold_most_held_out_measurements() {
    // Each profile's band holds 90% of its fitted half by construction;
    // on the held-out half it must still hold three in four.
    let cat = catalog();
    let checked = per_stack(&cat);
    let h = summary(&checked, |c| !c.fit);
    assert!(h.inside_band * 4 >= h.count * 3, "{h:?}");
}

#[test]
fn the_readme_quotes_the_summary_as_validate_prints_it() {
    // Regenerate with `ridgeline validate --summary` after a change to the
    // model, a profile or a measurement.
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/validation.md"))
            .unwrap();
    let table = summary_table(&catalog());
    assert!(readme.contains(&table), "page differs from:\n{table}");
}

#[test]
fn deepseek_v3_at_batch_one_is_several_times_off_until_its_fixed_costs_are_counted() {
    // SGLang v0.4.1.post2, 8 x H200, fp8, batch 1, 128 in, 256 out: 30.29
    // tokens/s (sgl-project/sglang PR #2643).
    let cat = catalog();
    let m = cat
        .measurements
        .iter()
        .find(|m| m.id == "sglang-deepseek-v3-h200-fp8-tp8-b1-i128-o256")
        .unwrap();
    assert_eq!(m.value, 30.29);
    let predict = |profile: &str| {
        let a = cat.profile(profile).unwrap().assumptions;
        let hw = &cat.hardware(&m.hardware).unwrap().hw;
        let model = &cat.model(&m.model).unwrap().model;
        ridgeline::solver::calibration::predict(hw, model, &m.run, m.metric, &a)
            .unwrap()
            .value
    };
    // The plain roofline streams the bytes only: about 10x too fast.
    assert!(predict("roofline") > 9.0 * m.value);
    // Counting every kernel's fixed time (1212 a step) and the 40 us per
    // MoE layer `default` fits on Mixtral and Qwen3 figures (58 layers:
    // 2.3 ms a step) brings it to 2.7x: the 30% is not met.
    let d = predict("default");
    assert!(d > 2.5 * m.value && d < 3.0 * m.value, "{d}");
    // The stack's profile adds its fitted per-MoE-layer cost.
    assert!((predict("sglang") / m.value - 1.0).abs() < 0.05);
}

/// The training runs of the catalog, predicted with the `default` profile.
#[test]
fn at_least_forty_training_runs_from_six_sources_are_shipped_and_predicted() {
    use ridgeline::cli::validate_train::check_runs;
    let cat = catalog();
    assert!(cat.diagnostics.is_empty(), "{:?}", cat.diagnostics);
    let runs = &cat.training_runs;
    assert!(runs.len() >= 40, "{}", runs.len());
    let distinct =
        |f: &dyn Fn(&ridgeline::catalog::training_runs::TrainingMeasurement) -> String| {
            let mut v: Vec<String> = runs.iter().map(f).collect();
            v.sort();
            v.dedup();
            v.len()
        };
    assert!(distinct(&|r| r.origin.clone()) >= 6);
    assert!(distinct(&|r| r.hardware.clone()) >= 6);
    // Every run is predicted but PaLM's across two TPU v4 pods (the
    // catalog has no network between pods), as README says.
    for c in check_runs(&cat, None, &[]).unwrap() {
        match &c.profile {
            Ok(_) => {}
            Err(e) => {
                assert!(c.run.id.starts_with("palm-paper"), "{}: {e}", c.run.id);
                assert!(e.contains("no scale-out network"), "{e}");
            }
        }
    }
}

#[test]
fn the_readme_quotes_the_training_summary_and_its_claims_hold() {
    use ridgeline::cli::validate_train::{check_runs, summary_table};
    use ridgeline::solver::calibration::error;
    let cat = catalog();
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/training.md")).unwrap();
    // Regenerate with `ridgeline validate --kind train --summary`.
    let table = summary_table(&cat, None, &[]).unwrap();
    assert!(readme.contains(&table), "page differs from:\n{table}");
    let checked = check_runs(&cat, None, &[]).unwrap();
    // Issue 17's bar for training, bounded here: the median error at most
    // 12%, held out (each source predicted without it) and with the
    // profile; and no published run judged not to fit.
    let s = ridgeline::cli::validate_train::summarize(&checked);
    assert!(s.held_out.1 <= 0.12, "{s:?}");
    assert!(s.profile.1 <= 0.12, "{s:?}");
    assert_eq!(s.not_fitting, 0, "{s:?}");
    // "With one eta_c for every stack (`--profile default`, 0.7) the median
    // is 11.6%: ... all but one of llm-foundry's MPT runs on H100 are then
    // predicted more than 10% too fast, every dense Megatron-Bridge run on
    // the same device more than 10% too slow".
    let one = check_runs(&cat, Some("default"), &[]).unwrap();
    let d = ridgeline::cli::validate_train::summarize(&one);
    assert!((d.profile.1 - 0.116).abs() < 0.0005, "{d:?}");
    let mut mpt = (0, 0);
    for c in &one {
        let r = c.run;
        let e = c.profile.as_ref().map(|p| error(p.value, r.value));
        if r.origin.contains("llm-foundry") && r.hardware == "h100-sxm" {
            mpt.0 += 1;
            mpt.1 += usize::from(e.unwrap() > 0.10);
        }
        if r.origin.contains("megatron-bridge")
            && r.hardware == "h100-sxm"
            && !r.model.contains("qwen3")
        {
            assert!(e.unwrap() < -0.10, "{}", r.id);
        }
    }
    assert!(mpt.0 > 1 && mpt.1 == mpt.0 - 1, "{mpt:?}");
    // "held out (fitted on NeMo's and MaxText's Mixtral runs alone, 0.11
    // µs) Qwen3-30B-A3B on H100 is still predicted 2x too fast".
    let qwen = checked
        .iter()
        .find(|c| c.run.id == "mbridge-2511-qwen3-30b-a3b-h100-fp8-pp2-vp24-ep8")
        .unwrap();
    let (h, p) = qwen.held_out.unwrap();
    assert!(
        (h.moe_token_time_s.unwrap() - 0.11e-6).abs() < 0.005e-6,
        "{h:?}"
    );
    let held = error(p.value, qwen.run.value);
    assert!((0.9..1.2).contains(&held), "{held}");
    // "eager PyTorch at that power is still predicted 49% too fast held out
    // (46% with its stack profile's η_c)": torchtitan's 8B on h100-sxm-96gb.
    let titan = checked
        .iter()
        .find(|c| c.run.id == "torchtitan-llama3.1-8b-h100-fsdp128-bf16-tps")
        .unwrap();
    assert_eq!(titan.run.hardware, "h100-sxm-96gb");
    let (_, p) = titan.held_out.unwrap();
    let held = error(p.value, titan.run.value);
    assert!((0.485..0.495).contains(&held), "{held}");
    let prof = error(titan.profile.as_ref().unwrap().value, titan.run.value);
    assert!((0.455..0.465).contains(&prof), "{prof}");
    // "None of the 72 runs is judged not to fit": none, on its stack's
    // profile, the figure the page's sentence and table give.
    let unfit: Vec<&str> = checked
        .iter()
        .filter(|c| c.profile.as_ref().is_ok_and(|p| !p.fits))
        .map(|c| c.run.id.as_str())
        .collect();
    assert!(unfit.is_empty(), "{unfit:?}");
    assert!(readme.contains(&format!(
        "None of the {} runs is judged not to fit",
        cat.training_runs.len()
    )));
}

#[test]
fn a_bad_training_run_file_is_reported_at_its_place_and_the_rest_loads() {
    // A user training file with a row missing keys, an MFU without its
    // count of FLOPs and degrees that do not make its devices: each problem
    // at its line and column, the row skipped, the built-in runs kept.
    let dir = std::env::temp_dir().join("ridgeline-test-bad-training");
    std::fs::create_dir_all(dir.join("training")).unwrap();
    std::fs::write(
        dir.join("training/bad.toml"),
        "[[run]]\nid = \"x\"\nmodel = \"llama-3.1-8b\"\nhardware = \"h100\"\nmetric = \"mfu\"\nvalue = 0.4\ndevices = 8\ndp = 4\n",
    )
    .unwrap();
    let mut cat = Catalog::load(Some(&dir));
    cat.add_measurements(Some(&dir));
    let said: Vec<String> = cat.diagnostics.iter().map(|d| d.to_string()).collect();
    let has = |what: &str| said.iter().any(|d| d.contains(what));
    assert!(has("bad.toml:1:1") && has("missing `stack`"), "{said:?}");
    assert!(has("bad.toml:5:10") && has("mfu_flops"), "{said:?}");
    assert!(
        has("bad.toml:7:11") && has("devices 8 is not dp x tp x pp x cp x ep = 4"),
        "{said:?}"
    );
    assert!(cat.training_runs.iter().all(|r| r.id != "x"));
    assert!(cat.training_runs.len() >= 40);
    // A memory reading must say what it counts.
    let dir = std::env::temp_dir().join("ridgeline-test-bad-memory-kind");
    std::fs::create_dir_all(dir.join("training")).unwrap();
    let row = |kind: &str| {
        format!(
            "[[run]]\nid = \"m\"\nmodel = \"llama-3.1-8b\"\nhardware = \"h100\"\nstack = \"torchtitan\"\nstack_version = \"9dec370\"\nyear = 2024\nsource = \"https://example.com\"\nquote = \"q\"\nmetric = \"peak_memory_bytes\"\nvalue = 1e10\n{kind}devices = 8\ndp = 8\ntp = 1\npp = 1\nzero = 3\nrecompute = \"full\"\nmicro_batch = 1\nglobal_batch = 65536\nseq = 8192\nprecision = \"bf16\"\n"
        )
    };
    for (kind, says) in [
        ("", "needs memory_kind"),
        (
            "memory_kind = \"active\"\n",
            "memory_kind must be allocated or reserved",
        ),
    ] {
        std::fs::write(dir.join("training/m.toml"), row(kind)).unwrap();
        let mut cat = Catalog::load(Some(&dir));
        cat.add_measurements(Some(&dir));
        let said: Vec<String> = cat.diagnostics.iter().map(|d| d.to_string()).collect();
        assert!(said.iter().any(|d| d.contains(says)), "{said:?}");
        assert!(cat.training_runs.iter().all(|r| r.id != "m"));
    }
    std::fs::write(
        dir.join("training/m.toml"),
        row("memory_kind = \"allocated\"\n"),
    )
    .unwrap();
    let mut cat = Catalog::load(Some(&dir));
    cat.add_measurements(Some(&dir));
    assert!(cat.diagnostics.is_empty(), "{:?}", cat.diagnostics);
    let m = cat.training_runs.iter().find(|r| r.id == "m").unwrap();
    assert_eq!(
        m.memory_kind,
        Some(ridgeline::catalog::training_runs::MemoryKind::Allocated)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_default_moe_token_time_is_the_fit_over_the_shipped_moe_runs() {
    // DEFAULT_MOE_TOKEN_TIME_S is the MoE token time that best predicts
    // the shipped MoE training runs at the default profile (mean |ln
    // error|), rounded to 10 ns: a change to the runs or the model that
    // moves the fit must move the default (and its documentation) too.
    use ridgeline::cli::validate_train::moe_token_time_fit;
    use ridgeline::solver::training::DEFAULT_MOE_TOKEN_TIME_S;
    let cat = catalog();
    let fit = moe_token_time_fit(&cat, "default").unwrap().unwrap();
    assert!(
        (fit - DEFAULT_MOE_TOKEN_TIME_S).abs() <= 0.005e-6,
        "fit {fit:e} s"
    );
}

#[test]
fn leaving_a_source_out_refits_only_fitted_profiles_and_never_on_that_source() {
    use ridgeline::cli::validate::check;
    let cat = catalog();
    // `roofline` fits nothing: left out or not, the same prediction.
    let p = cat.profile("roofline").unwrap();
    let plain = check(&cat, |_, _| {
        (
            p.id.clone(),
            ridgeline::catalog::device_class::Resolved::base(p.assumptions),
        )
    });
    let loso = leave_one_source_out(&cat, &plain, &[]);
    for (c, l) in plain.iter().zip(&loso) {
        assert_eq!(
            c.prediction.as_ref().ok(),
            l.as_ref(),
            "{}",
            c.measurement.id
        );
    }
    // Each stack's own profile: refitted without the file, so a prediction
    // moves where the file carried weight in its profile's fit. SGLang
    // v0.4.1's DeepSeek-V3 is the only source of the `sglang` profile's
    // 220 us per MoE layer: refitted on SGLang's two later runs (faster MoE
    // layers), it comes out more than 1.3x too fast (30.29 tokens/s
    // measured; 1.42x when this was written).
    let own = per_stack(&cat);
    let loso = leave_one_source_out(&cat, &own, &[]);
    let i = own
        .iter()
        .position(|c| c.measurement.id == "sglang-deepseek-v3-h200-fp8-tp8-b1-i128-o256")
        .unwrap();
    let with = own[i].prediction.as_ref().unwrap().value;
    let without = loso[i].unwrap().value;
    assert!((with / 30.29 - 1.0).abs() < 0.05, "{with}");
    assert!(without > 1.3 * 30.29, "{without}");
    // Every measurement the profiles predict is predicted left out too.
    let s = loso_summary(&own, &loso, |_| true);
    assert_eq!(s.count, summary(&own, |_| true).count);
    // Every stack, each with its own profile, each source left out: 10.7%
    // (13.2% while llama.cpp's classes were datacenter / consumer / apple
    // and its 4090 figures were read against the FP32-accumulate peak;
    // docs/validation.md). The bar is 12%: a guard that holds it.
    assert!(s.median_abs_error <= 0.12, "{s:?}");
}

#[test]
fn a_large_moe_on_a_current_stack_is_within_thirty_percent_on_one_node_not_across_two() {
    // `default` is fitted on gpt-fast's and vLLM's MoE figures, never on
    // SGLang's: these are held out by construction. SGLang v0.5.7,
    // DeepSeek-R1 on 8 x H200, 8 in flight: 12.8 ms a token (InferenceX
    // issue #870). Tenstorrent's run on 16 H100 over InfiniBand at batch 1:
    // 23.1 ms (tt-inference-server issue #356).
    let cat = catalog();
    let a = cat.profile("default").unwrap().assumptions;
    assert!(
        !cat.profile("default")
            .unwrap()
            .fit
            .as_ref()
            .unwrap()
            .stacks
            .contains(&"sglang".to_string())
    );
    let predict = |id: &str| {
        let m = cat.measurements.iter().find(|m| m.id == id).unwrap();
        let hw = &cat.hardware(&m.hardware).unwrap().hw;
        let model = &cat.model(&m.model).unwrap().model;
        let p = ridgeline::solver::calibration::predict(hw, model, &m.run, m.metric, &a).unwrap();
        p.value / m.value - 1.0
    };
    let one_node = predict("sglang-deepseek-r1-h200-fp8-tp8-c8-i1024-o1024-tpot");
    assert!(one_node.abs() < 0.30, "{one_node}");
    let two_nodes = predict("sglang-deepseek-r1-16xh100-fp8-tp16-c1-i128-o128-tpot");
    assert!(two_nodes < -0.30, "{two_nodes}");
    // At batch 1 on one node, without speculative decoding: TensorRT-LLM
    // on 8 x B200, 111 tokens/s a user (NVIDIA's min-latency blog, its
    // "Without MTP" row), and vLLM on 8 x H100 with the AWQ checkpoint,
    // 16.1 ms a token (tt-inference-server issue #356). Both entered the
    // catalog after `default` was fitted: the split puts them in the
    // fitted half, but no profile has seen them. `default` says 87.5
    // tokens/s (-21%) and 12.5 ms (-22%).
    for id in [
        "tensorrt-llm-tech-blog-deepseek-r1-b200-fp4-tp8-c1-i1024-o2048-no-mtp",
        "vllm-tenstorrent-deepseek-r1-h100-int4-tp8-c1-i128-o128-tpot",
    ] {
        let e = predict(id);
        assert!(e.abs() < 0.30, "{id}: {e}");
    }
}

#[test]
fn the_stack_profiles_keep_the_defaults_serving_keys_by_extending_it() {
    // megatron-core, pytorch-fsdp and jax-xla extend `default`: every
    // assumption they do not set is default's (so a recalibrated default
    // reaches them), and what they set is theirs: compute_efficiency, and
    // jax-xla's usable_memory (XLA's 0.97 against the allocator's 0.9).
    use ridgeline::catalog::profile::{KEYS, get};
    let cat = catalog();
    let default = cat.profile("default").unwrap();
    for (id, own) in [
        ("megatron-core", &["compute_efficiency"][..]),
        ("pytorch-fsdp", &["compute_efficiency"][..]),
        ("jax-xla", &["compute_efficiency", "usable_memory"][..]),
    ] {
        let p = cat.profile(id).unwrap();
        assert_eq!(p.extends.as_deref(), Some("default"), "{id}");
        for k in KEYS {
            let (mine, theirs) = (get(&p.assumptions, k.key), get(&default.assumptions, k.key));
            if own.contains(&k.key) {
                assert_ne!(mine, theirs, "{id} {}", k.key);
            } else {
                assert_eq!(mine, theirs, "{id} {}", k.key);
            }
        }
    }
}

#[test]
fn each_stack_profile_is_the_fit_over_its_familys_runs() {
    // A training stack profile's compute_efficiency is the eta_c that best
    // predicts its family's shipped speed figures, to two digits (the
    // profile files' headers say so): a change to the runs or the model
    // that moves the fit must move the profile too.
    use ridgeline::cli::validate_train::family_efficiency_fit;
    let cat = catalog();
    let mut quoted = Vec::new();
    for family in ["megatron-core", "pytorch-fsdp", "jax-xla"] {
        let shipped = cat.profile(family).unwrap().assumptions.compute_efficiency;
        let fit = family_efficiency_fit(&cat, family).unwrap().unwrap();
        assert!(
            (fit - shipped).abs() <= 0.005,
            "{family}: fit {fit}, shipped {shipped}"
        );
        quoted.push(format!("{shipped:.2}"));
    }
    // docs/training.md quotes them: "(0.77, 0.63 and 0.82; ...".
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/training.md")).unwrap();
    let page = page.split_whitespace().collect::<Vec<_>>().join(" ");
    let said = format!("({}, {} and {};", quoted[0], quoted[1], quoted[2]);
    assert!(page.contains(&said), "{said}");
}

#[test]
fn the_runs_once_judged_not_to_fit_fit_by_what_the_training_page_says() {
    // docs/training.md: each run read as its stack ran it, on its stack's
    // profile: DeepSeek-V3 on GB200 fits, 161 GB of 167 usable, 98 GB of
    // it activations; Llama 2 70B on v5p 78.0 of 98.9 (dots-except-mlpwi
    // keeps per token and layer the layer input 2h, Q 2h, K and V 2 x 2 x
    // 1024 and the out projection's output 2h = 3 x 16384 + 4096 = 53248
    // bytes, x 16384 tokens x 80 layers = 69.8 GB; 99.5 while the down
    // projection's output, 2h more, was counted); the v6e-256 run needs
    // 21.5 of 33.3 (0.97 x 32 GiB), the v6e-8 run 32.1 (13 GB of fp32
    // logits); Mixtral on v5p 83 of 98.9: its 21 GB of logits are freed
    // before backward rebuilds a layer, which takes more (104 while both
    // were counted). Figures in GB of 1e9 bytes, to the page's rounding.
    use ridgeline::cli::validate_train::run_profile_id;
    use ridgeline::cli::{profile_assumptions, profile_training};
    use ridgeline::solver::training::{TrainingAssumptions, evaluate};
    let cat = catalog();
    let memory = |id: &str| {
        let r = cat.training_runs.iter().find(|r| r.id == id).unwrap();
        let p = run_profile_id(&cat, r);
        let a = profile_assumptions(&cat, &p, &[]).unwrap();
        let t = profile_training(&cat, &p, &[], &TrainingAssumptions::default()).unwrap();
        let hw = &cat.hardware(&r.hardware).unwrap().hw;
        let model = &cat.model(&r.model).unwrap().model;
        evaluate(hw, model, &r.run, &a, &t).unwrap().memory
    };
    let gb = |x: f64, digits: i32| {
        let k = 10f64.powi(digits);
        (x / 1e9 * k).round() / k
    };
    let m = memory("mbridge-2511-deepseek-v3-gb200-bf16-pp4-vp4-ep64");
    assert_eq!(
        (
            gb(m.total(), 0),
            gb(m.usable_bytes, 0),
            gb(m.activations, 0)
        ),
        (161.0, 167.0, 98.0)
    );
    assert!(m.fits);
    let m = memory("maxtext-llama2-70b-v5p-512-fsdp-s4096");
    assert_eq!((gb(m.total(), 1), gb(m.usable_bytes, 1)), (78.0, 98.9));
    assert_eq!(gb(m.activations, 1), gb(53_248.0 * 16_384.0 * 80.0, 1));
    assert!(m.fits);
    let m = memory("tpurecipes-llama3.1-8b-v6e-256-fsdp-s8192");
    assert_eq!((gb(m.total(), 1), gb(m.usable_bytes, 1)), (21.5, 33.3));
    assert!(m.fits);
    let m = memory("tpurecipes-llama3.1-8b-v6e-8-fsdp-s8192");
    assert_eq!((gb(m.total(), 1), gb(m.logits, 0)), (32.1, 13.0));
    assert!(m.fits);
    let m = memory("maxtext-mixtral-8x7b-v5p-256-fsdp-s4096");
    assert_eq!(
        (gb(m.total(), 0), gb(m.usable_bytes, 1), gb(m.logits, 0)),
        (83.0, 98.9, 21.0)
    );
    // The logits are what is reused: the rebuilt layer is the larger.
    assert_eq!(m.reused, m.logits);
    assert_eq!(gb(m.total() + m.reused, 0), 104.0);
    assert!(m.fits);
    // "Read as `selective`, the 8B on 8 GPUs (Table 1) needs 115.4 GB of
    // 92.0 usable ...; with `selective-op` it needs 75.8 GB." Both with
    // the torchtitan profile's eager loss: 2 x 8192 tokens x 128256 x 12
    // bytes = 25.2 GB of logits (8.4 GB counted as one fp32 copy, when
    // the figures were 98.6 and 59.0).
    let id = "torchtitan-llama3.1-8b-h100-fsdp8-bf16-mem";
    let m = memory(id);
    assert_eq!((gb(m.total(), 1), gb(m.usable_bytes, 1)), (75.8, 92.0));
    assert_eq!(
        gb(m.logits, 1),
        gb(16_384.0 * (4.0 * 4096.0 + 12.0 * 128_256.0), 1)
    );
    assert!(m.fits);
    let r = cat.training_runs.iter().find(|r| r.id == id).unwrap();
    let selective = ridgeline::solver::training::TrainingRun {
        recompute: ridgeline::solver::training::Recompute::Selective,
        ..r.run
    };
    let hw = &cat.hardware(&r.hardware).unwrap().hw;
    let model = &cat.model(&r.model).unwrap().model;
    let p = run_profile_id(&cat, r);
    let a = profile_assumptions(&cat, &p, &[]).unwrap();
    let t = profile_training(&cat, &p, &[], &TrainingAssumptions::default()).unwrap();
    let m = evaluate(hw, model, &selective, &a, &t).unwrap().memory;
    assert_eq!(gb(m.total(), 1), 115.4);
    assert!(!m.fits);
}

#[test]
fn torchtitans_memory_readings_are_what_the_training_page_says() {
    // docs/training.md: with the torchtitan profile (eager loss, fp8 held
    // at 16 bits), Llama 3.1 8B on 128 GPUs needs 60.7 GB (reading 71.9);
    // the 8B in fp8 on 8 GPUs 75.8 GB, what bf16 needs (reading 82.5);
    // Table 2's four context-parallel runs 76.5 GB each, 51 GB of it the
    // loss's logits (32768 tokens a rank x (4 x 4096 + 12 x 128256) bytes
    // = 50.97 GB, the head's inputs with them); the 70B at FSDP 32 x TP 8 60.5 GB
    // (reading 77.2). Read with the torchtitan profile, each run's own.
    use ridgeline::cli::validate_train::run_profile_id;
    use ridgeline::cli::{profile_assumptions, profile_training};
    use ridgeline::solver::training::{TrainingAssumptions, evaluate};
    let cat = catalog();
    let memory = |id: &str| {
        let r = cat.training_runs.iter().find(|r| r.id == id).unwrap();
        let p = run_profile_id(&cat, r);
        assert_eq!(p, "torchtitan", "{id}");
        let a = profile_assumptions(&cat, &p, &[]).unwrap();
        let t = profile_training(&cat, &p, &[], &TrainingAssumptions::default()).unwrap();
        let hw = &cat.hardware(&r.hardware).unwrap().hw;
        let model = &cat.model(&r.model).unwrap().model;
        (evaluate(hw, model, &r.run, &a, &t).unwrap().memory, r.value)
    };
    let gb = |x: f64| (x / 1e8).round() / 10.0;
    let (m, read) = memory("torchtitan-llama3.1-8b-h100-fsdp128-bf16-mem");
    assert_eq!((gb(m.total()), gb(read)), (60.7, 71.9));
    let (m, read) = memory("torchtitan-llama3.1-8b-h100-fsdp8-fp8-compile-mem");
    assert_eq!((gb(m.total()), gb(read)), (75.8, 82.5));
    let (bf16, _) = memory("torchtitan-llama3.1-8b-h100-fsdp8-bf16-compile-mem");
    assert_eq!(m.total(), bf16.total());
    for id in [
        "torchtitan-llama3.1-8b-h100-fsdp8-cp1-seq32768-fp8-compile-mem",
        "torchtitan-llama3.1-8b-h100-fsdp4-cp2-seq65536-fp8-compile-mem",
        "torchtitan-llama3.1-8b-h100-fsdp2-cp4-seq131072-fp8-compile-mem",
        "torchtitan-llama3.1-8b-h100-fsdp1-cp8-seq262144-fp8-compile-mem",
    ] {
        let (m, _) = memory(id);
        assert_eq!(
            (gb(m.total()), (m.logits / 1e9).round()),
            (76.5, 51.0),
            "{id}"
        );
    }
    let (m, read) = memory("torchtitan-llama3.1-70b-h100-fsdp32-tp8-fp8-mem");
    assert_eq!((gb(m.total()), gb(read)), (60.5, 77.2));
    // The allocator's pool: the tensors alive x 1.15 (the default
    // allocator_overhead, torchtitan's own logged ratios), at most the
    // capacity: 60.5 x 1.15 = 69.5 GB against the 77.2 read, -10%.
    assert_eq!(gb(m.reserved), 69.5);
    assert!((m.reserved / m.total() - 1.15).abs() < 1e-12);
    assert!(
        (m.reserved / read - 1.0 + 0.099).abs() < 0.001,
        "{}",
        m.reserved / read
    );
    let (m, read) = memory("torchtitan-llama3.1-8b-h100-fsdp8-bf16-mem");
    assert_eq!(
        (gb(m.total()), gb(m.reserved), gb(read)),
        (75.8, 87.1, 88.5)
    );
}

#[test]
fn the_allocator_overhead_is_what_the_training_page_says_and_comes_off() {
    // docs/training.md: the reserved readings (all torchtitan's) are 3.0%
    // off at the median and 9.9% at worst with the default overhead of
    // 0.15; without it (`--assume allocator_overhead=0`) 14.7% and 21.7%,
    // every one below its reading. The allocated readings do not move
    // (4.3% / 12.0%): a pool is not what they count.
    use ridgeline::cli::validate_train::{check_runs, summarize};
    let cat = catalog();
    let mem = |assume: &[(&str, &str)]| {
        let assume: Vec<(String, String)> = assume
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let s = summarize(&check_runs(&cat, None, &assume).unwrap());
        (s.memory_allocated, s.memory_reserved)
    };
    let pct = |x: f64| (x * 1000.0).round() / 10.0;
    let (alloc, res) = mem(&[]);
    assert_eq!((res.0, pct(res.1), pct(res.2)), (12, 3.0, 9.9));
    assert_eq!((alloc.0, pct(alloc.1), pct(alloc.2)), (3, 4.3, 12.0));
    let (alloc0, res0) = mem(&[("allocator_overhead", "0")]);
    assert_eq!((pct(res0.1), pct(res0.2)), (14.7, 21.7));
    assert_eq!(alloc0, alloc);
}

#[test]
fn deepseek_at_batch_one_is_what_the_validation_page_says() {
    // docs/validation.md: `default` says 87.5 tokens/s a user against
    // TensorRT-LLM's 111 on 8 x B200, and 12.5 ms a token against vLLM's
    // 16.1 on 8 x H100.
    let cat = catalog();
    let a = cat.profile("default").unwrap().assumptions;
    let predict = |id: &str| {
        let m = cat.measurements.iter().find(|m| m.id == id).unwrap();
        let hw = &cat.hardware(&m.hardware).unwrap().hw;
        let model = &cat.model(&m.model).unwrap().model;
        ridgeline::solver::calibration::predict(hw, model, &m.run, m.metric, &a)
            .unwrap()
            .value
    };
    let tps = predict("tensorrt-llm-tech-blog-deepseek-r1-b200-fp4-tp8-c1-i1024-o2048-no-mtp");
    assert_eq!((tps * 10.0).round() / 10.0, 87.5);
    let itl = predict("vllm-tenstorrent-deepseek-r1-h100-int4-tp8-c1-i128-o128-tpot");
    assert_eq!((itl * 1e4).round() / 10.0, 12.5);
}

#[test]
fn the_stack_profiles_predict_other_sources_as_well_as_default_does() {
    // docs/validation.md, "each source left out": the serving stacks'
    // profiles fit their times only and take the efficiencies from
    // `default`, fitted on every stack. Left out by source, the serving
    // stacks' figures are 10.5% off at the median with their own profiles
    // and 11.7% with `default` refitted without the same source: a stack
    // profile must not predict the sources it was not fitted on worse than
    // the profile every stack shares (18.5% against 11.7% while they fitted
    // their own efficiencies too).
    let cat = catalog();
    let serving = |c: &ridgeline::cli::validate::Checked| c.measurement.stack != "llama.cpp";
    let own = per_stack(&cat);
    let own_loso = leave_one_source_out(&cat, &own, &[]);
    let o = loso_summary(&own, &own_loso, serving);
    let default = cat.profile("default").unwrap();
    let shared = check(&cat, |_, hw| {
        ("default".to_string(), on_device(default, hw))
    });
    let shared_loso = leave_one_source_out(&cat, &shared, &[]);
    let d = loso_summary(&shared, &shared_loso, serving);
    assert_eq!(o.count, d.count);
    assert!((o.median_abs_error - 0.105).abs() < 0.0005, "{o:?}");
    assert!((d.median_abs_error - 0.117).abs() < 0.0005, "{d:?}");
    assert!(o.median_abs_error <= d.median_abs_error);
    // Every stack profile of a serving stack fits times only.
    for id in ["gpt-fast", "vllm", "tensorrt-llm", "sglang"] {
        let keys = &cat.profile(id).unwrap().fit.as_ref().unwrap().keys;
        assert!(
            keys.iter().all(|k| k.ends_with("_time") || k == "overhead"),
            "{id}: {keys:?}"
        );
    }
    // vLLM by file, left out: its four larger files (its CI, the fused-MoE
    // pull requests, AMD's and Oracle's MI300X posts) 22% to 44% off at
    // the median.
    let by_file: Vec<f64> = [
        "vllm.toml",
        "vllm-moe.toml",
        "vllm-amd.toml",
        "vllm-oracle.toml",
    ]
    .iter()
    .map(|file| {
        loso_summary(&own, &own_loso, |c| c.measurement.origin.ends_with(file)).median_abs_error
    })
    .collect();
    let lo = by_file.iter().copied().fold(f64::MAX, f64::min);
    let hi = by_file.iter().copied().fold(0.0, f64::max);
    assert_eq!(
        ((lo * 100.0).round(), (hi * 100.0).round()),
        (22.0, 44.0),
        "{by_file:?}"
    );
    // What it cost: vLLM's 2025 Qwen3-30B-A3B step, predicted 57% too long
    // held out (one time per MoE layer, 80 us, for every generation).
    let qwen = own
        .iter()
        .find(|c| c.measurement.id == "vllm-qwen3-30b-a3b-h100-bf16-tp1-c10-i2048-o1024-tpot")
        .unwrap();
    let p = qwen.prediction.as_ref().unwrap().value;
    let e = p / qwen.measurement.value - 1.0;
    assert!((0.565..0.575).contains(&e), "{e}");
}

#[test]
fn the_moe_figures_are_what_the_validation_page_says() {
    // docs/validation.md, "MoE": on the 25 MoE figures (Mixtral 8x7B and
    // 8x22B, Qwen3-30B-A3B, DeepSeek-V3 and R1) `default` is 21% off at
    // the median on the fitted half (14 figures), 29% held out (11) and
    // 24% with each source left out (25); with their stacks' profiles
    // Mixtral 8x7B at batch 1 is within 9% (A100, TP 2) and 11% (H100, TP
    // 8) of vLLM's early-2024 runs, gpt-fast's bf16 within 18% and its int8
    // on one GPU +51%; vLLM's Mixtral on H100 at batch 8 is 27% short.
    let cat = catalog();
    let moe = |c: &ridgeline::cli::validate::Checked| {
        let m = &c.measurement.model;
        m.starts_with("mixtral") || m.starts_with("qwen3-30b") || m.starts_with("deepseek")
    };
    let default = cat.profile("default").unwrap();
    let shared = check(&cat, |_, hw| {
        ("default".to_string(), on_device(default, hw))
    });
    let pct = |x: f64| (x * 100.0).round();
    let fit = summary(&shared, |c| moe(c) && c.fit);
    let held = summary(&shared, |c| moe(c) && !c.fit);
    let loso = leave_one_source_out(&cat, &shared, &[]);
    let left = loso_summary(&shared, &loso, moe);
    assert_eq!((fit.count, held.count, left.count), (14, 11, 25));
    assert_eq!(
        (
            pct(fit.median_abs_error),
            pct(held.median_abs_error),
            pct(left.median_abs_error)
        ),
        (21.0, 29.0, 24.0)
    );
    let own = per_stack(&cat);
    let err = |id: &str| {
        let c = own.iter().find(|c| c.measurement.id == id).unwrap();
        c.prediction.as_ref().unwrap().value / c.measurement.value - 1.0
    };
    assert_eq!(
        pct(err("vllm-mixtral-8x7b-a100-bf16-tp2-b1-i1000-o50-e2e")),
        -9.0
    );
    assert_eq!(
        pct(err("vllm-mixtral-8x7b-h100-bf16-tp8-b1-i1000-o50-e2e")),
        -11.0
    );
    assert_eq!(
        pct(err("vllm-mixtral-8x7b-h100-bf16-tp8-b8-i1000-o50-e2e")),
        -27.0
    );
    let gpt_fast_bf16 = ["tp2", "tp4", "tp8"]
        .map(|tp| err(&format!("gpt-fast-mixtral-8x7b-bf16-{tp}-a100")).abs())
        .into_iter()
        .fold(0.0, f64::max);
    assert_eq!(pct(gpt_fast_bf16), 18.0);
    assert_eq!(pct(err("gpt-fast-mixtral-8x7b-int8-tp1-a100")), 51.0);
}

#[test]
fn megatrons_allocated_readings_are_what_the_training_page_says() {
    // docs/training.md: Megatron-LM CI's 7B on H100 and GB200 and the
    // Megatron-Bridge 1B log, each run saying grad_precision = "fp32",
    // read -4%, -4% and -12% with the megatron-core profile (58.1 GB of
    // 60.7 and 60.5, 11.1 of 12.6); with bf16 gradients (`--assume
    // grad_precision=param` overrides a run's own key) -11%, -10% and -32%.
    use ridgeline::cli::validate_train::check_runs;
    let cat = catalog();
    let errors = |assume: &[(String, String)]| -> Vec<f64> {
        let checked = check_runs(&cat, None, assume).unwrap();
        [
            "megatron-ci-gpt-7b-h100-pp4-v8-mem",
            "megatron-ci-gpt-7b-gb200-pp4-v8-mem",
            "mbridge-byoc-llama3.2-1b-h100-dp8-mem",
        ]
        .iter()
        .map(|id| {
            let c = checked.iter().find(|c| c.run.id == *id).unwrap();
            assert_eq!(c.profile_id, "megatron-core", "{id}");
            let p = c.profile.as_ref().unwrap().value;
            (100.0 * (p / c.run.value - 1.0)).round()
        })
        .collect()
    };
    assert_eq!(errors(&[]), [-4.0, -4.0, -12.0]);
    let bf16 = [("grad_precision".to_string(), "param".to_string())];
    assert_eq!(errors(&bf16), [-11.0, -10.0, -32.0]);
}

#[test]
fn the_class_table_of_the_validation_page_is_the_profiles() {
    // docs/validation.md's table of llama.cpp's device classes: each row's
    // eta_c, eta_m and time per kernel are catalog/profiles/llama-cpp.toml's.
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/validation.md"))
        .unwrap();
    let t: toml::Table = include_str!("../catalog/profiles/llama-cpp.toml")
        .parse()
        .unwrap();
    for class in ["hbm", "gddr", "apple"] {
        let row = page
            .lines()
            .find(|l| l.starts_with(&format!("| `{class}` | ")) && l.contains("µs"))
            .unwrap_or_else(|| panic!("no row for {class}"));
        let kernel = t["profile"][0]["class"][class]["kernel_time"]
            .as_str()
            .unwrap()
            .replace(" us", " µs");
        let want = format!(
            "| {} | {} | {} |",
            class_value(class, "compute_efficiency"),
            class_value(class, "memory_efficiency"),
            kernel
        );
        assert!(row.ends_with(&want), "{row} / {want}");
    }
}
