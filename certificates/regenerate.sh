#!/usr/bin/env bash
# Regenerate every certificate in this folder from the built-in examples (run from the
# repository root with symgauss installed). Each command writes a certificate that
# `symgauss check` then re-verifies; the test suite re-checks the files checked in here.
# Seven files here come from an older search and are kept on purpose: limit_general3,
# limit_singular, blowup_trajectory_general, growth_general, growth_schur_d3, growth_axis and
# growth_axis_transient. Today's search (more steps at small d) proves the same regimes with
# other witnesses (other steps, P, t_enter): growth_axis_transient without changes of metric, and
# with more slack, so that a point nudged by 1e-6 can still be a proof. Tests use these files as
# fixtures of the metrics path and of tampering that must be refused (tests/test_growth_axis.py,
# test_growth.py, test_regime_validated.py: 13 fail on the regenerated files). On one machine
# this script is deterministic (two runs gave the same bytes, 2026-12-02). Two more files differ
# from what it makes on the AMD EPYC machine (2026-12-03, code of 729b622 and of 84480ce alike):
# blowup_infinity_general and blowup_slab_two_heads, in the last digits of the float-searched
# metrics P and of some step log-norms, and so in the claimed T* bounds (by < 1e-11); the
# checked-in files verify, and tests/test_compact.py, test_blowup_slab.py and test_c1_steps.py
# use them as they are.
set -euo pipefail
ex=symgauss/examples
out=certificates
symgauss certify "$ex/stable_diag.json" -o "$out/stable_diag.json"
symgauss certify "$ex/multihead.json" -o "$out/multihead.json"
symgauss certify "$ex/general3.json" -o "$out/general3.json"
symgauss certify "$ex/multihead.json" --structured -o "$out/structured_multihead.json"
symgauss certify "$ex/general3.json" --structured -o "$out/structured_enclosed_general3.json"
symgauss certify "$ex/rank_deficient.json" -o "$out/in_range_rank_deficient.json"
symgauss certify "$ex/threshold.json" -o /dev/null --evidence "$out/threshold_unstable.json" || true
symgauss certify "$ex/switched.json" -o "$out/switched_common_lyapunov.json"
box=$(mktemp)
echo '[{"entry": ["A", 0, 1], "from": "-1/2", "to": "1/2"}, {"entry": ["A", 1, 1], "from": 2, "to": 4}]' > "$box"
symgauss certify "$ex/stable_diag.json" --box "$box" -o "$out/robust_global_stable_diag.json"
rm -f "$box"
symgauss certify "$ex/blowup_diag.json" -o "$out/blowup_diag.json"
symgauss certify "$ex/scalar_blowup.json" -o "$out/blowup_scalar.json"
symgauss certify "$ex/blowup_late.json" -o "$out/blowup_late.json"
symgauss reach "$ex/reach_geodesic.json" --certificate "$out/reach_geodesic.json" >/dev/null
symgauss reach "$ex/reach_geodesic.json" --method attention --certificate "$out/reach_geodesic_attention.json" >/dev/null
symgauss reach "$ex/rank1_d3.json" --certificate "$out/reach_rank1_d3.json" >/dev/null
symgauss reach "$ex/rank_mismatch.json" --certificate "$out/unreachable_rank_mismatch.json" >/dev/null
symgauss regime "$ex/general3.json" --certificate "$out/limit_general3.json" >/dev/null
symgauss regime "$ex/singular_limit.json" --certificate "$out/limit_singular.json" >/dev/null
symgauss regime "$ex/c1_limit.json" --certificate "$out/limit_c1.json" >/dev/null
symgauss regime "$ex/transient_equilibrium.json" --certificate "$out/limit_transient.json" >/dev/null
symgauss regime "$ex/general_blowup.json" --certificate "$out/blowup_trajectory_general.json" >/dev/null
symgauss regime "$ex/blowup_at_infinity.json" --certificate "$out/blowup_slab_general.json" >/dev/null
symgauss regime "$ex/blowup_at_infinity_d3.json" --certificate "$out/blowup_infinity_general.json" >/dev/null
symgauss regime "$ex/blowup_infinity_metrics.json" --certificate "$out/blowup_infinity_metrics.json" >/dev/null
symgauss regime "$ex/blowup_slab.json" --certificate "$out/blowup_slab_two_heads.json" >/dev/null
symgauss regime "$ex/blowup_stiff.json" --certificate "$out/blowup_slab_stiff.json" >/dev/null
symgauss regime "$ex/blowup_turning.json" --certificate "$out/blowup_turning.json" >/dev/null
symgauss regime "$ex/blowup_turning_c1.json" --certificate "$out/blowup_turning_c1.json" >/dev/null
symgauss regime "$ex/riccati_limit.json" --certificate "$out/limit_riccati.json" >/dev/null
symgauss regime "$ex/singular_limit_vi.json" --certificate "$out/limit_closed_form.json" >/dev/null
symgauss regime "$ex/singular_limit_vi_indefinite.json" --certificate "$out/limit_closed_pieces.json" >/dev/null
symgauss regime "$ex/bounded.json" --certificate "$out/bounded_linear.json" >/dev/null
symgauss regime "$ex/decay_a0.json" --certificate "$out/decay_cone.json" >/dev/null
symgauss regime "$ex/decay_singular_a.json" --certificate "$out/decay_cone_steps.json" >/dev/null
symgauss regime "$ex/growth.json" --certificate "$out/growth_general.json" >/dev/null
symgauss regime "$ex/growth_d3.json" --certificate "$out/growth_schur_d3.json" >/dev/null
symgauss regime "$ex/growth_schur_edge.json" --certificate "$out/growth_schur_edge.json" >/dev/null
symgauss regime "$ex/bounded_turning.json" --certificate "$out/bounded_turning.json" >/dev/null
symgauss regime "$ex/decay_centre.json" --certificate "$out/decay_centre.json" >/dev/null
symgauss regime "$ex/growth_quasi.json" --certificate "$out/growth_quasi.json" >/dev/null
symgauss regime "$ex/growth_two_heads.json" --certificate "$out/growth_two_heads.json" >/dev/null
symgauss regime "$ex/growth_centre_terms.json" --certificate "$out/growth_centre_terms.json" >/dev/null
symgauss regime "$ex/growth_compact.json" --certificate "$out/growth_compact.json" >/dev/null
symgauss regime "$ex/growth_riccati.json" --certificate "$out/growth_riccati.json" >/dev/null
symgauss regime "$ex/growth_axis.json" --certificate "$out/growth_axis.json" >/dev/null
symgauss regime "$ex/growth_axis_transient.json" --certificate "$out/growth_axis_transient.json" >/dev/null
symgauss regime "$ex/growth_axis_c1.json" --certificate "$out/growth_axis_c1.json" >/dev/null
symgauss regime "$ex/growth_axis_row.json" --certificate "$out/growth_axis_row.json" >/dev/null
symgauss regime "$ex/linear_constant.json" --certificate "$out/linear_constant.json" >/dev/null
symgauss regime "$ex/linear_decay.json" --certificate "$out/linear_decay.json" >/dev/null
symgauss regime "$ex/linear_growth.json" --certificate "$out/linear_growth.json" >/dev/null
symgauss check "$out"/*.json
