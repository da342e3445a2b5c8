"""symgauss — proofs and certificates for the Gaussian dynamics of Transformers.

The token distribution of a mean-field, continuous-depth Transformer with
softmax attention (V, B) and affine feed-forward (A, b) stays Gaussian; its
mean and covariance obey

    m' = (A + V) m + VΣBm + b,    Σ' = AΣ + ΣAᵀ + VΣBΣ + ΣBᵀΣVᵀ.

The public API, one name per thing a user does (each documented, with an example, in
its own module)::

    import symgauss as sg
    p = sg.load_problem("symgauss/examples/stable_diag.json")   # or sg.Problem(cov0=..., ...)
    sg.derive_closure(2)        # the closure, derived from the PDE and proved exact
    sg.solve(p, "1", digits=30) # Σ(t), m(t) to 30 digits (sg.solve_float: scipy)
    sg.equilibria(p)            # equilibria, exact / rigorous, with their stability
    sg.certify(p)               # a stability certificate ...
    sg.check(cert)              # ... re-verified by the trusted kernel
    sg.blowup(p), sg.reach(p), sg.regime(p), sg.simulate_particles(p, 1000, "1"), sg.report()

Every name loads on first use, so that ``symgauss check`` (the trusted kernel) runs without
importing SymPy, SciPy, mpmath or cvxpy at all.
"""
import importlib

__version__ = "0.1.0"

#: public name -> (module, attribute)
_EXPORTS = {
    "Problem": ("symgauss.model.problem", "Problem"),
    "load_problem": ("symgauss.model.problem_file", "load_problem"),
    "loads_problem": ("symgauss.model.problem_file", "loads_problem"),
    "example": ("symgauss.model.problem_file", "load_example"),
    "derive_closure": ("symgauss.closure.derive", "derive_closure"),
    "rank_invariance": ("symgauss.closure.rank_invariance", "rank_invariance"),
    "solve": ("symgauss.integrate.high_precision", "solve_moments"),
    "solve_float": ("symgauss.integrate.float_solver", "solve_moments_float"),
    "equilibria": ("symgauss.questions.equilibria.search", "find_equilibria"),
    "certify": ("symgauss.questions.stability.certify", "certify"),
    "check": ("symgauss.kernel.checker", "check"),
    "blowup": ("symgauss.questions.blowup.decide", "decide_blowup"),
    "reach": ("symgauss.questions.reach.controls", "reach"),
    "regime": ("symgauss.questions.regime.classify", "classify"),
    "simulate_particles": ("symgauss.tokens.simulate", "simulate"),
    "report": ("symgauss.reporting.job", "run_report"),
}
_EXPORTS.update({name: ("symgauss.kernel.errors", name) for name in (
    "SymgaussError", "ProblemError", "DimensionError", "NotPSDError", "BlowUpError", "SolverError",
    "UnsupportedError")})


def __getattr__(name):
    where = _EXPORTS.get(name)
    if where is None:
        raise AttributeError(f"module 'symgauss' has no attribute {name!r}")
    value = getattr(importlib.import_module(where[0]), where[1])
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_EXPORTS))


__all__ = sorted(_EXPORTS)
