pub mod catalog;
pub mod cli;
pub mod fsutil;
pub mod lesson;
pub mod scenario;
pub mod solver;
pub mod tui;
pub mod words;
