//! Measured ceilings of the CPU in hand, as the Berkeley Lab Empirical
//! Roofline Toolkit (ERT) measures them: one thread per hardware thread,
//! each on its own buffers (touched first by the thread that uses them),
//! released together by a barrier; every kernel run several times, the
//! best kept and the spread reported.
//!
//! - Bandwidth: a STREAM-style triad `a[i] = b[i] + s * c[i]` over f64.
//!   Bytes counted per element: 24 (two 8-byte reads and one 8-byte
//!   write), STREAM's count. A cache that allocates on a write also reads
//!   `a` first, so the bus may carry 32 bytes: the figure is what a
//!   program that streams three arrays gets, not what the wires carry.
//!   Main memory: per-thread buffers summing to at least 4x the last-level
//!   cache. Each cache level: per-thread buffers of half that level's
//!   per-thread share.
//! - Peak FLOP/s, f32 and f64: `acc = acc * m + b` on many independent
//!   accumulators (more than FMA latency x FMA units, so the pipes stay
//!   full), at the widest SIMD width the CPU offers: AVX-512F intrinsics on
//!   x86-64 when the CPU has them, else AVX2 + FMA, else a portable loop over
//!   arrays that the compiler vectorises (on AArch64 `mul_add` is a NEON
//!   `fmla`). A fused multiply-add counts 2 FLOPs.
//!
//! Nothing here reads a file or the terminal: the CPU's layout comes in as
//! a [`Layout`], the figures go out as a [`Measured`].

use super::detect::CpuInfo;
use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// How long to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effort {
    /// About 3 s.
    Quick,
    /// At most about 10 s.
    Default,
    /// About 30 s.
    Thorough,
}

impl Effort {
    /// Timed runs of each kernel, and the length of one run.
    fn plan(self) -> (usize, Duration) {
        match self {
            Effort::Quick => (6, Duration::from_millis(50)),
            Effort::Default => (8, Duration::from_millis(60)),
            Effort::Thorough => (16, Duration::from_millis(160)),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Effort::Quick => "quick",
            Effort::Default => "default",
            Effort::Thorough => "thorough",
        }
    }
}

/// A cache level to measure: its name and the bytes one hardware thread
/// may count on (the level's size over the threads sharing it).
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    pub name: String,
    pub per_thread_bytes: usize,
}

/// What the measurement needs to know of the CPU.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Hardware threads to run on (one benchmark thread each).
    pub threads: usize,
    /// Data (or unified) cache levels, innermost first.
    pub levels: Vec<Level>,
    /// The whole last-level cache of the machine, bytes (0 when unknown).
    pub llc_total_bytes: usize,
}

impl Layout {
    /// The layout of a detected CPU: one benchmark thread per hardware
    /// thread; each data or unified cache level with its size over the
    /// threads sharing one instance.
    pub fn from_cpu(cpu: &CpuInfo) -> Layout {
        let mut levels: Vec<Level> = cpu
            .caches
            .iter()
            .filter(|c| c.kind != "Instruction" && c.size_bytes > 0)
            .map(|c| Level {
                name: format!("L{}", c.level),
                per_thread_bytes: (c.size_bytes / c.shared_by_threads.max(1) as u64) as usize,
            })
            .collect();
        levels.dedup_by(|a, b| a.name == b.name);
        let llc_total_bytes = cpu
            .last_level_cache()
            .map_or(0, |c| (c.size_bytes * c.instances.max(1) as u64) as usize);
        Layout {
            threads: cpu.threads.max(1) as usize,
            levels,
            llc_total_bytes,
        }
    }
}

/// A figure measured several times: the best (the highest rate) and the
/// range of all runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    pub best: f64,
    pub min: f64,
    pub max: f64,
    pub runs: usize,
}

