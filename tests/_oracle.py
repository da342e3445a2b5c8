"""An independent oracle for certificate claims: whenever the kernel accepts a (mutated)
certificate, its claim is re-derived here from the problem read by the *untrusted* problem
loader, with numpy/scipy floats and Fraction arithmetic — none of the kernel's code.

Float tolerances are 1e-9 relative: the oracle can only refute claims that are false by more
than float noise, which is what the mutations produce.
"""
from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
from scipy.linalg import expm

from symgauss.model.problem_file import problem_from_dict

TOL = 1e-9


def F(x) -> Fraction:
    return Fraction(str(x))


def fm(M):
    return [[F(x) for x in row] for row in M]


def flt(X):
    return np.array([[float(x) for x in r] for r in X], dtype=float)


def _frac_mat(M):
    return [[Fraction(int(x.p), int(x.q)) for x in M.row(i)] for i in range(M.shape[0])]


def _mul(X, Y):
    return [[sum(X[i][k] * Y[k][j] for k in range(len(Y))) for j in range(len(Y[0]))]
            for i in range(len(X))]


def _add(X, Y):
    return [[a + b for a, b in zip(r, s)] for r, s in zip(X, Y)]


def _T(X):
    return [list(c) for c in zip(*X)]


def lin_float(A, heads, S):
    """svec matrix of the linearisation of Σ ↦ AΣ + ΣAᵀ + Σ_h(VΣBΣ + ΣBᵀΣVᵀ) at S (floats)."""
    d = len(S)
    pairs = [(i, j) for i in range(d) for j in range(i, d)]
    cols = []
    for i, j in pairs:
        E = np.zeros((d, d))
        E[i, j] = E[j, i] = 1
        X = A @ E + E @ A.T
        for V, B in heads:
            X += V @ E @ B @ S + V @ S @ B @ E + E @ B.T @ S @ V.T + S @ B.T @ E @ V.T
        cols.append([X[k, l] for k, l in pairs])
    return np.array(cols).T


def _params(p):
    A = _frac_mat(p.A)
    heads = [(_frac_mat(h.V), _frac_mat(h.B)) for h in p.heads]
    return A, heads


def _residual(A, heads, S):
    M = A
    for V, B in heads:
        M = _add(M, _mul(_mul(V, S), B))
    return _add(_mul(M, S), _T(_mul(M, S)))


def _stable(A, heads, S, c, b=None) -> bool:
    L = lin_float(flt(A), [(flt(V), flt(B)) for V, B in heads], flt(S))
    ok = np.max(np.linalg.eigvals(L).real) <= -float(F(c["rate"])) + TOL
    ok &= np.min(np.linalg.eigvalsh(flt(S))) > 0
    if "mean" in c:
        Mm = A
        for V, B in heads:
            Mm = _add(Mm, _add(V, _mul(_mul(V, S), B)))
        m = [[F(x)] for x in c["mean"]]
        ok &= all(x[0] == 0 for x in _add(_mul(Mm, m), b))
        ok &= np.max(np.linalg.eigvals(flt(Mm)).real) <= -float(F(c["mean_rate"])) + TOL
    if "global_rate" in c:
        R = sum((float(F(V[0][0])) * (flt(B) + flt(B).T) for V, B in heads), np.zeros((len(A),) * 2))
        scalar = all(np.array_equal(flt(V), float(V[0][0]) * np.eye(len(A))) for V, _ in heads)
        ok &= scalar and np.max(np.linalg.eigvalsh(R)) < 0
        ok &= np.min(np.linalg.eigvals(flt(A)).real) >= float(F(c["global_rate"])) - TOL
    return bool(ok)


