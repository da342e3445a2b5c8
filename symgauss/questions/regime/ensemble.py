"""A seeded random ensemble of time-invariant problems, one or more of every family.

Used by ``benchmarks/bench_regime.py`` and the tests to measure :func:`classify` on problems
it was not tuned to. Entries are short exact rationals (multiples of 1/8 or 1/16) so that the
exact and ball arithmetic stay cheap; the same seed gives the same problems on every machine.

Families (d = 2…4):

``vI``            V = vI, random A, B, Σ0; v of either sign
``general``       general V, A, B (no structure)
``two-heads``     two heads with general V_h, B_h
``symmetric-B``   symmetric B, general V
``stabilising``   A with eigenvalues of positive real part, V near −I, B near I
``hurwitz-small`` Hurwitz A, V, B near I, small Σ0 (decays)
``hurwitz-large`` Hurwitz A, V, B near I, large Σ0 (blows up)
``same-sign``     V and B near I (general V): blow-up prone
``growth``        A with positive eigenvalues, V near −I, B near I but B e_1 = Bᵀe_1 = 0
``singular``      A with eigenvalues of both signs, V near −I, B near I (rank-deficient limit)

One more family, not in the default cycle (so that a seed keeps its problems), for
``families=EXTRA_FAMILIES``:

``pure-attention``  A = 0 (attention only): V near −I or +I with B near I (algebraic decay, or
                    blow-up), or general V and B

>>> ps = ensemble(5, seed=1)
>>> [f for f, _ in ps][:3], ps[0][1].is_time_invariant
(['vI', 'general', 'two-heads'], True)
"""
from __future__ import annotations

from fractions import Fraction

FAMILIES = ("vI", "general", "two-heads", "symmetric-B", "stabilising", "hurwitz-small",
            "hurwitz-large", "same-sign", "growth", "singular")
EXTRA_FAMILIES = ("pure-attention",)


def _rat(x: float, den: int = 8) -> str:
    return str(Fraction(round(x * den), den))


def _mat(M, den: int = 8) -> list:
    return [[_rat(float(x), den) for x in row] for row in M]


def _spd(rng, d: int, scale: float):
    """A random SPD matrix with entries in 1/16ths, eigenvalues about ``scale``."""
    import numpy as np
    H = rng.normal(0, 1, (d, d))
    S = (H @ H.T / d + np.eye(d)) * scale / 2
    S = np.round(S * 16) / 16
    S = (S + S.T) / 2
    lam = np.linalg.eigvalsh(S).min()
    if lam < scale / 8:
        S = S + np.eye(d) * (np.ceil((scale / 8 - lam) * 16) / 16)
    return _mat(S, 16)


def _family(name: str, rng, d: int) -> dict:
    import numpy as np
    eye = np.eye(d)
    n = lambda s: rng.normal(0, s, (d, d))  # noqa: E731
    if name == "vI":
        v = float(rng.choice([-1, -0.5, 0.5, 1]))
        G = n(1)
        B = G @ G.T / d + 0.25 * eye + n(0.2)
        A = n(0.5) + (eye if v < 0 else 0)
        return {"A": _mat(A), "V": _mat(v * eye), "B": _mat(B), "cov0": _spd(rng, d, 1)}
    if name in ("general", "symmetric-B"):
        B = n(0.7)
        if name == "symmetric-B":
            B = (B + B.T) / 2
        return {"A": _mat(n(0.6)), "V": _mat(n(0.7)), "B": _mat(B), "cov0": _spd(rng, d, 1)}
    if name == "two-heads":
        heads = [{"V": _mat(n(0.6)), "B": _mat(n(0.6))} for _ in range(2)]
        return {"A": _mat(n(0.5)), "heads": heads, "cov0": _spd(rng, d, 1)}
    if name in ("stabilising", "singular"):
        if name == "stabilising":
            lam = rng.uniform(0.5, 1.5, d)
        else:
            k = int(rng.integers(1, d))
            lam = np.concatenate([rng.uniform(0.5, 1.5, k), -rng.uniform(0.5, 1.5, d - k)])
        Q = np.linalg.qr(rng.normal(0, 1, (d, d)))[0]
        A = Q @ np.diag(lam) @ Q.T + n(0.15)
        return {"A": _mat(A), "V": _mat(-eye + n(0.15)), "B": _mat(eye + n(0.15)),
                "cov0": _spd(rng, d, float(rng.uniform(0.5, 2)))}
    if name in ("hurwitz-small", "hurwitz-large"):
        A = -eye * rng.uniform(0.5, 1.5) + n(0.2)
        scale = 0.2 if name == "hurwitz-small" else 4.0
        return {"A": _mat(A), "V": _mat(eye + n(0.15)), "B": _mat(eye + n(0.15)),
                "cov0": _spd(rng, d, scale)}
    if name == "same-sign":
        return {"A": _mat(n(0.4)), "V": _mat(eye + n(0.25)), "B": _mat(eye + n(0.25)),
                "cov0": _spd(rng, d, 1)}
    if name == "growth":
        B = eye + n(0.15)
        B[0, :] = B[:, 0] = 0       # e_1 spans ker B and ker Bᵀ: no quadratic damping along it
        return {"A": _mat(eye * rng.uniform(0.3, 1) + n(0.1)), "V": _mat(-eye + n(0.1)),
                "B": _mat(B), "cov0": _spd(rng, d, 1)}
    if name == "pure-attention":
        sign = int(rng.choice([-1, 0, 1]))
        V, B = (eye * sign + n(0.3), eye + n(0.3)) if sign else (n(0.7), n(0.7))
        return {"A": _mat(0 * eye), "V": _mat(V), "B": _mat(B), "cov0": _spd(rng, d, 1)}
    raise ValueError(f"unknown family {name!r}")


def ensemble(count: int, seed: int = 0, dims=(2, 3, 4), families=FAMILIES) -> list:
    """``count`` (family, Problem) pairs, cycling through ``families``; d cycles through
    ``dims`` (family-major, so every family meets every d)."""
    import numpy as np

    from symgauss.model.problem import Problem
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        fam = families[k % len(families)]
        d = dims[(k // len(families)) % len(dims)]
        data = _family(fam, rng, d)
        out.append((fam, Problem(**data, name=f"{fam}-{k}-d{d}")))
    return out
