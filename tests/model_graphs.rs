//! The catalog's single-pass models carry their layer lists (`graph`):
//! each list must reproduce its reference implementation's parameter count
//! and multiply-adds exactly, agree with the entry's published figures, and
//! drive the step cost (residual and shortcut reads counted).

use ridgeline::catalog::Catalog;
use ridgeline::solver::cost::step_cost;
use ridgeline::solver::{Arch, Layer, Model, ModelKind, Precision, SinglePass, Workload};

/// What a model's list must reproduce.
struct Expect {
    id: &'static str,
    /// Multiply-adds of its convolutions, fully connected layers and
    /// attention products (what torchvision's `_ops` and the papers count).
    macs: f64,
    /// Every parameter (weights, biases, BatchNorm scale and shift; not the
    /// running statistics, which are buffers).
    params: f64,
    /// Parameters held but not read by a pass: embedding rows no token of
    /// the stated input looks up.
    held: f64,
    /// Output elements of every convolution, fully connected, pooling and
    /// attention-product layer and the token lookup: how the entries'
    /// `activation_elements_per_sample` were computed (BatchNorm,
    /// activations and residual adds fused), checked exactly here.
    activations: f64,
}

/// The reference figures, each derived or cited.
const MODELS: &[Expect] = &[
    // torchvision ResNet18_Weights: num_params 11,689,512, _ops 1.814
    // (GMACs). Walk of resnet.py: 1,814,073,344 MACs; 2,484,712 conv/FC
    // outputs + 200,704 max-pool + 512 avg-pool (vision.toml notes).
    Expect {
        id: "resnet-18",
        macs: 1_814_073_344.0,
        params: 11_689_512.0,
        held: 0.0,
        activations: 2_685_928.0,
    },
    // torchvision ResNet50_Weights: num_params 25,557,032, _ops 4.089.
    // pycls MODEL_ZOO lists 11.1M conv activations; + 202,752 pooled.
    Expect {
        id: "resnet-50",
        macs: 4_089_184_256.0,
        params: 25_557_032.0,
        held: 0.0,
        activations: 11_317_736.0,
    },
    // torchvision MobileNet_V2_Weights: num_params 3,504,872, _ops 0.301.
    Expect {
        id: "mobilenet-v2",
        macs: 300_774_272.0,
        params: 3_504_872.0,
        held: 0.0,
        activations: 6_680_392.0,
    },
    // torchvision EfficientNet_B0_Weights: num_params 5,288,548, _ops
    // 0.386. The published activations (6,748,036 conv/FC + 1,280 pooled)
    // leave out the 16 squeeze-excitation pools' outputs, one per expanded
    // channel: 32 + 96 + 144 + 2 x 144... = 8,960, counted here:
    // 6,749,316 + 8,960 = 6,758,276 (0.13% above the entry's 6.75e6).
    Expect {
        id: "efficientnet-b0",
        macs: 385_814_752.0,
        params: 5_288_548.0,
        held: 0.0,
        activations: 6_758_276.0,
    },
    // torchvision ViT_B_16_Weights: num_params 86,567,656, _ops 17.564.
    // MACs 12 (197 (4 x 768^2 + 2 x 768 x 3072) + 2 x 197^2 x 768)
    // + 196 x 768^2 + 768 x 1000 = 17,563,828,224.
    Expect {
        id: "vit-b-16",
        macs: 17_563_828_224.0,
        params: 86_567_656.0,
        held: 0.0,
        activations: 23_895_544.0,
    },
    // MLPerf Tiny DS-CNN (v0.5 keras_model.py). Params: conv 10x4x1x64
    // + 64 bias + 128 BN = 2,752; four depthwise (9 x 64 + 64 + 128 = 768)
    // and pointwise (64 x 64 + 64 + 128 = 4,288) pairs = 20,224; FC 64 x 12
    // + 12 = 780: 23,756. MACs on the 25x5 map: 125 x 64 x 40 = 320,000,
    // 4 x 125 x 64 x (9 + 64) = 2,336,000, FC 768: 2,656,768.
    Expect {
        id: "ds-cnn-kws",
        macs: 2_656_768.0,
        params: 23_756.0,
        held: 0.0,
        activations: 72_076.0,
    },
    // MLPerf Tiny MobileNetV1 0.25 (vww_model.py), every conv with a bias
    // and a BatchNorm. Params: conv 3x3x3x8 + 24 = 240; depthwise 12 c per
    // pair over c = 8, 16, 32, 32, 64, 64, 128 x 6, 256: 14,880; pointwise
    // c_in c_out + 3 c_out: 200,688; FC 256 x 2 + 2 = 514: 216,322. MACs:
    // conv 48^2 x 8 x 27 = 497,664; depthwise sum of out^2 x c x 9 =
    // 798,336; pointwise sum of out^2 x c_in x c_out = 6,193,152; FC 512:
    // 7,489,664.
    Expect {
        id: "mobilenet-v1-0.25-vww",
        macs: 7_489_664.0,
        params: 216_322.0,
        held: 0.0,
        activations: 231_810.0,
    },
    // MLPerf Tiny ResNet-8 (v0.5 keras_model.py, 16 filters). Params: conv
    // 432 + 16 + 32 = 480; stack 1: 2 x (2,304 + 16 + 32) = 4,704; stack 2:
    // 4,608 + 32 + 64, 9,216 + 32 + 64, shortcut 512 + 32 = 14,560; stack
    // 3: 18,432 + 64 + 128, 36,864 + 64 + 128, shortcut 2,048 + 64 =
    // 57,792; FC 650: 78,186. MACs: 32^2 x 16 x 27 = 442,368; 2 x 32^2 x 16
    // x 144 = 4,718,592; 16^2 x 32 x (144 + 288 + 16) = 3,670,016; 8^2 x 64
    // x (288 + 576 + 32) = 3,670,016; FC 640: 12,501,632.
    Expect {
        id: "resnet-8-cifar",
        macs: 12_501_632.0,
        params: 78_186.0,
        held: 0.0,
        activations: 86_090.0,
    },
    // BERT-base checkpoint: 109,482,240 parameters (encoders.toml notes).
    // At 128 tokens a pass reads 128 of the 30,522 word rows and 128 of the
    // 512 position rows: (30,522 - 128 + 512 - 128) x 768 = 23,637,504
    // held. MACs: 12 x 128 x (4 x 768^2 + 2 x 768 x 3072) = 10,871,635,968,
    // attention 12 x 2 x 128^2 x 768 = 301,989,888, pooler 768^2 =
    // 589,824: 11,174,215,680.
    Expect {
        id: "bert-base",
        macs: 11_174_215_680.0,
        params: 109_482_240.0,
        held: 23_637_504.0,
        activations: 14_254_848.0,
    },
    // BERT-large: 335,141,888; held (30,522 - 128 + 512 - 128) x 1024 =
    // 31,516,672. MACs: 24 x 128 x (4 x 1024^2 + 2 x 1024 x 4096) +
    // 24 x 2 x 128^2 x 1024 + 1024^2 = 39,461,060,608.
    Expect {
        id: "bert-large",
        macs: 39_461_060_608.0,
        params: 335_141_888.0,
        held: 31_516_672.0,
        activations: 37_880_832.0,
    },
];

