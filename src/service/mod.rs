//! The dealing service, top to bottom: `http` calls the `dealer`, the dealer
//! calls the protocol crate, `sealing` and the `store`. Handlers never reach
//! the database except through the store's domain methods.

pub mod dealer;
pub mod export;
pub mod http;
pub mod keys;
pub mod log;
pub mod metrics;
pub mod sealing;
pub mod store;
