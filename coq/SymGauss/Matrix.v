(** Rational matrices as integer matrices over a common denominator, and the operations the
    exported files compute with.

    An [smat] is a pair (den, num): the rational matrix num / den, num a list of rows of
    integers ([bigZ], machine-word integers that [vm_compute] multiplies fast), den > 0 (checked
    by [Shape]). Every operation is a few lines over lists, so a reader can see what it
    computes: on well-shaped inputs they are the usual rational matrix operations (products of
    numerators over products of denominators), followed by [snorm], which divides numerator and
    denominator by their common divisor and so does not change the rational matrix. A rational
    number is a pair (a, b) meaning a / b, b > 0. *)
From Coq Require Import ZArith List Arith Bool Lia.
From Bignums Require Import BigZ.
From SymGauss Require Import Sums.
Import ListNotations.

Definition imat := list (list bigZ).
Record smat := SM { den : bigZ; num : imat }.
Definition rat := (bigZ * bigZ)%type.

(** entry (i, j) of an integer matrix, as an integer (0 outside it) *)
Definition ient (N : imat) (i j : nat) : Z := [nth j (nth i N nil) 0%bigZ]%bigZ.

Open Scope bigZ_scope.
Fixpoint dot (u v : list bigZ) : bigZ :=
  match u, v with a :: u', b :: v' => a * b + dot u' v' | _, _ => 0 end.
Fixpoint zipw (f : bigZ -> bigZ -> bigZ) (u v : list bigZ) : list bigZ :=
  match u, v with a :: u', b :: v' => f a b :: zipw f u' v' | _, _ => nil end.
Fixpoint zipm (f : bigZ -> bigZ -> bigZ) (M N : imat) : imat :=
  match M, N with r :: M', s :: N' => zipw f r s :: zipm f M' N' | _, _ => nil end.
Definition col (M : imat) (j : nat) : list bigZ := map (fun r => nth j r 0) M.
Definition itr (M : imat) : imat := map (col M) (seq 0 (length (hd nil M))).
Definition imul (M N : imat) : imat := let Nt := itr N in map (fun r => map (dot r) Nt) M.
Definition iscale (c : bigZ) (M : imat) : imat := map (map (fun x => c * x)) M.

(** Dividing numerator and denominator by their greatest common divisor. *)
Definition snorm (A : smat) : smat :=
  let g := fold_left BigZ.gcd (concat (num A)) (den A) in
  if g <=? 1 then A else SM (den A / g) (map (map (fun x => x / g)) (num A)).

Definition smul (A B : smat) : smat := snorm (SM (den A * den B) (imul (num A) (num B))).
Definition sadd (A B : smat) : smat :=
  snorm (SM (den A * den B) (zipm BigZ.add (iscale (den B) (num A)) (iscale (den A) (num B)))).
Definition ssub (A B : smat) : smat :=
  snorm (SM (den A * den B) (zipm BigZ.sub (iscale (den B) (num A)) (iscale (den A) (num B)))).
Definition sopp (A : smat) : smat := SM (den A) (map (map BigZ.opp) (num A)).
Definition sscale (c : rat) (A : smat) : smat := snorm (SM (snd c * den A) (iscale (fst c) (num A))).
Definition str (A : smat) : smat := SM (den A) (itr (num A)).
Definition seye (n : nat) : smat :=
  SM 1 (map (fun i => map (fun j => if Nat.eqb i j then 1 else 0) (seq 0 n)) (seq 0 n)).
Definition szeros (r c : nat) : smat := SM 1 (repeat (repeat 0 c) r).
Definition ssum (d : nat) (Ms : list smat) : smat := fold_left sadd Ms (szeros d d).
(** entry (i, j) as a rational *)
Definition sent (A : smat) (i j : nat) : rat := (nth j (nth i (num A) nil) 0, den A).
(** entry (i, j) set to the rational c *)
Definition sset (A : smat) (i j : nat) (c : rat) : smat :=
  let N := iscale (snd c) (num A) in
  SM (den A * snd c)
     (map (fun '(k, r) => if Nat.eqb k i then
                            map (fun '(l, y) => if Nat.eqb l j then fst c * den A else y)
                                (combine (seq 0 (length r)) r)
                          else r) (combine (seq 0 (length N)) N)).
Close Scope bigZ_scope.

(** Shapes (with a positive denominator) and exact equalities, each with a boolean test that
    [vm_compute] decides. *)
Definition Shape (r c : nat) (A : smat) : Prop :=
  (0 < [den A]%bigZ)%Z /\ length (num A) = r /\ Forall (fun row => length row = c) (num A).
Definition shape_b (r c : nat) (A : smat) : bool :=
  BigZ.ltb 0 (den A) && Nat.eqb (length (num A)) r &&
  forallb (fun row => Nat.eqb (length row) c) (num A).
Definition Square (d : nat) (A : smat) : Prop := Shape d d A.
(** every entry is 0 *)
Definition Zero (A : smat) : Prop := Forall (Forall (fun x => [x]%bigZ = 0%Z)) (num A).
Definition zero_b (A : smat) : bool := forallb (forallb (fun x => BigZ.eqb x 0)) (num A).
(** A = B, both r×c *)
Definition MatEq (r c : nat) (A B : smat) : Prop := Shape r c A /\ Shape r c B /\ Zero (ssub A B).
Definition mateq_b (r c : nat) (A B : smat) : bool :=
  shape_b r c A && shape_b r c B && zero_b (ssub A B).

Lemma shape_b_sound r c A : shape_b r c A = true -> Shape r c A.
Proof.
  unfold shape_b, Shape. intros H. apply andb_true_iff in H as [H H2].
  apply andb_true_iff in H as [H0 H1]. rewrite BigZ.spec_ltb in H0.
  split; [apply Z.ltb_lt in H0; exact H0|]. split; [now apply Nat.eqb_eq|].
  apply Forall_forall. intros x Hx. apply Nat.eqb_eq.
  exact (proj1 (forallb_forall _ _) H2 x Hx).
Qed.

Lemma zero_b_sound A : zero_b A = true -> Zero A.
Proof.
  unfold zero_b, Zero. intros H. apply Forall_forall. intros r Hr.
  pose proof (proj1 (forallb_forall _ _) H r Hr) as Hr'. apply Forall_forall. intros x Hx.
  pose proof (proj1 (forallb_forall _ _) Hr' x Hx) as E. cbv beta in E. rewrite BigZ.spec_eqb in E.
  apply Z.eqb_eq in E. exact E.
Qed.

Lemma mateq_b_sound r c A B : mateq_b r c A B = true -> MatEq r c A B.
Proof.
  unfold mateq_b, MatEq. intros H. apply andb_true_iff in H as [H H3].
  apply andb_true_iff in H as [H1 H2].
  split; [now apply shape_b_sound|]. split; [now apply shape_b_sound|]. now apply zero_b_sound.
Qed.
