"""Kind ``limit-closed-form`` (issue 13): kind limit's claim when every V_h = v_h I, with Σ(t_enter)
from the closed form of the Riccati equation, Σ(t) = e^{At}L M(t)⁻¹Lᵀe^{Aᵀt}, instead of steps.

The checked-in certificates verify: seed-1021 vI-20-d4 (validated steps could not reach the
region, which the float solution enters at t ≈ 174) and seed-1031 vI-20-d4 (R indefinite: Σ exists
up to t_enter by the witness's pieces; Σ peaks near 800 at t ≈ 2). What they claim is seen
independently: LSODA puts Σ(t_enter) inside the region, and Σ(t) settles at a singular matrix
near the claimed centre; the kernel's closed form is scipy's (quad_vec of expm) and LSODA's at
early times. Every field is tampered with, the sign cases of R are refused or proved as the
kernel's docstring says, the pieces stop at a blow-up that LSODA sees, the work limits hold,
``classify`` answers through this kind, and the search leaves to the steps what the kernel would
not accept.
"""
from __future__ import annotations

import copy
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from _mutation import checked_in, reseal, roundtrip
from _oracle import _svec_field

from symgauss import Problem, load_problem
from symgauss.kernel.checker import check_certificate
from symgauss.kernel.read import read_problem

ROOT = Path(__file__).resolve().parents[1]


def _m(rows):
    return np.array([[float(Fraction(x)) for x in r] for r in rows])


def _svec(S):
    d = len(S)
    return np.array([S[i, j] for i in range(d) for j in range(i, d)])


def _closed_form_float(A, R, S0, t):
    """Σ(t) = e^{At}(I − S0·W(t))⁻¹S0·e^{Aᵀt}, W(t) = ∫_0^t e^{Aᵀs}Re^{As}ds by scipy (quad_vec),
    in floats: independent of the kernel's Van Loan block and its LDLᵀ."""
    from scipy.integrate import quad_vec
    from scipy.linalg import expm
    W = quad_vec(lambda s: expm(A.T * s) @ R @ expm(A * s), 0, t, epsabs=1e-12)[0]
    E = expm(A * t)
    return E @ np.linalg.solve(np.eye(len(A)) - S0 @ W, S0) @ E.T


@pytest.mark.parametrize("name", ["limit_closed_form", "limit_closed_pieces"])
def test_the_checked_in_certificate_verifies_and_holds_by_independent_floats(name):
    from scipy.integrate import solve_ivp
    c = checked_in(name)
    v = check_certificate(c)
    assert (v.status, v.kind, v.level) == ("verified", "limit-closed-form", "rigorous"), v.reason
    p, cl, w = c["problem"], c["claim"], c["witness"]
    A, V, B, S0 = _m(p["A"]), _m(p["V"]), _m(p["B"]), _m(p["cov0"])
    C, P, rho = _m(cl["center"]), _m(w["P"]), float(Fraction(w["rho"]))
    T = float(Fraction(cl["t_enter"]))

    F, full = _flow(A, [(V, B)], 4)
    sol = solve_ivp(F, (0, T), _svec(S0), method="LSODA", rtol=1e-12, atol=1e-14)
    e = sol.y[:, -1] - _svec(C)
    assert e @ P @ e < 0.5 * rho               # LSODA: Σ(t_enter) is inside the region
    late = solve_ivp(F, (T, 2000), sol.y[:, -1], method="LSODA", rtol=1e-11, atol=1e-14)
    S = full(late.y[:, -1])
    assert np.abs(S - C).max() < float(Fraction(cl["radius"])) + 1e-6
    lam = np.linalg.eigvalsh(S)
    assert lam[0] < 1e-9 * lam[-1]             # singular


@pytest.mark.parametrize("t", [1, 5])
def test_the_kernels_closed_form_is_the_float_solution(t):
    """The kernel's closed form (Van Loan block, LDLᵀ of Σ0, arb) against scipy's (quad_vec of
    expm, Σ0 itself) and LSODA, at times where the float formula is well conditioned (its
    I − Σ0·W(t) cancels like e^{4t}; e^{At} at t_enter = 210 is about e^{415})."""
    import flint
    from scipy.integrate import solve_ivp

    from symgauss.kernel.equations import riccati_R
    from symgauss.kernel.kinds.blowup import ldl_psd
    from symgauss.kernel.kinds.limit_closed import closed_form
    data, ep = _exact("singular_limit_vi.json")
    A, V, B, S0 = _m(data["A"]), _m(data["V"]), _m(data["B"]), _m(data["cov0"])
    with flint.ctx.workprec(512):
        S = closed_form(ep.params.A, riccati_R(ep.params), *ldl_psd(ep.cov0), flint.fmpq(t),
                        False)
    got = np.array([[float(S[i, j].mid()) for j in range(4)] for i in range(4)])
    assert max(float(S[i, j].rad()) for i in range(4) for j in range(4)) < 1e-12
    scipy_form = _closed_form_float(A, V[0, 0] * (B + B.T), S0, t)
    F, full = _flow(A, [(V, B)], 4)
    lsoda = full(solve_ivp(F, (0, t), _svec(S0), method="LSODA", rtol=1e-12,
                           atol=1e-14).y[:, -1])
    assert np.abs(got - scipy_form).max() < 1e-7 * np.abs(got).max()
    assert np.abs(got - lsoda).max() < 1e-7 * np.abs(got).max()


