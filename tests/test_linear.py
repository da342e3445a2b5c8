"""Kinds linear-constant, linear-decay, linear-growth: eq. 1.1 without a quadratic term.

The true answers come from the closed form Σ(t) = e^{At}Σ0e^{Aᵀt} (mpmath's expm at 50 digits)
and from eigenvalues known by hand, never from the code under test; each claim is pushed just
past its true bound to see the kernel refuse it.
"""
from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import flint
import mpmath
import pytest

import symgauss as sg
from symgauss.kernel.checker import check_certificate, statement_of
from symgauss.kernel.kinds.linear import require_linear
from symgauss.kernel.read import read_problem
from symgauss.kernel.verdict import NotProved
from symgauss.questions.regime.classify import classify

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "symgauss" / "examples"


def _cert(name):
    return json.loads((ROOT / "certificates" / f"linear_{name}.json").read_text())


def _with(cert, **claim):
    """The certificate with claim keys replaced and the statement the checker makes for them
    (a forger's reseal): only the kind's check can then refuse it."""
    c = copy.deepcopy(cert)
    c["claim"].update(claim)
    c["claim"]["statement"] = statement_of(c)
    return c


def _status(cert):
    return check_certificate(cert).status


def test_the_checked_in_certificates_verify_at_level_exact():
    for name in ("constant", "decay", "growth"):
        v = check_certificate(_cert(name))
        assert (v.status, v.level, v.kind) == ("verified", "exact", f"linear-{name}")


def test_decay_rate_is_proved_up_to_twice_the_slowest_eigenvalue_and_not_at_it():
    # A = [[-1, 2], [0, -1/2]]: eigenvalues -1 and -1/2, so e^{rt}Σ(t) → 0 iff r < 1
    cert = _cert("decay")
    assert _status(_with(cert, rate="999999/1000000")) == "verified"
    assert _status(_with(cert, rate="0")) == "verified"
    assert _status(_with(cert, rate="1")) == "not-proved"
    assert _status(_with(cert, rate="3/2")) == "not-proved"


def test_decay_claim_holds_on_the_closed_form():
    rate = Fraction(_cert("decay")["claim"]["rate"])
    assert rate > Fraction(9, 10)
    with mpmath.workdps(50):
        r = mpmath.mpf(rate.numerator) / rate.denominator
        A = mpmath.matrix([[-1, 2], [0, mpmath.mpf(-1) / 2]])
        S0 = mpmath.matrix([[1, mpmath.mpf(1) / 2], [mpmath.mpf(1) / 2, 2]])
        def scaled(t, r):
            E = mpmath.expm(A * t)
            return mpmath.mnorm(E * S0 * E.T * mpmath.exp(r * t), 1)
        norms = [scaled(t, r) for t in (2000, 20000, 60000)]
        at_one = [scaled(t, 1) for t in (2000, 20000, 60000)]     # the rate not claimed
    assert norms[0] > norms[1] > norms[2] and norms[2] < 1e-20
    assert min(at_one) > 1


def test_growth_rate_is_proved_up_to_twice_the_real_part_and_lower_up_to_lambda_min():
    # A = [[1/10, 3], [-3, 1/10]]: eigenvalues 1/10 ± 3i; Σ0 = diag(2, 1/2)
    cert = _cert("growth")
    assert _status(_with(cert, rate="1/5", lower="1/2")) == "verified"
    assert _status(_with(cert, rate="200000001/1000000000")) == "not-proved"
    assert _status(_with(cert, lower="500000000001/1000000000000")) == "not-proved"
    assert _status(_with(cert, rate="1")) == "not-proved"


def test_growth_claim_holds_on_the_closed_form():
    c = _cert("growth")["claim"]
    rate, lower = (Fraction(c[k]) for k in ("rate", "lower"))
    with mpmath.workdps(50):
        A = mpmath.matrix([[mpmath.mpf(1) / 10, 3], [-3, mpmath.mpf(1) / 10]])
        S0 = mpmath.diag([2, mpmath.mpf(1) / 2])
        for t in (0, 0.3, 1, 7.7, 30):
            E = mpmath.expm(A * t)
            tr = sum((E * S0 * E.T)[i, i] for i in range(2))
            bound = mpmath.mpf(lower.numerator) / lower.denominator * mpmath.exp(
                mpmath.mpf(rate.numerator) / rate.denominator * t)
            assert tr >= bound


def test_constant_needs_a_zero_a():
    cert = _cert("constant")
    c = copy.deepcopy(cert)
    c["problem"]["A"][0][1] = "1/1000"
    c["problem_hash"] = read_problem(c["problem"]).hash
    assert _status(c) == "not-proved"


def _params(heads, d=2):
    data = {"A": [[0] * d for _ in range(d)], "cov0": [[int(i == j) for j in range(d)]
                                                     for i in range(d)],
            "heads": [{"V": V, "B": B} for V, B in heads]}
    return read_problem(data).params