def _blowup_time(A, R, S0):
    """First t with det(Σ0⁻¹-form M(t)) = 0, in floats, by scanning and bisection; for Σ0 ≻ 0,
    the first zero of λmin P(t) where P = Σ⁻¹ solves the linear P' = −AᵀP − PA − R (solve_ivp),
    which stays well scaled when e^{At} grows (M(t) cancels e^{2‖A‖t}: T* ≈ 31.78 in
    certificates/blowup_late.json)."""
    d = len(A)
    w, U = np.linalg.eigh(S0)
    if w.min() > 1e-9 * max(1, w.max()):
        from scipy.integrate import solve_ivp

        def field(_t, y):
            P = y.reshape(d, d)
            return (-A.T @ P - P @ A - R).ravel()

        def lowest(_t, y):  # λmin(P), not det P: two eigenvalues crossing zero within one
            P = y.reshape(d, d)     # step leave det P's sign unchanged (A = diag(1/6, 0),
            return np.linalg.eigvalsh((P + P.T) / 2).min()     # R = diag(2, 4): 1/4 and 0.46)
        lowest.terminal, lowest.direction = True, -1
        sol = solve_ivp(field, (0, 100), np.linalg.inv(S0).ravel(), method="DOP853",
                        rtol=1e-13, atol=1e-15, events=lowest)
        return float(sol.t_events[0][0]) if len(sol.t_events[0]) else None
    keep = w > 1e-12 * max(1, w.max())
    L = U[:, keep] * np.sqrt(w[keep])              # Σ0 = L Lᵀ

    def lam(t):
        C = np.block([[-A.T, R], [np.zeros((d, d)), A]])
        Fm = expm(C * t)
        E = Fm[d:, d:]
        G = E.T @ Fm[:d, d:]
        M = np.eye(L.shape[1]) - L.T @ G @ L
        return np.linalg.eigvalsh((M + M.T) / 2).min()
    t, step = 0.0, 1e-3
    while t < 50:
        if lam(t + step) <= 0:
            lo, hi = t, t + step
            for _ in range(80):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if lam(mid) > 0 else (lo, mid)
            return hi
        t, step = t + step, min(step * 1.2, 0.05)
    return None


def _reach_distance(cert):
    from symgauss.kernel.numbers import parse_rational  # a parser, not a checker
    p = problem_from_dict(copy.deepcopy(cert["problem"]))
    S, m = flt(_frac_mat(p.cov0)), flt(_frac_mat(p.mean0))[:, 0]
    d = p.d
    for pc in cert["witness"]["controls"]:
        tau = float(parse_rational(pc["duration"], "t"))
        z = np.zeros((d, d))
        A = flt(fm(pc["A"])) if "A" in pc else z
        b = np.array([float(F(x)) for x in pc["b"]]) if "b" in pc else np.zeros(d)
        heads = pc.get("heads", [pc])
        hs = [(flt(fm(h["V"])) if "V" in h else z, flt(fm(h["B"])) if "B" in h else z)
              for h in heads]
        active = [(V, B) for V, B in hs if V.any() and B.any()]
        if not active:
            N = A + sum((V for V, _ in hs), z)
            E = expm(A * tau)
            S = E @ S @ E.T
            blk = np.zeros((d + 1, d + 1))
            blk[:d, :d], blk[:d, d] = N * tau, b * tau
            Fm = expm(blk)
            m = Fm[:d, :d] @ m + Fm[:d, d]
        else:   # Bernoulli: A = 0, b = 0, V = vI, zero mean
            R = sum((V[0, 0] * (B + B.T) for V, B in active), z)
            P = np.linalg.inv(S) - tau * R
            if np.linalg.eigvalsh(P).min() <= 0:
                return np.inf
            S = np.linalg.inv(P)
    tm = flt(_frac_mat(p.target.mean))[:, 0]
    tc = flt(_frac_mat(p.target.cov))
    return max(np.linalg.norm(m - tm), np.linalg.norm(S - tc))


