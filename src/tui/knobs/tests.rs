//! The knobs: stepping, parsing and what applies to which model.
use super::*;

fn base() -> Inputs {
    Inputs {
        wl: Workload::default(),
        a: Assumptions::default(),
        v: ViewInputs::default(),
        profile: Profile {
            id: "roofline".into(),
            base: Assumptions::default(),
            training: Default::default(),
            class: None,
        },
    }
}

fn choices() -> Choices {
    Choices {
        regions: vec!["us-east".into(), "eu-west".into(), "fr".into()],
        families: vec!["nvidia-datacenter".into(), "amd-instinct".into()],
        profiles: profiles(),
        drafts: Vec::new(),
    }
}

#[test]
fn tp_steps_skip_degrees_that_do_not_split_the_heads() {
    // 40 heads and 8 KV heads: the degrees above 8 that divide 40 are 10,
    // 20 and 40; 10 and 20 ranks cannot share 8 KV heads evenly (neither
    // divides the other), 40 can (40 % 8 == 0). So up from 8 goes to 40,
    // and down from 40 back to 8.
    let mut m = crate::solver::Model {
        id: "m".into(),
        name: "m".into(),
        kind: crate::solver::ModelKind::DenseDecoder,
        params: 13e9,
        arch: Arch::Decoder(crate::solver::Decoder {
            layers: 40,
            hidden: 5120,
            heads: 40,
            kv_heads: 8,
            head_dim: 128,
            ffn: 13824,
            vocab: 32000,
            tied_embeddings: false,
            max_context: 4096,
            moe: None,
            mla: None,
            gated_mlp: true,
            window: None,
        }),
        layers: Vec::new(),
    };
    let mut i = base();
    i.wl.tp = 8;
    assert_eq!(Knob::Tp.step_for(&i, true, &choices(), Some(&m)).wl.tp, 40);
    i.wl.tp = 40;
    assert_eq!(Knob::Tp.step_for(&i, false, &choices(), Some(&m)).wl.tp, 8);
    // 32 heads: powers of two as before, and no step past 32.
    if let Arch::Decoder(d) = &mut m.arch {
        d.heads = 32;
    }
    i.wl.tp = 4;
    assert_eq!(Knob::Tp.step_for(&i, true, &choices(), Some(&m)).wl.tp, 8);
    i.wl.tp = 32;
    assert_eq!(Knob::Tp.step_for(&i, true, &choices(), Some(&m)).wl.tp, 32);
    // Pipeline stages stop at the 40 layers.
    i.wl.pp = 32;
    assert_eq!(Knob::Pp.step_for(&i, true, &choices(), Some(&m)).wl.pp, 40);
}

#[test]
fn token_knobs_read_k_as_1024() {
    // "8k" context = 8 x 1024 = 8192 tokens; "2k" prompt = 2048.
    let i = base();
    let c = Knob::Context.parse("8k", &i, &choices()).unwrap();
    assert_eq!(c.wl.context, 8192.0);
    let p = Knob::Prompt.parse("2k", &i, &choices()).unwrap();
    assert_eq!(p.v.request.prompt, 2048.0);
    let o = Knob::Output.parse("1k", &i, &choices()).unwrap();
    assert_eq!(o.v.request.output, 1024.0);
    // 128k shows as 131072 and reads back equal.
    let c = Knob::Context.parse("128k", &i, &choices()).unwrap();
    let shown = Knob::Context.value(&c);
    assert_eq!(
        Knob::Context
            .parse(&shown, &i, &choices())
            .unwrap()
            .wl
            .context,
        131072.0
    );
}

