"""The result of a closure derivation: its steps, the closed system or the refuting witness."""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

Mat = sp.ImmutableMatrix


@dataclass(frozen=True)
class Step:
    """One derivation step: a short plain-text statement, a SymPy object, how it is known."""
    statement: str
    expr: object
    justification: str


@dataclass(frozen=True)
class ClosureSymbols:
    """The symbols of a derivation.

    ``heads`` holds one tuple per head: ``(V, B)`` for the softmax kernel, ``(V, Q, K, G)``
    for the L2 kernel, where G = (I + Σ KᵀK)⁻¹ is kept as a matrix of symbols defined by
    the relations in ``relations``.
    """
    d: int
    A: Mat
    heads: tuple
    b: Mat
    m: Mat
    S: Mat
    x: Mat
    h: sp.Symbol | None = None
    relations: tuple = ()



@dataclass(frozen=True)
class Closure:
    """The derived moment system (or the refutation of closure) with its derivation.

    ``mean_rhs``/``cov_rhs``: m', Σ' (continuous depth) or m_next, Σ_next (discrete
    depth, one residual layer of step h); ``None`` when the closure is refuted.
    """
    dim: int
    heads: int
    depth: str
    kernel: str
    feedforward: str
    attention: str
    data: str
    status: str
    mean_rhs: Mat | None
    cov_rhs: Mat | None
    symbols: ClosureSymbols | None
    steps: tuple
    witness: dict | None = None
    level: str = "exact"
    velocity: Mat | None = None      # the averaged velocity v(x) (proved affine)
    velocity_matrix: Mat | None = None  # M = ∂v/∂x
    velocity_offset: Mat | None = None  # c = v(0)
    notes: tuple = field(default=())

    def _repr_latex_(self) -> str:
        """Jupyter display: the closed system (or the refutation), via the symgauss printer."""
        from symgauss.reporting.printer import latex
        if self.status != "proved":
            return "$$\\text{closure refuted (the witness is in .witness)}$$"
        m, S = (("m_{+}", "\\Sigma_{+}") if self.depth == "discrete"
                else ("\\dot m", "\\dot\\Sigma"))
        return (f"$$\\begin{{aligned}}{m} &= {latex(self.mean_rhs)}\\\\ {S} &= "
                f"{latex(self.cov_rhs)}\\end{{aligned}}$$")

    @property
    def proved(self) -> bool:
        return self.status == "proved"

    def to_json_dict(self) -> dict:
        out = {"dim": self.dim, "heads": self.heads, "depth": self.depth, "kernel": self.kernel,
               "feedforward": self.feedforward, "attention": self.attention, "data": self.data,
               "status": self.status, "level": self.level,
               "mean_rhs": None if self.mean_rhs is None else
               [sp.sstr(self.mean_rhs[i, 0]) for i in range(self.mean_rhs.shape[0])],
               "cov_rhs": None if self.cov_rhs is None else
               [[sp.sstr(v) for v in self.cov_rhs.row(i)] for i in range(self.cov_rhs.shape[0])],
               "steps": [{"statement": s.statement, "expr": sp.sstr(s.expr),
                          "justification": s.justification} for s in self.steps],
               "witness": None if self.witness is None else
               {k: (v if isinstance(v, (str, int, float, bool)) or v is None else
                    _json_value(v)) for k, v in self.witness.items()}}
        return out


def _json_value(v):
    if isinstance(v, dict):
        return {str(k): _json_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return sp.sstr(v)
