"""Certify + check as a user runs them, d = 4, 8, 16, 32: time and memory against d (issue 14).

Problems (general V, one head) built from a prescribed rational equilibrium Σ* = I + GGᵀ:
A = ΣŜ − VΣB with Ŝ skew, so that M = A + VΣB = ΣŜ and MΣ + ΣMᵀ = 0 exactly;
V = −I + ε·X, B = I + ε·Y, with G, Ŝ, X, Y Gaussian with entries of variance 1/d (initialisation
scale), rounded to multiples of 1/20. ε measures how far the attention term VΔBΣ* is from a
Kronecker sum (ε = 0: V = −I, the Riccati case). A second problem per d shifts A[0][1] by 1/7, so
that the equilibrium is no longer rational (the rigorous enclosure route).

For each: the whole ``symgauss certify P.json -o C.json`` process and the whole
``symgauss check C.json`` process (subprocess; wall time and peak resident memory of each
child from wait4), the kind written, the claimed rate against the float spectral abscissa of
the linearisation, the certificate's size. Baselines in the same run, as processes: a plain
float script (numpy/scipy: the dense svec linearisation, n = d(d+1)/2, and its Lyapunov
equation; no proof), and for n ≤ 36 a plain cvxpy + Clarabel LMI of the same size
(find P ⪰ I with LᵀP + PL ⪯ −I; no proof either; at d = 10 it takes seconds, see
``bench_certify.py``, and it grows like n⁶).

Then how often the route decides, on families with stronger coupling (ε = 1, 1.5) and on the
family of ``bench_certify.py`` (entries not scaled with d, so ‖VΔBΣ* − Kronecker part‖ grows
with d): decided / stable in floats, over seeds.

Run: python benchmarks/bench_scale.py [--quick]
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SYMGAUSS = str(Path(sys.executable).parent / "symgauss")


def designed(d: int, eps: float, seed: int = 0, scaled: bool = True, shift=None) -> tuple:
    """(the problem file as a dict, Σ* = I + GGᵀ in floats): see above."""
    import flint
    rng = np.random.default_rng(seed)
    den = 20

    def rat(scale):
        s = scale / np.sqrt(d) if scaled else scale
        x = np.round(s * den * rng.standard_normal((d, d)))
        return flint.fmpq_mat(d, d, [flint.fmpq(int(v), den) for v in x.ravel()])
    eye = flint.fmpq_mat(d, d, [int(i == j) for i in range(d) for j in range(d)])
    G = rat(1.0 if scaled else 0.3)
    S = eye + G * G.transpose()
    V, B, K = rat(eps) - eye, rat(eps) + eye, rat(1.0 if scaled else 0.5)
    A = S * (K - K.transpose()) - V * S * B
    if shift is not None:
        A[0, 1] += flint.fmpq(shift.numerator, shift.denominator)

    def txt(M):
        return [[str(M[i, j]) for j in range(d)] for i in range(d)]
    return ({"name": f"designed d={d} eps={eps} seed={seed}", "cov0": txt(eye), "A": txt(A),
             "V": txt(V), "B": txt(B)},
            np.array([[float(S[i, j]) for j in range(d)] for i in range(d)]))


def run_process(cmd, timeout=1800):
    """(wall s, peak RSS MB, return code, output) of one child process; the peak is measured
    by /usr/bin/time around the child (never the forked copy of this process)."""
    t = time.perf_counter()
    try:
        out = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True,
                             text=True, cwd=ROOT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return float("inf"), float("nan"), -9, ""
    wall = time.perf_counter() - t
    err = out.stderr.strip().splitlines()
    rss = int(err[-1]) / 1024 if err and err[-1].isdigit() else float("nan")
    return wall, rss, out.returncode, out.stdout + "\n".join(err[:-1])


FLOAT_BASELINE = """
import sys, json, numpy as np
from scipy.linalg import solve_continuous_lyapunov
p = json.load(open(sys.argv[1]))
f = lambda M: np.array([[float(__import__('fractions').Fraction(x)) for x in r] for r in M])
A, V, B = f(p['A']), f(p['V']), f(p['B'])
d = len(A); S = 2 * np.eye(d)
for _ in range(60):                                 # dense svec Newton for Sigma*
    M = A + V @ S @ B
    F = M @ S + S @ M.T
    pairs = [(i, j) for i in range(d) for j in range(i, d)]
    cols = []
    for i, j in pairs:
        E = np.zeros((d, d)); E[i, j] = E[j, i] = 1
        X = M @ E + V @ E @ B @ S; X = X + X.T
        cols.append([X[k, l] for k, l in pairs])
    L = np.array(cols).T
    dx = np.linalg.solve(L, -np.array([F[k, l] for k, l in pairs]))
    for (i, j), v in zip(pairs, dx): S[i, j] += v; S[j, i] = S[i, j]
    if np.max(np.abs(dx)) < 1e-13 * (1 + np.max(np.abs(S))): break
