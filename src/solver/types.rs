//! Plain data the solver reads: a device, a model, a workload and the
//! assumptions (efficiencies, overheads). All quantities are SI base units.

use std::fmt;

/// A number format for weights, activations or the KV cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Precision {
    Fp32,
    Tf32,
    Bf16,
    Fp16,
    Fp8,
    Int8,
    Fp4,
    Int4,
}

impl Precision {
    pub const ALL: [Precision; 8] = [
        Precision::Fp32,
        Precision::Tf32,
        Precision::Bf16,
        Precision::Fp16,
        Precision::Fp8,
        Precision::Int8,
        Precision::Fp4,
        Precision::Int4,
    ];

    /// Bytes one element takes in memory. TF32 is stored as FP32.
    pub fn bytes(self) -> f64 {
        match self {
            Precision::Fp32 | Precision::Tf32 => 4.0,
            Precision::Bf16 | Precision::Fp16 => 2.0,
            Precision::Fp8 | Precision::Int8 => 1.0,
            Precision::Fp4 | Precision::Int4 => 0.5,
        }
    }

    /// The format the math falls back to when a device lacks this one:
    /// int4 -> int8 -> fp16, fp4 -> fp8 -> fp16, fp16 -> bf16 -> tf32 -> fp32.
    pub fn wider(self) -> Option<Precision> {
        match self {
            Precision::Int4 => Some(Precision::Int8),
            Precision::Fp4 => Some(Precision::Fp8),
            Precision::Int8 | Precision::Fp8 => Some(Precision::Fp16),
            Precision::Fp16 => Some(Precision::Bf16),
            Precision::Bf16 => Some(Precision::Tf32),
            Precision::Tf32 => Some(Precision::Fp32),
            Precision::Fp32 => None,
        }
    }

    /// The next narrower storage format of the same family, for a "what if
    /// the weights were quantized one step" question: fp32 -> bf16 -> fp8 ->
    /// fp4, int8 -> int4.
    pub fn narrower(self) -> Option<Precision> {
        match self {
            Precision::Fp32 | Precision::Tf32 => Some(Precision::Bf16),
            Precision::Bf16 | Precision::Fp16 => Some(Precision::Fp8),
            Precision::Fp8 => Some(Precision::Fp4),
            Precision::Int8 => Some(Precision::Int4),
            Precision::Fp4 | Precision::Int4 => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Tf32 => "tf32",
            Precision::Bf16 => "bf16",
            Precision::Fp16 => "fp16",
            Precision::Fp8 => "fp8",
            Precision::Int8 => "int8",
            Precision::Fp4 => "fp4",
            Precision::Int4 => "int4",
        }
    }

    /// Read "bf16", "FP8", "int4"... (case-insensitive).
    pub fn parse(s: &str) -> Option<Precision> {
        let s = s.trim().to_ascii_lowercase();
        Precision::ALL.into_iter().find(|p| p.name() == s)
    }

    /// The next format in the cycle a UI steps through (narrower first).
    pub fn next(self) -> Precision {
        let i = Precision::ALL.iter().position(|p| *p == self).unwrap_or(0);
        Precision::ALL[(i + 1) % Precision::ALL.len()]
    }

