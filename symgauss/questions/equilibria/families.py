"""Continua of equilibria, described exactly where the method allows, never dropped silently.

- **Every V_h = v_h I, any d** (:func:`affine_family`): Σ ≻ 0 is an equilibrium ⇔ P = Σ⁻¹ ≻ 0
  solves AᵀP + PA = −R; when that operator is singular the solutions are P0 + span{K_k}
  (:func:`symgauss.questions.equilibria.lyapunov.lyapunov_solution_set`), so the positive-definite
  equilibria are exactly {P⁻¹ : P ∈ P0 + span{K_k}, P ≻ 0}. With one parameter the set of t
  with P0 + tK ≻ 0 is computed exactly (Sylvester's minors, real roots isolated, signs at
  rational points between them).
- **d = 2, general V** (:func:`components_d2`): a factorising Gröbner basis splits the solution
  set into components; zero-dimensional ones are solved as in
  :mod:`symgauss.questions.equilibria.groebner_d2`, a curve or surface is described by its exact
  equations and, when one coordinate solves rationally for the others, parametrised, with the
  positive-definite parameter range found exactly in one parameter.
- **Any d, Newton** (:func:`numerical_family`): a root whose Jacobian is numerically singular and
  from which Newton, started on either side along the null direction, lands on other roots —
  evidence of a continuum (level ``float``), reported with that point.
"""
from __future__ import annotations

from fractions import Fraction

import flint
import sympy as sp

from symgauss.kernel.exact import ldl_positive_definite
from symgauss.kernel.read import mat_text
from symgauss.questions.equilibria.result import Family


# --- one real parameter: where do rational functions stay positive -------------------------------
def _root_text(q: sp.Poly, k: int, lo, hi) -> str:
    """The k-th real root of q (isolated in [lo, hi]) as exact text."""
    if lo == hi:
        return str(sp.Rational(lo))
    f = next(sp.Poly(f, q.gen) for f, _ in sp.factor_list(q.as_expr())[1]
             if sp.Poly(f, q.gen).count_roots(lo, hi) > 0)
    return (f"the root of {f.as_expr()} in [{sp.Rational(lo)}, {sp.Rational(hi)}] "
            f"(≈ {sp.N(sp.CRootOf(q.as_expr(), k), 12)})")


def positive_intervals(conds, t):
    """The open intervals of t on which every rational function in ``conds`` is defined and
    positive, exactly: a list of (lo text, hi text, rational point inside)."""
    crit = sp.Integer(1)
    for c in conds:
        num, den = sp.fraction(sp.together(c))
        crit *= sp.expand(num) * sp.expand(den)
    q = sp.Poly(crit, t)
    if q.is_zero:
        return []
    q = sp.Poly(sp.sqf_part(q.as_expr()), t) if q.degree() > 0 else q
    ivs = [tuple(sp.Rational(x) for x in iv) for iv, _ in q.intervals()] if q.degree() > 0 else []
    ivs = [q.refine_root(lo, hi, eps=sp.Rational(1, 10 ** 6)) if lo != hi else (lo, hi)
           for lo, hi in ivs]
    ivs = [tuple(sp.Rational(x) for x in iv) for iv in ivs]
    cuts = [(-sp.oo, -sp.oo)] + ivs + [(sp.oo, sp.oo)]
    out = []
    for k, ((a_lo, a_hi), (b_lo, b_hi)) in enumerate(zip(cuts, cuts[1:])):
        if a_hi == -sp.oo:
            x = (b_lo - 1) if b_lo != sp.oo else sp.Integer(0)
        elif b_lo == sp.oo:
            x = a_hi + 1
        else:
            x = (a_hi + b_lo) / 2
        vals = [sp.together(c).subs(t, x) for c in conds]
        if all(v.is_finite and v > 0 for v in vals):
            lo = "-oo" if a_hi == -sp.oo else _root_text(q, k - 1, a_lo, a_hi)
            hi = "oo" if b_lo == sp.oo else _root_text(q, k, b_lo, b_hi)
            out.append((lo, hi, x))
    return out


def _where(t, intervals) -> str:
    parts = []
    for lo, hi, _ in intervals:
        if lo == "-oo" and hi == "oo":
            parts.append(f"every real {t}")
        elif lo == "-oo":
            parts.append(f"{t} < {hi}")
        elif hi == "oo":
            parts.append(f"{t} > {lo}")
        else:
            parts.append(f"{lo} < {t} < {hi}")
    return " or ".join(parts)


# --- every V_h = v_h I ------------------------------------------------------------------------------
def _sym_expr(M: flint.fmpq_mat):
    return sp.Matrix(M.nrows(), M.ncols(), lambda i, j: sp.Rational(int(M[i, j].p), int(M[i, j].q)))


