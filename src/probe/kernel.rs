//! A real f32 matrix kernel timed on the CPU (`probe --kernel`), placed
//! on the roofline beside the prediction for the same operation.
//!
//! The GEMM is `matrixmultiply::sgemm` (a BLAS-quality GEMM with SIMD
//! micro-kernels), the GEMV `ndarray`'s matrix-vector product, on square
//! n x n matrices, its rows of the output split
//! among the threads (one per hardware thread, as the measured ceilings
//! are):
//!
//! - `gemv`: y = A x, A n x n. FLOPs 2 n^2 (a multiply-add per element of
//!   A). Bytes 4 (n^2 + 2n): A and x read, y written, each once, the least
//!   the operation must move. Decode's matrix-vector product: its
//!   intensity is about 0.5 FLOP/byte, far left of any CPU's ridge.
//! - `gemm`: C = A B, all n x n. FLOPs 2 n^3. Bytes 12 n^2: A and B read,
//!   C written, once each (compulsory traffic; a blocked GEMM re-reads
//!   panels from cache, not from memory). Intensity n/6 FLOP/byte.
//!
//! A GEMV through the GEMM would pack A into cache-sized panels (moving
//! it more than once) and use one lane in eight of its micro-kernel, about
//! 9x under the bandwidth roof; ndarray's product reads each row once.

use super::measure::Figure;
use crate::solver::Hardware;
use std::hint::black_box;
use std::time::Instant;

/// The operation to time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Gemv,
    Gemm,
}

impl Op {
    pub fn parse(s: &str) -> Option<Op> {
        match s.to_ascii_lowercase().as_str() {
            "gemv" => Some(Op::Gemv),
            "gemm" => Some(Op::Gemm),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Op::Gemv => "gemv",
            Op::Gemm => "gemm",
        }
    }

    /// The library routine that runs it.
    pub fn library(self) -> &'static str {
        match self {
            Op::Gemv => "ndarray general_mat_vec_mul",
            Op::Gemm => "matrixmultiply sgemm",
        }
    }

    /// The size used when none is given: a GEMV whose matrix (64 MiB)
    /// overflows common last-level caches, a GEMM large enough to be
    /// compute-bound yet quick.
    pub fn default_size(self) -> usize {
        match self {
            Op::Gemv => 4096,
            Op::Gemm => 1024,
        }
    }

    /// The largest size accepted: 2^15 for a GEMV (a 4 GiB matrix), 2^13
    /// for a GEMM (three 256 MiB matrices, 1.1 TFLOP a run).
    pub fn max_size(self) -> usize {
        match self {
            Op::Gemv => 1 << 15,
            Op::Gemm => 1 << 13,
        }
    }
}

/// What an operation of size n must do: its FLOPs and the bytes it must
/// move (see the module's counts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Counts {
    pub flops: f64,
    pub bytes: f64,
}

impl Counts {
    pub fn of(op: Op, n: usize) -> Counts {
        let n = n as f64;
        match op {
            Op::Gemv => Counts {
                flops: 2.0 * n * n,
                bytes: 4.0 * (n * n + 2.0 * n),
            },
            Op::Gemm => Counts {
                flops: 2.0 * n * n * n,
                bytes: 12.0 * n * n,
            },
        }
    }

    /// FLOP per byte.
    pub fn intensity(&self) -> f64 {
        self.flops / self.bytes
    }
}

/// The roofline's prediction for an operation of these counts on `hw`:
/// the attainable rate min(fp32 peak, intensity x memory bandwidth), and
/// which roof binds.
pub fn predict(c: &Counts, hw: &Hardware) -> Option<(f64, &'static str)> {
    let peak = hw.peaks.resolve(crate::solver::Precision::Fp32)?.1;
    let memory = c.intensity() * hw.memory_bandwidth;
    Some(if memory < peak {
        (memory, "memory")
    } else {
        (peak, "compute")
    })
}

/// A timed kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct Timed {
    pub op: Op,
    pub n: usize,
    pub threads: usize,
    pub counts: Counts,
    /// FLOP/s of each run: the best kept.
    pub rate: Figure,
    /// Seconds of the best run.
    pub best_seconds: f64,
}

