//! The graph statements: each layer's figures derived by hand from its
//! shape, the blocks' expansions, and every kind of bad statement reported
//! at its column. Whole catalog models are checked against their published
//! figures in tests/model_graphs.rs.

use super::*;
use crate::catalog::Catalog;

/// Run statements as a catalog file would (offsets from 0, each line on
/// its own as if it started the file); the error carries its offset inside
/// the statement that failed.
fn graph(lines: &[&str]) -> Result<Graph, (usize, String)> {
    let mut b = Builder::default();
    let mut counts = Vec::new();
    for s in lines {
        statement(&mut b, s, Some(0), 0, &mut counts).map_err(|e| (e.at, e.msg))?;
    }
    finish(b, None, None).map_err(|m| (0, m))
}

fn layer<'g>(g: &'g Graph, name: &str) -> &'g Layer {
    g.layers
        .iter()
        .find(|l| l.name == name)
        .unwrap_or_else(|| panic!("no layer {name} in {:?}", names(g)))
}

fn names(g: &Graph) -> Vec<&str> {
    g.layers.iter().map(|l| l.name.as_str()).collect()
}

fn figures(l: &Layer) -> [f64; 4] {
    [l.flops, l.params, l.inputs, l.outputs]
}

#[test]
fn a_convolution_costs_what_its_shape_says() {
    let g = graph(&["input 3x32x32", "conv 16 3x3"]).unwrap();
    // 16 outputs of 3x3x3 weights = 432, a folded BatchNorm's scale and
    // shift 2 x 16 = 32 (the default: no bias). Each of 16 x 32 x 32
    // outputs ("same" padding) takes 27 multiply-adds: 2 x 16,384 x 27 =
    // 884,736 FLOPs. Reads the 3 x 32 x 32 = 3,072 input elements.
    assert_eq!(figures(&g.layers[0]), [884_736.0, 464.0, 3_072.0, 16_384.0]);
    assert_eq!(g.layers[0].name, "conv1");
    assert_eq!(g.layers[0].op, "conv");
    // Keras style: a bias and a BatchNorm, 432 + 16 + 32.
    let g = graph(&["defaults bias bn", "input 3x32x32", "conv 16 3x3"]).unwrap();
    assert_eq!(g.layers[0].params, 480.0);
    let g = graph(&["input 3x32x32", "conv 16 3x3 bias nobn"]).unwrap();
    assert_eq!(g.layers[0].params, 448.0);
}

#[test]
fn strides_and_padding_set_the_output_size() {
    let g = graph(&[
        "input 3x224x224",
        "conv 64 7x7/2",
        "maxpool 3x3/2",
        "c: conv 8 3x3 s2 valid",
    ])
    .unwrap();
    // "same": ceil(224 / 2) = 112, then ceil(112 / 2) = 56 (ResNet's stem).
    assert_eq!(g.layers[0].outputs, 64.0 * 112.0 * 112.0);
    assert_eq!(g.layers[1].outputs, 64.0 * 56.0 * 56.0);
    // A pool reads and counts one FLOP per input element.
    assert_eq!(g.layers[1].flops, 64.0 * 112.0 * 112.0);
    // "valid": (56 - 3) / 2 + 1 = 27.
    assert_eq!(g.layers[2].outputs, 8.0 * 27.0 * 27.0);
    assert_eq!(names(&g), ["conv1", "maxpool1", "c"]);
    // DS-CNN's last pool: a 24x5 window over 25x5 without padding gives
    // (25 - 24) / 24 + 1 = 1 row and 1 column.
    let g = graph(&["input 64x25x5", "avgpool 24x5 valid", "fc 12"]).unwrap();
    assert_eq!(g.layers[0].outputs, 64.0);
    // 64 x 12 weights and 12 biases; 2 x 64 x 12 FLOPs.
    assert_eq!(figures(&g.layers[1]), [1_536.0, 780.0, 64.0, 12.0]);
}

