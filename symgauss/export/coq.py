"""``symgauss export-coq``: a verified exact certificate as a Coq file that ``coqc`` re-checks.

The file states, as theorems over ℚ, the algebraic facts the certificate rests on, each proved
by computation (``vm_compute``) against the library in ``coq/SymGauss`` (proved once, no
``Admitted``): the equilibrium equation F(Σ*) = 0 entry by entry, each positive-definite matrix
through the checker ``pd_check`` (proved sound in ``PosDef.v``), the invariance and rank
factorisations. Coq computes every matrix in those facts — F(Σ*), the svec linearisation, the
Lyapunov forms, the reduced problem, the box's vertices — from the problem and claim numbers
written in the file; the hints (``coq_witness``) only help it decide. The main theorem
``certificate`` then applies the named dynamical facts of ``Dynamics.v`` (Lyapunov's theorem, the
inertia theorem, the Bernoulli closed form, rank invariance), and the file ends with
``Print Assumptions certificate``, which lists exactly those.

Exported kinds (the exact ones): stable-equilibrium, stable-equilibrium-in-range,
unstable-equilibrium, common-lyapunov, robust-global, unreachable, and reach when it is exact
(translation and Bernoulli-attention pieces only); and stable-equilibrium-structured, rigorous in
symgauss's checker (ball arithmetic) but resting on rational inequalities at rational points (Σ*
and Q exact), which Coq checks exactly with P the svec Gram matrix of Δ ↦ tr(QΔQΔ). The other
rigorous kinds (enclosures, validated integration, blow-up) are not exported.
"""
from __future__ import annotations

import math

import flint

from symgauss.export.coq_witness import not_nd_hint, pd_hint, rank_hint
from symgauss.kernel.equations import linearisation, riccati_R, velocity_matrix
from symgauss.kernel.errors import SymgaussError
from symgauss.kernel.exact import eye
from symgauss.kernel.flow import pairs
from symgauss.kernel.read import ExactParams, matrix, rational, read_problem, vector

KINDS = ("stable-equilibrium", "stable-equilibrium-in-range", "unstable-equilibrium",
         "common-lyapunov", "robust-global", "unreachable", "reach",
         "stable-equilibrium-structured")
LIBRARY = ("Sums", "Matrix", "PosDef", "Moments", "Dynamics")
MAX_D_SVEC = 12   # the svec routes (n = d(d+1)/2 ≤ 78), as in the kernel


class ExportError(SymgaussError):
    """The certificate cannot be exported (not verified, or not an exact kind)."""


# --- Coq text --------------------------------------------------------------------------------
def q(x) -> str:
    """A rational as the pair (a, b) = a/b, b > 0."""
    x = x if isinstance(x, flint.fmpq) else flint.fmpq(x.numerator, x.denominator)
    return f"(({x.p})%bigZ, ({x.q})%bigZ)"


def ints(rows) -> str:
    """An integer matrix (list of rows of ints)."""
    return "[" + "; ".join("[" + "; ".join(f"({int(x)})%bigZ" for x in r) + "]" for r in rows) + "]"