impl Figure {
    /// The rates of the runs (each positive and finite) as a figure.
    pub fn of(rates: &[f64]) -> Option<Figure> {
        let ok: Vec<f64> = rates
            .iter()
            .copied()
            .filter(|r| r.is_finite() && *r > 0.0)
            .collect();
        if ok.is_empty() {
            return None;
        }
        let max = ok.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = ok.iter().copied().fold(f64::INFINITY, f64::min);
        Some(Figure {
            best: max,
            min,
            max,
            runs: ok.len(),
        })
    }

    /// (max - min) / max: 0 when every run agreed.
    pub fn spread(&self) -> f64 {
        if self.max > 0.0 {
            (self.max - self.min) / self.max
        } else {
            0.0
        }
    }
}

/// A measured bandwidth of one level ("L1", "L2", "L3", "DRAM").
#[derive(Debug, Clone, PartialEq)]
pub struct LevelFigure {
    pub name: String,
    /// Bytes of each of the three arrays, per thread.
    pub array_bytes: usize,
    pub bandwidth: Figure,
}

/// Everything one `probe --measure` found.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub threads: usize,
    /// The FLOP kernel that ran ("AVX2+FMA", "portable").
    pub kernel: &'static str,
    /// SIMD lanes of f32 that kernel uses.
    pub f32_lanes: usize,
    pub f32_flops: Figure,
    pub f64_flops: Figure,
    /// Cache levels innermost first, then "DRAM" (main memory) last.
    pub levels: Vec<LevelFigure>,
    pub effort: Effort,
    /// Wall time of the whole measurement.
    pub seconds: f64,
    /// The binary was built without optimisation: the figures are far
    /// below what the machine does.
    pub debug_build: bool,
}

impl Measured {
    /// Main memory's bandwidth (the last level).
    pub fn dram(&self) -> &Figure {
        &self
            .levels
            .last()
            .expect("measure always measures main memory")
            .bandwidth
    }

    /// The cache levels (all but main memory).
    pub fn caches(&self) -> &[LevelFigure] {
        &self.levels[..self.levels.len() - 1]
    }
}

/// True in a build without optimisations (`cargo build` without
/// `--release`), where every kernel is many times slower.
pub fn debug_build() -> bool {
    cfg!(debug_assertions)
}

/// Measure the machine: peak FLOP/s in f32 and f64, each cache level's
/// bandwidth and main memory's, with the effort's budget.
pub fn measure(layout: &Layout, effort: Effort) -> Measured {
    let start = Instant::now();
    let threads = layout.threads.max(1);
    let (runs, run_time) = effort.plan();
    let flop = flop_kernel();
    let f32_flops = rates(threads, runs, run_time, |_| (), |_, n| flop.f32(n));
    let f64_flops = rates(threads, runs, run_time, |_| (), |_, n| flop.f64(n));
    let mut levels = Vec::new();
    for l in &layout.levels {
        // Three arrays in half of the thread's share.
        let array = (l.per_thread_bytes / 2 / 3).max(64 * 8);
        levels.push(LevelFigure {
            name: l.name.clone(),
            array_bytes: array,
            bandwidth: triad_rates(threads, array, runs, run_time),
        });
    }
    levels.push(LevelFigure {
        name: "DRAM".into(),
        array_bytes: dram_array_bytes(layout, threads),
        bandwidth: triad_rates(
            threads,
            dram_array_bytes(layout, threads),
            // Main memory runs are long (the buffers are large): fewer of
            // them, each at least one pass.
            runs.div_ceil(2).max(3),
            run_time * 2,
        ),
    });
    Measured {
        threads,
        kernel: flop.name(),
        f32_lanes: flop.f32_lanes(),
        f32_flops,
        f64_flops,
        levels,
        effort,
        seconds: start.elapsed().as_secs_f64(),
        debug_build: debug_build(),
    }
}

/// Bytes of each triad array per thread for main memory: the three arrays
/// of all threads together hold 4x the last-level cache (64 MiB when the
/// cache is unknown), at least 8 MiB per array.
pub fn dram_array_bytes(layout: &Layout, threads: usize) -> usize {
    let llc = if layout.llc_total_bytes > 0 {
        layout.llc_total_bytes
    } else {
        16 << 20
    };
    (4 * llc / 3 / threads.max(1)).max(8 << 20)
}

