"""symgauss — proofs and certificates for the Gaussian dynamics of Transformers.

The token distribution of a mean-field, continuous-depth Transformer with
softmax attention (V, B) and affine feed-forward (A, b) stays Gaussian; its
mean and covariance obey

    m' = (A + V) m + VΣBm + b,    Σ' = AΣ + ΣAᵀ + VΣBΣ + ΣBᵀΣVᵀ.
"""
from .errors import (BlowUpError, CertificateError, DimensionError, NotPSDError, ProblemError,
                     SymgaussError, UnsupportedError)
from .problem import Head, Params, Piece, Problem, Target
from .problem_file import load_problem, loads_problem, problem_from_dict

__version__ = "0.1.0"


def __getattr__(name):  # heavy stages load on first use
    if name == "derive_closure":
        from .derive import derive_closure
        return derive_closure
    if name == "solve_moments":
        from .hpsolve import solve_moments
        return solve_moments
    if name == "solve_moments_float":
        from .floatsolve import solve_moments_float
        return solve_moments_float
    raise AttributeError(f"module 'symgauss' has no attribute {name!r}")


__all__ = ["Problem", "Params", "Head", "Piece", "Target", "load_problem", "loads_problem",
           "problem_from_dict", "derive_closure", "solve_moments", "solve_moments_float",
           "SymgaussError", "ProblemError", "DimensionError", "NotPSDError", "BlowUpError",
           "UnsupportedError", "CertificateError"]
