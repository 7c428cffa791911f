//! Typed errors: every invalid input names the field, the value and what is expected.

/// Why the solver cannot evaluate an input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SolverError {
    #[error("{field} must be {expected}, got {value}")]
    Invalid {
        field: &'static str,
        value: f64,
        expected: &'static str,
    },
    #[error("{0}")]
    Unsupported(String),
}

pub type Result<T> = std::result::Result<T, SolverError>;

/// Check that `value` is finite and strictly positive.
pub fn positive(field: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(SolverError::Invalid {
            field,
            value,
            expected: "a finite number greater than zero",
        })
    }
}

/// Check that `value` is finite and at least zero.
pub fn non_negative(field: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(SolverError::Invalid {
            field,
            value,
            expected: "a finite number, zero or more",
        })
    }
}

/// Check that `value` is a fraction in (0, 1].
pub fn fraction(field: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() && value > 0.0 && value <= 1.0 {
        Ok(value)
    } else {
        Err(SolverError::Invalid {
            field,
            value,
            expected: "a fraction greater than 0 and at most 1",
        })
    }
}

/// Check that `value` is in [0, 1].
pub fn unit_interval(field: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() && (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(SolverError::Invalid {
            field,
            value,
            expected: "a number from 0 to 1",
        })
    }
}

/// Check that `value` is finite, positive and at most `max` (an absurd
/// figure is an input error, not a result).
pub fn bounded(field: &'static str, value: f64, max: f64, expected: &'static str) -> Result<f64> {
    positive(field, value)?;
    if value > max {
        return Err(SolverError::Invalid {
            field,
            value,
            expected,
        });
    }
    Ok(value)
}