#[test]
fn steps_double_halve_cycle_and_toggle() {
    let i = base();
    assert_eq!(Knob::Batch.step(&i, true, &choices()).wl.batch, 2.0);
    assert_eq!(
        Knob::Batch.step(&i, false, &choices()).wl.batch,
        1.0,
        "batch never below 1"
    );
    assert_eq!(Knob::Context.step(&i, true, &choices()).wl.context, 8192.0);
    assert_eq!(
        Knob::Weights.step(&i, true, &choices()).wl.weights,
        Precision::Bf16.next()
    );
    assert_eq!(
        Knob::Kv.step(&i, false, &choices()).wl.kv,
        Precision::Bf16.prev()
    );
    assert_eq!(
        Knob::Phase.step(&i, true, &choices()).wl.phase,
        Phase::Prefill
    );
    assert_eq!(Knob::Tp.step(&i, true, &choices()).wl.tp, 2);
    assert_eq!(Knob::Tp.step(&i, false, &choices()).wl.tp, 1);
    assert_eq!(
        Knob::ComputeEff
            .step(&i, true, &choices())
            .a
            .compute_efficiency,
        0.75
    );
    assert_eq!(
        Knob::Overhead.step(&i, true, &choices()).a.overhead_s,
        20e-6
    );
}

#[test]
fn reads_units() {
    let i = base();
    assert_eq!(
        Knob::Context
            .parse("8k", &i, &choices())
            .unwrap()
            .wl
            .context,
        8192.0,
        "token counts: k = 1024"
    );
    assert_eq!(
        Knob::Overhead
            .parse("50ms", &i, &choices())
            .unwrap()
            .a
            .overhead_s,
        0.05
    );
    assert_eq!(
        Knob::MemoryEff
            .parse("70%", &i, &choices())
            .unwrap()
            .a
            .memory_efficiency,
        0.7
    );
    assert_eq!(
        Knob::ComputeEff
            .parse("0.6", &i, &choices())
            .unwrap()
            .a
            .compute_efficiency,
        0.6
    );
    assert_eq!(
        Knob::Kv.parse("FP8", &i, &choices()).unwrap().wl.kv,
        Precision::Fp8
    );
    assert_eq!(Knob::Tp.parse("8", &i, &choices()).unwrap().wl.tp, 8);
}

#[test]
fn bad_text_says_why() {
    let i = base();
    let e = Knob::Context.parse("lots", &i, &choices()).unwrap_err();
    assert!(e.contains("no number found"), "{e}");
    assert!(
        Knob::Tp
            .parse("2.5", &i, &choices())
            .unwrap_err()
            .contains("whole number")
    );
    assert!(
        Knob::Weights
            .parse("fp7", &i, &choices())
            .unwrap_err()
            .contains("unknown precision")
    );
    assert!(
        Knob::Overhead
            .parse("5", &i, &choices())
            .unwrap_err()
            .contains("unit")
    );
}

#[test]
fn view_knobs_step_and_read() {
    let i = base();
    let c = choices();
    assert_eq!(Knob::Prompt.step(&i, true, &c).v.request.prompt, 4096.0);
    assert_eq!(Knob::Region.step(&i, true, &c).v.region, "eu-west");
    assert_eq!(Knob::Region.step(&i, false, &c).v.region, "fr");
    assert_eq!(Knob::Regions.step(&i, true, &c).v.regions, vec!["eu-west"]);
    let two = Knob::Regions.parse("us-east, eu-west", &i, &c).unwrap();
    assert_eq!(two.v.regions, vec!["us-east", "eu-west"]);
    // A region typed twice, in any case, is one region in its first place.
    let again = Knob::Regions
        .parse("us-east,EU-WEST,us-east US-EAST", &i, &c)
        .unwrap();
    assert_eq!(again.v.regions, vec!["us-east", "eu-west"]);
    assert_eq!(
        Knob::Regions.step(&two, true, &c).v.regions,
        vec!["us-east", "fr"]
    );
    assert!(
        Knob::Regions
            .parse("mars", &i, &c)
            .unwrap_err()
            .contains("no region")
    );
    assert_eq!(
        Knob::Budget.parse("5M", &i, &c).unwrap().v.budget,
        Some(5e6)
    );
    assert_eq!(Knob::Budget.parse("none", &i, &c).unwrap().v.budget, None);
    assert_eq!(
        Knob::Target.parse("100ms ttft", &i, &c).unwrap().v.target,
        SynthTarget::Ttft(0.1)
    );
    assert!(Knob::Target.parse("fast", &i, &c).is_err());
    assert_eq!(
        Knob::SweepAxis.step(&i, true, &c).v.sweep,
        SweepAxis::Context
    );
    assert_eq!(
        // From the default, A100 -> H100 -> H200 -> B200, to the first family.
        Knob::Family.step(&i, true, &c).v.family,
        Family::Named("nvidia-datacenter".into())
    );
    assert_eq!(Knob::Family.step(&i, false, &c).v.family, Family::Marked);
    assert_eq!(Knob::TtftSla.parse("200ms", &i, &c).unwrap().v.ttft_s, 0.2);
    assert!(Knob::ItlSla.parse("0ms", &i, &c).is_err());
}