    /// The previous format in the cycle.
    pub fn prev(self) -> Precision {
        let n = Precision::ALL.len();
        let i = Precision::ALL.iter().position(|p| *p == self).unwrap_or(0);
        Precision::ALL[(i + n - 1) % n]
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Dense peak FLOP/s per precision; `None` = not supported natively.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Peaks {
    pub fp32: Option<f64>,
    pub tf32: Option<f64>,
    pub bf16: Option<f64>,
    pub fp16: Option<f64>,
    pub fp8: Option<f64>,
    pub int8: Option<f64>,
    pub fp4: Option<f64>,
    pub int4: Option<f64>,
    /// FP16 math accumulated in FP16, where a device runs it faster than
    /// its `fp16` figure (FP32 accumulate): GeForce cards, whose tensor
    /// cores run FP32 accumulate at half rate. Used only by a stack whose
    /// GEMMs ask for FP16 accumulation ([`Accumulate::Fp16`]).
    pub fp16_acc16: Option<f64>,
}

impl Peaks {
    pub fn get(&self, p: Precision) -> Option<f64> {
        match p {
            Precision::Fp32 => self.fp32,
            Precision::Tf32 => self.tf32,
            Precision::Bf16 => self.bf16,
            Precision::Fp16 => self.fp16,
            Precision::Fp8 => self.fp8,
            Precision::Int8 => self.int8,
            Precision::Fp4 => self.fp4,
            Precision::Int4 => self.int4,
        }
    }

    pub fn set(&mut self, p: Precision, v: Option<f64>) {
        let slot = match p {
            Precision::Fp32 => &mut self.fp32,
            Precision::Tf32 => &mut self.tf32,
            Precision::Bf16 => &mut self.bf16,
            Precision::Fp16 => &mut self.fp16,
            Precision::Fp8 => &mut self.fp8,
            Precision::Int8 => &mut self.int8,
            Precision::Fp4 => &mut self.fp4,
            Precision::Int4 => &mut self.int4,
        };
        *slot = v;
    }

    /// The peak for `p`, or for the first wider format the device supports.
    /// Returns the precision actually used with its peak. If nothing wider is
    /// supported either, any supported format is used (the widest first).
    pub fn resolve(&self, p: Precision) -> Option<(Precision, f64)> {
        let mut cur = Some(p);
        while let Some(q) = cur {
            if let Some(v) = self.get(q) {
                return Some((q, v));
            }
            cur = q.wider();
        }
        Precision::ALL
            .into_iter()
            .find_map(|q| self.get(q).map(|v| (q, v)))
    }

    /// Multiply every peak by `k` (used by sensitivity).
    pub fn scaled(&self, k: f64) -> Peaks {
        let mut out = *self;
        for p in Precision::ALL {
            out.set(p, self.get(p).map(|v| v * k));
        }
        out.fp16_acc16 = self.fp16_acc16.map(|v| v * k);
        out
    }
}

/// Where a device sits in the market; pickers group by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tier {
    Cloud,
    Workstation,
    Edge,
    Mobile,
    Tiny,
}

impl Tier {
    pub const ALL: [Tier; 5] = [
        Tier::Cloud,
        Tier::Workstation,
        Tier::Edge,
        Tier::Mobile,
        Tier::Tiny,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Tier::Cloud => "cloud",
            Tier::Workstation => "workstation",
            Tier::Edge => "edge",
            Tier::Mobile => "mobile",
            Tier::Tiny => "tiny",
        }
    }
    pub fn parse(s: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.name() == s)
    }
}

/// One device, as the solver sees it. Sources live in the catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct Hardware {
    pub id: String,
    pub name: String,
    pub tier: Tier,
    pub year: u16,
    /// Dense peaks, FLOP/s.
    pub peaks: Peaks,
    /// Measured maximum achievable matmul FLOP/s per format (dense, at the
    /// best large shape found), where a source measured it; none = not
    /// measured. What share of its peak a device's large GEMMs reach
    /// differs by generation (A100 87%, H100 80%, B200 78%, MI300X 51%:
    /// Bekman's MAMF table), and training uses it
    /// ([`Hardware::matmul_share`]).
    pub matmul: Peaks,
    /// Memory capacity, bytes.
    pub memory_bytes: f64,
    /// Peak memory bandwidth, byte/s.
    pub memory_bandwidth: f64,
    /// Scale-up link (NVLink, Infinity Fabric, ICI) per device, per direction, byte/s.
    pub link_bandwidth: Option<f64>,
    /// Devices joined by the scale-up link (1 when there is none).
    pub devices_per_node: u32,
    /// Scale-out network per device, per direction, byte/s.
    pub scaleout_bandwidth: Option<f64>,
    /// The link between the device and its host's memory (PCIe, NVLink-C2C)
    /// per device, per direction, byte/s: what offloaded activations cross
    /// (`ridgeline train --offload`). None = not given.
    pub host_bandwidth: Option<f64>,
    /// The scale-up link as a torus of nearest-neighbour links (TPU ICI),
    /// None for a switched fabric (NVLink/NVSwitch) where every port
    /// reaches any peer.
    pub torus: Option<Torus>,
    /// Thermal design power, watts.
    pub tdp_w: Option<f64>,
    /// On-demand price of one device, USD per hour.
    pub price_per_hour_usd: Option<f64>,
}

