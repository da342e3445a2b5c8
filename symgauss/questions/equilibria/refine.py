"""From a float root to a labelled equilibrium (untrusted search; the proof is the kernel's).

1. **Rational?** The refined centre's entries are matched with short fractions; an exactly zero
   residual makes the equilibrium ``exact``.
2. **Refinement** in exact dyadic arithmetic with the float inverse Y ≈ J⁻¹ fixed:
   C ← round(C − Y·F(C)), F evaluated exactly (python-flint), each step gaining ~13 digits —
   no high-precision linear algebra at all.
3. **Proof**: the kernel's Newton–Kantorovich test (:func:`symgauss.kernel.kinds.stability.enclosure`)
   with that Y and a radius r from ‖Y F(C)‖: a unique equilibrium within r (max entry) of C —
   level ``rigorous``. If the float Y is too poor (an ill-conditioned Jacobian), Y is recomputed
   in ball arithmetic at high precision and tried once more.
4. **Otherwise** Newton at two precisions (exact J and F, ball-arithmetic solves): the digits on
   which the two runs agree are reported at level ``high-precision``; if they agree on fewer
   than 10 digits, the float root is reported at level ``float``.

The mean's fixed point m* = −M(Σ*)⁻¹b is enclosed by ball arithmetic over the same ball.
"""
from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from symgauss.model.linearise import (
    exact_matrix,
    exact_params,
    linearisation_exact,
    residual_exact,
    svec_pairs,
)
from symgauss.questions.equilibria.result import (
    Equilibrium,
    arb_ball,
    decimal_ball,
    fraction_of,
    round_up,
)


def bits_for(digits: int) -> int:
    return int(digits * 3.33) + 8


def _exponent(x: float) -> int:
    return int(np.frexp(max(abs(x), 1e-300))[1])


def _round(x, e: int) -> flint.fmpq:
    """x (float, Fraction or fmpq) rounded to a multiple of 2^−e."""
    f = fraction_of(x) if not isinstance(x, float) else Fraction(x)
    return flint.fmpq(round(f * 2 ** e), 2 ** e) if e >= 0 else \
        flint.fmpq(round(f / 2 ** -e) * 2 ** -e)


def _sym(d: int, v) -> flint.fmpq_mat:
    S = flint.fmpq_mat(d, d)
    for (i, j), x in zip(svec_pairs(d), v):
        S[i, j] = S[j, i] = x
    return S


def _column(M: flint.fmpq_mat) -> flint.fmpq_mat:
    pairs = svec_pairs(M.nrows())
    return flint.fmpq_mat(len(pairs), 1, [M[i, j] for i, j in pairs])


def _dyadic_matrix(X: np.ndarray, bits: int = 53) -> flint.fmpq_mat:
    """X rounded to integers times 2^−e, |entries| < 2^bits · 2^−e (exact; vectorised)."""
    e = bits - _exponent(float(np.max(np.abs(X))))
    K = np.rint(np.ldexp(X, e)).astype(np.int64)          # |K| ≤ 2^bits < 2^63
    M = flint.fmpq_mat(flint.fmpz_mat(X.shape[0], X.shape[1], [int(k) for k in K.ravel()]))
    return M * (flint.fmpq(1, 2 ** e) if e >= 0 else flint.fmpq(2 ** -e))


def _norm_max(col) -> flint.fmpq:
    return max((abs(x) for x in col.entries()), default=flint.fmpq(0))


def refine(params, C: flint.fmpq_mat, Y: flint.fmpq_mat, e: int, steps: int = 12):
    """C ← round_e(C − Y F(C)) until the step is below 2^−e; (C, last step size, converged)."""
    d, size, last = C.nrows(), None, None
    tol = flint.fmpq(1, 2 ** e) if e >= 0 else flint.fmpq(2 ** -e)
    for _ in range(steps):
        step = Y * _column(residual_exact(params, C))
        size = _norm_max(step)
        C = _sym(d, [_round(C[i, j] - s, e) for (i, j), s in zip(svec_pairs(d), step.entries())])
        if size <= tol:
            return C, size, True
        if last is not None and size > last / 1000:   # not contracting: give up
            return C, size, False
        last = size
    return C, size, False


