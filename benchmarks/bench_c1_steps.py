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


def _setup(p, compact: bool):
    """(flow, start): eq. 1.1 from svec Σ0, or the compactified flow with the elapsed time
    (:class:`CompactFlow`) from z0 = (w = 0, u = 1/tr Σ0, svec Σ0/tr Σ0), at 128 bits."""
    with flint.ctx.workprec(128):
        flow = Flow(p.params)
        if not compact:
            return flow, svec(p.cov0)
        d = p.cov0.nrows()
        return CompactFlow(flow), [flint.fmpq(0), flint.fmpq(1, d)] + [x / d for x in
                                                                        svec(p.cov0)]


def _check_per_step(p, steps, compact: bool = False) -> float:
    flow, start = _setup(p, compact)
    n = len(start)
    with flint.ctx.workprec(128):
        t0 = time.perf_counter()
        check_steps(flow, flint.arb_mat(eye(n)), flint.fmpq(1), start, steps, 24)
        return (time.perf_counter() - t0) / max(1, len(steps))


def costs(compact: bool = False) -> None:
    """What the kernel pays per C¹ step against a log-norm step, for eq. 1.1 or (``compact``)
    the compactified flow; "charged" is flow.STEP_COST["c1"] or ["compact-c1"]."""
    rng = random.Random(1)
    kind, name = ("compact-c1", "compact ") if compact else ("c1", "")
    print(f"| d | heads | {name}log-norm µs/step (baseline) | {name}C¹ µs/step | ratio | "
          f"charged {name}C¹ µs |")
    print("|---|---|---|---|---|---|")
    for d in (2, 3, 4, 5):
        for heads in (1, 8):
            p = _problem(d, heads, rng)
            flow, start = _setup(p, compact)
            n = len(start)
            c1 = integrate_c1(p.params, start, eye(n), None, t_max=1e9, max_steps=30, flow=flow)
            log = integrate(p.params, start, eye(n), flint.fmpq(1), None, t_max=1e9,
                            max_steps=30, flow=flow)
            a, b = (_check_per_step(p, run.steps, compact) for run in (log, c1))
            charged = step_work(d, heads, 24, 128, kind)
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
    costs(compact=True)
    turning()
