"""A direction at infinity that still moves slowly after τ = 400 (‖Y'‖ between 1e-6 and 1e-3)
is tried as an equilibrium at infinity before (or, at d > 2, instead of only naming) a turning
direction, and the answer says what each try found. Seed-361 symmetric-B-43-d3 (d = 3, a
blow-up near T* ≈ 6.6846 by LSODA): its direction at infinity settles slowly (rate ≈ 0.011 in
τ) onto a rank-one Y* where tr Q(Y*) = 0 — u' = −u·tr Q(Y*) has rate 0 there, so the
equilibrium is not hyperbolic and not proved attracting. The float flow at infinity written
here confirms both: slow at τ = 400, and tr Q → 0 by τ = 1600."""
from fractions import Fraction

import numpy as np
from scipy.integrate import solve_ivp

from symgauss import Problem
from symgauss.questions.regime.infinity import find_blowup_at_infinity

#: seed-361 symmetric-B-43-d3 of the regime ensemble, written out
PROBLEM = Problem(A=[["-5/8", "-5/8", "5/8"], ["1/8", "1/4", "-1/2"], ["0", "-1/4", "3/8"]],
                  V=[["-9/8", "9/8", "0"], ["-1/4", "5/8", "0"], ["1/8", "-1/8", "1/2"]],
                  B=[["1/2", "-1/8", "0"], ["-1/8", "0", "3/8"], ["0", "3/8", "-3/8"]],
                  cov0=[["13/16", "1/4", "-1/4"], ["1/4", "13/16", "0"], ["-1/4", "0", "1"]])


def _at_infinity():
    """(‖Y'‖ at τ = 400, tr Q(Y) at τ = 1600) of the flow at infinity (u = 0: Y' = Q(Y) −
    Y·tr Q(Y)) from Σ at tr Σ = 1e5 (LSODA on Σ' = MΣ + ΣMᵀ, both written here)."""
    A, V, B = (np.array([[float(Fraction(x)) for x in r] for r in PROBLEM.to_dict()[k]])
               for k in ("A", "V", "B"))
    S0 = np.array([[float(Fraction(x)) for x in r] for r in PROBLEM.to_dict()["cov0"]])

    def f(_t, y):
        S = y.reshape(3, 3)
        M = A + V @ S @ B
        return (M @ S + S @ M.T).ravel()

    def big(_t, y):
        return np.trace(y.reshape(3, 3)) - 1e5
    big.terminal = True
    S = solve_ivp(f, (0, 20), S0.ravel(), method="LSODA", rtol=1e-10, atol=1e-14,
                  events=big).y[:, -1].reshape(3, 3)

    def Q(y):
        Y = y.reshape(3, 3)
        return V @ Y @ B @ Y + (V @ Y @ B @ Y).T

    def g(_tau, y):
        return (Q(y) - y.reshape(3, 3) * np.trace(Q(y))).ravel()
    sol = solve_ivp(g, (0, 1600), (S / np.trace(S)).ravel(), method="LSODA", rtol=1e-11,
                    atol=1e-14, dense_output=True)
    return float(np.linalg.norm(g(0, sol.sol(400)))), float(np.trace(Q(sol.sol(1600))))


def test_a_slowly_settling_direction_is_tried_as_an_equilibrium_and_both_tries_are_named():
    v400, trq = _at_infinity()
    assert 1e-6 < v400 < 1e-3 and abs(trq) < 1e-7       # slow at τ = 400; tr Q → 0
    found = find_blowup_at_infinity(PROBLEM, 6.684629118535596)
    assert found.certificate is None
    assert "as an equilibrium at infinity" in found.why, found.why
    assert "not proved attracting" in found.why and "d = 2 only" in found.why, found.why


#: seed-411 general-11-d3 of the regime ensemble, written out: a blow-up near T* ≈ 1.78979 (LSODA
#: and the projective system agree to 6e-10) whose direction at infinity settles slowly
SINGULAR_NEWTON = Problem(
    A=[["-1/4", "1/2", "-1"], ["-1/2", "1/2", "1/8"], ["-3/4", "-3/2", "1/4"]],
    V=[["3/8", "-1/2", "1/8"], ["3/8", "0", "1/4"], ["1", "-5/8", "-3/4"]],
    B=[["-3/8", "-3/8", "5/8"], ["-5/8", "1/8", "1/8"], ["5/8", "7/8", "9/8"]],
    cov0=[["13/8", "7/8", "1/4"], ["7/8", "23/16", "3/8"], ["1/4", "3/8", "11/16"]])