#[test]
fn groups_and_depthwise_convolutions_divide_the_weights() {
    let g = graph(&[
        "input 32x10x10",
        "dwconv 3x3",
        "conv 64 1x1 g4 nobn",
        "dwconv 3x3 m2 nobn",
    ])
    .unwrap();
    // Depthwise: each of 32 channels its own 3x3 filter: 288 weights + 64
    // BatchNorm; 2 x 3,200 outputs x 9 = 57,600 FLOPs.
    assert_eq!(figures(&g.layers[0]), [57_600.0, 352.0, 3_200.0, 3_200.0]);
    assert_eq!(g.layers[0].op, "dwconv");
    // 4 groups: each output sees 32 / 4 = 8 inputs: 64 x 8 = 512 weights.
    assert_eq!(g.layers[1].params, 512.0);
    assert_eq!(g.layers[1].flops, 2.0 * 6_400.0 * 8.0);
    // A depth multiplier of 2: 128 outputs, one 3x3 filter each.
    assert_eq!(g.layers[2].params, 128.0 * 9.0);
    assert_eq!(g.layers[2].outputs, 128.0 * 100.0);
}

#[test]
fn a_bottleneck_block_adds_its_shortcut_and_reads_it_back() {
    let g = graph(&["input 64x56x56", "b: bottleneck 64 256"]).unwrap();
    assert_eq!(
        names(&g),
        ["b.conv1", "b.conv2", "b.conv3", "b.downsample", "b.add"]
    );
    // The projection reads the block's input (64 x 56 x 56 = 200,704) and
    // writes 256 x 56 x 56 = 802,816: 64 x 256 weights + 2 x 256 BatchNorm.
    let ds = layer(&g, "b.downsample");
    assert_eq!(
        figures(ds),
        [2.0 * 802_816.0 * 64.0, 16_896.0, 200_704.0, 802_816.0]
    );
    // The add reads both branches and writes one: 1 FLOP per element.
    let add = layer(&g, "b.add");
    assert_eq!(figures(add), [802_816.0, 0.0, 2.0 * 802_816.0, 802_816.0]);
    assert_eq!(add.op, "add");
    // A stage: the stride and the projection on the first block only.
    let g = graph(&["input 256x56x56", "l: bottleneck 128 512 s2 x2"]).unwrap();
    assert_eq!(
        names(&g),
        [
            "l.0.conv1",
            "l.0.conv2",
            "l.0.conv3",
            "l.0.downsample",
            "l.0.add",
            "l.1.conv1",
            "l.1.conv2",
            "l.1.conv3",
            "l.1.add",
        ]
    );
    // v1.5: the 3x3 strides (56 -> 28); the projection reads 256 x 56 x 56.
    assert_eq!(layer(&g, "l.0.conv2").outputs, 128.0 * 28.0 * 28.0);
    assert_eq!(layer(&g, "l.0.downsample").inputs, 256.0 * 56.0 * 56.0);
    assert_eq!(layer(&g, "l.1.add").outputs, 512.0 * 28.0 * 28.0);
}

#[test]
fn a_basic_block_keeps_the_identity_when_the_shape_stays() {
    let g = graph(&["input 16x32x32", "basic 16", "basic 32 s2 proj-nobn"]).unwrap();
    assert_eq!(
        names(&g),
        [
            "basic1.conv1",
            "basic1.conv2",
            "basic1.add",
            "basic2.conv1",
            "basic2.conv2",
            "basic2.downsample",
            "basic2.add",
        ]
    );
    // The shortcut without a BatchNorm (the MLPerf Tiny ResNet-8): 16 x 32
    // weights and nothing else under the default norms (no bias).
    assert_eq!(layer(&g, "basic2.downsample").params, 512.0);
}

