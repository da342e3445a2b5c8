"""Reachability: constructive controls that steer N(m0, Σ0) to a target, or the rank obstruction.

Notes §3 and §5. Rank is invariant (Σ(t) = Φ Σ0 Φᵀ), so rank Σ1 ≠ rank Σ0 is decided
exactly and answers "unreachable". Otherwise three constructions of piecewise-constant
controls (problem-file ``controls`` format) reach the target at time T:

``geodesic`` (full rank)
    one piece A = X/T, X = Σ0^{1/2} (½ log C) Σ0^{-1/2}, C = Σ0^{-1/2} Σ1 Σ0^{-1/2}.
``polar`` (any rank)
    G = e^K e^H with GΣ0Gᵀ = Σ1, det G > 0: H symmetric (the optimal-transport map between
    the covariances restricted to range Σ0), K skew (the direct rotation of range Σ0 onto
    range Σ1 through the principal angles, all ≤ π/2); two pieces A = H/τ1, A = K/τ2 (one
    when the ranges agree, decided exactly).
``attention`` (full rank)
    A = 0; the covariance is moved by attention alone: V = vI, B = (Σ0⁻¹ − Σ1⁻¹)/(2vτ)
    makes P = Σ⁻¹ move linearly, P(τ) = Σ1⁻¹ exactly (a Bernoulli equation). A zero mean is
    invariant under such a piece (b = 0), so the mean is moved to 0 and from 0 to m1 by pure
    translation pieces (b only). All entries are rational: the target is reached exactly.

For geodesic and polar the mean is steered by the bias b_k of each piece chosen with least
energy Σ τ_k‖b_k‖² among the piecewise-constant biases: m(T) = Φ m0 + Σ L_k b_k, b_k =
L_kᵀ W⁻¹ c / τ_k with W = Σ L_k L_kᵀ/τ_k, c = m1 − Φ m0 (W ≻ 0 since the last L_k is
invertible: the spectra of H, K avoid 2πi ℤ∖{0}).

Real controls (logarithms, square roots) are rounded to decimal strings with ``digits + 5``
significant digits; the *stored* rational controls are then verified independently of the
construction: the reached state is enclosed in ball arithmetic by
:func:`symgauss.kernel.kinds.reach.propagate` (matrix exponentials of the rational pieces, exact
Bernoulli steps), so ``final_error`` is a rigorous bound of max(‖m(T) − m1‖₂, ‖Σ(T) − Σ1‖_F).

>>> from symgauss import Problem
>>> p = Problem(cov0=[[1, 0], [0, 1]], target={"mean": [2, -1], "cov": [[9, 0], [0, "1/9"]]})
>>> r = reach(p, method="geodesic")
>>> r.controls[0]["A"][0][0][:12], r.controls[0]["A"][0][1], r.level
('1.0986122886', '0', 'rigorous')
>>> float(r.final_error) < 1e-40
True
>>> reach(Problem(cov0=[[1, 0], [0, 1]], target={"cov": [[1, 0], [0, 0]]})).reachable
False
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
import mpmath

from symgauss.kernel.errors import ProblemError, UnsupportedError
from symgauss.kernel.exact import rank
from symgauss.kernel.numbers import parse_rational, rational_text
from symgauss.model.convert import require_numeric, to_fractions

METHODS = ("geodesic", "polar", "attention")
DEFAULT_DIGITS = 50
NORM = "max(‖m(T) − target.mean‖₂, ‖cov(T) − target.cov‖_F)"


@dataclass(frozen=True)
class ReachResult:
    """The answer to "can (mean0, cov0) be steered to the target at time T?".

    ``controls`` are pieces in problem-file form (exact strings); ``final_error`` is a
    rigorous upper bound (level ``"rigorous"``), exactly 0 (``"exact"``) or a high-precision
    estimate; ``epsilon`` is the tolerance a reach certificate claims.
    """
    reachable: bool
    reason: str
    T: Fraction
    controls: tuple = ()
    final_error: Fraction | None = None
    level: str = "exact"
    method: str | None = None
    energy: Fraction | None = None
    rank_cov0: int = 0
    rank_target: int = 0
    epsilon: Fraction | None = None
    candidates: tuple = ()       # ((method, energy), ...) of every method that applied
    precision_bits: int = 0

    def to_json_dict(self) -> dict:
        from symgauss.kernel.kinds.reach import sci
        return {"reachable": self.reachable, "reason": self.reason, "T": rational_text(self.T),
                "controls": [dict(pc) for pc in self.controls],
                "final_error": None if self.final_error is None else sci(self.final_error),
                "level": self.level, "method": self.method,
                "energy": None if self.energy is None else _decimal(self.energy, 20),
                "rank_cov0": self.rank_cov0, "rank_target_cov": self.rank_target,
                "candidates": {m: _decimal(e, 20) for m, e in self.candidates}}

    def controlled_problem(self, problem):
        """The problem (cov0, mean0, target) driven by these controls, for ``symgauss solve``."""
        from symgauss.model.problem import Problem
        if not self.reachable:
            raise ProblemError("the target is unreachable: there are no controls")
        return Problem(cov0=problem.cov0, mean0=problem.mean0, controls=list(self.controls),
                       target=problem.target, name=problem.name)


# --- small helpers -------------------------------------------------------------------------

def _decimal(x: Fraction, n: int) -> str:
    with flint.ctx.workdps(n + 10):
        return flint.arb(flint.fmpq(x.numerator, x.denominator)).mid().str(n, radius=False)


def _parse_T(T) -> Fraction:
    if hasattr(T, "is_Rational"):
        if not T.is_Rational:
            raise ProblemError(f"T = {T}: the final time must be a rational number")
        T = Fraction(int(T.p), int(T.q))
    t = parse_rational(T, "T")
    if t <= 0:
        raise ProblemError(f"T = {t}: the final time must be positive")
    return t


def _fq(x: Fraction):
    return flint.fmpq(x.numerator, x.denominator)


def _fmpq_mat(rows):
    r, c = len(rows), len(rows[0]) if rows else 0
    return flint.fmpq_mat(r, c, [_fq(Fraction(x)) for row in rows for x in row])


def _mp_mat(rows):
    return mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator for x in row] for row in rows])


def _text_matrix(M, n: int, snap) -> list:
    """Decimal strings with n significant digits; entries below ``snap`` become exactly '0'."""
    return [[("0" if abs(M[i, j]) <= snap else mpmath.nstr(M[i, j], n))
             for j in range(M.cols)] for i in range(M.rows)]


def _frac_rows(text_rows) -> list:
    return [[parse_rational(x, "control") for x in row] for row in text_rows]


def _zeros_text(d, cols=None):
    return [["0"] * d for _ in range(d)] if cols is None else ["0"] * d


def _sym(S):
    return (S + S.T) / 2


def _sym_fun(S, f):
    """f(S) for symmetric S through the symmetric eigendecomposition."""
    E, U = mpmath.eigsy(_sym(S))
    D = mpmath.diag([f(e) for e in E])
    return U * D * U.T


def _top_eigvecs(S, r):
    """An orthonormal basis (d×r) of the span of the r largest eigenvalues of S."""
    E, U = mpmath.eigsy(_sym(S))
    order = sorted(range(S.rows), key=lambda i: E[i], reverse=True)[:r]
    return mpmath.matrix([[U[i, j] for j in order] for i in range(S.rows)])


def _fro(M):
    return mpmath.sqrt(mpmath.fsum(x * x for x in M))


# --- constructions of the covariance part (A per piece) ---------------------------------------

def _geodesic_generators(S0, S1):
    """X with e^X Σ0 e^{Xᵀ} = Σ1 along the affine-invariant geodesic (Σ0 ≻ 0)."""
    S0h = _sym_fun(S0, mpmath.sqrt)
    S0ih = _sym_fun(S0, lambda e: 1 / mpmath.sqrt(e))
    C = _sym(S0ih * S1 * S0ih)
    return [S0h * (_sym_fun(C, mpmath.log) / 2) * S0ih]


def _rotation(U0, U1):
    """Skew K with e^K range(U0) = range(U1): rotation through the principal angles."""
    d, r = U0.rows, U0.cols
    W, s, Zt = mpmath.svd_r(U0.T * U1)
    a, b = U0 * W, U1 * Zt.T
    K = mpmath.zeros(d, d)
    for i in range(r):
        c = min(s[i], mpmath.mpf(1))
        theta = mpmath.acos(c)
        f = theta / mpmath.sin(theta) if theta > mpmath.mpf(10) ** (-mpmath.mp.dps // 3) else 1
        ai, bt = a[:, i], b[:, i] - c * a[:, i]
        K += f * (bt * ai.T - ai * bt.T)
    return K


def _polar_generators(S0, S1, r, same_range):
    """[H] or [H, K]: e^K e^H Σ0 e^H e^{-K} = Σ1, H symmetric, K skew."""
    if r == 0:
        return []
    U0 = _top_eigvecs(S0, r)
    S1p, K = S1, None
    if not same_range:
        K = _rotation(U0, _top_eigvecs(S1, r))
        S1p = mpmath.expm(-K) * S1 * mpmath.expm(K)
    S0r, S1r = _sym(U0.T * S0 * U0), _sym(U0.T * S1p * U0)
    h = _sym_fun(S0r, mpmath.sqrt)
    hi = _sym_fun(S0r, lambda e: 1 / mpmath.sqrt(e))
    Gr = _sym(hi * _sym_fun(h * S1r * h, mpmath.sqrt) * hi)
    H = U0 * _sym_fun(Gr, mpmath.log) * U0.T
    return [H] if K is None else [H, K]


def _split(T: Fraction, weights) -> list:
    """Durations proportional to ``weights`` (rounded to small rationals), summing to T."""
    if len(weights) == 1:
        return [T]
    total = sum(weights)
    out = []
    for w in weights[:-1]:
        f = Fraction(float(w / total)).limit_denominator(100) if total > 0 else \
            Fraction(1, len(weights))
        out.append(min(max(f, Fraction(1, 100)), Fraction(99, 100)))
    if sum(out) >= 1:
        out = [Fraction(1, len(weights))] * (len(weights) - 1)
    out.append(1 - sum(out))
    return [T * f for f in out]


# --- the mean: least-energy biases for given linear pieces -------------------------------------

def _block_exp_mid(A, tau: Fraction, d: int):
    """(e^{Aτ}, ∫_0^τ e^{As} ds) from exp([[Aτ, τI], [0, 0]]) (midpoints)."""
    t = flint.arb(_fq(tau))
    rows = [[flint.arb(A[i, j]) * t for j in range(d)] + [t if i == j else flint.arb(0)
                                                         for j in range(d)] for i in range(d)]
    rows += [[flint.arb(0)] * (2 * d) for _ in range(d)]
    F = flint.arb_mat(rows).exp()
    E = flint.arb_mat([[F[i, j].mid() for j in range(d)] for i in range(d)])
    J = flint.arb_mat([[F[i, d + j].mid() for j in range(d)] for i in range(d)])
    return E, J


def _least_energy_biases(As, taus, m0, m1, d, prec, n):
    """Bias strings b_k (one per piece) with m(T) = m1, least Σ τ_k ‖b_k‖²."""
    with flint.ctx.workprec(prec):
        EJ = [_block_exp_mid(_fmpq_mat(_frac_rows(A)), tau, d) for A, tau in zip(As, taus)]
        Ls, suffix = [None] * len(EJ), flint.arb_mat(_fmpq_mat([[int(i == j) for j in range(d)]
                                                                for i in range(d)]))
        for k in reversed(range(len(EJ))):
            Ls[k] = suffix * EJ[k][1]
            suffix = suffix * EJ[k][0]
        c = flint.arb_mat(_fmpq_mat([[x] for x in m1])) - suffix * flint.arb_mat(
            _fmpq_mat([[x] for x in m0]))
        W = flint.arb_mat(d, d)
        for L, tau in zip(Ls, taus):
            W += L * L.transpose() / flint.arb(_fq(tau))
        W = flint.arb_mat([[W[i, j].mid() for j in range(d)] for i in range(d)])
        y = W.solve(flint.arb_mat([[x.mid()] for x in c.entries()]), nonstop=True)
        out = []
        for L, tau in zip(Ls, taus):
            bk = L.transpose() * y / flint.arb(_fq(tau))
            out.append([_arb_text(x, n) for x in bk.entries()])
        return out


def _arb_text(x, n: int) -> str:
    m = x.mid()
    return "0" if m == 0 else m.str(n, radius=False)


def _linear_controls(gens, T, m0, m1, d, digits):
    """Pieces A_k = G_k/τ_k (durations ∝ ‖G_k‖) with least-energy biases."""
    n = digits + 5
    snap = mpmath.mpf(10) ** (-(digits + 10))
    if not gens:  # rank 0: only the mean moves
        gens = [mpmath.zeros(d, d)]
    taus = _split(T, [_fro(G) for G in gens])
    As = []
    for G, tau in zip(gens, taus):
        A = G / (mpmath.mpf(tau.numerator) / tau.denominator)
        scale = max(1, max(abs(x) for x in A))
        As.append(_text_matrix(A, n, snap * scale))
    prec = int(3.33 * (digits + 20)) + 64
    bs = _least_energy_biases(As, taus, m0, m1, d, prec, n)
    return [{"duration": rational_text(tau), "A": A, "b": b} for tau, A, b in zip(taus, As, bs)]


# --- attention: exact rational controls -----------------------------------------------------

def _attention_controls(S0, S1, T, m0, m1, d):
    P0, P1 = _fmpq_mat(S0).inv(), _fmpq_mat(S1).inv()
    Kd = P0 - P1
    moves = [any(x != 0 for x in m0), any(x != 0 for x in m1)]
    if all(x == 0 for x in Kd.entries()):  # the covariance is already there: translate only
        return [{"duration": rational_text(T), "A": _zeros_text(d),
                 "b": [rational_text((Fraction(y) - Fraction(x)) / T) for x, y in zip(m0, m1)]}]
    tau2 = T / 2 if any(moves) else T
    norms = [sum(x * x for x in m0) ** 0.5, sum(x * x for x in m1) ** 0.5]
    rest = [w for w, mv in zip(norms, moves) if mv]
    trans = _split(T - tau2, [float(w) for w in rest]) if rest else []
    with mpmath.workdps(30):
        knorm = mpmath.sqrt(mpmath.fsum((mpmath.mpf(int(x.p)) / int(x.q)) ** 2
                                        for x in Kd.entries()))
        u = knorm / (2 * (mpmath.mpf(tau2.numerator) / tau2.denominator) * mpmath.sqrt(d))
        v = parse_rational(mpmath.nstr(mpmath.sqrt(u), 8), "v")
    B = Kd * _fq(1 / (2 * v * tau2))
    I_v = [[rational_text(v) if i == j else "0" for j in range(d)] for i in range(d)]
    pieces = []
    if moves[0]:
        tau1 = trans.pop(0)
        pieces.append({"duration": rational_text(tau1), "A": _zeros_text(d),
                       "b": [rational_text(-Fraction(x) / tau1) for x in m0]})
    pieces.append({"duration": rational_text(tau2), "A": _zeros_text(d), "V": I_v,
                   "B": [[rational_text(Fraction(int(B[i, j].p), int(B[i, j].q)))
                          for j in range(d)] for i in range(d)], "b": _zeros_text(d, 1)})
    if moves[1]:
        tau3 = trans.pop(0)
        pieces.append({"duration": rational_text(tau3), "A": _zeros_text(d),
                       "b": [rational_text(Fraction(x) / tau3) for x in m1]})
    return pieces


# --- verification -----------------------------------------------------------------------------

def _read(pieces, d):
    from symgauss.kernel.read import read_pieces
    return read_pieces([dict(pc) for pc in pieces], d, "controls")


def energy(pieces, d: int) -> Fraction:
    """∫ (‖A‖² + Σ_h ‖V_h‖² + ‖B_h‖² + ‖b‖²) dt (Frobenius norms), exactly, for stored pieces."""
    total = Fraction(0)
    for tau, p in _read(pieces, d):
        mats = [p.A, p.b] + [M for h in p.heads for M in h]
        sq = sum(Fraction(int(x.p), int(x.q)) ** 2 for M in mats for x in M.entries())
        total += Fraction(int(tau.p), int(tau.q)) * sq
    return total


def verify(problem, pieces, digits: int = DEFAULT_DIGITS):
    """(final_error, level, precision bits) for the stored rational ``pieces``.

    Ball arithmetic (rigorous, or exact when every step is rational) through the trusted
    :func:`symgauss.kernel.kinds.reach.propagate`; pieces it cannot enclose fall back to the
    high-precision Taylor solver (level ``"high-precision"``, an estimate).
    """
    from symgauss.kernel.kinds.reach import error_bounds, propagate
    from symgauss.kernel.verdict import Invalid
    d = problem.d
    prec = int(3.33 * (digits + 20)) + 64
    cov0, mean0 = _fmpq_mat(to_fractions(problem.cov0)), _fmpq_mat(to_fractions(problem.mean0))
    tm, tc = _fmpq_mat(to_fractions(problem.target.mean)), _fmpq_mat(
        to_fractions(problem.target.cov))
    try:
        state = propagate(cov0, mean0, _read(pieces, d), prec)
    except Invalid:
        return _verify_hp(problem, pieces, digits) + (0,)
    lo, up, squared = error_bounds(state, tm, tc, prec)
    if squared:
        return (Fraction(0), "exact", prec) if up == 0 else (_sqrt_up(up), "exact", prec)
    return up, "rigorous", prec


def _sqrt_up(x: Fraction) -> Fraction:
    with flint.ctx.workprec(128):
        from symgauss.kernel.kinds.reach import arb_to_fraction
        return arb_to_fraction(flint.arb(_fq(x)).sqrt(), upper=True)


def _verify_hp(problem, pieces, digits):
    from symgauss.integrate.high_precision import solve_moments
    from symgauss.model.problem import Problem
    p = Problem(cov0=problem.cov0, mean0=problem.mean0, controls=list(pieces))
    total = sum(Fraction(parse_rational(pc["duration"], "duration")) for pc in pieces)
    sol = solve_moments(p, rational_text(total), digits)
    tm, tc = to_fractions(problem.target.mean), to_fractions(problem.target.cov)
    with flint.ctx.workdps(digits + 20):
        em = sum((sol.mean[i] - _fq(tm[i][0])) ** 2 for i in range(p.d))
        eS = sum((sol.cov[i][j] - _fq(tc[i][j])) ** 2 for i in range(p.d) for j in range(p.d))
        err = flint.arb(em).max(flint.arb(eS)).sqrt().mid()
        return parse_rational(err.str(5, radius=False), "error"), "high-precision"


def _epsilon(err: Fraction) -> Fraction:
    """The smallest power of ten ≥ 2·err (0 for an exact hit)."""
    if err == 0:
        return Fraction(0)
    e = Fraction(1)
    while e < 2 * err:
        e *= 10
    while e / 10 >= 2 * err:
        e /= 10
    return e


# --- the public entry point ---------------------------------------------------------------

def _applicable(r0, d):
    return [m for m in METHODS if r0 == d or m == "polar"]


def reach(problem, T=1, method: str | None = None, digits: int = DEFAULT_DIGITS) -> ReachResult:
    """Decide reachability of ``problem.target`` at time ``T`` and construct controls.

    Parameters
    ----------
    problem : Problem with a ``target`` (its own parameters/controls are ignored).
    T : positive rational final time.
    method : "geodesic", "polar", "attention" or None (the cheapest that applies).
    digits : working precision in significant digits (≥ 50 recommended; controls are stored
        with ``digits + 5``).

    >>> import symgauss as sg
    >>> r = sg.reach(sg.example("reach_geodesic"))      # N(0, I) -> N((2, -1), diag(9, 1/9))
    >>> r.reachable, r.method, r.level, r.final_error < 1e-50
    (True, 'geodesic', 'rigorous', True)
    """
    require_numeric(problem, "reach")
    if problem.target is None:
        raise ProblemError("the problem has no 'target'; add {\"target\": {\"mean\": [...], "
                           "\"cov\": [[...]]}} to ask whether it can be reached")
    if method is not None and method not in METHODS:
        raise ProblemError(f"method {method!r} is unknown; use one of {', '.join(METHODS)}")
    if not isinstance(digits, int) or not 15 <= digits <= 1000:
        raise ProblemError(f"digits = {digits!r}: use an integer between 15 and 1000")
    T = _parse_T(T)
    d = problem.d
    S0, S1 = to_fractions(problem.cov0), to_fractions(problem.target.cov)
    r0, r1 = rank(S0), rank(S1)
    if r0 != r1:
        return ReachResult(False, f"rank cov0 = {r0} ≠ {r1} = rank target.cov (exact); rank is "
                                  "invariant under the flow (Σ(t) = Φ(t) Σ0 Φ(t)ᵀ with Φ(t) "
                                  "invertible), so no control reaches the target at any time",
                           T, level="exact", rank_cov0=r0, rank_target=r1)
    methods = _applicable(r0, d)
    if method is not None and method not in methods:
        raise UnsupportedError(f"method {method!r} needs full-rank covariances (rank {r0} < d = "
                               f"{d}); use --method polar, which handles any rank")
    built = {m: construct(problem, m, T, digits) for m in ([method] if method else methods)}
    costs = {m: energy(pcs, d) for m, pcs in built.items()}
    best = method or min(costs, key=lambda m: (costs[m], METHODS.index(m)))
    pieces = built[best]
    err, level, prec = verify(problem, pieces, digits)
    return ReachResult(True, f"rank cov0 = rank target.cov = {r0} (exact); the {best} controls "
                             f"reach the target at T = {rational_text(T)} ({level} final error)",
                       T, tuple(pieces), err, level, best, costs[best], r0, r1, _epsilon(err),
                       tuple(sorted(costs.items(), key=lambda kv: METHODS.index(kv[0]))), prec)


def construct(problem, method: str, T, digits: int = DEFAULT_DIGITS) -> list:
    """The controls of one ``method`` (no verification): a list of problem-file pieces."""
    T = _parse_T(T)
    d = problem.d
    S0, S1 = to_fractions(problem.cov0), to_fractions(problem.target.cov)
    m0 = [r[0] for r in to_fractions(problem.mean0)]
    m1 = [r[0] for r in to_fractions(problem.target.mean)]
    if method == "attention":
        return _attention_controls(S0, S1, T, m0, m1, d)
    with mpmath.workdps(digits + 20):
        M0, M1 = _mp_mat(S0), _mp_mat(S1)
        if method == "geodesic":
            gens = _geodesic_generators(M0, M1)
        else:
            r = rank(S0)
            same = rank([a + b for a, b in zip(S0, S1)]) == r
            gens = _polar_generators(M0, M1, r, same)
        return _linear_controls(gens, T, m0, m1, d, digits)


def make_certificate(problem, T=1, method: str | None = None,
                     digits: int = DEFAULT_DIGITS) -> dict:
    """A "reach" or "unreachable" certificate (checked by :mod:`symgauss.kernel.kinds.reach`).

    >>> from symgauss import Problem
    >>> from symgauss.kernel.checker import check_certificate
    >>> c = make_certificate(Problem(cov0=[[1]], target={"mean": [1], "cov": [[4]]}))
    >>> c["kind"], check_certificate(c).status
    ('reach', 'verified')
    """
    from symgauss.model.certificate import envelope
    return certificate_from_result(problem, reach(problem, T, method, digits), envelope)


def certificate_from_result(problem, res: ReachResult, envelope) -> dict:
    """The certificate of an already computed :class:`ReachResult`."""
    if not res.reachable:
        claim = {"rank_cov0": res.rank_cov0, "rank_target_cov": res.rank_target}
        return envelope("unreachable", problem, claim, {}, "exact", dynamics=False)
    if res.level not in ("exact", "rigorous"):
        raise UnsupportedError("these controls could not be enclosed rigorously; reach "
                               "certificates cover linear and Bernoulli attention pieces only")
    from symgauss.kernel.kinds.reach import MAX_PREC, MIN_PREC
    claim = {"T": rational_text(res.T), "epsilon": rational_text(res.epsilon)}
    witness = {"controls": [dict(pc) for pc in res.controls],
               "working_precision_bits": min(max(res.precision_bits, MIN_PREC), MAX_PREC)}
    return envelope("reach", problem, claim, witness, res.level, dynamics=False,
                    notes=f"{res.method} controls; checked in ball arithmetic (linear pieces) "
                          "and exactly (translation and Bernoulli attention pieces)")
