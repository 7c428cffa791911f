//! The words a result is told in, chosen in one place from the model: what a
//! step processes (tokens, samples or images), so that its rate reads
//! "tokens/s", "samples/s" or "images/s", and what a step is called
//! ("decode" or "prefill" for a decoder, "forward" for a single-pass model).
//! The workbench and the command line both ask here.
//!
//! How the choice is made: the catalog's model `kind` separates decoders,
//! which generate tokens, from single-pass models (`cnn`, `encoder`,
//! `other`), which process samples. A single-pass model's sample is an image
//! when the catalog's `input` (the input its FLOPs are stated at) names one,
//! as "224x224 RGB image" does: ResNet-50, MobileNet and ViT-B/16 read
//! images/s, while BERT (a 128-token sequence) and the DS-CNN keyword
//! spotter (1 s of audio) read samples/s. The `family` does not decide it:
//! MLPerf Tiny holds an audio model and two image models.

use crate::catalog::ModelEntry;
use crate::solver::{ModelKind, Phase};

/// What one step of a model processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Token,
    Sample,
    Image,
}

/// The words for one model's results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words {
    pub unit: Unit,
}

impl Words {
    /// The words for a model of `kind` whose FLOPs are stated at `input`.
    pub fn of(kind: ModelKind, input: Option<&str>) -> Words {
        let unit = if kind.is_decoder() {
            Unit::Token
        } else if input.is_some_and(|i| i.to_ascii_lowercase().contains("image")) {
            Unit::Image
        } else {
            Unit::Sample
        };
        Words { unit }
    }

    /// The words for a catalog model.
    pub fn for_model(m: &ModelEntry) -> Words {
        Words::of(m.model.kind, m.input.as_deref())
    }

    /// The rate in full: "tokens/s", "samples/s", "images/s".
    pub fn rate(self) -> &'static str {
        match self.unit {
            Unit::Token => "tokens/s",
            Unit::Sample => "samples/s",
            Unit::Image => "images/s",
        }
    }

    /// The rate where room is short: "tok/s", "samples/s", "images/s".
    pub fn rate_short(self) -> &'static str {
        match self.unit {
            Unit::Token => "tok/s",
            u => Words { unit: u }.rate(),
        }
    }

    /// One step's name: the phase for a decoder, "forward" otherwise.
    pub fn step(self, phase: Phase) -> &'static str {
        if self.single_pass() {
            "forward"
        } else {
            phase.name()
        }
    }

    /// A single forward pass: phase, context and KV cache do not apply.
    pub fn single_pass(self) -> bool {
        self.unit != Unit::Token
    }
}

/// A fleet design in words, the same in both faces: "prefill 112 x TP 4 +
/// decode 52 x TP 1 = 500 devices" for pools, "126 x TP 4 = 504 devices"
/// for replicas; never a disaggregated design as replicas of one layout.
pub fn fleet_design(o: &crate::solver::fleet::FleetOption) -> String {
    let layout = |l: &crate::solver::Parallelism| {
        if l.pp > 1 {
            format!("TP {} x PP {}", l.tp, l.pp)
        } else {
            format!("TP {}", l.tp)
        }
    };
    let n = |x: u64| crate::solver::units::format_count(x as f64);
    match &o.pools {
        Some(p) => format!(
            "prefill {} x {} + decode {} x {} = {} devices",
            n(p.prefill.replicas),
            layout(&p.prefill.layout),
            n(p.decode.replicas),
            layout(&p.decode.layout),
            n(o.devices)
        ),
        None => format!(
            "{} x {} = {} devices",
            n(o.replicas),
            layout(&o.layout),
            n(o.devices)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;

    #[test]
    fn rates_and_steps_follow_the_model() {
        let llm = Words::of(ModelKind::DenseDecoder, None);
        assert_eq!((llm.rate(), llm.rate_short()), ("tokens/s", "tok/s"));
        assert_eq!(llm.step(Phase::Prefill), "prefill");
        let moe = Words::of(ModelKind::MoeDecoder, Some("an image, oddly"));
        assert_eq!(moe.rate(), "tokens/s", "a decoder counts tokens");
        let cnn = Words::of(ModelKind::Cnn, Some("224x224 RGB image"));
        assert_eq!(
            (cnn.rate(), cnn.step(Phase::Decode)),
            ("images/s", "forward")
        );
        let kws = Words::of(
            ModelKind::Cnn,
            Some("49x10 MFCC features (1 s of 16 kHz audio)"),
        );
        assert_eq!(kws.rate(), "samples/s");
        let bare = Words::of(ModelKind::Other, None);
        assert_eq!(
            (bare.rate(), bare.step(Phase::Prefill)),
            ("samples/s", "forward")
        );
        assert!(bare.single_pass() && !llm.single_pass());
    }

    #[test]
    fn the_catalog_reads_images_for_vision_and_samples_for_text_and_audio() {
        let cat = Catalog::builtin();
        let rate = |id: &str| Words::for_model(cat.model(id).unwrap()).rate();
        assert_eq!(rate("resnet-50"), "images/s");
        assert_eq!(rate("vit-b-16"), "images/s");
        assert_eq!(rate("mobilenet-v1-0.25-vww"), "images/s");
        assert_eq!(rate("bert-base"), "samples/s");
        assert_eq!(rate("ds-cnn-kws"), "samples/s");
        assert_eq!(rate("llama-3.1-8b"), "tokens/s");
    }
}