#[test]
fn one_precision_knob_sets_all_three_and_reads_mixed() {
    let i = base();
    let c = choices();
    let all = |i: &Inputs| (i.wl.weights, i.wl.activations, i.wl.kv);
    let up = Knob::Precision.step(&i, true, &c);
    let p = Precision::Bf16.next();
    assert_eq!(all(&up), (p, p, p));
    assert_eq!(Knob::Precision.value(&up), p.name());
    let fp4 = Knob::Precision.parse("FP4", &i, &c).unwrap();
    assert_eq!(all(&fp4), (Precision::Fp4, Precision::Fp4, Precision::Fp4));
    // One of the three moved: the single knob reads mixed, and reading
    // "mixed" back keeps the three as they are.
    let mixed = Knob::Kv.step(&i, true, &c);
    assert_eq!(Knob::Precision.value(&mixed), MIXED);
    assert_eq!(Knob::Precision.parse("mixed", &mixed, &c).unwrap(), mixed);
    assert!(
        Knob::Precision.parse("mixed", &i, &c).is_err(),
        "nothing to keep"
    );
    // From mixed, a step moves all three from the weights' format.
    assert_eq!(all(&Knob::Precision.step(&mixed, false, &c)), {
        let q = Precision::Bf16.prev();
        (q, q, q)
    });
}

#[test]
fn decode_only_knobs_do_not_apply_to_one_forward_pass() {
    use crate::solver::ModelKind;
    let cnn = Words::of(ModelKind::Cnn, Some("224x224 RGB image"));
    let llm = Words::of(ModelKind::DenseDecoder, None);
    for k in Knob::ALL {
        let decode_only = matches!(k, Knob::Phase | Knob::Context | Knob::Kv);
        assert_eq!(k.applies(cnn), !decode_only, "{k:?}");
        assert!(k.applies(llm), "{k:?}");
    }
}

#[test]
fn values_read_back() {
    let i = base();
    let mut all = Knob::ALL.to_vec();
    for view in 0..6 {
        all.extend(Knob::for_view(view));
    }
    for k in all {
        let v = k.value(&i);
        let back = k
            .parse(&v, &i, &choices())
            .unwrap_or_else(|e| panic!("{k:?} {v}: {e}"));
        assert_eq!(k.value(&back), v);
    }
}

/// Two profiles: the plain roofline and one that differs in each kind of
/// assumption (a fraction, a time, the algorithm, the band) and in two
/// training keys.
fn profiles() -> Vec<Profile> {
    let roofline = Assumptions::default();
    let stack = Assumptions {
        compute_efficiency: 0.6,
        kernel_s: 6.5e-6,
        collective: crate::solver::Collective::Tree,
        band_base: 0.1,
        ..roofline
    };
    vec![
        Profile {
            id: "roofline".into(),
            base: roofline,
            training: Default::default(),
            class: None,
        },
        Profile {
            id: "stack".into(),
            base: stack,
            training: crate::solver::training::TrainingAssumptions {
                tp_overlap: 0.5,
                matmul_ceiling: crate::solver::training::MatmulCeiling::Flat,
                ..Default::default()
            },
            class: None,
        },
    ]
}