def _pd_point(P0, Ks):
    """A rational P ≻ 0 in P0 + span{K_k} by a few exact trials (least squares towards cI)."""
    import numpy as np
    from symgauss.model.linearise import to_float_matrix
    n = P0.nrows()
    Kf = np.array([to_float_matrix(K).ravel() for K in Ks]).T
    for c in (1.0, 10.0, 0.1, 100.0):
        t = np.linalg.lstsq(Kf, c * np.eye(n).ravel() - to_float_matrix(P0).ravel(), rcond=None)[0]
        P = P0 + sum((K * flint.fmpq(Fraction(float(x)).limit_denominator(1000).numerator,
                                     Fraction(float(x)).limit_denominator(1000).denominator)
                      for K, x in zip(Ks, t)), P0 * 0)
        if ldl_positive_definite(P)[0]:
            return P
    return None


def affine_family(P0: flint.fmpq_mat, Ks: list):
    """The family {P⁻¹ : P ∈ P0 + span{K_k}, P ≻ 0}, or None when it is proved empty."""
    d, k = P0.nrows(), len(Ks)
    ts = sp.symbols(f"t1:{k + 1}") if k > 1 else (sp.Symbol("t"),)
    P = _sym_expr(P0) + sum((ti * _sym_expr(K) for ti, K in zip(ts, Ks)), sp.zeros(d, d))
    param = {"P": [[str(P[i, j]) for j in range(d)] for i in range(d)], "cov": "P^-1",
             "parameters": [str(x) for x in ts]}
    desc = (f"Σ = P⁻¹ with P = P0 + Σ t_k K_k ≻ 0 ({k} parameter(s)): every positive-definite "
            "equilibrium (V_h = v_h I, so Σ* ≻ 0 ⇔ P = Σ*⁻¹ ≻ 0 solves AᵀP + PA = −R, whose "
            "solutions form this affine set)")
    point = None
    if k == 1:
        minors = [P[:m, :m].det() for m in range(1, d + 1)]
        ivs = positive_intervals(minors, ts[0])
        if not ivs:
            return None       # no t gives P ≻ 0: no positive-definite equilibrium here
        param["where"] = _where(ts[0], ivs)
        x = ivs[0][2]
        Pp = P0 + Ks[0] * flint.fmpq(int(x.p), int(x.q))
        point = Pp.inv()
        desc += f"; P ≻ 0 exactly for {param['where']}"
    else:
        Pp = _pd_point(P0, Ks)
        if Pp is not None:
            point = Pp.inv()
        else:
            desc += "; no positive-definite point was found (not a proof that there is none)"
    if d == 2 and k == 1:
        S = sp.simplify(P.inv())
        param["cov"] = [[str(sp.factor(S[i, j])) for j in range(d)] for i in range(d)]
    return Family(desc, "exact", k, param, None if point is None else
                  tuple(tuple(r) for r in mat_text(point)), None if point is None else "exact")


# --- d = 2: components of the solution set ----------------------------------------------------------
def _components(eqs, s, limit: int = 40):
    """Lex Gröbner bases of the pieces of a factorising Gröbner decomposition (every generator
    irreducible), redundant ones (contained in another) removed; None beyond ``limit`` splits."""
    out, stack, steps = [], [list(eqs)], 0
    while stack:
        steps += 1
        if steps > limit:
            return None
        F = stack.pop()
        G = sp.groebner(F, *s, order="lex")
        gs = list(G.exprs)
        if gs == [1]:
            continue
        for g in gs:
            fl = sp.factor_list(g)[1]
            if len(fl) > 1 or fl[0][1] > 1:
                stack.extend(gs + [f] for f, _ in fl)
                break
        else:
            out.append(G)
    def inside(B, A):   # ideal(A) ⊆ ideal(B), so V(B) ⊆ V(A)
        return all(B.reduce(a)[1] == 0 for a in A.exprs)
    return [B for k, B in enumerate(out)
            if not any(j != k and inside(B, A) and (j < k or not inside(A, B))
                       for j, A in enumerate(out))]


def _dimension(G, s) -> int:
    lead = [sp.Poly(g, *s).monoms(order="lex")[0] for g in G.exprs]
    best = 0
    for mask in range(1 << len(s)):
        U = {i for i in range(len(s)) if mask >> i & 1}
        if all(any(m[i] > 0 and i not in U for i in range(len(s))) for m in lead):
            best = max(best, len(U))
    return best


def _rational_param(G_exprs, s, free):
    """{v: rational function of the free variables} when every other variable v has a basis
    element a·v + c with a, c in the free variables; else None."""
    sol = {}
    for v in s:
        if v in free:
            continue
        for g in G_exprs:
            P = sp.Poly(g, v)
            if P.degree() == 1 and not (g.free_symbols - set(free) - {v}):
                a, c = P.all_coeffs()
                sol[v] = sp.cancel(-c / a)
                break
        else:
            return None
    return sol