def test_a_singular_jacobian_in_newtons_method_at_infinity_is_an_answer_not_a_crash():
    """Newton's method towards the equilibrium at infinity met an exactly singular Jacobian and
    raised ZeroDivisionError through ``symgauss regime`` (exit 70, "internal error"). It now
    keeps the point; the attempt is named, and classify goes on to the float answer."""
    from symgauss.questions.regime.classify import classify
    found = find_blowup_at_infinity(SINGULAR_NEWTON, 1.78979)
    assert found.certificate is None
    assert "not proved attracting" in found.why, found.why
    r = classify(SINGULAR_NEWTON, digits=15, certificate_dir=None)
    assert (r.kind, r.level) == ("blow-up", "float"), r.evidence
    assert abs(float(r.t_star) - _compact_t_star(SINGULAR_NEWTON)) < 1e-5
    assert any("not proved attracting" in t for t in r.tried)


def _compact_t_star(problem) -> float:
    """T* ≈ w + u/g when u = 1/tr Σ falls below 1e-10, from LSODA on the compactified flow with
    the elapsed time, written here: w' = u, u' = −u·g, Y' = u·L(Y) + Q(Y) − Y·g, g = u·tr L(Y) +
    tr Q(Y) (dτ = tr Σ dt, Y = Σ/tr Σ)."""
    data = problem.to_dict()
    A, V, B, S0 = (np.array([[float(Fraction(x)) for x in r] for r in data[k]])
                   for k in ("A", "V", "B", "cov0"))

    def parts(u, Y):
        L = A @ Y + Y @ A.T
        Q = V @ Y @ B @ Y + Y @ B.T @ Y @ V.T
        return L, Q, u * np.trace(L) + np.trace(Q)

    def f(_tau, z):
        u, Y = z[1], z[2:].reshape(3, 3)
        Y = (Y + Y.T) / 2       # on Sym(3): the skew part of the 3×3 extension can grow
        L, Q, g = parts(u, Y)
        return np.concatenate([[u, -u * g], (u * L + Q - Y * g).ravel()])
    small = lambda _tau, z: z[1] - 1e-10
    small.terminal = True
    u0 = 1 / np.trace(S0)
    sol = solve_ivp(f, (0, 1e4), np.concatenate([[0, u0], (S0 * u0).ravel()]), method="LSODA",
                    rtol=1e-12, atol=1e-22, events=small)
    assert sol.status == 1, "u did not fall below 1e-10"
    w, u, Y = sol.y[0, -1], sol.y[1, -1], sol.y[2:, -1].reshape(3, 3)
    Y = (Y + Y.T) / 2
    return w + u / parts(u, Y)[2]


def test_the_pace_test_of_the_compactified_steps():
    """_too_slow (used by the log-norm and the C¹ runs alike): steps 0.01 apart cannot reach
    τ_in = 30 within 300 more even at SPEEDUP times their pace; 0.1 apart they can; it looks
    only every PACE steps from FIRST_LOOK on, and never without a float entry."""
    from symgauss.questions.regime.infinity import FIRST_LOOK, PACE, SPEEDUP, _too_slow
    slow = [0.01 * k for k in range(FIRST_LOOK)]
    assert 0.59 + 300 * SPEEDUP * 0.01 < 30 and _too_slow(slow, 300, 30.0)
    assert not _too_slow([0.1 * k for k in range(FIRST_LOOK)], 300, 30.0)
    assert not _too_slow(slow + [0.6], 300, 30.0)           # not at a multiple of PACE
    assert not _too_slow(slow[:FIRST_LOOK - PACE], 300, 30.0)    # before FIRST_LOOK
    assert not _too_slow(slow, 300, None)
    assert _too_slow(slow, 300, float("inf"))               # the float run never enters
