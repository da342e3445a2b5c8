"""Certify + exact check of local stability for a general-V linearisation, d = 4 … 10.

For each d, a problem with general V and a prescribed rational equilibrium Σ* (A = −VΣ*B + KΣ*⁻¹,
K skew, so Σ* is an exact equilibrium) is built; its svec linearisation L has size
n = d(d+1)/2 = 10 … 55. Columns:

- search: exact L (flint) + Lyapunov-equation solve of the shifted operator (scipy,
  Bartels–Stewart) + dyadic rounding;
- check: the trusted checker on the whole certificate (problem read from the file, residual
  exactly 0, exact L, two exact LDLᵀ of n×n matrices);
- baselines in the same run: a plain cvxpy + Clarabel Lyapunov LMI of the same size
  (find P ⪰ I with LᵀP + PL ⪯ −I) and scipy.linalg.solve_continuous_lyapunov alone.

Then as a user runs it (issue 14), at d = 10: the whole ``symgauss certify P.json -o C.json``
process (imports, the equilibrium search, the certificate and its check) and the whole
``symgauss check C.json`` process, with the default route (svec witnesses) and with
``--structured`` (d×d witnesses), beside a plain cvxpy + Clarabel process of the same size
in the same run (read the problem, dense float Newton for Σ* from 2I, the svec linearisation,
the LMI above): ratio = (certify + check) / LMI process.

Run: python benchmarks/bench_certify.py [--processes-only]
"""
from __future__ import annotations

import time
from fractions import Fraction

import numpy as np


def designed_problem(d: int, seed: int = 1):
    from symgauss import Problem
    from symgauss.model.linearise import exact_matrix
    rng = np.random.default_rng(seed)

    def rat(scale, shape):
        return [[Fraction(int(x), 20) for x in row] for row in
                np.round(scale * 20 * rng.standard_normal(shape))]
    G = exact_matrix(rat(0.3, (d, d)))
    S = G * G.transpose() + exact_matrix(np.eye(d, dtype=int).tolist())
    V = exact_matrix(rat(0.1, (d, d))) - exact_matrix(np.eye(d, dtype=int).tolist())
    B = exact_matrix(rat(0.1, (d, d))) + exact_matrix(np.eye(d, dtype=int).tolist())
    k = exact_matrix(rat(0.5, (d, d)))
    A = -(V * S * B) + (k - k.transpose()) * S.inv()

    def txt(M):
        return [[str(x) for x in r] for r in M.tolist()]
    return Problem(cov0=np.eye(d, dtype=int).tolist(), A=txt(A), V=txt(V), B=txt(B)), S


def run(d: int) -> dict:
    import cvxpy as cp
    from scipy.linalg import solve_continuous_lyapunov

    from symgauss.kernel.checker import check_certificate
    from symgauss.kernel.read import mat_text
    from symgauss.model.certificate import envelope
    from symgauss.model.linearise import linearisation_exact, to_float_matrix
    from symgauss.questions.stability.witness import (
        rational_below,
        round_symmetric,
        spectral_abscissa,
    )
    p, S = designed_problem(d)
    n = d * (d + 1) // 2

    t0 = time.perf_counter()
    L = linearisation_exact(p.params, S)
    Lf = to_float_matrix(L)
    rho = rational_below(0.9 * -spectral_abscissa(Lf))
    P = solve_continuous_lyapunov((Lf + float(rho) * np.eye(n)).T, -np.eye(n))
    cert = envelope("stable-equilibrium", p, {"cov": mat_text(S), "rate": str(rho)},
                    {"P": mat_text(round_symmetric(P, 40))}, "exact")
    t_search = time.perf_counter() - t0

    t0 = time.perf_counter()
    v = check_certificate(cert)
    t_check = time.perf_counter() - t0
    assert v.ok, v.reason

    t0 = time.perf_counter()
    X = cp.Variable((n, n), symmetric=True)
    prob = cp.Problem(cp.Minimize(0), [X >> np.eye(n), Lf.T @ X + X @ Lf << -np.eye(n)])
    prob.solve(solver=cp.CLARABEL)
    t_lmi = time.perf_counter() - t0

    t0 = time.perf_counter()
    for _ in range(10):
        solve_continuous_lyapunov(Lf.T, -np.eye(n))
    t_scipy = (time.perf_counter() - t0) / 10
    return dict(d=d, n=n, rate=rho, search=t_search, check=t_check, total=t_search + t_check,
                lmi=t_lmi, lmi_status=prob.status, scipy=t_scipy)