def _tampered(edit):
    c = copy.deepcopy(checked_in("limit_closed_form"))
    cl, w, p = c["claim"], c["witness"], c["problem"]
    scale = {"radius": ("radius", Fraction(1, 1000)), "rate": ("rate", 20),
             "rho_small": ("rho", Fraction(1, 10 ** 6)), "rho_big": ("rho", 10 ** 6),
             "ell_big": ("ell", 1000)}
    if edit in scale:
        key, f = scale[edit]
        part = cl if key in cl else w
        part[key] = str(Fraction(part[key]) * f)
    elif edit in ("t_enter_early", "t_enter_zero", "t_enter_huge"):
        cl["t_enter"] = {"t_enter_early": "1", "t_enter_zero": "0",
                         "t_enter_huge": "10000000"}[edit]
    elif edit in ("prec_low", "prec_over"):
        w["prec"] = 64 if edit == "prec_low" else 32_769
    elif edit == "center":
        cl["center"][0][0] = str(Fraction(cl["center"][0][0]) * (1 + Fraction(1, 10 ** 6)))
    elif edit == "P":
        w["P"][0][0] = str(Fraction(w["P"][0][0]) * 2)
    elif edit in ("regime_stable", "regime_decay"):
        cl["regime"] = edit.split("_")[1].replace("stable", "stable-equilibrium")
    elif edit in ("V_not_scalar", "R_indefinite", "cov0_zero"):
        if edit == "V_not_scalar":
            p["V"][0][1] = "1/100"
        elif edit == "R_indefinite":
            p["B"][0][0] = "-5"
        else:
            p["cov0"] = [["0"] * 4 for _ in range(4)]
        c["problem_hash"] = read_problem(roundtrip(c)["problem"]).hash
    elif edit == "level":
        c["level"] = "exact"
    elif edit == "extra_key":
        w["steps"] = []
    return reseal(c)


EDITS = {"not-proved": ["radius", "rate", "rho_small", "rho_big", "ell_big", "t_enter_early",
                        "t_enter_zero", "prec_low", "center", "P", "regime_stable",
                        "V_not_scalar", "R_indefinite", "cov0_zero"],
         "invalid": ["prec_over", "t_enter_huge", "regime_decay", "level", "extra_key"]}


@pytest.mark.parametrize("status,edit", [(s, e) for s, es in EDITS.items() for e in es])
def test_a_tampered_certificate_is_refused(status, edit):
    v = check_certificate(_tampered(edit))
    assert v.status == status, (edit, v)
    assert "problem_hash" not in v.reason and "statement" not in v.reason, v.reason
    if edit == "t_enter_huge":
        assert "limit" in v.reason and "1048576" in v.reason
    if edit == "R_indefinite":
        assert "indefinite" in v.reason


