"""Names vulture cannot see used: called by the interpreter, a library or a user by name.

Read (never run) by ``python -m vulture symgauss tests benchmarks`` in tests/test_layout.py;
pytest skips this file (tests/conftest.py: collect_ignore).
"""
# module-level __getattr__ / __dir__ of the lazy public API (PEP 562)
__getattr__, __dir__
# SymPy's printer dispatch: _print_<Class> methods and the printmethod attribute
_print_Transpose, printmethod
# scipy.integrate.solve_ivp reads event.terminal; argparse reads parser.formatter_class
terminal, formatter_class
# pytest finds autouse fixtures, conftest variables and a module's marks by name
_global_state_unchanged, collect_ignore, pytest_runtest_makereport, call, pytestmark
pytest_collection_modifyitems
# fields of result objects that users read (REPL, notebooks), not the code itself
velocity_offset, newton_steps, last_step, univariate_degree
envelope_opposite, envelope_same, rate_sw2, exponent_sqrt_skewness