#[test]
fn the_profile_knob_sets_every_assumption_and_wraps() {
    let c = choices();
    let i = base();
    let up = Knob::Profile.step(&i, true, &c);
    assert_eq!(up.profile, c.profiles[1]);
    assert_eq!(up.a, c.profiles[1].base);
    assert_eq!(Knob::Profile.value(&up), "stack");
    // Past the last, back to the first; down from the first, the last.
    assert_eq!(Knob::Profile.step(&up, true, &c).profile.id, "roofline");
    assert_eq!(Knob::Profile.step(&i, false, &c).profile.id, "stack");
    // Typed, in any case.
    let typed = Knob::Profile.parse("STACK", &i, &c).unwrap();
    assert_eq!(
        (typed.profile.id.as_str(), typed.a),
        ("stack", c.profiles[1].base)
    );
    let e = Knob::Profile.parse("vlm", &i, &c).unwrap_err();
    assert!(e.contains("roofline, stack"), "{e}");
}

#[test]
fn the_profile_knob_sets_the_training_keys_it_names_and_keeps_the_others() {
    // As `ridgeline train --profile stack` takes them: the profile's TP
    // overlap and matmul ceiling, and the MTBF the user set kept.
    use crate::solver::training::MatmulCeiling;
    let c = choices();
    let mut i = base();
    i.v.train.assumptions.device_mtbf_s = 3600.0;
    let up = Knob::Profile.step(&i, true, &c);
    let t = up.v.train.assumptions;
    assert_eq!((t.tp_overlap, t.matmul_ceiling), (0.5, MatmulCeiling::Flat));
    assert_eq!(t.device_mtbf_s, 3600.0);
    // Back to the plain roofline: its (default) training keys again.
    let back = Knob::Profile.parse("roofline", &up, &c).unwrap();
    assert_eq!(back.v.train.assumptions.tp_overlap, 0.0);
    assert_eq!(
        back.v.train.assumptions.matmul_ceiling,
        MatmulCeiling::Measured
    );
}

#[test]
fn the_profile_knob_names_the_device_class_and_reads_it_back() {
    let c = choices();
    let mut i = base();
    i.profile.class = Some(crate::catalog::device_class::DeviceClass::Apple);
    assert_eq!(Knob::Profile.value(&i), "roofline (apple)");
    // What it shows reads back as the same profile, changed or not.
    let same = Knob::Profile.parse("roofline (apple)", &i, &c).unwrap();
    assert_eq!(same.profile.id, "roofline");
    i.a.compute_efficiency = 0.5;
    assert_eq!(Knob::Profile.value(&i), "roofline (apple)*");
    let kept = Knob::Profile.parse("roofline (apple)*", &i, &c).unwrap();
    assert_eq!(kept.a.compute_efficiency, 0.5);
    // Another profile typed with a class suffix is that profile.
    let other = Knob::Profile.parse("stack (hbm)", &i, &c).unwrap();
    assert_eq!(other.profile.id, "stack");
}

#[test]
fn another_assumption_knob_marks_the_profile_modified() {
    let c = choices();
    let i = Knob::Profile.step(&base(), true, &c);
    let changed = Knob::ComputeEff.step(&i, true, &c);
    // 0.6 + 0.05 = 0.65: one value over the profile's.
    assert_eq!(changed.a.compute_efficiency, 0.65);
    assert_eq!(changed.a.kernel_s, 6.5e-6);
    assert_eq!(Knob::Profile.value(&changed), "stack*");
    // The entry opens on "stack*": read back, the change is kept.
    let kept = Knob::Profile.parse("stack*", &changed, &c).unwrap();
    assert_eq!(kept.a, changed.a);
    // The id alone goes back to the profile's values.
    let reset = Knob::Profile.parse("stack", &changed, &c).unwrap();
    assert_eq!(reset.a, c.profiles[1].base);
    assert_eq!(Knob::Profile.value(&reset), "stack");
    // Stepping the knob is what the profile knob means: all of the next one.
    assert_eq!(Knob::Profile.step(&changed, true, &c).a, c.profiles[0].base);
}