/// Run `work(state, n)` (n repetitions of a kernel; it returns the work
/// done, FLOPs or bytes) on `threads` threads, `runs` times, each run long
/// enough to take about `run_time`, and return the rates as a figure.
fn rates<S: Send>(
    threads: usize,
    runs: usize,
    run_time: Duration,
    setup: impl Fn(usize) -> S + Sync,
    work: impl Fn(&mut S, u64) -> f64 + Sync,
) -> Figure {
    // How many repetitions fill a run, found on one thread.
    let mut s = setup(0);
    let mut n = 1u64;
    loop {
        let t = Instant::now();
        work(&mut s, n);
        let dt = t.elapsed();
        if dt >= run_time / 4 || n >= 1 << 40 {
            let scale = run_time.as_secs_f64() / dt.as_secs_f64().max(1e-9);
            n = ((n as f64 * scale) as u64).max(1);
            break;
        }
        n *= 2;
    }
    drop(s);
    let barrier = Barrier::new(threads);
    let per_thread: Vec<Vec<(Instant, Instant, f64)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (barrier, setup, work) = (&barrier, &setup, &work);
                scope.spawn(move || {
                    let mut s = setup(t);
                    // One untimed pass: pages touched, caches warm.
                    work(&mut s, 1);
                    let mut out = Vec::with_capacity(runs);
                    for _ in 0..runs {
                        barrier.wait();
                        let t0 = Instant::now();
                        let done = work(&mut s, n);
                        out.push((t0, Instant::now(), done));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut rates = Vec::with_capacity(runs);
    for r in 0..runs {
        let mine: Vec<&(Instant, Instant, f64)> =
            per_thread.iter().filter_map(|v| v.get(r)).collect();
        if mine.len() != threads {
            continue;
        }
        let t0 = mine.iter().map(|m| m.0).min();
        let t1 = mine.iter().map(|m| m.1).max();
        let done: f64 = mine.iter().map(|m| m.2).sum();
        if let (Some(t0), Some(t1)) = (t0, t1) {
            rates.push(done / t1.duration_since(t0).as_secs_f64());
        }
    }
    Figure::of(&rates).unwrap_or(Figure {
        best: f64::NAN,
        min: f64::NAN,
        max: f64::NAN,
        runs: 0,
    })
}

/// The triad's bandwidth on per-thread arrays of `array_bytes` each.
fn triad_rates(threads: usize, array_bytes: usize, runs: usize, run_time: Duration) -> Figure {
    let len = (array_bytes / 8).max(64);
    rates(
        threads,
        runs,
        run_time,
        |_| (vec![0.0f64; len], vec![1.0f64; len], vec![2.0f64; len]),
        |(a, b, c), n| {
            for _ in 0..n {
                triad(black_box(a), black_box(b), black_box(c), black_box(0.5));
            }
            black_box(&a[len / 2]);
            TRIAD_BYTES_PER_ELEMENT * len as f64 * n as f64
        },
    )
}

/// Bytes the triad counts for each element: read b, read c, write a.
pub const TRIAD_BYTES_PER_ELEMENT: f64 = 24.0;

/// `a = b + s * c`, at the widest vectors the CPU offers.
pub fn triad(a: &mut [f64], b: &[f64], c: &[f64], s: f64) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { triad_avx2(a, b, c, s) };
            return;
        }
    }
    triad_plain(a, b, c, s)
}

fn triad_plain(a: &mut [f64], b: &[f64], c: &[f64], s: f64) {
    for ((a, b), c) in a.iter_mut().zip(b).zip(c) {
        *a = b + s * c;
    }
}

/// The same loop, compiled for AVX2 (the compiler vectorises it 256 bits
/// wide).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn triad_avx2(a: &mut [f64], b: &[f64], c: &[f64], s: f64) {
    for ((a, b), c) in a.iter_mut().zip(b).zip(c) {
        *a = b + s * c;
    }
}

