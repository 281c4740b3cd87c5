//! Audit throughput: rounds verified per second, from NDJSON in memory
//! (parse, recompute, compare, nonce checks, statistics counts), next to the
//! raw deal throughput in benches/dealing.rs. The 7-card exact distribution is
//! computed once before timing.
//!
//! Run: `cargo bench --bench audit`. Figures are recorded in docs/PERFORMANCE.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

use fairdeal_test_support::exports;

fn audit_throughput(c: &mut Criterion) {
    let lines = exports::fair_export(100, 100);
    let text = lines.join("\n") + "\n";
    let rounds = 100 * 100;
    // Warm the exact-count caches outside the measurement.
    fairdeal_stats::poker::exact_seven_card_counts();
    fairdeal_stats::poker::exact_five_card_counts();
    let mut group = c.benchmark_group("audit");
    group.throughput(Throughput::Elements(rounds));
    group.sample_size(10);
    group.bench_function("10k-rounds-mixed-games", |b| {
        b.iter(|| {
            let report = fairdeal::audit::audit(black_box(text.as_bytes()), &mut |_, _| {})
                .expect("in memory");
            assert!(report.passed());
            report.rounds
        })
    });
    group.finish();
}

criterion_group!(benches, audit_throughput);
criterion_main!(benches);