def claim_holds(cert) -> bool:
    """Re-derive the claim of an accepted certificate independently."""
    kind, c, w = cert["kind"], cert["claim"], cert["witness"]
    p = problem_from_dict(copy.deepcopy(cert["problem"]))
    if kind == "unreachable":
        import sympy as sp
        return sp.Matrix(_frac_mat(p.cov0)).rank() != sp.Matrix(_frac_mat(p.target.cov)).rank()
    if kind == "reach":
        return _reach_distance(cert) <= float(F(c["epsilon"])) + TOL
    if kind == "common-lyapunov":
        P = flt(fm(w["P"]))
        sets = [p.params] if p.is_time_invariant else [pc.params for pc in p.controls]
        ok = np.linalg.eigvalsh(P).min() > 0
        for ps in sets:
            A = flt(_frac_mat(ps.A))
            ok &= np.linalg.eigvalsh(-(A.T @ P + P @ A) - 2 * float(F(c["rate"])) * P).min() \
                > -TOL
        return bool(ok)
    A, heads = _params(p.params)
    if kind == "robust-global":
        R = p.params.quadratic_R()
        if R is None or np.max(np.linalg.eigvalsh(flt(_frac_mat(R)))) >= 0:
            return False
        g, rng = float(F(c["global_rate"])), np.random.default_rng(0)
        box = [(int(str(e["entry"][1])), int(str(e["entry"][2])), float(F(e["from"])),
                float(F(e["to"]))) for e in c["box"]]
        for k in range(2 ** len(box) + 20):
            Av = flt(A)
            for bit, (i, j, lo, hi) in enumerate(box):
                Av[i, j] = (hi if k >> bit & 1 else lo) if k < 2 ** len(box) else \
                    rng.uniform(lo, hi)
            if np.min(np.linalg.eigvals(Av).real) < g - TOL:
                return False
        return True
    if kind == "blowup":
        R = p.params.quadratic_R()
        if R is None:
            return False
        T = _blowup_time(flt(A), flt(_frac_mat(R)), flt(_frac_mat(p.cov0)))
        lo, hi = float(F(c["t_lower"])), float(F(c["t_upper"]))
        return T is not None and lo - 1e-7 * (1 + T) < T <= hi + 1e-7 * (1 + T)
    if kind in ("limit", "limit-closed-form"):
        return _limit_holds(A, heads, p, c)
    if kind in ("limit-riccati", "bounded-linear", "bounded-turning", "decay-cone",
                "decay-cone-steps", "decay-centre"):
        return _riccati_or_bounded_holds(A, heads, p, c, kind)
    if kind == "growth":
        return _growth_holds(A, heads, p, c)
    if kind in ("growth-schur", "growth-quasi"):
        return _growth_holds(A, heads, p, c, axis=int(str(c["axis"])))
    if kind in ("growth-axis", "growth-axis-row"):
        return _growth_axis_holds(A, heads, p, c)
    if kind == "growth-riccati":
        return _riccati_growth_holds(A, heads, p, c)
    if kind in ("linear-constant", "linear-decay", "linear-growth"):
        return _linear_holds(A, heads, p, c, kind)
    if kind in ("blowup-trajectory", "blowup-infinity", "blowup-slab", "blowup-turning"):
        T = _float_blowup_time(A, heads, p)
        lo, hi = float(F(c["t_lower"])), float(F(c["t_upper"]))
        return T is not None and lo - 1e-7 * (1 + T) < T <= hi + 1e-7 * (1 + T)
    if kind == "stable-equilibrium-in-range":
        U = fm(c["basis"])
        S = _mul(_mul(U, fm(c["reduced"]["cov"])), _T(U))
        if any(x != 0 for r in _residual(A, heads, S) for x in r):
            return False
        Uf = flt(U)
        Pi = np.linalg.pinv(Uf)
        for M in [flt(A)] + [flt(V) for V, _ in heads]:      # invariance of range(U)
            if np.abs(Uf @ (Pi @ M @ Uf) - M @ Uf).max() > TOL:
                return False
        Ar = fm(Pi @ flt(A) @ Uf)  # float reduction suffices for the spectral check below
        red = [(Pi @ flt(V) @ Uf, Uf.T @ flt(B) @ Uf) for V, B in heads]
        L = lin_float(flt(Ar), red, flt(fm(c["reduced"]["cov"])))
        return bool(np.max(np.linalg.eigvals(L).real) <= -float(F(c["reduced"]["rate"])) + TOL)
    S = fm(c["cov"] if "cov" in c else c["cov_center"])
    Fr = _residual(A, heads, S)
    if "cov" in c and any(x != 0 for r in Fr for x in r):
        return False
    if "cov_center" in c and np.max(np.abs(flt(Fr))) > float(F(c["cov_radius"])) * 1e3 + 1e-25:
        return False
    if kind == "unstable-equilibrium":
        L = lin_float(flt(A), [(flt(V), flt(B)) for V, B in heads], flt(S))
        return np.max(np.linalg.eigvals(L).real) >= float(F(c["growth"])) - TOL and \
            np.min(np.linalg.eigvalsh(flt(S))) > 0
    b = [[Fraction(int(x.p), int(x.q))] for x in p.b]
    return _stable(A, heads, S, c, b)


def _svec_field(A, heads, d):
    iu = np.triu_indices(d)

    def full(y):
        S = np.zeros((d, d))
        S[iu] = y
        return S + np.triu(S, 1).T

    def f(_t, y):
        S = full(y)
        M = A.copy()
        for V, B in heads:
            M = M + V @ S @ B
        X = M @ S
        return (X + X.T)[iu]
    return f, full, iu