fn sum(layers: &[Layer], pick: impl Fn(&Layer) -> bool, f: impl Fn(&Layer) -> f64) -> f64 {
    layers.iter().filter(|l| pick(l)).map(f).sum()
}

const GEMMS: &[&str] = &["conv", "dwconv", "fc", "attention"];

fn single_pass(m: &Model) -> SinglePass {
    match m.arch {
        Arch::SinglePass(s) => s,
        Arch::Decoder(_) => panic!("{} is a decoder", m.id),
    }
}

fn within(ours: f64, published: f64, tol: f64) -> bool {
    (ours - published).abs() <= tol * published
}

#[test]
fn every_single_pass_model_of_the_catalog_has_a_layer_list() {
    let c = Catalog::builtin();
    let single: Vec<&str> = c
        .models
        .iter()
        .filter(|e| !e.model.kind.is_decoder())
        .map(|e| e.model.id.as_str())
        .collect();
    for id in &single {
        assert!(
            MODELS.iter().any(|e| e.id == *id),
            "{id} has no expected figures here"
        );
    }
    assert_eq!(single.len(), MODELS.len(), "{single:?}");
}

#[test]
fn each_list_reproduces_its_reference_parameters_and_multiply_adds_exactly() {
    let c = Catalog::builtin();
    for e in MODELS {
        let m = &c.model(e.id).unwrap().model;
        let l = &m.layers;
        assert!(!l.is_empty(), "{}", e.id);
        let macs = sum(l, |l| GEMMS.contains(&l.op.as_str()), |l| l.flops) / 2.0;
        assert_eq!(macs, e.macs, "{} multiply-adds", e.id);
        let read = sum(l, |_| true, |l| l.params);
        assert_eq!(read + e.held, e.params, "{} parameters", e.id);
        let act = sum(
            l,
            |l| ["conv", "dwconv", "fc", "pool", "attention", "embed"].contains(&l.op.as_str()),
            |l| l.outputs,
        );
        assert_eq!(act, e.activations, "{} activations", e.id);
    }
}

