//! What every service test stands on: a fresh database per test, the server
//! in this process or as the real binary, and the one HTTP client.

mod app;
mod client;
mod database;
mod process;

pub(crate) use app::on_both_backends;
pub use app::{
    TestApp, serve_app, serve_app_with, serve_app_witnessed, spawn_app, spawn_app_monitored,
};
pub use client::{Client, Reply, id};
pub use database::{Backend, TestDatabase, random_master_key_hex, run_sql};
pub use process::{Deployment, Server, log_reaches, run_audit_log, run_monitor};