impl Hardware {
    /// The measured matmul ceiling at `p` as a share of the peak at `p`:
    /// None when either is unknown.
    pub fn matmul_share(&self, p: Precision) -> Option<f64> {
        let (m, peak) = (self.matmul.get(p)?, self.peaks.get(p)?);
        (m > 0.0 && peak > 0.0).then(|| m / peak)
    }

    /// The peak a step's math at precision `p` runs at, with the precision
    /// used: the peak of `p` or of the first wider format the device has
    /// ([`Peaks::resolve`]); for FP16 math accumulated in FP16
    /// ([`Accumulate::Fp16`]) the device's FP16-accumulate rate where it
    /// lists a faster one.
    pub fn compute_peak(&self, p: Precision, acc: Accumulate) -> Option<(Precision, f64)> {
        let (used, peak) = self.peaks.resolve(p)?;
        Some(match (used, acc, self.peaks.fp16_acc16) {
            (Precision::Fp16, Accumulate::Fp16, Some(fast)) if fast > peak => (used, fast),
            _ => (used, peak),
        })
    }

    /// Ridge point at precision `p`: peak / bandwidth, FLOP per byte.
    pub fn ridge_point(&self, p: Precision) -> Option<f64> {
        self.peaks
            .resolve(p)
            .map(|(_, f)| f / self.memory_bandwidth)
    }
}

/// When an axis of a torus slice closes into a ring (has wraparound
/// links).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrap {
    /// The wraparound links come from optical switches on the faces of
    /// whole cubes of this edge (TPU v4 and v5p: 4x4x4): a slice whose
    /// every axis is a multiple of the edge wraps on every axis; any other
    /// slice on none.
    Cubes(u32),
    /// An axis wraps when it spans the whole torus axis (TPU v5e, v6e:
    /// an 8x16 slice of a 16x16 pod wraps on its 16 axis only).
    FullAxis,
}

/// A torus of nearest-neighbour links: each device has two links per axis
/// (one each way), `link_bandwidth` each per direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Torus {
    /// Devices along each axis of the largest slice (a 2D torus has
    /// `dims[2] = 1`); their product is `devices_per_node`.
    pub dims: [u32; 3],
    /// One link, one direction, byte/s.
    pub link_bandwidth: f64,
    pub wrap: Wrap,
}

/// The slice a job of some devices gets: its shape and which axes wrap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slice {
    pub dims: [u32; 3],
    pub wraps: [bool; 3],
}

impl Torus {
    /// The smallest slice holding `devices` (at most the whole torus),
    /// grown the way Cloud TPU slice shapes grow: from 1x1x1, double the
    /// shortest axis that can still double (the last of equals), and when
    /// none can, take the first axis that is short of its length to that
    /// length (16x16x16 to 16x16x24). So 32 devices of a v5p get 2x4x4,
    /// 64 get 4x4x4, 128 get 4x4x8, 6144 get 16x16x24; 128 of a v5e get
    /// 8x16, the shapes the Cloud TPU documentation lists. A count that
    /// does not fill the grown slice cuts its first axis to fit when it
    /// divides (3072 of a v4: 12x16x16).
    pub fn slice(&self, devices: u32) -> Slice {
        let mut d = [1u32; 3];
        let product = |d: &[u32; 3]| d.iter().map(|&x| x as u64).product::<u64>();
        while product(&d) < devices as u64 {
            let doubling = (0..3)
                .filter(|&i| d[i] * 2 <= self.dims[i])
                .min_by_key(|&i| (d[i], std::cmp::Reverse(i)));
            match doubling {
                Some(i) => d[i] *= 2,
                None => match (0..3).find(|&i| d[i] < self.dims[i]) {
                    Some(i) => d[i] = self.dims[i],
                    None => break,
                },
            }
        }
        // A job that does not fill the slice gets the first axis cut to
        // fit it exactly when it can be (3072 chips of a 16x16x16 v4 pod:
        // 12x16x16, PaLM's pods).
        let (total, want) = (product(&d), devices as u64);
        if total > want {
            for axis in d.iter_mut() {
                let rest = total / *axis as u64;
                if want.is_multiple_of(rest) && want / rest <= *axis as u64 {
                    *axis = (want / rest) as u32;
                    break;
                }
            }
        }
        let wraps = match self.wrap {
            Wrap::Cubes(edge) => {
                let edge = edge.max(1);
                let whole = (0..3).all(|i| self.dims[i] <= 1 || d[i] % edge == 0);
                [0, 1, 2].map(|i| whole && d[i] > 2)
            }
            Wrap::FullAxis => [0, 1, 2].map(|i| d[i] > 2 && d[i] == self.dims[i]),
        };
        Slice { dims: d, wraps }
    }

