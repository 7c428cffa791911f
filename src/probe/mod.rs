//! The probe of the local machine (`ridgeline probe`, `-H local`).
//!
//! - [`detect`]: the CPU, from pure parsers over OS text (fixtures test them).
//! - [`detect_gpu`]: GPUs from `nvidia-smi` / `rocm-smi` output and Apple
//!   chip names.
//! - [`run`]: external commands with a deadline.
//! - [`measure`]: the CPU's measured ceilings; [`kernel`]: a real matrix
//!   kernel timed on it; [`entry`]: the catalog entry a measurement becomes.

pub mod detect;
pub mod entry;
pub mod kernel;
pub mod measure;
pub mod run;
