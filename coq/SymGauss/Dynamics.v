(** The dynamical facts: stated once, here, and nowhere else.

    Everything in the other files is proved in Coq. The step from the algebraic facts that an
    exported certificate proves (an exact equilibrium equation, positive-definite matrices, exact
    factorisations) to a statement about the flow of the moment ODE is classical mathematics
    that this library does not formalise: Lyapunov's theorem, the inertia theorem, the Bernoulli
    closed form and the rank invariance of the flow (math.md §3–4). Each is a named [Axiom]
    below, about a [Parameter] that names the dynamical property in words. [Print Assumptions]
    of an exported certificate's main theorem lists exactly the ones it uses, besides Coq's
    primitive 63-bit integers and their specification axioms ([PrimInt63], [Uint63]), on which
    the Bignums integers compute — and nothing else (no Admitted, no other axiom).

    Notation: d = dim p, n = d(d+1)/2, L = linearisation p S (the svec matrix of DF(S)). PD
    is positive definiteness of the rational matrix (PosDef.v). Rationals are pairs (a, b) = a/b. *)
From Coq Require Import ZArith List.
From Bignums Require Import BigZ.
From SymGauss Require Import Matrix PosDef Moments.
Import ListNotations.

(** [Stable p S ρ]: S is an equilibrium of Σ' = F(Σ) for p and every eigenvalue of DF(S) on
    Sym(d) has real part ≤ −ρ; so S is locally exponentially stable (Lyapunov's indirect
    method). *)
Parameter Stable : problem -> smat -> rat -> Prop.

(** Lyapunov's theorem for the linearisation on Sym(d) in svec coordinates: P ≻ 0 with
    −(LᵀP + PL) − 2ρP ≻ 0 puts every eigenvalue of L in Re < −ρ. *)
Axiom lyapunov_svec : forall p S P rho,
  WellShaped p -> Square (dim p) S -> Zero (residual p S) -> PD (dim p) S ->
  Square (svec_dim (dim p)) P -> PD (svec_dim (dim p)) P ->
  PD (svec_dim (dim p)) (decay (linearisation p S) P (twice rho)) -> Stable p S rho.

(** When every V_h = v_h·I, DF(S)[Δ] = NΔ + ΔNᵀ with N = A + S·R (math.md §4), whose eigenvalues
    are λ_i + λ_j for λ eigenvalues of N; Q ≻ 0 with −(NᵀQ + QN) − ρQ ≻ 0 puts each λ in
    Re < −ρ/2. *)
Axiom lyapunov_riccati : forall p S Q rho,
  WellShaped p -> scalar_heads p = true -> Square (dim p) S -> Zero (residual p S) ->
  PD (dim p) S -> Square (dim p) Q -> PD (dim p) Q ->
  PD (dim p) (decay (sadd (pA p) (smul S (riccati_R p))) Q rho) -> Stable p S rho.

(** [MeanStable p S m r]: m is the mean's fixed point at Σ* = S ((A + Σ_h(V_h + V_hSB_h)) m + b
    = 0) and every eigenvalue of that matrix has real part ≤ −r; with [Stable p S ρ] the coupled
    (m, Σ) system is locally exponentially stable at (m, S) (its linearisation is block
    triangular). *)
Parameter MeanStable : problem -> smat -> smat -> rat -> Prop.
Axiom lyapunov_mean : forall p S m Pm r,
  WellShaped p -> Square (dim p) S -> Shape (dim p) 1 m ->
  Zero (sadd (smul (mean_matrix p S) m) (pb p)) -> Square (dim p) Pm -> PD (dim p) Pm ->
  PD (dim p) (decay (mean_matrix p S) Pm (twice r)) -> MeanStable p S m r.

(** [Attracts p S g]: every Σ0 ≻ 0 converges to S, with Σ(t)⁻¹ − S⁻¹ = O(e^(−2g·t)). With every
    V_h = v_h·I, P = Σ⁻¹ solves P' = −AᵀP − PA − R (math.md §4); R ≺ 0 keeps P ≻ 0 for all
    t, and Z ≻ 0 with AZ + ZAᵀ − 2gZ ≻ 0 (the decay form of −Aᵀ) makes P − S⁻¹ decay. *)
Parameter Attracts : problem -> smat -> rat -> Prop.
Axiom bernoulli_global : forall p S Z g,
  WellShaped p -> scalar_heads p = true -> Square (dim p) S -> Zero (residual p S) ->
  PD (dim p) S -> PD (dim p) (sopp (riccati_R p)) -> Square (dim p) Z -> PD (dim p) Z ->
  PD (dim p) (decay (sopp (str (pA p))) Z (twice g)) -> Attracts p S g.

(** [Unstable p S ε]: S is an equilibrium and DF(S) has an eigenvalue with real part > ε. The
    inertia theorem: with Le = L − εI, (Le)ᵀP + P·Le ≻ 0 and P not negative definite force an
    eigenvalue of Le with positive real part. *)
Parameter Unstable : problem -> smat -> rat -> Prop.
Axiom inertia_instability : forall p S P eps,
  WellShaped p -> Square (dim p) S -> Zero (residual p S) -> PD (dim p) S ->
  Square (svec_dim (dim p)) P ->
  PD (svec_dim (dim p))
     (let Le := ssub (linearisation p S) (sscale eps (seye (svec_dim (dim p)))) in
      sadd (smul (str Le) P) (smul P Le)) ->
  ~ ND (svec_dim (dim p)) P -> Unstable p S eps.

