"""C¹ steps against log-norm steps: what the kernel pays to check one, and what each keeps.

For d = 2…5 with 1 and 8 heads (random A with unit diagonal, heads of size 0.3, Σ0 = I, seed
1): 30 steps of each kind from the same start (``integrate_c1`` and ``integrate``), then the
kernel's ``check_steps`` on each list, timed per step. The baseline is the log-norm step,
measured in the same run; "charged" is flow.STEP_COST["c1"]'s µs for that step, which must stay
above the measured time (the kernel's work limit counts it). Then the turning flow of
tests/test_c1_steps.py (Σ' = AΣ + ΣAᵀ, A = [[1/10, 3], [−3, 1/10]], t = 10, start radius
10⁻⁸): the end radius of each kind.
The whole ``symgauss regime`` / ``symgauss check`` processes on symgauss/examples/c1_limit.json:
``python benchmarks/bench_regime.py --cli``.

Run: python benchmarks/bench_c1_steps.py
"""
from __future__ import annotations

import random
import time

import flint

from symgauss.integrate.mean_value import integrate_c1
from symgauss.integrate.validated import integrate
from symgauss.kernel.equations import svec
from symgauss.kernel.exact import eye
from symgauss.kernel.flow import Flow, step_work
from symgauss.kernel.kinds.blowup_infinity import CompactFlow
from symgauss.kernel.read import read_problem
from symgauss.kernel.steps import check_steps


def _problem(d: int, heads: int, rng):
    def rnd(s):
        return [[str(round(rng.uniform(-s, s), 2)) for _ in range(d)] for _ in range(d)]
    A = rnd(1.0)
    for i in range(d):
        A[i][i] = "1"
    return read_problem({"cov0": [[int(i == j) for j in range(d)] for i in range(d)], "A": A,
                         "heads": [{"V": rnd(0.3), "B": rnd(0.3)} for _ in range(heads)]})


def _check_per_step(p, steps) -> float:
    n = len(svec(p.cov0))
    with flint.ctx.workprec(128):
        t0 = time.perf_counter()
        check_steps(Flow(p.params), flint.arb_mat(eye(n)), flint.fmpq(1), svec(p.cov0), steps, 24)
        return (time.perf_counter() - t0) / max(1, len(steps))


def costs() -> None:
    rng = random.Random(1)
    print("| d | heads | log-norm µs/step (baseline) | C¹ µs/step | ratio | charged C¹ µs |")
    print("|---|---|---|---|---|---|")
    for d in (2, 3, 4, 5):
        for heads in (1, 8):
            p = _problem(d, heads, rng)
            n = d * (d + 1) // 2
            c1 = integrate_c1(p.params, svec(p.cov0), eye(n), None, t_max=1e9, max_steps=30)
            log = integrate(p.params, svec(p.cov0), eye(n), flint.fmpq(1), None, t_max=1e9,
                            max_steps=30)
            a, b = _check_per_step(p, log.steps), _check_per_step(p, c1.steps)
            charged = step_work(d, heads, 24, 128, "c1")
            print(f"| {d} | {heads} | {a * 1e6:.0f} | {b * 1e6:.0f} | {b / a:.2f} | "
                  f"{charged} |", flush=True)


def _compact_start(p):
    """z0 = (w = 0, u = 1/tr Σ0, svec Σ0/tr Σ0) of the compactified flow with the elapsed time."""
    d = p.cov0.nrows()
    return [flint.fmpq(0), flint.fmpq(1, d)] + [x / d for x in svec(p.cov0)]


def _check_compact(p, steps) -> float:
    n = len(svec(p.cov0)) + 2
    with flint.ctx.workprec(128):
        t0 = time.perf_counter()
        check_steps(CompactFlow(Flow(p.params)), flint.arb_mat(eye(n)), flint.fmpq(1),
                    _compact_start(p), steps, 24)
        return (time.perf_counter() - t0) / max(1, len(steps))


def compact_costs() -> None:
    """The same for the compactified flow (:class:`CompactFlow`, from (0, 1/d, Σ0/d)): the
    baseline is its log-norm step; "charged" is flow.STEP_COST["compact-c1"]."""
    rng = random.Random(1)
    print("| d | heads | compact log-norm µs/step (baseline) | compact C¹ µs/step | ratio | "
          "charged compact C¹ µs |")
    print("|---|---|---|---|---|---|")
    for d in (2, 3, 4, 5):
        for heads in (1, 8):
            p = _problem(d, heads, rng)
            n = d * (d + 1) // 2 + 2
            with flint.ctx.workprec(128):
                cf = CompactFlow(Flow(p.params))
            z0 = _compact_start(p)
            c1 = integrate_c1(p.params, z0, eye(n), None, t_max=1e9, max_steps=30, flow=cf)
            log = integrate(p.params, z0, eye(n), flint.fmpq(1), None, t_max=1e9,
                            max_steps=30, flow=cf)
            a, b = _check_compact(p, log.steps), _check_compact(p, c1.steps)
            charged = step_work(d, heads, 24, 128, "compact-c1")
            print(f"| {d} | {heads} | {a * 1e6:.0f} | {b * 1e6:.0f} | {b / a:.2f} | "
                  f"{charged} |", flush=True)


def turning() -> None:
    p = read_problem({"cov0": [[2, 0], [0, "1/2"]], "A": [["1/10", 3], [-3, "1/10"]]})
    start, r0 = [flint.fmpq(2), flint.fmpq(0), flint.fmpq(1, 2)], flint.arb(flint.fmpq(1, 10 ** 8))
    for name, run in (("log-norm", integrate(p.params, start, eye(3), flint.fmpq(1), None,
                                            t_max=10, max_steps=2000, radius=r0)),
                      ("C¹", integrate_c1(p.params, start, eye(3), None, t_max=10,
                                          max_steps=2000, radius=r0))):
        print(f"turning flow, {name} steps: {len(run.steps)} steps to t = {float(run.t):.3g}, "
              f"end radius {float(run.radius.mid()):.3g} (start 1e-8)")


if __name__ == "__main__":
    costs()
    compact_costs()
    turning()