/// torchvision's published `_ops` (GMACs to 3 decimals) and `num_params`
/// (ResNet18/50, MobileNet_V2, EfficientNet_B0, ViT_B_16 `_Weights.meta`,
/// torchvision/models/*.py).
const TORCHVISION: &[(&str, f64, f64)] = &[
    ("resnet-18", 1.814, 11_689_512.0),
    ("resnet-50", 4.089, 25_557_032.0),
    ("mobilenet-v2", 0.301, 3_504_872.0),
    ("efficientnet-b0", 0.386, 5_288_548.0),
    ("vit-b-16", 17.564, 86_567_656.0),
];

#[test]
fn the_torchvision_lists_match_torchvision_s_published_counts() {
    let c = Catalog::builtin();
    for &(id, gmacs, params) in TORCHVISION {
        let l = &c.model(id).unwrap().model.layers;
        let macs = sum(l, |l| GEMMS.contains(&l.op.as_str()), |l| l.flops) / 2.0;
        assert_eq!((macs / 1e6).round() / 1e3, gmacs, "{id}: {macs} MACs");
        assert_eq!(sum(l, |_| true, |l| l.params), params, "{id}");
    }
}

#[test]
fn each_list_agrees_with_the_entry_s_published_figures() {
    // params: the entries round the exact counts to 3-4 significant figures
    // (25.56e6 for 25,557,032): within 2%. BERT's 110e6 and 335e6 are the
    // papers' rounded figures (109.48M and 335.14M exactly).
    // flops_per_sample: 2 x the multiply-adds rounded to 2-3 figures (8.2e9
    // for ResNet-50's 8.178e9); the lists add the elementwise layers
    // (adds, pools, softmax, LayerNorm, the squeeze-excitation scales), at
    // most 0.63% more (EfficientNet-B0: 4.9 MFLOP over 771.6): within 2%.
    // activation_elements_per_sample: the figure above, rounded to 3
    // figures: within 0.5% (EfficientNet-B0's 6.75e6 is 0.13% under, see
    // MODELS).
    let c = Catalog::builtin();
    for e in MODELS {
        let m = &c.model(e.id).unwrap().model;
        let sp = single_pass(m);
        let l = &m.layers;
        let params = sum(l, |_| true, |l| l.params) + e.held;
        assert!(
            within(params, m.params, 0.02),
            "{}: {params} vs {}",
            e.id,
            m.params
        );
        let flops = sum(l, |_| true, |l| l.flops);
        assert!(
            within(flops, sp.flops_per_sample, 0.02),
            "{}: {flops} vs {}",
            e.id,
            sp.flops_per_sample
        );
        let elementwise = flops - 2.0 * e.macs;
        assert!(
            elementwise > 0.0 && elementwise < 0.0065 * flops,
            "{}: {elementwise}",
            e.id
        );
        assert!(
            within(e.activations, sp.activation_elements_per_sample, 0.005),
            "{}: {} vs {}",
            e.id,
            e.activations,
            sp.activation_elements_per_sample
        );
    }
}

fn workload(batch: f64) -> Workload {
    Workload {
        batch,
        weights: Precision::Bf16,
        activations: Precision::Bf16,
        kv: Precision::Bf16,
        ..Workload::default()
    }
}