P = solve_continuous_lyapunov(L.T, -np.eye(len(L)))
print(float(np.max(np.linalg.eigvals(L).real)), float(np.min(np.linalg.eigvalsh((P + P.T) / 2))))
"""

LMI_BASELINE = FLOAT_BASELINE.replace("P = solve_continuous_lyapunov", """import cvxpy as cp
n = len(L); X = cp.Variable((n, n), symmetric=True)
prob = cp.Problem(cp.Minimize(0), [X >> np.eye(n), L.T @ X + X @ L << -np.eye(n)])
prob.solve(solver=cp.CLARABEL); print(prob.status)
P = solve_continuous_lyapunov""")


def float_abscissa(data, S) -> float:
    """max Re λ of the linearisation at S (floats, dense): the truth the route is judged by."""
    from symgauss.model.linearise import numeric_params
    from symgauss.model.problem_file import problem_from_dict
    from symgauss.questions.stability.kronecker import spectral_abscissa
    A, heads, _ = numeric_params(problem_from_dict(json.loads(json.dumps(data))).params, float)
    return spectral_abscissa(A, heads, S)


def one(tmp: Path, problem: tuple, label: str, extra=(), baselines=True) -> dict:
    data, S = problem
    prob, cert = tmp / f"{label}.json", tmp / f"{label}.cert.json"
    prob.write_text(json.dumps(data))
    c_wall, c_mb, c_rc, c_out = run_process([SYMGAUSS, "certify", str(prob), "-o", str(cert),
                                             *extra])
    row = {"label": label, "d": len(data["cov0"]), "certify_s": c_wall, "certify_mb": c_mb,
           "rc": c_rc}
    if c_rc == 0:
        k_wall, k_mb, k_rc, _ = run_process([SYMGAUSS, "check", str(cert)])
        c = json.loads(cert.read_text())
        row.update(check_s=k_wall, check_mb=k_mb, check_rc=k_rc, kind=c["kind"],
                   level=c["level"], rate=float(Fraction(c["claim"]["rate"])),
                   kb=cert.stat().st_size / 1024)
        S = np.array([[float(Fraction(x)) for x in r]        # the equilibrium certified
                      for r in c["claim"].get("cov", c["claim"].get("cov_center"))])
        t = time.perf_counter()
        from symgauss.kernel.checker import check_file
        assert check_file(cert).ok
        row["check_inproc_s"] = time.perf_counter() - t
    else:
        row.update(kind="refused: " + c_out.strip()[-160:])
    row["abscissa"] = float_abscissa(data, S)
    n = row["d"] * (row["d"] + 1) // 2
    if baselines:
        row["float_s"], row["float_mb"], *_ = run_process([sys.executable, "-c", FLOAT_BASELINE,
                                                           str(prob)])
        if n <= 36:
            row["lmi_s"], row["lmi_mb"], *_ = run_process([sys.executable, "-c", LMI_BASELINE,
                                                           str(prob)], timeout=900)
    return row


def decide_rate(d: int, eps: float, seeds, scaled=True) -> tuple:
    """(decided, prescribed Σ* stable in floats, problems, seconds per problem) for the
    structured route, in-process; a decision about another equilibrium counts too."""
    from symgauss.model.problem_file import problem_from_dict
    from symgauss.questions.stability.structured import certify_structured
    decided = stable = 0
    t = time.perf_counter()
    for seed in seeds:
        data, S = designed(d, eps, seed, scaled)
        stable += float_abscissa(data, S) < 0
        res = certify_structured(problem_from_dict(data), digits=15)
        decided += res.status == "verified"
    return decided, stable, len(seeds), (time.perf_counter() - t) / len(seeds)


def main():
    quick = "--quick" in sys.argv
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}, nproc = {os.cpu_count()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print("| problem | kind (level) | certify s | certify MB | check s (in-process) | check MB "
          "| file KB | rate | −abscissa | float baseline s | LMI baseline s | certify+check / "
          "float |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        run_process([SYMGAUSS, "--help"])      # warm the file cache
        for d in ((4, 8, 16) if quick else (4, 8, 16, 32)):
            table_row(one(tmp, designed(d, 0.3), f"d{d}"))
            if d <= 12:
                table_row(one(tmp, designed(d, 0.3), f"d{d}-structured", ["--structured"],
                              baselines=False))
            table_row(one(tmp, designed(d, 0.3, shift=Fraction(1, 7)), f"d{d}-shifted",
                          baselines=False))
    print()
    print("| family | d | certified / prescribed Σ* stable in floats / problems | s each |")
    print("|---|---:|---|---:|")
    seeds = range(3) if quick else range(6)
    for eps in (0.3, 0.6, 0.8, 1.0):
        dec, st, n, sec = decide_rate(16, eps, seeds)
        print(f"| scaled, ε = {eps} | 16 | {dec} / {st} / {n} | {sec:.1f} |", flush=True)
    for d in ((16,) if quick else (16, 32)):
        dec, st, n, sec = decide_rate(d, 0.1, range(3), scaled=False)
        print(f"| bench_certify's (entries 0.1, not scaled) | {d} | {dec} / {st} / {n} | "
              f"{sec:.1f} |", flush=True)


def table_row(r):
    tot = r["certify_s"] + r.get("check_s", 0)
    fl = r.get("float_s")
    print(f"| {r['label']} | {r['kind']}" + (f" ({r['level']})" if "level" in r else "") +
          f" | {r['certify_s']:.1f} | {r['certify_mb']:.0f} | "
          + (f"{r['check_s']:.2f} ({r['check_inproc_s']:.2f}) | {r['check_mb']:.0f} | "
             f"{r['kb']:.0f} | {r['rate']:.3g}" if "check_s" in r else "– | – | – | –")
          + f" | {-r['abscissa']:.3g} | " + (f"{fl:.1f}" if fl else "–") + " | "
          + (f"{r['lmi_s']:.1f}" if "lmi_s" in r else "–") + " | "
          + (f"{tot / fl:.1f}" if fl else "–") + " |", flush=True)


if __name__ == "__main__":
    main()