def _curve_family(G, s, dim):
    """A Family for a positive-dimensional component G (None when proved free of Σ ≻ 0) and
    whether it is described completely (every point of G is in the description)."""
    det = s[0] * s[2] - s[1] ** 2
    if G.reduce(det)[1] == 0:
        return None, True           # det Σ ≡ 0 on it: no positive-definite point
    for free in ([s[2]], [s[0]], [s[1]]) if dim == 1 else ([s[1], s[2]], [s[0], s[1]],
                                                           [s[0], s[2]]):
        order = [v for v in s if v not in free] + free
        Gf = sp.groebner(list(G.exprs), *order, order="lex")
        sol = _rational_param(list(Gf.exprs), s, free)
        if sol is None or any(sp.simplify(g.subs(sol)) != 0 for g in Gf.exprs):
            continue
        cov = [sol.get(v, v) for v in s]
        total = all(sp.fraction(sp.together(c))[1].is_number for c in cov)
        param = {"cov": [[str(cov[0]), str(cov[1])], [str(cov[1]), str(cov[2])]],
                 "parameters": [str(v) for v in free]}
        text = (f"a {dim}-dimensional component of the solution set, exactly: "
                f"{[str(g) for g in Gf.exprs]} = 0")
        if dim == 1:
            ivs = positive_intervals([cov[0], cov[0] * cov[2] - cov[1] ** 2], free[0])
            if not ivs:
                return None, total
            param["where"] = _where(free[0], ivs)
            x = ivs[0][2]
            pt = [sp.Rational(sp.together(c).subs(free[0], x)) for c in cov]
            return Family(text + f"; Σ ≻ 0 exactly for {param['where']}", "exact", 1, param,
                          ((str(pt[0]), str(pt[1])), (str(pt[1]), str(pt[2]))), "exact"), total
        param["where"] = "Σ ≻ 0: s11 > 0 and s11·s22 − s12² > 0"
        return Family(text, "exact", dim, param), total
    return Family(f"a {dim}-dimensional component of the solution set, exactly: "
                  f"{[str(g) for g in G.exprs]} = 0 (no rational parametrisation found; "
                  "whether it holds a positive-definite point is not decided)", "exact", dim), True


def components_d2(problem, digits: int):
    """(equilibria, families, complete) for a d = 2 problem whose solution set has a continuum,
    or None when the decomposition does not finish."""
    from symgauss.questions.equilibria.groebner_d2 import _shape_basis, equations, real_solutions
    from symgauss.questions.equilibria.groebner_d2 import equilibria_of_solutions
    eqs, s = equations(problem)
    comps = _components(eqs, s)
    if comps is None:
        return None
    sols, families, complete = [], [], True
    for G in comps:
        if G.is_zero_dimensional:
            status, _, fs, p = _shape_basis(list(G.exprs), s)
            if status != "solved":
                return None
            if fs is not None:
                sols += real_solutions(fs, p, s, digits)
            continue
        fam, total = _curve_family(G, s, _dimension(G, s))
        complete = complete and total
        if fam is not None:
            families.append(fam)
    return equilibria_of_solutions(problem, sols, digits), families, complete


def equilibria_d2(problem, digits: int = 30):
    """(equilibria, families, complete) for a d = 2 problem, exactly: the positive-definite
    equilibria (level ``"exact"``, rational or algebraic), the continua
    (:func:`symgauss.questions.equilibria.families.components_d2`), and whether every
    positive-definite equilibrium is proved to be among them — or None when the exact solver
    does not decide (too large, not in shape position, decomposition unfinished); the caller
    falls back to Newton."""
    from symgauss.questions.equilibria.groebner_d2 import equilibria_of_solutions, solve_d2
    try:
        res = solve_d2(problem, digits=digits)
        if res.status == "solved":
            return equilibria_of_solutions(problem, res.solutions, digits), [], True
        if res.status == "not-isolated":
            return components_d2(problem, digits)
    except ArithmeticError:
        return None
    return None


# --- any d: numerical evidence -----------------------------------------------------------------------
def numerical_family(points) -> Family:
    """One Family for the float roots in ``points`` (each with a singular Jacobian and Newton
    from displaced starts landing on other roots); they may lie on one or several continua."""
    S = points[0]
    d = S.shape[0]
    texts = [[f"{float(S[i, j]):.10g}" for j in range(d)] for i in range(d)]
    return Family(f"not isolated (numerical evidence at {len(points)} root(s), on one or several "
                  "continua: the linearisation is singular there, and Newton started on either "
                  "side along its null direction lands on other roots); no exact description",
                  "float", None, None, tuple(tuple(r) for r in texts), "float")