def test_the_quadratic_term_is_zero_when_v_is_scalar_and_b_skew_or_heads_cancel():
    require_linear(_params([([[2, 0], [0, 2]], [[0, 3], [-3, 0]])]))
    require_linear(_params([([[1, 2], [3, 4]], [[0, 0], [0, 0]])]))
    S = [[1, 2, 0], [0, 1, "1/2"], [3, 0, -1]]
    I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    minus = [[str(-Fraction(str(x))) for x in row] for row in S]
    require_linear(_params([(I3, S), (I3, minus)], 3))
    nudged = copy.deepcopy(minus)
    nudged[2][2] = "1000001/1000000"
    with pytest.raises(NotProved, match="quadratic term"):
        require_linear(_params([(I3, S), (I3, nudged)], 3))
    with pytest.raises(NotProved, match="quadratic term"):
        require_linear(_params([([[2, 0], [0, 2]], [[1, 3], [-3, 0]])]))


def _q(p, S):
    """Q(S) = Σ_h(V_hSB_hS + SB_hᵀSV_hᵀ), exactly (flint), for the test's own cases."""
    out = S * 0
    for V, B in p.heads:
        M = V * S * B * S
        out = out + M + M.transpose()
    return out


def test_a_term_zero_on_every_unit_but_not_on_a_sum_is_found():
    # V = [[-1, 0], [-1, 0]], B = [[0, -1], [0, 0]]: Q(E_a) = 0 on the three units of Sym(2),
    # but Q(E_11 + E_12 + E_21) ≠ 0 (a cross term Σ_11·Σ_12)
    p = _params([([[-1, 0], [-1, 0]], [[0, -1], [0, 0]])])
    units = [flint.fmpq_mat(2, 2, v) for v in ([1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 1, 0])]
    assert all(_q(p, E) == E * 0 for E in units)
    assert _q(p, units[0] + units[2]) != units[0] * 0
    with pytest.raises(NotProved, match="coefficient of Σ_00·Σ_01"):
        require_linear(p)


def test_random_heads_that_cancel_or_not_agree_with_direct_evaluation():
    import random
    rng = random.Random(5)
    for _ in range(30):
        d = rng.choice([2, 3, 4])
        heads = []
        for _ in range(rng.choice([1, 2, 3])):
            V = [[rng.choice([0, 0, 1, -2, "1/3"]) for _ in range(d)] for _ in range(d)]
            B = [[rng.choice([0, 0, 0, 1, -1]) for _ in range(d)] for _ in range(d)]
            heads.append((V, B))
        if rng.random() < 0.5:      # a cancelling partner for the first head
            V, B = heads[0]
            heads.append((V, [[str(-Fraction(str(x))) for x in row] for row in B]))
        p = _params(heads, d)
        zero = True
        for _ in range(8):   # Q at random integer symmetric S: nonzero ⇒ some S shows it
            M = flint.fmpq_mat(d, d, [rng.randint(-5, 5) for _ in range(d * d)])
            if _q(p, M + M.transpose()) != M * 0:
                zero = False
        if zero:
            require_linear(p)
        else:
            with pytest.raises(NotProved):
                require_linear(p)


def test_a_problem_with_a_quadratic_term_is_not_proved_under_any_linear_kind():
    for name in ("constant", "decay", "growth"):
        c = copy.deepcopy(_cert(name))
        heads = c["problem"].get("heads")
        if heads:
            heads[0]["B"][0][0] = "1/7"
        else:
            c["problem"]["V"] = [[1 if i == j else 0 for j in range(len(c["problem"]["A"]))]
                                 for i in range(len(c["problem"]["A"]))]
            c["problem"]["B"][0][0] = "1/7" if c["problem"]["B"][0][0] != "1/7" else "2/7"
        c["problem_hash"] = read_problem(c["problem"]).hash
        v = check_certificate(c)
        assert v.status == "not-proved" and "quadratic term" in v.reason, (name, v.reason)


def test_kinds_levels_and_keys_are_closed():
    decay, growth = _cert("decay"), _cert("growth")
    relabeled = copy.deepcopy(decay)
    relabeled["kind"] = "linear-growth"
    assert _status(relabeled) == "invalid"          # its claim lacks lower
    level = copy.deepcopy(growth)
    level["level"] = "rigorous"
    assert _status(level) == "invalid"
    extra = copy.deepcopy(decay)
    extra["witness"]["P"] = [[1, 0], [0, 1]]
    assert _status(extra) == "invalid"
    said = copy.deepcopy(growth)
    said["claim"]["statement"] = said["claim"]["statement"].replace("grows", "blows up")
    assert _status(said) == "invalid"


@pytest.mark.parametrize("name,kind,level", [("linear_decay", "decay", "exact"),
                                             ("linear_growth", "growth", "exact"),
                                             ("linear_constant", "constant", "exact")])
def test_regime_answers_with_a_certificate_the_kernel_verifies(name, kind, level, tmp_path):
    r = classify(sg.load_problem(EXAMPLES / f"{name}.json"), digits=15,
                 certificate_dir=str(tmp_path))
    assert (r.kind, r.level) == (kind, level)
    assert r.certificate and sg.check(r.certificate).status == "verified"
    if kind == "constant":
        assert r.equilibrium == (("2", "1", "0"), ("1", "1", "0"), ("0", "0", "1/3"))
