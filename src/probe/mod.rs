//! The machine in hand: its measured ceilings (`measure`), a real matrix
//! kernel timed on it (`kernel`), and the catalog entry the measurement
//! becomes (`entry`).

pub mod measure;