/// The FLOP kernel this CPU runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlopKernel {
    #[cfg(target_arch = "x86_64")]
    Avx2Fma,
    #[cfg(target_arch = "x86_64")]
    Avx512,
    Portable,
}

/// The widest FLOP kernel the CPU and this build can run.
pub fn flop_kernel() -> FlopKernel {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return FlopKernel::Avx512;
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return FlopKernel::Avx2Fma;
        }
    }
    FlopKernel::Portable
}

/// Independent accumulators of the FLOP kernels: 12 vectors keep two FMA
/// pipes of latency 4 to 6 busy (2 x 6 = 12) and fit AVX2's 16 registers.
const ACCS: usize = 12;
/// Lanes of the portable kernel's accumulators.
const PORTABLE_LANES: usize = 8;
/// Multiply-adds of one pass over the accumulators, per repetition.
const INNER: u64 = 64;

impl FlopKernel {
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            FlopKernel::Avx2Fma => "AVX2+FMA",
            #[cfg(target_arch = "x86_64")]
            FlopKernel::Avx512 => "AVX-512",
            FlopKernel::Portable => "portable",
        }
    }

    /// f32 lanes of one vector.
    pub fn f32_lanes(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            FlopKernel::Avx2Fma => 8,
            #[cfg(target_arch = "x86_64")]
            FlopKernel::Avx512 => 16,
            FlopKernel::Portable => PORTABLE_LANES,
        }
    }

    /// FLOPs of `n` repetitions in f32: each repetition is INNER passes of
    /// ACCS vectors of lanes, 2 FLOPs a lane.
    pub fn f32_flops(self, n: u64) -> f64 {
        (n * INNER * ACCS as u64 * self.f32_lanes() as u64 * 2) as f64
    }

    /// The same in f64 (half the lanes).
    pub fn f64_flops(self, n: u64) -> f64 {
        self.f32_flops(n) / 2.0
    }

    /// Run `n` repetitions in f32; returns the FLOPs done.
    pub fn f32(self, n: u64) -> f64 {
        let sum = match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: this kernel is chosen only when the CPU has AVX2 and FMA.
            FlopKernel::Avx2Fma => unsafe { x86::fma_f32(n) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: this kernel is chosen only when the CPU has AVX-512F.
            FlopKernel::Avx512 => unsafe { x86::fma512_f32(n) },
            FlopKernel::Portable => portable_f32(n),
        };
        black_box(sum);
        self.f32_flops(n)
    }

    /// Run `n` repetitions in f64; returns the FLOPs done.
    pub fn f64(self, n: u64) -> f64 {
        let sum = match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `f32`.
            FlopKernel::Avx2Fma => unsafe { x86::fma_f64(n) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `f32`.
            FlopKernel::Avx512 => unsafe { x86::fma512_f64(n) },
            FlopKernel::Portable => portable_f64(n),
        };
        black_box(sum);
        self.f64_flops(n)
    }
}

/// Multiply and add that the accumulators converge under: acc -> acc * M +
/// B tends to B / (1 - M), so nothing overflows or becomes denormal however
/// long the kernel runs.
const M: f64 = 0.999_9;
const B: f64 = 1e-3;