def prove(params, C: flint.fmpq_mat, Y: flint.fmpq_mat, z0: flint.fmpq, e: int):
    """The kernel's Newton–Kantorovich enclosure: (r, L(C), s) — a unique equilibrium Σ* within
    r (max entry) of C, the exact linearisation at C, and |L(Σ*) − L(C)| ≤ s entrywise — or None."""
    from symgauss.kernel.kinds.stability import enclosure
    from symgauss.kernel.verdict import NotProved, Refuted
    r = round_up(fraction_of(2 * z0) + (Fraction(1, 2 ** e) if e >= 0 else Fraction(2 ** -e)))
    for _ in range(4):
        try:
            J, spread = enclosure(params, C, flint.fmpq(r.numerator, r.denominator), Y)
            return r, J, fraction_of(spread)
        except (NotProved, Refuted):
            r *= 16
    return None


def _hp_inverse(params, C: flint.fmpq_mat, bits: int):
    """Y ≈ J(C)⁻¹ computed in ball arithmetic at ``bits`` (midpoints, rounded to dyadics)."""
    J = linearisation_exact(params, C)
    n = J.nrows()
    with flint.ctx.workprec(bits + 30):
        try:
            Z = flint.arb_mat(J).solve(flint.arb_mat(n, n, [int(i == j) for i in range(n)
                                                            for j in range(n)]),
                                       algorithm="approx")
        except ZeroDivisionError:
            return None
        vals = [fraction_of(Z[i, j].mid()) for i in range(n) for j in range(n)]
    big = max((abs(v) for v in vals), default=Fraction(1)) or Fraction(1)
    e = bits - _exponent(float(big))
    return flint.fmpq_mat(n, n, [_round(v, e) for v in vals])


def _newton_hp(params, C: flint.fmpq_mat, bits: int, steps: int = 40):
    """Newton with exact J, F and ball-arithmetic solves at ``bits``: the last iterate."""
    d = C.nrows()
    e = bits - _exponent(float(max(abs(x) for x in C.entries()) or 1))
    with flint.ctx.workprec(bits + 30):
        for _ in range(steps):
            J, F = linearisation_exact(params, C), _column(residual_exact(params, C))
            try:
                s = flint.arb_mat(J).solve(flint.arb_mat(F), algorithm="approx")
            except ZeroDivisionError:
                return None
            step = [fraction_of(s[k, 0].mid()) for k in range(s.nrows())]
            C = _sym(d, [_round(fraction_of(C[i, j]) - x, e)
                         for (i, j), x in zip(svec_pairs(d), step)])
            if max(abs(x) for x in step) <= Fraction(1, 2 ** max(e, 0)):
                break
    return C