def _limit_holds(A, heads, p, c) -> bool:
    """Integrate (LSODA, t ≤ 2000: some limits are approached at rates near 0.02) and compare
    the limit, its kind and the rate with the claim."""
    from scipy.integrate import solve_ivp
    A, heads, d = flt(A), [(flt(V), flt(B)) for V, B in heads], p.d
    f, full, iu = _svec_field(A, heads, d)
    sol = solve_ivp(f, (0, 2000), flt(_frac_mat(p.cov0))[iu], method="LSODA", rtol=1e-11,
                    atol=1e-14)
    if not sol.success:
        return False
    S = full(sol.y[:, -1])
    if np.linalg.norm(f(0, S[iu])) > 1e-7:
        return False
    C, r = flt(fm(c["center"])), float(F(c["radius"]))
    if np.max(np.abs(S - C)) > r + 1e-6:
        return False
    lam = np.linalg.eigvalsh(S)
    if c["regime"] == "stable-equilibrium" and lam[0] <= 1e-9:
        return False
    if c["regime"] == "singular-limit" and lam[0] > 1e-5 * max(1.0, lam[-1]):
        return False
    if c["regime"] == "decay" and np.max(np.abs(S)) > 1e-8:
        return False
    L = lin_float(A, heads, S)
    return bool(np.max(np.linalg.eigvals(L).real) <= -float(F(c["rate"])) + 1e-6)


def _growth_holds(A, heads, p, c, axis=None) -> bool:
    """LSODA from cov0: no blow-up, and ln tr Σ(t) − ln tr Σ(t0) ∈ [a, b]·(t − t0) for t0 ≤ t ≤
    the time tr Σ passes 1e9 (t ≤ t0 + 40); with ``axis`` j, Σ_jj instead of tr Σ."""
    from scipy.integrate import solve_ivp
    A, heads, d = flt(A), [(flt(V), flt(B)) for V, B in heads], p.d
    f, full, iu = _svec_field(A, heads, d)
    t0, a, b = (float(F(c[k])) for k in ("t_enter", "rate_lower", "rate_upper"))

    def big(_t, y):
        return np.trace(full(y)) - 1e9
    big.terminal = True
    sol = solve_ivp(f, (0, t0 + 40), flt(_frac_mat(p.cov0))[iu], method="LSODA", rtol=1e-11,
                    atol=1e-14, events=big, dense_output=True)
    end = float(sol.t[-1])
    if end <= t0:
        return False
    def size(t):
        S = full(sol.sol(t))
        return np.trace(S) if axis is None else S[axis, axis]
    s0 = np.log(size(t0))
    for t in np.linspace(t0, end, 40)[1:]:
        grow = np.log(size(t)) - s0
        if not a * (t - t0) - 1e-6 * (1 + grow) <= grow <= b * (t - t0) + 1e-6 * (1 + grow):
            return False
    return True


def _riccati_growth_holds(A, heads, p, c) -> bool:
    """LSODA from cov0 to t = 20: c·e^{rt} ≤ tr Σ(t) ≤ tr Σ0·e^{rt} at 60 times (relative 1e-7)."""
    from scipy.integrate import solve_ivp
    A, heads, d = flt(A), [(flt(V), flt(B)) for V, B in heads], p.d
    f, full, iu = _svec_field(A, heads, d)
    r, low = float(F(c["rate"])), float(F(c["lower"]))
    S0 = flt(_frac_mat(p.cov0))
    sol = solve_ivp(f, (0, 20), S0[iu], method="LSODA", rtol=1e-12, atol=1e-14,
                    dense_output=True)
    if sol.status != 0:
        return False
    for t in np.linspace(0, 20, 60):
        tr = np.trace(full(sol.sol(t))) * np.exp(-r * t)
        if not low * (1 - 1e-7) <= tr <= np.trace(S0) * (1 + 1e-7):
            return False
    return True


def _riccati_or_bounded_holds(A, heads, p, c, kind) -> bool:
    """LSODA from cov0 to t = 300: Σ(t) converges to claim.cov (limit-riccati, whose Σ* must
    also be an exact equilibrium), keeps tr Σ(t) ≤ claim.bound (bounded-linear) or tr Σ(t) ≤
    bound/(1 + rate·(t − t_enter)) (decay-cone, -steps, decay-centre), or also tr Σ(t) ≥ claim.floor from
    t_enter on (bounded-turning)."""
    from scipy.integrate import solve_ivp
    Af, hf, d = flt(A), [(flt(V), flt(B)) for V, B in heads], p.d
    f, full, iu = _svec_field(Af, hf, d)
    sol = solve_ivp(f, (0, 300), flt(_frac_mat(p.cov0))[iu], method="LSODA", rtol=1e-10,
                    atol=1e-13, t_eval=np.linspace(0, 300, 3001))
    if sol.status != 0:
        return False
    if kind == "bounded-linear":
        return max(np.trace(full(y)) for y in sol.y.T) <= float(F(c["bound"]))
    if kind == "bounded-turning":
        t0, tr = float(F(c["t_enter"])), [np.trace(full(y)) for y in sol.y.T]
        return max(tr) <= float(F(c["bound"])) and min(
            x for t, x in zip(sol.t, tr) if t >= t0) >= float(F(c["floor"]))
    if kind in ("decay-cone", "decay-cone-steps", "decay-centre"):
        b, k, t0 = float(F(c["bound"])), float(F(c["rate"])), float(F(c.get("t_enter", 0)))
        return all(np.trace(full(y)) <= b / (1 + k * (t - t0)) for t, y in zip(sol.t, sol.y.T)
                   if t >= t0)
    S = fm(c["cov"])
    if any(x != 0 for r in _residual(A, heads, S) for x in r):
        return False
    return bool(np.abs(full(sol.y[:, -1]) - flt(S)).max() < 1e-6 * (1 + np.abs(flt(S)).max()))