    /// How many axes the torus has (2 or 3; axes of length 1 do not count).
    pub fn axes(&self) -> usize {
        self.dims.iter().filter(|&&x| x > 1).count()
    }

    /// Read a shape "16x16x24" or "16x16" (2 or 3 whole numbers from 1 to
    /// `max` each); None if it is not one.
    pub fn parse_dims(s: &str, max: u32) -> Option<[u32; 3]> {
        let parts: Vec<&str> = s.trim().split(['x', 'X']).collect();
        if !(2..=3).contains(&parts.len()) {
            return None;
        }
        let mut dims = [1u32; 3];
        for (d, p) in dims.iter_mut().zip(&parts) {
            *d = p.trim().parse().ok().filter(|n| (1..=max).contains(n))?;
        }
        Some(dims)
    }

    /// The shape as written: "16x16x24", "16x16".
    pub fn shape(&self) -> String {
        Torus::shape_of(&self.dims)
    }

    /// A shape as written: "4x4x4", "16x8" (a third axis of 1 left out).
    pub fn shape_of(dims: &[u32; 3]) -> String {
        let n = if dims[2] > 1 { 3 } else { 2 };
        dims[..n]
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("x")
    }
}

impl Wrap {
    /// Read "full axis" or "cubes of 4".
    pub fn parse(s: &str) -> Option<Wrap> {
        let s = s.trim();
        if s == "full axis" {
            return Some(Wrap::FullAxis);
        }
        let edge: u32 = s.strip_prefix("cubes of ")?.trim().parse().ok()?;
        (edge >= 2).then_some(Wrap::Cubes(edge))
    }

    pub fn name(&self) -> String {
        match self {
            Wrap::FullAxis => "full axis".into(),
            Wrap::Cubes(e) => format!("cubes of {e}"),
        }
    }
}

/// The kind of model; it decides which formulas apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelKind {
    DenseDecoder,
    MoeDecoder,
    Encoder,
    Cnn,
    Other,
}

impl ModelKind {
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::DenseDecoder => "dense-decoder",
            ModelKind::MoeDecoder => "moe-decoder",
            ModelKind::Encoder => "encoder",
            ModelKind::Cnn => "cnn",
            ModelKind::Other => "other",
        }
    }
    pub fn parse(s: &str) -> Option<ModelKind> {
        [
            ModelKind::DenseDecoder,
            ModelKind::MoeDecoder,
            ModelKind::Encoder,
            ModelKind::Cnn,
            ModelKind::Other,
        ]
        .into_iter()
        .find(|k| k.name() == s)
    }
    /// Decoders generate token by token; the rest run one forward pass.
    pub fn is_decoder(self) -> bool {
        matches!(self, ModelKind::DenseDecoder | ModelKind::MoeDecoder)
    }
}

/// Mixture of experts: routed experts per MoE layer and how many a token uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moe {
    pub experts: u32,
    pub top_k: u32,
    /// Parameters used per token (published figure).
    pub active_params: f64,
    /// Intermediate width of the shared experts every token passes through,
    /// summed over them (DeepSeek: n_shared x moe_intermediate_size; Qwen2-MoE:
    /// shared_expert_intermediate_size). 0 = none.
    pub shared_ffn: u32,
    /// Leading layers whose MLP is dense, not MoE (DeepSeek's
    /// first_k_dense_replace), and their intermediate width.
    pub dense_layers: u32,
    pub dense_ffn: u32,
}

