"""Float path: scipy ``solve_ivp`` (DOP853) on the moment ODEs, for quick use.

Its answers are labelled *float*; the test suite checks them against
:func:`symgauss.integrate.high_precision.solve_moments`.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from symgauss.integrate.float_events import solve_with_events
from symgauss.integrate.high_precision import MomentSolution
from symgauss.kernel.errors import BlowUpError
from symgauss.kernel.numbers import rational_text
from symgauss.model.convert import as_time, require_numeric, to_float

BLOWUP_NORM = 1e12


class _FloatParams:
    def __init__(self, params):
        self.A = to_float(params.A)
        self.b = to_float(params.b)[:, 0]
        self.heads = [(to_float(h.V), to_float(h.B)) for h in params.heads]


def _rhs(fp: _FloatParams, d: int):
    def f(_t, y):
        m, S = y[:d], y[d:].reshape(d, d)
        M = fp.A.copy()
        dm = fp.A @ m + fp.b
        for V, B in fp.heads:
            M += V @ S @ B
            dm += V @ m + V @ S @ B @ m
        MS = M @ S
        return np.concatenate([dm, (MS + MS.T).ravel()])
    return f


def solve_moments_float(problem, t, *, rtol: float = 1e-12, atol: float = 1e-14,
                        blowup_norm: float = BLOWUP_NORM) -> MomentSolution:
    """Float integration to ``t``; raises BlowUpError when ‖Σ‖ passes ``blowup_norm``.

    >>> import symgauss as sg
    >>> s = sg.solve_float(sg.example("scalar_blowup"), "1/4")
    >>> round(float(s.cov[0][0]), 10), s.level
    (2.0, 'float')
    """
    require_numeric(problem, "solve")
    t_end = as_time(t)
    d = problem.d
    y = np.concatenate([to_float(problem.mean0)[:, 0], to_float(problem.cov0).ravel()])
    steps = 0
    for (a, e, params) in problem.pieces(sp.Rational(t_end.numerator, t_end.denominator)):
        if float(e) <= float(a):
            continue
        f = _rhs(_FloatParams(params), d)

        def event(_t, yy):
            return np.max(np.abs(yy[d:])) - blowup_norm
        event.terminal = True
        sol = solve_with_events(f, (float(a), float(e)), y, event, method="DOP853", rtol=rtol,
                                atol=atol)
        steps += sol.t.size
        if sol.status == 1 or not sol.success:
            t_hit = float(sol.t[-1])
            raise BlowUpError(t_end, t_hit,
                              f"the solution blows up before t = {rational_text(t_end)}: ‖Σ‖ reaches "
                              f"{blowup_norm:.0e} at t ≈ {t_hit:.12g} (float estimate)")
        y = sol.y[:, -1]
    S = y[d:].reshape(d, d)
    S = (S + S.T) / 2
    return MomentSolution(t=t_end, mean=tuple(float(x) for x in y[:d]),
                          cov=tuple(tuple(float(x) for x in row) for row in S),
                          digits=int(-np.log10(rtol)), digits_agreed=float("nan"),
                          level="float", method=f"scipy solve_ivp DOP853 rtol={rtol:g}",
                          steps=steps)