def mat(M) -> str:
    """A rational matrix as SM den num (num integer, over the least common denominator)."""
    rows = [[M[i, j] for j in range(M.ncols())] for i in range(M.nrows())] \
        if isinstance(M, flint.fmpq_mat) else [[flint.fmpq(x.numerator, x.denominator)
                                                 for x in r] for r in M]
    den = 1
    for r in rows:
        for x in r:
            den = den * int(x.q) // math.gcd(den, int(x.q))
    return f"(SM ({den})%bigZ " + ints([[x.p * (den // int(x.q)) for x in r] for r in rows]) + ")"


def _comment(text: str) -> str:
    return text.replace("(*", "( *").replace("*)", "* )")


class _File:
    """The definitions and lemmas of one exported file, in order."""

    def __init__(self):
        self.parts = []
        self.count = 0

    def define(self, name, typ, value):
        self.parts.append(f"Definition {name} : {typ} := {value}.")
        return name

    def fact(self, name, statement, proof="by_computation."):
        name = f"fact_{name}"
        self.parts.append(f"Lemma {name} : {statement}.\nProof. {proof} Qed.")
        return name

    def pd(self, n, expr, M, what):
        """A lemma ``PD n expr``; M is the same matrix, exactly, for the hint."""
        self.count += 1
        R, T, s = pd_hint(M)
        k = f"pd{self.count}"
        self.parts.append(f"(* {what} *)")
        self.define(f"{k}_R", "imat", ints(R))
        return self.fact(k, f"PD ({n}) ({expr})",
                         f"apply (pd_of_check _ _ {k}_R ({T})%bigZ ({s})%bigZ). "
                         "vm_cast_no_check (eq_refl true).")


def _problem_text(p: ExactParams) -> str:
    heads = "; ".join(f"({mat(V)}, {mat(B)})" for V, B in p.heads)
    return f"Problem {mat(p.A)} [{heads}] {mat(p.b)}"


def decay(L, P, c):
    return -(L.transpose() * P + P * L) - P * c


# --- the stability facts (stable-equilibrium, also for the reduced problem of in-range) --------
def _stable(f: _File, p, pname, claim, w, prefix=""):
    """Facts and the proof terms of Stable (and MeanStable, Attracts) for problem ``pname``."""
    S = claim["cov"]
    cov = f.define(f"{prefix}cov", "smat", mat(S))
    rate = f.define(f"{prefix}rate", "rat", q(claim["rate"]))
    shape = f.fact(f"{prefix}shape", f"WellShaped {pname}")
    sq = f.fact(f"{prefix}cov_square", f"Square (dim {pname}) {cov}")
    eq = f.fact(f"{prefix}equilibrium", f"Zero (residual {pname} {cov})")
    pd_s = f.pd(f"dim {pname}", cov, S, "Σ* ≻ 0")
    common = f"{shape} {sq} {eq} {pd_s}"
    scal = f.fact(f"{prefix}scalar_heads", f"scalar_heads {pname} = true") \
        if "Q" in w or "global_rate" in claim else None
    terms = []
    if "Q" in w:
        Qw = f.define(f"{prefix}Qw", "smat", mat(w["Q"]))
        qs = f.fact(f"{prefix}Q_square", f"Square (dim {pname}) {Qw}")
        qpd = f.pd(f"dim {pname}", Qw, w["Q"], "witness Q ≻ 0")
        N = p.A + S * riccati_R(p)
        dpd = f.pd(f"dim {pname}", f"decay (sadd (pA {pname}) (smul {cov} (riccati_R {pname}))) "
                   f"{Qw} {rate}", decay(N, w["Q"], claim["rate"]),
                   "−(NᵀQ + QN) − ρQ ≻ 0, N = A + Σ*R")
        terms.append((f"Stable {pname} {cov} {rate}",
                      f"lyapunov_riccati {pname} {cov} {Qw} {rate} {shape} {scal} {sq} {eq} "
                      f"{pd_s} {qs} {qpd} {dpd}"))
    else:
        if "Q_gram" in w:
            Qw = f.define(f"{prefix}Qw", "smat", mat(w["Q_gram"]))
            Pw = f.define(f"{prefix}Pw", "smat", f"svec_gram (dim {pname}) {Qw}")
        else:
            Pw = f.define(f"{prefix}Pw", "smat", mat(w["P"]))
        n = f"svec_dim (dim {pname})"
        ps = f.fact(f"{prefix}P_square", f"Square ({n}) {Pw}")
        ppd = f.pd(n, Pw, w["P"], "witness P ≻ 0")
        dpd = f.pd(n, f"decay (linearisation {pname} {cov}) {Pw} (twice {rate})",
                   decay(linearisation(p, S), w["P"], 2 * claim["rate"]),
                   "−(LᵀP + PL) − 2ρP ≻ 0, L the svec linearisation")
        terms.append((f"Stable {pname} {cov} {rate}",
                      f"lyapunov_svec {pname} {cov} {Pw} {rate} {common} {ps} {ppd} {dpd}"))
    if "mean" in claim:
        m = f.define(f"{prefix}mean", "smat", mat(claim["mean"]))
        mr = f.define(f"{prefix}mean_rate", "rat", q(claim["mean_rate"]))
        Pm = f.define(f"{prefix}Pmean", "smat", mat(w["P_mean"]))
        ms = f.fact(f"{prefix}mean_shape", f"Shape (dim {pname}) 1 {m}")
        fix = f.fact(f"{prefix}mean_fixed",
                     f"Zero (sadd (smul (mean_matrix {pname} {cov}) {m}) (pb {pname}))")
        pms = f.fact(f"{prefix}Pmean_square", f"Square (dim {pname}) {Pm}")
        pmpd = f.pd(f"dim {pname}", Pm, w["P_mean"], "witness P_mean ≻ 0")
        Mm = velocity_matrix(p, S, extra=True)
        mdpd = f.pd(f"dim {pname}", f"decay (mean_matrix {pname} {cov}) {Pm} (twice {mr})",
                    decay(Mm, w["P_mean"], 2 * claim["mean_rate"]),
                    "the mean's matrix: −(MᵀP + PM) − 2rP ≻ 0")
        terms.append((f"MeanStable {pname} {cov} {m} {mr}",
                      f"lyapunov_mean {pname} {cov} {m} {Pm} {mr} {shape} {sq} {ms} {fix} {pms} "
                      f"{pmpd} {mdpd}"))
    if "global_rate" in claim:
        g = f.define(f"{prefix}global_rate", "rat", q(claim["global_rate"]))
        Zw = f.define(f"{prefix}Zw", "smat", mat(w["Z"]))
        rneg = f.pd(f"dim {pname}", f"sopp (riccati_R {pname})", -riccati_R(p), "−R ≻ 0")
        zs = f.fact(f"{prefix}Z_square", f"Square (dim {pname}) {Zw}")
        zpd = f.pd(f"dim {pname}", Zw, w["Z"], "witness Z ≻ 0")
        zd = f.pd(f"dim {pname}", f"decay (sopp (str (pA {pname}))) {Zw} (twice {g})",
                  decay(-p.A.transpose(), w["Z"], 2 * claim["global_rate"]),
                  "AZ + ZAᵀ − 2gZ ≻ 0")
        terms.append((f"Attracts {pname} {cov} {g}",
                      f"bernoulli_global {pname} {cov} {Zw} {g} {shape} {scal} "
                      f"{sq} {eq} {pd_s} {rneg} {zs} {zpd} {zd}"))
    return terms


def _numbers(claim, keys, d):
    """The claim's numbers that the facts use, read exactly."""
    out = {}
    for k in keys:
        if k not in claim:
            continue
        v = claim[k]
        out[k] = (vector(v, f"claim.{k}", d) if k == "mean" else
                  matrix(v, f"claim.{k}", d, d) if isinstance(v, list) else rational(v, k))
    return out


def _witness(w, d, n):
    sizes = {"P": n, "Q": d, "P_mean": d, "Z": d}
    return {k: matrix(v, f"witness.{k}", sizes[k], sizes[k]) for k, v in w.items() if k in sizes}


# --- per kind ---------------------------------------------------------------------------------
def svec_gram(Q):
    """P_ab = tr(Q E_a Q E_b) on svec coordinates (the Gram matrix of Δ ↦ tr(QΔQΔ))."""
    d = Q.nrows()
    svec_pairs = pairs(d)
    X = []
    for i, j in svec_pairs:
        E = flint.fmpq_mat(d, d)
        E[i, j] = E[j, i] = 1
        X.append(Q * E * Q)
    n = len(svec_pairs)
    return flint.fmpq_mat(n, n, [X[b][i, j] * (1 if i == j else 2)
                                 for i, j in svec_pairs for b in range(n)])


def _stable_kind(f, cert, problem):
    p, d = problem.params, problem.d
    f.define("prob", "problem", _problem_text(p))
    claim = _numbers(cert["claim"], ("cov", "rate", "mean", "mean_rate", "global_rate"), d)
    w = _witness(cert["witness"], d, d * (d + 1) // 2)
    if cert["kind"] == "stable-equilibrium-structured":   # P = svec Gram of tr(QΔQΔ)
        if d > MAX_D_SVEC:
            raise ExportError(f"kind {cert['kind']} is exported for d ≤ {MAX_D_SVEC} (its Coq "
                              f"check works on svec coordinates, n = d(d+1)/2); this one has "
                              f"d = {d}")
        w = {"Q_gram": w["Q"], "P": svec_gram(w["Q"])}
    return _stable(f, p, "prob", claim, w)


def _in_range(f, cert, problem):
    p, d = problem.params, problem.d
    U = matrix(cert["claim"]["basis"], "claim.basis", d, len(cert["claim"]["basis"][0]))
    r = U.ncols()
    Ut = U.transpose()
    Pi = (Ut * U).inv() * Ut
    At, C = Pi * p.A * U, Pi * problem.cov0 * Pi.transpose()
    heads = tuple((Pi * V * U, Ut * B * U) for V, B in p.heads)
    f.define("prob", "problem", _problem_text(p))
    f.define("cov0", "smat", mat(problem.cov0))
    f.define("U", "smat", mat(U))
    f.define("At", "smat", mat(At))
    f.define("Vts", "list smat", "[" + "; ".join(mat(V) for V, _ in heads) + "]")
    f.define("C", "smat", mat(C))
    f.define("Lam", "smat", mat(Pi))
    f.define("reduced", "problem", "reduce prob U At Vts")
    shape = f.fact("shape", "WellShaped prob")
    inv = f.fact("invariant_range", "InvariantRange prob cov0 U At Vts C Lam")
    cpd = f.pd("length (num At)", "C", C, "C ≻ 0 with cov0 = U C Uᵀ")
    red = _numbers(cert["claim"]["reduced"], ("cov", "rate", "global_rate"), r)
    terms = _stable(f, ExactParams(At, heads, flint.fmpq_mat(r, 1)), "reduced", red,
                    _witness(cert["witness"], r, r * (r + 1) // 2), "r_")
    out = []
    for stmt, term in terms:
        what, rest = stmt.split(" ", 1)
        args = rest.split()[1:]          # drop the problem name
        into = {"Stable": ("StableInRange", "range_stable"),
                "Attracts": ("AttractsInRange", "range_attracts")}[what]
        out.append((f"{into[0]} prob cov0 U {' '.join(args)}",
                    f"{into[1]} prob cov0 U At Vts C Lam {' '.join(args)} {shape} {inv} {cpd} "
                    f"({term})"))
    return out


def _unstable(f, cert, problem):
    p, d = problem.params, problem.d
    n = d * (d + 1) // 2
    S = matrix(cert["claim"]["cov"], "claim.cov", d, d)
    eps = rational(cert["claim"]["growth"], "claim.growth")
    P = matrix(cert["witness"]["P"], "witness.P", n, n)
    f.define("prob", "problem", _problem_text(p))
    f.define("cov", "smat", mat(S))
    f.define("growth", "rat", q(eps))
    f.define("Pw", "smat", mat(P))
    x = not_nd_hint(P)
    f.define("x_hint", "list bigZ", "[" + "; ".join(f"({v})%bigZ" for v in x) + "]")
    facts = [f.fact("shape", "WellShaped prob"), f.fact("cov_square", "Square (dim prob) cov"),
             f.fact("equilibrium", "Zero (residual prob cov)"),
             f.pd("dim prob", "cov", S, "Σ* ≻ 0"),
             f.fact("P_square", "Square (svec_dim (dim prob)) Pw")]
    Le = linearisation(p, S) - eye(n) * eps
    facts.append(f.pd("svec_dim (dim prob)", "let Le := ssub (linearisation prob cov) (sscale "
                      "growth (seye (svec_dim (dim prob)))) in sadd (smul (str Le) Pw) (smul Pw Le)",
                      Le.transpose() * P + P * Le, "(L − εI)ᵀP + P(L − εI) ≻ 0"))
    facts.append(f.fact("P_not_nd", "~ ND (svec_dim (dim prob)) Pw",
                        "apply (not_nd_of_check _ _ x_hint). vm_compute. reflexivity."))
    return [("Unstable prob cov growth",
             f"inertia_instability prob cov Pw growth {' '.join(facts)}")]


def _common(f, cert, problem):
    sets = (problem.params,) if problem.params is not None else tuple(
        p for _, p in problem.controls)
    d = problem.d
    rho = rational(cert["claim"]["rate"], "claim.rate")
    P = matrix(cert["witness"]["P"], "witness.P", d, d)
    f.define("rate", "rat", q(rho))
    f.define("Pw", "smat", mat(P))
    ps = f.fact("P_square", f"Square {d} Pw")
    ppd = f.pd(str(d), "Pw", P, "witness P ≻ 0")
    each = []
    for k, p in enumerate(sets):
        name = f.define(f"set{k}", "problem", _problem_text(p))
        pd = f.pd(str(d), f"decay (pA {name}) Pw (twice rate)", decay(p.A, P, 2 * rho),
                  f"parameter set {k}: −(AᵀP + PA) − 2ρP ≻ 0")
        each.append(f.fact(f"set{k}_ok", f"WellShaped {name} /\\ dim {name} = {d}%nat /\\ "
                           f"PD {d} (decay (pA {name}) Pw (twice rate))",
                           f"split; [by_computation|split; [by_computation|exact {pd}]]."))
    f.define("sets", "list problem", "[" + "; ".join(f"set{k}" for k in range(len(sets))) + "]")
    proof = "(Forall_nil _)"
    for k in reversed(range(len(sets))):
        proof = f"(Forall_cons _ {each[k]} {proof})"
    return [("SwitchedStable sets rate", f"common_lyapunov sets Pw rate {d} {ps} {ppd} {proof}")]


def _robust(f, cert, problem):
    p, d = problem.params, problem.d
    g = rational(cert["claim"]["global_rate"], "claim.global_rate")
    Z = matrix(cert["witness"]["Z"], "witness.Z", d, d)
    box = [(int(e["entry"][1]), int(e["entry"][2]), rational(e["from"], "from"),
            rational(e["to"], "to")) for e in cert["claim"]["box"]]
    f.define("prob", "problem", _problem_text(p))
    f.define("box", "Box", "[" + "; ".join(f"({i}%nat, {j}%nat, {q(lo)}, {q(hi)})"
                                           for i, j, lo, hi in box) + "]")
    f.define("global_rate", "rat", q(g))
    f.define("Zw", "smat", mat(Z))
    verts = [p.A]
    for i, j, lo, hi in box:
        nxt = []
        for V in verts:
            for x in (lo, hi):
                W = V * 1
                W[i, j] = x
                nxt.append(W)
        verts = nxt
    hints = [pd_hint(decay(-V.transpose(), Z, 2 * g)) for V in verts]
    f.define("vertex_hints", "list (imat * bigZ * bigZ)",
             "[" + "; ".join(f"({ints(R)}, ({T})%bigZ, ({s})%bigZ)" for R, T, s in hints) + "]")
    facts = [f.fact("shape", "WellShaped prob"), f.fact("scalar_heads", "scalar_heads prob = true"),
             f.pd("dim prob", "sopp (riccati_R prob)", -riccati_R(p), "−R ≻ 0"),
             f.fact("Z_square", "Square (dim prob) Zw"), f.pd("dim prob", "Zw", Z, "witness Z ≻ 0")]
    facts.append(f.fact(
        "vertices_ok", "Forall (fun Av => PD (dim prob) (decay (sopp (str Av)) Zw (twice global_rate)))"
        " (vertices (pA prob) box)",
        "apply (proj1 (Forall_map (fun Av => decay (sopp (str Av)) Zw (twice global_rate)) "
        "(PD (dim prob)) _)). apply (pd_all_of_check _ _ vertex_hints). vm_compute. "
        "reflexivity."))
    return [("RobustAttracts prob box global_rate",
             f"robust_vertices prob box Zw global_rate {' '.join(facts)}")]


def _rank(f, name, M, d):
    r, X, Y, Lam, Rho = rank_hint(M)
    if r == 0:
        return r, f.fact(f"{name}_rank", f"RankIs {d} 0 {name}",
                         "left. split; [reflexivity|split; by_computation].")
    for k, A in (("X", X), ("Y", Y), ("Lam", Lam), ("Rho", Rho)):
        f.define(f"{name}_{k}", "smat", mat(A))
    return r, f.fact(f"{name}_rank", f"RankIs {d} {r} {name}",
                     f"right. exists {name}_X, {name}_Y, {name}_Lam, {name}_Rho. "
                     + "split; [by_computation|]. " * 5 + "by_computation.")


def _unreachable(f, cert, problem):
    d = problem.d
    f.define("cov0", "smat", mat(problem.cov0))
    f.define("target", "smat", mat(problem.target[1]))
    s0 = f.fact("cov0_square", f"Square {d} cov0")
    s1 = f.fact("target_square", f"Square {d} target")
    r0, k0 = _rank(f, "cov0", problem.cov0, d)
    r1, k1 = _rank(f, "target", problem.target[1], d)
    ne = f.fact("ranks_differ", f"{r0}%nat <> {r1}%nat", "discriminate.")
    return [("Unreachable cov0 target",
             f"rank_invariance {d} cov0 target {r0} {r1} {s0} {s1} {k0} {k1} {ne}")]


def _reach(f, cert, problem):
    from symgauss.kernel.kinds.reach import bernoulli_R, piece_kind
    from symgauss.kernel.read import read_pieces
    d = problem.d
    pieces = read_pieces(cert["witness"]["controls"], d, "witness.controls")
    tm, tc = problem.target
    f.define("cov0", "smat", mat(problem.cov0))
    f.define("mean0", "smat", mat(problem.mean0))
    f.define("target_mean", "smat", mat(tm))
    f.define("target_cov", "smat", mat(tc))
    f.define("eps", "rat", q(rational(cert["claim"]["epsilon"], "claim.epsilon")))
    f.define("T", "rat", q(rational(cert["claim"]["T"], "claim.T")))
    for k, (tau, p) in enumerate(pieces):
        heads = "; ".join(f"({mat(V)}, {mat(B)})" for V, B in p.heads)
        f.define(f"pc{k}", "piece", f"Piece {q(tau)} {mat(p.A)} [{heads}] {mat(p.b)}")
    f.define("pieces", "list piece", "[" + "; ".join(f"pc{k}" for k in range(len(pieces))) + "]")
    m, S, mn, Sn = problem.mean0, problem.cov0, "mean0", "cov0"
    steps = []
    for k, (tau, p) in enumerate(pieces):
        kind = piece_kind(p, d)
        if kind == "translation":
            m = m + p.b * tau
            nxt = f.define(f"m{k + 1}", "smat", mat(m))
            facts = [f.fact(f"pc{k}_kind", f"translation_b pc{k} = true"),
                     f.fact(f"pc{k}_m", f"Shape {d} 1 {mn}"), f.fact(f"pc{k}_S", f"Square {d} {Sn}"),
                     f.fact(f"pc{k}_next", f"MatEq {d} 1 {nxt} (sadd {mn} (sscale (tau pc{k}) "
                                           f"(cb pc{k})))")]
            steps.append(("flow_translation", k, f"{mn} {Sn} {nxt}", facts))
            mn = nxt
        elif kind == "bernoulli":
            P = S.inv()
            P1 = P - bernoulli_R(p, d) * tau
            S = P1.inv()
            Pn = f.define(f"P{k}", "smat", mat(P))
            nxt = f.define(f"S{k + 1}", "smat", mat(S))
            shifted = f"ssub {Pn} (sscale (tau pc{k}) (bernoulli_R {d} pc{k}))"
            facts = [f.fact(f"pc{k}_kind", f"bernoulli_b {d} pc{k} = true"),
                     f.fact(f"pc{k}_m", f"Shape {d} 1 {mn}"), f.fact(f"pc{k}_m0", f"Zero {mn}"),
                     f.fact(f"pc{k}_S", f"Square {d} {Sn}"),
                     f.fact(f"pc{k}_inverse", f"MatEq {d} {d} (smul {Sn} {Pn}) (seye {d})"),
                     f.pd(str(d), Pn, P, f"piece {k}: Σ⁻¹ ≻ 0"),
                     f.pd(str(d), shifted, P1, f"piece {k}: Σ⁻¹ − τR ≻ 0"),
                     f.fact(f"pc{k}_next_square", f"Square {d} {nxt}"),
                     f.fact(f"pc{k}_next", f"MatEq {d} {d} (smul {nxt} ({shifted})) (seye {d})")]
            steps.append(("flow_bernoulli", k, f"{mn} {Sn} {Pn} {nxt}", facts))
            Sn = nxt
        else:
            raise ExportError(f"piece {k} is {kind}: only translation and Bernoulli pieces are "
                              "exact")
    proof = f"flow_nil {mn} {Sn}"
    for axiom, k, states, facts in reversed(steps):
        rest = "[" + "; ".join(f"pc{j}" for j in range(k + 1, len(pieces))) + "]"
        proof = (f"{axiom} pc{k} {rest} {d} {states} {mn} {Sn} {' '.join(facts)} ({proof})")
    close = [f.fact("mean_close", f"sqdist_le_b {mn} target_mean eps = true"),
             f.fact("cov_close", f"sqdist_le_b {Sn} target_cov eps = true"),
             f.fact("duration", "duration_b pieces T = true")]
    return [(f"Flow pieces mean0 cov0 {mn} {Sn}", proof),
            *((f"sqdist_le_b {mn} target_mean eps = true" if c.endswith("mean_close") else
               f"sqdist_le_b {Sn} target_cov eps = true" if c.endswith("cov_close") else
               "duration_b pieces T = true", c) for c in close)]


#: rigorous kinds whose claim reduces to rational inequalities at rational points (exported)
RATIONAL = {"stable-equilibrium-structured"}
WRITERS = {"stable-equilibrium": _stable_kind, "stable-equilibrium-structured": _stable_kind, "stable-equilibrium-in-range": _in_range,
           "unstable-equilibrium": _unstable, "common-lyapunov": _common,
           "robust-global": _robust, "unreachable": _unreachable, "reach": _reach}


def exportable(cert) -> bool:
    """Whether :func:`export` takes this (verified) certificate."""
    return cert.get("kind") in WRITERS and (cert.get("level") == "exact" or
                                            cert.get("kind") in RATIONAL)


def export(cert, source: str = "certificate") -> str:
    """The Coq file for a parsed certificate that the kernel VERIFIES at level exact.

    Raises :class:`ExportError` otherwise (the file is never written for a certificate that
    does not check, and rigorous kinds are not exported).
    """
    from symgauss.kernel.checker import check_certificate
    verdict = check_certificate(cert)
    if verdict.status != "verified":
        raise ExportError(f"{source} is not a verified certificate ({verdict.status}: "
                          f"{verdict.reason}); only verified certificates are exported")
    if cert["kind"] not in WRITERS or (verdict.level != "exact" and cert["kind"] not in RATIONAL):
        raise ExportError(f"{source}: kind {cert['kind']} (level {verdict.level}) is not "
                          f"exported to Coq; exported kinds (exact): {', '.join(KINDS)}")
    f = _File()
    terms = WRITERS[cert["kind"]](f, cert, read_problem(cert["problem"]))
    statement = " /\\ ".join(s for s, _ in terms)
    proof = terms[-1][1]
    for _, t in reversed(terms[:-1]):
        proof = f"conj ({t}) ({proof})"
    header = (f"(* Generated by symgauss export-coq from {_comment(source)}: kind "
              f"{cert['kind']}, problem {cert['problem_hash']}.\n   Claim: "
              f"{_comment(verdict.reason)}\n   Check: coqc -R <coq/SymGauss> SymGauss <this file>; "
              "the last line lists the assumptions of the main theorem. *)")
    return "\n\n".join([
        header, "From Coq Require Import ZArith List.\nFrom Bignums Require Import BigZ.\n"
        f"From SymGauss Require Import {' '.join(LIBRARY)}.\n"
        "Import ListNotations.", *f.parts,
        f"Theorem certificate : {statement}.\nProof. exact ({proof}). Qed.",
        "Print Assumptions certificate."]) + "\n"