/// Time `op` on n x n matrices with `threads` threads, `runs` times after
/// one untimed run.
pub fn run(op: Op, n: usize, threads: usize, runs: usize) -> Timed {
    let threads = threads.clamp(1, n.max(1));
    let cols = match op {
        Op::Gemv => 1,
        Op::Gemm => n,
    };
    // A is n x n, B is n x cols, C is n x cols; row-major.
    let a: Vec<f32> = (0..n * n).map(|i| ((i % 7) as f32) * 0.25 - 0.5).collect();
    let b: Vec<f32> = (0..n * cols)
        .map(|i| ((i % 5) as f32) * 0.5 - 1.0)
        .collect();
    let mut c = vec![0f32; n * cols];
    let once = |c: &mut [f32]| multiply(&a, &b, c, n, cols, threads);
    once(&mut c);
    let counts = Counts::of(op, n);
    let mut rates = Vec::new();
    let mut best = f64::INFINITY;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        once(black_box(&mut c));
        let dt = t.elapsed().as_secs_f64();
        best = best.min(dt);
        rates.push(counts.flops / dt);
    }
    black_box(&c);
    Timed {
        op,
        n,
        threads,
        counts,
        rate: Figure::of(&rates).unwrap_or(Figure {
            best: f64::NAN,
            min: f64::NAN,
            max: f64::NAN,
            runs: 0,
        }),
        best_seconds: best,
    }
}

/// C = A B, A n x n, B n x cols, C n x cols (row-major), the rows of C
/// split among `threads` threads: each block one `sgemm` call, or for a
/// single column (a GEMV) one `ndarray::linalg::general_mat_vec_mul`,
/// which streams each row of A once through an unrolled dot product where
/// a GEMM would pack A into panels (copying it) and run its 8 x 8
/// micro-kernel on one useful column.
pub fn multiply(a: &[f32], b: &[f32], c: &mut [f32], n: usize, cols: usize, threads: usize) {
    assert!(a.len() >= n * n && b.len() >= n * cols && c.len() >= n * cols);
    let rows = n.div_ceil(threads.max(1)).max(1);
    std::thread::scope(|s| {
        for (t, block) in c[..n * cols].chunks_mut(rows * cols).enumerate() {
            s.spawn(move || {
                let m = block.len() / cols;
                let a = &a[t * rows * n..];
                if cols == 1 {
                    gemv(&a[..m * n], &b[..n], block, m, n);
                    return;
                }
                // SAFETY: A holds m x n (row stride n) from row t*rows, B
                // n x cols, C (this block) m x cols, as asserted above;
                // every pointer and stride stays inside its slice.
                unsafe {
                    matrixmultiply::sgemm(
                        m,
                        n,
                        cols,
                        1.0,
                        a.as_ptr(),
                        n as isize,
                        1,
                        b.as_ptr(),
                        cols as isize,
                        1,
                        0.0,
                        block.as_mut_ptr(),
                        cols as isize,
                        1,
                    );
                }
            });
        }
    });
}

/// y = A x for A m x n (row-major), x of n, y of m, with ndarray's
/// matrix-vector product.
fn gemv(a: &[f32], x: &[f32], y: &mut [f32], m: usize, n: usize) {
    use ndarray::{ArrayView1, ArrayView2, ArrayViewMut1};
    // The shapes hold by construction (the slices are cut to them above).
    let (Ok(a), x, mut y) = (
        ArrayView2::from_shape((m, n), a),
        ArrayView1::from(x),
        ArrayViewMut1::from(y),
    ) else {
        return;
    };
    ndarray::linalg::general_mat_vec_mul(1.0, &a, &x, 0.0, &mut y);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_hand() {
        // GEMV n = 4: 2 x 16 = 32 FLOPs; 4 x (16 + 8) = 96 bytes; 1/3 FLOP/B.
        let g = Counts::of(Op::Gemv, 4);
        assert_eq!((g.flops, g.bytes), (32.0, 96.0));
        // GEMM n = 6: 2 x 216 = 432 FLOPs; 12 x 36 = 432 bytes; n/6 = 1.
        let m = Counts::of(Op::Gemm, 6);
        assert_eq!((m.flops, m.bytes), (432.0, 432.0));
        assert_eq!(m.intensity(), 1.0);
    }

    #[test]
    fn split_rows_each_multiply_their_own_part() {
        // Row i of A is all i; x = 1..n: y_i = i * n(n+1)/2. With n = 10,
        // 3 threads take rows 0-3, 4-7, 8-9; y_9 = 9 x 55 = 495.
        let n = 10;
        let a: Vec<f32> = (0..n * n).map(|k| (k / n) as f32).collect();
        let x: Vec<f32> = (1..=n).map(|k| k as f32).collect();
        let mut y = vec![0f32; n];
        multiply(&a, &x, &mut y, n, 1, 3);
        let want: Vec<f32> = (0..n).map(|i| (i * 55) as f32).collect();
        assert_eq!(y, want);
    }

    #[test]
    fn parse_names() {
        assert_eq!(Op::parse("GEMV"), Some(Op::Gemv));
        assert_eq!(Op::parse("gemm"), Some(Op::Gemm));
        assert_eq!(Op::parse("conv"), None);
    }
}