#[test]
fn an_inverted_residual_with_squeeze_excitation() {
    let g = graph(&["input 16x8x8", "m: mbconv 16 t2 se"]).unwrap();
    assert_eq!(
        names(&g),
        [
            "m.expand",
            "m.dw",
            "m.se.pool",
            "m.se.reduce",
            "m.se.expand",
            "m.se.scale",
            "m.project",
            "m.add",
        ]
    );
    // Expansion to 16 x 2 = 32: 512 weights + 64 BatchNorm.
    assert_eq!(layer(&g, "m.expand").params, 576.0);
    // Squeeze to a quarter of the block's 16 input channels: 32 x 4 + 4
    // and back 4 x 32 + 32.
    assert_eq!(layer(&g, "m.se.reduce").params, 132.0);
    assert_eq!(layer(&g, "m.se.expand").params, 160.0);
    // The scale reads the 32 x 8 x 8 map and the 32 weights, writes the map.
    assert_eq!(
        figures(layer(&g, "m.se.scale")),
        [2_048.0, 0.0, 2_080.0, 2_048.0]
    );
    // Stride 1 and 16 channels in and out: a residual add.
    assert_eq!(layer(&g, "m.add").inputs, 2.0 * 16.0 * 64.0);
    // Expansion 1 has no expansion conv; a stride or new width no add.
    let g = graph(&["input 32x8x8", "m: mbconv 16 t1 s2 k5"]).unwrap();
    assert_eq!(names(&g), ["m.dw", "m.project"]);
    assert_eq!(layer(&g, "m.dw").params, 32.0 * 25.0 + 64.0);
}

#[test]
fn attention_reads_q_and_k_writes_scores_and_reads_them_with_v() {
    // 4 tokens of width 8 from a table of 10 rows; q, k, v of 8 each; 2 heads.
    let g = graph(&["tokens 4", "embed 10x8", "fc 24", "a: attention 2"]).unwrap();
    // The lookup reads 4 rows of 8 (its parameters); the other 6 rows are held.
    assert_eq!(figures(&g.layers[0]), [0.0, 32.0, 4.0, 32.0]);
    assert_eq!(g.held_params, 48.0);
    assert_eq!(g.params(), 10.0 * 8.0 + 8.0 * 24.0 + 24.0);
    // q.k^T: 2 x 4^2 x 8 = 256 FLOPs, reads q and k (2 x 4 x 8), writes
    // 2 heads x 4 x 4 scores.
    assert_eq!(figures(layer(&g, "a.scores")), [256.0, 0.0, 64.0, 32.0]);
    assert_eq!(figures(layer(&g, "a.softmax")), [32.0, 0.0, 32.0, 32.0]);
    // p.v: 256 FLOPs, reads the 32 scores and v (32), writes 4 x 8.
    assert_eq!(figures(layer(&g, "a.values")), [256.0, 0.0, 64.0, 32.0]);
}

#[test]
fn an_encoder_layer_holds_the_standard_parameters_pre_or_post_norm() {
    // d = 8, 2 heads, MLP 16: q, k, v, o 4 (d^2 + d) = 288, two LayerNorms
    // 2 x 2d = 32, MLP d f + f + f d + d = 280: 600.
    let post = graph(&["input 8x4x1", "e: encoder 2 16"]).unwrap();
    let pre = graph(&["input 8x4x1", "e: encoder 2 16 pre"]).unwrap();
    assert_eq!(post.params(), 600.0);
    assert_eq!(pre.params(), 600.0);
    assert_eq!(post.flops(), pre.flops());
    let post_names = names(&post);
    assert_eq!(post_names[0], "e.qkv");
    assert_eq!(*post_names.last().unwrap(), "e.norm2");
    assert_eq!(names(&pre)[0], "e.norm1");
    // LayerNorm: 5 FLOPs per element of 4 x 8.
    assert_eq!(layer(&post, "e.norm1").flops, 160.0);
}

#[test]
fn vision_transformer_pieces() {
    let g = graph(&[
        "input 3x32x32",
        "p: patchify 16 8",
        "cls",
        "pos: embed 5x8 add",
        "first",
        "fc 10",
    ])
    .unwrap();
    // 2 x 2 patches of 3 x 16 x 16 = 768 weights each to 8, with a bias.
    assert_eq!(layer(&g, "p").params, 768.0 * 8.0 + 8.0);
    // The class token: 8 parameters, 4 tokens in, 5 out.
    assert_eq!(figures(layer(&g, "cls1")), [0.0, 8.0, 32.0, 40.0]);
    // Position embeddings add 5 rows of 8: all read, none held.
    assert_eq!(figures(layer(&g, "pos")), [40.0, 40.0, 40.0, 40.0]);
    assert_eq!(g.held_params, 0.0);
    // The head sees the first token only.
    assert_eq!(layer(&g, "fc1").inputs, 8.0);
}