def _float_blowup_time(A, heads, p):
    """T* from LSODA: the time ‖Σ‖ passes 1e8, plus 1/(relative speed)."""
    from scipy.integrate import solve_ivp
    A, heads, d = flt(A), [(flt(V), flt(B)) for V, B in heads], p.d
    f, full, iu = _svec_field(A, heads, d)

    def big(_t, y):
        return np.max(np.abs(y)) - 1e8
    big.terminal = True
    sol = solve_ivp(f, (0, 100), flt(_frac_mat(p.cov0))[iu], method="LSODA", rtol=1e-11,
                    atol=1e-14, events=big)
    if sol.status != 1:
        return None
    y = sol.y[:, -1]
    return float(sol.t[-1]) + np.linalg.norm(y) / np.linalg.norm(f(0, y))


def _growth_axis_holds(A, heads, p, c) -> bool:
    """The structure (A e_k = a e_k, a > 0, B_h e_k = B_hᵀe_k = 0, rate = 2a) read off the
    problem, then LSODA from cov0 to T + 8: m·e^{r(t−T)} ≤ Σ_kk(t) and tr Σ(t) ≤ M·e^{r(t−T)}."""
    from scipy.integrate import solve_ivp
    k, r = int(str(c["axis"])), float(F(c["rate"]))
    Af, hf, d = flt(A), [(flt(V), flt(B)) for V, B in heads], p.d
    if any(Af[i, k] != 0 for i in range(d) if i != k) or Af[k, k] <= 0 or r != 2 * Af[k, k]:
        return False
    if any(np.any(B[k, :] != 0) or np.any(B[:, k] != 0) for _, B in hf):
        return False
    f, full, iu = _svec_field(Af, hf, d)
    T, m, M = (float(F(c[x])) for x in ("t_enter", "lower", "upper"))
    sol = solve_ivp(f, (0, T + 8), flt(_frac_mat(p.cov0))[iu], method="LSODA", rtol=1e-11,
                    atol=1e-14, dense_output=True)
    if not sol.success or sol.t[-1] < T + 8:
        return False
    for t in np.linspace(T, T + 8, 33):
        S, e = full(sol.sol(t)), np.exp(r * (t - T))
        if not (S[k, k] >= m * e * (1 - 1e-6) and np.trace(S) <= M * e * (1 + 1e-6)):
            return False
    return True


def _linear_holds(A, heads, p, c, kind) -> bool:
    """No quadratic term (Q(S) = 0, in Fractions, at 12 random integer symmetric S: a nonzero
    quadratic map vanishes on all of them with probability 0), then A's eigenvalues (numpy):
    A = 0; max Re λ < −rate/2 (decay); max Re λ ≥ rate/2 and λmin(Σ0) ≥ lower (growth)."""
    rng = np.random.default_rng(1)
    d = len(A)
    for _ in range(12):
        M = rng.integers(-9, 10, (d, d))
        S = [[Fraction(int(M[i, j] + M[j, i])) for j in range(d)] for i in range(d)]
        Q = [[Fraction(0)] * d for _ in range(d)]
        for V, B in heads:
            X = _mul(_mul(_mul(V, S), B), S)
            Q = _add(Q, _add(X, _T(X)))
        if any(x != 0 for r in Q for x in r):
            return False
    if kind == "linear-constant":
        return all(x == 0 for r in A for x in r)
    top = float(np.max(np.linalg.eigvals(flt(A)).real))
    rate = float(F(c["rate"]))
    if kind == "linear-decay":
        return top < -rate / 2 + TOL
    low = float(np.min(np.linalg.eigvalsh(flt(_frac_mat(p.cov0)))))
    return top >= rate / 2 - TOL and low >= float(F(c["lower"])) - TOL