impl Moe {
    /// A plain MoE: every layer routed, no shared experts.
    pub fn routed(experts: u32, top_k: u32, active_params: f64) -> Moe {
        Moe {
            experts,
            top_k,
            active_params,
            shared_ffn: 0,
            dense_layers: 0,
            dense_ffn: 0,
        }
    }
}

/// Multi-head latent attention (DeepSeek-V2/V3): the KV cache holds a
/// compressed latent plus a decoupled RoPE key per token and layer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mla {
    pub kv_latent: u32,
    pub rope_dim: u32,
    /// Rank of the query's low-rank compression (q_lora_rank); 0 = the
    /// query is projected directly (DeepSeek-V2-Lite).
    pub q_latent: u32,
}

/// Sliding-window (local) attention on some layers: a local layer attends
/// to, and caches, at most `tokens` past positions (Mistral 7B v0.1, Gemma 2
/// and 3, gpt-oss). The other layers attend to the whole context.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub tokens: u32,
    /// How many of the layers are local (all of them for Mistral 7B v0.1,
    /// every other one for Gemma 2 and gpt-oss, five in six for Gemma 3).
    pub layers: u32,
}

/// Transformer shape of a decoder.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decoder {
    pub layers: u32,
    pub hidden: u32,
    pub heads: u32,
    pub kv_heads: u32,
    pub head_dim: u32,
    pub ffn: u32,
    pub vocab: u32,
    pub tied_embeddings: bool,
    pub max_context: u32,
    pub moe: Option<Moe>,
    pub mla: Option<Mla>,
    /// A gated MLP (SwiGLU, GeGLU: gate, up and down projections) or a plain
    /// one (up and down: GPT-2, GPT-NeoX, Falcon).
    pub gated_mlp: bool,
    pub window: Option<Window>,
}

/// One forward pass per sample (CNN, encoder): cost at a stated input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SinglePass {
    /// FLOPs per sample (a multiply-add counts 2).
    pub flops_per_sample: f64,
    /// Elements of all intermediate feature maps of one sample.
    pub activation_elements_per_sample: f64,
}

/// The architecture: a decoder, or a single-pass network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arch {
    Decoder(Decoder),
    SinglePass(SinglePass),
}

/// A model, as the solver sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub id: String,
    pub name: String,
    pub kind: ModelKind,
    /// Total parameters.
    pub params: f64,
    pub arch: Arch,
    /// The layers of a single-pass network, in order, when the catalog
    /// lists them (empty otherwise, and always for decoders, whose
    /// operators follow from their shape).
    pub layers: Vec<Layer>,
}

/// What one layer of a single-pass network costs per sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// A short name ("conv1", "layer3.2.conv2", "fc").
    pub name: String,
    /// What it computes ("conv", "dwconv", "fc", "add", "pool", "attention").
    pub op: String,
    /// FLOPs per sample (a multiply-add counts 2).
    pub flops: f64,
    /// Weights the layer reads (parameters).
    pub params: f64,
    /// Activation elements read (every input, the residual's too) and
    /// written, per sample.
    pub inputs: f64,
    pub outputs: f64,
}

/// Decode (one new token for each of B sequences) or prefill (B prompts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    Decode,
    Prefill,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Decode => "decode",
            Phase::Prefill => "prefill",
        }
    }
    pub fn parse(s: &str) -> Option<Phase> {
        match s.trim().to_ascii_lowercase().as_str() {
            "decode" => Some(Phase::Decode),
            "prefill" => Some(Phase::Prefill),
            _ => None,
        }
    }
}

/// Precisions of weights, activations (the math) and KV cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Precisions {
    pub weights: Precision,
    pub activations: Precision,
    pub kv: Precision,
}

