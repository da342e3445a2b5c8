(** The moment equations of the Gaussian closure, computed exactly (math.md §2).

    For constant parameters (A, heads (V_h, B_h), b) the covariance field is
    F(Σ) = MΣ + ΣMᵀ with M = A + Σ_h V_hΣB_h; svec coordinates are the entries i ≤ j of a
    symmetric matrix, row-major, unscaled (as in symgauss's checker), and [linearisation p S]
    is the svec matrix of DF(S)[Δ] = MΔ + ΔMᵀ + WS + SWᵀ with W = Σ_h V_hΔB_h. Matrices are
    [smat] (integer numerators over a positive denominator, Matrix.v); a rational is (a, b) = a/b. *)
From Coq Require Import ZArith List Arith Bool.
From Bignums Require Import BigZ.
From SymGauss Require Import Matrix.
Import ListNotations.

Record problem := Problem { pA : smat; heads : list (smat * smat); pb : smat (* d×1 *) }.

Definition dim (p : problem) : nat := length (num (pA p)).
Definition svec_dim (d : nat) : nat := (d * (d + 1) / 2)%nat.
Definition twice (c : rat) : rat := (2 * fst c, snd c)%bigZ.

(** Every matrix of the problem is d×d (b is d×1), each with a positive denominator. *)
Definition WellShaped (p : problem) : Prop :=
  Square (dim p) (pA p) /\ Shape (dim p) 1 (pb p) /\
  Forall (fun '(V, B) => Square (dim p) V /\ Square (dim p) B) (heads p).
Definition well_shaped_b (p : problem) : bool :=
  shape_b (dim p) (dim p) (pA p) && shape_b (dim p) 1 (pb p) &&
  forallb (fun '(V, B) => shape_b (dim p) (dim p) V && shape_b (dim p) (dim p) B) (heads p).

Definition head_sum (d : nat) (hs : list (smat * smat)) (S : smat) : smat :=
  ssum d (map (fun '(V, B) => smul (smul V S) B) hs).
(** M = A + Σ_h V_hΣB_h *)
Definition velocity (p : problem) (S : smat) : smat := sadd (pA p) (head_sum (dim p) (heads p) S).
(** F(Σ) = MΣ + ΣMᵀ *)
Definition residual (p : problem) (S : smat) : smat :=
  let M := velocity p S in sadd (smul M S) (smul S (str M)).
(** the mean's matrix at Σ: A + Σ_h (V_h + V_hΣB_h) (m' = (that) m + b) *)
Definition mean_matrix (p : problem) (S : smat) : smat :=
  sadd (velocity p S) (ssum (dim p) (map fst (heads p))).

Definition svec (N : imat) : list bigZ :=
  flat_map (fun '(i, r) => skipn i r) (combine (seq 0 (length N)) N).
Definition pairs (d : nat) : list (nat * nat) :=
  flat_map (fun i => map (fun j => (i, j)) (seq i (d - i))) (seq 0 d).
Definition unit_sym (d i j : nat) : smat :=
  SM 1 (map (fun a => map (fun b => if (Nat.eqb a i && Nat.eqb b j) || (Nat.eqb a j && Nat.eqb b i)
                                    then 1%bigZ else 0%bigZ) (seq 0 d)) (seq 0 d)).
(** The matrix whose column k is svec(C_k), over the least common denominator. *)
Definition svec_columns (Cs : list smat) : smat :=
  let D := fold_left (fun a C => BigZ.lcm a (den C)) Cs 1%bigZ in
  SM D (itr (map (fun C => map (fun x => (x * (D / den C))%bigZ) (svec (num C))) Cs)).
(** the svec matrix of DF(S): column (i, j) is svec(X + Xᵀ), X = M E_ij + (Σ_h V_h E_ij B_h) S *)
Definition linearisation (p : problem) (S : smat) : smat :=
  let d := dim p in let M := velocity p S in
  svec_columns (map (fun '(i, j) => let E := unit_sym d i j in
                                    let X := sadd (smul M E) (smul (head_sum d (heads p) E) S) in
                                    sadd X (str X)) (pairs d)).

(** The svec Gram matrix P of Δ ↦ tr(QΔQΔ): P_ab = tr(Q E_a Q E_b) (E_a the unit symmetric
    matrices), column b = the svec of Q E_b Q with off-diagonal entries doubled. *)
Definition sym_weight (A : smat) : smat :=
  SM (den A) (map (fun '(i, r) => map (fun '(j, x) => if Nat.eqb i j then x else (2 * x)%bigZ)
                                      (combine (seq 0 (length r)) r))
                  (combine (seq 0 (length (num A))) (num A))).
Definition svec_gram (d : nat) (Q : smat) : smat :=
  svec_columns (map (fun '(i, j) => sym_weight (smul Q (smul (unit_sym d i j) Q))) (pairs d)).

(** −(LᵀP + PL) − c·P: positive definite with P ≻ 0 ⇒ every eigenvalue of L has Re < −c/2. *)
Definition decay (L P : smat) (c : rat) : smat :=
  ssub (sopp (sadd (smul (str L) P) (smul P L))) (sscale c P).

(** V = v·I exactly, for every head; then Σ_h(V_hΣB_hΣ + ΣB_hᵀΣV_hᵀ) = ΣRΣ with
    R = Σ_h v_h (B_h + B_hᵀ) (the Riccati / Bernoulli structure, math.md §4). *)
Definition scalar_b (d : nat) (V : smat) : bool := mateq_b d d V (sscale (sent V 0 0) (seye d)).
Definition scalar_heads (p : problem) : bool :=
  forallb (fun '(V, _) => scalar_b (dim p) V) (heads p).
Definition riccati_R (p : problem) : smat :=
  ssum (dim p) (map (fun '(V, B) => sscale (sent V 0 0) (sadd B (str B))) (heads p)).

(** The problem restricted to an invariant range U (d×r): AU = U·At, V_hU = U·Vt_h, and the
    reduced B_h is UᵀB_hU (b = 0 in the reduced covariance equation). *)
Definition reduce (p : problem) (U At : smat) (Vts : list smat) : problem :=
  Problem At (combine Vts (map (fun '(_, B) => smul (str U) (smul B U)) (heads p)))
          (szeros (length (num At)) 1).
Definition InvariantRange (p : problem) (cov0 U At : smat) (Vts : list smat) (C Lam : smat) :=
  let d := dim p in let r := length (num At) in
  Shape d r U /\ Square r At /\ MatEq r r (smul Lam U) (seye r) /\
  MatEq d r (smul (pA p) U) (smul U At) /\ length Vts = length (heads p) /\
  Forall (fun '((V, _), Vt) => Square r Vt /\ MatEq d r (smul V U) (smul U Vt))
         (combine (heads p) Vts) /\
  Square r C /\ MatEq d d cov0 (smul U (smul C (str U))).
Definition invariant_range_b (p : problem) (cov0 U At : smat) (Vts : list smat) (C Lam : smat) :=
  let d := dim p in let r := length (num At) in
  shape_b d r U && shape_b r r At && mateq_b r r (smul Lam U) (seye r) &&
  mateq_b d r (smul (pA p) U) (smul U At) && Nat.eqb (length Vts) (length (heads p)) &&
  forallb (fun '((V, _), Vt) => shape_b r r Vt && mateq_b d r (smul V U) (smul U Vt))
          (combine (heads p) Vts) &&
  shape_b r r C && mateq_b d d cov0 (smul U (smul C (str U))).

(** The vertices of a box of A-entries: each (i, j, lo, hi) sets entry (i, j) to lo or hi. *)
Definition Box := list (nat * nat * rat * rat).
Definition vertices (A : smat) (box : Box) : list smat :=
  fold_left (fun Vs '(i, j, lo, hi) => flat_map (fun M => [sset M i j lo; sset M i j hi]) Vs)
            box [A].

(** rank M = r, pinned by factorisations: M = X Yᵀ with X, Y d×r (rank ≤ r) and
    Λ M Ρ = I_r with Λ r×d, Ρ d×r (rank ≥ r); r = 0 when M is zero. *)
Definition RankIs (d r : nat) (M : smat) : Prop :=
  (r = 0%nat /\ Square d M /\ Zero M) \/
  exists X Y Lam Rho, Shape d r X /\ Shape d r Y /\ MatEq d d M (smul X (str Y)) /\
                      Shape r d Lam /\ Shape d r Rho /\
                      MatEq r r (smul Lam (smul M Rho)) (seye r).

Lemma well_shaped_b_sound p : well_shaped_b p = true -> WellShaped p.
Proof.
  unfold well_shaped_b, WellShaped. intros H.
  apply andb_true_iff in H as [H H3]. apply andb_true_iff in H as [H1 H2].
  split; [now apply shape_b_sound|]. split; [now apply shape_b_sound|].
  apply Forall_forall. intros [V B] Hin.
  pose proof (proj1 (forallb_forall _ _) H3 (V, B) Hin) as HVB. simpl in HVB.
  apply andb_true_iff in HVB as [HV HB]. split; now apply shape_b_sound.
Qed.

Lemma invariant_range_b_sound p cov0 U At Vts C Lam :
  invariant_range_b p cov0 U At Vts C Lam = true -> InvariantRange p cov0 U At Vts C Lam.
Proof.
  unfold invariant_range_b, InvariantRange. intros H.
  apply andb_true_iff in H as [H H8]. apply andb_true_iff in H as [H H7].
  apply andb_true_iff in H as [H H6]. apply andb_true_iff in H as [H H5].
  apply andb_true_iff in H as [H H4]. apply andb_true_iff in H as [H H3].
  apply andb_true_iff in H as [H1 H2].
  split; [now apply shape_b_sound|]. split; [now apply shape_b_sound|].
  split; [now apply mateq_b_sound|]. split; [now apply mateq_b_sound|].
  split; [now apply Nat.eqb_eq|].
  split; [|split; [now apply shape_b_sound|now apply mateq_b_sound]].
  apply Forall_forall. intros [[V B] Vt] Hin.
  pose proof (proj1 (forallb_forall _ _) H6 _ Hin) as Hx. cbv beta iota in Hx.
  apply andb_true_iff in Hx as [Hx1 Hx2]. split; [now apply shape_b_sound|now apply mateq_b_sound].
Qed.

(** Proves a goal that the shape / equality checks decide, by computation. *)
Ltac by_computation :=
  match goal with
  | |- WellShaped _ => apply well_shaped_b_sound; vm_compute; reflexivity
  | |- Shape _ _ _ => apply shape_b_sound; vm_compute; reflexivity
  | |- Square _ _ => apply shape_b_sound; vm_compute; reflexivity
  | |- Zero _ => apply zero_b_sound; vm_compute; reflexivity
  | |- MatEq _ _ _ _ => apply mateq_b_sound; vm_compute; reflexivity
  | |- InvariantRange _ _ _ _ _ _ _ => apply invariant_range_b_sound; vm_compute; reflexivity
  | |- _ = _ => vm_compute; reflexivity
  end.

(** Reach: a control piece (duration τ = a/b and constant A, heads, b) and the exact pieces. *)
Record piece := Piece { tau : rat; cA : smat; cheads : list (smat * smat); cb : smat }.
(** A = 0 and every V_h = 0: m ↦ m + τb, Σ unchanged *)
Definition translation_b (pc : piece) : bool :=
  zero_b (cA pc) && forallb (fun '(V, _) => zero_b V) (cheads pc).
(** A = 0, b = 0, and every head with V_h ≠ 0 and B_h ≠ 0 has V_h = v_h·I *)
Definition bernoulli_b (d : nat) (pc : piece) : bool :=
  zero_b (cA pc) && zero_b (cb pc) &&
  forallb (fun '(V, B) => zero_b V || zero_b B || scalar_b d V) (cheads pc).
(** R = Σ_h v_h (B_h + B_hᵀ) over the active heads *)
Definition bernoulli_R (d : nat) (pc : piece) : smat :=
  ssum d (map (fun '(V, B) => if zero_b V || zero_b B then szeros d d
                              else sscale (sent V 0 0) (sadd B (str B))) (cheads pc)).
(** the durations add up to T *)
Definition radd (x y : rat) : rat := (fst x * snd y + fst y * snd x, snd x * snd y)%bigZ.
Definition duration_b (pcs : list piece) (T : rat) : bool :=
  let s := fold_left (fun a pc => radd a (tau pc)) pcs (0%bigZ, 1%bigZ) in
  BigZ.eqb (fst s * snd T) (fst T * snd s).
(** ‖A − B‖² ≤ ε² (sum of squared entries; ε = a/b) *)
Definition sqdist_le_b (A B : smat) (eps : rat) : bool :=
  let D := ssub A B in
  BigZ.leb (snd eps * snd eps * fold_left BigZ.add (map (fun x => x * x) (concat (num D))) 0)%bigZ
           (fst eps * fst eps * den D * den D)%bigZ.
