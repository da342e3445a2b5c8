"""T* for V_h = v_h I: the first root of det(P0 − G(t)), to D digits, and a certified enclosure.

With R = Σ_h v_h(B_h + B_hᵀ), Σ0 = L_r D_r L_rᵀ (exact LDLᵀ, rank r) and

    M(t) = D_r⁻¹ − L_rᵀ G(t) L_r,   G(t) = ∫_0^t e^{Aᵀs} R e^{As} ds   (one Van Loan exponential),

Σ(t) = e^{At} L_r M(t)⁻¹ L_rᵀ e^{Aᵀt} exists exactly while M(t) ≻ 0, and T* is the first t
where M(t) becomes singular (for Σ0 ≻ 0 this is the first root of det(P0 − G(t))). The search
(untrusted) locates it in floats, then refines it by Newton's method on the smallest
eigenvalue λ(t) of M(t) (λ' = −qᵀ L_rᵀ e^{Aᵀt} R e^{At} L_r q) at the requested precision.
The enclosure [T⁻, T⁺] is then proved by :func:`symgauss.kernel.kinds.blowup.verify_enclosure`
(the trusted checker's own code, ball arithmetic only).

Rank-deficient Σ0 needs no special case: the formula works on range Σ0 (square-root form).

>>> from symgauss import Problem
>>> data = riccati_data(Problem(cov0=[[1, 0], [0, 1]], V=[[1, 0], [0, 1]], B=[[1, 0], [0, 2]]))
>>> root = first_root(data, digits=30)
>>> mpmath.nstr(root.t_star, 20)
'0.25'
>>> enc = certify_root(data, root, digits=30)
>>> enc.lower < Fraction(1, 4) < enc.upper, float(enc.upper - enc.lower) <= 1e-30
(True, True)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import mpmath
import numpy as np

from symgauss.kernel.equations import riccati_R
from symgauss.kernel.exact import is_psd, ldl_positive_definite
from symgauss.kernel.kinds.blowup import ldl_psd, m_matrix, van_loan, verify_enclosure
from symgauss.kernel.read import ExactParams


@dataclass(frozen=True)
class RiccatiData:
    """The exact data of the Riccati form (flint fmpq matrices) plus float copies."""
    A: flint.fmpq_mat
    R: flint.fmpq_mat
    Lr: flint.fmpq_mat | None     # None when Σ0 = 0
    Dinv: flint.fmpq_mat | None
    monotone: bool                 # R ⪰ 0 (exact): M(t) is Loewner-decreasing
    Af: np.ndarray
    Rf: np.ndarray
    Lf: np.ndarray | None
    Dinvf: np.ndarray | None

    @property
    def norm_A(self) -> float:
        return float(np.linalg.norm(self.Af, 2))

    @property
    def rank(self) -> int:
        return 0 if self.Lr is None else self.Lr.ncols()


@dataclass(frozen=True)
class Root:
    t_star: mpmath.mpf            # high-precision value (at prec bits)
    prec: int
    q: tuple                       # unit null vector of M(T*) (mpf), r coordinates
    slope: mpmath.mpf              # λ'(T*) < 0
    newton_steps: int
    last_step: mpmath.mpf          # size of the last Newton correction


@dataclass(frozen=True)
class Enclosure:
    lower: Fraction
    upper: Fraction
    x: tuple                       # rational witness: xᵀ M(upper) x < 0
    partition: tuple | None        # rationals 0 … lower (only when R is not PSD)
    prec: int
    proof: str


def fmpq_matrix(M) -> flint.fmpq_mat:
    """A rational SymPy matrix as a flint fmpq_mat (exact)."""
    return flint.fmpq_mat(M.shape[0], M.shape[1],
                          [flint.fmpq(int(x.p), int(x.q)) for x in M])


def _float(M) -> np.ndarray:
    return np.array([[float(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())])


def riccati_data(problem) -> RiccatiData | None:
    """Exact Riccati data when every V_h = v_h I (else None)."""
    p = problem.params
    ep = ExactParams(fmpq_matrix(p.A), tuple((fmpq_matrix(h.V), fmpq_matrix(h.B)) for h in p.heads),
                     fmpq_matrix(p.b))
    R = riccati_R(ep)
    if R is None:
        return None
    Lr, Dinv = ldl_psd(fmpq_matrix(problem.cov0))
    return RiccatiData(ep.A, R, Lr, Dinv, is_psd(R), _float(ep.A), _float(R),
                       None if Lr is None else _float(Lr), None if Dinv is None else _float(Dinv))


# --- float location ------------------------------------------------------------------------
FLOAT_MAX_PREC = 8192


def _m_float(data: RiccatiData, t: float):
    """M(t) in floats with about 12 correct digits (relative to ‖M(t)‖), or None.

    Van Loan's block exponential cancels like e^{2‖A‖t} (e^{−Aᵀt} grows while G(t) does not),
    so 64-bit midpoints are garbage for large t when A has eigenvalues of both signs or is
    Hurwitz: the precision starts at 64 + 2.9‖A‖t bits and doubles until every radius of
    the arb result is below 10^-12·max|M_ij| (None past FLOAT_MAX_PREC bits).
    """
    prec = 64 + int(2.9 * data.norm_A * t)
    while prec <= FLOAT_MAX_PREC:
        with flint.ctx.workprec(prec):
            M = m_matrix(data.A, data.R, data.Lr, data.Dinv, flint.arb(t))
            mids = np.array([[float(M[i, j].mid()) for j in range(M.ncols())]
                             for i in range(M.nrows())])
            rad = max(float(x.rad()) for x in M.entries())
        if np.all(np.isfinite(mids)) and rad <= 1e-12 * float(np.max(np.abs(mids))):
            return mids
        prec *= 2
    return None


def _lam_min(data, t) -> float:
    """λmin(M(t)) in floats; NaN when M(t) could not be evaluated accurately."""
    M = _m_float(data, t)
    if M is None:
        return math.nan
    return float(np.linalg.eigvalsh(M)[0])


def locate_root(data: RiccatiData, horizon: float, samples: int = 400):
    """A float bracket (lo, hi) of the first t in (0, horizon] where M(t) stops being PD:
    λmin(M(lo)) > 0 ≥ λmin(M(hi)), hi − lo tiny; or None (none found, or M(t) could not be
    evaluated accurately)."""
    if data.Lr is None:
        return None
    scale = np.linalg.norm(data.Rf, 2) * np.linalg.norm(np.linalg.inv(data.Dinvf), 2) + 1e-300
    if data.monotone:
        lo, hi = 0.0, min(horizon, 0.25 / scale)
        while True:
            lam = _lam_min(data, hi)
            if math.isnan(lam):
                return None
            if lam <= 0:
                break
            lo, hi = hi, 2 * hi
            if lo >= horizon:
                return None
            hi = min(hi, horizon)
    else:  # scan (the certificate re-proves definiteness on all of [0, T⁻])
        grid = np.linspace(0.0, min(horizon, 64 / scale), samples + 1)
        grid = np.unique(np.concatenate([grid, np.geomspace(1e-6 / scale, horizon, samples)]))
        prev = 0.0
        for t in grid[1:]:
            lam = _lam_min(data, float(t))
            if math.isnan(lam):
                return None
            if lam <= 0:
                lo, hi = prev, float(t)
                break
            prev = float(t)
        else:
            return None
    while hi - lo > 1e-10 * hi:
        mid = 0.5 * (lo + hi)
        lam = _lam_min(data, mid)
        if math.isnan(lam):
            return None
        if lam > 0:
            lo = mid
        else:
            hi = mid
    return lo, hi


# --- high-precision Newton ---------------------------------------------------------------------
def _arb_to_mp(M):
    return mpmath.matrix([[_arb_mpf(M[i, j]) for j in range(M.ncols())]
                          for i in range(M.nrows())])


def _arb_mpf(x) -> mpmath.mpf:
    m, e = x.mid().man_exp()
    return mpmath.mpf((int(m), int(e))) if m != 0 else mpmath.mpf(0)


def _lam_q(data, t_mp, prec):
    """(λmin, unit eigenvector q, λ') of M(t) at ``prec`` bits (midpoints)."""
    t = flint.arb(_mpf_fmpq(t_mp))
    G, E = van_loan(data.A, data.R, t)
    L = flint.arb_mat(data.Lr)
    M = flint.arb_mat(data.Dinv) - L.transpose() * G * L
    EL = E * L
    Md = -(EL.transpose() * flint.arb_mat(data.R) * EL)
    Mm, Mdm = _arb_to_mp(M), _arb_to_mp(Md)
    Mm = (Mm + Mm.T) / 2
    ev, Q = mpmath.eigsy(Mm)
    k = min(range(len(ev)), key=lambda i: ev[i])
    q = Q[:, k]
    slope = (q.T * Mdm * q)[0, 0]
    return ev[k], q, slope, E


def _mpf_fmpq(x) -> flint.fmpq:
    f = mpf_fraction(x)
    return flint.fmpq(f.numerator, f.denominator)


def _widen(data, lo, hi, prec):
    """The float bracket made valid at ``prec`` bits: λmin(M(lo)) > 0 ≥ λmin(M(hi))."""
    w = hi - lo
    for _ in range(40):
        if lo <= 0 or _lam_q(data, lo, prec)[0] > 0:
            break
        lo, w = max(lo - w, mpmath.mpf(0)), 2 * w
    w = hi - lo
    for _ in range(40):
        if _lam_q(data, hi, prec)[0] <= 0:
            break
        hi, w = hi + w, 2 * w
    return lo, hi


def first_root(data: RiccatiData, digits: int = 30, horizon: float = 1e4,
               t_float: float | None = None) -> Root | None:
    """T* to ``digits`` significant digits (high-precision Newton from a float estimate).

    Newton's method on λmin(M(t)) is safeguarded: with a float bracket from
    :func:`locate_root` every iterate that leaves the bracket is replaced by bisection (the
    bracket is updated by the sign of λmin at the working precision); with a given
    ``t_float`` (a closed form's value) a step longer than |t|/2 is a failure (None).
    """
    bracket = None
    if t_float is None:
        bracket = locate_root(data, horizon)
        if bracket is None:
            return None
        t_float = 0.5 * (bracket[0] + bracket[1])
    # G(t) grows like e^{2‖A‖t} and M(t) = D⁻¹ − LᵀGL cancels that many bits: count them at the
    # bracket's far end (seed-601 vI-0-d2: T* ≈ 31.78, midpoint 13, so 20 digits, not 32)
    far = t_float if bracket is None else max(t_float, bracket[1])
    prec = int((digits + 20) * 3.33) + 32 + int(3 * data.norm_A * far)
    with flint.ctx.workprec(prec), mpmath.workprec(prec):
        t = mpmath.mpf(t_float)
        lo, hi = None, None
        if bracket is not None:
            lo, hi = _widen(data, mpmath.mpf(bracket[0]), mpmath.mpf(bracket[1]), prec)
        tol = mpmath.mpf(10) ** (-(digits + 6)) * max(1, abs(t))
        step, n = mpmath.mpf(1), 0
        for n in range(1, 80):
            lam, q, slope, _ = _lam_q(data, t, prec)
            if lo is not None:
                if lam > 0:
                    lo = max(lo, t)
                else:
                    hi = min(hi, t)
            if slope >= 0 and lo is None:
                return None
            new = t - lam / slope if slope < 0 else None
            if lo is None:
                if abs(new - t) > abs(t) / 2:
                    return None
            elif new is None or not lo <= new <= hi:
                new = (lo + hi) / 2
            step, t = new - t, new
            if abs(step) < tol:
                break
        lam, q, slope, _ = _lam_q(data, t, prec)
        if slope >= 0:
            return None
        return Root(+t, prec, tuple(q[i] for i in range(q.rows)), slope, n, abs(step))


# --- certification ------------------------------------------------------------------------------
def _round(x, k: int) -> Fraction:
    """x (an mpf) rounded to k decimals, exactly (x's own precision is kept)."""
    return Fraction(round(mpf_fraction(x) * 10 ** k), 10 ** k)


def mpf_fraction(x) -> Fraction:
    """The exact value of an mpf (no rounding to the ambient precision)."""
    sign, man, exp, _ = x._mpf_ if isinstance(x, mpmath.mpf) else mpmath.mpf(x)._mpf_
    if not man:
        return Fraction(0)
    v = Fraction(int(man)) * Fraction(2) ** int(exp)
    return -v if sign else v


def _partition(data, lower: Fraction, prec: int) -> tuple | None:
    """Points 0 = t0 < … < tn = lower, n within the kernel's limit at ``prec``, with M proved
    positive definite on every [t_i, t_{i+1}] by the kernel's own test (its second-order or
    Loewner bound, :func:`~symgauss.kernel.kinds.blowup.proved_on`; bisection)."""
    from symgauss.kernel.kinds.blowup import MAX_PARTITION, gershgorin_shift, pieces_cost, proved_on
    c, most = gershgorin_shift(data.R), MAX_PARTITION // pieces_cost(prec)
    done, todo, gi = [], [(Fraction(0), lower)], {}     # gi: G_I at the points seen
    with flint.ctx.workprec(prec):
        while todo:
            a, b = todo.pop()
            if len(done) + len(todo) >= most:     # the kernel reads no more
                return None
            ok, gi[b] = proved_on(data.A, data.R, data.Lr, data.Dinv, c,
                                  flint.fmpq(a.numerator, a.denominator),
                                  flint.fmpq(b.numerator, b.denominator), gi.get(a))
            if ok:
                done.append(a)
                continue
            if b - a < Fraction(1, 10 ** 200):
                return None
            m = a + (b - a) / 2
            todo += [(m, b), (a, m)]  # a-side first (stack)
    pts = sorted(set(done)) + [lower]
    return tuple(pts)


def certify_root(data: RiccatiData, root: Root, digits: int = 30) -> Enclosure | None:
    """Prove T* ∈ (T⁻, T⁺] with T⁺ − T⁻ ≤ 2·10^-(max(digits, 30) + 2) (None if it fails)."""
    D = max(digits, 30)
    k = D + 6
    mid = _round(root.t_star, k)
    h = Fraction(1, 10 ** (D + 2))
    lower, upper = mid - h, mid + h
    if lower <= 0:
        return None
    with mpmath.workprec(root.prec):
        qn = max(abs(c) for c in root.q)
        xs = [_round(c / qn, D + 12) for c in root.q]
    x = tuple(flint.fmpq(v.numerator, v.denominator) for v in xs)
    fl, fu = (flint.fmpq(lower.numerator, lower.denominator),
              flint.fmpq(upper.numerator, upper.denominator))
    prec = root.prec + 32
    for _ in range(3):
        partition = None
        if not data.monotone:
            partition = _partition(data, lower, prec)
            if partition is None:
                prec *= 2
                continue
            partition = tuple(flint.fmpq(p.numerator, p.denominator) for p in partition)
        ok, how = verify_enclosure(data.A, data.R, data.Lr, data.Dinv, fl, fu, list(x),
                                   None if partition is None else list(partition), prec)
        if ok:
            return Enclosure(lower, upper, tuple(Fraction(int(v.p), int(v.q)) for v in x),
                             None if partition is None else
                             tuple(Fraction(int(v.p), int(v.q)) for v in partition), prec, how)
        prec *= 2
    return None


def predicted_residue(data: RiccatiData, root: Root):
    """tr C for Σ(t) ≈ C/(T* − t): C = w wᵀ/(−λ'(T*)), w = e^{AT*} L_r q (mpf)."""
    with flint.ctx.workprec(root.prec), mpmath.workprec(root.prec):
        _, q, slope, E = _lam_q(data, root.t_star, root.prec)
        w = _arb_to_mp(E * flint.arb_mat(data.Lr)) * q
        return sum(w[i] ** 2 for i in range(w.rows)) / (-slope)


# --- exact Lyapunov structure -------------------------------------------------------------------
def lyapunov(A, Q):
    """X with AᵀX + XA = −Q exactly (fmpq), or None if the operator is singular."""
    d = A.nrows()
    n = d * d
    K = flint.fmpq_mat(n, n)
    rhs = flint.fmpq_mat(n, 1)
    for i in range(d):
        for j in range(d):
            row = i * d + j
            rhs[row, 0] = -Q[i, j]
            for k in range(d):
                K[row, k * d + j] += A[k, i]      # (AᵀX)_ij = Σ_k A_ki X_kj
                K[row, i * d + k] += A[k, j]      # (XA)_ij = Σ_k X_ik A_kj
    try:
        x = K.solve(rhs)
    except (ZeroDivisionError, ValueError):
        return None
    return flint.fmpq_mat(d, d, [x[k, 0] for k in range(n)])


def hurwitz(A) -> bool:
    """A Hurwitz ⇔ AᵀX + XA = −I has a solution X ≻ 0 (Lyapunov), decided exactly."""
    d = A.nrows()
    I = flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    X = lyapunov(A, I)
    return X is not None and ldl_positive_definite((X + X.transpose()) / 2)[0]