#[test]
fn a_step_is_the_sum_of_its_layers() {
    let layer = |flops: f64, params: f64, inputs: f64, outputs: f64| Layer {
        name: "l".into(),
        op: "conv".into(),
        flops,
        params,
        inputs,
        outputs,
    };
    let mut m = Model {
        id: "two".into(),
        name: "Two layers".into(),
        kind: ModelKind::Cnn,
        params: 1_000.0,
        arch: Arch::SinglePass(SinglePass {
            flops_per_sample: 1e6,
            activation_elements_per_sample: 500.0,
        }),
        layers: vec![
            layer(3e5, 400.0, 100.0, 200.0),
            layer(5e5, 500.0, 200.0, 50.0),
        ],
    };
    // Batch 4, bf16: FLOPs 4 x (3e5 + 5e5) = 3.2e6; weights read once,
    // (400 + 500) x 2 B = 1,800 B; activations 4 x (100 + 200 + 200 + 50)
    // x 2 B = 4,400 B.
    let c = step_cost(&m, &workload(4.0));
    assert_eq!(c.flops, 3.2e6);
    assert_eq!(c.weight_bytes, 1_800.0);
    assert_eq!(c.activation_bytes, 4_400.0);
    assert_eq!(c.tokens, 4.0);
    // Without a list, the published figures: 4 x 1e6 FLOPs, 1,000 x 2 B,
    // every map written and read back, 2 x 4 x 500 x 2 B.
    m.layers.clear();
    let c = step_cost(&m, &workload(4.0));
    assert_eq!(c.flops, 4e6);
    assert_eq!(c.weight_bytes, 2_000.0);
    assert_eq!(c.activation_bytes, 8_000.0);
}

#[test]
fn resnet_50_reads_its_residuals_and_downsamples() {
    let c = Catalog::builtin();
    let m = &c.model("resnet-50").unwrap().model;
    let cost = step_cost(m, &workload(8.0));
    // FLOPs per sample: 2 x 4,089,184,256 MACs + 16 residual adds (one per
    // output element: 3 x 256 x 56^2 + 4 x 512 x 28^2 + 6 x 1024 x 14^2
    // + 3 x 2048 x 7^2 = 5,519,360) + the max pool's 64 x 112^2 = 802,816
    // reads + the average pool's 2048 x 7^2 = 100,352: 8,184,791,040.
    assert_eq!(cost.flops, 8.0 * 8_184_791_040.0);
    assert_eq!(cost.weight_bytes, 25_557_032.0 * 2.0);
    // Elements written: 11,317,736 conv/FC/pool outputs + 5,519,360 adds =
    // 16,837,096. Read: each written tensor once by its consumer, but the
    // logits (1,000) by none; the max pool's output (64 x 56^2 = 200,704)
    // and the first 15 adds' outputs (5,519,360 - 100,352) a second time
    // (the next block's shortcut); and the 3 x 224^2 = 150,528 image:
    // 16,836,096 + 200,704 + 5,419,008 + 150,528 = 22,606,336.
    let moved = 16_837_096.0 + 22_606_336.0;
    assert_eq!(cost.activation_bytes, 8.0 * moved * 2.0);
    // The published-style figure writes and reads each of the 11.3e6
    // conv outputs once: 22.6e6 elements, 57% of what the layers move.
    let old = 2.0 * single_pass(m).activation_elements_per_sample;
    assert!((old / moved - 0.573).abs() < 0.001, "{}", old / moved);
}

#[test]
fn bert_reads_only_the_embedding_rows_of_its_tokens() {
    let c = Catalog::builtin();
    let m = &c.model("bert-base").unwrap().model;
    let cost = step_cost(m, &workload(1.0));
    // 109,482,240 parameters less the 23,637,504 rows 128 tokens never
    // look up, in bf16.
    assert_eq!(cost.weight_bytes, (109_482_240.0 - 23_637_504.0) * 2.0);
}

#[test]
fn the_schema_shows_the_catalog_s_resnet_50() {
    let schema = include_str!("../catalog/SCHEMA.md");
    let vision = include_str!("../catalog/models/vision.toml");
    let start = schema.find("graph = [\n").expect("an example graph");
    let end = start + schema[start..].find("]\n").unwrap() + 2;
    let example = &schema[start..end];
    assert!(example.contains("bottleneck 512 2048 s2 x3"), "{example}");
    assert!(
        vision.contains(example),
        "SCHEMA.md's example drifted:\n{example}"
    );
}
