//! Which architecture a config.json describes, and what that architecture
//! puts in a layer beyond what every config says: biases, norms, a gated
//! or plain MLP, tied embeddings by default (each as the transformers
//! modelling code of that architecture builds it).

/// An architecture the deriver knows, or the generic Llama-like reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Llama,
    Mistral,
    Mixtral,
    Qwen2,
    Qwen2Moe,
    Qwen3,
    Qwen3Moe,
    Gemma,
    Gemma2,
    Gemma3,
    Phi3,
    DeepseekV2,
    DeepseekV3,
    Gpt2,
    GptNeox,
    Falcon,
    GptOss,
    Generic,
}

/// `model_type`s that are not decoder-only language models: refused with a
/// message rather than derived as one.
const NOT_DECODERS: &[&str] = &[
    "bert",
    "roberta",
    "distilbert",
    "xlm-roberta",
    "electra",
    "deberta",
    "deberta-v2",
    "albert",
    "t5",
    "mt5",
    "umt5",
    "bart",
    "mbart",
    "pegasus",
    "marian",
    "whisper",
    "vit",
    "clip",
    "siglip",
    "resnet",
    "convnext",
];

impl Family {
    /// The family of a `model_type` (or, failing that, of the first
    /// `architectures` class).
    pub fn of(model_type: Option<&str>, class: Option<&str>) -> Family {
        let by_type = model_type.map(|t| match t {
            "llama" => Family::Llama,
            "mistral" => Family::Mistral,
            "mixtral" => Family::Mixtral,
            "qwen2" => Family::Qwen2,
            "qwen2_moe" => Family::Qwen2Moe,
            "qwen3" => Family::Qwen3,
            "qwen3_moe" => Family::Qwen3Moe,
            "gemma" => Family::Gemma,
            "gemma2" => Family::Gemma2,
            "gemma3" | "gemma3_text" => Family::Gemma3,
            "phi3" => Family::Phi3,
            "deepseek_v2" => Family::DeepseekV2,
            "deepseek_v3" => Family::DeepseekV3,
            "gpt2" => Family::Gpt2,
            "gpt_neox" => Family::GptNeox,
            "falcon" | "RefinedWeb" | "RefinedWebModel" => Family::Falcon,
            "gpt_oss" => Family::GptOss,
            _ => Family::Generic,
        });
        if let Some(f) = by_type.filter(|f| *f != Family::Generic) {
            return f;
        }
        let by_class = class.map(|c| match c {
            "LlamaForCausalLM" => Family::Llama,
            "MistralForCausalLM" => Family::Mistral,
            "MixtralForCausalLM" => Family::Mixtral,
            "Qwen2ForCausalLM" => Family::Qwen2,
            "Qwen2MoeForCausalLM" => Family::Qwen2Moe,
            "Qwen3ForCausalLM" => Family::Qwen3,
            "Qwen3MoeForCausalLM" => Family::Qwen3Moe,
            "GemmaForCausalLM" => Family::Gemma,
            "Gemma2ForCausalLM" => Family::Gemma2,
            "Gemma3ForCausalLM" | "Gemma3ForConditionalGeneration" => Family::Gemma3,
            "Phi3ForCausalLM" => Family::Phi3,
            "DeepseekV2ForCausalLM" => Family::DeepseekV2,
            "DeepseekV3ForCausalLM" => Family::DeepseekV3,
            "GPT2LMHeadModel" => Family::Gpt2,
            "GPTNeoXForCausalLM" => Family::GptNeox,
            "FalconForCausalLM" | "RWForCausalLM" => Family::Falcon,
            "GptOssForCausalLM" => Family::GptOss,
            _ => Family::Generic,
        });
        by_class.unwrap_or(Family::Generic)
    }

    /// True for a `model_type` that is an encoder, an encoder-decoder or a
    /// vision model.
    pub fn not_a_decoder(model_type: &str) -> bool {
        NOT_DECODERS.contains(&model_type)
    }