impl Precisions {
    /// One name for all three, except formats that only store weights:
    /// int4 and fp4 weights run their math and cache in bf16 (AWQ/GPTQ
    /// style), as does int8 (weight-only int8); fp8 and the wide floats
    /// run everything in themselves.
    pub fn named(p: Precision) -> Precisions {
        let math = match p {
            Precision::Int4 | Precision::Fp4 | Precision::Int8 => Precision::Bf16,
            other => other,
        };
        Precisions {
            weights: p,
            activations: math,
            kv: math,
        }
    }

    /// The precisions a workload runs at.
    pub fn of(wl: &Workload) -> Precisions {
        Precisions {
            weights: wl.weights,
            activations: wl.activations,
            kv: wl.kv,
        }
    }

    /// `wl` at these precisions.
    pub fn apply(&self, wl: &Workload) -> Workload {
        Workload {
            weights: self.weights,
            activations: self.activations,
            kv: self.kv,
            ..*wl
        }
    }

    /// Read "bf16" (as [`Precisions::named`]) or "int4/fp8/fp8"
    /// (weights/activations/kv).
    pub fn parse(s: &str) -> Result<Precisions, String> {
        let one = |x: &str| {
            Precision::parse(x).ok_or_else(|| {
                format!(
                    "unknown precision {x:?}; use fp32, tf32, bf16, fp16, fp8, int8, fp4 or int4"
                )
            })
        };
        let parts: Vec<&str> = s.split('/').map(str::trim).collect();
        match parts.as_slice() {
            [p] => Ok(Precisions::named(one(p)?)),
            [w, a, kv] => Ok(Precisions {
                weights: one(w)?,
                activations: one(a)?,
                kv: one(kv)?,
            }),
            _ => Err(format!(
                "{s:?}: a precision is one name (bf16) or weights/activations/kv (int4/bf16/fp8)"
            )),
        }
    }

    /// A comma-separated list of [`Precisions::parse`], at least one, each
    /// once, in the order given.
    pub fn parse_list(s: &str) -> std::result::Result<Vec<Precisions>, String> {
        let mut v: Vec<Precisions> = Vec::new();
        for x in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
            let p = Precisions::parse(x)?;
            if !v.contains(&p) {
                v.push(p);
            }
        }
        if v.is_empty() {
            return Err("name at least one precision, e.g. bf16,fp8,int4".into());
        }
        Ok(v)
    }

    /// The name it was made from ([`Precisions::named`]: "bf16", "int4"),
    /// or "int4/fp8/fp8" when the three were chosen apart.
    pub fn label(&self) -> String {
        if *self == Precisions::named(self.weights) {
            self.weights.name().to_string()
        } else {
            format!(
                "{}/{}/{}",
                self.weights.name(),
                self.activations.name(),
                self.kv.name()
            )
        }
    }
}

/// What is being run: phase, batch, context, precisions and parallelism.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Workload {
    pub phase: Phase,
    /// Sequences (decode), prompts (prefill) or samples (single-pass).
    pub batch: f64,
    /// Tokens in the KV cache (decode) or prompt length (prefill).
    pub context: f64,
    pub weights: Precision,
    pub activations: Precision,
    pub kv: Precision,
    /// Tensor-parallel degree.
    pub tp: u32,
    /// Pipeline-parallel degree.
    pub pp: u32,
}

impl Default for Workload {
    /// Batch-1 decode at a 4096-token context in bf16 on one device.
    fn default() -> Self {
        Workload {
            phase: Phase::Decode,
            batch: 1.0,
            context: 4096.0,
            weights: Precision::Bf16,
            activations: Precision::Bf16,
            kv: Precision::Bf16,
            tp: 1,
            pp: 1,
        }
    }
}

/// How a collective's algorithm is chosen: NCCL's ring (bandwidth-optimal,
/// 2 (t - 1) latency hops per all-reduce), a tree (2 ceil(log2 t) hops,
/// about twice the ring's bytes per link), or whichever is faster for the
/// message (what NCCL's tuner does: trees for small messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Collective {
    Ring,
    Tree,
    Auto,
}