#[test]
fn a_branch_and_an_add_written_out() {
    let g = graph(&["input 16x8x8", "branch", "conv 32 3x3 s2", "add proj"]).unwrap();
    assert_eq!(names(&g), ["conv1", "add1.downsample", "add1"]);
    // The projection's stride follows from 8 -> 4.
    assert_eq!(layer(&g, "add1.downsample").outputs, 32.0 * 16.0);
}

/// The error of a one-statement-at-a-time run and the word it points at.
fn error(lines: &[&str]) -> (String, String) {
    let (at, msg) = graph(lines).expect_err("a bad graph");
    let last = lines.last().unwrap();
    let word = last[at.min(last.len())..]
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_string();
    (word, msg)
}

#[test]
fn a_bad_statement_says_what_and_points_at_the_word() {
    for (lines, word, says) in [
        (
            &["input 3x8x8", "bottlenek 64 256"][..],
            "bottlenek",
            "did you mean `bottleneck`",
        ),
        (
            &["input 3x8x8", "conv 64 7x7/0"][..],
            "7x7/0",
            "not a stride",
        ),
        (
            &["input 3x8x8", "conv 64 7x7 q2"][..],
            "q2",
            "not an argument of `conv`",
        ),
        (
            &["input 3x8x8", "conv 64 7x7 é5"][..],
            "é5",
            "not an argument",
        ),
        (
            &["input 3x8x8", "conv 64 7x7 m2"][..],
            "m2",
            "not an argument of `conv`",
        ),
        (
            &["input 3x8x8", "dwconv 3x3 g3"][..],
            "g3",
            "not an argument of `dwconv`",
        ),
        (&["input 3x8x8", "conv 64"][..], "", "needs a kernel KxK"),
        (&["input 3x8x8", "conv 64 7"][..], "7", "write it like 3x3"),
        (&["input 3x8x8", "mbconv 16"][..], "", "expansion ratio"),
        (&["conv 8 3x3"][..], "conv", "start the graph with `input"),
        (&["input 3x8x8", "add"][..], "add", "none is open"),
        (
            &["input 3x8x8", "branch", "conv 4 3x3 s2", "add"][..],
            "add",
            "write `add proj`",
        ),
        (&["tokens 4 x2"][..], "x2", "cannot repeat"),
        (&["input 3x8x8", "conv 4 3x3 x0"][..], "x0", "x1 to x100000"),
        (
            &["input 3x16777217x1"][..],
            "3x16777217x1",
            "from 1 to 16777216",
        ),
        (
            &["input 24x4x1", "attention 5"][..],
            "attention",
            "not 3 x a multiple of 5 heads",
        ),
        (
            &["input 3x8x8", "maxpool 9x9 valid"][..],
            "maxpool",
            "does not fit",
        ),
        (
            &["input 3x8x8", "input 3x8x8"][..],
            "input",
            "already has its input",
        ),
        (
            &["input 3x8x8", "conv 8 3x3 g2"][..],
            "conv",
            "groups must divide",
        ),
        (
            &["input 3x8x8", "bad label: conv 8 3x3"][..],
            "bad",
            "unknown layer `bad`",
        ),
        (
            &["input 3x8x8", "a/b: conv 8 3x3"][..],
            "a/b:",
            "the label `a/b`",
        ),
        (&["input 3x8x8", "x: flatten"][..], "x:", "drop the label"),
        (
            &["input 8x4x1", "embed 10x8"][..],
            "embed",
            "reads token ids",
        ),
    ] {
        let (w, msg) = error(lines);
        assert_eq!(w, word, "{lines:?}: {msg}");
        assert!(msg.contains(says), "{lines:?}: {msg}");
    }
}

