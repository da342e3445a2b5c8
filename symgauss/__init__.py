"""symgauss — proofs and certificates for the Gaussian dynamics of Transformers.

The token distribution of a mean-field, continuous-depth Transformer with
softmax attention (V, B) and affine feed-forward (A, b) stays Gaussian; its
mean and covariance obey

    m' = (A + V) m + VΣBm + b,    Σ' = AΣ + ΣAᵀ + VΣBΣ + ΣBᵀΣVᵀ.

Every name below loads on first use, so that ``symgauss check`` (the trusted
checker) runs without importing SymPy, SciPy, mpmath or cvxpy at all.
"""
import importlib

__version__ = "0.1.0"

_EXPORTS = {
    "Problem": "problem", "Params": "problem", "Head": "problem", "Piece": "problem",
    "Target": "problem",
    "load_problem": "problem_file", "loads_problem": "problem_file",
    "problem_from_dict": "problem_file",
    "derive_closure": "derive", "rank_invariance": "rank_invariance",
    "solve_moments": "hpsolve", "solve_moments_float": "floatsolve",
    "find_equilibria": "equilibria", "certify": "stability", "decide_blowup": "blowup",
    "reach": "reach", "classify": "regime", "check_certificate": "checker",
    "check_file": "checker",
    "SymgaussError": "errors", "ProblemError": "errors", "DimensionError": "errors",
    "NotPSDError": "errors", "BlowUpError": "errors", "SolverError": "errors",
    "UnsupportedError": "errors", "CertificateError": "errors",
}


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'symgauss' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_EXPORTS))


__all__ = sorted(_EXPORTS)