macro_rules! portable {
    ($name:ident, $t:ty) => {
        fn $name(n: u64) -> $t {
            let (m, b) = (black_box(M as $t), black_box(B as $t));
            let mut acc = [[0.0 as $t; PORTABLE_LANES]; ACCS];
            for (i, a) in acc.iter_mut().enumerate() {
                a[0] = black_box(i as $t);
            }
            for _ in 0..n {
                for _ in 0..INNER {
                    for a in acc.iter_mut() {
                        for x in a.iter_mut() {
                            // AArch64 always has FMA: one `fmla` a vector.
                            #[cfg(target_arch = "aarch64")]
                            {
                                *x = x.mul_add(m, b);
                            }
                            #[cfg(not(target_arch = "aarch64"))]
                            {
                                *x = *x * m + b;
                            }
                        }
                    }
                }
                acc = black_box(acc);
            }
            acc.iter().flatten().sum()
        }
    };
}
portable!(portable_f32, f32);
portable!(portable_f64, f64);

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{ACCS, B, INNER, M};
    use std::arch::x86_64::*;

    /// ACCS independent 8-lane FMA chains.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn fma_f32(n: u64) -> f32 {
        let m = _mm256_set1_ps(std::hint::black_box(M as f32));
        let b = _mm256_set1_ps(std::hint::black_box(B as f32));
        let mut acc = [_mm256_setzero_ps(); ACCS];
        for (i, a) in acc.iter_mut().enumerate() {
            *a = _mm256_set1_ps(i as f32);
        }
        for _ in 0..n {
            for _ in 0..INNER {
                for a in acc.iter_mut() {
                    *a = _mm256_fmadd_ps(*a, m, b);
                }
            }
            acc = std::hint::black_box(acc);
        }
        let mut lanes = [0f32; 8];
        let mut sum = 0f32;
        for a in acc {
            // SAFETY: `lanes` holds 8 f32, the 256 bits stored.
            unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), a) };
            sum += lanes.iter().sum::<f32>();
        }
        sum
    }

    /// ACCS independent 16-lane FMA chains (AVX-512F: 32 registers, so
    /// the ACCS chains and the two constants fit as they do in AVX2).
    #[target_feature(enable = "avx512f")]
    pub unsafe fn fma512_f32(n: u64) -> f32 {
        let m = _mm512_set1_ps(std::hint::black_box(M as f32));
        let b = _mm512_set1_ps(std::hint::black_box(B as f32));
        let mut acc = [_mm512_setzero_ps(); ACCS];
        for (i, a) in acc.iter_mut().enumerate() {
            *a = _mm512_set1_ps(i as f32);
        }
        for _ in 0..n {
            for _ in 0..INNER {
                for a in acc.iter_mut() {
                    *a = _mm512_fmadd_ps(*a, m, b);
                }
            }
            acc = std::hint::black_box(acc);
        }
        acc.iter().map(|&a| _mm512_reduce_add_ps(a)).sum()
    }

    /// ACCS independent 8-lane FMA chains.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn fma512_f64(n: u64) -> f64 {
        let m = _mm512_set1_pd(std::hint::black_box(M));
        let b = _mm512_set1_pd(std::hint::black_box(B));
        let mut acc = [_mm512_setzero_pd(); ACCS];
        for (i, a) in acc.iter_mut().enumerate() {
            *a = _mm512_set1_pd(i as f64);
        }
        for _ in 0..n {
            for _ in 0..INNER {
                for a in acc.iter_mut() {
                    *a = _mm512_fmadd_pd(*a, m, b);
                }
            }
            acc = std::hint::black_box(acc);
        }
        acc.iter().map(|&a| _mm512_reduce_add_pd(a)).sum()
    }

    /// ACCS independent 4-lane FMA chains.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn fma_f64(n: u64) -> f64 {
        let m = _mm256_set1_pd(std::hint::black_box(M));
        let b = _mm256_set1_pd(std::hint::black_box(B));
        let mut acc = [_mm256_setzero_pd(); ACCS];
        for (i, a) in acc.iter_mut().enumerate() {
            *a = _mm256_set1_pd(i as f64);
        }
        for _ in 0..n {
            for _ in 0..INNER {
                for a in acc.iter_mut() {
                    *a = _mm256_fmadd_pd(*a, m, b);
                }
            }
            acc = std::hint::black_box(acc);
        }
        let mut lanes = [0f64; 4];
        let mut sum = 0f64;
        for a in acc {
            // SAFETY: `lanes` holds 4 f64, the 256 bits stored.
            unsafe { _mm256_storeu_pd(lanes.as_mut_ptr(), a) };
            sum += lanes.iter().sum::<f64>();
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_keeps_the_best_and_the_range() {
        // Runs of 8, 10 and 9: best 10, range 8..10, spread (10-8)/10 = 0.2.
        let f = Figure::of(&[8.0, 10.0, 9.0, f64::NAN, 0.0]).unwrap();
        assert_eq!((f.best, f.min, f.max, f.runs), (10.0, 8.0, 10.0, 3));
        assert!((f.spread() - 0.2).abs() < 1e-12);
        assert!(Figure::of(&[f64::INFINITY]).is_none());
    }

    #[test]
    fn triad_computes_b_plus_s_c() {
        // 1 + 0.5 * 2 = 2 in every element, whichever path runs.
        let (mut a, b, c) = (vec![0.0; 37], vec![1.0; 37], vec![2.0; 37]);
        triad(&mut a, &b, &c, 0.5);
        assert!(a.iter().all(|&x| x == 2.0));
    }

    #[test]
    fn flop_counts_follow_the_kernel_shape() {
        // One repetition: INNER 64 passes x ACCS 12 vectors x 8 lanes x 2
        // FLOPs = 12288 FLOPs in f32, half in f64 (4 lanes), for the
        // portable kernel and AVX2; AVX-512's 16 lanes double both (24576
        // and 12288).
        let mut kernels = vec![(FlopKernel::Portable, 12288.0)];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                kernels.push((FlopKernel::Avx2Fma, 12288.0));
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                kernels.push((FlopKernel::Avx512, 24576.0));
            }
        }
        for (k, one) in kernels {
            assert_eq!(k.f32_flops(1), one, "{}", k.name());
            assert_eq!(k.f64_flops(1), one / 2.0, "{}", k.name());
            assert_eq!(k.f32(2), 2.0 * one, "{}", k.name());
            assert_eq!(k.f64(2), one, "{}", k.name());
        }
        // The widest the CPU offers is the one chosen.
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            assert_eq!(flop_kernel(), FlopKernel::Avx512);
        }
    }

    #[test]
    fn layout_shares_each_level_among_its_threads() {
        use crate::probe::detect::{CacheLevel, Simd};
        let level = |level, kind: &str, size, shared, instances| CacheLevel {
            level,
            kind: kind.into(),
            size_bytes: size,
            shared_by_threads: shared,
            instances,
        };
        // 4 threads, 2 per core: a 48 KiB L1d per core is 24 KiB a thread;
        // a 32 MiB L3 shared by all 4 is 8 MiB a thread; the L1i is left
        // out; the whole L3 is 32 MiB x 1 instance.
        let cpu = CpuInfo {
            model: "test".into(),
            vendor: "test".into(),
            sockets: 1,
            cores: 2,
            threads: 4,
            simd: Simd::Avx2,
            caches: vec![
                level(1, "Data", 48 << 10, 2, 2),
                level(1, "Instruction", 32 << 10, 2, 2),
                level(3, "Unified", 32 << 20, 4, 1),
            ],
            memory_bytes: None,
            max_mhz: None,
        };
        let l = Layout::from_cpu(&cpu);
        assert_eq!(l.threads, 4);
        let got: Vec<(&str, usize)> = l
            .levels
            .iter()
            .map(|l| (l.name.as_str(), l.per_thread_bytes))
            .collect();
        assert_eq!(got, [("L1", 24 << 10), ("L3", 8 << 20)]);
        assert_eq!(l.llc_total_bytes, 32 << 20);
    }

    #[test]
    fn dram_arrays_hold_four_times_the_last_level() {
        // 32 MiB L3, 2 threads: 4 x 32 MiB / 3 arrays / 2 threads = 21.33 MiB.
        let l = Layout {
            threads: 2,
            levels: vec![],
            llc_total_bytes: 32 << 20,
        };
        assert_eq!(dram_array_bytes(&l, 2), (128 << 20) / 3 / 2);
        // A small cache: at least 8 MiB per array.
        let small = Layout {
            llc_total_bytes: 1 << 20,
            ..l
        };
        assert_eq!(dram_array_bytes(&small, 2), 8 << 20);
    }
}