#[test]
fn a_graph_that_never_ends_its_branch_or_grows_too_large_is_refused() {
    let (_, msg) = graph(&["input 3x8x8", "branch", "conv 3 3x3"]).unwrap_err();
    assert!(msg.contains("never closed"), "{msg}");
    let (_, msg) = graph(&["input 3x8x8"]).unwrap_err();
    assert!(msg.contains("no layers"), "{msg}");
    // 13 layers an encoder layer, 100,000 times: stops at the limit.
    let (_, msg) = graph(&["input 8x4x1", "encoder 2 16 x100000"]).unwrap_err();
    assert!(msg.contains("more than 100000 layers"), "{msg}");
    // 1,000 x 16M x 16M x 9 x 2 FLOPs: past the catalog's 1e18.
    let (_, msg) = graph(&["input 1000x16777216x16777216", "conv 1 3x3"]).unwrap_err();
    assert!(msg.contains("FLOPs per sample"), "{msg}");
}

const ENTRY: &str = r#"[[model]]
id = "tiny-cnn"
name = "Tiny CNN"
family = "test"
kind = "cnn"
year = 2025
source = "hand-written"
params = 464
flops_per_sample = 884736
input = "32x32 RGB"
graph = [
    "input 3x32x32",
    "conv 16 3x3",
]
"#;

#[test]
fn the_catalog_takes_a_graph_and_skips_an_entry_with_a_bad_one() {
    let mut c = Catalog::default();
    c.add_model_file("u.toml", ENTRY);
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    let m = &c.model("tiny-cnn").unwrap().model;
    assert_eq!(m.layers.len(), 1);
    assert_eq!(m.layers[0].params, 464.0);

    let text = ENTRY.replace("\"conv 16 3x3\"", "\"conv 16 3x3 s0\"");
    let mut c = Catalog::default();
    c.add_model_file("u.toml", &text);
    assert!(c.models.is_empty());
    assert_eq!(c.diagnostics.len(), 1, "{:?}", c.diagnostics);
    let d = &c.diagnostics[0];
    // Line 13, `    "conv 16 3x3 s0",`: the quote at column 5, `s0` at 18.
    assert_eq!((d.line, d.column), (13, 18), "{d}");
    assert!(
        d.message.starts_with("model `tiny-cnn`: graph \"conv 16 3x3 s0\": `s0` asks for a stride of 0; use 1 to 16777216"),
        "{d}"
    );
}

#[test]
fn a_graph_must_agree_with_the_entry_and_belongs_to_single_pass_models() {
    // MACs written as FLOPs: the graph's 884,736 FLOPs are twice 442,368.
    let text = ENTRY.replace("884736", "442368");
    let mut c = Catalog::default();
    c.add_model_file("u.toml", &text);
    assert!(c.models.is_empty());
    let d = &c.diagnostics[0];
    assert!(d.message.contains("flops_per_sample"), "{d}");
    assert!(d.message.contains("more than 10% apart"), "{d}");
    let text = ENTRY.replace("params = 464", "params = 600");
    let mut c = Catalog::default();
    c.add_model_file("u.toml", &text);
    assert!(
        c.diagnostics[0].message.contains("params"),
        "{:?}",
        c.diagnostics
    );
    // A decoder's operators follow from its shape.
    let text = ENTRY.replace("kind = \"cnn\"", "kind = \"dense-decoder\"");
    let mut c = Catalog::default();
    c.add_model_file("u.toml", &text);
    assert!(
        c.diagnostics.iter().any(|d| d
            .message
            .contains("`graph` lists the layers of a single-pass model")),
        "{:?}",
        c.diagnostics
    );
    let text = ENTRY.replace("graph = [", "graph = [\n    3,");
    let mut c = Catalog::default();
    c.add_model_file("u.toml", &text);
    assert!(
        c.diagnostics[0]
            .message
            .contains("list of strings, not of integer"),
        "{:?}",
        c.diagnostics
    );
}
