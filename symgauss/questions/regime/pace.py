"""When validated steps towards a region should give up: their pace against the float run's entry.

A run of validated steps that cannot reach its region within its step budget costs the search as
much as one that can (each step is checked by the kernel's functions while it is made), and the
kernel's cap of 2 000 steps is met after tens of seconds at d = 3. The float run says when the
solution enters the region (t_in); every EVERY steps from FIRST_LOOK on, the steps' pace over the
last EVERY steps, times a margin, is extrapolated over the steps left: if that cannot reach t_in,
the run stops. Untrusted search only: the answer is the kernel's, on the steps that were made.
"""
from __future__ import annotations

import math

#: the pace is looked at every EVERY steps from FIRST_LOOK on (seed-71 symmetric-B-33-d2 enters
#: its growth region after 1540 steps, where 1000 were allowed before); a run whose budget ends
#: before FIRST_LOOK, from half its budget (at d = 4 the C¹ steps' budget is 888: they were
#: never looked at)
FIRST_LOOK, EVERY = 1000, 200


def first_look(budget: int) -> int:
    """The first step count at which a run of ``budget`` steps is looked at."""
    return FIRST_LOOK if budget > FIRST_LOOK else max(EVERY, budget // 2)


def too_slow(times: list, left: int, t_in, speedup: float = 1.0, first: int = FIRST_LOOK) -> bool:
    """Whether steps that have reached ``times`` (the start, then one entry a step) cannot get to
    the float entry time ``t_in`` within ``left`` more steps, even at ``speedup`` times the pace
    of their last EVERY steps; looked at every EVERY steps from ``first`` on (never when t_in
    is unknown)."""
    k = len(times) - 1
    return (t_in is not None and k >= first and k % EVERY == 0 and
            times[-1] + left * speedup * (times[-1] - times[-1 - EVERY]) / EVERY < t_in)


def guard(inside, budget: int, t_in, speedup: float = 1.0):
    """(stop_time, lost): ``stop_time(c, r, t)`` for validated steps towards a region — True
    once ``inside(c, r)``, or once :func:`too_slow` with ``budget`` steps in all, when ``lost``
    gets (steps, t). It is called before each step (twice at one t by the C¹ steps'
    two radius tests), so a repeated t counts once, and a lost run stays lost."""
    times, lost = [], []

    def stop_time(c, r, t):
        if lost:
            return True
        if inside(c, r):
            return True
        if not times or float(t) != times[-1]:
            times.append(float(t))
        k = len(times) - 1
        if too_slow(times, budget - k, t_in, speedup, first_look(budget)):
            lost.append((k, times[-1]))
            return True
        return False
    return stop_time, lost


def lost_why(lost: list, t_in) -> str:
    """Why a run that ``lost`` its pace stopped."""
    where = ("never enters" if t_in is None or t_in == math.inf else
             f"enters near t ≈ {t_in:.4g}")
    return (f"{lost[0][0]} steps reached t = {lost[0][1]:.4g}; at their pace they cannot reach "
            f"the region within their budget; the float run {where}")