#[test]
fn kernel_time_doubles_halves_and_reads_times() {
    let c = choices();
    let mut i = base();
    i.a.kernel_s = 6.5e-6;
    assert_eq!(Knob::KernelTime.step(&i, true, &c).a.kernel_s, 13e-6);
    assert_eq!(Knob::KernelTime.step(&i, false, &c).a.kernel_s, 3.25e-6);
    // Below 1 us a step down is 0; from 0 a step up is 1 us.
    i.a.kernel_s = 0.9e-6;
    let zero = Knob::KernelTime.step(&i, false, &c);
    assert_eq!(zero.a.kernel_s, 0.0);
    assert_eq!(Knob::KernelTime.step(&zero, true, &c).a.kernel_s, 1e-6);
    let typed = Knob::KernelTime.parse("4us", &i, &c).unwrap();
    assert_eq!(typed.a.kernel_s, 4e-6);
    assert_eq!(Knob::KernelTime.value(&typed), "4 us");
    assert!(Knob::KernelTime.parse("soon", &i, &c).is_err());
}

#[test]
fn fleet_search_knobs_step_read_and_refuse() {
    use crate::solver::fleet::ModeChoice;
    let c = choices();
    let two = Knob::Regions
        .parse("us-east, eu-west", &base(), &c)
        .unwrap();
    // Precisions: one list read whole; stepping goes bf16 -> fp8 -> int4 ->
    // all three -> bf16.
    let p = Knob::FleetPrecisions
        .parse("fp8, int4/bf16/fp8", &two, &c)
        .unwrap();
    assert_eq!(Knob::FleetPrecisions.value(&p), "fp8,int4/bf16/fp8");
    let all = Knob::FleetPrecisions
        .parse("bf16,fp8,int4", &two, &c)
        .unwrap();
    assert_eq!(
        Knob::FleetPrecisions.value(&Knob::FleetPrecisions.step(&all, true, &c)),
        "bf16"
    );
    assert!(
        Knob::FleetPrecisions
            .parse("fp7", &two, &c)
            .unwrap_err()
            .contains("fp7")
    );
    assert!(Knob::FleetPrecisions.parse(" , ", &two, &c).is_err());
    // Mode: auto -> aggregated -> disaggregated -> auto.
    let m = Knob::FleetMode.step(&two, true, &c);
    assert_eq!(m.v.mode, ModeChoice::Aggregated);
    assert_eq!(
        Knob::FleetMode.step(&two, false, &c).v.mode,
        ModeChoice::Disaggregated
    );
    assert!(Knob::FleetMode.parse("both", &two, &c).is_err());
    // Shares: equal by default; a tenth moves from the last region to the
    // first; one per region adding up to 1, else refused.
    assert_eq!(Knob::Shares.value(&two), "equal");
    assert_eq!(Knob::Shares.step(&two, true, &c).v.shares, vec![0.6, 0.4]);
    assert_eq!(
        Knob::Shares.parse("0.7,0.3", &two, &c).unwrap().v.shares,
        vec![0.7, 0.3]
    );
    assert!(
        Knob::Shares
            .parse("0.7", &two, &c)
            .unwrap_err()
            .contains("1 shares for 2")
    );
    assert!(
        Knob::Shares
            .parse("0.7,0.4", &two, &c)
            .unwrap_err()
            .contains("add up to 1")
    );
    assert!(Knob::Shares.parse("0,1", &two, &c).is_err());
    // A different number of regions sets the shares back to equal.
    let s = Knob::Shares.parse("0.7,0.3", &two, &c).unwrap();
    assert!(
        Knob::Regions
            .parse("us-east", &s, &c)
            .unwrap()
            .v
            .shares
            .is_empty()
    );
}
