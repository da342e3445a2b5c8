"""The pace test that stops validated steps which cannot reach their region within their budget
(:mod:`symgauss.questions.regime.pace`), on runs simulated step by step."""
import math

from symgauss.questions.regime.pace import EVERY, FIRST_LOOK, first_look, guard, lost_why, too_slow

#: a step length whose sums are exact in floats
H = 2.0 ** -6


def _run(stop, h, steps, inside_at=math.inf):
    """Call ``stop`` as integrate does (before each step, from t = 0), with steps of length
    ``h(k)``; the number of steps made when it said stop (or ``steps``)."""
    t = 0.0
    for k in range(steps + 1):
        if stop(None, t >= inside_at, t):
            return k
        t += h(k)
    return steps


def test_too_slow_extrapolates_the_last_steps_pace():
    times = [0.01 * k for k in range(FIRST_LOOK + 1)]     # t = 10 after FIRST_LOOK steps
    # 900 more steps at 0.01 reach t = 19: short of 19.5, past 18.5
    assert too_slow(times, 900, 19.5)
    assert not too_slow(times, 900, 18.5)
    assert not too_slow(times, 900, 19.5, speedup=1.2)      # 20.8 at 1.2 times the pace
    assert not too_slow(times, 900, None)                   # no float entry: never
    assert not too_slow(times[:-1], 900, 19.5)              # before FIRST_LOOK: not looked at
    assert too_slow(times, 900, math.inf)                   # the float run never enters


def test_the_guard_stops_at_its_first_look_when_the_region_is_out_of_reach():
    stop, lost = guard(lambda c, r: r, 2000, 100.0)
    k = _run(stop, lambda k: H, 2000)       # 2000 steps reach t = 31.25 < 100
    assert k == FIRST_LOOK and lost == [(FIRST_LOOK, FIRST_LOOK * H)]
    assert "1000 steps reached t = 15.62" in lost_why(lost, 100.0)
    assert "enters near t ≈ 100" in lost_why(lost, 100.0)
    assert stop(None, True, 20.0)       # a lost run stays lost, even inside


def test_the_guard_lets_a_run_that_can_get_there_go_on_and_enter():
    # H a step: the float entry at t = 20 is reached after 1280 of the 2000 steps allowed
    stop, lost = guard(lambda c, r: r, 2000, 20.0)
    assert _run(stop, lambda k: H, 2000, inside_at=20.0) == 1280 and not lost


def test_the_guard_looks_at_the_recent_pace_not_the_average():
    # slow at first (0.001), then 0.05 a step: the average says never, the last EVERY steps
    # say t = 31 + ... well past the entry at 40
    def h(k):
        return 0.001 if k < FIRST_LOOK - EVERY else 0.05
    stop, lost = guard(lambda c, r: r, 2000, 40.0)
    assert _run(stop, h, 2000, inside_at=40.0) < 2000 and not lost


def test_a_repeated_time_counts_as_one_step():
    # the C¹ steps ask twice at one t (a float radius, then the exact one)
    calls = []
    stop, lost = guard(lambda c, r: False, 2000, 100.0)
    t = 0.0
    for k in range(FIRST_LOOK + 1):
        calls.append(stop(None, None, t))
        calls.append(stop(None, None, t))
        t += H
    assert calls.index(True) == 2 * FIRST_LOOK and lost == [(FIRST_LOOK, FIRST_LOOK * H)]


def test_the_whole_budget_counts():
    # H a step, entry at t = 31 (step 1984 of 2000): the last look (k = 1800, t = 28.125) sees
    # 200 steps left, enough at 1.5 times the pace; at the pace alone 200 steps reach 31.25 too
    for speedup in (1.0, 1.5):
        stop, lost = guard(lambda c, r: r, 2000, 31.0, speedup)
        assert _run(stop, lambda k: H, 2000, inside_at=31.0) == 1984 and not lost


def test_a_budget_below_the_first_look_is_looked_at_from_its_half():
    # 888 steps (the C¹ budget at d = 4): looked at from step 444, i.e. at 600 and 800
    assert first_look(888) == 444 and first_look(2000) == FIRST_LOOK and first_look(300) == EVERY
    stop, lost = guard(lambda c, r: r, 888, 100.0)
    assert _run(stop, lambda k: H, 888) == 600 and lost == [(600, 600 * H)]
    # one that gets there within its 888 steps is not stopped: entry at t = 13 is step 832
    stop, lost = guard(lambda c, r: r, 888, 13.0)
    assert _run(stop, lambda k: H, 888, inside_at=13.0) == 832 and not lost