def try_rational(params, C: flint.fmpq_mat, bits: int):
    """An exact rational equilibrium matching C to ~bits/2 bits (short fractions), or None."""
    q = min(10 ** 12, 2 ** max(bits // 2 - 10, 4))
    d = C.nrows()
    S = exact_matrix([[Fraction(fraction_of(C[i, j])).limit_denominator(q) for j in range(d)]
                      for i in range(d)])
    if all(x == 0 for x in residual_exact(params, S).entries()):
        return S
    return None


def mean_ball(params, C: flint.fmpq_mat, r: Fraction, digits: int):
    """(texts, radius) enclosing m* = −M⁻¹b for every Σ within r of C, or (None, None)."""
    p = exact_params(params)
    d = C.nrows()
    with flint.ctx.workprec(bits_for(digits) + 40):
        rad = flint.arb(0, flint.fmpq(r.numerator, r.denominator)) if r else flint.arb(0)
        S = flint.arb_mat(C) + flint.arb_mat(d, d, [rad] * (d * d))
        M = flint.arb_mat(p.A)
        for V, B in p.heads:
            M = M + flint.arb_mat(V) + flint.arb_mat(V) * S * flint.arb_mat(B)
        try:
            m = M.solve(-flint.arb_mat(p.b))
        except ZeroDivisionError:
            return None, None
        return arb_ball([m[i, 0] for i in range(d)], digits)


def _agreed_digits(C1, C2) -> int:
    scale = max(abs(fraction_of(x)) for x in C1.entries()) or Fraction(1)
    diff = max(abs(fraction_of(a) - fraction_of(b)) for a, b in zip(C1.entries(), C2.entries()))
    if diff == 0:
        return 10 ** 6
    k = 0
    while Fraction(10) ** (-k - 1) * scale >= diff * 2:
        k += 1
    return k


def equilibrium_from_root(problem, S: np.ndarray, digits: int) -> Equilibrium:
    """The equilibrium near the float root S, at the highest level this module can reach."""
    from symgauss.questions.equilibria.exact import exact_equilibrium
    from symgauss.questions.equilibria.newton import FloatSystem
    from symgauss.questions.stability.local import stability_of_enclosure
    params, d = exact_params(problem.params), S.shape[0]
    bits = bits_for(digits)
    e = bits - _exponent(float(np.max(np.abs(S))))
    fs = FloatSystem.of(problem)
    try:
        from scipy.linalg import inv
        Y = _dyadic_matrix(inv(fs.J(fs.svec(S)), check_finite=False))
    except (np.linalg.LinAlgError, ValueError):
        Y = None
    C0 = _sym(d, [_round(float(v), e) for v in fs.svec(S)])
    for attempt in range(2):
        if Y is None:
            break
        C, z0, ok = refine(params, C0, Y, e)
        if ok:
            exact = try_rational(params, C, bits)
            if exact is not None:
                return exact_equilibrium(problem, exact)
            proved = prove(params, C, Y, z0, e)
            if proved is not None:
                r, L, spread = proved
                cov, radius = decimal_ball([fraction_of(x) for x in C.entries()], r, digits)
                mean, mrad = mean_ball(problem.params, C, r, digits)
                stab = stability_of_enclosure(problem, C, r, Y, L, spread)
                return Equilibrium(tuple(tuple(cov[i * d:(i + 1) * d]) for i in range(d)),
                                   None if mean is None else tuple(mean), d, "rigorous",
                                   {"verified": True, "refuted": False}.get(stab.status),
                                   radius=radius, stability=stab, mean_radius=mrad,
                                   enclosure=(C, r, Y))
            C0 = C
        if attempt == 0:
            Y = _hp_inverse(params, C0, 2 * bits)
    return _high_precision(problem, params, C0, S, digits)


def _high_precision(problem, params, C0, S, digits) -> Equilibrium:
    """Two Newton runs at different precisions; label by the digits they agree on."""
    from symgauss.questions.stability.local import StabilityResult
    d, bits = S.shape[0], bits_for(digits)
    C1, C2 = _newton_hp(params, C0, bits), _newton_hp(params, C0, bits + 64)
    k = 0 if C1 is None or C2 is None else min(_agreed_digits(C1, C2), digits)
    why = ("no existence proof (the Newton–Kantorovich test failed: the linearisation is "
           "singular or ill-conditioned here)")
    if k >= 10:
        texts = decimal_ball([fraction_of(x) for x in C2.entries()], 0, k)[0]
        cov = tuple(tuple(texts[i * d:(i + 1) * d]) for i in range(d))
        return Equilibrium(cov, None, d, "high-precision", None, digits=k,
                           stability=StabilityResult("undecided", f"{why}; two Newton runs "
                                                     f"({bits} and {bits + 64} bits) agree to "
                                                     f"{k} digits"))
    texts = decimal_ball([Fraction(float(v)) for v in S.ravel()], 0, 8)[0]
    return Equilibrium(tuple(tuple(texts[i * d:(i + 1) * d]) for i in range(d)), None,
                       int(np.sum(np.linalg.eigvalsh(S) > 1e-10 * max(1, np.max(np.abs(S))))),
                       "float", None, digits=8,
                       stability=StabilityResult("undecided", f"{why}; high-precision runs do "
                                                 "not agree: a float Newton root, 8 digits "
                                                 "shown, no bound"))