impl Collective {
    pub const ALL: [Collective; 3] = [Collective::Ring, Collective::Tree, Collective::Auto];
    pub fn name(self) -> &'static str {
        match self {
            Collective::Ring => "ring",
            Collective::Tree => "tree",
            Collective::Auto => "auto",
        }
    }
    pub fn parse(s: &str) -> Option<Collective> {
        let s = s.trim().to_ascii_lowercase();
        Collective::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// What a stack's FP16 GEMMs accumulate in. cuBLAS as PyTorch calls it
/// accumulates in FP32; llama.cpp's CUDA backend asks cuBLAS for FP16
/// accumulation (`CUBLAS_COMPUTE_16F` in `ggml_cuda_op_mul_mat_cublas`),
/// which GeForce cards run at twice their FP32-accumulate rate
/// ([`Peaks::fp16_acc16`]). Datacenter and professional cards run both at
/// one rate, so there it changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Accumulate {
    Fp32,
    Fp16,
}

impl Accumulate {
    pub const ALL: [Accumulate; 2] = [Accumulate::Fp32, Accumulate::Fp16];
    pub fn name(self) -> &'static str {
        match self {
            Accumulate::Fp32 => "fp32",
            Accumulate::Fp16 => "fp16",
        }
    }
    pub fn parse(s: &str) -> Option<Accumulate> {
        let s = s.trim().to_ascii_lowercase();
        Accumulate::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// Named, overridable assumptions. See docs/model.md and docs/validation.md for the measurements
/// each default was checked against. The calibrated profiles
/// (`catalog/profiles/*.toml`) are sets of these values with sources;
/// [`Assumptions::default`] is the plain roofline of the `roofline` profile,
/// where every refinement below is neutral.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Assumptions {
    /// Fraction of peak FLOP/s a step's large GEMMs reach.
    pub compute_efficiency: f64,
    /// Fraction of peak memory bandwidth a step's kernels reach.
    pub memory_efficiency: f64,
    /// Fraction of link bandwidth a collective reaches.
    pub link_efficiency: f64,
    /// Fixed per-step overhead (scheduling, sampling, framework), seconds.
    pub overhead_s: f64,
    /// Latency of one hop of a collective, seconds (alpha).
    pub link_latency_s: f64,
    /// Fraction of memory capacity a run may use (allocator, runtime reserve).
    pub usable_memory: f64,
    /// Overlap of compute and memory time: T = max + (1 - w) * min. 1 = ideal roofline.
    pub overlap: f64,
    /// Fixed time of one kernel of a decoder layer (launch, ramp-up, tail,
    /// synchronisation), seconds; a step pays it for every kernel of every
    /// layer ([`crate::solver::cost::StepCost::kernels`]). 0 = free kernels.
    pub kernel_s: f64,
    /// Fixed time a prefill step adds for its requests (admission,
    /// scheduling, input preparation, the first sampling), seconds: part of
    /// the time to first token that no hardware figure shortens.
    pub request_s: f64,
    /// Fixed time of one mixture-of-experts layer beyond its kernels
    /// (routing, token permutation, the grouped GEMMs' set-up), seconds.
    pub moe_layer_s: f64,
    /// Fixed time of one collective or pipeline hand-off (launch and the
    /// barrier among ranks), on top of its hops, seconds.
    pub collective_s: f64,
    /// How all-reduces are run.
    pub collective: Collective,
    /// What FP16 GEMMs accumulate in: FP32, or FP16 where a device runs
    /// that faster ([`Hardware::compute_peak`]).
    pub accumulate: Accumulate,
    /// Rows (tokens) at which a GEMM reaches half of `compute_efficiency`:
    /// efficiency = eta_c * m / (m + m_half), for tile and wave quantization
    /// of small-M GEMMs. 0 = the same efficiency at every size.
    pub gemm_half_rows: f64,
    /// Multiplier on `compute_efficiency` when the math runs in an 8-bit or
    /// narrower format (fp8/int8/fp4/int4 kernels reach a different fraction
    /// of their peak than bf16 ones). 1 = the same fraction.
    pub low_precision_efficiency: f64,
    /// Multiplier on `compute_efficiency` for the attention products
    /// (flash-attention style kernels). 1 = as fast as the GEMMs.
    pub attention_efficiency: f64,
    /// Multiplier on `memory_efficiency` for weights stored narrower than
    /// the math (weight-only quantization: dequantised on the fly), for
    /// 8-bit and for 4-bit weights. 1 = no dequantization cost.
    pub dequant_8bit: f64,
    pub dequant_4bit: f64,
    /// Share of the tensor-parallel communication of a prefill hidden
    /// behind its compute. 0 = none hidden.
    pub prefill_comm_overlap: f64,
    /// Error band (natural-log half-width) every time carries, and what
    /// widens it: times the share of fixed costs in the step, times log2
    /// of the devices, and when weights or math are 8-bit or narrower. All
    /// 0 = no band.
    pub band_base: f64,
    pub band_fixed: f64,
    pub band_devices: f64,
    pub band_quantized: f64,
}

