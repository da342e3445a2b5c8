"""Exact d = 2 equilibria (Gröbner): designed rational equilibria, algebraic ones checked by an
exact residual in ℚ(α), agreement with the Newton + enclosure route, continua, CLI."""
from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from symgauss import Problem
from symgauss.cli.main import main
from symgauss.model.linearise import exact_matrix, linearisation_num, numeric_params, residual_exact
from symgauss.questions.equilibria.groebner_d2 import _Root, _sign, equations, solve_d2
from symgauss.questions.equilibria.roots import float_roots
from symgauss.questions.equilibria.refine import equilibrium_from_root
from symgauss.questions.equilibria.search import find_equilibria

IRRATIONAL = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 2]], V=[[-1, 1], [0, -1]],
                     B=[[1, 0], [0, 1]])


def _designed(S, V, B, k):
    """A = −VSB + K S⁻¹ (K skew): then (A + VSB)S = K is skew, so S is an equilibrium."""
    S, V, B = exact_matrix(S), exact_matrix(V), exact_matrix(B)
    K = exact_matrix([[0, k], [-k, 0]])
    A = -(V * S * B) + K * S.inv()
    txt = lambda M: [[str(x) for x in r] for r in M.tolist()]  # noqa: E731
    return Problem(cov0=[[1, 0], [0, 1]], A=txt(A), V=txt(V), B=txt(B))


@pytest.mark.parametrize("S, V, B, k", [
    ([[2, 1], [1, 3]], [[-1, 1], [0, -2]], [[1, 0], [1, 1]], 1),
    ([["1/2", 0], [0, 5]], [[0, 1], [2, -1]], [[2, -1], [0, 1]], 0),
    ([[3, -1], [-1, 1]], [[1, 0], [1, 1]], [[-1, 0], [0, -2]], 2),
])
def test_designed_rational_equilibrium_is_found_exactly(S, V, B, k):
    p = _designed(S, V, B, k)
    assert all(x == 0 for x in residual_exact(p.params, exact_matrix(S)).entries())
    pd = [e for e in find_equilibria(p) if e.rank == 2]
    hits = [e for e in pd if e.level == "exact" and e.algebraic is None
            and exact_matrix(e.cov) == exact_matrix(S)]
    assert len(hits) == 1
    # the stability answer is the exact route's (a certificate the checker re-verifies)
    e = hits[0]
    if e.stable is not None:
        from symgauss.kernel.checker import check_certificate
        assert check_certificate(e.stability.certificate).ok
    # every rational solution reported has an exactly zero residual
    for s in solve_d2(p).solutions:
        if s.is_rational:
            assert all(x == 0 for x in residual_exact(p.params, s.cov_exact()).entries())


def _field_residual(p, sol):
    """The equations at Σ with entries given as polynomials in α, reduced modulo minpoly(α)."""
    alpha = sp.Symbol("alpha")
    q = sp.Poly(list(sol.field.minpoly), alpha)
    vals = [sp.Poly([sp.Rational(c.numerator, c.denominator) for c in cs], alpha).as_expr()
            for cs in sol.field_coeffs]
    eqs, s = equations(p)
    return [sp.Poly(sp.expand(e.subs(dict(zip(s, vals)))), alpha).rem(q) for e in eqs]


def test_irrational_equilibrium_exact_residual_and_newton_agreement():
    res = solve_d2(IRRATIONAL)
    assert res.status == "solved"
    pd = [s for s in res.solutions if s.psd and s.rank == 2]
    assert len(pd) == 1 and not pd[0].is_rational
    sol = pd[0]
    # exact residual in ℚ(α): independent of the Gröbner basis
    assert all(r.is_zero for r in _field_residual(IRRATIONAL, sol))
    # the field generator's interval isolates exactly one real root of its (irreducible) minpoly
    x = sp.Symbol("x")
    g = sp.Poly(list(sol.field.minpoly), x)
    assert g.is_irreducible
    lo, hi = (sp.Rational(v.numerator, v.denominator) for v in sol.field.interval)
    assert g.count_roots(lo, hi) == 1
    # each entry: its minimal polynomial vanishes at the entry (exact, modulo minpoly(α)) and its
    # interval isolates one root and contains the decimal value
    alpha = sp.Symbol("alpha")
    q = sp.Poly(list(sol.field.minpoly), alpha)
    for ent, cs in zip(sol.entries, sol.field_coeffs):
        m = sp.Poly(list(ent.minpoly), x)
        e = sp.Poly([sp.Rational(c.numerator, c.denominator) for c in cs], alpha)
        assert m.is_irreducible
        assert sp.Poly(sp.expand(m.as_expr().subs(x, e.as_expr())), alpha).rem(q).is_zero
        a, b = (sp.Rational(v.numerator, v.denominator) for v in ent.interval)
        assert m.count_roots(a, b) == 1 and a <= sp.Rational(ent.decimal) <= b
    # agreement with the Newton + Newton–Kantorovich route (independent): each exact entry,
    # isolated to within r/4, lies inside the proved ball around the enclosure centre
    roots = _pd_roots(IRRATIONAL)
    assert len(roots) == 1
    enc = equilibrium_from_root(IRRATIONAL, roots[0], 30)
    assert enc.level == "rigorous"
    C, radius, _ = enc.enclosure
    for (i, j), ent in zip(((0, 0), (0, 1), (1, 1)), sol.entries):
        m = sp.Poly(list(ent.minpoly), x)
        a, b = (sp.Rational(v.numerator, v.denominator) for v in ent.interval)
        a, b = m.refine_root(a, b, eps=sp.Rational(radius.numerator, 4 * radius.denominator))
        c = Fraction(int(C[i, j].p), int(C[i, j].q))
        assert c - radius <= Fraction(str(a)) and Fraction(str(b)) <= c + radius