def _tampered_pieces(edit):
    """The pieces certificate (seed-1031 vI-20-d4) with one of its pieces fields changed."""
    from symgauss.kernel.kinds.limit_closed import MAX_PIECE_WORK
    c = copy.deepcopy(checked_in("limit_closed_pieces"))
    w, T = c["witness"], Fraction(c["claim"]["t_enter"])
    runs = w["pieces"]
    fine = min(range(len(runs)), key=lambda i: Fraction(runs[i][1]))     # at Σ's peak
    if edit == "sum":                     # the last run one unit of 1/10⁶ longer
        runs[-1][1] = str(Fraction(runs[-1][1]) + Fraction(1, 10 ** 6))
    elif edit == "one_piece":
        w["pieces"] = [[1, str(T)]]
    elif edit == "coarse":                # the finest run (at Σ's peak) in pieces twice as long
        n, h = runs[fine]
        assert n % 2 == 0
        runs[fine] = [n // 2, str(2 * Fraction(h))]
    elif edit == "bound_zero":            # R' = 0: R' − R ⪰ 0 fails (R has λ = +0.17)
        w["bound"] = [["0"] * 4 for _ in range(4)]
    elif edit == "bound_not_psd":         # R' = R + I/2 ⪰ R, but R has λ = −8.2
        Bq = [[Fraction(x) for x in row] for row in c["problem"]["B"]]
        w["bound"] = [[str(-(Bq[i][j] + Bq[j][i]) + Fraction(int(i == j), 2)) for j in range(4)]
                      for i in range(4)]
    elif edit == "bound_smaller":         # R's positive part, shrunk by a tenth
        w["bound"] = [[str(Fraction(x) * Fraction(9, 10)) for x in row] for row in w["bound"]]
    elif edit == "bound_not_symmetric":
        w["bound"][0][1] = str(Fraction(w["bound"][0][1]) + 1)
    elif edit == "no_pieces":
        del w["pieces"]
    elif edit == "no_bound":
        del w["bound"]
    elif edit == "neither":
        del w["pieces"], w["bound"]
    elif edit == "count_zero":
        runs.append([0, "1"])
    elif edit == "count_fraction":
        runs[0][0] = "3/2"
    elif edit == "h_negative":
        runs.append([1, "1"]), runs.append([1, "-1"])
    elif edit == "too_many_pieces":       # one more than the limit at 985 bits (2 units of 512)
        n = MAX_PIECE_WORK // 2 + 1 - sum(k for k, _ in runs[:-1])
        runs[-1:] = [[n, str((Fraction(runs[-1][1]) * runs[-1][0]) / n)]]
    elif edit == "runs_at_high_prec":     # 13 runs at 32 768 bits: 13·64² > 2 048
        w["prec"] = 32_768
    elif edit == "prec_low":
        w["prec"] = 64
    return reseal(c)


PIECES_EDITS = {"not-proved": ["one_piece", "coarse", "bound_zero", "bound_not_psd",
                               "bound_smaller", "neither", "prec_low"],
                "invalid": ["sum", "bound_not_symmetric", "no_pieces", "no_bound", "count_zero",
                            "count_fraction", "h_negative", "too_many_pieces",
                            "runs_at_high_prec"]}


@pytest.mark.parametrize("status,edit", [(s, e) for s, es in PIECES_EDITS.items() for e in es])
def test_a_tampered_pieces_witness_is_refused(status, edit):
    v = check_certificate(_tampered_pieces(edit))
    assert v.status == status, (edit, v)
    why = {"one_piece": "not proved positive definite", "coarse": "not proved positive definite",
           "bound_zero": "R' − R ⪰ 0 is false", "bound_not_psd": "R' ⪰ 0 is false",
           "bound_smaller": "R' − R ⪰ 0 is false",
           "neither": "indefinite", "sum": "add up", "no_pieces": "go together",
           "no_bound": "go together", "too_many_pieces": "limits",
           "runs_at_high_prec": "limits", "count_zero": "positive integer",
           "count_fraction": "positive integer", "h_negative": "h > 0"}
    assert edit not in why or why[edit] in v.reason, (edit, v.reason)


#: seed-1031 vI-10-d3: every V_h = I/2, R = (B + Bᵀ)/2 indefinite, and Σ blows up (LSODA: T* ≈ 1.11)
BLOWS_UP = {"A": [["3/4", "1/4", "-5/4"], ["-7/8", "-1/8", "5/8"], ["-1/8", "1/8", "-1/2"]],
            "V": [["1/2", "0", "0"], ["0", "1/2", "0"], ["0", "0", "1/2"]],
            "B": [["1/2", "1/8", "1/8"], ["-1/4", "0", "0"], ["3/8", "0", "1/4"]],
            "cov0": [["7/8", "5/16", "9/16"], ["5/16", "3/4", "1/2"], ["9/16", "1/2", "25/16"]]}


def test_the_pieces_stop_at_a_blow_up_that_lsoda_sees():
    """R indefinite and Σ blows up at T* (LSODA: tr Σ passes 1e9). Up to 0.95·T* the search
    finds pieces, the kernel accepts them, and the closed form at 0.95·T* is LSODA's Σ; past T*
    no partition is accepted, however fine (the kernel's piece test on 4 096 equal pieces)."""
    import flint
    from scipy.integrate import solve_ivp

    from symgauss.kernel.equations import riccati_R
    from symgauss.kernel.exact import is_psd
    from symgauss.kernel.kinds.blowup import ldl_psd
    from symgauss.kernel.kinds.limit_closed import closed_form, exists_by_pieces
    from symgauss.kernel.verdict import NotProved
    from symgauss.questions.regime.limit_closed import pieces_for, positive_part
    ep = read_problem(BLOWS_UP)
    R, f = riccati_R(ep.params), ldl_psd(ep.cov0)
    assert not is_psd(R) and not is_psd(R * -1)
    d = 3
    F, full, y0, t_star = _lsoda_blow_up(BLOWS_UP)
    Rb = positive_part(R)
    before = flint.fmpq(round(t_star * 950), 1000)
    with flint.ctx.workprec(256):
        runs = pieces_for(ep.params.A, R, Rb, f, before, 256)
        assert runs is not None
        pieces = [(n, flint.fmpq(Fraction(h).numerator, Fraction(h).denominator))
                  for n, h in runs]
        exists_by_pieces(ep.params.A, R, Rb, *f, pieces)
        S = closed_form(ep.params.A, R, *f, before, False)
        past = flint.fmpq(round(t_star * 1010), 1000)
        assert not isinstance(pieces_for(ep.params.A, R, Rb, f, past, 256), list)
        with pytest.raises(NotProved, match="not proved positive definite"):
            exists_by_pieces(ep.params.A, R, Rb, *f, [(4096, past / 4096)])
    ref = full(solve_ivp(F, (0, float(before)), y0, method="LSODA", rtol=1e-12,
                         atol=1e-14).y[:, -1])
    got = np.array([[float(S[i, j].mid()) for j in range(d)] for i in range(d)])
    assert np.abs(got - ref).max() < 1e-7 * np.abs(ref).max()


def _lsoda_blow_up(data):
    """(field, svec → matrix, svec Σ0, T*) for a one-head problem: LSODA's T* is where tr Σ
    passes 1e9."""
    from scipy.integrate import solve_ivp
    d = len(data["A"])
    F, full = _flow(_m(data["A"]), [(_m(data["V"]), _m(data["B"]))], d)

    def big(_t, y):
        return np.trace(full(y)) - 1e9
    big.terminal = True
    y0 = _m(data["cov0"])[np.triu_indices(d)]
    t_star = solve_ivp(F, (0, 100), y0, method="LSODA", rtol=1e-10, atol=1e-12,
                       events=big).t_events[0][0]
    return F, full, y0, t_star


def _flow(A, heads, d):
    """eq. 1.1 on svec (floats) and svec → matrix: the oracle's field."""
    return _svec_field(A, heads, d)[:2]


def _exact(example):
    import json
    data = json.loads((ROOT / "symgauss" / "examples" / example).read_text())
    data.pop("name", None)
    return data, read_problem(data)


def test_the_closed_form_is_refused_past_a_blow_up_when_r_is_positive():
    """R ⪰ 0 (the example blowup_diag): M(t) ≻ 0 proves that Σ exists up to t. Before T* (LSODA:
    tr Σ passes 1e9) the closed form is LSODA's Σ(t); past T* it is refused."""
    import flint
    from scipy.integrate import solve_ivp

    from symgauss.kernel.equations import riccati_R
    from symgauss.kernel.exact import is_psd
    from symgauss.kernel.kinds.blowup import ldl_psd
    from symgauss.kernel.kinds.limit_closed import closed_form
    from symgauss.kernel.verdict import NotProved
    data, ep = _exact("blowup_diag.json")
    R, (Lr, Dinv) = riccati_R(ep.params), ldl_psd(ep.cov0)
    assert is_psd(R)
    d = ep.d
    F, full, y0, t_star = _lsoda_blow_up(data)
    half = flint.fmpq(round(t_star * 500), 1000)
    with flint.ctx.workprec(256):
        S = closed_form(ep.params.A, R, Lr, Dinv, half, True)
        with pytest.raises(NotProved, match="R ⪰ 0"):
            closed_form(ep.params.A, R, Lr, Dinv, flint.fmpq(round(t_star * 1500), 1000), True)
    ref = full(solve_ivp(F, (0, float(half)), y0, method="LSODA", rtol=1e-12,
                         atol=1e-14).y[:, -1])
    got = np.array([[float(S[i, j].mid()) for j in range(d)] for i in range(d)])
    assert np.abs(got - ref).max() < 1e-8 * np.abs(ref).max()


#: d = 2, A Hurwitz, V = I/2, B = I (R = I ⪰ 0): a small Σ0 decays to 0 before the quadratic
#: term can blow it up
RISING = {"A": [["-1", "1/2"], ["0", "-2"]], "V": [["1/2", "0"], ["0", "1/2"]],
          "B": [["1", "0"], ["0", "1"]], "cov0": [["1/4", "1/8"], ["1/8", "1/4"]]}


def test_a_decay_with_r_positive_is_proved_through_m_at_t_enter():
    from symgauss.questions.regime.basin import find_limit
    from symgauss.questions.regime.reference import reference_regime
    problem = Problem(**RISING)
    res = find_limit(problem, reference_regime(problem))
    assert res.certificate is not None, res.why
    assert (res.certificate["kind"], res.regime) == ("limit-closed-form", "decay")
    v = check_certificate(res.certificate)
    assert v.status == "verified", v.reason
    bad = copy.deepcopy(res.certificate)       # the same, with V = 4I: it blows up before t_enter
    bad["problem"]["V"] = [["4", "0"], ["0", "4"]]
    bad["problem_hash"] = read_problem(roundtrip(bad)["problem"]).hash
    assert check_certificate(reseal(bad)).status == "not-proved"


@pytest.mark.parametrize("example,name", [("singular_limit_vi.json", "limit_closed_form"), (
    "singular_limit_vi_indefinite.json", "limit_closed_pieces")])
def test_classify_proves_the_example_through_this_kind(example, name):
    from symgauss.questions.regime.classify import classify
    r = classify(load_problem(ROOT / "symgauss" / "examples" / example))
    assert (r.kind, r.level) == ("singular-limit", "rigorous"), (r.evidence, r.tried)
    assert r.certificate_data["kind"] == "limit-closed-form"
    assert check_certificate(r.certificate_data).status == "verified"
    pieces = r.certificate_data["witness"].get("pieces")
    assert (pieces is not None) == (name == "limit_closed_pieces")
    assert (f"on {sum(n for n, _ in pieces)} pieces" in r.method if pieces else
            "pieces" not in r.method), r.method
    C = _m(r.certificate_data["claim"]["center"])
    assert np.abs(C - _m(checked_in(name)["claim"]["center"])).max() < 1e-9


def test_the_search_leaves_late_or_unknown_entries_to_the_steps():
    """closed_entry proposes (T, bits) only where the kernel can say yes: a float entry time, and T
    within the kernel's span limit; else None, and find_limit's steps run."""
    import flint

    from symgauss.questions.regime.limit_closed import closed_entry
    cert = checked_in("limit_closed_form")
    _, ep = _exact("singular_limit_vi.json")
    n = 10
    def q(x):
        f = Fraction(x)
        return flint.fmpq(f.numerator, f.denominator)
    P = flint.fmpq_mat(n, n, [q(x) for row in cert["witness"]["P"] for x in row])
    C = flint.fmpq_mat(4, 4, [q(x) for row in cert["claim"]["center"] for x in row])
    rho = q(cert["witness"]["rho"])
    T, fields = closed_entry(ep, P, C, rho, 174.3)
    assert T >= flint.fmpq(1743 * 12, 100) and 64 <= fields["prec"] <= 32_768
    assert set(fields) == {"prec"}              # R semidefinite here: no pieces
    for t_in in (None, float("inf"), 1e9):
        assert closed_entry(ep, P, C, rho, t_in) is None


def test_pieces_past_the_kernels_work_limits_are_over_not_tried_at_more_bits(monkeypatch):
    """At 22 528 bits the kernel reads one run; the example's pieces need 13, so the search says
    OVER; and on OVER closed_entry returns None at once (the steps run) instead of doubling the
    bits, where the kernel's limits only get lower."""
    import flint

    from symgauss.kernel.equations import riccati_R
    from symgauss.kernel.kinds.blowup import ldl_psd
    from symgauss.questions.regime import limit_closed
    cert = checked_in("limit_closed_pieces")
    _, ep = _exact("singular_limit_vi_indefinite.json")
    R = riccati_R(ep.params)

    def fq(x):
        return flint.fmpq(Fraction(x).numerator, Fraction(x).denominator)
    q = [fq(cert["claim"]["t_enter"]), fq(cert["witness"]["rho"])]
    with flint.ctx.workprec(22_528):
        assert limit_closed.pieces_for(ep.params.A, R, limit_closed.positive_part(R),
                                       ldl_psd(ep.cov0), q[0], 22_528) == limit_closed.OVER
    calls = []
    monkeypatch.setattr(limit_closed, "pieces_for", lambda *a: calls.append(a[-1]) or
                        limit_closed.OVER)
    P = flint.fmpq_mat([[fq(x) for x in row] for row in cert["witness"]["P"]])
    C = flint.fmpq_mat([[fq(x) for x in row] for row in cert["claim"]["center"]])
    assert limit_closed.closed_entry(ep, P, C, q[1], 43.43) is None
    assert calls == [cert["witness"]["prec"]]
