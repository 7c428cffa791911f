//! Catalog loading: the built-in catalog alone; a generated user file of N
//! devices laid over it (parse, convert, check names, index), for N from
//! 1,000 to 64,000; and a lookup by alias in the largest. Loading should grow in
//! proportion to N (it grew with N squared before ids were indexed: 64,000
//! devices took 20 s). Figures are in the README.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ridgeline::catalog::Catalog;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

/// A hardware file of `n` distinct devices, each with an alias (about 330
/// bytes per device, like a built-in entry without its notes).
fn devices(n: usize) -> String {
    let mut s = String::with_capacity(n * 340);
    for i in 0..n {
        writeln!(
            s,
            "[[device]]\nid = \"gen-{i}\"\naliases = [\"g{i}\"]\nname = \"Generated {i}\"\nvendor = \"Bench\"\ntier = \"cloud\"\nyear = 2025\nsource = \"generated for the benchmark\"\nmemory = \"{} GB\"\nmemory_bandwidth = \"3.35 TB/s\"\ntdp = \"700 W\"\n[device.peak]\nbf16 = \"989 TFLOPS\"\nfp8 = \"1979 TFLOPS\"\n[device.interconnect]\nscale_up = \"450 GB/s\"\ndevices_per_node = 8\n",
            16 + i % 200
        )
        .unwrap();
    }
    s
}

fn benches(c: &mut Criterion) {
    c.bench_function("load the built-in catalog", |b| b.iter(Catalog::builtin));
    let builtin = Catalog::builtin();
    let mut g = c.benchmark_group("load a user hardware file");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for n in [1_000usize, 4_000, 16_000, 64_000] {
        let text = devices(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| {
            b.iter(|| {
                let mut cat = builtin.clone();
                cat.add_hardware_file("bench.toml", black_box(text));
                assert!(cat.diagnostics.is_empty());
                cat
            })
        });
    }
    g.finish();
    // One device naming 64 aliases 1,000 times each: repeats merge in
    // linear time (100,000 aliases on one device took 12.5 s when each was
    // compared with every one kept before it).
    let names: Vec<String> = (0..64_000)
        .map(|i| format!("\"bench-alias-{}\"", i % 64))
        .collect();
    let one = devices(1).replace("[\"g0\"]", &format!("[{}]", names.join(",")));
    c.bench_function("load one device of 64,000 aliases (64 different)", |b| {
        b.iter(|| {
            let mut cat = builtin.clone();
            cat.add_hardware_file("bench.toml", black_box(&one));
            assert!(cat.diagnostics.is_empty());
            cat
        })
    });
    let mut cat = builtin.clone();
    cat.add_hardware_file("bench.toml", &devices(64_000));
    c.bench_function("look up a device by alias among 64,043", |b| {
        b.iter(|| cat.hardware(black_box("G63999")).unwrap().hw.memory_bytes)
    });
}

criterion_group!(catalog, benches);
criterion_main!(catalog);