def _pd_roots(p):
    return [r.S for r in float_roots(p)[0] if np.all(np.linalg.eigvalsh(r.S) > 1e-9)]


def test_find_equilibria_reports_algebraic_level_exact_with_stability():
    eqs = find_equilibria(IRRATIONAL)
    e = [e for e in eqs if e.rank == 2][0]
    assert e.level == "exact" and e.algebraic is not None and e.cov_exact is None
    d = e.to_json_dict()
    assert set(d["algebraic"]) == {"field", "entries", "in_field"}
    # stability agrees with the float spectrum of the linearisation at the decimal values
    A, heads, _ = numeric_params(IRRATIONAL.params, float)
    L = linearisation_num(A, heads, np.array([[float(x) for x in r] for r in e.cov]))
    assert e.stable is bool(np.max(np.linalg.eigvals(L).real) < 0)
    assert e.stability.status == "verified" and e.stability.certificate is not None


def test_unstable_algebraic_equilibrium():
    p = Problem(cov0=[[1, 0], [0, 1]], A=[[2, 1], [1, 2]], V=[[0, 1], [2, -1]],
                B=[[-2, -1], [-1, 2]])
    pd = [e for e in find_equilibria(p) if e.rank == 2]
    assert len(pd) == 1 and pd[0].algebraic is not None and pd[0].stable is False
    A, heads, _ = numeric_params(p.params, float)
    L = linearisation_num(A, heads, np.array([[float(x) for x in r] for r in pd[0].cov]))
    assert np.max(np.linalg.eigvals(L).real) > 0
    assert pd[0].stability.status == "refuted" and pd[0].stability.level == "rigorous"


@pytest.mark.parametrize("seed", range(12))
def test_count_agrees_with_newton_on_random_small_integer_problems(seed):
    rng = np.random.default_rng(seed)
    A, V, B = (rng.integers(-2, 3, (2, 2)).tolist() for _ in range(3))
    p = Problem(cov0=[[1, 0], [0, 1]], A=A, V=V, B=B)
    res = solve_d2(p)
    if res.status == "not-isolated":   # a continuum somewhere in C³: the Newton route decides
        assert all(e.algebraic is None for e in find_equilibria(p))
        return
    assert res.status == "solved"
    pd = [s for s in res.solutions if s.psd and s.rank == 2]
    newton = _pd_roots(p)
    assert len(newton) == len(pd)
    for S in newton:  # each Newton equilibrium is one of the exact ones
        assert any(max(abs(float(S[i, j]) - float(Fraction(t[i][j]))) for i in range(2)
                       for j in range(2)) < 1e-12 for t in (s.cov_text() for s in pd))
    # Σ = 0 is always a solution (unless only the non-singular ones were asked for)
    assert res.nonsingular_only or any(s.rank == 0 for s in res.solutions)


def test_continuum_is_reported_not_guessed():
    rot = Problem(cov0=[[1, 0], [0, 1]], A=[[0, 1], [-1, 0]], V=[[0, 0], [0, 0]],
                  B=[[1, 0], [0, 1]])   # Σ' = AΣ + ΣAᵀ, A skew: every Σ = aI is an equilibrium
    res = solve_d2(rot)
    assert res.status == "not-isolated" and "continuum" in res.reason and not res.solutions
    assert solve_d2(Problem(cov0=[[1, 0], [0, 1]])).status == "not-isolated"


def test_singular_continuum_is_saturated_away():
    """A = diag(0, 1), V = 0: s12 = s22 = 0 with s11 free (singular), and nothing else."""
    p = Problem(cov0=[[1, 0], [0, 1]], A=[[0, 0], [0, 1]], V=[[0, 0], [0, 0]],
                B=[[1, 0], [0, 1]])
    res = solve_d2(p)
    assert res.status == "solved" and res.nonsingular_only and not res.solutions
    # V = diag(−1, −2), B = I, A = diag(1, 2): Σ* = I exactly though a singular continuum exists
    q = Problem(cov0=[[1, 0], [0, 1]], A=[[1, 0], [0, 2]], V=[[-1, 0], [0, -2]],
                B=[[1, 0], [0, 1]])
    res = solve_d2(q)
    assert res.status == "solved" and res.nonsingular_only
    assert [s.cov_text() for s in res.solutions] == [(("1", "0"), ("0", "1"))]
    e = [e for e in find_equilibria(q) if e.rank == 2]
    assert [(x.cov, x.level, x.stable) for x in e] == [((("1", "0"), ("0", "1")), "exact", True)]


def test_sign_decision_beyond_double_precision():
    w = sp.Symbol("w")
    root = _Root(sp.Poly(w ** 2 - 2, w), (1, 2))      # √2
    near = sp.Rational(1.4142135623730951)             # the double nearest √2, above it
    assert _sign(sp.Poly(w - near, w), root) == -1
    assert _sign(sp.Poly(w ** 3 - 2 * w, w), root) == 0  # exactly zero in ℚ(√2)
    assert _sign(sp.Poly(w - sp.Rational(14142135623730950488, 10 ** 19), w), root) == 1


def test_cli_json_carries_the_algebraic_description(tmp_path, capsys):
    f = tmp_path / "p.json"
    f.write_text(json.dumps(IRRATIONAL.to_dict()))
    assert main(["equilibria", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["equilibria"]
    e = [e for e in out if e["rank"] == 2][0]
    assert e["level"] == "exact" and e["stable"] is True
    assert e["algebraic"]["field"]["minpoly"] == "x**3 - 3*x**2 - 4*x - 12"