    /// The architecture as people name it.
    pub fn name(self) -> &'static str {
        match self {
            Family::Llama => "Llama",
            Family::Mistral => "Mistral",
            Family::Mixtral => "Mixtral",
            Family::Qwen2 => "Qwen2",
            Family::Qwen2Moe => "Qwen2-MoE",
            Family::Qwen3 => "Qwen3",
            Family::Qwen3Moe => "Qwen3-MoE",
            Family::Gemma => "Gemma",
            Family::Gemma2 => "Gemma 2",
            Family::Gemma3 => "Gemma 3",
            Family::Phi3 => "Phi-3",
            Family::DeepseekV2 => "DeepSeek-V2",
            Family::DeepseekV3 => "DeepSeek-V3",
            Family::Gpt2 => "GPT-2",
            Family::GptNeox => "GPT-NeoX",
            Family::Falcon => "Falcon",
            Family::GptOss => "gpt-oss",
            Family::Generic => "generic decoder",
        }
    }

    /// The transformers configuration class whose defaults fill keys a
    /// config leaves out.
    pub fn config_class(self) -> &'static str {
        match self {
            Family::Llama => "LlamaConfig",
            Family::Mistral => "MistralConfig",
            Family::Mixtral => "MixtralConfig",
            Family::Qwen2 => "Qwen2Config",
            Family::Qwen2Moe => "Qwen2MoeConfig",
            Family::Qwen3 => "Qwen3Config",
            Family::Qwen3Moe => "Qwen3MoeConfig",
            Family::Gemma => "GemmaConfig",
            Family::Gemma2 => "Gemma2Config",
            Family::Gemma3 => "Gemma3TextConfig",
            Family::Phi3 => "Phi3Config",
            Family::DeepseekV2 => "DeepseekV2Config",
            Family::DeepseekV3 => "DeepseekV3Config",
            Family::Gpt2 => "GPT2Config",
            Family::GptNeox => "GPTNeoXConfig",
            Family::Falcon => "FalconConfig",
            Family::GptOss => "GptOssConfig",
            Family::Generic => "PretrainedConfig",
        }
    }

    /// Whether the input embedding and the output head share one matrix
    /// when the config does not say (`tie_word_embeddings`).
    pub fn tied_by_default(self) -> bool {
        matches!(
            self,
            Family::Gemma | Family::Gemma2 | Family::Gemma3 | Family::Gpt2 | Family::Falcon
        )
    }

    /// A plain MLP (up, down: GPT-2, GPT-NeoX, Falcon) rather than a gated
    /// one (gate, up, down: SwiGLU, GeGLU).
    pub fn plain_mlp(self) -> bool {
        matches!(self, Family::Gpt2 | Family::GptNeox | Family::Falcon)
    }

    /// LayerNorm (weight and bias) rather than RMSNorm (weight only).
    pub fn layer_norm(self) -> bool {
        matches!(self, Family::Gpt2 | Family::GptNeox | Family::Falcon)
    }

    /// Norms per layer besides the final one (Falcon's depend on its
    /// layout and are counted apart).
    pub fn norms_per_layer(self) -> u32 {
        match self {
            Family::Gemma2 | Family::Gemma3 => 4,
            _ => 2,
        }
    }

    /// A norm on each query and key head (Qwen3, Gemma 3).
    pub fn qk_norm(self) -> bool {
        matches!(self, Family::Qwen3 | Family::Qwen3Moe | Family::Gemma3)
    }

    /// Multi-head latent attention (DeepSeek-V2/V3).
    pub fn mla(self) -> bool {
        matches!(self, Family::DeepseekV2 | Family::DeepseekV3)
    }

    /// The key naming the routed experts per MoE layer.
    pub fn expert_keys(self) -> &'static [&'static str] {
        match self {
            Family::Mixtral | Family::GptOss => &["num_local_experts"],
            Family::Qwen2Moe | Family::Qwen3Moe => &["num_experts"],
            Family::DeepseekV2 | Family::DeepseekV3 => &["n_routed_experts"],
            Family::Generic => &["num_local_experts", "num_experts", "n_routed_experts"],
            _ => &[],
        }
    }
}

/// Biases of the attention projections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Biases {
    pub qkv: bool,
    pub out: bool,
}