/// Defaults of the plain roofline; docs/model.md gives the
/// measurements behind them.
pub const DEFAULT_COMPUTE_EFFICIENCY: f64 = 0.7;
pub const DEFAULT_MEMORY_EFFICIENCY: f64 = 0.7;
pub const DEFAULT_LINK_EFFICIENCY: f64 = 0.8;
pub const DEFAULT_OVERHEAD_S: f64 = 10e-6;
pub const DEFAULT_LINK_LATENCY_S: f64 = 1e-6;
pub const DEFAULT_USABLE_MEMORY: f64 = 0.9;
pub const DEFAULT_OVERLAP: f64 = 1.0;

impl Default for Assumptions {
    /// The plain roofline (profile `roofline`): flat efficiencies, one
    /// per-step overhead, ring all-reduces, no band.
    fn default() -> Self {
        Assumptions {
            compute_efficiency: DEFAULT_COMPUTE_EFFICIENCY,
            memory_efficiency: DEFAULT_MEMORY_EFFICIENCY,
            link_efficiency: DEFAULT_LINK_EFFICIENCY,
            overhead_s: DEFAULT_OVERHEAD_S,
            link_latency_s: DEFAULT_LINK_LATENCY_S,
            usable_memory: DEFAULT_USABLE_MEMORY,
            overlap: DEFAULT_OVERLAP,
            ..Assumptions::ideal()
        }
    }
}

impl Assumptions {
    /// Ideal hardware: every efficiency 1, no fixed costs, no band.
    pub fn ideal() -> Self {
        Assumptions {
            compute_efficiency: 1.0,
            memory_efficiency: 1.0,
            link_efficiency: 1.0,
            overhead_s: 0.0,
            link_latency_s: 0.0,
            usable_memory: 1.0,
            overlap: 1.0,
            kernel_s: 0.0,
            moe_layer_s: 0.0,
            request_s: 0.0,
            collective_s: 0.0,
            collective: Collective::Ring,
            accumulate: Accumulate::Fp32,
            gemm_half_rows: 0.0,
            low_precision_efficiency: 1.0,
            attention_efficiency: 1.0,
            dequant_8bit: 1.0,
            dequant_4bit: 1.0,
            prefill_comm_overlap: 0.0,
            band_base: 0.0,
            band_fixed: 0.0,
            band_devices: 0.0,
            band_quantized: 0.0,
        }
    }

    /// The GEMM efficiency at `rows` tokens per GEMM: eta_c * m / (m + m_half).
    /// Rows 0 (unknown) get the large-problem efficiency.
    pub fn gemm_efficiency(&self, rows: f64) -> f64 {
        if self.gemm_half_rows > 0.0 && rows > 0.0 {
            self.compute_efficiency * rows / (rows + self.gemm_half_rows)
        } else {
            self.compute_efficiency
        }
    }

    /// Multiplier on the memory efficiency of weight bytes stored in `weights`
    /// while the math runs in `math`: the dequantization cost of
    /// weight-only formats.
    pub fn dequant(&self, weights: Precision, math: Precision) -> f64 {
        if weights.bytes() >= math.bytes() {
            1.0
        } else if weights.bytes() >= 1.0 {
            self.dequant_8bit
        } else {
            self.dequant_4bit
        }
    }
}
