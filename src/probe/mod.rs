//! The probe of the local machine (`ridgeline probe`, `-H local`).
//!
//! - [`detect`]: the CPU, from pure parsers over OS text (fixtures test them).
//! - [`detect_gpu`]: GPUs from `nvidia-smi` / `rocm-smi` output and Apple
//!   chip names.
//! - [`run`]: external commands with a deadline.

pub mod detect;
pub mod run;
