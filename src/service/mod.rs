//! The dealing service, top to bottom: `http` calls the `dealer`, the dealer
//! calls the protocol crate, `sealing` and the `store`. Handlers never reach
//! the database except through the store's domain methods.

pub mod dealer;
pub mod evidence;
pub mod export;
pub mod http;
pub mod integrator;
pub mod keys;
pub mod metrics;
pub mod mirror;
pub mod sealing;
pub mod store;
pub mod tile_cache;
pub mod witnessing;
