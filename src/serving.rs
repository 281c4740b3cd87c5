//! Accepting HTTP/1 connections for an axum router, shared by `fairdeal
//! serve` and `fairdeal witness`: at most a number open at once (one beyond
//! is closed at once), a header-read timeout that also closes idle
//! kept-alive connections, and a graceful shutdown that lets requests in
//! flight finish. What each server bounds per request (its timeouts, its
//! body limits) is in its router.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// Serves `router` on `listener` until `shutdown` completes, with at most
/// `max_connections` open (`refused` is called for each one closed beyond
/// it) and `header_read_timeout`; then stops accepting and lets requests in
/// flight finish.
pub async fn serve_connections(
    listener: TcpListener,
    router: Router,
    header_read_timeout: Duration,
    max_connections: usize,
    refused: impl Fn(),
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(max_connections.max(1)));
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .keep_alive(true);
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let stream = match accepted {
            Ok((stream, _peer)) => stream,
            Err(err) => {
                // Out of file descriptors, or a connection reset before it
                // was accepted: wait a moment rather than spin.
                tracing::warn!(error = %err, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            refused();
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let connection = graceful.watch(http.serve_connection(
            TokioIo::new(stream),
            TowerToHyperService::new(router.clone()),
        ));
        tokio::spawn(async move {
            // A client that goes away or times out ends its connection; that
            // is not the server's error.
            let _ = connection.await;
            drop(slot);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}
