//! Shared helpers for the integration tests.
#![allow(dead_code)]

pub mod app;
pub mod cases;
pub mod exact;
pub mod exports;
pub mod process;
pub mod shuffles;
pub mod snapshot;