LMI_PROCESS = """
import sys, json, numpy as np, cvxpy as cp
from fractions import Fraction
p = json.load(open(sys.argv[1]))
f = lambda M: np.array([[float(Fraction(x)) for x in r] for r in M])
A, V, B = f(p['A']), f(p['V']), f(p['B'])
d = len(A); S = 2 * np.eye(d); pairs = [(i, j) for i in range(d) for j in range(i, d)]
def lin(S):
    M = A + V @ S @ B
    cols = []
    for i, j in pairs:
        E = np.zeros((d, d)); E[i, j] = E[j, i] = 1
        X = M @ E + V @ E @ B @ S; X = X + X.T
        cols.append([X[k, l] for k, l in pairs])
    return M, np.array(cols).T
for _ in range(60):
    M, L = lin(S)
    F = M @ S + S @ M.T
    dx = np.linalg.solve(L, -np.array([F[k, l] for k, l in pairs]))
    for (i, j), v in zip(pairs, dx): S[i, j] += v; S[j, i] = S[i, j]
    if np.max(np.abs(dx)) < 1e-13 * (1 + np.max(np.abs(S))): break
M, L = lin(S); n = len(L)
X = cp.Variable((n, n), symmetric=True)
prob = cp.Problem(cp.Minimize(0), [X >> np.eye(n), L.T @ X + X @ L << -np.eye(n)])
prob.solve(solver=cp.CLARABEL)
print(prob.status)
"""


def processes(d: int = 10) -> None:
    """Whole processes at d, each beside the LMI process of the same size, in the same run."""
    import json
    import os
    import sys
    import tempfile
    from pathlib import Path

    from bench_scale import SYMGAUSS, run_process
    p, _ = designed_problem(d)
    print(f"# whole processes, d = {d}; {time.strftime('%Y-%m-%d %H:%M')}, nproc = "
          f"{os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        prob, cert = Path(tmp) / "p.json", Path(tmp) / "c.json"
        prob.write_text(p.to_json())
        run_process([SYMGAUSS, "--help"])
        lmi, lmi_mb, _, status = run_process([sys.executable, "-c", LMI_PROCESS, str(prob)])
        print(f"plain cvxpy + Clarabel LMI process (n = {d * (d + 1) // 2}): {lmi:.2f} s, "
              f"{lmi_mb:.0f} MB, {status.strip()}")
        print("| route | certify s | check s | certify + check s | kind | "
              "(certify + check) / LMI process |")
        print("|---|---:|---:|---:|---|---:|")
        for label, extra in (("default (svec)", []), ("--structured (d×d)", ["--structured"])):
            c, _, rc, out = run_process([SYMGAUSS, "certify", str(prob), "-o", str(cert),
                                         *extra])
            if rc != 0:
                print(f"| {label} | {c:.2f} | – | – | refused: {out.strip()[-120:]} | – |")
                continue
            k, *_ = run_process([SYMGAUSS, "check", str(cert)])
            kind = json.loads(cert.read_text())["kind"]
            print(f"| {label} | {c:.2f} | {k:.2f} | {c + k:.2f} | {kind} | "
                  f"{(c + k) / lmi:.2f} |", flush=True)


def main():
    import sys
    if "--processes-only" in sys.argv:
        processes()
        return
    run(3)  # warm up imports
    print(f"{'d':>3} {'n':>3} {'rate':>8} {'search s':>9} {'check s':>8} {'total s':>8} "
          f"{'cvxpy+Clarabel LMI s':>21} {'LMI/total':>9} {'scipy lyap s':>12}")
    for d in (4, 6, 8, 10):
        r = run(d)
        print(f"{r['d']:>3} {r['n']:>3} {float(r['rate']):>8.4f} {r['search']:>9.4f} "
              f"{r['check']:>8.4f} {r['total']:>8.4f} {r['lmi']:>21.3f} "
              f"{r['lmi'] / r['total']:>9.1f} {r['scipy']:>12.5f}")
    print()
    processes()


if __name__ == "__main__":
    main()