(** [SwitchedStable ps ρ]: the parameter sets ps share the Lyapunov function tr(PΣ) with
    tr(P(AΣ + ΣAᵀ)) ≤ −2ρ·tr(PΣ) for every Σ ⪰ 0 and each set's A; so under any switching among
    them Σ(t) → 0 at that rate when no set has attention, and Σ = 0 is locally exponentially
    stable otherwise. From P ≻ 0 with −(AᵀP + PA) − 2ρP ≻ 0 for each A. *)
Parameter SwitchedStable : list problem -> rat -> Prop.
Axiom common_lyapunov : forall ps P rho d,
  Square d P -> PD d P ->
  Forall (fun p => WellShaped p /\ dim p = d /\ PD d (decay (pA p) P (twice rho))) ps ->
  SwitchedStable ps rho.

(** [RobustAttracts p box g]: for every A' equal to A except the box's entries, each within its
    [lo, hi], every Σ0 ≻ 0 converges to the unique Σ*(A') ≻ 0 with rate 2g. The decay form of
    −A'ᵀ, A'Z + ZA'ᵀ − 2gZ, is affine in A', so positive definiteness at the box's vertices
    gives it on the box (convexity); then the argument of [bernoulli_global] for each A'. *)
Parameter RobustAttracts : problem -> Box -> rat -> Prop.
Axiom robust_vertices : forall p box Z g,
  WellShaped p -> scalar_heads p = true -> PD (dim p) (sopp (riccati_R p)) ->
  Square (dim p) Z -> PD (dim p) Z ->
  Forall (fun Av => PD (dim p) (decay (sopp (str Av)) Z (twice g))) (vertices (pA p) box) ->
  RobustAttracts p box g.

(** [StableInRange p cov0 U S ρ] / [AttractsInRange p cov0 U S g]: range U = range cov0 is
    invariant under A and every V_h, so Σ(t) = U S(t) Uᵀ where S(t) solves the reduced problem's
    covariance equation; hence the reduced problem's [Stable] / [Attracts] for S* = S hold for
    U S Uᵀ within {U S Uᵀ : S ≻ 0} (cov0 among them). *)
Parameter StableInRange : problem -> smat -> smat -> smat -> rat -> Prop.
Parameter AttractsInRange : problem -> smat -> smat -> smat -> rat -> Prop.
Axiom range_stable : forall p cov0 U At Vts C Lam S rho,
  WellShaped p -> InvariantRange p cov0 U At Vts C Lam -> PD (length (num At)) C ->
  Stable (reduce p U At Vts) S rho -> StableInRange p cov0 U S rho.
Axiom range_attracts : forall p cov0 U At Vts C Lam S g,
  WellShaped p -> InvariantRange p cov0 U At Vts C Lam -> PD (length (num At)) C ->
  Attracts (reduce p U At Vts) S g -> AttractsInRange p cov0 U S g.

(** [Unreachable cov0 target]: no control (A, V_h, B_h, b depending on t) steers a Gaussian of
    covariance cov0 to one of covariance target at any time. Rank is invariant under the flow
    (Σ(t) = Φ(t) Σ0 Φ(t)ᵀ, Φ(t) invertible), and [RankIs] pins the rank (rank ≤ r from a
    factorisation through ℚ^r, rank ≥ r from an r×r identity inside): different ranks. *)
Parameter Unreachable : smat -> smat -> Prop.
Axiom rank_invariance : forall d cov0 target r0 r1,
  Square d cov0 -> Square d target -> RankIs d r0 cov0 -> RankIs d r1 target -> r0 <> r1 ->
  Unreachable cov0 target.

(** [Flow pcs m0 S0 m1 S1]: under the pieces pcs in order (each for its duration τ), the moment
    ODE's solution from (m0, S0) exists on the whole time and ends at (m1, S1). Built piece by
    piece from three facts: the empty list; a translation piece (A = 0, every V_h = 0: m' = b,
    Σ' = 0); a Bernoulli piece (A = 0, b = 0, active V_h = v_h·I, entered with m = 0 and
    Σ = P⁻¹ ≻ 0): P = Σ⁻¹ solves P' = −R, so Σ(τ) = (P − τR)⁻¹, valid because P − sR ≻ 0 for
    all s ∈ [0, τ] (it holds at both ends and the cone is convex), and m stays 0 (math.md §4). *)
Parameter Flow : list piece -> smat -> smat -> smat -> smat -> Prop.
Axiom flow_nil : forall m S, Flow nil m S m S.
Axiom flow_translation : forall pc pcs d m S mnext m1 S1,
  translation_b pc = true -> Shape d 1 m -> Square d S ->
  MatEq d 1 mnext (sadd m (sscale (tau pc) (cb pc))) ->
  Flow pcs mnext S m1 S1 -> Flow (pc :: pcs) m S m1 S1.
Axiom flow_bernoulli : forall pc pcs d m S P Snext m1 S1,
  bernoulli_b d pc = true -> Shape d 1 m -> Zero m -> Square d S ->
  MatEq d d (smul S P) (seye d) -> PD d P -> PD d (ssub P (sscale (tau pc) (bernoulli_R d pc))) ->
  Square d Snext -> MatEq d d (smul Snext (ssub P (sscale (tau pc) (bernoulli_R d pc)))) (seye d) ->
  Flow pcs m Snext m1 S1 -> Flow (pc :: pcs) m S m1 S1.
