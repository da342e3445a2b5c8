(** Positive definiteness and a checker proved sound once (no axioms).

    [PD n A]: A = num/den (den > 0) is positive definite: its quadratic form is positive at
    every non-zero integer vector — equivalently at every non-zero rational vector (scale it),
    and, A being rational, at every non-zero real one (a real direction where the form is ≤ 0
    has rational ones arbitrarily close where it is < 0, or a rational kernel vector).

    The checker [pd_check n A R T s] (in the manner of Rump's verified Cholesky test) takes
    untrusted integers R (n×n), T > 0, s > 0 and accepts when
    E = T·num − den·s·I − den·RᵀR has Σ_j (|E_ij| + |E_ji|) < 2·den·s for every i; that is,
    with R' = R/√T and s' = s/T, the rational matrix A − s'I − R'ᵀR' has every row-and-column
    sum of moduli below 2s'. Then, for integer x ≠ 0,
    2T·xᵀ num x = 2xᵀEx + 2·den·s|x|² + 2·den|Rx|² ≥ Σ_i x_i²(2·den·s − Σ_j(|E_ij| + |E_ji|)) > 0
    ([pd_check_sound]). R is a rounded Cholesky factor of A − s'I: short integers, so the check
    costs O(n³) small products instead of an exact elimination whose pivots grow long. *)
From Coq Require Import ZArith List Arith Bool Lia.
From Bignums Require Import BigZ.
From SymGauss Require Import Sums Matrix.
Import ListNotations.
Open Scope Z_scope.

Definition quad (n : nat) (N : imat) (x : nat -> Z) : Z :=
  sumz n (fun i => sumz n (fun j => x i * ient N i j * x j)).
Definition Nonzero (n : nat) (x : nat -> Z) : Prop := exists i, (i < n)%nat /\ x i <> 0.
Definition PD (n : nat) (A : smat) : Prop :=
  0 < [den A]%bigZ /\ forall x, Nonzero n x -> 0 < quad n (num A) x.
(** negative definite *)
Definition ND (n : nat) (A : smat) : Prop := forall x, Nonzero n x -> quad n (num A) x < 0.

Definition gram (n : nat) (R : imat) (i j : nat) : bigZ :=
  bsum n (fun k => nth i (nth k R nil) 0%bigZ * nth j (nth k R nil) 0%bigZ)%bigZ.
Definition rump_err (n : nat) (N R : imat) (D T s : bigZ) (i j : nat) : bigZ :=
  (T * nth j (nth i N nil) 0 - (if Nat.eqb i j then D * s else 0) - D * gram n R i j)%bigZ.
Definition rump_row (n : nat) (N R : imat) (D T s : bigZ) (i : nat) : bigZ :=
  bsum n (fun j => BigZ.abs (rump_err n N R D T s i j) + BigZ.abs (rump_err n N R D T s j i))%bigZ.
Definition pd_check (n : nat) (A : smat) (R : imat) (T s : bigZ) : bool :=
  BigZ.ltb 0 (den A) && BigZ.ltb 0 T && BigZ.ltb 0 s &&
  forallb (fun i => BigZ.ltb (rump_row n (num A) R (den A) T s i) (2 * den A * s)%bigZ)
          (seq 0 n).

Lemma big_pos (x : bigZ) : BigZ.ltb 0 x = true -> 0 < [x]%bigZ.
Proof. rewrite BigZ.spec_ltb. intros H. apply Z.ltb_lt in H. exact H. Qed.

Lemma big_lt2 (a b c : bigZ) : BigZ.ltb a (2 * b * c) = true -> [a]%bigZ < 2 * [b]%bigZ * [c]%bigZ.
Proof. rewrite BigZ.spec_ltb, !BigZ.spec_mul. intros H. apply Z.ltb_lt in H. exact H. Qed.

Section Soundness.
Variables (n : nat) (N R : imat) (D T s : bigZ) (x : nat -> Z).
Let G i j := sumz n (fun k => ient R k i * ient R k j).
Let e i j := [rump_err n N R D T s i j]%bigZ.
Let row i := sumz n (fun j => Z.abs (e i j) + Z.abs (e j i)).

Lemma gram_spec i j : [gram n R i j]%bigZ = G i j.
Proof. unfold gram, G. rewrite bsum_spec. apply sumz_ext. intros. apply BigZ.spec_mul. Qed.

Lemma e_spec i j :
  e i j = [T]%bigZ * ient N i j - (if Nat.eqb i j then [D]%bigZ * [s]%bigZ else 0) -
          [D]%bigZ * G i j.
Proof.
  unfold e, rump_err. rewrite !BigZ.spec_sub, !BigZ.spec_mul, gram_spec.
  destruct (Nat.eqb i j); [rewrite BigZ.spec_mul|]; reflexivity.
Qed.

Lemma row_spec i : [rump_row n N R D T s i]%bigZ = row i.
Proof.
  unfold rump_row, row. rewrite bsum_spec. apply sumz_ext. intros j _.
  rewrite BigZ.spec_add, !BigZ.spec_abs. reflexivity.
Qed.

Lemma quad_split : [T]%bigZ * quad n N x =
  sumz n (fun i => sumz n (fun j => x i * e i j * x j)) +
  sumz n (fun i => sumz n (fun j => if Nat.eqb i j then x i * ([D]%bigZ * [s]%bigZ) * x j
                                                  else 0)) +
  [D]%bigZ * sumz n (fun i => sumz n (fun j => x i * G i j * x j)).
Proof.
  unfold quad. rewrite <- !sumz_scale, <- !sumz_add. apply sumz_ext. intros i _.
  rewrite <- !sumz_scale, <- !sumz_add. apply sumz_ext. intros j _.
  rewrite e_spec. destruct (Nat.eqb i j); ring.
Qed.

Lemma quad_gram : 0 <= sumz n (fun i => sumz n (fun j => x i * G i j * x j)).
Proof.
  set (a k i := x i * ient R k i).
  rewrite (sumz_ext n _ (fun i => sumz n (fun j => sumz n (fun k => a k i * a k j)))).
  2: { intros i _. apply sumz_ext. intros j _. unfold G, a.
       rewrite <- sumz_scale. rewrite Z.mul_comm, <- sumz_scale. apply sumz_ext. intros; ring. }
  rewrite (sumz_ext n _ (fun i => sumz n (fun k => sumz n (fun j => a k i * a k j))))
    by (intros i _; apply sumz_swap).
  rewrite sumz_swap.
  rewrite (sumz_ext n _ (fun k => sumz n (a k) * sumz n (a k))) by (intros k _; apply sumz_prod).
  apply sumz_nonneg. intros; apply Z.square_nonneg.
Qed.

Lemma quad_err : sumz n (fun i => - (x i * x i) * row i) <=
                 2 * sumz n (fun i => sumz n (fun j => x i * e i j * x j)).
Proof.
  rewrite <- sumz_scale.
  apply Z.le_trans with
    (sumz n (fun i => sumz n (fun j => - Z.abs (e i j) * (x i * x i + x j * x j)))).
  2: { apply sumz_le; intros i _. rewrite <- sumz_scale. apply sumz_le; intros j _.
       apply cross_term. }
  rewrite (sumz_ext n (fun i => sumz n (fun j => - Z.abs (e i j) * (x i * x i + x j * x j)))
             (fun i => sumz n (fun j => - (Z.abs (e i j) * (x i * x i))) +
                       sumz n (fun j => - (Z.abs (e i j) * (x j * x j)))))
    by (intros i _; rewrite <- sumz_add; apply sumz_ext; intros; ring).
  rewrite sumz_add, (sumz_swap n n (fun i j => - (Z.abs (e i j) * (x j * x j)))), <- sumz_add.
  apply Z.eq_le_incl. apply sumz_ext. intros i _. unfold row.
  rewrite <- sumz_add, <- sumz_scale. apply sumz_ext. intros; ring.
Qed.

Lemma pd_check_sound : pd_check n (SM D N) R T s = true -> Nonzero n x -> 0 < quad n N x.
Proof.
  unfold pd_check. cbn [den num]. intros H [k [Hk Hx]].
  apply andb_true_iff in H as [H Hrows]. apply andb_true_iff in H as [H Hs].
  apply andb_true_iff in H as [HD HT].
  apply big_pos in HD. apply big_pos in HT. apply big_pos in Hs.
  assert (Hrow : forall i, (i < n)%nat -> row i < 2 * [D]%bigZ * [s]%bigZ).
  { intros i Hi. pose proof (proj1 (forallb_forall _ _) Hrows i (proj2 (in_seq n 0 i)
      (conj (Nat.le_0_l i) Hi))) as Hb. cbv beta in Hb.
    apply big_lt2 in Hb. rewrite row_spec in Hb. exact Hb. }
  pose proof quad_split as Hsplit. pose proof quad_gram as Hg. pose proof quad_err as He.
  rewrite (sumz_ext n (fun i => sumz n (fun j => if Nat.eqb i j then x i * ([D]%bigZ * [s]%bigZ)
                                                                      * x j else 0))
                     (fun i => [D]%bigZ * [s]%bigZ * (x i * x i))) in Hsplit.
  2: { intros i Hi. rewrite sumz_delta, (proj2 (Nat.ltb_lt i n) Hi). ring. }
  assert (Hpos : 0 < sumz n (fun i => - (x i * x i) * row i) +
                     2 * sumz n (fun i => [D]%bigZ * [s]%bigZ * (x i * x i))).
  { rewrite <- sumz_scale, <- sumz_add. apply (sumz_pos n _ k); [intros i Hi|exact Hk|].
    - pose proof (Hrow i Hi). pose proof (Z.square_nonneg (x i)).
      replace (- (x i * x i) * row i + 2 * ([D]%bigZ * [s]%bigZ * (x i * x i))) with
        ((x i * x i) * (2 * [D]%bigZ * [s]%bigZ - row i)) by ring.
      apply Z.mul_nonneg_nonneg; lia.
    - pose proof (Hrow k Hk).
      assert (0 < x k * x k).
      { destruct (Z.lt_trichotomy (x k) 0) as [Hl|[Hl|Hl]]; [|contradiction|].
        - replace (x k * x k) with ((- x k) * (- x k)) by ring. apply Z.mul_pos_pos; lia.
        - apply Z.mul_pos_pos; lia. }
      replace (- (x k * x k) * row k + 2 * ([D]%bigZ * [s]%bigZ * (x k * x k))) with
        ((x k * x k) * (2 * [D]%bigZ * [s]%bigZ - row k)) by ring.
      apply Z.mul_pos_pos; lia. }
  assert (0 <= [D]%bigZ * sumz n (fun i => sumz n (fun j => x i * G i j * x j)))
    by (apply Z.mul_nonneg_nonneg; lia).
  assert (0 < [T]%bigZ * quad n N x) by lia.
  apply (Z.mul_pos_cancel_l [T]%bigZ); lia.
Qed.
End Soundness.

Theorem pd_of_check (n : nat) (A : smat) (R : imat) (T s : bigZ) :
  pd_check n A R T s = true -> PD n A.
Proof.
  intros H. destruct A as [D N]. split.
  - unfold pd_check in H. cbn [den num] in H. apply andb_true_iff in H as [H _].
    apply andb_true_iff in H as [H _]. apply andb_true_iff in H as [H _].
    now apply big_pos.
  - intros x Hx. exact (pd_check_sound n N R D T s x H Hx).
Qed.

(** Several matrices at once, each with its own hint (R, T, s). *)
Fixpoint pd_check_all (n : nat) (As : list smat) (ws : list (imat * bigZ * bigZ)) : bool :=
  match As, ws with
  | nil, nil => true
  | A :: As', (R, T, s) :: ws' => pd_check n A R T s && pd_check_all n As' ws'
  | _, _ => false
  end.

Theorem pd_all_of_check (n : nat) (As : list smat) (ws : list (imat * bigZ * bigZ)) :
  pd_check_all n As ws = true -> Forall (PD n) As.
Proof.
  revert ws. induction As as [|A As IH]; intros [|[[R T] s] ws] H; try discriminate; constructor.
  - simpl in H. apply andb_true_iff in H as [H _]. exact (pd_of_check n A R T s H).
  - simpl in H. apply andb_true_iff in H as [_ H]. exact (IH ws H).
Qed.

(** An integer vector x ≠ 0 with xᵀ num x ≥ 0: A is not negative definite. *)
Definition not_nd_check (n : nat) (A : smat) (x : list bigZ) : bool :=
  existsb (fun v => negb (BigZ.eqb v 0)) x && Nat.leb (length x) n &&
  BigZ.leb 0 (bsum n (fun i => bsum n (fun j =>
    nth i x 0 * nth j (nth i (num A) nil) 0 * nth j x 0)))%bigZ.

Theorem not_nd_of_check (n : nat) (A : smat) (x : list bigZ) :
  not_nd_check n A x = true -> ~ ND n A.
Proof.
  unfold not_nd_check. intros H Hnd. apply andb_true_iff in H as [H H3].
  apply andb_true_iff in H as [H1 H2]. apply existsb_exists in H1 as [v [Hv Hnz]].
  apply In_nth with (d := 0%bigZ) in Hv as [i [Hi Hvi]]. apply Nat.leb_le in H2.
  set (y k := [nth k x 0%bigZ]%bigZ).
  assert (Hy : Nonzero n y).
  { exists i. split; [exact (Nat.lt_le_trans _ _ _ Hi H2)|]. intros E. apply negb_true_iff in Hnz.
    rewrite BigZ.spec_eqb in Hnz. apply Z.eqb_neq in Hnz. apply Hnz. subst v. exact E. }
  specialize (Hnd y Hy).
  rewrite BigZ.spec_leb, bsum_spec in H3. apply Z.leb_le in H3. change [0%bigZ]%bigZ with 0 in H3.
  assert (quad n (num A) y = sumz n (fun i0 => [bsum n (fun j => (nth i0 x 0 *
            nth j (nth i0 (num A) nil) 0 * nth j x 0)%bigZ)]%bigZ)).
  { unfold quad. apply sumz_ext. intros a _. rewrite bsum_spec. apply sumz_ext. intros b _.
    unfold y, ient. rewrite !BigZ.spec_mul. reflexivity. }
  lia.
Qed.
